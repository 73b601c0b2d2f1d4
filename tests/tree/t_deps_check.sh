# Plain `make` where the build lacks something names the Debian packages and how to install
# them (make deps, or the apt-get line), and compiles nothing; tools/install-deps --check is
# quiet and content where everything is there. A missing library is simulated by a
# pkg-config that finds no module, a missing Criterion by a compiler with an empty sysroot.
set -eu
. tests/lib.sh
command -v pkg-config >/dev/null || { echo "pkg-config is not installed"; exit 77; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
[ -z "$(tools/install-deps --check 2>&1)" ] || fail "install-deps --check says something on a machine that builds"

set +e
PKG_CONFIG_LIBDIR=$TMP/none make --no-print-directory BUILD="$TMP/b" >"$TMP/out" 2>&1
rc=$?
set -e
[ "$rc" -ne 0 ] || fail "make without GLib's, libpcap's and libibverbs' development files succeeded"
grep -q '^smcr-sim cannot be built here: the build needs these Debian packages: libglib2.0-dev libpcap-dev libibverbs-dev$' "$TMP/out" ||
	fail "make did not name the missing packages: $(head -5 "$TMP/out")"
grep -q 'make deps' "$TMP/out" || fail "make did not point to make deps"
grep -q 'apt-get install -y libglib2.0-dev libpcap-dev libibverbs-dev$' "$TMP/out" || fail "make did not give the apt-get line"
grep -q 'glib.h' "$TMP/out" && fail "make went on to the compiler: $(grep glib.h "$TMP/out" | head -1)"
[ -z "$(find "$TMP/b" -name '*.o' 2>/dev/null)" ] || fail "make compiled objects before saying what is missing"

set +e
make --no-print-directory BUILD="$TMP/c" CC="cc --sysroot=$TMP/none" >"$TMP/out2" 2>&1
set -e
grep -q 'needs these Debian packages: libcriterion-dev$' "$TMP/out2" ||
	fail "make without Criterion's header did not name libcriterion-dev: $(head -3 "$TMP/out2")"
echo "deps check ok"
