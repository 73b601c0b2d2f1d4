# Malformed input on the command line and in files that the other tests do not reach:
# every case exits 2 (or 1 for a damaged capture) with one message that names the option,
# file or line and what was expected; nothing crashes, hangs or grows without bound.
set -eu
. tests/lib.sh

S=scenarios/two-stacks.scn
TR=traces/trace-two-stacks.pcapng
TMP="$BUILD/bad-input"
rm -rf "$TMP" && mkdir -p "$TMP"

# expect_msg CODE MESSAGE CMD...: CMD exits CODE and its stderr is exactly MESSAGE
expect_msg() {
	want=$1 msg=$2; shift 2
	set +e; err=$(timeout 60 "$@" 2>&1 >/dev/null); got=$?; set -e
	[ "$got" = "$want" ] || fail "'$*' exited $got, expected $want (said: $err)"
	[ "$err" = "$msg" ] || fail "'$*' said:
$err
expected:
$msg"
}

# ---- options: the reason is given once, with what was expected -----------------------
expect_msg 2 "smcr-sim replay: --stall: bad duration '-1': expected a duration such as 10s, 250ms or 3us" \
	"$SMCR_SIM" replay --stall=-1 "$TR"
expect_msg 2 "smcr-sim replay: --stall: bad duration '1x': expected a unit ns, us, ms, s, m or h (such as 10s, 250ms or 5000ns)" \
	"$SMCR_SIM" replay --stall=1x "$TR"
expect_msg 2 "smcr-sim replay: bad --wait '0'; expected a duration over 0, such as 1s" \
	"$SMCR_SIM" replay -m redrive --wait=0 "$TR"
expect_msg 2 "smcr-sim replay: bad --wait: bad duration '-1': expected a duration such as 10s, 250ms or 3us" \
	"$SMCR_SIM" replay -m redrive --wait=-1 "$TR"
expect_msg 2 "smcr-sim replay: bad --seed '-1'; expected an integer 0..18446744073709551615" \
	"$SMCR_SIM" replay -m redrive --seed=-1 "$TR"
expect_msg 2 "smcr-sim replay: bad --end '0'; expected a duration over 0, such as 1s" \
	"$SMCR_SIM" replay -m timing -s "$S" --play=10.9.9.9 --end=0 "$TR"
expect_msg 2 "smcr-sim replay: bad --seed '18446744073709551616'; expected an integer 0..18446744073709551615" \
	"$SMCR_SIM" replay -m timing -s "$S" --play=10.9.9.9 --seed=18446744073709551616 "$TR"

# ---- scenarios -------------------------------------------------------------------------
# a parameter whose default uses itself: an error, not a scenario without what uses it
printf 'param N={N}\nswitch S{N}\n' >"$TMP/self.scn"
expect_msg 2 "$TMP/self.scn:1:10: parameter 'N' is used in its own default; expected a default of values and parameters defined above it" \
	"$SMCR_SIM" check "$TMP/self.scn"

# ---- diff: its inputs are bounded (/dev/zero was read until the memory ran out) -------
"$SMCR_SIM" run -q -f json "$S" >"$TMP/a.json"
"$SMCR_SIM" run -q --events="$TMP/a.jsonl" "$S" >/dev/null
expect_msg 2 "smcr-sim diff: /dev/zero: the file is larger than 256 MiB; expected the JSON of \`run --format json\` or a JSON report of at most 268435456 bytes" \
	"$SMCR_SIM" diff "$TMP/a.json" /dev/zero
expect_msg 2 "smcr-sim diff: <stdin>: the input is larger than 256 MiB; expected the JSON of \`run --format json\` or a JSON report of at most 268435456 bytes" \
	sh -c "\"\$0\" diff - \"\$1\" </dev/zero" "$SMCR_SIM" "$TMP/a.json"
expect_msg 2 "smcr-sim diff: $TMP: cannot read the file (Is a directory); expected the JSON of \`run --format json\` or a JSON report" \
	"$SMCR_SIM" diff "$TMP/a.json" "$TMP"
# an event stream is read a line at a time: a line without end is refused at its length
expect_msg 2 "smcr-sim diff: /dev/zero:1: the line is longer than 1048576 bytes; expected a line of \`run --events\`" \
	"$SMCR_SIM" diff --events "$TMP/a.jsonl" /dev/zero
expect_msg 2 "smcr-sim diff: $TMP/nonesuch: cannot read the file (No such file or directory); expected an event stream of \`run --events\`" \
	"$SMCR_SIM" diff --events "$TMP/a.jsonl" "$TMP/nonesuch"
# (the sizes are those of a plain build: AddressSanitizer keeps freed memory in quarantine)
if [ -x /usr/bin/time ] && ! nm "$SMCR_SIM" 2>/dev/null | grep -q '__asan_init'; then
	rss=$(/usr/bin/time -f '%M' timeout 60 "$SMCR_SIM" diff "$TMP/a.json" /dev/zero 2>&1 >/dev/null | tail -1)
	[ "$rss" -lt 400000 ] || fail "diff of /dev/zero took $rss KiB"
	rss=$(/usr/bin/time -f '%M' timeout 60 "$SMCR_SIM" diff --events "$TMP/a.jsonl" /dev/zero 2>&1 >/dev/null | tail -1)
	[ "$rss" -lt 100000 ] || fail "diff --events of /dev/zero took $rss KiB"
