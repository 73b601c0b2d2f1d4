# The pictures read, as headless Chromium draws them: every shipped picture
# (docs/pictures/*.svg) and the pictures of the scenarios and captures that test the
# layouts (three lifelines with a router between, a capture's failover, four stacks
# sharing two adapters, a leaf-spine fabric, one subnet on two VLANs, a window of a
# timeline) are laid out by Chromium and measured (tests/support/svg-layout): no text on
# another text, no line through a text, nothing hidden under a later shape, nothing past
# the edges; the shipped ones are also rendered to PNGs that are not blank. Skipped,
# saying why, where Chromium is not installed (tools/install-deps --pictures) or cannot
# run.
set -eu
. tests/lib.sh
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
P=$TMP/pics
mkdir "$P"
cp docs/pictures/*.svg "$P/"
"$SMCR_SIM" msc scenarios/default.scn -o "$P/run-msc-default.svg"
"$SMCR_SIM" run -q --topology "$P/run-topology-default.svg" --timeline "$P/run-timeline-default.svg" scenarios/default.scn >/dev/null
"$SMCR_SIM" msc scenarios/v2-routed.scn -o "$P/msc-v2-routed.svg"
"$SMCR_SIM" run -q --topology "$P/topology-v2-routed.svg" scenarios/v2-routed.scn >/dev/null
"$SMCR_SIM" run -q --topology "$P/topology-shared.svg" --timeline "$P/timeline-shared.svg" scenarios/shared-adapters.scn >/dev/null
"$SMCR_SIM" check --topology "$P/topology-large-fabric.svg" scenarios/large-fabric.scn >/dev/null
"$SMCR_SIM" check --topology "$P/topology-vlan-mismatch.svg" tests/data/connect/vlan-mismatch.scn >/dev/null 2>&1
"$SMCR_SIM" run -q --timeline "$P/timeline-window.svg" --from 250ms --to 700ms --stats-interval 10ms scenarios/default.scn >/dev/null
for tr in traces/*.pcap*; do
	"$SMCR_SIM" msc "$tr" -o "$P/msc-$(basename "$tr").svg"
done
rc=0
tests/support/svg-layout "$P"/*.svg >"$TMP/layout" || rc=$?
[ $rc = 77 ] && { tail -1 "$TMP/layout"; exit 77; }
[ $rc = 0 ] || fail "pictures that do not read:
$(grep -v ': reads (' "$TMP/layout" | head -20)"
n=$(grep -c ': reads (' "$TMP/layout")
[ "$n" -ge 15 ] || fail "only $n pictures measured"

# the check can fail: text on text, a line through a text, a text past the edge, and a
# text under a box drawn after it are each found
cat >"$TMP/bad.svg" <<'EOF'
<?xml version="1.0"?>
<svg xmlns="http://www.w3.org/2000/svg" width="300" height="200">
<rect width="300" height="200" fill="#fff"/>
<text x="20" y="40" font-size="12">overlapping text</text>
<text x="30" y="42" font-size="12">another one</text>
<line x1="10" y1="96" x2="200" y2="96" stroke="#000"/>
<text x="20" y="100" font-size="12">struck through</text>
<text x="250" y="150" font-size="12">past the right edge</text>
<text x="20" y="180" font-size="12">hidden</text>
<rect x="10" y="165" width="100" height="25" fill="#ccc"/>
</svg>
EOF
set +e
tests/support/svg-layout "$TMP/bad.svg" >"$TMP/bad.txt"
rc=$?
set -e
[ $rc = 1 ] || fail "svg-layout passed a picture that does not read (exit $rc)"
for want in "text 'overlapping text' overlaps text 'another one'" "line runs through text 'struck through'" \
	"text 'past the right edge' lies past the edge" "text 'hidden' is hidden under a later rect"; do
	grep -q "$want" "$TMP/bad.txt" || fail "svg-layout did not find: $want ($(cat "$TMP/bad.txt"))"
done

# the shipped pictures as PNGs: a picture, not an empty page or an error
for svg in docs/pictures/*.svg; do
	p=$(basename "$svg" .svg)
	rc=0
	tools/svg-to-png "$svg" "$TMP/$p.png" 2>"$TMP/why" || rc=$?
	[ $rc = 77 ] && { cat "$TMP/why"; exit 77; }
	[ $rc = 0 ] || fail "$p: chromium did not render it: $(cat "$TMP/why")"
	ink=$(tests/support/png-ink "$TMP/$p.png" 2) || fail "$p.png is blank or not a PNG: $ink"
	echo "$p: $ink"
done
printf '<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="300" height="200"><rect width="300" height="200" fill="#fff"/></svg>\n' >"$TMP/blank.svg"
tools/svg-to-png "$TMP/blank.svg" "$TMP/blank.png"
expect_exit 1 tests/support/png-ink "$TMP/blank.png" 2
echo "pictures render and read: $n measured"
