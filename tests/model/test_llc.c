/* LLC codec: golden bytes (Wireshark fixture, kernel layouts in both v2 byte orders),
 * round trips of every type and version, byte-order resolution, validation, robustness. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/llc.h"
#include "model/smcr_err.h"
#include "model/byteorder.h"
#include "tests/support/bytes.h"

/* mkpcap.py frames 8 and 9: CONFIRM_LINK request (server) and response (client), v1. */
static const char fixture_cl_req_hex[] =
        "012c000002000000000200000000000000000000ffff0a000002000112010000010002000000000000000000";
static const char fixture_cl_rsp_hex[] =
        "012c008002000000000100000000000000000000ffff0a000001000111010000010002000000000000000000";

/* v1 messages as Linux builds them (smc_llc.c), written out by hand. */
/* ADD_LINK reject: the client echoes the request with RESP|REJ and reason 1 in byte 2. */
static const char add_link_reject_v1_hex[] =
        "02 2c 01 c0  02 11 22 33 44 55  00 00  00 00 00 00 00 00 00 00 00 00 ff ff 0a 00 00 02"
        "00 01 13  02  03  00 be ef  00 00 00 00 00 00 00 00";
/* DELETE_LINK ALL|ORDERLY, link 0, reason "program initiated termination" (idle lgr) */
static const char delete_link_all_v1_hex[] =
        "04 2c 00 60  00  00 03 00 00  00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00"
        "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00";
/* CONFIRM_RKEY request on link 1 naming one other link (id 2) */
static const char confirm_rkey_v1_hex[] =
        "06 2c 00 00  01  00 00 3c 4d  00 00 7f 00 56 78 00 00"
        "02 00 00 3c 4e 00 00 7f 00 56 78 00 00"
        "00 00 00 00 00 00 00 00 00 00 00 00 00  00";
/* DELETE_RKEY request with one rkey in the first of 8 slots */
static const char delete_rkey_v1_hex[] =
        "09 2c 00 00  01 00 00 00  00 00 3c 4d  00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00"
        "00 00 00 00 00 00 00 00 00 00 00 00  00 00 00 00";
/* TEST_LINK response echoing 16 bytes of user data */
static const char test_link_rsp_v1_hex[] =
        "07 2c 00 80  00 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f"
        "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00";
/* v2 (x86) REQUEST_ADD_LINK answer of a server that cannot add a link: flag RESP, body zero */
static const char req_add_link_rsp_v2_hex[] =
        "25 2c 00 80  00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00"
        "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00";

/* Laid out from the kernel structs (smc_llc.c), generated independently of the encoder. */
/* llc_cl_v2_le: 44 bytes */
static const char llc_cl_v2_le_hex[] =
        "21 2c 00 03 02 11 22 33 44 55 00 00 00 00 00 00 00 00 00 00 ff ff 0a 00 00 02 00 01 12 01 0a 0b"
        "0c 01 02 ff 00 00 00 00 00 00 00 00";
/* llc_cl_v2_be: 44 bytes */
static const char llc_cl_v2_be_hex[] =
        "21 00 2c 03 02 11 22 33 44 55 00 00 00 00 00 00 00 00 00 00 ff ff 0a 00 00 02 00 01 12 01 0a 0b"
        "0c 01 02 ff 00 00 00 00 00 00 00 00";
/* llc_al_v2_le: 104 bytes */
static const char llc_al_v2_le_hex[] =
        "22 68 00 00 02 11 22 33 44 55 00 00 00 00 00 00 00 00 00 00 00 00 ff ff 0a 00 00 02 00 01 13 02"
        "03 00 be ef 00 00 00 00 00 00 00 00 80 00 00 00 00 00 00 00 00 00 00 00 ff ff 0a 00 00 02 00 00"
        "00 00 00 00 00 00 02 00 00 00 3c 4d 00 00 3c 4e 00 00 7f 00 56 78 00 00 00 00 11 11 00 00 22 22"
        "00 00 7f 00 00 01 00 00";
/* llc_al_v2_be: 104 bytes */
static const char llc_al_v2_be_hex[] =
        "22 00 68 00 02 11 22 33 44 55 00 00 00 00 00 00 00 00 00 00 00 00 ff ff 0a 00 00 02 00 01 13 02"
        "03 00 be ef 00 00 00 00 00 00 00 00 80 00 00 00 00 00 00 00 00 00 00 00 ff ff 0a 00 00 02 00 00"
        "00 00 00 00 00 00 00 02 00 00 3c 4d 00 00 3c 4e 00 00 7f 00 56 78 00 00 00 00 11 11 00 00 22 22"
        "00 00 7f 00 00 01 00 00";

static const uint8_t MAC[6] = { 0x02, 0x11, 0x22, 0x33, 0x44, 0x55 };
static const uint8_t GID_S[16] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 0, 2 };

static smcr_llc_msg base(uint8_t type, uint8_t version, uint8_t flags)
{
	smcr_llc_msg m;
	memset(&m, 0, sizeof(m));
	m.type = type;
	m.version = version;
	m.flags = flags;
	return m;
}

