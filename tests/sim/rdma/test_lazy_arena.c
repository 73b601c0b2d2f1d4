/* The lazy arena: page-aligned zeroed buffers in size classes, pages that cost nothing
 * until touched, idle buffers giving their pages back after their idle time (not before),
 * bytes in flight keeping them, the core's writes cancelling idleness, the longer wait of
 * buffers that keep coming back, reuse, lookups by address, few mappings for many buffers.
 * Each test runs in its own process, so each starts with an empty arena. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sim/rdma/lazy_arena.h"

static size_t resident(const void *p, size_t len)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	unsigned char vec[1024];
	cr_assert_leq(len / page, sizeof vec);
	cr_assert_eq(mincore((void *)p, len, vec), 0);
	size_t n = 0;
	for (size_t i = 0; i < (len + page - 1) / page; i++)
		n += vec[i] & 1u;
	return n * page;
}

static bool all_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

Test(lazy_arena, buffers_are_aligned_zeroed_and_cost_nothing_until_touched)
{
	uint8_t *a = lazy_arena_alloc(16384), *b = lazy_arena_alloc(10000), *c = lazy_arena_alloc(1);
	cr_assert_eq((uintptr_t)a % 4096, 0);
	cr_assert_eq((uintptr_t)b % 4096, 0);
	cr_assert_eq((uintptr_t)c % 4096, 0);
	cr_assert_eq(resident(a, 16384), 0, "untouched pages are not resident");
	memset(a + 4000, 0xAB, 1000); /* pages 0 and 1 */
	cr_assert_eq(resident(a, 16384), 8192);
	cr_assert(all_zero(a, 4000) && all_zero(b, 16384) && all_zero(c, 4096));
	lazy_arena_stats st;
	lazy_arena_stats_get(&st);
	cr_assert_eq(st.buffers, 3);
	cr_assert_eq(st.buffer_bytes, 16384 + 16384 + 4096, "power-of-two classes of at least a page");
	cr_assert_eq(lazy_arena_resident(), resident(a, 16384) + resident(b, 16384) + resident(c, 4096));
	lazy_arena_free(a);
	lazy_arena_free(b);
	lazy_arena_free(c);
	lazy_arena_stats_get(&st);
	cr_assert_eq(st.buffers, 0);
	cr_assert_eq(lazy_arena_resident(), 0, "a freed buffer gives its pages back");
}

Test(lazy_arena, a_freed_buffer_is_reused_zeroed)
{
	uint8_t *a = lazy_arena_alloc(65536);
	memset(a, 0x5A, 65536);
	lazy_arena_free(a);
	uint8_t *b = lazy_arena_alloc(65536);
	cr_assert_eq(b, a, "the slot is reused");
	cr_assert(all_zero(b, 65536));
	memset(b, 1, 100);
	lazy_arena_reset(b);
	cr_assert(all_zero(b, 65536), "reset for a new connection");
	lazy_arena_free(b);
}

Test(lazy_arena, an_idle_buffer_gives_its_pages_back_after_its_idle_time)
{
	lazy_arena_idle owner = { 0 };
	uint8_t *a = lazy_arena_alloc(16384);
	memset(a, 7, 16384);
	lazy_arena_idle_at(&owner, a, 0, 1000);
	lazy_arena_sweep(&owner, 1000 + LAZY_ARENA_IDLE_TIME - 1);
	cr_assert_eq(resident(a, 16384), 16384, "not yet");
	cr_assert_eq(a[100], 7);
	lazy_arena_sweep(&owner, 1000 + LAZY_ARENA_IDLE_TIME);
	cr_assert_eq(resident(a, 16384), 0);
	cr_assert(all_zero(a, 16384), "given back pages read as zero");
	lazy_arena_stats st;
	lazy_arena_stats_get(&st);
	cr_assert_eq(st.released, 1);
	cr_assert_eq(st.idle, 0);
	lazy_arena_free(a);
}

