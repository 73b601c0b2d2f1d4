# docs/hosts.md's profile table says what sim/host/host_profile.c holds: every field of the
# `host` statement, with the values `check --defaults` prints for linux and zos.
set -eu
. tests/lib.sh
doc=docs/hosts.md
defs=$("$SMCR_SIM" check --defaults | grep '^host ')
n=0
while IFS= read -r line; do
	key=$(printf '%s\n' "$line" | cut -c13-24 | sed 's/ *$//')
	zos=$(printf '%s\n' "$line" | cut -c26-55 | sed 's/ *$//')
	lx=$(printf '%s\n' "$line" | cut -c57-86 | sed 's/ *$//')
	row=$(grep "^| \`$key\` |" "$doc" | head -1) || fail "$doc has no row for host field $key"
	dlx=$(printf '%s\n' "$row" | awk -F' \\| ' '{print $3}')
	dzos=$(printf '%s\n' "$row" | awk -F' \\| ' '{print $4}')
	[ "$dlx" = "$lx" ] || fail "$doc: $key for linux is '$dlx', the code has '$lx'"
	[ "$dzos" = "$zos" ] || fail "$doc: $key for zos is '$dzos', the code has '$zos'"
	n=$((n + 1))
done <<EOF2
$defs
EOF2
rows=$(grep -c '^| `[a-z]*` |' "$doc")
[ "$rows" -eq "$n" ] || fail "$doc lists $rows host fields, the code has $n"
echo "hosts doc ok: $n fields"