static void check_golden(const char *hex, const smcr_llc_msg *want, smcr_llc_v2_order order)
{
	uint8_t wire[8192], out[8192];
	size_t n = bytes_from_hex(hex, wire, sizeof(wire));
	smcr_llc_msg got;
	smcr_decode_err err = { 0 };
	cr_assert_eq(smcr_llc_decode(&got, wire, n, &err), 0, "%s: %s", err.field, err.expected);
	cr_assert(memcmp(&got, want, sizeof(got)) == 0, "decoded %s differs from the expected host form",
	          smcr_llc_type_name(want->type));
	ssize_t len = smcr_llc_encode(out, sizeof(out), want, order);
	cr_assert_gt(len, 0);
	bytes_assert_eq(out, (size_t)len, wire, n);
}

static smcr_llc_msg confirm_link(uint8_t version, uint8_t flags)
{
	smcr_llc_msg m = base(SMCR_LLC_CONFIRM_LINK, version, flags);
	m.length = 44;
	memcpy(m.u.confirm_link.mac, MAC, 6);
	memcpy(m.u.confirm_link.gid, GID_S, 16);
	m.u.confirm_link.qpn = 0x112;
	m.u.confirm_link.link_id = 1;
	m.u.confirm_link.link_uid = 0x0a0b0c01;
	m.u.confirm_link.max_links = 2;
	m.u.confirm_link.max_conns = 255;
	return m;
}

static smcr_llc_msg add_link_v2(smcr_llc_v2_order order)
{
	smcr_llc_msg m = base(SMCR_LLC_ADD_LINK, 2, 0);
	m.length = 104;
	m.order = order;
	memcpy(m.u.add_link.mac, MAC, 6);
	memcpy(m.u.add_link.gid, GID_S, 16);
	m.u.add_link.qpn = 0x113;
	m.u.add_link.link_id = 2;
	m.u.add_link.mtu = 3;
	m.u.add_link.psn = 0xbeef;
	m.u.add_link.v2_ext = true;
	m.u.add_link.v2_direct = true;
	memcpy(m.u.add_link.client_target_gid, GID_S, 16);
	m.u.add_link.n_rkeys = 2;
	m.u.add_link.rkeys[0] = (smcr_rkey_pair){ 0x3c4d, 0x3c4e, 0x7f0056780000ull };
	m.u.add_link.rkeys[1] = (smcr_rkey_pair){ 0x1111, 0x2222, 0x7f0000010000ull };
	return m;
}

Test(llc, fixture_confirm_link_request_and_response)
{
	smcr_llc_msg m = base(SMCR_LLC_CONFIRM_LINK, 1, 0);
	m.length = 44;
	memcpy(m.u.confirm_link.mac, (const uint8_t[]){ 0x02, 0, 0, 0, 0, 0x02 }, 6);
	memcpy(m.u.confirm_link.gid, GID_S, 16);
	m.u.confirm_link.qpn = 0x112;
	m.u.confirm_link.link_id = 1;
	m.u.confirm_link.link_uid = 0x100;
	m.u.confirm_link.max_links = 2;
	check_golden(fixture_cl_req_hex, &m, SMCR_LLC_V2_LE);
	m.flags = SMCR_LLC_FLAG_RESP;
	memcpy(m.u.confirm_link.mac, (const uint8_t[]){ 0x02, 0, 0, 0, 0, 0x01 }, 6);
	m.u.confirm_link.gid[15] = 1;
	m.u.confirm_link.qpn = 0x111;
	check_golden(fixture_cl_rsp_hex, &m, SMCR_LLC_V2_LE);
}

Test(llc, v2_confirm_link_in_both_byte_orders_matches_the_kernel_layout)
{
	smcr_llc_msg m = confirm_link(2, SMCR_LLC_FLAG_NO_RMBE_EYEC);
	m.order = SMCR_LLC_V2_LE;
	check_golden(llc_cl_v2_le_hex, &m, SMCR_LLC_V2_LE);
	m.order = SMCR_LLC_V2_BE;
	check_golden(llc_cl_v2_be_hex, &m, SMCR_LLC_V2_BE);
}

Test(llc, v2_add_link_with_rkey_pairs_in_both_byte_orders_matches_the_kernel_layout)
{
	smcr_llc_msg m = add_link_v2(SMCR_LLC_V2_LE);
	check_golden(llc_al_v2_le_hex, &m, SMCR_LLC_V2_LE);
	m = add_link_v2(SMCR_LLC_V2_BE);
	check_golden(llc_al_v2_be_hex, &m, SMCR_LLC_V2_BE);
}

