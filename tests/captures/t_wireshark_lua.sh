# The Wireshark Lua dissector tools/wireshark/smcr.lua, run by tshark 4.0 on
#  - the shipped traces (traces/*.pcap*: two v1 traces, the v2 routed sample, real Linux),
#  - the captures the simulator writes for every v2 scenario (scenarios/v2-*.scn,
#    scenarios/zos-v2.scn and scenarios/trace-v2-routed.scn), where each v2 LLC message is
#    in its sender's byte order (z/OS big-endian, x86 Linux little-endian),
#  - the same captures with every v2 LLC message rewritten into big-endian (network order)
#    16-bit fields (build/tests/wireshark/llc_pcap swap: decoded and re-encoded by the
#    model's codec, ICRC recomputed), and
#  - a catalogue of every v2 LLC message type Linux sends, encoded by model/llc.c in each
#    byte order, with a CDC message after each (llc_pcap catalogue le|be),
# must decode every SMC-Rv2 LLC frame (the SENDs whose message byte is 0x21..0x29, as
# `smcr-sim debug frames` reads each frame's bytes) as smcr_v2llc with the message type and
# direction that the frame's packet comment names (the real trace has none: what
# `smcr-sim replay --messages` reads), in the byte order it was written (for the
# simulator's captures: the personality of the stack at the frame's source address, as
# `smcr-sim check --dump` names it), with no malformed
# frame and no expert error anywhere; the big-endian copies must decode to the same trees
# as the originals (the byte-order line aside); v1 LLC, CDC and CLC frames must still be
# Wireshark's own smc, field for field as without the script. A v2 length that fits
# neither order is shown as malformed on a QP that carried SMC-Rv2, and left alone on
# another (llc_pcap bad).
# tshark dissects only the protocols the captures carry plus every InfiniBand payload
# heuristic (RPC-over-RDMA and the others are the competitors this script must beat); a
# throw-away configuration directory disables the rest (see t_scenarios_tshark.sh: port
# based dissectors would read the applications' pattern bytes as their protocol).
# slow test: about 35 s
set -eu
. tests/lib.sh

command -v tshark >/dev/null 2>&1 || { echo "tshark is not installed"; exit 77; }
LUA=tools/wireshark/smcr.lua
GEN=$BUILD/tests/wireshark/llc_pcap
[ -x "$GEN" ] || fail "$GEN is not built (make)"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

mkdir "$TMP/ws"
heur=$(tshark -G heuristic-decodes 2>/dev/null | awk -F'\t' '$1 == "infiniband.payload" { print $2 }' | tr '\n' '|')
case "$heur" in *rpcordma*) ;; *) fail "tshark lists no RPC-over-RDMA heuristic for infiniband.payload: $heur" ;; esac
tshark -G protocols 2>/dev/null | awk -F'\t' '{ print $3 }' |
	grep -v -x -E "_ws\..*|frame|eth|ethertype|vlan|arp|ip|ipv6|icmp|icmpv6|tcp|udp|infiniband|data|${heur%|}" \
	>"$TMP/ws/disabled_protos"
grep -q -x gsm_ipa "$TMP/ws/disabled_protos" || fail "tshark -G protocols did not list the protocols"
export WIRESHARK_CONFIG_DIR="$TMP/ws"

PI_WARN=6291456
PI_ERROR=8388608
TS="tshark -n -o tcp.try_heuristic_first:TRUE"

