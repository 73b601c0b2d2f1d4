# Every visible output of every shipped scenario and sample trace (text run with the event
# log, JSON, captures with both tap choices, per-stack pcaps, replays) hashes to what
# tests/data/outputs.sha256 records. A change meant to keep behaviour keeps this list; a
# change meant to alter an output regenerates it (tools/outputs-digest build/smcr-sim >
# tests/data/outputs.sha256) and says in its commit which lines moved and why.
# slow test: about 40 s
set -eu
. tests/lib.sh
tools/outputs-digest "$SMCR_SIM" >"$BUILD/outputs.sha256"
if ! diff -u tests/data/outputs.sha256 "$BUILD/outputs.sha256"; then
	fail "outputs differ from tests/data/outputs.sha256 (lines above)"
fi
echo "outputs identical: $(wc -l <"$BUILD/outputs.sha256") digests"
