# The layering of the tree.
#  - sim/ is a folder per subsystem, no source directly under sim/; the folders form the
#    DAG of sim/layers.txt (a folder includes only folders listed before it there, and
#    only the model/ headers its line names), and every folder a line names is one its
#    files include (no unused edge); docs/architecture.md shows the same table, and its
#    picture of floors puts every folder above the folders it uses.
#  - Outside model/, only model's public headers are included (its private ones are its own
#    and its tests').
#  - The tests mirror the source: Criterion programs in tests/model/ and tests/sim/FOLDER/
#    include what the folder they test may include (sim/layers.txt), its private headers,
#    a harness table's folders and tests/support/; shell tests sit in the folders
#    CONTRIBUTING.md describes.
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

# --- the tests mirror the source and keep its layering ----------------------------------
# A Criterion program (tests/**/test_*.c) lives in tests/model/ or in tests/sim/X/ for a
# folder X of sim/. One in tests/model/ tests the core: model/ headers (its private ones
# too: test_index tests the hash index, a data structure with no protocol in front of it)
# and tests/support/. One in tests/sim/X/ tests X: X's headers (its private *_int.h ones
# too), the public headers of the folders X may include and the model/ headers X may
# include (X's line in sim/layers.txt), the public headers of X's harness (the table
# below), and tests/support/ (the harness every test may use: two cores on a loopback,
# stacks on wires, a scenario's world). Everything else in tests/ (support, hw, interop,
# wireshark), tools/ and fuzz/ includes only public headers of sim/ and model/.
# The harness table: a folder built on X that X's tests drive X with, and why. A line
# here is an exception to the layering, so each says what the folder gives the tests.
test_harness='
net   app      TCP, IP and the sockets carry the application library'"'"'s bytes (bulk, echo, request/response), each checked against its pattern
rdma  testbed  the adapter tests run on the canned topologies sim/testbed keeps for them (two adapters on a wire, senders into one bottleneck)
'
# shell tests (tests/**/t_*.sh) live in folders by what they judge (CONTRIBUTING.md)
shell_dirs='tree cli bench scenarios captures real'

harness_of() { echo "$test_harness" | awk -v d="$1" '$1 == d { print $2 }'; }
said() { w=$(echo $1); echo "${w:-none}"; } # a list of names as it reads in a message
includes_of() { sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$1"; }

# check_test FILE PATH: the includes of FILE, a Criterion program at PATH in the tree;
# prints what breaks the rules and returns 1 if anything does
check_test() {
	ct_ok=0
	case "$2" in
	tests/model/*/*) echo "$2: tests/model/ has no sub-folders (a program per concept of the core)"; return 1 ;;
	tests/model/*) ct_scope=model ;;
	tests/sim/*/*/*) echo "$2: tests/sim/FOLDER/ has no sub-folders"; return 1 ;;
	tests/sim/*/*)
		ct_scope=${2#tests/sim/}; ct_scope=${ct_scope%%/*}
		[ -d "sim/$ct_scope" ] || { echo "$2: tests/sim/$ct_scope/ mirrors no folder of sim/"; return 1; } ;;
	*) echo "$2: a Criterion program lives in tests/model/ (the protocol core) or tests/sim/FOLDER/ (that folder of sim/)"; return 1 ;;
	esac
	if [ "$ct_scope" != model ]; then
		ct_rest=$(rule_of "$ct_scope"); ct_rest=${ct_rest#*:}
		ct_deps=" $(echo ${ct_rest%%|*}) "
		case "$ct_rest" in *'|'*) ct_mdeps=" $(echo ${ct_rest#*|}) " ;; *) ct_mdeps=" " ;; esac
		ct_harness=" $(echo $(harness_of "$ct_scope")) "
	fi
	for inc in $(includes_of "$1"); do
		case "$ct_scope:$inc" in
		*:tests/support/*) ;;
		model:model/*) ;;
		model:*) echo "$2 includes \"$inc\": a test of the core (tests/model/) includes model/ headers and tests/support/ alone"; ct_ok=1 ;;
		*:model/*)
			h=${inc#model/}; h=${h%.h}
			case "$ct_mdeps" in *" $h "*) ;; *)
				echo "$2 includes $inc: a test of sim/$ct_scope/ includes the model/ headers sim/$ct_scope/ may include ($rules: $(said "$ct_mdeps"))"; ct_ok=1 ;;
			esac ;;
		*:sim/*/*)
			to=${inc#sim/}; to=${to%%/*}
			[ "$to" = "$ct_scope" ] && continue
			case "$inc" in *_int.h)
				echo "$2 includes $inc, a private header of sim/$to/ (a test of sim/$ct_scope/ includes the private headers of its own folder alone)"; ct_ok=1; continue ;;
			esac
			case "$ct_deps$ct_harness" in *" $to "*) ;; *)
				echo "$2 includes $inc: a test of sim/$ct_scope/ includes sim/$ct_scope/, the folders it may include ($rules: $(said "$ct_deps")) and its harness (test_harness in tests/tree/t_layering.sh: $(said "$ct_harness")), not sim/$to/: move the test to the folder it tests"; ct_ok=1 ;;
			esac ;;
		*) echo "$2 includes \"$inc\": includes name their folder from the top (sim/DIR/NAME.h, model/NAME.h, tests/support/NAME.h)"; ct_ok=1 ;;
		esac
	done
	return $ct_ok
}

