# The layering of the tree.
#  - sim/ is a folder per subsystem, no source directly under sim/; the folders form the
#    DAG of sim/layers.txt (a folder includes only folders listed before it there, and
#    only the model/ headers its line names), and every folder a line names is one its
#    files include (no unused edge); docs/architecture.md shows the same table, and its
#    picture of floors puts every folder above the folders it uses.
#  - Outside model/, only model's public headers are included (its private ones are its own;
#    the index's unit test is the one exception).
#  - Only the verbs transport includes <infiniband/verbs.h>; only the real-time driver reads
#    a clock (with the exceptions named here); nothing draws system randomness.
set -eu
. tests/lib.sh
bad=0
rules=sim/layers.txt
model_public='byteorder cdc clc decode_err llc smcr smcr_err smcr_transport'

loose=$(ls sim/*.c sim/*.h 2>/dev/null || true)
if [ -n "$loose" ]; then
	echo "sources directly under sim/ (each belongs in a subsystem folder): $loose" >&2
	bad=1
fi

# the table: every folder once, each allowed folder listed above it (so it is a DAG)
seen=" "
while IFS= read -r line; do
	case "$line" in ''|'#'*) continue ;; esac
	dir=${line%%:*}
	rest=${line#*:}
	deps=${rest%%|*}
	for d in $deps; do
		case "$seen" in *" $d "*) ;; *) echo "$rules: $dir may include $d, which is not listed above it" >&2; bad=1 ;; esac
	done
	seen="$seen$dir "
	[ -d "sim/$dir" ] || { echo "$rules names sim/$dir, which does not exist" >&2; bad=1; }
done <"$rules"
for d in sim/*/; do
	d=${d#sim/}; d=${d%/}
	case "$seen" in *" $d "*) ;; *) echo "sim/$d/ has no line in $rules" >&2; bad=1 ;; esac
done

rule_of() { grep -E "^$1:" "$rules" | head -1; }
for f in sim/*/*.[ch]; do
	dir=${f#sim/}; dir=${dir%%/*}
	line=$(rule_of "$dir")
	rest=${line#*:}
	deps=" ${rest%%|*} "
	case "$rest" in *'|'*) mdeps=" ${rest#*|} " ;; *) mdeps=" " ;; esac
	for inc in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f"); do
		case "$inc" in
		sim/*/*)
			to=${inc#sim/}; to=${to%%/*}
			[ "$to" = "$dir" ] && continue
			case "$deps" in *" $to "*) ;; *) echo "$f includes $inc: $dir/ may not include $to/ ($rules)" >&2; bad=1 ;; esac ;;
		model/*)
			h=${inc#model/}; h=${h%.h}
			case "$mdeps" in *" $h "*) ;; *) echo "$f includes $inc: $dir/ may not include that model/ header ($rules)" >&2; bad=1 ;; esac ;;
		*) echo "$f includes \"$inc\": includes name their folder from the top (sim/DIR/NAME.h)" >&2; bad=1 ;;
		esac
	done
done

# every edge of the table is used: some file of the folder includes the folder it names
while IFS= read -r line; do
	case "$line" in ''|'#'*) continue ;; esac
	dir=${line%%:*}
	rest=${line#*:}
	for d in ${rest%%|*}; do
		grep -qs "^[[:space:]]*#[[:space:]]*include[[:space:]]*\"sim/$d/" sim/"$dir"/*.[ch] ||
			{ echo "$rules: $dir may include $d, but none of its files does (an unused edge: drop it)" >&2; bad=1; }
	done
done <"$rules"

# the picture of floors in docs/architecture.md: every sim/ folder on one floor, above
# every folder it may include
floors=$(sed -n 's/^floor \([0-9]*\) \{1,\}\(.*\)$/\1 \2/p' docs/architecture.md)
floor_of() { echo "$floors" | awk -v d="$1" '{ for (i = 2; i <= NF; i++) if ($i == d) print $1 }'; }
for d in sim/*/; do
	d=${d#sim/}; d=${d%/}
	f=$(floor_of "$d")
	[ "$(echo "$f" | grep -c .)" = 1 ] || { echo "docs/architecture.md: sim/$d/ is on floors '$f' of the picture (one wanted)" >&2; bad=1; continue; }
	rest=$(rule_of "$d"); rest=${rest#*:}
	for dep in ${rest%%|*}; do
		g=$(floor_of "$dep")
		[ -n "$g" ] && [ "$g" -lt "$f" ] || { echo "docs/architecture.md: $d (floor $f) uses $dep (floor ${g:-none}): not below it" >&2; bad=1; }
	done
done

# model's private headers stay in model/, but for the unit test of the core's hash index:
# a data structure with no protocol in front of it to be tested through
private_ok='tests/model/test_index.c:index_int'
for f in tools/*.[ch] $(find tests -name '*.[ch]' | LC_ALL=C sort) fuzz/*.[ch] fuzz/common/*.[ch]; do
	[ -f "$f" ] || continue
	for inc in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"model\/\([^"]*\)\.h".*/\1/p' "$f"); do
		case " $private_ok " in *" $f:$inc "*) continue ;; esac
		case " $model_public " in *" $inc "*) ;; *) echo "$f includes model/$inc.h, a private header of the core" >&2; bad=1 ;; esac
	done
