# Helpers for the shell tests (sourced).
fail() { echo "FAIL: $*" >&2; exit 1; }

# expect_exit CODE CMD...: run CMD, require exit status CODE.
expect_exit() {
	want=$1; shift
	set +e; "$@" >/dev/null 2>&1; got=$?; set -e
	[ "$got" = "$want" ] || fail "'$*' exited $got, expected $want"
}

# expect_stderr PATTERN CMD...: run CMD (any status), require PATTERN on stderr.
expect_stderr() {
	pat=$1; shift
	set +e; err=$("$@" 2>&1 >/dev/null); set -e
	echo "$err" | grep -q -- "$pat" || fail "'$*' did not say '$pat' on stderr (said: $err)"
}

# tshark_fields CAPTURE [TSHARK OPTION...] -- FIELD...: what
# `tshark -r CAPTURE -T fields -E separator='|' -e FIELD...` prints, read from custom columns
# (-T tabs) instead: tshark 4.0 builds each frame's whole tree for -T fields, but only the
# fields asked for for columns, two to three times faster on a capture of a million frames.
# The same lines (compared on every shipped scenario's capture) but for what columns do
# otherwise: an expert severity comes by name (mapped back to the number -T fields prints);
# a malformed frame's _ws.malformed is a mark, not its text (tests ask only whether it is
# there); a field that occurs more than once in a frame may list its values in another
# order; a column holds at most 2,047 bytes (Wireshark's COL_MAX_LEN). So it is for short
# fields whose values are looked at one by one. TSHARK OPTIONs are single words.
tshark_fields() {
	tf_file=$1; shift
	tf_opts=""
	while [ $# -gt 0 ] && [ "$1" != -- ]; do tf_opts="$tf_opts $1"; shift; done
	[ $# -gt 0 ] && shift
	tf_cols="" tf_sev=""
	tf_i=0
	for tf_f in "$@"; do
		tf_i=$((tf_i + 1))
		tf_cols="$tf_cols${tf_cols:+,}\"$tf_f\",\"%Cus:$tf_f:0:U\""
		[ "$tf_f" = _ws.expert.severity ] && tf_sev="$tf_sev $tf_i"
	done
	tf_out=$(mktemp)
	# shellcheck disable=SC2086
	tshark $tf_opts -r "$tf_file" -T tabs -o "gui.column.format:$tf_cols" >"$tf_out" ||
		{ tf_rc=$?; rm -f "$tf_out"; return $tf_rc; }
	awk -F'\t' -v OFS='|' -v sev="$tf_sev" 'BEGIN { n = split(sev, s, " ")
			v["\"Comment\""] = 1048576; v["\"Chat\""] = 2097152; v["\"Note\""] = 4194304
			v["\"Warning\""] = 6291456; v["\"Error\""] = 8388608 }
			{ $1 = $1
			  for (i = 1; i <= n; i++) { k = split($s[i], w, ","); out = ""
				for (j = 1; j <= k; j++) out = out (j > 1 ? "," : "") (w[j] in v ? v[w[j]] : w[j])
				$s[i] = out }
			print }' "$tf_out"
	rm -f "$tf_out"
}