Test(llc, v1_messages_as_linux_builds_them)
{
	smcr_llc_msg m = base(SMCR_LLC_ADD_LINK, 1, SMCR_LLC_FLAG_RESP | SMCR_LLC_FLAG_ADD_LNK_REJ);
	m.length = 44;
	m.reject_reason = SMCR_LLC_REJ_NO_ALT_PATH;
	memcpy(m.u.add_link.mac, MAC, 6);
	memcpy(m.u.add_link.gid, GID_S, 16);
	m.u.add_link.qpn = 0x113;
	m.u.add_link.link_id = 2;
	m.u.add_link.mtu = 3;
	m.u.add_link.psn = 0xbeef;
	check_golden(add_link_reject_v1_hex, &m, SMCR_LLC_V2_LE);

	m = base(SMCR_LLC_DELETE_LINK, 1, SMCR_LLC_FLAG_DEL_LINK_ALL | SMCR_LLC_FLAG_DEL_LINK_ORDERLY);
	m.length = 44;
	m.u.delete_link.reason = SMCR_LLC_DEL_PROG_INIT_TERM;
	check_golden(delete_link_all_v1_hex, &m, SMCR_LLC_V2_LE);

	m = base(SMCR_LLC_CONFIRM_RKEY, 1, 0);
	m.length = 44;
	m.u.confirm_rkey.n_other = 1;
	m.u.confirm_rkey.rkey = 0x3c4d;
	m.u.confirm_rkey.vaddr = 0x7f0056780000ull;
	m.u.confirm_rkey.other[0] = (smcr_rkey_entry){ 2, 0x3c4e, 0x7f0056780000ull };
	check_golden(confirm_rkey_v1_hex, &m, SMCR_LLC_V2_LE);

	m = base(SMCR_LLC_DELETE_RKEY, 1, 0);
	m.length = 44;
	m.u.delete_rkey.n_rkeys = 1;
	m.u.delete_rkey.rkeys[0] = 0x3c4d;
	check_golden(delete_rkey_v1_hex, &m, SMCR_LLC_V2_LE);

	m = base(SMCR_LLC_TEST_LINK, 1, SMCR_LLC_FLAG_RESP);
	m.length = 44;
	for (int i = 0; i < 16; i++)
		m.u.test_link.user_data[i] = (uint8_t)i;
	check_golden(test_link_rsp_v1_hex, &m, SMCR_LLC_V2_LE);

	m = base(SMCR_LLC_REQ_ADD_LINK, 2, SMCR_LLC_FLAG_RESP);
	m.length = 44;
	check_golden(req_add_link_rsp_v2_hex, &m, SMCR_LLC_V2_LE);
}

/* Linux v2 rejects carry no reason: the length overwrites byte 2 (smc_llc_cli_add_link_reject). */
Test(llc, v2_add_link_reject_has_no_room_for_the_reason)
{
	smcr_llc_msg m = base(SMCR_LLC_ADD_LINK, 2, SMCR_LLC_FLAG_RESP | SMCR_LLC_FLAG_ADD_LNK_REJ);
	m.reject_reason = SMCR_LLC_REJ_NO_ALT_PATH;
	uint8_t b[64];
	cr_assert_eq(smcr_llc_encode(b, sizeof(b), &m, SMCR_LLC_V2_LE), 44);
	cr_assert_eq(b[0], 0x22);
	cr_assert_eq(b[1], 0x2c);
	cr_assert_eq(b[2], 0x00);
	cr_assert_eq(b[3], 0xc0);
	smcr_llc_msg back;
	cr_assert_eq(smcr_llc_decode(&back, b, 44, NULL), 0);
	cr_assert_eq(back.reject_reason, 0);
	cr_assert_not(back.u.add_link.v2_ext);
}

/* ---- round trips -------------------------------------------------------------------- */

static void pattern(uint8_t *b, size_t n, uint8_t seed)
{
	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)(seed * 7 + 13 * i);
}

/* A representative message of each kind, filled the way the decoder fills it. */
static smcr_llc_msg sample(uint8_t type, uint8_t version, unsigned count)
{
	smcr_llc_msg m = base(type, version, (uint8_t)(0x80 | count));
	switch ((smcr_llc_type)type) {
	case SMCR_LLC_CONFIRM_LINK:
		m = confirm_link(version, 0x83);
		break;
	case SMCR_LLC_ADD_LINK:
		pattern(m.u.add_link.mac, 6, 1);
		pattern(m.u.add_link.gid, 16, 2);
		m.u.add_link.qpn = 0xabcdef;
		m.u.add_link.link_id = 3;
		m.u.add_link.mtu = 5;
		m.u.add_link.psn = 0x123456;
		if (version == 1) {
			m.reject_reason = (uint8_t)(count & 0x0F);
		} else if (count) {
			m.u.add_link.v2_ext = true;
			m.u.add_link.v2_direct = count & 1;
			pattern(m.u.add_link.client_target_gid, 16, 3);
			m.u.add_link.n_rkeys = (uint16_t)(count - 1);
			for (unsigned i = 0; i + 1 < count; i++)
				m.u.add_link.rkeys[i] = (smcr_rkey_pair){ 0x1000 + i, 0x2000 + i, 0x7f0000000000ull + (i << 16) };
		}
		break;
	case SMCR_LLC_ADD_LINK_CONT:
		m.u.add_link_cont.link_id = 2;
		m.u.add_link_cont.n_remaining = (uint8_t)count;
		m.u.add_link_cont.n_here = (uint8_t)(count < 2 ? count : 2);
		for (unsigned i = 0; i < m.u.add_link_cont.n_here; i++)
			m.u.add_link_cont.rkeys[i] = (smcr_rkey_pair){ 0x10 + i, 0x20 + i, 0x30 + i };
		break;
	case SMCR_LLC_DELETE_LINK:
		m.u.delete_link.link_id = (uint8_t)count;
		m.u.delete_link.reason = SMCR_LLC_DEL_NOLGR;
		break;
	case SMCR_LLC_REQ_ADD_LINK:
		m.u.req_add_link.n_gids = (uint8_t)count;
		for (unsigned i = 0; i < count; i++)
			pattern(m.u.req_add_link.gids[i], 16, (uint8_t)(9 + i));
		break;
	case SMCR_LLC_CONFIRM_RKEY:
		m.u.confirm_rkey.n_other = (uint8_t)count;
		m.u.confirm_rkey.rkey = 0xcafe;
		m.u.confirm_rkey.vaddr = 0x7f0012340000ull;
		for (unsigned i = 0; i < count && i < 2; i++)
			m.u.confirm_rkey.other[i] = (smcr_rkey_entry){ (uint8_t)(2 + i), 0xbeef + i, 0x1000 * i };
		break;
	case SMCR_LLC_CONFIRM_RKEY_CONT:
		m.u.confirm_rkey_cont.n_remaining = (uint8_t)count;
		for (unsigned i = 0; i < count && i < 3; i++)
			m.u.confirm_rkey_cont.entries[i] = (smcr_rkey_entry){ (uint8_t)(1 + i), 0x77 + i, 0x88 * i };
		break;
	case SMCR_LLC_DELETE_RKEY:
		m.u.delete_rkey.n_rkeys = (uint8_t)count;
		m.u.delete_rkey.err_mask = 0x40;
		for (unsigned i = 0; i < count; i++)
			m.u.delete_rkey.rkeys[i] = 0xf000 + i;
		break;
	case SMCR_LLC_TEST_LINK:
		pattern(m.u.test_link.user_data, 16, (uint8_t)count);
		break;
	}
	return m;
}

