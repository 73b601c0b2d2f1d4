#!/bin/sh
# fuzz/run.sh FUZZ_BUILD SECONDS [TARGET...]: run libFuzzer targets (all of them, or the
# ones named: clc, net, ...) one after the other, each for SECONDS, then print a table of
# executions, executions per second and coverage per target (`make fuzz FUZZ_S=600`).
#   fuzz/run.sh FUZZ_BUILD --check [TARGET...]: run each target once over its committed
#   inputs (fuzz/corpus/T, fuzz/regressions/T), no mutation: what tests/tree/t_fuzz_corpus.sh does.
# Inputs the fuzzer finds go to FUZZ_BUILD/work/T/ (the committed corpora are only read);
# crashes, timeouts, leaks and out-of-memory inputs to FUZZ_BUILD/artifacts/T/: copy the
# ones worth keeping to fuzz/regressions/T/ once they are fixed. The limits make hangs
# (-timeout) and unbounded allocations (-rss_limit_mb, -malloc_limit_mb) findings.
# FUZZ_JOBS=N runs N targets at a time (default 1). FUZZ_KEEP_GOING=1 runs libFuzzer's
# fork mode, which goes on after a finding (for code whose findings are not fixed yet:
# it collects many). Inputs found but not fixed yet wait in fuzz/regressions/T/open/,
# which neither --check nor fuzzing reads. Exit 1 if any target found something.
set -u
export LC_ALL=C
build=${1:?usage: fuzz/run.sh FUZZ_BUILD SECONDS|--check [TARGET...]}
secs=${2:?usage: fuzz/run.sh FUZZ_BUILD SECONDS|--check [TARGET...]}
shift 2
here=$(cd "$(dirname "$0")" && pwd)

# max_len (bytes) and timeout (seconds per input) of each target
limits() {
	case "$1" in
	clc) echo "1100 10" ;;
	llc) echo "8300 10" ;;
	cdc) echo "64 10" ;;
	clc_stream) echo "4096 10" ;;
	link_rx) echo "16384 20" ;;
	roce|replay_frame|cooked) echo "9200 10" ;;
	tcp_opt) echo "41 10" ;;
	net) echo "16384 20" ;;
	scenario) echo "16384 10" ;;
	pcap|replay) echo "131072 20" ;;
	applic) echo "131072 30" ;;
	redrive|timing) echo "131072 30" ;;
	*) echo "4096 10" ;;
	esac
}

targets="$*"
if [ -z "$targets" ]; then
	for b in "$build"/fuzz_*; do
		[ -x "$b" ] && targets="$targets ${b##*/fuzz_}"
	done
fi
[ -n "$targets" ] || { echo "fuzz/run.sh: no targets in $build (make fuzz-build)" >&2; exit 2; }

# one target over its committed inputs, each once
check_one() {
	t=$1
	set -- $(limits "$t")
	files=$(find "$here/corpus/$t" "$here/regressions/$t" -maxdepth 1 -type f 2>/dev/null | sort)
	[ -n "$files" ] || { echo "$t: no inputs"; return 0; }
	n="$(echo "$files" | wc -l) inputs"
	open=$(find "$here/regressions/$t/open" -type f 2>/dev/null | wc -l)
	[ "$open" = 0 ] || n="$n ($open open findings in fuzz/regressions/$t/open/ not run)"
	# shellcheck disable=SC2086
	if "$build/fuzz_$t" -timeout="$2" -rss_limit_mb=2048 -malloc_limit_mb=1024 $files >"$build/check-$t.log" 2>&1; then
		echo "ok   $t: $n"
	else
		echo "FAIL $t: see $build/check-$t.log"
		tail -30 "$build/check-$t.log"
		return 1
	fi
}

if [ "$secs" = "--check" ]; then
	bad=0
	for t in $targets; do check_one "$t" || bad=1; done
	exit $bad
fi

