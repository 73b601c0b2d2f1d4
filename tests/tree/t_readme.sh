# Every smcr-sim command line of README.md's code blocks does what the README says: it
# exits 0, or with the status its comment names ("exits 1"). Skipped: what needs devices,
# VMs, MPI or minutes (bench, --real-hw, node, interop, sweep, swarm) and the lines that
# name placeholder files (a.scn, my.scn, a.json, a.jsonl, capture.pcap[ng]). The commands run in a scratch directory
# that sees scenarios/, traces/ and tests/; a capture the README writes to a file goes to
# /dev/null instead (the 550 MiB one must still say how large it is).
set -eu
. tests/lib.sh
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
for d in scenarios traces tests; do ln -s "$PWD/$d" "$TMP/$d"; done
awk '/^```/ { inb = !inb; next } inb && /^smcr-sim /' README.md >"$TMP/lines"
[ "$(wc -l <"$TMP/lines")" -ge 20 ] || fail "README.md: only $(wc -l <"$TMP/lines") smcr-sim lines found"
n=0
while IFS= read -r line; do
	cmd=${line%%#*}
	case " $cmd " in
	*" bench "* | *--real-hw* | *" node "* | *" interop "* | *" sweep "* | *" swarm "* | *a.scn* | *my.scn* | *a.json* | *capture.pcap*) continue ;;
	esac
	want=0
	case "$line" in *"exits "[0-9]*) want=$(echo "$line" | sed 's/.*exits \([0-9]\).*/\1/') ;; esac
	cmd=$(echo "$cmd" | sed 's/ --pcap \([a-z]*\)\.pcapng / --pcap \/dev\/null /; s/^smcr-sim //')
	set +e
	# shellcheck disable=SC2086
	(cd "$TMP" && eval "\"\$SMCR_SIM\" $cmd") >"$TMP/out" 2>"$TMP/err"
	rc=$?
	set -e
	[ "$rc" = "$want" ] || fail "README: '$line' exited $rc, the README says $want ($(tail -2 "$TMP/err"))"
	case "$line" in
	*"stderr says so"*) grep -q 'smcr-sim: the capture /dev/null has passed 100 MiB at virtual time' "$TMP/err" ||
		fail "README: '$line' says nothing of its size: $(cat "$TMP/err")" ;;
	*"no differences"*) tail -1 "$TMP/out" | grep -qx 'no differences' || fail "README: '$line': $(tail -1 "$TMP/out")" ;;
	esac
	n=$((n + 1))
done <"$TMP/lines"
[ "$n" -ge 15 ] || fail "only $n README lines run"
echo "readme ok: $n command lines"
