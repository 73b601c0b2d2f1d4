/* The data path between two cores: RDMA WRITE + CDC, cursors with wrap, window handling,
 * consumer-cursor updates, urgent data, many connections on one link. */
#include <criterion/criterion.h>
#include <string.h>

#include "tests/support/duo.h"

static bool up(void *arg)
{
	duo_conn *c = arg;
	return c->established && c->peer->established;
}

static bool streamed(void *arg) { return duo_stream_done(arg); }

static duo *setup_with(duo_opts *o, duo_conn **out)
{
	duo *d = duo_new(o);
	duo_conn *c = duo_connect(d, 0);
	cr_assert(duo_run_until(d, up, c, 10 * SMCR_S));
	*out = c;
	return d;
}

static duo *setup(duo_conn **out)
{
	duo_opts o;
	duo_opts_default(&o);
	return setup_with(&o, out);
}

static void expect_intact(duo *d, duo_conn *c, uint64_t limit)
{
	cr_assert(duo_run_until(d, streamed, c, limit), "sent %llu of %llu, received %llu",
	          (unsigned long long)c->tx_done, (unsigned long long)c->tx_total,
	          (unsigned long long)c->peer->rx_done);
	cr_assert_not(c->peer->rx_bad, "corrupt at byte %llu", (unsigned long long)c->peer->rx_bad_at);
	cr_assert_eq(c->peer->rx_done, c->tx_total);
}

Test(data, one_mib_client_to_server_arrives_intact)
{
	duo_conn *c;
	duo *d = setup(&c);
	duo_stream(c, 1 << 20);
	expect_intact(d, c, 10 * SMCR_S);
	smcr_conn_info i;
	smcr_conn_get_info(c->c, &i);
	cr_assert_eq(i.bytes_sent, 1 << 20);
	/* 1 MiB through a 64 KiB RMBE: the producer cursor wrapped 16 times */
	cr_assert_eq(i.tx_prod.wrap, 16);
	cr_assert_eq(i.tx_prod.count, 0);
	duo_free(d);
}

Test(data, hundred_mib_server_to_client_arrives_intact)
{
	duo_conn *c;
	duo *d = setup(&c);
	duo_stream(c->peer, 100ull << 20);
	expect_intact(d, c->peer, 60 * SMCR_S);
	duo_free(d);
}

Test(data, both_directions_at_once)
{
	duo_conn *c;
	duo *d = setup(&c);
	duo_stream(c, 3 << 20);
	duo_stream(c->peer, 5 << 20);
	expect_intact(d, c, 20 * SMCR_S);
	expect_intact(d, c->peer, 20 * SMCR_S);
	duo_free(d);
}

Test(data, odd_write_sizes_cross_both_ring_ends)
{
	duo_conn *c;
	duo *d = setup(&c);
	c->tx_chunk = 1237;
	duo_stream(c, 3 * 65536 + 17);
	expect_intact(d, c, 20 * SMCR_S);
	duo_free(d);
}

/* One run of the odd-size stream both ways; what the connection and the engine saw. */
static void odd_stream(bool in_place, smcr_conn_info *tx, smcr_conn_info *rx, uint64_t *fp,
                       uint64_t *spans)
{
	duo_conn *c;
	duo *d = setup(&c);
	c->tx_chunk = 1237;
	c->in_place = c->peer->in_place = in_place;
	duo_stream(c, 3 * 65536 + 17);
	expect_intact(d, c, 20 * SMCR_S);
	cr_assert_eq(c->in_place_bad + c->peer->in_place_bad, 0);
	smcr_conn_get_info(c->c, tx);
	smcr_conn_get_info(c->peer->c, rx);
	*fp = sim_engine_fingerprint(d->eng);
	*spans = c->in_place_spans + c->peer->in_place_spans;
	duo_free(d);
}

Test(data, in_place_writing_and_reading_match_the_copies)
{
	smcr_conn_info tx0, rx0, tx1, rx1;
	uint64_t fp0, fp1, spans0, spans1;
	odd_stream(false, &tx0, &rx0, &fp0, &spans0);
	odd_stream(true, &tx1, &rx1, &fp1, &spans1);
	cr_assert_eq(spans0, 0);
	/* every write handed out a span (1237 bytes each), the reads theirs on top */
	cr_assert_gt(spans1, (3 * 65536 + 17) / 1237 + 1);
	cr_assert_eq(tx1.bytes_sent, tx0.bytes_sent);
	cr_assert_eq(rx1.bytes_received, rx0.bytes_received);
	cr_assert_eq(tx1.tx_prod.wrap, tx0.tx_prod.wrap);
	cr_assert_eq(tx1.tx_prod.count, tx0.tx_prod.count);
	cr_assert_eq(fp1, fp0, "the same events, times and frames either way");
}

