# model/ is the sans-I/O protocol core: libc headers only (no sim/, GLib, verbs, sockets,
# threads or clocks), every header compiling on its own, no call that reads a clock or
# draws system randomness, and the built library links against nothing but memory, string
# and formatting functions.
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
# Every header stands alone: it includes what it needs itself (a .c can then include just
# the headers of the concepts it uses, in any order), and compiles with the core's flags.
for h in model/*.h; do
	if ! echo "#include \"$h\"" | ${CC:-cc} -std=gnu11 -Wall -Wextra -Wshadow -Wconversion \
		-Wno-sign-conversion -Wmissing-prototypes -Wstrict-prototypes -Werror -I. \
		-x c -fsyntax-only - 2>"$BUILD/model-header.err"; then
		echo "$h does not compile on its own:" >&2
		cat "$BUILD/model-header.err" >&2
		bad=1
	fi
done
# What the built core links against, whatever header or macro it came through: memory,
# strings and formatting into buffers; nothing that reads a clock, does I/O or draws
# randomness. (Compiler and sanitizer runtime symbols are not the core's.)
lib="$BUILD/libsmcr-model.a"
[ -f "$lib" ] || fail "$lib is not built"
libc_ok='^(malloc|calloc|realloc|free|abort|memcpy|memmove|memset|memcmp|memchr|strlen|strnlen|strcmp|strncmp|strchr|strrchr|strstr|snprintf|vsnprintf)$'
runtime='^(_GLOBAL_OFFSET_TABLE_|__stack_chk_fail|__asan_.*|__ubsan_.*|__sanitizer_.*|__(memcpy|memmove|memset|snprintf|vsnprintf)_chk)$'
nm --defined-only "$lib" 2>/dev/null | awk 'NF == 3 { print $3 }' | sort -u > "$BUILD/model-defined.txt"
for sym in $(nm -u "$lib" | awk 'NF == 2 { print $2 }' | sort -u | grep -vxF -f "$BUILD/model-defined.txt"); do
	if ! echo "$sym" | grep -Eq "$libc_ok|$runtime"; then
		echo "libsmcr-model.a uses $sym" >&2
		bad=1
	fi
done
[ "$bad" = 0 ] || fail "model/ is not sans-I/O"
echo "model pure ok"
