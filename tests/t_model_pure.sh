# model/ is the sans-I/O protocol core: libc headers only (no sim/, GLib, verbs, sockets,
# threads or clocks), and no call that reads a clock or draws system randomness.
set -eu
. tests/lib.sh

allowed='^(model/[a-z0-9_]+\.h|stdarg\.h|stdbool\.h|stddef\.h|stdint\.h|stdio\.h|stdlib\.h|string\.h|sys/types\.h|limits\.h|inttypes\.h)$'
bad=0
for f in model/*.c model/*.h; do
	for inc in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]\([^>"]*\)[>"].*/\1/p' "$f"); do
		if ! echo "$inc" | grep -Eq "$allowed"; then
			echo "$f includes <$inc>" >&2
			bad=1
		fi
	done
done
# no clocks, sleeps, sockets or system randomness by name either
if grep -nE '(^|[^a-z_.>])(clock_gettime|gettimeofday|time|nanosleep|usleep|sleep|rand|random|srand|getrandom|socket|ibv_[a-z_]+)[[:space:]]*\(' model/*.c; then
	echo "model/ calls something it must not" >&2
	bad=1
fi
[ "$bad" = 0 ] || fail "model/ is not sans-I/O"
echo "model pure ok"
