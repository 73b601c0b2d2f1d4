/* The buffer hooks of the core's allocator (smcr_mem buf_alloc/free/reset/idle): RMBs and
 * send buffers come from the host, the host hears when their bytes are no longer needed
 * (with what the peer wrote) and before a send buffer it was told about is written again,
 * and reused buffers are reset instead of rewritten with zeros. */
#include <criterion/criterion.h>
#include <stdint.h>

#include "tests/support/duo.h"

static bool up(void *arg)
{
	duo_conn *c = arg;
	return c->established && c->peer->established;
}

static bool streamed(void *arg) { return duo_stream_done(arg); }

static bool both_freed(void *arg)
{
	duo_conn *c = arg;
	return c->freed && c->peer->freed;
}

static size_t count(const duo_host *h, duo_buf_call_kind kind, const void *ptr)
{
	size_t n = 0;
	for (size_t i = 0; i < h->n_buf_calls && i < DUO_MAX_BUF_CALLS; i++)
		n += h->buf_calls[i].kind == kind && (!ptr || h->buf_calls[i].ptr == ptr);
	return n;
}

/* The last call of `kind` on ptr, or NULL. */
static const duo_buf_call *last(const duo_host *h, duo_buf_call_kind kind, const void *ptr)
{
	for (size_t i = h->n_buf_calls < DUO_MAX_BUF_CALLS ? h->n_buf_calls : DUO_MAX_BUF_CALLS; i-- > 0;)
		if (h->buf_calls[i].kind == kind && h->buf_calls[i].ptr == ptr)
			return &h->buf_calls[i];
	return NULL;
}

/* The buffers a host allocated: [0] its send buffer, [1] its RMB (allocated in that order). */
static void bufs_of(const duo_host *h, void *out[2])
{
	size_t k = 0;
	for (size_t i = 0; i < h->n_buf_calls && k < 2; i++)
		if (h->buf_calls[i].kind == DUO_BUF_ALLOC)
			out[k++] = h->buf_calls[i].ptr;
	cr_assert_eq(k, 2);
}

static void stream(duo *d, duo_conn *c, uint64_t bytes)
{
	duo_stream(c, bytes);
	cr_assert(duo_run_until(d, streamed, c, 10 * SMCR_S));
	cr_assert_not(c->peer->rx_bad);
	duo_run(d, duo_now(d) + 10 * SMCR_MS); /* the last CDC completions */
}