Test(lazy_arena, bytes_in_flight_keep_a_buffer)
{
	lazy_arena_idle owner = { 0 };
	uint8_t *rmb = lazy_arena_alloc(16384);
	lazy_arena_buf *b = lazy_arena_find(rmb + 4000);
	cr_assert_not_null(b);
	/* 100 bytes landed, the core has seen 60 of them: not idle */
	memset(rmb, 1, 100);
	lazy_arena_landed(b, 60);
	lazy_arena_landed(b, 40);
	lazy_arena_idle_at(&owner, rmb, 60, 0);
	lazy_arena_sweep(&owner, 10 * LAZY_ARENA_IDLE_TIME);
	cr_assert_eq(rmb[99], 1, "the unseen bytes are still there");
	lazy_arena_stats st;
	lazy_arena_stats_get(&st);
	cr_assert_eq(st.kept_in_flight, 1);
	/* all 100 seen: idle; then 20 more land while it waits: kept again */
	lazy_arena_idle_at(&owner, rmb, 100, 0);
	memset(rmb + 100, 2, 20);
	lazy_arena_landed(b, 20);
	lazy_arena_sweep(&owner, 10 * LAZY_ARENA_IDLE_TIME);
	cr_assert_eq(rmb[119], 2);
	lazy_arena_stats_get(&st);
	cr_assert_eq(st.released, 0);
	lazy_arena_idle_at(&owner, rmb, 120, 10 * LAZY_ARENA_IDLE_TIME);
	lazy_arena_sweep(&owner, 20 * LAZY_ARENA_IDLE_TIME);
	cr_assert_eq(rmb[119], 0, "everything seen, idle long enough: given back");
	lazy_arena_free(rmb);
}

Test(lazy_arena, the_core_writing_again_cancels_idleness)
{
	lazy_arena_idle owner = { 0 };
	uint8_t *snd = lazy_arena_alloc(16384);
	lazy_arena_idle_at(&owner, snd, 0, 0);
	lazy_arena_busy(snd, 5);
	memset(snd, 9, 50); /* corked data, not sent yet */
	lazy_arena_sweep(&owner, 10 * LAZY_ARENA_IDLE_TIME);
	cr_assert_eq(snd[49], 9);
	lazy_arena_free(snd);
}

Test(lazy_arena, a_buffer_that_keeps_coming_back_waits_longer)
{
	lazy_arena_idle owner = { 0 };
	uint8_t *p = lazy_arena_alloc(16384);
	sim_time t = 0;
	lazy_arena_idle_at(&owner, p, 0, t);
	lazy_arena_sweep(&owner, t += LAZY_ARENA_IDLE_TIME);
	lazy_arena_stats st;
	lazy_arena_stats_get(&st);
	cr_assert_eq(st.released, 1);
	/* used again right away, idle again: now it waits four times as long */
	lazy_arena_busy(p, t += 1000);
	p[0] = 1;
	lazy_arena_idle_at(&owner, p, 0, t);
	lazy_arena_sweep(&owner, t + LAZY_ARENA_IDLE_TIME);
	cr_assert_eq(p[0], 1, "not after the first idle time");
	lazy_arena_sweep(&owner, t + 4 * LAZY_ARENA_IDLE_TIME);
	cr_assert_eq(p[0], 0);
	lazy_arena_free(p);
}

Test(lazy_arena, lookups_by_address_find_only_live_buffers)
{
	uint8_t *a = lazy_arena_alloc(32768), *b = lazy_arena_alloc(32768);
	cr_assert_eq(lazy_arena_find(a)->addr, a);
	cr_assert_eq(lazy_arena_find(a + 32767)->addr, a);
	cr_assert_eq(lazy_arena_find(b + 1)->addr, b);
	static uint8_t not_arena[64];
	cr_assert_null(lazy_arena_find(not_arena));
	lazy_arena_free(b);
	cr_assert_null(lazy_arena_find(b), "a freed buffer is nobody's");
	lazy_arena_free(a);
}

static size_t mappings(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	cr_assert_not_null(f);
	size_t n = 0;
	int ch;
	while ((ch = fgetc(f)) != EOF)
		n += ch == '\n';
	fclose(f);
	return n;
}

Test(lazy_arena, a_hundred_thousand_buffers_take_a_few_mappings)
{
	enum { N = 100000 };
	static uint8_t *bufs[N];
	size_t before = mappings();
	for (int i = 0; i < N; i++) {
		bufs[i] = lazy_arena_alloc(16384);
		bufs[i][i % 16384] = 1; /* one page each */
	}
	size_t after = mappings();
	lazy_arena_stats st;
	lazy_arena_stats_get(&st);
	cr_assert_geq(st.reserved, (size_t)N * 16384);
	cr_assert_leq(after - before, st.reserved / ((size_t)32 << 20) + 8, "one mapping per chunk at most");
	cr_assert_eq(lazy_arena_resident(), (size_t)N * 4096, "one touched page per buffer");
	lazy_arena_idle owner = { 0 };
	for (int i = 0; i < N; i++)
		lazy_arena_idle_at(&owner, bufs[i], 0, 0);
	lazy_arena_sweep(&owner, LAZY_ARENA_IDLE_TIME);
	cr_assert_eq(lazy_arena_resident(), 0);
	cr_assert_leq(mappings(), after, "giving pages back splits no mapping");
	for (int i = 0; i < N; i++)
		lazy_arena_free(bufs[i]);
}
