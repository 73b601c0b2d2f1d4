/* The byte ring under TCP's buffers: FIFO use, wrap-around, writing ahead of the tail. */
#include <criterion/criterion.h>

#include <string.h>

#include "sim/net/bytering.h"

Test(bytering, fifo_across_the_wrap)
{
	bytering r;
	bytering_init(&r, 10);
	uint8_t out[10];
	cr_assert_eq(bytering_write(&r, "abcdefg", 7), 7);
	cr_assert_eq(bytering_read(&r, out, 5), 5);
	cr_assert_eq(memcmp(out, "abcde", 5), 0);
	cr_assert_eq(bytering_write(&r, "hijklmnopq", 10), 8, "only the free space");
	cr_assert_eq(bytering_len(&r), 10);
	cr_assert_eq(bytering_space(&r), 0);
	bytering_copy_out(&r, 3, out, 4);
	cr_assert_eq(memcmp(out, "ijkl", 4), 0, "copy from an offset, across the wrap");
	cr_assert_eq(bytering_read(&r, out, 10), 10);
	cr_assert_eq(memcmp(out, "fghijklmno", 10), 0);
	cr_assert_eq(bytering_read(&r, out, 1), 0);
	bytering_free(&r);
}

Test(bytering, data_written_ahead_keeps_its_place_while_the_head_drains)
{
	bytering r;
	bytering_init(&r, 8);
	bytering_write(&r, "AB", 2);
	bytering_write_ahead(&r, 2, "EF", 2); /* a gap of two, as out-of-order TCP data */
	uint8_t out[8];
	cr_assert_eq(bytering_read(&r, out, 2), 2); /* the ring is empty now */
	bytering_write_ahead(&r, 0, "CD", 2);       /* the gap is filled */
	bytering_commit(&r, 4);
	cr_assert_eq(bytering_read(&r, out, 8), 4);
	cr_assert_eq(memcmp(out, "CDEF", 4), 0);
	bytering_free(&r);
}

Test(bytering, zero_capacity_is_always_full)
{
	bytering r;
	bytering_init(&r, 0);
	cr_assert_eq(bytering_write(&r, "x", 1), 0);
	cr_assert_eq(bytering_space(&r), 0);
	bytering_free(&r);
}

Test(bytering, storage_grows_on_demand_and_keeps_bytes_written_ahead)
{
	bytering r;
	bytering_init(&r, 100000);
	cr_assert_eq(bytering_allocated(&r), 0, "nothing until bytes arrive");
	uint8_t in[5000], out[5000];
	for (size_t i = 0; i < sizeof in; i++)
		in[i] = (uint8_t)(i * 7);
	cr_assert_eq(bytering_write(&r, in, 1500), 1500);
	cr_assert_eq(bytering_allocated(&r), 2048);
	cr_assert_eq(bytering_read(&r, out, 1000), 1000); /* the head moves: content wraps next */
	cr_assert_eq(bytering_write(&r, in + 1500, 1000), 1000);
	cr_assert(bytering_write_ahead(&r, 2000, in + 4500, 500)); /* past the old storage */
	cr_assert_geq(bytering_allocated(&r), 4000);
	cr_assert(bytering_write_ahead(&r, 0, in + 2500, 2000));
	bytering_commit(&r, 2500);
	cr_assert_eq(bytering_len(&r), 4000);
	cr_assert_eq(bytering_read(&r, out, sizeof out), 4000);
	cr_assert_arr_eq(out, in + 1000, 4000);
	bytering_free(&r);
}

/* fill() and visit() see the ring's own spans: two across the wrap, in stream order. */
typedef struct spans {
	char text[32];
	size_t len;
	unsigned calls;
	const char *from; /* what fill writes next */
} spans;

static void fill_from(void *ctx, uint8_t *dst, size_t len)
{
	spans *s = ctx;
	memcpy(dst, s->from, len);
	s->from += len;
	s->calls++;
}

static void visit_into(void *ctx, const uint8_t *src, size_t len)
{
	spans *s = ctx;
	memcpy(s->text + s->len, src, len);
	s->len += len;
	s->calls++;
}

Test(bytering, fill_and_visit_work_in_place_across_the_wrap)
{
	bytering r;
	bytering_init(&r, 10);
	uint8_t out[10];
	spans f = { .from = "abcdefg" };
	cr_assert_eq(bytering_write_fill(&r, 7, fill_from, &f), 7);
	cr_assert_eq(f.calls, 1);
	cr_assert_eq(bytering_read(&r, out, 5), 5);
	f = (spans){ .from = "hijklmnopq" };
	cr_assert_eq(bytering_write_fill(&r, 10, fill_from, &f), 8, "only the free space");
	cr_assert_eq(f.calls, 2, "the free space wraps: two spans");
	cr_assert_eq(bytering_write_fill(&r, 3, fill_from, &f), 0, "full: no call");
	cr_assert_eq(f.calls, 2);
	spans v = { 0 };
	bytering_visit(&r, 9, visit_into, &v);
	cr_assert_eq(v.calls, 2);
	cr_assert_eq(v.len, 9);
	cr_assert_eq(memcmp(v.text, "fghijklmn", 9), 0, "the content in stream order, not consumed");
	cr_assert_eq(bytering_len(&r), 10);
	bytering_drop(&r, 3);
	v = (spans){ 0 };
	bytering_visit(&r, 2, visit_into, &v);
	cr_assert_eq(v.calls, 1);
	cr_assert_eq(memcmp(v.text, "ij", 2), 0);
	bytering_free(&r);
}
