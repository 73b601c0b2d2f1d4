# smcr-sim sweep on one machine: the same merged results byte for byte from one process
# and from --jobs 2; failing points listed first with the command that reproduces them
# (and that command does); a worker killed mid-sweep (its point run again, marked
# "retried":1, the rest unchanged); an interrupted sweep resumed without running its
# finished points again; bad input refused with a reason. (MPI: tests/scenarios/t_sweep_mpi.sh.)
set -eu
. tests/lib.sh
S=tests/data/sweep/redundant-pair.scn
W=$BUILD/t_sweep
rm -rf "$W"; mkdir -p "$W"
AXES="--seeds 1..4 --set PATHS=1,2 --set FAILAT=3ms,20ms,60ms --set LOSS=0,1/200"

# 1. one process and --jobs 2: the same bytes (the wall times live in FILE.wall)
set +e
"$SMCR_SIM" sweep $S $AXES -q --out "$W/one.jsonl" >"$W/one.sum"; rc1=$?
"$SMCR_SIM" sweep $S $AXES -q --jobs 2 --out "$W/two.jsonl" >"$W/two.sum"; rc2=$?
set -e
[ $rc1 = 1 ] && [ $rc2 = 1 ] || fail "a sweep with failing points exited $rc1 / $rc2, expected 1"
cmp "$W/one.jsonl" "$W/two.jsonl" || fail "one process and --jobs 2 wrote different results"
[ "$(wc -l <"$W/one.jsonl")" = 49 ] || fail "expected a header and 48 records in $W/one.jsonl"
grep -q '^engine: 2 worker processes' "$W/two.sum" || fail "--jobs 2 did not run on two workers: $(grep engine "$W/two.sum")"
[ "$(cut -f3 "$W/two.jsonl.wall" | sort -u | wc -l)" = 2 ] || fail "--jobs 2: not two runners in the column file"
grep -q '"retried"' "$W/one.jsonl" && fail "a record says retried without a death"

# 2. failures first, each with a command that reproduces it
sed -n 2p "$W/one.sum" | grep -q '^FAILING points' || fail "the failing points are not listed first: $(sed -n 2p "$W/one.sum")"
nfail=$(grep -c '"pass":false' "$W/one.jsonl")
[ "$nfail" -ge 24 ] || fail "expected the 24 PATHS=1 points (at least) to fail, $nfail did"
grep -q "^sweep $S: 48 points, $((48 - nfail)) passed, $nfail failed" "$W/one.sum" || fail "bad summary line: $(head -1 "$W/one.sum")"
cmd=$(grep -m1 '^      smcr-sim run ' "$W/one.sum" | sed 's/^ *smcr-sim //')
at=$(grep -m1 '^  point ' "$W/one.sum" | sed 's/.*: \(tests[^:]*:[0-9]*\): .*/\1/')
set +e
out=$(eval "\"\$SMCR_SIM\" $cmd -q" 2>&1); rc=$?
set -e
[ $rc = 1 ] || fail "the reproducing command '$cmd' exited $rc, expected 1"
echo "$out" | grep -q "^$at: expectation failed" || fail "'$cmd' did not fail at $at: $out"
grep -q '^by parameter value:' "$W/one.sum" && grep -q '^  PATHS=2 .* 0 failed' "$W/one.sum" ||
	grep -q '^  PATHS=2 ' "$W/one.sum" || fail "no per-value table"

