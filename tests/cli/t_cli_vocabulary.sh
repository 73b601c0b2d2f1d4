# One vocabulary across the commands: --format is -f, --repeat is -r, sizes are SIZE and
# durations TIME in every --help (no option counts MiB, KiB or ns any more), the old
# spellings still work (hidden), a size with a unit means what the bare number meant, and
# '-' reads a scenario or a capture from standard input and writes a capture to standard
# output.
set -eu
. tests/lib.sh

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
cmds="run report check replay node interop diff compare"
for b in scheduler fabric stacks protocol verbs realhw replay core scale; do cmds="$cmds bench:$b"; done
for d in fabric-pcap; do cmds="$cmds debug:$d"; done
for c in $cmds; do
	# shellcheck disable=SC2046
	"$SMCR_SIM" $(echo "$c" | tr ':' ' ') --help >"$TMP/help" || fail "$c --help exited $?"
	if grep -q -- '--format' "$TMP/help"; then
		grep -q -- '-f, --format' "$TMP/help" || fail "$c: --format without -f"
	fi
	if grep -q -- '--repeat' "$TMP/help"; then
		grep -q -- '-r, --repeat' "$TMP/help" || fail "$c: --repeat without -r"
	fi
	! grep -Eq -- '--reps|=(MIB|KIB|NS|BYTES)\b' "$TMP/help" || fail "$c: an old spelling in --help: $(grep -E -- '--reps|=(MIB|KIB|NS|BYTES)' "$TMP/help")"
done

# the old spellings, hidden, still work and mean the same
fp() { sed -n 's/.*fingerprint: *//p'; }
[ "$("$SMCR_SIM" bench protocol --conns 2 --bytes 1M --reps 1 | fp)" = "$("$SMCR_SIM" bench protocol --conns 2 --bytes 1M -r 1 | fp)" ] ||
	fail "bench protocol --reps is not --repeat"
[ "$("$SMCR_SIM" bench protocol --conns 2 --bytes 1M --rmb 64K | grep -c 'RMB 65536')" = 1 ] || fail "--rmb is not --buffer"
"$SMCR_SIM" bench core --conns 2 --mib 2 -v | grep -q 'content check: *byte sums match' || fail "bench core --mib 2 -v"
"$SMCR_SIM" bench core --conns 2 --mib 2 | grep -q '2 connections x 2 MiB' || fail "bench core --mib: a bare number is MiB"
# sizes and durations with units mean what the bare numbers meant
"$SMCR_SIM" bench core --conns 2 --bytes 2MiB --buffer 32K | grep -q '2 connections x 2 MiB, buffers 32 KiB' ||
	fail "bench core --bytes 2MiB --buffer 32K"
"$SMCR_SIM" bench core --conns 2 --bytes 2M --buffer 32 | grep -q 'buffers 32 KiB' || fail "bench core --buffer 32: KiB"
expect_exit 2 "$SMCR_SIM" bench core --bytes 1500K
[ "$("$SMCR_SIM" bench fabric -t 8 -r 1 | fp)" = "$("$SMCR_SIM" bench fabric -t 8MiB -r 1 | fp)" ] ||
	fail "bench fabric -t 8 and -t 8MiB differ"
[ "$("$SMCR_SIM" bench fabric -t 8M --msg 65536 -r 1 | fp)" = "$("$SMCR_SIM" bench fabric -t 8M --msg 64K -r 1 | fp)" ] ||
	fail "bench fabric --msg 65536 and 64K differ"
[ "$("$SMCR_SIM" bench stacks -p 5 -n 2 -b 2 -r 1 | fp)" = "$("$SMCR_SIM" bench stacks -p 5 -n 2 -b 2M --size 1000 -r 1 | fp)" ] ||
	fail "bench stacks -b 2 and -b 2M differ"
[ "$("$SMCR_SIM" bench scheduler -p 100 -t 1000 -m 100 -r 1 | fp)" = "$("$SMCR_SIM" bench scheduler -p 100 -t 1000 -m 100ns -r 1 | fp)" ] ||
	fail "bench scheduler -m 100 and -m 100ns differ"
expect_exit 2 "$SMCR_SIM" bench scheduler -m 5parsecs
expect_exit 2 "$SMCR_SIM" bench verbs --size 2G
# -f and -q where they belong
[ "$("$SMCR_SIM" run -f json -q scenarios/fallback-subnets.scn | head -c 40)" = "$("$SMCR_SIM" run --format json scenarios/fallback-subnets.scn | head -c 40)" ] ||
	fail "run -f json differs from --format json"
"$SMCR_SIM" replay -f text --report smc traces/trace-two-stacks.pcapng >"$TMP/a"
"$SMCR_SIM" replay --format smc traces/trace-two-stacks.pcapng >"$TMP/b"
cmp -s "$TMP/a" "$TMP/b" || fail "replay -f text --report smc is not --format smc"

# '-': a scenario from standard input (named <stdin>), a capture from it, a capture to stdout
"$SMCR_SIM" run scenarios/two-stacks.scn >"$TMP/file.out" || true
"$SMCR_SIM" run - <scenarios/two-stacks.scn >"$TMP/stdin.out" || true
sed 's|scenarios/two-stacks.scn|<stdin>|g' "$TMP/file.out" | cmp -s - "$TMP/stdin.out" || fail "run - differs from run FILE"
[ "$("$SMCR_SIM" check - <scenarios/default.scn)" = "$("$SMCR_SIM" check scenarios/default.scn | sed 's|^scenarios/default.scn:|<stdin>:|')" ] ||
	fail "check -: $("$SMCR_SIM" check - <scenarios/default.scn)"
printf 'stack A\nbogus\n' | "$SMCR_SIM" check - 2>"$TMP/err" && fail "check - accepted a bad scenario"
grep -q '^<stdin>:2:1: ' "$TMP/err" || fail "errors of a scenario on stdin are not <stdin>:LINE:COL: $(cat "$TMP/err")"
"$SMCR_SIM" replay traces/trace-failover.pcapng >"$TMP/r1"
"$SMCR_SIM" replay - <traces/trace-failover.pcapng >"$TMP/r2"
cmp -s "$TMP/r1" "$TMP/r2" || fail "replay - differs from replay FILE"
"$SMCR_SIM" replay --mode redrive - <traces/linux-6.1-smcr-v2-rxe.pcapng >"$TMP/rd2" || true
"$SMCR_SIM" replay --mode redrive traces/linux-6.1-smcr-v2-rxe.pcapng >"$TMP/rd1" || true
cmp -s "$TMP/rd1" "$TMP/rd2" || fail "replay --mode redrive - differs"
"$SMCR_SIM" run --end 50ms --pcap "$TMP/f.pcapng" scenarios/two-stacks.scn >"$TMP/t1" || true
"$SMCR_SIM" run --end 50ms --pcap - scenarios/two-stacks.scn >"$TMP/s.pcapng" 2>"$TMP/t2" || true
cmp -s "$TMP/f.pcapng" "$TMP/s.pcapng" || fail "run --pcap - wrote other bytes than --pcap FILE"
cmp -s "$TMP/t1" "$TMP/t2" || fail "run --pcap -: the text is not on stderr"
"$SMCR_SIM" run --end 50ms --pcap - --pcap-format pcap scenarios/two-stacks.scn 2>/dev/null | "$SMCR_SIM" replay - >/dev/null ||
	fail "run --pcap - | replay - failed"
echo "cli vocabulary ok"