static size_t expected_len(const smcr_llc_msg *m)
{
	if (m->type == SMCR_LLC_ADD_LINK && m->version == 2 && m->u.add_link.v2_ext)
		return 72 + 16 * (size_t)m->u.add_link.n_rkeys;
	if (m->type == SMCR_LLC_REQ_ADD_LINK)
		return 28 + 16 * (size_t)m->u.req_add_link.n_gids > 44 ? 28 + 16 * (size_t)m->u.req_add_link.n_gids : 44;
	if (m->type == SMCR_LLC_DELETE_RKEY && m->version == 2)
		return 8 + 4 * (size_t)m->u.delete_rkey.n_rkeys > 44 ? 8 + 4 * (size_t)m->u.delete_rkey.n_rkeys : 44;
	return 44;
}

typedef struct variant {
	uint8_t type, version;
	unsigned counts[6];
	int n_counts;
} variant;

static const variant variants[] = {
	{ SMCR_LLC_CONFIRM_LINK, 1, { 0 }, 1 },
	{ SMCR_LLC_CONFIRM_LINK, 2, { 0 }, 1 },
	{ SMCR_LLC_ADD_LINK, 1, { 0, 1 }, 2 },
	{ SMCR_LLC_ADD_LINK, 2, { 0, 1, 2, 3, 200, 256 }, 6 },
	{ SMCR_LLC_ADD_LINK_CONT, 1, { 0, 1, 2, 7 }, 4 },
	{ SMCR_LLC_DELETE_LINK, 1, { 0, 3 }, 2 },
	{ SMCR_LLC_DELETE_LINK, 2, { 0, 3 }, 2 },
	{ SMCR_LLC_REQ_ADD_LINK, 2, { 0, 1, 2, 8 }, 4 },
	{ SMCR_LLC_CONFIRM_RKEY, 1, { 0, 1, 2, 3, 9 }, 5 },
	{ SMCR_LLC_CONFIRM_RKEY, 2, { 0, 2 }, 2 },
	{ SMCR_LLC_CONFIRM_RKEY_CONT, 1, { 0, 1, 3, 4 }, 4 },
	{ SMCR_LLC_DELETE_RKEY, 1, { 0, 1, 8 }, 3 },
	{ SMCR_LLC_DELETE_RKEY, 2, { 0, 1, 9, 10, 100, 255 }, 6 },
	{ SMCR_LLC_TEST_LINK, 1, { 0 }, 1 },
	{ SMCR_LLC_TEST_LINK, 2, { 5 }, 1 },
};

Test(llc, every_type_version_and_byte_order_round_trips)
{
	static uint8_t b[8192];
	int done = 0;
	for (size_t v = 0; v < sizeof(variants) / sizeof(variants[0]); v++)
		for (int c = 0; c < variants[v].n_counts; c++)
			for (int order = SMCR_LLC_V2_LE; order <= SMCR_LLC_V2_BE; order++) {
				smcr_llc_msg m = sample(variants[v].type, variants[v].version, variants[v].counts[c]), back;
				size_t want = expected_len(&m);
				ssize_t n = smcr_llc_encode(b, sizeof(b), &m, (smcr_llc_v2_order)order);
				cr_assert_eq(n, (ssize_t)want, "%s v%u count %u: %zd bytes, expected %zu",
				             smcr_llc_type_name(m.type), m.version, variants[v].counts[c], n, want);
				cr_assert_eq(b[0], m.version == 2 ? 0x20 | m.type : m.type);
				smcr_decode_err err = { 0 };
				cr_assert_eq(smcr_llc_decode(&back, b, (size_t)n, &err), 0, "%s: %s", err.field, err.expected);
				m.length = (uint16_t)want;
				if (m.version == 2) {
					m.order = (smcr_llc_v2_order)order;
					/* only a length that reads the same both ways leaves the order open */
					if (back.order_ambiguous) {
						cr_assert_eq(b[1], b[2]);
						m.order = SMCR_LLC_V2_LE;
						m.order_ambiguous = true;
					}
				}
				cr_assert(memcmp(&back, &m, sizeof(m)) == 0, "%s v%u count %u order %d",
				          smcr_llc_type_name(m.type), m.version, variants[v].counts[c], order);
				done++;
			}
	cr_assert_eq(done, 2 * 44);
}