Test(buf_hooks, buffers_come_from_the_host_and_it_hears_when_their_bytes_are_done)
{
	duo_opts o;
	duo_opts_default(&o);
	o.buf_hooks[0] = o.buf_hooks[1] = true;
	duo *d = duo_new(&o);
	duo_conn *c = duo_connect(d, 0);
	cr_assert(duo_run_until(d, up, c, 10 * SMCR_S));
	duo_host *cl = &d->h[0], *sv = &d->h[1];
	void *cb[2], *sb[2];
	bufs_of(cl, cb);
	bufs_of(sv, sb);
	for (int i = 0; i < 2; i++) {
		cr_assert_eq((uintptr_t)cb[i] % 4096, 0, "the host's page-aligned memory");
		cr_assert_eq(cl->buf_calls[i].size, 65536);
	}
	smcr_stats st;
	smcr_ctx_get_stats(cl->ctx, &st);
	cr_assert_geq(st.mem_bytes, 2 * 65536, "buffers are counted in mem_bytes");

	/* 1000 bytes: the server's RMB drains with 1000 bytes from the peer, the client's
	 * send buffer once they are confirmed */
	stream(d, c, 1000);
	const duo_buf_call *rmb_idle = last(sv, DUO_BUF_IDLE, sb[1]);
	cr_assert_not_null(rmb_idle);
	cr_assert_eq(rmb_idle->peer_bytes, 1000);
	const duo_buf_call *snd_idle = last(cl, DUO_BUF_IDLE, cb[0]);
	cr_assert_not_null(snd_idle);
	cr_assert_eq(snd_idle->peer_bytes, 0, "nobody but the core writes a send buffer");
	cr_assert_eq(count(cl, DUO_BUF_BUSY, cb[0]), 0);

	/* writing into a send buffer the host was told about: it hears first */
	size_t before = cl->n_buf_calls;
	stream(d, c, 200000); /* more than the buffers hold: several rounds */
	cr_assert_eq(cl->buf_calls[before].kind, DUO_BUF_BUSY, "busy before the first write");
	cr_assert_eq(cl->buf_calls[before].ptr, cb[0]);
	cr_assert_eq(last(sv, DUO_BUF_IDLE, sb[1])->peer_bytes, 201000);
	cr_assert_not_null(last(cl, DUO_BUF_IDLE, cb[0]));
	cr_assert_eq(count(cl, DUO_BUF_ALLOC, NULL), 2, "no buffer allocated while streaming");

	/* a second connection reuses the freed buffers: reset, not allocated again */
	smcr_conn_close(c->c, duo_now(d));
	smcr_conn_close(c->peer->c, duo_now(d));
	duo_sync(d);
	cr_assert(duo_run_until(d, both_freed, c, 5 * SMCR_S));
	cr_assert_eq(last(sv, DUO_BUF_IDLE, sb[1])->peer_bytes, 201000, "an RMB without a connection is idle");
	duo_conn *c2 = duo_connect(d, 0);
	cr_assert(duo_run_until(d, up, c2, 10 * SMCR_S));
	cr_assert_eq(count(cl, DUO_BUF_ALLOC, NULL), 2);
	cr_assert_eq(count(sv, DUO_BUF_ALLOC, NULL), 2);
	for (int i = 0; i < 2; i++) {
		cr_assert_eq(count(cl, DUO_BUF_RESET, cb[i]), 1);
		cr_assert_eq(count(sv, DUO_BUF_RESET, sb[i]), 1);
	}
	/* counting starts again with the new connection */
	stream(d, c2, 3000);
	cr_assert_eq(last(sv, DUO_BUF_IDLE, sb[1])->peer_bytes, 3000);
	cr_assert_lt(cl->n_buf_calls, DUO_MAX_BUF_CALLS, "the record is complete");
	duo_free(d); /* ASan checks that every buffer went back through buf_free */
}

/* buf_write: before every write into a send buffer, the range it writes; the ranges go
 * round the ring in order and add up to what was sent. */
Test(buf_hooks, the_host_hears_of_every_send_buffer_range_before_it_is_written)
{
	duo_opts o;
	duo_opts_default(&o);
	o.buf_hooks[0] = o.buf_hooks[1] = true;
	o.buf_write[0] = true;
	duo *d = duo_new(&o);
	duo_conn *c = duo_connect(d, 0);
	cr_assert(duo_run_until(d, up, c, 10 * SMCR_S));
	duo_host *cl = &d->h[0];
	void *cb[2];
	bufs_of(cl, cb);
	stream(d, c, 300000); /* round the 64 KiB ring more than four times */
	cr_assert_eq(cl->write_bytes, 300000);
	cr_assert_lt(cl->n_writes, DUO_MAX_BUF_CALLS);
	cr_assert_gt(cl->n_writes, 4);
	const uint8_t *base = cb[0];
	size_t at = 0;
	for (size_t i = 0; i < cl->n_writes; i++) {
		const uint8_t *p = cl->write_ptr[i];
		cr_assert_eq((size_t)(p - base), at, "write %zu starts where the last one ended", i);
		cr_assert_leq(at + cl->write_size[i], 65536, "inside the send buffer");
		at = (at + cl->write_size[i]) % 65536;
	}
	cr_assert_eq(d->h[1].n_writes, 0, "a host without the hook hears nothing");
	duo_free(d);
}

Test(buf_hooks, without_hooks_the_host_hears_nothing)
{
	duo_opts o;
	duo_opts_default(&o);
	o.buf_hooks[1] = true;
	duo *d = duo_new(&o);
	duo_conn *c = duo_connect(d, 0);
	cr_assert(duo_run_until(d, up, c, 10 * SMCR_S));
	stream(d, c, 5000);
	cr_assert_eq(d->h[0].n_buf_calls, 0);
	cr_assert_gt(d->h[1].n_buf_calls, 0);
	duo_free(d);
}
