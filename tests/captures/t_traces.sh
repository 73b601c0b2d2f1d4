# The sample captures in traces/: `make traces` (tools/make-traces) writes them from
# scenarios/trace-*.scn. Regenerating gives byte-identical files (twice in a row, and the
# same as the committed ones: a change of the wire bytes shows up here; then run
# `make traces`), each stays under 1 MiB, and `smcr-sim replay` decodes each without an
# error. (tests/sim/world/test_traces.c checks that the replay reconstructs the run's picture.)
set -eu
. tests/lib.sh

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
mkdir "$TMP/a" "$TMP/b"
tools/make-traces "$SMCR_SIM" "$TMP/a" >/dev/null
tools/make-traces "$SMCR_SIM" "$TMP/b" >/dev/null
n=0
for f in "$TMP"/a/*.pcapng; do
	name=$(basename "$f")
	cmp -s "$f" "$TMP/b/$name" || fail "$name: two runs of the same scenario wrote different bytes"
	[ -f "traces/$name" ] || fail "traces/$name is missing: run make traces and commit it"
	cmp -s "$f" "traces/$name" ||
		fail "traces/$name is not what scenarios/${name%.pcapng}.scn gives now: run make traces (and look at why the wire changed)"
	size=$(wc -c <"$f")
	[ "$size" -lt 1048576 ] || fail "$name: $size bytes, more than 1 MiB"
	"$SMCR_SIM" replay "traces/$name" >"$TMP/out" 2>"$TMP/err" || fail "replay $name: $(head -3 "$TMP/err")"
	grep -q 'LnkId:' "$TMP/out" || fail "replay $name shows no SMC-R link"
	n=$((n + 1))
	echo "ok $name: $size bytes, deterministic, current, decoded"
done
[ "$n" -ge 3 ] || fail "only $n sample traces"
for f in traces/trace-*.pcapng; do
	[ -f "$TMP/a/$(basename "$f")" ] || fail "$f has no scenario (scenarios/$(basename "$f" .pcapng).scn)"
done
echo "traces ok: $n samples"