/* ---- byte order of the v2 16-bit fields --------------------------------------------- */

Test(llc, v2_length_picks_the_byte_order_that_matches_the_received_bytes)
{
	uint8_t b[128];
	size_t n = bytes_from_hex(llc_cl_v2_le_hex, b, sizeof(b));
	smcr_llc_msg m;
	cr_assert_eq(smcr_llc_decode(&m, b, n, NULL), 0);
	cr_assert_eq(m.order, SMCR_LLC_V2_LE);
	cr_assert_not(m.order_ambiguous);
	n = bytes_from_hex(llc_cl_v2_be_hex, b, sizeof(b));
	cr_assert_eq(smcr_llc_decode(&m, b, n, NULL), 0);
	cr_assert_eq(m.order, SMCR_LLC_V2_BE);
	cr_assert_not(m.order_ambiguous);
}

/* 124 rkey pairs make 2056 = 0x0808 bytes: the length reads the same both ways, the
 * rkey count (0x007C) does not, so it decides. */
Test(llc, symmetric_length_is_resolved_by_the_add_link_rkey_count)
{
	static uint8_t le[4096], be[4096];
	smcr_llc_msg m = sample(SMCR_LLC_ADD_LINK, 2, 125), back;
	cr_assert_eq(m.u.add_link.n_rkeys, 124);
	cr_assert_eq(smcr_llc_encode(le, sizeof(le), &m, SMCR_LLC_V2_LE), 2056);
	cr_assert_eq(smcr_llc_encode(be, sizeof(be), &m, SMCR_LLC_V2_BE), 2056);
	cr_assert_eq(le[1], 0x08);
	cr_assert_eq(le[2], 0x08);
	cr_assert_eq(le[70], 0x7c);
	cr_assert_eq(be[71], 0x7c);
	cr_assert_eq(smcr_llc_decode(&back, le, 2056, NULL), 0);
	cr_assert_eq(back.order, SMCR_LLC_V2_LE);
	cr_assert_not(back.order_ambiguous);
	cr_assert_eq(back.u.add_link.n_rkeys, 124);
	cr_assert_eq(smcr_llc_decode(&back, be, 2056, NULL), 0);
	cr_assert_eq(back.order, SMCR_LLC_V2_BE);
	cr_assert_not(back.order_ambiguous);
	cr_assert_eq(back.u.add_link.n_rkeys, 124);
}

/* 255 rkeys make 1028 = 0x0404 bytes and nothing else is order dependent. */
Test(llc, symmetric_length_without_other_16bit_fields_is_reported_ambiguous)
{
	static uint8_t le[2048], be[2048];
	smcr_llc_msg m = sample(SMCR_LLC_DELETE_RKEY, 2, 255), back;
	cr_assert_eq(smcr_llc_encode(le, sizeof(le), &m, SMCR_LLC_V2_LE), 1028);
	cr_assert_eq(smcr_llc_encode(be, sizeof(be), &m, SMCR_LLC_V2_BE), 1028);
	cr_assert_eq(memcmp(le, be, 1028), 0);
	cr_assert_eq(smcr_llc_decode(&back, le, 1028, NULL), 0);
	cr_assert(back.order_ambiguous);
	cr_assert_eq(back.u.delete_rkey.n_rkeys, 255);
}

/* ---- validation --------------------------------------------------------------------- */

static void expect_err(const uint8_t *src, size_t n, int code, const char *field, uint32_t offset,
                       const char *expected, const char *what)
{
	uint8_t *b = malloc(n ? n : 1);
	memcpy(b, src, n);
	smcr_llc_msg m;
	smcr_decode_err err = { 0 };
	int rc = smcr_llc_decode(&m, b, n, &err);
	free(b);
	char line[256];
	smcr_decode_err_format(&err, line, sizeof(line));
	cr_assert_eq(rc, code, "%s: rc %s, expected %s [%s]", what, smcr_err_name(rc), smcr_err_name(code), line);
	cr_assert_eq(err.code, code, "%s", what);
	cr_assert_str_eq(err.field, field, "%s: field '%s'", what, err.field);
	cr_assert_eq(err.offset, offset, "%s: offset %u", what, err.offset);
	cr_assert(strstr(err.expected, expected) != NULL, "%s: expected '%s' lacks '%s'", what, err.expected, expected);
}

Test(llc, types_linux_has_no_handler_for_are_type_errors)
{
	uint8_t b[44];
	bytes_from_hex(fixture_cl_req_hex, b, sizeof(b));
	const uint8_t bad[] = { 0x00, 0x05, 0x0a, 0x0f, 0x10, 0x11, 0x20, 0x23, 0x28, 0x2a, 0x31, 0x41, 0x81, 0xfe, 0xff };
	for (size_t i = 0; i < sizeof(bad); i++) {
		b[0] = bad[i];
		char what[32];
		snprintf(what, sizeof(what), "type 0x%02x", bad[i]);
		expect_err(b, sizeof(b), SMCR_ERR_TYPE, "type", 0, bad[i] == 0xfe ? "CDC" : "0x01-0x04", what);
	}
	const uint8_t good[] = { 0x01, 0x02, 0x03, 0x04, 0x06, 0x07, 0x08, 0x09, 0x21, 0x22, 0x24, 0x25, 0x26, 0x27, 0x29 };
	for (size_t i = 0; i < sizeof(good); i++) {
		bytes_from_hex(fixture_cl_req_hex, b, sizeof(b));
		b[0] = good[i];
		if (good[i] & 0x20) {
			b[1] = 44; /* v2 length, little-endian */
			b[2] = 0;
		}
		smcr_llc_msg m;
		cr_assert_eq(smcr_llc_decode(&m, b, sizeof(b), NULL), 0, "type 0x%02x", good[i]);
	}
}