fi
# a stream and its first 100 lines part where the shorter one ends
head -100 "$TMP/a.jsonl" >"$TMP/b.jsonl"
set +e; out=$("$SMCR_SIM" diff --events "$TMP/a.jsonl" "$TMP/b.jsonl"); rc=$?; set -e
[ "$rc" = 1 ] || fail "diff --events of a cut stream exited $rc"
echo "$out" | grep -q '^the streams part at line 101$' || fail "cut stream: $out"
echo "$out" | grep -q '^after 100 equal lines, the last: ' || fail "cut stream: $out"

# ---- output that cannot be written: exit 2, never 0 with a cut report or capture -------
if [ -c /dev/full ]; then
	for cmd in "run -q $S" "check --dump $S" "replay $TR"; do
		set +e; err=$(timeout 60 sh -c "\"\$0\" $cmd >/dev/full" "$SMCR_SIM" 2>&1); rc=$?; set -e
		[ "$rc" = 2 ] || fail "'$cmd >/dev/full' exited $rc"
		echo "$err" | grep -qx "smcr-sim: writing standard output failed (No space left on device); the output is incomplete" ||
			fail "'$cmd >/dev/full' said: $err"
	done
	for cmd in run report; do
		set +e; err=$(timeout 60 "$SMCR_SIM" $cmd -q --pcap=/dev/full "$S" 2>&1 >/dev/null); rc=$?; set -e
		[ "$rc" = 2 ] || fail "'$cmd --pcap=/dev/full' exited $rc"
		[ "$err" = "smcr-sim: writing a capture failed (disk full?)" ] || fail "'$cmd --pcap=/dev/full' said: $err"
	done
	expect_msg 2 "smcr-sim sweep: cannot write /dev/full: No space left on device" \
		"$SMCR_SIM" sweep -o /dev/full --seeds 1..2 "$S"
fi
# sweep -o to something that is no regular file (here a FIFO; /dev/null alike) writes into
# it: a temporary file renamed over it replaced the FIFO, or /dev/null, with a file
mkfifo "$TMP/fifo"
cat "$TMP/fifo" >"$TMP/fifo.out" &
reader=$!
"$SMCR_SIM" sweep -o "$TMP/fifo" --seeds 1..2 "$S" >/dev/null 2>&1 || fail "sweep -o FIFO failed"
wait $reader
[ -p "$TMP/fifo" ] || fail "sweep -o replaced the FIFO with a file"
[ ! -e "$TMP/fifo.wall" ] && [ ! -e "$TMP/fifo.tmp" ] || fail "sweep -o FIFO left files beside it"
[ "$(wc -l <"$TMP/fifo.out")" = 3 ] || fail "sweep -o FIFO: $(cat "$TMP/fifo.out")"
head -1 "$TMP/fifo.out" | grep -q '"format":"smcr-sweep"' || fail "sweep -o FIFO: no header"

# ---- replay -: standard input is kept in a temporary file, so it must be a capture ----
expect_msg 2 "smcr-sim replay: <stdin>: the input starts with 00 00 00 00, no pcap or pcapng magic number; expected a pcap or pcapng capture" \
	sh -c 'head -c 100000000 /dev/zero | "$0" replay -' "$SMCR_SIM"
expect_msg 2 "smcr-sim replay: <stdin>: the input ends after 0 bytes; expected a pcap or pcapng capture" \
	sh -c '"$0" replay - </dev/null' "$SMCR_SIM"
# a capture that never ends, interrupted: its temporary file goes with it
mkdir -p "$TMP/spool"
set +e
TMPDIR="$TMP/spool" timeout 3 sh -c 'cat "$1" /dev/zero | "$0" replay - >/dev/null 2>&1' "$SMCR_SIM" "$TR"
set -e
# timeout returns when sh has gone; the replay's own exit (it removes the file on the
# signal) may come a moment later on a busy machine
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
	[ -n "$(ls "$TMP/spool")" ] || break
	sleep 0.5
done
left=$(ls "$TMP/spool")
[ -z "$left" ] || fail "an interrupted replay - left $left behind"

# ---- --stats-interval: the samples of a run are bounded (1ns over 10 s wrote without end)
expect_msg 2 "smcr-sim run: bad --stats-interval 1ns: the run's 10s would take 10000000000 samples; expected at most 100000 (an interval of 100us or more)" \
	"$SMCR_SIM" run -q --stats="$TMP/st.csv" --stats-interval=1ns "$S"
expect_msg 2 "smcr-sim run: bad --stats-interval 1us: the run's 1m would take 60000000 samples; expected at most 100000 (an interval of 600us or more)" \
	"$SMCR_SIM" run -q --timeline="$TMP/tl.svg" --stats-interval=1us --end=1m "$S"
[ ! -s "$TMP/st.csv" ] || fail "a refused --stats-interval wrote statistics"

echo "bad input ok"
