/* CDC codec and cursor arithmetic: golden bytes (Wireshark fixture), round trips, Linux's
 * receive checks, robustness, and the wrap rules of add/diff/comp. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/cdc.h"
#include "model/smcr_err.h"
#include "tests/support/bytes.h"

/* mkpcap.py frames 12 and 13: client -> server after a 64-byte RDMA WRITE (producer
 * cursor 0:64), server -> client confirming it (consumer cursor 0:64). */
static const char fixture_cdc_prod_hex[] =
        "fe2c000100000101000000000000004000000000000000000000000000000000000000000000000000000000";
static const char fixture_cdc_cons_hex[] =
        "fe2c000100000201000000000000000000000000000000400000000000000000000000000000000000000000";

static void check_golden(const char *hex, const smcr_cdc_msg *want)
{
	uint8_t wire[64], out[SMCR_CDC_LEN];
	size_t n = bytes_from_hex(hex, wire, sizeof(wire));
	cr_assert_eq(n, SMCR_CDC_LEN);
	smcr_cdc_msg got;
	smcr_decode_err err = { 0 };
	cr_assert_eq(smcr_cdc_decode(&got, wire, n, &err), 0, "%s", err.expected);
	cr_assert(memcmp(&got, want, sizeof(got)) == 0);
	memset(out, 0xAA, sizeof(out));
	smcr_cdc_encode(out, want);
	cr_assert_eq(memcmp(out, wire, SMCR_CDC_LEN), 0);
}

static smcr_cdc_msg msg(uint16_t seq, uint32_t token, uint16_t pw, uint32_t pc, uint16_t cw, uint32_t cc,
                        uint8_t pf, uint8_t cf)
{
	smcr_cdc_msg m;
	memset(&m, 0, sizeof(m));
	m.seqno = seq;
	m.token = token;
	m.prod = (smcr_cursor){ pw, pc };
	m.cons = (smcr_cursor){ cw, cc };
	m.prod_flags = pf;
	m.conn_flags = cf;
	return m;
}

Test(cdc, fixture_messages_decode_and_reencode_identically)
{
	smcr_cdc_msg m = msg(1, 0x101, 0, 64, 0, 0, 0, 0);
	check_golden(fixture_cdc_prod_hex, &m);
	m = msg(1, 0x201, 0, 0, 0, 64, 0, 0);
	check_golden(fixture_cdc_cons_hex, &m);
}

Test(cdc, every_field_and_flag_round_trips_at_its_offset)
{
	uint8_t pflags[] = { 0, SMCR_CDC_WRITE_BLOCKED, SMCR_CDC_URG_PENDING, SMCR_CDC_URG_PRESENT,
		             SMCR_CDC_CONS_UPD_REQ, SMCR_CDC_FAILOVER_VALIDATION, 0xF8 };
	uint8_t cflags[] = { 0, SMCR_CDC_PEER_DONE_WRITING, SMCR_CDC_PEER_CONN_CLOSED, SMCR_CDC_PEER_CONN_ABORT, 0xE0 };
	for (size_t i = 0; i < sizeof(pflags); i++)
		for (size_t j = 0; j < sizeof(cflags); j++) {
			smcr_cdc_msg m = msg((uint16_t)(0xFFFF - i), 0xdeadbeef, 0xFFFE, 0x7FFFFFFF, 0x1234, 65535, pflags[i],
			                     cflags[j]),
			             back;
			uint8_t b[SMCR_CDC_LEN];
			smcr_cdc_encode(b, &m);
			cr_assert_eq(b[0], 0xFE);
			cr_assert_eq(b[1], 44);
			cr_assert_eq(b[2], 0xFF);
			cr_assert_eq(b[3], (uint8_t)(0xFF - i));
			cr_assert_eq(b[8] | b[9] | b[16] | b[17], 0, "cursor reserved bytes");
			cr_assert_eq(b[10], 0xFF);
			cr_assert_eq(b[11], 0xFE);
			cr_assert_eq(b[12], 0x7F);
			cr_assert_eq(b[24], pflags[i]);
			cr_assert_eq(b[25], cflags[j]);
			for (int k = 26; k < 44; k++)
				cr_assert_eq(b[k], 0);
			cr_assert_eq(smcr_cdc_decode(&back, b, sizeof(b), NULL), 0);
			cr_assert(memcmp(&back, &m, sizeof(m)) == 0);
		}
}

