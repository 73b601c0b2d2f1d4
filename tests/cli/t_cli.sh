# The command line: help, version, errors with a non-zero exit, the scheduler benchmark.
set -eu
. tests/lib.sh

"$SMCR_SIM" --help | grep -q 'Usage: smcr-sim COMMAND'
# --version: the VERSION file's version, the git description (or none), the optional parts
ver=$("$SMCR_SIM" --version)
[ "$(echo "$ver" | head -1)" = "smcr-sim $(cat VERSION)" ] || fail "--version's first line: $(echo "$ver" | head -1)"
echo "$ver" | grep -Eq '^git: ([0-9a-f]{7,}|v?[0-9].*-g[0-9a-f]+)(-dirty)?$|^git: none' || fail "--version: no git line"
if git rev-parse --git-dir >/dev/null 2>&1; then
	# the commit the binary was built from (it may be older than HEAD) is one of this repository's
	h=$(echo "$ver" | sed -n 's/^git: \(.*-g\)\{0,1\}\([0-9a-f]\{7,\}\)\(-dirty\)\{0,1\}$/\2/p')
	[ -n "$h" ] && git rev-parse -q --verify "$h^{commit}" >/dev/null || fail "--version's git line names no commit here: $ver"
fi
echo "$ver" | grep -Eq '^verbs: yes \(libibverbs [0-9.]+\)$' || fail "--version: no verbs line"
# mpi: yes with Open MPI's headers at build time (the MPI engine of sweep and swarm), else no
if "$SMCR_SIM" --version | grep -q '^mpi: yes'; then
	echo "$ver" | grep -Eqx 'mpi: yes \(Open MPI [0-9.]+, MPI [0-9.]+\)' || fail "--version: bad mpi line"
else
	echo "$ver" | grep -qx 'mpi: no' || fail "--version: no mpi line"
fi
if command -v tshark >/dev/null 2>&1; then
	echo "$ver" | grep -qx "tshark: $(command -v tshark)" || fail "--version: tshark not found"
fi
[ "$(PATH=/nonexistent "$SMCR_SIM" --version | grep '^tshark:')" = "tshark: not found in PATH" ] ||
	fail "--version: tshark is looked up at run time"
# GLib's help in the locale's character set: "…", not "?", under a UTF-8 locale
LC_ALL=C.UTF-8 "$SMCR_SIM" run --help | grep -q 'run \[OPTION…\] FILE' || fail "run --help under C.UTF-8 has no '…'"
# the exit status table in the help
"$SMCR_SIM" --help | grep -q '^  3  out of memory or a resource limit' || fail "--help has no exit status table"
expect_exit 2 "$SMCR_SIM"
expect_exit 2 "$SMCR_SIM" no-such-command
expect_stderr 'unknown command' "$SMCR_SIM" no-such-command
expect_exit 2 "$SMCR_SIM" bench
expect_exit 2 "$SMCR_SIM" bench no-such-bench
expect_exit 2 "$SMCR_SIM" bench scheduler --no-such-option
expect_stderr 'Unknown option' "$SMCR_SIM" bench scheduler --no-such-option
expect_exit 2 "$SMCR_SIM" bench scheduler --population=abc
expect_exit 2 "$SMCR_SIM" bench scheduler --population=0
"$SMCR_SIM" bench scheduler --help | grep -q -- '--population'

# a small scheduler benchmark prints its figures, and the same seed gives the same fingerprint
out1=$("$SMCR_SIM" bench scheduler -p 1000 -t 20000 -r 2)
echo "$out1" | grep -Eq 'events/s .*[0-9.]+ M'
echo "$out1" | grep -Eq 'peak RSS'
fp1=$(echo "$out1" | sed -n 's/.*fingerprint: *//p')
fp2=$("$SMCR_SIM" bench scheduler -p 1000 -t 20000 -r 1 | sed -n 's/.*fingerprint: *//p')
fp3=$("$SMCR_SIM" bench scheduler -p 1000 -t 20000 -r 1 -s 2 | sed -n 's/.*fingerprint: *//p')
[ -n "$fp1" ] && [ "$fp1" = "$fp2" ] || fail "same seed gave fingerprints '$fp1' and '$fp2'"
[ "$fp1" != "$fp3" ] || fail "different seeds gave the same fingerprint $fp1"
echo "cli ok"
