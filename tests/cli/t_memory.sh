# Memory: running out is an error, not a crash (one message: what ran out, when, what to
# change; exit code 3), whatever runs out first; and idle SMC-R connections keep none of
# their buffers' pages (smcr-sim debug memory).
set -eu
. tests/lib.sh

# AddressSanitizer reserves terabytes of shadow address space: no address-space limit fits
if nm "$SMCR_SIM" 2>/dev/null | grep -q '__asan_init'; then
	echo "skipped: a sanitizer build cannot run under an address-space limit"
	exit 77
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# scale-10k.scn's fabric at 2,000 stacks, all clients at once; scale-1m-conns.scn's shape
# with one client and one server stack and 300 connections, idle for a second
sed 's/^param LEAVES=40$/param LEAVES=8/' scenarios/scale-10k.scn >"$tmp/big.scn"
sed -e 's/^param CLIENTS=100$/param CLIENTS=1/' -e 's/^param SERVERS=100$/param SERVERS=1/' \
    -e 's/^param FANOUT=10$/param FANOUT=1/' -e 's/^param CONNS=1000$/param CONNS=300/' \
    -e 's/^param LEAVES=10$/param LEAVES=1/' -e 's/^end 10m$/end 2s/' scenarios/scale-1m-conns.scn >"$tmp/idle.scn"
"$SMCR_SIM" check "$tmp/big.scn" | grep -q '2000 stacks' || fail "big.scn is not 2000 stacks"

# Limits that run out at different places: GLib while the scenario loads, the fabric
# while the world is built, the event queue and frames while the run floods ARP.
# (18000, not less: with Open MPI linked in, the shared libraries need some 16 MB of
# address space before main() runs; below about 17 MB the loader fails, or GLib's thread
# set-up aborts on its own, before anything of ours can say a word)
for kib in 18000 20000 100000 300000; do
	set +e
	( ulimit -v $kib; exec "$SMCR_SIM" run "$tmp/big.scn" ) >"$tmp/out" 2>"$tmp/err"
	rc=$?
	set -e
	[ "$rc" = 3 ] || fail "under $kib KiB: exit $rc, expected 3 (stderr: $(tail -c 300 "$tmp/err"))"
	[ "$(wc -l <"$tmp/err")" = 1 ] || fail "under $kib KiB: not one line on stderr: $(cat "$tmp/err")"
	grep -Eq '^smcr-sim: out of memory( at virtual time [0-9]+\.[0-9]{9} s| before the simulation started): [0-9]+ bytes for [a-zA-Z].*; run fewer stacks or connections, give them smaller buffers \(smcr rmbsize/sndbufsize\), or give the process more memory$' "$tmp/err" ||
		fail "under $kib KiB: unexpected message: $(cat "$tmp/err")"
done

# the largest limit is met while the world runs, not while it is built
grep -Eq 'at virtual time [0-9]+\.[0-9]*[1-9][0-9]* s' "$tmp/err" || fail "not during the run: $(cat "$tmp/err")"

# 300 idle connections with 16K buffers: 19.2 MB of buffers as configured, none resident
out=$("$SMCR_SIM" debug memory "$tmp/idle.scn")
echo "$out" | grep -q '300 connections open at the end (300 on SMC-R)' || fail "debug memory: $out"
echo "$out" | grep -Eq 'SMC-R buffers +19660800 bytes as configured \(1200 buffers\), 0 resident at the end' ||
	fail "idle buffers kept pages: $out"
per=$(echo "$out" | sed -n 's/.*per connection *\([0-9]*\) bytes.*/\1/p')
[ -n "$per" ] && [ "$per" -lt 65536 ] || fail "an idle connection costs $per bytes, more than its buffers: $out"
echo "memory ok"
