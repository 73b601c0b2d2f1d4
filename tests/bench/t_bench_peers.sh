# tools/bench-peers (make bench-peers): our benchmarks beside the ns-3 peers, small. Runs only
# where the ns-3 programs are built already (make bench-peers or make peers: Debian's ns-3
# is large to install and slow to compile against, so make check never builds them).
# Checks the table's rows and that every ratio is a number; never a timing.
set -eu
. tests/lib.sh

for p in ns3-scheduler ns3-tcp-bulk ns3-tcp-rr; do
	[ -x "$BUILD/peers/$p" ] || { echo "the ns-3 peer programs are not built ($BUILD/peers/$p; make bench-peers builds them)"; exit 77; }
done

# each peer alone: its result line, and a bad value refused
"$BUILD/peers/ns3-scheduler" --SchedulerType=ns3::HeapScheduler --population=100 --total=2000 |
	grep -Eq '^result: work=scheduler who=ns3:HeapScheduler wall_s=[0-9.]+ rate=[0-9.e+]+ unit=events/s cpu_s=[0-9.]+ population=100 events=2000$' ||
	fail "ns3-scheduler: no result line"
expect_exit 2 "$BUILD/peers/ns3-scheduler" --SchedulerType=ns3::NoSuchScheduler
expect_exit 2 "$BUILD/peers/ns3-scheduler" --population=10 --total=5
"$BUILD/peers/ns3-tcp-bulk" --bytes=300000 | grep -Eq '^result: work=tcp-bulk who=ns3:BulkSend .* bytes=300000 ' || fail "ns3-tcp-bulk"
"$BUILD/peers/ns3-tcp-rr" --conns=3 --count=20 | grep -Eq '^result: work=tcp-rr who=ns3:TcpSocket .* transactions=60 ' || fail "ns3-tcp-rr"

out=$(tools/bench-peers --quick --runs 1 "$BUILD")
echo "$out"
for row in 'scheduler, pop 1e4' 'scheduler, pop 1e3' 'TCP bulk' 'TCP rr' 'SMC-R bulk' 'SMC-R rr'; do
	echo "$out" | grep -q "^$row" || fail "no row '$row'"
done
for who in ns3:MapScheduler ns3:HeapScheduler ns3:PriorityQueueScheduler ns3:CalendarScheduler ns3:ListScheduler \
	ns3:BulkSend ns3:TcpSocket memcpy:65536 smcr-sim:tcp; do
	echo "$out" | grep -Eq " $who +[0-9.]+ [kMG]B?/s +[0-9.]+ [kMG]B?/s +[0-9.]+x +[0-9.]+x" || fail "no ratio against $who"
done
expect_exit 2 tools/bench-peers --runs 0 "$BUILD"
expect_exit 2 tools/bench-peers --no-such-option
echo "bench peers ok"