for f in $(find tests -name 'test_*.c' | LC_ALL=C sort); do
	check_test "$f" "$f" >&2 || bad=1
done

# the harness table: each folder it names is built on the folder it tests, and used
harness_bad=$(echo "$test_harness" | while read -r x y _; do
	[ -n "$x" ] || continue
	rest=$(rule_of "$y"); rest=${rest#*:}
	case " ${rest%%|*} " in *" $x "*) ;; *) echo "test_harness: sim/$y/ is not built on sim/$x/ (its line in $rules does not name $x)" >&2; echo x ;; esac
	grep -qs "^[[:space:]]*#[[:space:]]*include[[:space:]]*\"sim/$y/" tests/sim/"$x"/*.c ||
		{ echo "test_harness: no test in tests/sim/$x/ includes sim/$y/ (an unused line: drop it)" >&2; echo x; }
	grep -qF "| \`sim/$x/\` | \`sim/$y/\` |" CONTRIBUTING.md ||
		{ echo "CONTRIBUTING.md: the harness table lacks the row of sim/$x/ and sim/$y/" >&2; echo x; }
done)
[ -z "$harness_bad" ] || bad=1

# the rest of tests/, tools/ and fuzz/: public headers only
for f in tools/*.[ch] $(find tests -name '*.[ch]' ! -name 'test_*.c' | LC_ALL=C sort) fuzz/*.[ch] fuzz/common/*.[ch]; do
	[ -f "$f" ] || continue
	for inc in $(includes_of "$f"); do
		case "$inc" in
		model/*)
			h=${inc#model/}; h=${h%.h}
			case " $model_public " in *" $h "*) ;; *) echo "$f includes $inc, a private header of the core" >&2; bad=1 ;; esac ;;
		sim/*/*_int.h) echo "$f includes $inc, a private header of ${inc%/*}/" >&2; bad=1 ;;
		esac
	done
done

# shell tests in their folders, each folder described in CONTRIBUTING.md and docs/architecture.md
for f in $(find tests -name 't_*.sh' | LC_ALL=C sort); do
	d=${f#tests/}; d=${d%/*}
	case " $shell_dirs " in *" $d "*) ;; *) echo "$f: a shell test lives in one of the folders tests/{$(echo $shell_dirs | tr ' ' ',')}/ (CONTRIBUTING.md says which)" >&2; bad=1 ;; esac
done
for d in $shell_dirs; do
	for doc in CONTRIBUTING.md docs/architecture.md; do
		grep -q "tests/$d/" "$doc" || { echo "$doc does not describe tests/$d/" >&2; bad=1; }
	done
done

# ... and the rules catch what they are for: programs planted as if in the tree
plant=$BUILD/layering-plant.c
plant_check() { # PATH ok|bad INCLUDE...
	pc_path=$1 pc_want=$2
	shift 2
	: >"$plant"
	for i in "$@"; do echo "#include \"$i\"" >>"$plant"; done
	if check_test "$plant" "$pc_path" >"$plant.out"; then pc_got=ok; else pc_got=bad; fi
	[ "$pc_got" = "$pc_want" ] || { echo "planted $pc_path ($*): the rules say $pc_got, $pc_want wanted:" >&2; cat "$plant.out" >&2; bad=1; }
}
plant_check tests/sim/fabric/test_p.c ok sim/fabric/frame.h sim/fabric/hop_int.h sim/engine/engine.h model/byteorder.h tests/support/wire.h
plant_check tests/sim/fabric/test_p.c bad sim/world/world.h
plant_check tests/sim/fabric/test_p.c bad sim/engine/engine_int.h
plant_check tests/sim/fabric/test_p.c bad model/cdc.h
plant_check tests/sim/net/test_p.c ok sim/app/app.h
plant_check tests/sim/net/test_p.c bad sim/smc/smc_layer.h
plant_check tests/sim/rdma/test_p.c ok sim/testbed/testbed.h sim/rdma/rnic_int.h
plant_check tests/model/test_p.c ok model/smcr.h model/index_int.h tests/support/duo.h
plant_check tests/model/test_p.c bad sim/engine/rng.h
plant_check tests/test_p.c bad model/smcr.h
plant_check tests/sim/nowhere/test_p.c bad
plant_check tests/sim/net/test_p.c bad stack.h
rm -f "$plant" "$plant.out"

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
