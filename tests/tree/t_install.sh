# make install DESTDIR=… into a temporary root, and everything from there: the binary runs
# a shipped scenario, the example builds against the installed library through pkg-config
# (shared, with its soname, and static) and echoes over SMC-R, the man pages render, the
# bash completion loads; make uninstall leaves no file behind.
set -eu
. tests/lib.sh

command -v pkg-config >/dev/null || { echo "pkg-config is not installed"; exit 77; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
R=$TMP/root
# the binary as built (-o): other tests run it meanwhile (run-tests -j), so this make must
# not link it again, as it would where the tree changed since (git describe --dirty)
make -s --no-print-directory BUILD="$BUILD" -o "$BUILD/smcr-sim" install DESTDIR="$R" PREFIX=/usr >"$TMP/make.log" 2>&1 ||
	{ tail -20 "$TMP/make.log" >&2; fail "make install failed"; }
for f in bin/smcr-sim lib/libsmcr-model.a lib/libsmcr-model.so lib/pkgconfig/smcr-model.pc \
	include/smcr/smcr.h include/smcr/smcr_transport.h include/smcr/smcr_err.h include/smcr/clc.h \
	include/smcr/llc.h include/smcr/cdc.h include/smcr/byteorder.h include/smcr/decode_err.h \
	share/man/man1/smcr-sim.1 share/man/man5/smcr-scenario.5 share/bash-completion/completions/smcr-sim \
	share/smcr-sim/scenarios/default.scn share/smcr-sim/wireshark/smcr.lua share/smcr-sim/wireshark/README.md \
	share/doc/smcr-sim/loopback-echo.c; do
	[ -e "$R/usr/$f" ] || fail "make install did not install /usr/$f"
done
! grep -rq '#include "model/' "$R/usr/include/smcr" || fail "an installed header still includes \"model/…\""

# the binary runs from there
B=$R/usr/bin/smcr-sim
"$B" --version | grep -q "^smcr-sim $(cat VERSION)$" || fail "the installed binary's --version"
"$B" run "$R/usr/share/smcr-sim/scenarios/two-stacks.scn" >"$TMP/run.out" || fail "the installed binary failed a shipped scenario"
grep -q 'fingerprint' "$TMP/run.out" || fail "no fingerprint from the installed binary"

# the example against the installed library, as another program builds it
export PKG_CONFIG_PATH="$R/usr/lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$R"
[ "$(pkg-config --modversion smcr-model)" = "$(cat VERSION)" ] || fail "pkg-config --modversion smcr-model"
flags=$(pkg-config --cflags --libs smcr-model)
echo "$flags" | grep -q -- "-I$R/usr/include" || fail "pkg-config --cflags: $flags"
# shellcheck disable=SC2086
${CC:-cc} -std=c11 -Wall -Wextra -Werror -o "$TMP/echo" "$R/usr/share/doc/smcr-sim/loopback-echo.c" $flags ||
	fail "the example does not build against the installed library"
readelf -d "$R/usr/lib/libsmcr-model.so" | grep -q "SONAME.*\[libsmcr-model.so.$(cut -d. -f1 VERSION)\]" ||
	fail "libsmcr-model.so has no soname libsmcr-model.so.MAJOR"
readelf -d "$TMP/echo" | grep -q "NEEDED.*libsmcr-model.so.$(cut -d. -f1 VERSION)" || fail "the example is not linked to the shared library"
LD_LIBRARY_PATH="$R/usr/lib" "$TMP/echo" >"$TMP/echo.out" || fail "the example failed: $(cat "$TMP/echo.out")"
grep -q '^client got its 16 bytes back intact$' "$TMP/echo.out" || fail "no intact echo: $(cat "$TMP/echo.out")"
grep -q '^client: SMC-R link 1 up' "$TMP/echo.out" || fail "no SMC-R link in the example"
# static, too (the core needs libc only)
# shellcheck disable=SC2046
${CC:-cc} -std=c11 -o "$TMP/echo-static" "$R/usr/share/doc/smcr-sim/loopback-echo.c" $(pkg-config --cflags smcr-model) \
	"$R/usr/lib/libsmcr-model.a" || fail "the example does not link with libsmcr-model.a"
"$TMP/echo-static" | cmp -s - "$TMP/echo.out" || fail "the static example says something else"

# the man pages render without a warning, the completion loads
for p in man1/smcr-sim.1 man5/smcr-scenario.5; do
	MANWIDTH=80 man --warnings -l "$R/usr/share/man/$p" >"$TMP/page" 2>"$TMP/warn" || fail "man -l $p failed"
	[ ! -s "$TMP/warn" ] || fail "man -l $p: $(head -5 "$TMP/warn")"
	[ "$(wc -l <"$TMP/page")" -gt 100 ] || fail "$p renders to $(wc -l <"$TMP/page") lines"
done
MANWIDTH=80 man -l "$R/usr/share/man/man1/smcr-sim.1" | grep -q "/usr/share/smcr-sim/wireshark/smcr.lua" ||
	fail "smcr-sim(1) FILES does not name the installed dissector"
command -v bash >/dev/null && {
	bash -c ". '$R/usr/share/bash-completion/completions/smcr-sim' && complete -p smcr-sim" | grep -q '_smcr_sim' ||
		fail "the installed completion does not register for smcr-sim"
}

make -s --no-print-directory BUILD="$BUILD" uninstall DESTDIR="$R" PREFIX=/usr >/dev/null 2>&1 || fail "make uninstall failed"
left=$(find "$R" ! -type d | head -5)
[ -z "$left" ] || fail "make uninstall left: $left"
echo "install ok"