Test(llc, each_length_rule_fails_with_field_offset_and_expectation)
{
	static uint8_t b[8200];
	size_t n = bytes_from_hex(fixture_cl_req_hex, b, sizeof(b));
	expect_err(b, 0, SMCR_ERR_SHORT, "type", 0, ">= 44", "empty");
	expect_err(b, 43, SMCR_ERR_SHORT, "message", 0, ">= 44", "43 bytes");
	b[1] = 48;
	expect_err(b, n, SMCR_ERR_LENGTH, "length", 1, "44", "v1 length byte 48");
	b[1] = 44;
	/* a v1 receive longer than 44 bytes is read like Linux: the first 44 count */
	smcr_llc_msg m;
	cr_assert_eq(smcr_llc_decode(&m, b, 48, NULL), 0);
	cr_assert_eq(m.length, 44);

	n = bytes_from_hex(llc_cl_v2_le_hex, b, sizeof(b));
	b[1] = 45;
	expect_err(b, n, SMCR_ERR_LENGTH, "length", 1, "44 (the received bytes) in either byte order (little-endian reads 45)",
	           "v2 length 45");
	b[1] = 44;
	expect_err(b, 8193, SMCR_ERR_LENGTH, "message", 0, "<= 8192", "8193 bytes");

	/* ADD_LINK v2 extension */
	n = bytes_from_hex(llc_al_v2_le_hex, b, sizeof(b));
	put_le16(b + 1, 60);
	expect_err(b, 60, SMCR_ERR_SHORT, "v2 extension", 44, ">= 72", "60-byte ADD_LINK v2");
	n = bytes_from_hex(llc_al_v2_le_hex, b, sizeof(b));
	b[70] = 3;
	expect_err(b, n, SMCR_ERR_FIELD, "num_rkeys", 70, "2 (16-byte pairs after offset 72, little-endian",
	           "3 pairs announced, 2 sent");
	n = bytes_from_hex(llc_al_v2_be_hex, b, sizeof(b));
	b[71] = 1;
	expect_err(b, n, SMCR_ERR_FIELD, "num_rkeys", 70, "big-endian", "1 pair announced, 2 sent (BE)");
	n = bytes_from_hex(llc_al_v2_le_hex, b, sizeof(b));
	put_le16(b + 1, 110);
	expect_err(b, 110, SMCR_ERR_FIELD, "num_rkeys", 70, "a whole number of pairs, not 2", "110 bytes");
	memset(b, 0, sizeof(b));
	n = bytes_from_hex(llc_al_v2_le_hex, b, sizeof(b));
	put_le16(b + 1, 72 + 16 * 256);
	put_le16(b + 70, 256);
	expect_err(b, 72 + 16 * 256, SMCR_ERR_FIELD, "num_rkeys", 70, "<= 255", "256 pairs");

	/* REQUEST_ADD_LINK GID list */
	n = bytes_from_hex(req_add_link_rsp_v2_hex, b, sizeof(b));
	b[24] = 9;
	expect_err(b, n, SMCR_ERR_FIELD, "gid_cnt", 24, "<= 8", "9 GIDs");
	b[24] = 2;
	expect_err(b, n, SMCR_ERR_SHORT, "gid list", 28, ">= 60", "2 GIDs in 44 bytes");

	/* DELETE_RKEY */
	n = bytes_from_hex(delete_rkey_v1_hex, b, sizeof(b));
	b[4] = 9;
	expect_err(b, n, SMCR_ERR_FIELD, "num_rkeys", 4, "<= 8 (v1)", "9 rkeys v1");
	b[0] = 0x29;
	b[1] = 44;
	b[2] = 0;
	b[4] = 10;
	expect_err(b, n, SMCR_ERR_SHORT, "rkey list", 8, ">= 48", "10 rkeys in 44 bytes v2");
	b[4] = 9;
	cr_assert_eq(smcr_llc_decode(&m, b, n, NULL), 0, "9 rkeys fill a 44-byte v2 message exactly");
}