static bool blocked(void *arg)
{
	duo_conn *c = arg;
	return c->peer->readable_calls > 0 && smcr_conn_readable(c->peer->c) == 65536 &&
	       smcr_conn_writable(c->c) < 65536;
}

Test(data, window_exhaustion_blocks_the_writer_until_the_reader_consumes)
{
	duo_conn *c;
	duo *d = setup(&c);
	c->peer->auto_read = false;
	duo_stream(c, 200000);
	cr_assert(duo_run_until(d, blocked, c, 5 * SMCR_S));
	/* the peer RMBE is full, the send buffer holds the rest, nothing more goes */
	smcr_conn_info i;
	smcr_conn_get_info(c->c, &i);
	cr_assert_eq(i.peer_rmbe_space, 0);
	cr_assert(i.tx_prod_flags & SMCR_CDC_WRITE_BLOCKED);
	cr_assert_lt(c->tx_done, 200000);
	smcr_conn_get_info(c->peer->c, &i);
	cr_assert(i.rx_prod_flags & SMCR_CDC_WRITE_BLOCKED);
	duo_run(d, duo_now(d) + SMCR_S);
	cr_assert_eq(smcr_conn_readable(c->peer->c), 65536);
	/* reading frees the window; the consumer update lets the writer go on */
	c->peer->auto_read = true;
	duo_read_all(c->peer);
	duo_sync(d);
	expect_intact(d, c, 10 * SMCR_S);
	duo_free(d);
}

Test(data, consumer_updates_follow_the_linux_policy)
{
	duo_conn *c;
	duo *d = setup(&c);
	/* 1000 bytes: far below RMBE/2 and the 2304-byte update limit: the reader does
	 * not send a CDC for its consumer cursor */
	c->peer->auto_read = true;
	duo_stream(c, 1000);
	expect_intact(d, c, SMCR_S);
	duo_run(d, duo_now(d) + SMCR_S);
	smcr_conn_info r;
	smcr_conn_get_info(c->c, &r);
	cr_assert_eq(r.tx_cons.count, 0, "peer consumer cursor %u", r.tx_cons.count);
	/* 40000 more: once the sender's free space falls to half the RMBE, the reader
	 * reports; what is left below the limit stays unconfirmed */
	duo_stream(c, 40000);
	expect_intact(d, c, SMCR_S);
	duo_run(d, duo_now(d) + SMCR_S);
	smcr_conn_get_info(c->c, &r);
	cr_assert_geq(r.tx_cons.count, 32768, "peer consumer cursor %u", r.tx_cons.count);
	cr_assert_leq(r.tx_cons.count, 41000);
	smcr_conn_info w;
	smcr_conn_get_info(c->peer->c, &w);
	cr_assert_eq(w.rx_cons.count, 41000);
	uint32_t unconfirmed = w.rx_cons.count - r.tx_cons.count;
	uint32_t sender_free = 65536 - unconfirmed;
	cr_assert(unconfirmed <= 2304 || sender_free > 32768);
	duo_free(d);
}

static void small_bufs(duo_opts *o)
{
	o->set[0].rmb_size = 16384;
	o->set[0].sndbuf_size = 16384;
	o->set[1].rmb_size = 32768;
	o->set[1].sndbuf_size = 16384;
}

Test(data, different_buffer_sizes_on_each_side)
{
	duo_opts o;
	duo_opts_default(&o);
	small_bufs(&o);
	duo_conn *c;
	duo *d = setup_with(&o, &c);
	smcr_conn_info i;
	smcr_conn_get_info(c->c, &i);
	cr_assert_eq(i.rmbe_size, 16384);
	cr_assert_eq(i.peer_rmbe_size, 32768);
	duo_stream(c, 777777);
	duo_stream(c->peer, 555555);
	expect_intact(d, c, 20 * SMCR_S);
	expect_intact(d, c->peer, 20 * SMCR_S);
	duo_free(d);
}

typedef struct many {
	duo_conn *c[32];
	int n;
} many;

static bool all_up(void *arg)
{
	many *m = arg;
	for (int i = 0; i < m->n; i++)
		if (!up(m->c[i]))
			return false;
	return true;
}

static bool all_streamed(void *arg)
{
	many *m = arg;
	for (int i = 0; i < m->n; i++)
		if (!duo_stream_done(m->c[i]))
			return false;
	return true;
}