static void expect_err(const uint8_t *src, size_t n, int code, const char *field, uint32_t off, const char *exp)
{
	uint8_t *b = malloc(n ? n : 1);
	memcpy(b, src, n);
	smcr_cdc_msg m;
	smcr_decode_err err = { 0 };
	int rc = smcr_cdc_decode(&m, b, n, &err);
	free(b);
	cr_assert_eq(rc, code, "rc %s", smcr_err_name(rc));
	cr_assert_str_eq(err.field, field);
	cr_assert_eq(err.offset, off);
	cr_assert(strstr(err.expected, exp) != NULL, "'%s' lacks '%s'", err.expected, exp);
	cr_assert_str_eq(err.message, "CDC");
}

/* smc_cdc_rx_handler: byte_len < offsetof(reserved) = 26 drops, len byte != 44 drops. */
Test(cdc, linux_receive_checks_fail_precisely)
{
	uint8_t b[64];
	size_t n = bytes_from_hex(fixture_cdc_prod_hex, b, sizeof(b));
	expect_err(b, 0, SMCR_ERR_SHORT, "type", 0, ">= 26");
	expect_err(b, 25, SMCR_ERR_SHORT, "message", 0, ">= 26");
	b[0] = 0x01;
	expect_err(b, n, SMCR_ERR_TYPE, "type", 0, "0xFE");
	b[0] = 0xFE;
	b[1] = 48;
	expect_err(b, n, SMCR_ERR_LENGTH, "length", 1, "44");
	b[1] = 44;
	/* 26 bytes are enough for Linux, and so for us */
	smcr_cdc_msg m;
	cr_assert_eq(smcr_cdc_decode(&m, b, 26, NULL), 0);
	cr_assert_eq(m.prod.count, 64);
	cr_assert_eq(m.token, 0x101);
}

Test(cdc, decoder_survives_truncation_and_random_mutation)
{
	bytes_rng rng;
	bytes_rng_seed(&rng, 0xcdc);
	uint8_t src[SMCR_CDC_LEN];
	bytes_from_hex(fixture_cdc_prod_hex, src, sizeof(src));
	int accepted = 0;
	for (int round = 0; round < 20000; round++) {
		uint8_t w[SMCR_CDC_LEN];
		memcpy(w, src, sizeof(w));
		int flips = (int)bytes_rng_below(&rng, 5);
		for (int f = 0; f < flips; f++)
			w[bytes_rng_below(&rng, sizeof(w))] = (uint8_t)bytes_rng_u64(&rng);
		size_t len = bytes_rng_below(&rng, 4) == 0 ? bytes_rng_below(&rng, sizeof(w) + 1) : sizeof(w);
		uint8_t *b = malloc(len ? len : 1);
		memcpy(b, w, len);
		smcr_cdc_msg m, again;
		smcr_decode_err err;
		int rc = smcr_cdc_decode(&m, b, len, &err);
		free(b);
		cr_assert(rc == 0 || rc == SMCR_ERR_SHORT || rc == SMCR_ERR_TYPE || rc == SMCR_ERR_LENGTH);
		cr_assert_eq(rc == 0, len >= 26 && w[0] == 0xFE && w[1] == 44);
		if (rc == 0) {
			accepted++;
			uint8_t out[SMCR_CDC_LEN];
			smcr_cdc_encode(out, &m);
			cr_assert_eq(smcr_cdc_decode(&again, out, sizeof(out), NULL), 0);
			cr_assert(memcmp(&m, &again, sizeof(m)) == 0);
		}
	}
	cr_assert_gt(accepted, 1000);
}

/* ---- cursor arithmetic -------------------------------------------------------------- */

