# Wireshark is the judge, for every shipped scenario: `smcr-sim run --pcap` (pcapng, the
# default whole-fabric capture) and tshark 4.0 must
#  - decode every SMC-R message as SMC: each CLC message our decoder reads (replay
#    --messages) is a tshark CLC frame, and the frames tshark calls LLC or CDC are exactly
#    the SENDs whose message byte is a v1 LLC type or CDC (`smcr-sim debug frames`, which
#    reads each frame's bytes alone), plus the SMC-Rv2 LLC SENDs of big-endian senders;
#  - find every CLC OS type (first-contact Accept and Confirm, v2 Decline) to be the
#    sender's: z/OS 1, Linux 2, the stack's personality (`smcr-sim check --dump`) found by
#    the frame's source address;
#  - find each SMC-Rv2 LLC message (SEND packets whose first payload byte is 0x21..0x29,
#    `smcr-sim debug frames`) written in its sender's byte order: its 16-bit length, read
#    from tshark's udp.payload, equals the SEND's size read big-endian for a z/OS sender
#    (network order) and little-endian for a Linux one (x86 Linux's host order);
#  - decode the big-endian ones as SMC, with their message type, never malformed; a
#    scenario without a Linux SMC-R stack (zos-v2) has no malformed frame at all;
#  - find no malformed frame and no expert warning or error (IP, TCP and UDP checksums
#    checked), except on the little-endian SMC-Rv2 LLC frames of Linux senders: we send
#    Linux's bytes, which tshark 4.0 reads big-endian (wireshark-recipe.md section 6). The
#    malformed frames must be among them, tshark must decode none of them as SMC
#    (measured, the same as on the real Linux trace: CONFIRM LINK and ADD LINK come out
#    malformed because RPC-over-RDMA takes the payload and fails; CONFIRM RKEY and DELETE
#    RKEY come out as plain InfiniBand payload), and our own decoder must read them
#    without an error;
#  - decode every RoCE frame as InfiniBand;
#  - count at least the SMC messages the scenario implies (table below).
# tshark dissects exactly the protocols the simulator speaks (Ethernet, 802.1Q, ARP, IPv4,
# ICMP, TCP, UDP, InfiniBand/RoCE, SMC; application payload is data; RPC-over-RDMA stays
# on because it is what fails on the v2 LLC frames): a throw-away configuration directory
# disables every other protocol. The applications send pattern bytes, which port-based
# dissectors would otherwise read as their protocol (IPA on port 5000, DRDA on 446, ...)
# and call malformed. Decode As (-d) cannot do this: it overrides the SMC heuristic on
# that port; and tshark 4.0 has no --disable-protocol ALL. The two scenarios with about a million frames are
# captured with a 256-byte snap length (RDMA WRITE payloads cut; the test checks that no
# other frame is cut) to keep the files small.
# slow test: about 50 s
set -eu
. tests/lib.sh

command -v tshark >/dev/null 2>&1 || { echo "tshark is not installed"; exit 77; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# Minimum messages each scenario implies, from its apps and timeline: CLC = Proposal +
# Accept + Confirm per SMC-R connection, Proposal + Decline per connection the server
# declines, a Decline alone where the client has no RoCE device; LLC = CONFIRM LINK
# request + response per link group, plus ADD LINK request + response and CONFIRM LINK
# request + response per added link, plus a DELETE LINK per failover; CDC = at least one
# per direction of every SMC-R connection (data one way, cursor updates the other).
mins() {
	case $1 in
	default)               echo "15 11 10" ;;    # 5 conns, 1 lgr; link added, deleted (RA1 fails), added again
	fallback-no-rnic)      echo "2 0 0" ;;       # 2 conns, the client has no RNIC: a Decline each
	fallback-smc-disabled) echo "0 0 0" ;;       # the server has SMC off: no SMC option, no CLC
	fallback-subnets)      echo "4 0 0" ;;       # 2 conns declined (different subnets)
	large-fabric)          echo "960 64 640" ;;  # 32 apps x 10 conns, 32 link groups
	scale-smoke)           echo "300 200 200" ;; # 100 conns, 100 link groups
	link-reuse)            echo "900 2 600" ;;   # 300 conns, 1 link group, one link
	redundancy-failover)   echo "24 7 16" ;;     # 8 conns, 1 lgr, second link, failover
	shared-adapters)       echo "60 30 40" ;;    # 20 conns, 5 lgrs of 2 links
	two-stacks)            echo "9 2 6" ;;       # 3 SMC-R conns (the 4th has smc=no), 1 link
	v2-routed)             echo "9 4 6" ;;       # 3 conns; v2 CONFIRM LINK, ADD LINK (rejected)
	v2-redundancy)         echo "24 11 16" ;;    # 8 conns, 1 lgr, second link, failover, link added again
	zos-v2)                echo "15 11 10" ;;    # 5 conns, as v2-redundancy, then TEST LINK when idle
	vlan-separation)       echo "18 4 12" ;;     # 6 conns, 2 lgrs
	trace-two-stacks)      echo "9 2 6" ;;       # as two-stacks
	trace-failover)        echo "6 7 4" ;;       # 2 conns, 1 lgr; link added, then deleted (RA1 fails)
	trace-v2-routed)       echo "9 4 6" ;;       # as v2-routed
	*)                     echo "1 0 0" ;;       # a new scenario: at least one CLC message
	esac
}

