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