done

# ... and that list is model's public headers: every model/*.h but the private *_int.h
for h in model/*.h; do
	n=${h#model/}; n=${n%.h}
	case "$n" in
	*_int) case " $model_public " in *" $n "*) echo "model_public names $h, a private header" >&2; bad=1 ;; esac ;;
	*) case " $model_public " in *" $n "*) ;; *) echo "$h is neither private (*_int.h) nor in model_public" >&2; bad=1 ;; esac ;;
	esac
done

# docs/architecture.md carries the same table (whitespace aside)
norm() { sed -e 's/[[:space:]]\{1,\}/ /g' -e 's/ *$//'; }
grep -vE '^(#|$)' "$rules" | norm >"$BUILD/layers.rules"
norm <docs/architecture.md >"$BUILD/layers.doc"
while IFS= read -r l; do
	grep -qxF "$l" "$BUILD/layers.doc" || { echo "docs/architecture.md lacks the rule line: $l" >&2; bad=1; }
done <"$BUILD/layers.rules"

src="model/*.[ch] sim/*/*.[ch] tools/*.[ch] $(find tests -name '*.[ch]' ! -path 'tests/interop/*' | LC_ALL=C sort)"
verbs=$(grep -l '^[[:space:]]*#[[:space:]]*include[[:space:]]*<infiniband/' $src || true)
if [ "$verbs" != "sim/rdma/verbs_transport.c" ]; then
	echo "files including <infiniband/...>: $verbs (only sim/rdma/verbs_transport.c may)" >&2
	bad=1
fi

# clock readers: the real-time driver; a node's per-process seed; the benchmarks' wall
# time and the progress line on a terminal go through realtime.c
clock_ok='^(sim/engine/realtime\.c|tools/cmd_node\.c)$'
clock_re='(^|[^a-z_.>])(clock_gettime|gettimeofday|time|clock|g_get_monotonic_time|g_get_real_time|g_date_time_new_now[a-z_]*|g_timer_new)\('
for f in $(grep -lE "$clock_re" sim/*/*.[ch] tools/*.[ch] tests/support/*.[ch] || true); do
	echo "$f" | grep -Eq "$clock_ok" && continue
	echo "$f reads a clock:" >&2
	grep -nE "$clock_re" "$f" >&2
	bad=1
done

rand_re='(^|[^a-z_.>])(rand|random|srand|srandom|rand_r|drand48|getrandom|arc4random|g_random_[a-z_]+)\('
if grep -nE "$rand_re" sim/*/*.[ch] tools/*.[ch] tests/support/*.[ch]; then
	echo "system randomness outside the seeded streams (sim/engine/rng.h)" >&2
	bad=1
fi
[ "$bad" = 0 ] || fail "layering rules broken"
echo "layering ok"