mkdir "$TMP/ws"
tshark -G protocols 2>/dev/null | awk -F'\t' '{ print $3 }' |
	grep -v -x -E '_ws\..*|frame|eth|ethertype|vlan|arp|ip|icmp|tcp|udp|infiniband|smc|data|rpcordma' \
	>"$TMP/ws/disabled_protos"
grep -q -x gsm_ipa "$TMP/ws/disabled_protos" || fail "tshark -G protocols did not list the protocols"
export WIRESHARK_CONFIG_DIR="$TMP/ws"
# judge FILE DIR: one scenario, its files in DIR; prints its "ok" line or fails
judge() {
	f=$1 T=$2
	n=$(basename "$f" .scn)
	pcap="$T/$n.pcapng"
	snap=""
	case $n in large-fabric|redundancy-failover) snap="--pcap-snaplen 256" ;; esac
	# shellcheck disable=SC2086
	"$SMCR_SIM" run --pcap "$pcap" $snap "$f" >"$T/run.out" 2>&1 || fail "$f: run exited $?"
	# one tshark pass: number|clc|llc|malformed|severities|IB opcode|RoCE?|cut?|sender|OS types
	tshark_fields "$pcap" -n -o tcp.try_heuristic_first:TRUE -o ip.check_checksum:TRUE \
		-o udp.check_checksum:TRUE -o tcp.check_checksum:TRUE -- \
		frame.number smc.clc_msg smc.llc_msg _ws.malformed \
		_ws.expert.severity infiniband.bth.opcode eth.type udp.dstport frame.len \
		frame.cap_len ip.src smc.accept.os.type smc.confirm.os.type smc.decline.os.type \
		>"$T/ts" 2>"$T/ts.err" || fail "$n: tshark failed: $(head -3 "$T/ts.err")"
	"$SMCR_SIM" debug frames "$pcap" >"$T/frames"
	"$SMCR_SIM" replay --messages "$pcap" >"$T/msgs" 2>"$T/msgs.err" ||
		fail "$n: our decoder reported errors: $(head -3 "$T/msgs.err")"
	# address|personality of every stack interface
	"$SMCR_SIM" check --dump "$f" 2>/dev/null | awk '/^stack / { split($3, a, "="); p = a[2] }
		/^  interface / { for (i = 1; i <= NF; i++) if ($i ~ /^ip=/) { split(substr($i, 4), b, "/"); print b[1] "|" p } }' \
		>"$T/pers"
	[ -s "$T/pers" ] || fail "$n: check --dump named no interface"

	frames=$(wc -l <"$T/ts")
	[ "$frames" = "$(wc -l <"$T/frames")" ] || fail "$n: tshark and debug frames disagree on the frame count"
	echo "$frames" >"$T/n_frames"
	# the CLC OS type is the sender's (several CLC messages in one segment: one value each)
	awk -F'|' 'NR == FNR { p[$1] = $2; next }
		{ k = split($12 "," $13 "," $14, v, ","); for (i = 1; i <= k; i++) if (v[i] != "") {
			n++; want = p[$11] == "zos" ? 1 : p[$11] == "linux" ? 2 : "?"
			if (v[i] != want) print $1 " from " $11 " (" p[$11] "): " v[i] } }
		END { print n + 0 >"/dev/stderr" }' "$T/pers" "$T/ts" >"$T/os_bad" 2>"$T/os_n"
	[ ! -s "$T/os_bad" ] || fail "$n: CLC OS types that are not the sender's (frame, sender: OS type): $(head -5 "$T/os_bad" | tr '\n' ';')"
	# 6291456 = PI_WARN: warnings and errors, not notes, chats or comments
	awk -F'|' '{ bad = ($4 != ""); n = split($5, s, ","); for (i = 1; i <= n; i++) if (s[i] >= 6291456) bad = 1;
		if (bad) print $1 }' "$T/ts" | sort >"$T/bad"
	awk '$2 ~ /^roce/ && $5 == "msg" && $6 >= "0x21" && $6 <= "0x29" { print $1 }' "$T/frames" | sort >"$T/v2llc"
	# each v2 LLC message's byte order: its length field against the SEND's size (UDP
	# length - 8 UDP - 12 BTH - 4 ICRC), and the order its sender's personality writes
	: >"$T/v2order"
	if [ -s "$T/v2llc" ]; then
		tshark -n -r "$pcap" -Y "frame.number in {$(paste -s -d, "$T/v2llc")}" -T fields -E separator='|' \
			-e frame.number -e ip.src -e udp.length -e udp.payload 2>/dev/null |
			awk -F'|' 'function h(c) { return index("0123456789abcdef", c) - 1 }
				function byte(o) { return h(substr($4, 2 * o + 1, 1)) * 16 + h(substr($4, 2 * o + 2, 1)) }
				NR == FNR { p[$1] = $2; next }
				{ len = $3 - 24; be = byte(13) * 256 + byte(14); le = byte(14) * 256 + byte(13)
				  o = be == len ? "be" : le == len ? "le" : "neither"
				  want = p[$2] == "zos" ? "be" : "le"
				  print $1 "|" o "|" want "|" $2 "|" p[$2] }' "$T/pers" - >"$T/v2order"
	fi
	[ "$(wc -l <"$T/v2order")" = "$(wc -l <"$T/v2llc")" ] || fail "$n: tshark did not show every v2 LLC frame's payload"
	awk -F'|' '$2 != $3 { print $1 " from " $4 " (" $5 "): " $2 ", not " $3 }' "$T/v2order" >"$T/order_bad"
	[ ! -s "$T/order_bad" ] || fail "$n: v2 LLC messages not in their sender's byte order: $(head -5 "$T/order_bad" | tr '\n' ';')"
	awk -F'|' '$2 == "be" { print $1 }' "$T/v2order" | sort >"$T/v2be"
	awk -F'|' '$2 == "le" { print $1 }' "$T/v2order" | sort >"$T/v2le"
	extra=$(comm -23 "$T/bad" "$T/v2le" | head -10 | tr '\n' ' ')
	[ -z "$extra" ] || fail "$n: malformed or warning frames that are not little-endian SMC-Rv2 LLC: $extra"
	[ "$n" != zos-v2 ] || [ ! -s "$T/bad" ] || fail "$n: malformed or warning frames: $(head -10 "$T/bad" | tr '\n' ' ')"
	# tshark 4.0 decodes none of the little-endian v2 LLC frames: most come out malformed
	# (RPC-over-RDMA takes the payload and fails), the rest as undecoded InfiniBand payload
	awk -F'|' '$3 != "" { print $1 }' "$T/ts" | sort >"$T/smc_llc"
	decoded=$(comm -12 "$T/v2le" "$T/smc_llc" | head -5 | tr '\n' ' ')
	[ -z "$decoded" ] || fail "$n: tshark decoded little-endian SMC-Rv2 LLC frames as SMC ($decoded): update the known exception"
	v2bad=$(wc -l <"$T/bad")
	# ... and every big-endian one, with the message byte the frame carries
	awk '$2 ~ /^roce/ && $5 == "msg" && $6 >= "0x21" && $6 <= "0x29" { print $1 "|" $6 }' "$T/frames" | sort >"$T/v2types"
	awk -F'|' '$3 != "" { print $1 "|" $3 }' "$T/ts" | sort >"$T/smc_llc_types"
	missing=$(awk -F'|' 'NR == FNR { be[$1] = 1; next } $1 in be' "$T/v2be" "$T/v2types" |
		comm -23 - "$T/smc_llc_types" | head -5 | tr '\n' ' ')
	[ -z "$missing" ] || fail "$n: big-endian SMC-Rv2 LLC frames tshark does not decode as SMC of their type: $missing"
	# every RoCE frame is InfiniBand
	awk -F'|' '($7 ~ /0x8915/ || $8 == "4791") && $6 == "" { print $1 }' "$T/ts" >"$T/noib"
	[ ! -s "$T/noib" ] || fail "$n: RoCE frames not decoded as InfiniBand: $(head -5 "$T/noib" | tr '\n' ' ')"
	# only RDMA WRITE payloads may be cut by the snap length
	awk -F'|' '$9 != $10 && $6 !~ /^(6|7|8|10)$/ { print $1 }' "$T/ts" >"$T/cut"
	[ ! -s "$T/cut" ] || fail "$n: frames other than RDMA WRITEs cut: $(head -5 "$T/cut" | tr '\n' ' ')"
	# LLC (v1, and v2 in network order) and CDC: tshark's SMC frames are exactly the SENDs
	# carrying those types
	{ awk '$2 ~ /^roce/ && $5 == "msg" && ($6 <= "0x09" || $6 == "0xfe") { print $1 }' "$T/frames"; cat "$T/v2be"; } |
		sort -n >"$T/want_llc"
	awk -F'|' '$3 != "" { print $1 }' "$T/ts" | sort -n >"$T/got_llc"
	if ! cmp -s "$T/want_llc" "$T/got_llc"; then
		diff "$T/want_llc" "$T/got_llc" | head -10 >&2
		fail "$n: LLC/CDC frames tshark decodes as SMC (>) differ from the SENDs that carry them (<)"
	fi
	# CLC: every message our decoder reads is a CLC frame for tshark, of the same type
	awk '$4 == "CLC" { t = ($5 == "Proposal") ? 1 : ($5 == "Accept") ? 2 : ($5 == "Confirm") ? 3 : 4; print $1 "|" t }' \
		"$T/msgs" | sort >"$T/want_clc"
	awk -F'|' '$2 != "" { print $1 "|" $2 }' "$T/ts" | sort >"$T/got_clc"
	missing=$(comm -23 "$T/want_clc" "$T/got_clc" | head -5 | tr '\n' ' ')
	[ -z "$missing" ] || fail "$n: CLC messages tshark does not decode as SMC (frame|type): $missing"
	# our decoder reads the v2 LLC messages, in either order
	v2frames=$(wc -l <"$T/v2llc")
	v2be=$(wc -l <"$T/v2be")
	v2le=$(wc -l <"$T/v2le")
	v2read=$(grep -c ' LLCv2 ' "$T/msgs" || true)
	if [ "$v2frames" -gt 0 ] && [ "$v2read" -eq 0 ]; then
		fail "$n: $v2frames SMC-Rv2 LLC frames, none read by our decoder"
	fi

	clc=$(wc -l <"$T/got_clc")
	llc=$(awk -F'|' '$3 != "" && $3 != "0xfe"' "$T/ts" | wc -l)
	cdc=$(awk -F'|' '$3 == "0xfe"' "$T/ts" | wc -l)
	set -- $(mins "$n")
	[ "$clc" -ge "$1" ] || fail "$n: $clc CLC frames, expected at least $1"
	[ "$((llc + v2le))" -ge "$2" ] || fail "$n: $llc LLC frames (+ $v2le v2 little-endian), expected at least $2"
	[ "$cdc" -ge "$3" ] || fail "$n: $cdc CDC frames, expected at least $3"
	echo "ok $n: $frames frames; SMC: $clc CLC, $llc LLC, $cdc CDC; $(cat "$T/os_n") CLC OS types the senders'; SMC-Rv2 LLC: $v2be big-endian (z/OS) frames decoded as SMC, $v2le little-endian (Linux) frames tshark 4.0 cannot decode (expected; $v2bad of them malformed), $v2read messages read by our decoder; no other malformed or warning frame"
	rm -f "$pcap"
}

# two scenarios at a time (tshark is single-threaded; the test's time is mostly its
# dissection of the two captures of about a million frames); results in file order
jobs=${SMCR_TSHARK_JOBS:-2}
pids="" names="" failed=""
reap() { # wait for the oldest scenario and print what it said
	set -- $pids; pid=$1; shift; pids="$*"
	set -- $names; name=$1; shift; names="$*"
	if wait "$pid"; then
		cat "$TMP/$name.out"
	else
		cat "$TMP/$name.out" >&2
		failed="$failed $name"
	fi
}
for f in scenarios/*.scn; do
	grep -q '^# heavy:' "$f" && continue # only checked, never run
	n=$(basename "$f" .scn)
	mkdir "$TMP/$n"
	(judge "$f" "$TMP/$n") >"$TMP/$n.out" 2>&1 &
	pids="$pids $!" names="$names $n"
	[ "$(echo $pids | wc -w)" -lt "$jobs" ] || reap
done
while [ -n "$pids" ]; do reap; done
[ -z "$failed" ] || fail "tshark's judgement failed for:$failed"
total_frames=$(cat "$TMP"/*/n_frames | awk '{ t += $1 } END { print t }')
echo "tshark judged every scenario: $total_frames frames"