Test(data, thirty_two_connections_share_one_link_and_its_sixteen_send_slots)
{
	duo_opts o;
	duo_opts_default(&o);
	duo *d = duo_new(&o);
	many m = { .n = 32 };
	for (int i = 0; i < m.n; i++)
		m.c[i] = duo_connect(d, i % 2);
	cr_assert(duo_run_until(d, all_up, &m, 60 * SMCR_S));
	/* one lgr per role: host 0 is client of one and server of the other */
	cr_assert_eq(duo_lgr_count(d, 0), 2);
	cr_assert_eq(duo_link_count(d, 0, SMCR_LNK_ACTIVE), 2);
	for (int i = 0; i < m.n; i++)
		duo_stream(m.c[i], 300000 + (uint64_t)i * 1000);
	cr_assert(duo_run_until(d, all_streamed, &m, 60 * SMCR_S));
	for (int i = 0; i < m.n; i++)
		cr_assert_not(m.c[i]->peer->rx_bad, "connection %d corrupt", i);
	duo_free(d);
}

Test(data, urgent_byte_is_delivered_out_of_band)
{
	duo_conn *c;
	duo *d = setup(&c);
	c->peer->auto_read = false;
	const uint8_t msg[] = { 'a', 'b', 'c', '!' };
	cr_assert_eq(smcr_conn_send(c->c, msg, 4, SMCR_MSG_OOB, duo_now(d)), 4);
	duo_run(d, duo_now(d) + 10 * SMCR_MS);
	smcr_stats st;
	smcr_ctx_get_stats(d->h[1].ctx, &st);
	cr_assert_eq(st.urg_rx_cnt, 1);
	uint8_t b = 0;
	cr_assert_eq(smcr_conn_recv(c->peer->c, &b, 1, SMCR_MSG_OOB, duo_now(d)), 1);
	cr_assert_eq(b, '!');
	/* the stream holds the other three bytes; the urgent one is skipped */
	uint8_t buf[8];
	cr_assert_eq(smcr_conn_recv(c->peer->c, buf, sizeof(buf), 0, duo_now(d)), 3);
	cr_assert_eq(memcmp(buf, "abc", 3), 0);
	duo_sync(d);
	duo_run(d, duo_now(d) + 10 * SMCR_MS);
	/* once consumed, the sender may write again */
	cr_assert_eq(smcr_conn_send(c->c, msg, 1, 0, duo_now(d)), 1);
	duo_free(d);
}

/* SIOCATMARK (Linux smc_ioctl): with the urgent byte inline, a reader is at the mark once
 * it has read what came before the urgent byte, and past it once it read that byte. */
Test(data, at_urgent_mark_while_the_urgent_byte_is_the_next_to_read)
{
	duo_opts o;
	duo_opts_default(&o);
	o.set[1].oob_inline = true;
	duo_conn *c;
	duo *d = setup_with(&o, &c);
	c->peer->auto_read = false;
	cr_assert_not(smcr_conn_at_urgent_mark(c->peer->c));
	const uint8_t msg[] = { 'a', 'b', 'c', '!' };
	cr_assert_eq(smcr_conn_send(c->c, msg, 4, SMCR_MSG_OOB, duo_now(d)), 4);
	duo_run(d, duo_now(d) + 10 * SMCR_MS);
	cr_assert_eq(smcr_conn_readable(c->peer->c), 4);
	cr_assert_not(smcr_conn_at_urgent_mark(c->peer->c), "three bytes come before the mark");
	uint8_t buf[8];
	cr_assert_eq(smcr_conn_recv(c->peer->c, buf, 3, 0, duo_now(d)), 3);
	cr_assert_eq(memcmp(buf, "abc", 3), 0);
	cr_assert(smcr_conn_at_urgent_mark(c->peer->c));
	cr_assert_eq(smcr_conn_recv(c->peer->c, buf, sizeof(buf), 0, duo_now(d)), 1);
	cr_assert_eq(buf[0], '!');
	cr_assert_not(smcr_conn_at_urgent_mark(c->peer->c));
	duo_free(d);
}

Test(data, data_sent_before_the_server_reads_the_confirm_is_not_lost)
{
	duo_conn *c;
	duo *d = setup(&c);
	/* a second connection reuses the lgr: the client is established when it sends its
	 * Confirm, and its first data (RDMA, 2 us) beats the Confirm (TCP, 10 us) */
	d->tcp_latency = 200 * 1000; /* a slow TCP path makes the race certain */
	duo_conn *c2 = duo_connect(d, 0);
	c2->tx_total = 300000;
	c2->peer->rx_total = 300000;
	cr_assert(duo_run_until(d, streamed, c2, 10 * SMCR_S));
	cr_assert_not(c2->peer->rx_bad);
	duo_free(d);
}

/* Corking as Linux's smc_tx_should_cork(): TCP_CORK and MSG_MORE hold what is written
 * while the send buffer has room; uncorking pushes it and counts (cork_cnt), turning
 * Nagle off pushes and counts (ndly_cnt). tx_sent is what went to RDMA WRITEs. */
static uint32_t sent_count(duo_conn *c)
{
	smcr_conn_info i;
	smcr_conn_get_info(c->c, &i);
	return i.tx_sent.count;
}