fuzz_one() {
	t=$1
	set -- $(limits "$t")
	mkdir -p "$build/work/$t" "$build/artifacts/$t" "$here/corpus/$t"
	dict=""
	[ -f "$here/dict/$t.dict" ] && dict="-dict=$here/dict/$t.dict"
	# the fixed regressions (not open/: libFuzzer reads corpus folders recursively)
	rm -rf "$build/reg/$t" && mkdir -p "$build/reg/$t"
	find "$here/regressions/$t" -maxdepth 1 -type f -exec cp {} "$build/reg/$t/" \; 2>/dev/null
	mode=""
	[ "${FUZZ_KEEP_GOING:-0}" = 1 ] && mode="-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1"
	t0=$(date +%s)
	# shellcheck disable=SC2086
	"$build/fuzz_$t" -max_total_time="$secs" -max_len="$1" -timeout="$2" -rss_limit_mb=2048 \
		-malloc_limit_mb=1024 -print_final_stats=1 -artifact_prefix="$build/artifacts/$t/" $dict $mode \
		"$build/work/$t" "$here/corpus/$t" "$build/reg/$t" >"$build/fuzz-$t.log" 2>&1
	echo $? >"$build/fuzz-$t.rc"
	echo $(( $(date +%s) - t0 )) >"$build/fuzz-$t.secs"
}

jobs=${FUZZ_JOBS:-1}
running=0
for t in $targets; do
	[ -x "$build/fuzz_$t" ] || { echo "fuzz/run.sh: no $build/fuzz_$t" >&2; exit 2; }
	echo "fuzzing $t for ${secs}s (log: $build/fuzz-$t.log)"
	fuzz_one "$t" &
	running=$((running + 1))
	if [ "$running" -ge "$jobs" ]; then
		wait
		running=0
	fi
done
wait

bad=0
printf '\n%-14s %6s %12s %9s %7s %7s %6s  %s\n' target secs execs exec/s cov ft corpus result
for t in $targets; do
	log="$build/fuzz-$t.log"
	rc=$(cat "$build/fuzz-$t.rc" 2>/dev/null || echo "?")
	ran=$(cat "$build/fuzz-$t.secs" 2>/dev/null || echo "?")
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	eps=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
	last=$(grep -aE '^#[0-9]+:?[[:space:]]' "$log" | grep -a ' cov: ' | tail -1)
	cov=$(echo "$last" | sed -n 's/.* cov: \([0-9]*\).*/\1/p')
	ft=$(echo "$last" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
	corp=$(echo "$last" | sed -n 's/.* corp: \([0-9]*\).*/\1/p')
	if [ -z "$execs" ]; then # fork mode: "#N: cov: .. exec/s N .."
		execs=$(echo "$last" | sed -n 's/^#\([0-9]*\):.*/\1/p')
		eps=$(echo "$last" | sed -n 's/.* exec\/s \([0-9]*\).*/\1/p')
	fi
	result=ok
	if [ "${FUZZ_KEEP_GOING:-0}" = 1 ] && [ "$(find "$build/artifacts/$t" -type f | wc -l)" != 0 ]; then
		result="FOUND: $(find "$build/artifacts/$t" -type f | wc -l) inputs in $build/artifacts/$t/"
		bad=1
	elif [ "$rc" != 0 ]; then
		result="FOUND: $(grep -a -m1 -oE 'ERROR: [A-Za-z]+: [^ ]+( [^ ]+)?|SUMMARY: [A-Za-z]+: [^ ]+( [^ ]+)?' "$log" || echo "exit $rc") (artifacts: $build/artifacts/$t/)"
		bad=1
	fi
	printf '%-14s %6s %12s %9s %7s %7s %6s  %s\n' "$t" "$ran" "${execs:-?}" "${eps:-?}" "${cov:-?}" "${ft:-?}" \
		"${corp:-?}" "$result"
done
exit $bad