Test(cdc, cursor_add_wraps_at_the_ring_size)
{
	struct {
		uint16_t wrap;
		uint32_t count, size, n;
		uint16_t want_wrap;
		uint32_t want_count;
	} t[] = {
		{ 0, 0, 65536, 0, 0, 0 },
		{ 0, 0, 65536, 1000, 0, 1000 },
		{ 0, 65000, 65536, 535, 0, 65535 },
		{ 0, 65000, 65536, 536, 1, 0 },        /* lands exactly on the end */
		{ 0, 65000, 65536, 1000, 1, 464 },     /* the digest's worked example */
		{ 3, 100, 16384, 16384, 4, 100 },      /* a whole ring */
		{ 65535, 16000, 16384, 1000, 0, 616 }, /* wrap counter itself wraps */
		{ 7, 0, 1u << 29, (1u << 29) - 1, 7, (1u << 29) - 1 },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		smcr_cursor c = { t[i].wrap, t[i].count };
		smcr_curs_add(&c, t[i].size, t[i].n);
		cr_assert_eq(c.wrap, t[i].want_wrap, "case %zu: wrap %u", i, c.wrap);
		cr_assert_eq(c.count, t[i].want_count, "case %zu: count %u", i, c.count);
	}
}

Test(cdc, cursor_diff_counts_bytes_across_a_wrap)
{
	struct {
		uint16_t ow;
		uint32_t oc;
		uint16_t nw;
		uint32_t nc;
		uint32_t size, want;
	} t[] = {
		{ 0, 0, 0, 0, 65536, 0 },
		{ 0, 100, 0, 164, 65536, 64 },
		{ 0, 65000, 1, 464, 65536, 1000 },    /* across the end of the ring */
		{ 0, 4000, 1, 4000, 65536, 65536 },   /* a full ring: same count, next wrap */
		{ 65535, 60000, 0, 10, 65536, 5546 }, /* wrap counter wrapped */
		{ 2, 500, 2, 400, 65536, 0 },         /* backwards in one wrap: never negative */
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		smcr_cursor o = { t[i].ow, t[i].oc }, n = { t[i].nw, t[i].nc };
		cr_assert_eq(smcr_curs_diff(t[i].size, &o, &n), t[i].want, "case %zu: %u", i, smcr_curs_diff(t[i].size, &o, &n));
	}
	/* free space of the worked example: 65536 - diff(peer consumer 0:4000, producer 0:65000) */
	smcr_cursor cons = { 0, 4000 }, prod = { 0, 65000 };
	cr_assert_eq(65536 - smcr_curs_diff(65536, &cons, &prod), 4536);
}

Test(cdc, cursor_comp_orders_with_16bit_wrap)
{
	struct {
		uint16_t aw;
		uint32_t ac;
		uint16_t bw;
		uint32_t bc;
		int want;
	} t[] = {
		{ 0, 0, 0, 0, 0 },
		{ 0, 10, 0, 20, -1 },
		{ 0, 20, 0, 10, 1 },
		{ 1, 0, 0, 60000, 1 },
		{ 0, 60000, 1, 0, -1 },
		{ 65535, 100, 0, 5, -1 }, /* 0 comes after 65535 */
		{ 0, 5, 65535, 100, 1 },
		{ 100, 7, 100, 7, 0 },
		{ 0x8000, 0, 0, 0, -1 }, /* half the wrap space away counts as behind */
		{ 0x7FFF, 0, 0, 0, 1 },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		smcr_cursor a = { t[i].aw, t[i].ac }, b = { t[i].bw, t[i].bc };
		cr_assert_eq(smcr_curs_comp(65536, &a, &b), t[i].want, "case %zu", i);
	}
}

Test(cdc, describe_lists_cursors_and_flags)
{
	char line[256];
	smcr_cdc_msg m = msg(7, 0x101, 1, 464, 0, 4000, SMCR_CDC_WRITE_BLOCKED | SMCR_CDC_URG_PRESENT,
	                     SMCR_CDC_PEER_DONE_WRITING | SMCR_CDC_PEER_CONN_ABORT);
	smcr_cdc_describe(&m, line, sizeof(line));
	cr_assert_str_eq(line, "CDC seq 7 token 0x00000101 prod 1:464 cons 0:4000 write-blocked urg-present done-writing abort");
	m = msg(1, 2, 0, 0, 0, 0, SMCR_CDC_FAILOVER_VALIDATION | SMCR_CDC_CONS_UPD_REQ | SMCR_CDC_URG_PENDING,
	        SMCR_CDC_PEER_CONN_CLOSED);
	smcr_cdc_describe(&m, line, sizeof(line));
	cr_assert_str_eq(line, "CDC seq 1 token 0x00000002 prod 0:0 cons 0:0 urg-pending cons-upd-req failover-validation closed");
}