SMC_FIELDS="-e smc.clc_msg -e smc.llc_msg -e smc.length -e smc.rmbe.ctrl.seqno -e smc.rmbe.ctrl.alert.token
-e smc.rmbe.ctrl.peer.prod.curs -e smc.confirm.link.sender.qp.number -e smc.add.link.sender.qp.number
-e smc.delete.rkey.deleted -e smc.add.link.cont.rmb.RTok1.Rkey1"
# Wireshark's own dissector reads network order correctly, so on the big-endian copy it is
# an independent judge of every field both dissectors show (it leaves out the extension
# of ADD LINK responses and the zeroed rkeys of DELETE RKEY responses: a field it does not
# show is not compared). Pairs: our field = Wireshark's.
PAIRS="length=smc.length
confirm.link.sender.mac=smc.confirm.link.sender.mac confirm.link.sender.gid=smc.sender.gid
confirm.link.sender.qp.number=smc.confirm.link.sender.qp.number confirm.link.number=smc.confirm.link.number
confirm.link.sender.link.userid=smc.confirm.link.sender.link.userid confirm.link.max.links=smc.confirm.link.max.links
add.link.sender.mac=smc.add.link.sender.mac add.link.sender.gid=smc.add.link.sender.gid
add.link.sender.qp.number=smc.add.link.sender.qp.number add.link.link.number=smc.add.link.link.number
add.link.qp.mtu.value=smc.add.link.qp.mtu.value add.link.initial.psn=smc.add.link.initial.psn
add.link.response.rejected=smc.add.link.response.rejected add.link.direct_link=smc.add.link.direct_link
add.link.client_target_gid=smc.add.link.client_target_gid add.link.rkey_count=smc.add.link.rkey_count
add.link.rmb.RTok.Rkey1=smc.add.link.rmb.RTok.Rkey1 add.link.rmb.RTok.Rkey2=smc.add.link.rmb.RTok.Rkey2
add.link.rmb.RTok.virt=smc.add.link.rmb.RTok.virt
delete.link.all=smc.delete.link.all delete.link.orderly=smc.delete.link.orderly
delete.link.number=smc.delete.link.number delete.link.reason.code=smc.delete.link.reason.code
request.add.link.gid.list.entry_count=smc.request.add.link.gid.list.entry_count
request.add.link.gid.list.entry=smc.request.add.link.gid.list.entry
confirm.rkey.negative.response=smc.confirm.rkey.negative.response confirm.rkey.retry.rkey.set=smc.confirm.rkey.retry.rkey.set
confirm.rkey.number.qp=smc.confirm.rkey.number.qp confirm.rkey.new.rkey=smc.confirm.rkey.new.rkey
confirm.rkey.new.virt=smc.confirm.rkey.new.virt confirm.rkey.link.number=smc.confirm.rkey.link.number
delete.rkey.negative.response=smc.delete.rkey.negative.response delete.rkey.count=smc.delete.rkey.count
delete.rkey.count.invalid=smc.delete.rkey.count.invalid delete.rkey.deleted=smc.delete.rkey.deleted"
OURS_PAIRS=""
for p in $PAIRS; do OURS_PAIRS="$OURS_PAIRS -e smcr_v2llc.${p%%=*}"; done
# Columns of ours: 1-8 below, then SMC_FIELDS, then the source address, then our side of
# PAIRS: one tshark pass with the script gives everything the checks read of a capture.
SMC_N=$(($(echo $SMC_FIELDS | wc -w) / 2))
IP_COL=$((9 + SMC_N))
PAIRS_COL=$((IP_COL + 1))
# ours FILE: number|v2 message byte|response|byte order|ambiguous|malformed|severities|comment,
# then what Wireshark's own SMC dissector shows (SMC_FIELDS), ip.src, our PAIRS fields
ours() {
	# shellcheck disable=SC2086
	$TS -X lua_script:"$LUA" -r "$1" -T fields -E separator='|' -e frame.number -e smcr_v2llc.llc_msg \
		-e smcr_v2llc.flags.response -e smcr_v2llc.byte_order -e smcr_v2llc.byte_order.ambiguous \
		-e _ws.malformed -e _ws.expert.severity -e frame.comment $SMC_FIELDS -e ip.src $OURS_PAIRS
}
# smc_fields FILE: number|SMC_FIELDS without the script
smc_fields() {
	# shellcheck disable=SC2086
	$TS -r "$1" -T fields -E separator='|' -e frame.number $SMC_FIELDS
}
# tree FILE: the smcr_v2llc tree of every frame, each line prefixed with the frame number,
# without the byte order (the one thing the two encodings differ in)
tree() {
	$TS -X lua_script:"$LUA" -r "$1" -Y smcr_v2llc -V -O smcr_v2llc 2>/dev/null | awk '
		/^Frame [0-9]+:/ { n = $2; sub(":", "", n); inside = 0; next }
		/^SMC-Rv2 LLC \(/ { inside = 1; print n ": " $0; next }
		inside && /^ / { print n ": " $0; next }
		{ inside = 0 }' | grep -v 'Byte order of the 16-bit fields'
}
only_root_warning() { # FILE: tshark's stderr may only say it runs as root
	if grep -v 'Running as user' "$1" | grep -q .; then
		grep -v 'Running as user' "$1" | head -5 >&2
		return 1
	fi
}
v2_name() { # awk program text: names of the v2 message bytes as comments and replay write them
	echo 'BEGIN { split("CONFIRM_LINK ADD_LINK ADD_LINK_CONT DELETE_LINK REQUEST_ADD_LINK CONFIRM_RKEY TEST_LINK CONFIRM_RKEY_CONT DELETE_RKEY", N, " ") }
	function name(b) { return N[index("123456789", substr(b, 4, 1))] }'
}

# check NAME FILE ORDER TYPES [SCENARIO]: ORDER le|be, or sender: each message in its
# sender's order (the SCENARIO's stack personalities by the frame's source address: z/OS
# big-endian, Linux little-endian); TYPES comments (packet comments name each message),
# replay (smcr-sim replay --messages does) or none
check() {
	n=$1 f=$2 order=$3 types=$4 scn=${5:-} # (sh has no locals: the callers' loops use other names)
	T=$TMP/$n
	"$SMCR_SIM" debug frames "$f" >"$T.frames"
	awk '$2 ~ /^roce/ && $5 == "msg" && $6 >= "0x21" && $6 <= "0x29" { print $1 "|" $6 }' "$T.frames" >"$T.want_v2"
	awk '$2 ~ /^roce/ && $5 == "msg" && ($6 <= "0x09" || $6 == "0xfe") { print $1 }' "$T.frames" >"$T.want_smc"
	ours "$f" >"$T.ours" 2>"$T.err" || fail "$n: tshark with the script failed: $(head -3 "$T.err")"
	only_root_warning "$T.err" || fail "$n: tshark said something on stderr"
	[ "$(wc -l <"$T.ours")" = "$(wc -l <"$T.frames")" ] || fail "$n: tshark and debug frames disagree on the frame count"

	# every v2 LLC frame is ours, with its message byte, and nothing else is
	awk -F'|' '$2 != "" { print $1 "|" $2 }' "$T.ours" >"$T.got_v2"
	if ! cmp -s "$T.want_v2" "$T.got_v2"; then
		diff "$T.want_v2" "$T.got_v2" | head -10 >&2
		fail "$n: frames decoded as smcr_v2llc (>) differ from the v2 LLC SENDs (<)"
	fi
	# the message type and direction the simulator (or our replay) names
	case $types in
	comments)
		awk -F'|' "$(v2_name)"'
			$2 != "" { print $1 "|" name($2) "|" ($3 == "1" ? "response" : "request") }' "$T.ours" >"$T.got_types"
		awk -F'|' '$2 != "" {
			if (!match($8, /SMC-R LLC [A-Z_]+ \(v2\) (request|response)/)) { print $1 "|no comment"; next }
			split(substr($8, RSTART, RLENGTH), w, " "); print $1 "|" w[3] "|" w[5] }' "$T.ours" >"$T.want_types" ;;
	replay)
		"$SMCR_SIM" replay --messages "$f" >"$T.msgs" 2>"$T.msgs.err" || fail "$n: replay failed: $(head -3 "$T.msgs.err")"
		awk '$4 == "LLCv2" { print $1 "|" $5 "|" $6 }' "$T.msgs" | sort >"$T.want_types"
		awk -F'|' "$(v2_name)"'
			$2 != "" { print $1 "|" name($2) "|" ($3 == "1" ? "response" : "request") }' "$T.ours" | sort >"$T.got_types"
		[ -s "$T.want_types" ] || fail "$n: replay lists no v2 LLC message" ;;
	none) : >"$T.want_types"; : >"$T.got_types" ;;
	esac
	if ! cmp -s "$T.want_types" "$T.got_types"; then
		diff "$T.want_types" "$T.got_types" | head -10 >&2
		fail "$n: message types tshark shows (>) differ from the ones the capture names (<)"
	fi
	# nothing malformed, no expert error anywhere, no warning on our frames
	awk -F'|' -v warn=$PI_WARN -v err=$PI_ERROR '{ bad = ($6 != ""); k = split($7, s, ",")
		for (i = 1; i <= k; i++) if (s[i] + 0 >= err || ($2 != "" && s[i] + 0 >= warn)) bad = 1
		if (bad) print $1 }' "$T.ours" >"$T.bad"
	[ ! -s "$T.bad" ] || fail "$n: malformed or error frames: $(head -10 "$T.bad" | tr '\n' ' ')"
	# the byte order it was written in (a length that reads the same both ways says so):
	# number|1 for big-endian, 0 for little-endian
	case $order in
	le|be)
		want=0; [ "$order" = be ] && want=1
		awk -F'|' -v want=$want '$2 != "" { print $1 "|" want }' "$T.ours" >"$T.want_order" ;;
	sender)
		"$SMCR_SIM" check --dump "$scn" 2>/dev/null | awk '/^stack / { split($3, a, "="); p = a[2] }
			/^  interface / { for (i = 1; i <= NF; i++) if ($i ~ /^ip=/) { split(substr($i, 4), b, "/"); print b[1] "|" p } }' \
			>"$T.pers"
		[ -s "$T.pers" ] || fail "$n: check --dump $scn named no interface"
		awk -F'|' -v ip=$IP_COL 'NR == FNR { p[$1] = $2; next }
			$2 != "" { print $1 "|" (p[$ip] == "zos" ? 1 : p[$ip] == "linux" ? 0 : "?") }' \
			"$T.pers" "$T.ours" >"$T.want_order" ;;
	*) fail "check $n: order $order" ;;
	esac
	awk -F'|' 'NR == FNR { w[$1] = $2; next }
		$2 != "" && !(($5 == "" && $4 == w[$1]) || ($5 == "1" && $4 == "0" && w[$1] != "?")) { print $1 }' \
		"$T.want_order" "$T.ours" >"$T.order"
	[ ! -s "$T.order" ] || fail "$n: v2 frames not read in the order written ($order): $(head -10 "$T.order" | tr '\n' ' ')"
	orders="$(awk -F'|' '$2 == 1' "$T.want_order" | wc -l) big-endian, $(awk -F'|' '$2 == 0' "$T.want_order" | wc -l) little-endian"
	# v1 LLC, CDC and CLC: Wireshark's own dissector, as without the script (the
	# big-endian copies differ from their originals in v2 LLC frames only)
	cut -d'|' -f1,9-$((IP_COL - 1)) "$T.ours" >"$T.smc_with"
	if [ "$order" != be ]; then
		smc_fields "$f" 2>/dev/null >"$T.smc_without"
		cut -d'|' -f1 "$T.want_v2" >"$T.v2_numbers"
		for w in with without; do
			awk -F'|' 'NR == FNR { v2[$1] = 1; next } !($1 in v2)' "$T.v2_numbers" "$T.smc_$w" >"$T.smc_$w.rest"
		done
		cmp -s "$T.smc_with.rest" "$T.smc_without.rest" ||
			fail "$n: the script changes how Wireshark's SMC dissector decodes v1 LLC, CDC or CLC frames"
	fi
	awk -F'|' '$3 != "" { print $1 }' "$T.smc_with" >"$T.got_smc"
	cmp -s "$T.want_smc" "$T.got_smc" || fail "$n: Wireshark's SMC dissector no longer decodes exactly the v1 LLC and CDC SENDs"
	echo "$n: $(wc -l <"$T.got_v2") v2 LLC frames ($orders), $(wc -l <"$T.got_smc") v1 LLC/CDC and" \
		"$(awk -F'|' '$2 != ""' "$T.smc_with" | wc -l) CLC frames as smc, of $(wc -l <"$T.ours")"
}

