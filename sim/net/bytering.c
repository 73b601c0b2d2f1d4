/* Byte ring: at most two memcpy calls per operation, one on each side of the wrap.
 * Growing re-lays the whole old storage from the head, so bytes written ahead of the
 * tail keep their logical offsets. */
#include "sim/net/bytering.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* enough for the CLC handshake, which is all an SMC-R connection's TCP rings ever hold: a
 * million idle connections keep four rings each */
#define BYTERING_MIN_ALLOC 512

void bytering_init(bytering *r, size_t cap)
{
	r->buf = NULL;
	r->cap = cap;
	r->alloc = r->head = r->len = 0;
}

void bytering_free(bytering *r)
{
	free(r->buf);
	r->buf = NULL;
	r->alloc = r->head = r->len = 0;
}

/* Make logical offsets [0, need) addressable. */
static bool ensure(bytering *r, size_t need)
{
	if (need <= r->alloc)
		return true;
	size_t n = r->alloc ? r->alloc : BYTERING_MIN_ALLOC;
	while (n < need)
		n *= 2;
	if (n > r->cap)
		n = r->cap;
	uint8_t *b = malloc(n);
	if (!b)
		return false;
	if (r->alloc) {
		size_t first = r->alloc - r->head;
		memcpy(b, r->buf + r->head, first);
		memcpy(b + first, r->buf, r->head);
	}
	free(r->buf);
	r->buf = b;
	r->alloc = n;
	r->head = 0;
	return true;
}

/* Where logical offset off (at most the storage) lies in buf: the head is inside it, so
 * the sum wraps at most once (a subtraction, not a division on every operation). */
static size_t index_of(const bytering *r, size_t off)
{
	size_t pos = r->head + off;
	return pos >= r->alloc ? pos - r->alloc : pos;
}

/* Copy n bytes into the ring at logical offset off from the head (wrapping). */
static void copy_in(bytering *r, size_t off, const uint8_t *src, size_t n)
{
	size_t pos = index_of(r, off);
	size_t first = r->alloc - pos < n ? r->alloc - pos : n;
	memcpy(r->buf + pos, src, first);
	memcpy(r->buf, src + first, n - first);
}

size_t bytering_write(bytering *r, const void *src, size_t n)
{
	size_t room = bytering_space(r);
	if (n > room)
		n = room;
	if (!n || !ensure(r, r->len + n))
		return 0;
	copy_in(r, r->len, src, n);
	r->len += n;
	return n;
}

size_t bytering_write_fill(bytering *r, size_t n, bytering_fill_fn fill, void *ctx)
{
	size_t room = bytering_space(r);
	if (n > room)
		n = room;
	if (!n || !ensure(r, r->len + n))
		return 0;
	size_t pos = index_of(r, r->len);
	size_t first = r->alloc - pos < n ? r->alloc - pos : n;
	fill(ctx, r->buf + pos, first);
	if (n > first)
		fill(ctx, r->buf, n - first);
	r->len += n;
	return n;
}

bool bytering_write_ahead(bytering *r, size_t ahead, const void *src, size_t n)
{
	assert(ahead + n <= bytering_space(r));
	if (!n)
		return true;
	if (!ensure(r, r->len + ahead + n))
		return false;
	copy_in(r, r->len + ahead, src, n);
	return true;
}

void bytering_commit(bytering *r, size_t n)
{
	assert(r->len + n <= r->alloc || !n);
	r->len += n;
}

void bytering_copy_out(const bytering *r, size_t off, void *dst, size_t n)
{
	assert(off + n <= r->len);
	if (!n)
		return;
	size_t pos = index_of(r, off);
	size_t first = r->alloc - pos < n ? r->alloc - pos : n;
	memcpy(dst, r->buf + pos, first);
	memcpy((uint8_t *)dst + first, r->buf, n - first);
}

void bytering_visit(const bytering *r, size_t n, bytering_visit_fn visit, void *ctx)
{
	assert(n <= r->len);
	if (!n)
		return;
	size_t first = r->alloc - r->head < n ? r->alloc - r->head : n;
	visit(ctx, r->buf + r->head, first);
	if (n > first)
		visit(ctx, r->buf, n - first);
}

void bytering_drop(bytering *r, size_t n)
{
	assert(n <= r->len);
	r->len -= n;
	if (n) /* the tail stays put: data written ahead of it keeps its place */
		r->head = index_of(r, n);
}

size_t bytering_read(bytering *r, void *dst, size_t n)
{
	if (n > r->len)
		n = r->len;
	bytering_copy_out(r, 0, dst, n);
	bytering_drop(r, n);
	return n;
}
