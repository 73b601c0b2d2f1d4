# docs/tutorial.md runs as printed: every ```sh block is run, in order, in one scratch
# directory that sees the source tree's scenarios/, tests/ and traces/, with smcr-sim on
# the PATH; a block followed by a ```text block must print exactly that. The pandas block
# needs python3-pandas: installed here as make check installs other Debian packages
# (tools/install-deps --tutorial, as root), else the test says why it skips.
set -eu
. tests/lib.sh

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
ROOT=$(pwd)

# a python3 with pandas (pyenv's shim may not see Debian's packages)
pandas_python() {
	for p in python3 /usr/bin/python3; do
		if command -v "$p" >/dev/null && "$p" -c 'import pandas' 2>/dev/null; then
			command -v "$p"
			return 0
		fi
	done
	return 1
}
if ! py=$(pandas_python); then
	if [ "$(id -u)" = 0 ]; then
		tools/install-deps --tutorial >&2 || fail "tools/install-deps --tutorial failed"
	fi
	py=$(pandas_python) || { echo "python3-pandas is not installed (tools/install-deps --tutorial as root installs it)"; exit 77; }
fi
mkdir "$TMP/bin" "$TMP/work"
ln -s "$(cd "$(dirname "$SMCR_SIM")" && pwd)/$(basename "$SMCR_SIM")" "$TMP/bin/smcr-sim"
ln -s "$py" "$TMP/bin/python3"
for d in scenarios tests traces; do ln -s "$ROOT/$d" "$TMP/work/$d"; done

# the blocks: N.sh (a command block) and N.want (the output block after it, if any)
python3 - docs/tutorial.md "$TMP/blocks" <<'EOF'
import os, sys
text = open(sys.argv[1]).read().split("\n")
out = sys.argv[2]
os.makedirs(out)
blocks, i = [], 0
while i < len(text):
    if text[i].startswith("```"):
        kind, body = text[i][3:].strip(), []
        i += 1
        while not text[i].startswith("```"):
            body.append(text[i])
            i += 1
        blocks.append((kind, "\n".join(body) + "\n"))
    i += 1
n = 0
for k, (kind, body) in enumerate(blocks):
    if kind != "sh":
        continue
    n += 1
    open("%s/%02d.sh" % (out, n), "w").write(body)
    if k + 1 < len(blocks) and blocks[k + 1][0] == "text":
        open("%s/%02d.want" % (out, n), "w").write(blocks[k + 1][1])
sys.stderr.write("%d command blocks\n" % n)
EOF
ran=0
for b in "$TMP"/blocks/*.sh; do
	n=$(basename "$b" .sh)
	set +e
	(cd "$TMP/work" && PATH="$TMP/bin:$PATH" bash -e "$b") >"$TMP/blocks/$n.got" 2>"$TMP/blocks/$n.err"
	rc=$?
	set -e
	[ "$rc" = 0 ] || fail "tutorial block $n exited $rc: $(cat "$b") -- $(head -5 "$TMP/blocks/$n.err")"
	if [ -f "$TMP/blocks/$n.want" ]; then
		diff -u "$TMP/blocks/$n.want" "$TMP/blocks/$n.got" >"$TMP/blocks/$n.diff" ||
			fail "tutorial block $n prints something else: $(cat "$b")$(cat "$TMP/blocks/$n.diff")"
	fi
	ran=$((ran + 1))
done
[ "$ran" -ge 8 ] || fail "only $ran blocks in docs/tutorial.md"
echo "tutorial ok: $ran blocks ran as printed"