judged_by_wireshark() { # NAME ORIGINAL'S_OURS BIG_ENDIAN_COPY: the original's v2 frames (as check read them)
	jt="-e frame.number -e smc.llc_msg"
	for p in $PAIRS; do jt="$jt -e ${p#*=}"; done
	awk -F'|' -v from=$PAIRS_COL '$2 != "" { o = $1 "|" $2; for (i = from; i <= NF; i++) o = o "|" $i; print o }' \
		"$2" >"$TMP/$1.judge_ours"
	# shellcheck disable=SC2086
	$TS -r "$3" -Y 'smc.llc_msg >= 0x21 && smc.llc_msg <= 0x29' -T fields -E separator='|' $jt 2>/dev/null \
		>"$TMP/$1.judge_theirs"
	awk -F'|' 'NR == FNR { t[$1] = $0; next }
		$2 == "0x23" || $2 == "0x28" { next }  # types Wireshark has no v2 decoder for
		!($1 in t) { print "frame " $1 ": Wireshark does not decode the big-endian copy"; next }
		{ k = split(t[$1], w, "|"); for (i = 2; i <= k; i++) if (w[i] != "" && w[i] != $i)
			print "frame " $1 " column " i ": ours " $i ", Wireshark " w[i] }' \
		"$TMP/$1.judge_theirs" "$TMP/$1.judge_ours" >"$TMP/$1.judged"
	[ -s "$TMP/$1.judge_ours" ] || fail "$1: nothing to judge"
	[ ! -s "$TMP/$1.judged" ] || fail "$1: Wireshark reads the big-endian copy differently: $(head -5 "$TMP/$1.judged")"
	echo "$1: $(wc -l <"$TMP/$1.judge_ours") v2 frames agree with Wireshark's reading of the big-endian copy"
}

