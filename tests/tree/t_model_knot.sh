# The protocol core's knot (tools/model-knot: files that reach each other around a loop of
# calls, read from the code): no larger than SMC-R's own, the 8 files docs/architecture.md
# names (link group end -> connection kill -> close -> CDC -> failover -> DELETE_LINK ->
# link group). A file that starts calling one above it again grows the knot and fails
# here; a seam that takes a file out lowers the bound (change it with the document).
# No role dispatch by ternary: the handshake's roles are called through their table.
set -eu
. tests/lib.sh
MAX=8
out=$(tools/model-knot --max $MAX) || {
	echo "$out"
	tools/model-knot --edges | sed -n '/^  /p' | head -60
	fail "the core's knot grew past $MAX files (above: the calls inside it)"
}
echo "$out"
echo "$out" | grep -q "^largest knot: $MAX files" ||
	fail "the knot is smaller than $MAX files: lower MAX here and in docs/architecture.md"
grep -q "knot is $MAX files" docs/architecture.md || fail "docs/architecture.md does not say the knot is $MAX files"
if grep -nE 'ROLE_(CLIENT|SERVER) \? *smcr_' model/*.c; then
	fail "a role dispatched by a ternary (above): call smcr_ctx_role(ctx, role)->... instead"
fi

# the tool itself finds a knot, and no knot where calls go one way
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
printf 'void b(void);\nvoid a(void)\n{\n\tb();\n}\n' >"$TMP/a.c"
printf 'void a(void);\nvoid b(void)\n{\n\ta();\n}\n' >"$TMP/b.c"
printf 'void a(void);\nvoid c(void)\n{\n\ta();\n}\n' >"$TMP/c.c"
tools/model-knot --dir "$TMP" | grep -q '^largest knot: 2 files' || fail "model-knot misses a knot of two files"
expect_exit 1 tools/model-knot --dir "$TMP" --max 1
printf 'void a(void)\n{\n}\n' >"$TMP/b.c"
tools/model-knot --dir "$TMP" | grep -q '^largest knot: 0 files' || fail "model-knot sees a knot where calls go one way"
echo "model knot ok"