Test(data, tcp_cork_holds_until_uncorked_and_counts)
{
	duo_conn *c;
	duo *d = setup(&c);
	c->peer->auto_read = false;
	static uint8_t buf[3000];
	cr_assert_eq(smcr_conn_set_cork(c->c, true, duo_now(d)), 0);
	cr_assert_eq(smcr_conn_send(c->c, buf, 1000, 0, duo_now(d)), 1000);
	cr_assert_eq(smcr_conn_send(c->c, buf, 1000, 0, duo_now(d)), 1000);
	cr_assert_eq(sent_count(c), 0, "corked: nothing written");
	duo_run(d, duo_now(d) + SMCR_S);
	cr_assert_eq(smcr_conn_readable(c->peer->c), 0);
	cr_assert_eq(smcr_conn_set_cork(c->c, false, duo_now(d)), 0);
	cr_assert_eq(sent_count(c), 2000, "uncorked: pushed");
	duo_run(d, duo_now(d) + SMCR_S);
	cr_assert_eq(smcr_conn_readable(c->peer->c), 2000);
	cr_assert_eq(smcr_conn_set_nodelay(c->c, true, duo_now(d)), 0);
	smcr_stats st;
	smcr_ctx_get_stats(d->h[0].ctx, &st);
	cr_assert_eq(st.cork_cnt, 1);
	cr_assert_eq(st.ndly_cnt, 1);
	duo_free(d);
}

Test(data, msg_more_holds_until_a_send_without_it)
{
	duo_conn *c;
	duo *d = setup(&c);
	c->peer->auto_read = false;
	static uint8_t buf[3000];
	cr_assert_eq(smcr_conn_send(c->c, buf, 1000, SMCR_MSG_MORE, duo_now(d)), 1000);
	cr_assert_eq(sent_count(c), 0, "MSG_MORE: held");
	cr_assert_eq(smcr_conn_send(c->c, buf, 500, 0, duo_now(d)), 500);
	cr_assert_eq(sent_count(c), 1500, "the last piece pushes both");
	duo_run(d, duo_now(d) + SMCR_S);
	cr_assert_eq(smcr_conn_readable(c->peer->c), 1500);
	duo_free(d);
}

static void no_autocork(duo_opts *o) { o->set[0].autocorking_size = 0; }

/* smc_should_autocork(): with a CDC in flight a small write waits for its completion, up
 * to min(sndbuf/2, net.smc.autocorking_size); autocorking_size 0 turns that off */
Test(data, autocorking_holds_small_writes_behind_a_cdc_in_flight_unless_its_size_is_0)
{
	static uint8_t buf[2000];
	for (int off = 0; off < 2; off++) {
		duo_opts o;
		duo_opts_default(&o);
		if (off)
			no_autocork(&o);
		duo_conn *c;
		duo *d = setup_with(&o, &c);
		c->peer->auto_read = false;
		cr_assert_eq(smcr_conn_send(c->c, buf, 1000, 0, duo_now(d)), 1000);
		cr_assert_eq(sent_count(c), 1000, "nothing in flight: written at once");
		cr_assert_eq(smcr_conn_send(c->c, buf, 100, 0, duo_now(d)), 100);
		if (off)
			cr_assert_eq(sent_count(c), 1100, "autocorking off: written at once");
		else
			cr_assert_eq(sent_count(c), 1000, "autocorked behind the CDC in flight");
		duo_run(d, duo_now(d) + SMCR_S);
		cr_assert_eq(smcr_conn_readable(c->peer->c), 1100, "the completion pushed the rest");
		duo_free(d);
	}
}

/* smc_compress_bufsize() caps the size code at SMCR_RMBE_SIZES: 5 (512 KiB) up to Linux
 * 6.10, 15 (512 MiB) from 6.11 (the kernel presets' rmbe_max_code) */
static void one_mib_rmbs_on_6_10(duo_opts *o)
{
	for (int i = 0; i < 2; i++) {
		o->set[i].rmb_size = 1 << 20;
		o->set[i].sndbuf_size = 1 << 20;
	}
	o->set[0].rmbe_max_code = 5;
}

Test(data, a_kernel_before_6_11_caps_buffers_at_512_kib)
{
	duo_opts o;
	duo_opts_default(&o);
	one_mib_rmbs_on_6_10(&o);
	duo_conn *c;
	duo *d = setup_with(&o, &c);
	smcr_conn_info a, b;
	smcr_conn_get_info(c->c, &a);
	smcr_conn_get_info(c->peer->c, &b);
	cr_assert_eq(a.rmbe_size, 512 * 1024, "capped: %u", a.rmbe_size);
	cr_assert_eq(a.sndbuf_size, 512 * 1024);
	cr_assert_eq(b.rmbe_size, 1 << 20, "a newer kernel takes 1 MiB");
	duo_free(d);
}