# 3. a worker killed with a point in its hands: run again on a new worker, marked
SLOW="--seeds 1..6 --set DATA=48M --set END=3s"
"$SMCR_SIM" sweep $S $SLOW -q --out "$W/ref.jsonl" >/dev/null || fail "the slow sweep failed"
killed=
for try in 1 2 3 4 5; do
	rm -f "$W/kill.jsonl" "$W/kill.jsonl.wall"
	"$SMCR_SIM" sweep $S $SLOW -q --jobs 2 --out "$W/kill.jsonl" >"$W/kill.sum" &
	sweep=$!
	# the first point handed out whose record has not come back: kill its worker
	pid=
	for i in $(seq 1 400); do
		line=$(awk -F'\t' '$2 == "start" { s[$1] = $3 } $2 == "done" { delete s[$1] } END { for (p in s) { print p "\t" s[p]; exit } }' "$W/kill.jsonl.wall" 2>/dev/null || true)
		if [ -n "$line" ]; then pid=${line##*pid }; break; fi
		sleep 0.02
	done
	[ -n "$pid" ] && kill -9 "$pid" 2>/dev/null || true
	wait $sweep || fail "the sweep with a killed worker exited $?"
	if grep -q '"retried":1' "$W/kill.jsonl"; then killed=$pid; break; fi
done
[ -n "$killed" ] || fail "no worker could be killed while it held a point (5 tries)"
grep -q ', 1 retried, 1 runner lost' "$W/kill.sum" || fail "the summary does not count the lost runner: $(grep engine "$W/kill.sum")"
sed 's/,"retried":1//' "$W/kill.jsonl" | cmp - "$W/ref.jsonl" || fail "results after a killed worker differ (beyond the retried mark)"

# 4. interrupted (SIGTERM, as a job's time limit does; a background job of a script
#    ignores SIGINT), in one process, then resumed
rm -f "$W/res.jsonl" "$W/res.jsonl.wall"
"$SMCR_SIM" sweep $S $SLOW -q --out "$W/res.jsonl" >/dev/null &
sweep=$!
for i in $(seq 1 600); do
	[ "$(cat "$W/res.jsonl" 2>/dev/null | wc -l)" -ge 3 ] && break
	sleep 0.02
done
kill -TERM $sweep; wait $sweep || true
before=$(($(wc -l <"$W/res.jsonl") - 1))
[ "$before" -ge 2 ] && [ "$before" -lt 6 ] || fail "the interrupted sweep had $before records, expected 2..5"
"$SMCR_SIM" sweep $S $SLOW -q --out "$W/res.jsonl" --resume >"$W/res.sum" || fail "resume failed"
grep -q "^engine: .*; $((6 - before)) points\? run now" "$W/res.sum" || fail "resume ran other than the $((6 - before)) missing points: $(grep engine "$W/res.sum")"
sed 's/,"retried":1//' "$W/res.jsonl" | cmp - "$W/ref.jsonl" || fail "resumed results differ from an uninterrupted sweep"
grep -q '"retried":1' "$W/res.jsonl" || fail "the point interrupted in flight is not marked retried"
# resuming a finished file runs nothing
"$SMCR_SIM" sweep $S $SLOW -q --out "$W/res.jsonl" --resume >"$W/res2.sum"
grep -q "; 0 points run now" "$W/res2.sum" || fail "resuming a finished sweep ran points again"
# another sweep's file is refused
expect_stderr 'holds the results of another sweep' "$SMCR_SIM" sweep $S --seeds 1..2 -q --out "$W/res.jsonl" --resume

# 5. bad input
expect_exit 2 "$SMCR_SIM" sweep $S --seeds 5..1
expect_stderr "bad --seeds '5..1'" "$SMCR_SIM" sweep $S --seeds 5..1
expect_stderr "bad --set 'FAILAT'" "$SMCR_SIM" sweep $S --set FAILAT
expect_stderr "no parameter 'NOPE'" "$SMCR_SIM" sweep $S --set NOPE=1,2
expect_stderr "FAILAT=abc is not a duration" "$SMCR_SIM" sweep $S --set FAILAT=1ms,abc
expect_stderr "given twice" "$SMCR_SIM" sweep $S --set DATA=1K --set DATA=2K
expect_stderr "needs --out" "$SMCR_SIM" sweep $S --resume
echo "sweep ok: $nfail of 48 points failing as meant, one process = --jobs 2, killed worker $killed retried, resumed after $before of 6"
