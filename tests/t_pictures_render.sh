# One picture of each kind (a run's message-sequence chart, a topology, a links' timeline)
# rendered by headless Chromium to a PNG that is not blank: what a browser shows is a
# picture, not an empty page or an error. Skipped, saying why, where Chromium is not
# installed (tools/install-deps --pictures) or cannot run.
set -eu
. tests/lib.sh
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
"$SMCR_SIM" msc scenarios/default.scn -o "$TMP/msc.svg"
"$SMCR_SIM" run -q --topology "$TMP/topology.svg" --timeline "$TMP/timeline.svg" scenarios/default.scn >/dev/null
for p in msc topology timeline; do
	rc=0
	tools/svg-to-png "$TMP/$p.svg" "$TMP/$p.png" 2>"$TMP/why" || rc=$?
	[ $rc = 77 ] && { cat "$TMP/why"; exit 77; }
	[ $rc = 0 ] || fail "$p: chromium did not render it: $(cat "$TMP/why")"
	ink=$(tests/support/png-ink "$TMP/$p.png" 2) || fail "$p.png is blank or not a PNG: $ink"
	echo "$p: $ink"
done
# and the check can fail: a picture with nothing on it is blank
printf '<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="300" height="200"><rect width="300" height="200" fill="#fff"/></svg>\n' >"$TMP/blank.svg"
tools/svg-to-png "$TMP/blank.svg" "$TMP/blank.png"
expect_exit 1 tests/support/png-ink "$TMP/blank.png" 2
echo "pictures render ok"