Test(llc, encoder_refuses_what_linux_would_not_send_or_cannot_hold)
{
	uint8_t b[8192];
	smcr_llc_msg m = sample(SMCR_LLC_ADD_LINK_CONT, 1, 2);
	m.version = 2;
	cr_assert_eq(smcr_llc_encode(b, sizeof(b), &m, SMCR_LLC_V2_LE), SMCR_ERR_INVAL, "v2 ADD_LINK_CONT");
	m = sample(SMCR_LLC_CONFIRM_RKEY_CONT, 1, 1);
	m.version = 2;
	cr_assert_eq(smcr_llc_encode(b, sizeof(b), &m, SMCR_LLC_V2_LE), SMCR_ERR_INVAL, "v2 CONFIRM_RKEY_CONT");
	m = sample(SMCR_LLC_REQ_ADD_LINK, 2, 1);
	m.version = 1;
	cr_assert_eq(smcr_llc_encode(b, sizeof(b), &m, SMCR_LLC_V2_LE), SMCR_ERR_INVAL, "v1 REQUEST_ADD_LINK");
	m = sample(SMCR_LLC_TEST_LINK, 1, 0);
	m.version = 3;
	cr_assert_eq(smcr_llc_encode(b, sizeof(b), &m, SMCR_LLC_V2_LE), SMCR_ERR_INVAL);
	m.version = 1;
	m.type = 10;
	cr_assert_eq(smcr_llc_encode(b, sizeof(b), &m, SMCR_LLC_V2_LE), SMCR_ERR_INVAL);
	m = sample(SMCR_LLC_TEST_LINK, 1, 0);
	cr_assert_eq(smcr_llc_encode(b, sizeof(b), &m, (smcr_llc_v2_order)2), SMCR_ERR_INVAL);
	cr_assert_eq(smcr_llc_encode(b, 43, &m, SMCR_LLC_V2_LE), SMCR_ERR_NOBUF);
	m = sample(SMCR_LLC_CONFIRM_LINK, 1, 0);
	m.u.confirm_link.qpn = 0x1000000;
	cr_assert_eq(smcr_llc_encode(b, sizeof(b), &m, SMCR_LLC_V2_LE), SMCR_ERR_INVAL);
	m = sample(SMCR_LLC_ADD_LINK, 2, 3);
	m.u.add_link.mtu = 16;
	cr_assert_eq(smcr_llc_encode(b, sizeof(b), &m, SMCR_LLC_V2_LE), SMCR_ERR_INVAL);
	m = sample(SMCR_LLC_ADD_LINK, 2, 3);
	cr_assert_eq(smcr_llc_encode(b, 103, &m, SMCR_LLC_V2_LE), SMCR_ERR_NOBUF);
	m.u.add_link.n_rkeys = 256;
	cr_assert_eq(smcr_llc_encode(b, sizeof(b), &m, SMCR_LLC_V2_LE), SMCR_ERR_INVAL);
	m = sample(SMCR_LLC_ADD_LINK_CONT, 1, 2);
	m.u.add_link_cont.n_here = 3;
	cr_assert_eq(smcr_llc_encode(b, sizeof(b), &m, SMCR_LLC_V2_LE), SMCR_ERR_INVAL);
	m = sample(SMCR_LLC_DELETE_RKEY, 1, 8);
	m.u.delete_rkey.n_rkeys = 9;
	cr_assert_eq(smcr_llc_encode(b, sizeof(b), &m, SMCR_LLC_V2_LE), SMCR_ERR_INVAL);
	m = sample(SMCR_LLC_REQ_ADD_LINK, 2, 8);
	m.u.req_add_link.n_gids = 9;
	cr_assert_eq(smcr_llc_encode(b, sizeof(b), &m, SMCR_LLC_V2_LE), SMCR_ERR_INVAL);
}

/* ---- robustness --------------------------------------------------------------------- */

/* Decode from an exact-size heap copy; what is accepted encodes again and decodes the same. */
static void decode_checked(const uint8_t *b, size_t n)
{
	static uint8_t out[8192];
	smcr_llc_msg m, again;
	smcr_decode_err err;
	int rc = smcr_llc_decode(&m, b, n, &err);
	cr_assert(rc == 0 || (rc <= SMCR_ERR_NOBUF && rc >= SMCR_ERR_TRAILER), "rc %d", rc);
	if (rc != 0) {
		cr_assert_eq(err.code, rc);
		return;
	}
	ssize_t k = smcr_llc_encode(out, sizeof(out), &m, m.order);
	cr_assert_gt(k, 0, "accepted %s v%u must encode (%zd)", smcr_llc_type_name(m.type), m.version, k);
	cr_assert_eq(smcr_llc_decode(&again, out, (size_t)k, &err), 0, "%s: %s", err.field, err.expected);
	/* the re-encoding drops bytes Linux ignores, so the length (and with it the order
	 * evidence) may differ */
	again.length = m.length;
	again.order = m.order;
	again.order_ambiguous = m.order_ambiguous;
	cr_assert(memcmp(&m, &again, sizeof(m)) == 0, "%s v%u changed in a re-encode", smcr_llc_type_name(m.type),
	          m.version);
	char line[256];
	smcr_llc_describe(&m, line, sizeof(line));
}

static void decode_exact(const uint8_t *src, size_t n)
{
	uint8_t *b = malloc(n ? n : 1);
	memcpy(b, src, n);
	decode_checked(b, n);
	free(b);
}

