# The fuzz targets (fuzz/, fuzz/README.md) over their committed inputs, each input run
# once without mutation: the seed corpora fuzz/corpus/TARGET/ and every input that once
# crashed, hung or leaked (fuzz/regressions/TARGET/), so each stays fixed. The targets
# need clang with libFuzzer: installed with tools/install-deps --fuzz when run as root,
# else the test is skipped.
# slow test: about 30 s (from a fresh clone: it builds the fuzz targets with clang first)
set -eu
. tests/lib.sh
# Its own build of the targets, unoptimised: half the compile time of make fuzz's -O1 (which
# fuzzes for minutes and wants the speed) for the same sanitizers over the same inputs
FUZZ_BUILD=${FUZZ_BUILD:-build-fuzz-check}

libfuzzer_works() {
	command -v clang >/dev/null 2>&1 || return 1
	probe=$(mktemp -d)
	printf '#include <stddef.h>\n#include <stdint.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n' >"$probe/p.c"
	clang -fsanitize=fuzzer,address,undefined "$probe/p.c" -o "$probe/p" >/dev/null 2>&1
	rc=$?
	rm -rf "$probe"
	return $rc
}

if ! libfuzzer_works; then
	if [ "$(id -u)" = 0 ]; then
		tools/install-deps --fuzz >&2 || fail "tools/install-deps --fuzz failed"
		libfuzzer_works || fail "clang cannot build a libFuzzer target after tools/install-deps --fuzz"
	else
		echo "clang with libFuzzer is not installed (tools/install-deps --fuzz as root installs it)"
		exit 77
	fi
fi

make -j2 --no-print-directory FUZZ_BUILD="$FUZZ_BUILD" FUZZ_OPT=-O0 fuzz-build >"$BUILD/fuzz-build.log" 2>&1 ||
	{ tail -30 "$BUILD/fuzz-build.log" >&2; fail "make fuzz-build failed (log: $BUILD/fuzz-build.log)"; }
fuzz/run.sh "$FUZZ_BUILD" --check || fail "a fuzz target failed on a committed input"
echo "fuzz corpora ok"
