# The layering rules outside model/ (t_model_pure.sh judges model/): only the verbs
# transport includes <infiniband/verbs.h>; only the real-time driver reads a clock, with
# the exceptions named here; nothing draws system randomness (seeded streams only).
set -eu
. tests/lib.sh

src="model/*.[ch] sim/*.[ch] tools/*.[ch] tests/*.c tests/support/*.[ch] tests/hw/*.c"
bad=0

verbs=$(grep -l '^[[:space:]]*#[[:space:]]*include[[:space:]]*<infiniband/' $src || true)
if [ "$verbs" != "sim/verbs_transport.c" ]; then
	echo "files including <infiniband/...>: $verbs (only sim/verbs_transport.c may)" >&2
	bad=1
fi

# clock readers: the real-time driver; a node's per-process seed; the benchmarks' wall
# time and the progress line on a terminal go through realtime.c
clock_ok='^(sim/realtime\.c|tools/cmd_node\.c)$'
clock_re='(^|[^a-z_.>])(clock_gettime|gettimeofday|time|clock|g_get_monotonic_time|g_get_real_time|g_date_time_new_now[a-z_]*|g_timer_new)\('
for f in $(grep -lE "$clock_re" sim/*.[ch] tools/*.[ch] tests/support/*.[ch] || true); do
	echo "$f" | grep -Eq "$clock_ok" && continue
	echo "$f reads a clock:" >&2
	grep -nE "$clock_re" "$f" >&2
	bad=1
done

rand_re='(^|[^a-z_.>])(rand|random|srand|srandom|rand_r|drand48|getrandom|arc4random|g_random_[a-z_]+)\('
if grep -nE "$rand_re" sim/*.[ch] tools/*.[ch] tests/support/*.[ch]; then
	echo "system randomness outside the seeded streams (sim/rng.h)" >&2
	bad=1
fi
[ "$bad" = 0 ] || fail "layering rules broken"
echo "layering ok"