Test(llc, decoder_survives_truncation_every_length_and_type_value_and_random_mutation)
{
	static uint8_t msgs[80][8192];
	size_t lens[80];
	int count = 0;
	const char *golden[] = { fixture_cl_req_hex, fixture_cl_rsp_hex, add_link_reject_v1_hex, delete_link_all_v1_hex,
		                 confirm_rkey_v1_hex, delete_rkey_v1_hex, test_link_rsp_v1_hex, req_add_link_rsp_v2_hex,
		                 llc_cl_v2_le_hex, llc_cl_v2_be_hex, llc_al_v2_le_hex, llc_al_v2_be_hex };
	for (size_t i = 0; i < sizeof(golden) / sizeof(golden[0]); i++) {
		lens[count] = bytes_from_hex(golden[i], msgs[count], sizeof(msgs[0]));
		count++;
	}
	for (size_t v = 0; v < sizeof(variants) / sizeof(variants[0]); v++)
		for (int c = 0; c < variants[v].n_counts && count < 80; c++) {
			smcr_llc_msg m = sample(variants[v].type, variants[v].version, variants[v].counts[c]);
			ssize_t n = smcr_llc_encode(msgs[count], sizeof(msgs[0]), &m, (smcr_llc_v2_order)(count & 1));
			cr_assert_gt(n, 0);
			lens[count++] = (size_t)n;
		}
	bytes_rng rng;
	bytes_rng_seed(&rng, 0x11c);
	static uint8_t w[8192];
	for (int i = 0; i < count; i++) {
		size_t n = lens[i];
		uint8_t *exact = malloc(n);
		for (size_t t = 0; t <= n; t++)
			decode_exact(msgs[i], t);
		/* every type byte */
		for (int t = 0; t < 256; t++) {
			memcpy(exact, msgs[i], n);
			exact[0] = (uint8_t)t;
			decode_checked(exact, n);
		}
		/* every value of the length field(s) */
		for (uint32_t v = 0; v < 65536; v += (n > 200 ? 7 : 1)) {
			memcpy(exact, msgs[i], n);
			exact[1] = (uint8_t)v;
			exact[2] = (uint8_t)(v >> 8);
			decode_checked(exact, n);
		}
		/* random flips, sometimes a random length */
		for (int round = 0; round < 3000; round++) {
			memcpy(w, msgs[i], n);
			int flips = 1 + (int)bytes_rng_below(&rng, 4);
			for (int f = 0; f < flips; f++)
				w[bytes_rng_below(&rng, n)] = (uint8_t)bytes_rng_u64(&rng);
			size_t len = bytes_rng_below(&rng, 8) == 0 ? bytes_rng_below(&rng, n + 1) : n;
			decode_exact(w, len);
		}
		free(exact);
	}
}

/* ---- names and descriptions --------------------------------------------------------- */

Test(llc, type_names_and_delete_reasons_read_well)
{
	cr_assert_str_eq(smcr_llc_type_name(0x01), "CONFIRM_LINK");
	cr_assert_str_eq(smcr_llc_type_name(0x21), "CONFIRM_LINK");
	cr_assert_str_eq(smcr_llc_type_name(0x25), "REQUEST_ADD_LINK");
	cr_assert_str_eq(smcr_llc_type_name(0x08), "CONFIRM_RKEY_CONT");
	cr_assert_str_eq(smcr_llc_type_name(0x09), "DELETE_RKEY");
	cr_assert_str_eq(smcr_llc_type_name(0xfe), "CDC");
	cr_assert_str_eq(smcr_llc_type_name(0x0b), "UNKNOWN");
	cr_assert_str_eq(smcr_llc_type_name(0x41), "UNKNOWN");
	cr_assert_str_eq(smcr_llc_del_reason_text(0), "ok");
	cr_assert_str_eq(smcr_llc_del_reason_text(SMCR_LLC_DEL_LOST_PATH), "lost path");
	cr_assert_str_eq(smcr_llc_del_reason_text(SMCR_LLC_DEL_PROT_VIOL), "LLC protocol violation");
	cr_assert_str_eq(smcr_llc_del_reason_text(SMCR_LLC_DEL_NO_ASYM_NEEDED), "asymmetric link no longer needed");
	cr_assert_str_eq(smcr_llc_del_reason_text(SMCR_LLC_DEL_NOLNK), "unknown link id");
	cr_assert_str_eq(smcr_llc_del_reason_text(SMCR_LLC_DEL_NOLGR), "unknown link group");
	cr_assert_str_eq(smcr_llc_del_reason_text(0x00060000), "unknown reason");
}

Test(llc, describe_gives_one_readable_line)
{
	uint8_t b[128];
	char line[256];
	smcr_llc_msg m;
	size_t n = bytes_from_hex(fixture_cl_req_hex, b, sizeof(b));
	cr_assert_eq(smcr_llc_decode(&m, b, n, NULL), 0);
	smcr_llc_describe(&m, line, sizeof(line));
	cr_assert_str_eq(line, "LLC CONFIRM_LINK req flags 0x00 link 1 qpn 0x000112 uid 0x00000100 max_links 2 max_conns 0");
	n = bytes_from_hex(delete_link_all_v1_hex, b, sizeof(b));
	b[0] = 0x24;
	b[1] = 0x2c;
	cr_assert_eq(smcr_llc_decode(&m, b, n, NULL), 0);
	smcr_llc_describe(&m, line, sizeof(line));
	cr_assert_str_eq(line, "LLC DELETE_LINK v2 req flags 0x60 link 0 all orderly reason 0x00030000 (program initiated termination)");
	n = bytes_from_hex(add_link_reject_v1_hex, b, sizeof(b));
	cr_assert_eq(smcr_llc_decode(&m, b, n, NULL), 0);
	smcr_llc_describe(&m, line, sizeof(line));
	cr_assert(strstr(line, "LLC ADD_LINK resp flags 0xc0 link 2 qpn 0x000113 mtu 3 psn 0x00beef rejected") == line, "%s", line);
	smcr_llc_describe(&m, line, 12);
	cr_assert_eq(strlen(line), 11);
}