same_trees() { # NAME A B: the smcr_v2llc trees of two captures are the same
	tree "$2" >"$TMP/$1.tree_a"
	tree "$3" >"$TMP/$1.tree_b"
	[ -s "$TMP/$1.tree_a" ] || fail "$1: no smcr_v2llc tree in $2"
	if ! cmp -s "$TMP/$1.tree_a" "$TMP/$1.tree_b"; then
		diff "$TMP/$1.tree_a" "$TMP/$1.tree_b" | head -10 >&2
		fail "$1: the big-endian copy decodes differently"
	fi
}

# the shipped traces, and their big-endian copies
for trace in traces/*.pcap*; do
	tn=$(basename "$trace")
	case $tn in
	linux-*) check "$tn" "$trace" le replay; tt=replay ;;  # the real Linux trace
	*) check "$tn" "$trace" sender comments "scenarios/${tn%.pcapng}.scn"; tt=comments ;;
	esac
	if [ -s "$TMP/$tn.want_v2" ]; then
		"$GEN" swap "$trace" "$TMP/$tn.be.pcap" >/dev/null
		be_types=none
		[ "$tt" = replay ] && be_types=replay
		check "$tn.be" "$TMP/$tn.be.pcap" be "$be_types"
		same_trees "$tn" "$trace" "$TMP/$tn.be.pcap"
		judged_by_wireshark "$tn" "$TMP/$tn.ours" "$TMP/$tn.be.pcap"
	fi
done
[ "$(wc -l <"$TMP/linux-6.1-smcr-v2-rxe.pcapng.got_v2")" -eq 8 ] ||
	fail "the real Linux trace: 8 v2 LLC frames (CONFIRM LINK, ADD LINK, 4 DELETE RKEY) expected"

# every v2 scenario, as the simulator captures it, and big-endian
for scn in scenarios/v2-*.scn scenarios/zos-v2.scn scenarios/trace-v2-routed.scn; do
	sn=$(basename "$scn" .scn)
	"$SMCR_SIM" run --pcap "$TMP/$sn.pcapng" "$scn" >"$TMP/$sn.run" 2>&1 || fail "$scn: run exited $?"
	check "$sn" "$TMP/$sn.pcapng" sender comments "$scn"
	[ -s "$TMP/$sn.want_v2" ] || fail "$sn: no v2 LLC frame"
	"$GEN" swap "$TMP/$sn.pcapng" "$TMP/$sn.be.pcap" >/dev/null
	check "$sn.be" "$TMP/$sn.be.pcap" be none
	same_trees "$sn" "$TMP/$sn.pcapng" "$TMP/$sn.be.pcap"
	judged_by_wireshark "$sn" "$TMP/$sn.ours" "$TMP/$sn.be.pcap"
done

# the catalogue in both byte orders
for o in le be; do
	"$GEN" catalogue $o "$TMP/cat-$o.pcapng"
	check "catalogue-$o" "$TMP/cat-$o.pcapng" $o comments
done
same_trees catalogue "$TMP/cat-le.pcapng" "$TMP/cat-be.pcapng"
judged_by_wireshark catalogue "$TMP/catalogue-le.ours" "$TMP/cat-be.pcapng"
types=$(cut -d'|' -f2 "$TMP/catalogue-be.got_v2" | sort -u | tr '\n' ' ')
[ "$types" = "0x21 0x22 0x24 0x25 0x26 0x27 0x29 " ] || fail "catalogue: v2 types decoded: $types"
for o in le be; do
	cat_field() { # FRAME FIELD (one of PAIRS): the field's values in that frame of the catalogue
		col=$PAIRS_COL
		for p in $PAIRS; do
			[ "smcr_v2llc.${p%%=*}" = "$2" ] && break
			col=$((col + 1))
		done
		awk -F'|' -v n="$1" -v c=$col '$1 == n { print $c }' "$TMP/catalogue-$o.ours"
	}
	c=$(grep -F '124 rkey pairs' "$TMP/catalogue-$o.ours" | head -1 | cut -d'|' -f1)
	[ -n "$c" ] || fail "catalogue-$o: no 124-pair ADD LINK"
	[ "$(cat_field "$c" smcr_v2llc.add.link.rkey_count)" = 124 ] || fail "catalogue-$o: ADD LINK rkey count"
	[ "$(cat_field "$c" smcr_v2llc.add.link.rmb.RTok.Rkey2 | tr ',' '\n' | wc -l)" -eq 124 ] ||
		fail "catalogue-$o: ADD LINK with 124 rkey pairs shows another number of pairs"
	c=$(grep -F '255 rkeys' "$TMP/catalogue-$o.ours" | head -1 | cut -d'|' -f1)
	[ "$(cat_field "$c" smcr_v2llc.delete.rkey.deleted | tr ',' '\n' | wc -l)" -eq 255 ] ||
		fail "catalogue-$o: DELETE RKEY with 255 rkeys"
	c=$(grep -F '2 GIDs' "$TMP/catalogue-$o.ours" | head -1 | cut -d'|' -f1)
	[ "$(cat_field "$c" smcr_v2llc.request.add.link.gid.list.entry)" = "::ffff:10.1.0.1,::ffff:10.1.0.2" ] ||
		fail "catalogue-$o: REQUEST ADD LINK GIDs"
done
# two passes (tshark -2): the first builds no tree, so the heuristic sees no opcode field
two=$($TS -2 -X lua_script:"$LUA" -r "$TMP/cat-be.pcapng" -T fields -e smcr_v2llc.llc_msg 2>/dev/null | grep -c . || true)
[ "$two" -eq "$(wc -l <"$TMP/catalogue-be.got_v2")" ] || fail "catalogue-be with tshark -2: $two v2 frames decoded"
# the precedence: without the trick, Wireshark's SMC heuristic (first again after each CDC)
# takes the big-endian v2 frames (it reads network order); with it, none
theirs=$($TS -X lua_script:"$LUA" -o smcr_v2llc.keep_first:FALSE -r "$TMP/cat-be.pcapng" \
	-Y 'smc.llc_msg >= 0x21 && smc.llc_msg <= 0x29' 2>/dev/null | wc -l)
echo "catalogue-be: with smcr_v2llc.keep_first off, Wireshark's smc takes $theirs of its $(wc -l <"$TMP/catalogue-be.got_v2") v2 frames"

# lengths that fit neither order
"$GEN" bad "$TMP/bad.pcapng"
ours "$TMP/bad.pcapng" 2>/dev/null >"$TMP/bad.ours"
awk -F'|' -v err=$PI_ERROR '{ e = 0; k = split($7, s, ","); for (i = 1; i <= k; i++) if (s[i] + 0 >= err) e = 1
	print $1 "|" $2 "|" ($6 != "") "|" e }' "$TMP/bad.ours" >"$TMP/bad.got"
printf '1|0x21|0|0\n2|0x26|1|1\n3||0|0\n' >"$TMP/bad.want"
if ! cmp -s "$TMP/bad.want" "$TMP/bad.got"; then
	diff "$TMP/bad.want" "$TMP/bad.got" >&2
	fail "bad lengths: frame|ours|malformed|error differs (the second is on an SMC-R QP, the third is not)"
fi

# the coloring rules: every rule compiles and colors its frames (PSML with --color)
cp tools/wireshark/smcr.colorfilters "$TMP/ws/colorfilters"
colors() { # FILE: number|background
	$TS --color -T psml -X lua_script:"$LUA" -r "$1" 2>"$TMP/color.err" |
		awk '/<packet/ { n++; bg = "none"; if (match($0, /background=.#[0-9a-f]+/)) bg = substr($0, RSTART + 13, 6)
			print n "|" bg }'
	only_root_warning "$TMP/color.err" || fail "coloring rules: tshark said something on stderr"
}
colors "$TMP/cat-be.pcapng" | cut -d'|' -f2 | sort | uniq -c | awk '{ print $2 "=" $1 }' | tr '\n' ' ' >"$TMP/colors"
[ "$(cat "$TMP/colors")" = "d5e8ff=8 e6d5ff=38 e6f5e6=46 " ] ||
	fail "coloring rules on the catalogue (v1 LLC, v2 LLC, CDC): $(cat "$TMP/colors")"
[ "$(colors "$TMP/bad.pcapng" | tr '\n' ' ')" = "1|e6d5ff 2|a40000 3|none " ] ||
	fail "coloring rules: the malformed v2 frame is not red"
echo "wireshark lua ok"
