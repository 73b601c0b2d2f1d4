/* Byte ring: at most two memcpy calls per operation, one on each side of the wrap. */
#include "sim/bytering.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

bool bytering_init(bytering *r, size_t cap)
{
	r->buf = NULL;
	r->cap = cap;
	r->head = r->len = 0;
	if (cap && !(r->buf = malloc(cap))) {
		r->cap = 0;
		return false;
	}
	return true;
}

void bytering_free(bytering *r)
{
	free(r->buf);
	r->buf = NULL;
	r->cap = r->head = r->len = 0;
}

/* Copy n bytes into the ring at absolute index pos (wrapping). */
static void copy_in(bytering *r, size_t pos, const uint8_t *src, size_t n)
{
	pos %= r->cap;
	size_t first = r->cap - pos < n ? r->cap - pos : n;
	memcpy(r->buf + pos, src, first);
	memcpy(r->buf, src + first, n - first);
}

size_t bytering_write(bytering *r, const void *src, size_t n)
{
	size_t room = bytering_space(r);
	if (n > room)
		n = room;
	if (n) {
		copy_in(r, r->head + r->len, src, n);
		r->len += n;
	}
	return n;
}

void bytering_write_ahead(bytering *r, size_t ahead, const void *src, size_t n)
{
	assert(ahead + n <= bytering_space(r));
	if (n)
		copy_in(r, r->head + r->len + ahead, src, n);
}

void bytering_commit(bytering *r, size_t n)
{
	assert(n <= bytering_space(r));
	r->len += n;
}

void bytering_copy_out(const bytering *r, size_t off, void *dst, size_t n)
{
	assert(off + n <= r->len);
	if (!n)
		return;
	size_t pos = (r->head + off) % r->cap;
	size_t first = r->cap - pos < n ? r->cap - pos : n;
	memcpy(dst, r->buf + pos, first);
	memcpy((uint8_t *)dst + first, r->buf, n - first);
}

void bytering_drop(bytering *r, size_t n)
{
	assert(n <= r->len);
	r->len -= n;
	if (n) /* the tail stays put: data written ahead of it keeps its place */
		r->head = (r->head + n) % r->cap;
}

size_t bytering_read(bytering *r, void *dst, size_t n)
{
	if (n > r->len)
		n = r->len;
	bytering_copy_out(r, 0, dst, n);
	bytering_drop(r, n);
	return n;
}
