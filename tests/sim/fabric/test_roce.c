/* RoCE v1/v2 frame codecs: byte-exact against the Wireshark fixture frames (built by
 * mkpcap.py, decoded by tshark 4.0), round trips, and precise rejection of bad input. */
#include <criterion/criterion.h>
#include <string.h>

#include "model/smcr_err.h"
#include "sim/fabric/gid.h"
#include "sim/fabric/roce.h"

static const uint8_t mac_client[6] = { 2, 0, 0, 0, 0, 1 }, mac_server[6] = { 2, 0, 0, 0, 0, 2 };

/* fixture frame 8 (v2): server -> client, SEND ONLY, LLC CONFIRM LINK */
static const uint8_t v2_send[] =
        "\x02\x00\x00\x00\x00\x01\x02\x00\x00\x00\x00\x02\x08\x00\x45\x02"
        "\x00\x58\x10\x08\x40\x00\x40\x11\x16\x89\x0a\x00\x00\x02\x0a\x00"
        "\x00\x01\xc1\x12\x12\xb7\x00\x44\x00\x00\x04\x80\xff\xff\x00\x00"
        "\x01\x11\x80\x00\xa1\xb2\x01\x2c\x00\x00\x02\x00\x00\x00\x00\x02"
        "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\xff\xff\x0a\x00\x00\x02"
        "\x00\x01\x12\x01\x00\x00\x01\x00\x02\x00\x00\x00\x00\x00\x00\x00"
        "\x00\x00\xe1\x85\xb9\x76";
/* fixture frame 10 (v2): ACKNOWLEDGE, syndrome 0x1f, MSN 1 */
static const uint8_t v2_ack[] =
        "\x02\x00\x00\x00\x00\x01\x02\x00\x00\x00\x00\x02\x08\x00\x45\x02"
        "\x00\x30\x10\x0a\x40\x00\x40\x11\x16\xaf\x0a\x00\x00\x02\x0a\x00"
        "\x00\x01\xc1\x12\x12\xb7\x00\x1c\x00\x00\x11\x00\xff\xff\x00\x00"
        "\x01\x11\x00\x00\xc0\xde\x1f\x00\x00\x01\xbf\x16\xbb\x75";
/* fixture frame 11 (v2): RDMA WRITE ONLY of 64 bytes */
static const uint8_t v2_write[] =
        "\x02\x00\x00\x00\x00\x02\x02\x00\x00\x00\x00\x01\x08\x00\x45\x02"
        "\x00\x7c\x10\x0b\x40\x00\x40\x11\x16\x62\x0a\x00\x00\x01\x0a\x00"
        "\x00\x02\xc1\x11\x12\xb7\x00\x68\x00\x00\x0a\x00\xff\xff\x00\x00"
        "\x01\x12\x80\x00\xc0\xdf\x00\x00\x7f\x00\x56\x78\x00\x00\x00\x00"
        "\x3c\x4d\x00\x00\x00\x40\x47\x45\x54\x20\x2f\x20\x48\x54\x54\x50"
        "\x2f\x31\x2e\x30\x0d\x0a\x48\x6f\x73\x74\x3a\x20\x73\x6d\x63\x2d"
        "\x72\x2e\x65\x78\x61\x6d\x70\x6c\x65\x0d\x0a\x55\x73\x65\x72\x2d"
        "\x41\x67\x65\x6e\x74\x3a\x20\x73\x6d\x63\x2d\x6f\x72\x61\x63\x6c"
        "\x65\x0d\x0a\x0d\x0a\x2e\x5e\xc2\xe1\x4a";
/* the same three as RoCE v1 */
static const uint8_t v1_send[] =
        "\x02\x00\x00\x00\x00\x01\x02\x00\x00\x00\x00\x02\x89\x15\x60\x00"
        "\x00\x00\x00\x3c\x1b\x40\xfe\x80\x00\x00\x00\x00\x00\x00\x00\x00"
        "\x00\xff\xfe\x00\x00\x02\xfe\x80\x00\x00\x00\x00\x00\x00\x00\x00"
        "\x00\xff\xfe\x00\x00\x01\x04\x80\xff\xff\x00\x00\x01\x11\x80\x00"
        "\xa1\xb2\x01\x2c\x00\x00\x02\x00\x00\x00\x00\x02\xfe\x80\x00\x00"
        "\x00\x00\x00\x00\x00\x00\x00\xff\xfe\x00\x00\x02\x00\x01\x12\x01"
        "\x00\x00\x01\x00\x02\x00\x00\x00\x00\x00\x00\x00\x00\x00\xb9\x10"
        "\x08\x1a";
static const uint8_t v1_ack[] =
        "\x02\x00\x00\x00\x00\x01\x02\x00\x00\x00\x00\x02\x89\x15\x60\x00"
        "\x00\x00\x00\x14\x1b\x40\xfe\x80\x00\x00\x00\x00\x00\x00\x00\x00"
        "\x00\xff\xfe\x00\x00\x02\xfe\x80\x00\x00\x00\x00\x00\x00\x00\x00"
        "\x00\xff\xfe\x00\x00\x01\x11\x00\xff\xff\x00\x00\x01\x11\x00\x00"
        "\xc0\xde\x1f\x00\x00\x01\xe8\xf3\x3a\x53";
static const uint8_t v1_write[] =
        "\x02\x00\x00\x00\x00\x02\x02\x00\x00\x00\x00\x01\x89\x15\x60\x00"
        "\x00\x00\x00\x60\x1b\x40\xfe\x80\x00\x00\x00\x00\x00\x00\x00\x00"
        "\x00\xff\xfe\x00\x00\x01\xfe\x80\x00\x00\x00\x00\x00\x00\x00\x00"
        "\x00\xff\xfe\x00\x00\x02\x0a\x00\xff\xff\x00\x00\x01\x12\x80\x00"
        "\xc0\xdf\x00\x00\x7f\x00\x56\x78\x00\x00\x00\x00\x3c\x4d\x00\x00"
        "\x00\x40\x47\x45\x54\x20\x2f\x20\x48\x54\x54\x50\x2f\x31\x2e\x30"
        "\x0d\x0a\x48\x6f\x73\x74\x3a\x20\x73\x6d\x63\x2d\x72\x2e\x65\x78"
        "\x61\x6d\x70\x6c\x65\x0d\x0a\x55\x73\x65\x72\x2d\x41\x67\x65\x6e"
        "\x74\x3a\x20\x73\x6d\x63\x2d\x6f\x72\x61\x63\x6c\x65\x0d\x0a\x0d"
        "\x0a\x2e\x3b\xfa\x5f\x96";

static sim_frame_pool *pool;
static void setup(void) { pool = sim_frame_pool_new(); }
static void teardown(void)
{
	cr_expect_eq(sim_frame_pool_in_use(pool), 0, "frames leaked");
	sim_frame_pool_free(pool);
}

/* Addressing for a packet from `from` to `to` as the fixture has it. */
static roce_addr fixture_addr(roce_version v, bool from_server, uint16_t ip_id)
{
	roce_addr a = { .version = v };
	memcpy(a.smac, from_server ? mac_server : mac_client, 6);
	memcpy(a.dmac, from_server ? mac_client : mac_server, 6);
	if (v == ROCE_V2) {
		gid_from_ipv4(from_server ? 0x0A000002 : 0x0A000001, a.sgid);
		gid_from_ipv4(from_server ? 0x0A000001 : 0x0A000002, a.dgid);
		a.traffic_class = 0x02; /* ECT(0) */
		a.hop_limit = 64;
		a.ip_id = ip_id;
		a.udp_sport = from_server ? 0xC112 : 0xC111;
	} else {
		gid_from_mac(a.smac, a.sgid);
		gid_from_mac(a.dmac, a.dgid);
		a.hop_limit = 0x40;
	}
	return a;
}

static void expect_bytes(const sim_frame *f, const uint8_t *want, size_t want_len)
{
	cr_assert_eq(f->len, want_len, "length %u, want %zu", f->len, want_len);
	for (size_t i = 0; i < want_len; i++)
		cr_assert_eq(f->data[i], want[i], "byte %zu: %02x, want %02x", i, f->data[i], want[i]);
}

static void build_send(roce_version v, const uint8_t *golden, size_t len)
{
	roce_addr a = fixture_addr(v, true, 0x1008);
	roce_bth bth = { .opcode = ROCE_OP_SEND_ONLY, .se = true, .ack_req = true, .pkey = 0xFFFF, .dest_qp = 0x111, .psn = 0xA1B2 };
	/* the 44-byte LLC message is the payload of the golden frame */
	uint32_t off = v == ROCE_V2 ? 54 : 66;
	roce_seg seg = { golden + off, 44 };
	sim_frame *f = roce_build(pool, &a, &bth, NULL, NULL, &seg, 1);
	expect_bytes(f, golden, len);
	sim_frame_free(f);
}

Test(roce, v2_send_only_is_byte_exact, .init = setup, .fini = teardown)
{
	build_send(ROCE_V2, v2_send, sizeof(v2_send) - 1);
}

Test(roce, v1_send_only_is_byte_exact, .init = setup, .fini = teardown)
{
	build_send(ROCE_V1, v1_send, sizeof(v1_send) - 1);
}

static void build_ack(roce_version v, const uint8_t *golden, size_t len)
{
	roce_addr a = fixture_addr(v, true, 0x100a);
	roce_bth bth = { .opcode = ROCE_OP_ACK, .pkey = 0xFFFF, .dest_qp = 0x111, .psn = 0xC0DE };
	roce_aeth aeth = { .syndrome = 0x1F, .msn = 1 };
	sim_frame *f = roce_build(pool, &a, &bth, NULL, &aeth, NULL, 0);
	expect_bytes(f, golden, len);
	sim_frame_free(f);
}

Test(roce, v2_ack_is_byte_exact, .init = setup, .fini = teardown)
{
	build_ack(ROCE_V2, v2_ack, sizeof(v2_ack) - 1);
}

Test(roce, v1_ack_is_byte_exact, .init = setup, .fini = teardown)
{
	build_ack(ROCE_V1, v1_ack, sizeof(v1_ack) - 1);
}

static void build_write(roce_version v, const uint8_t *golden, size_t len)
{
	roce_addr a = fixture_addr(v, false, 0x100b);
	roce_bth bth = { .opcode = ROCE_OP_WRITE_ONLY, .ack_req = true, .pkey = 0xFFFF, .dest_qp = 0x112, .psn = 0xC0DF };
	roce_reth reth = { .va = 0x00007F0056780000ULL, .rkey = 0x3C4D, .dma_len = 64 };
	const uint8_t *data = golden + len - 4 - 64;
	/* gathered from two pieces, as from two SGEs */
	roce_seg segs[2] = { { data, 20 }, { data + 20, 44 } };
	sim_frame *f = roce_build(pool, &a, &bth, &reth, NULL, segs, 2);
	expect_bytes(f, golden, len);
	sim_frame_free(f);
}

Test(roce, v2_rdma_write_only_is_byte_exact, .init = setup, .fini = teardown)
{
	build_write(ROCE_V2, v2_write, sizeof(v2_write) - 1);
}

Test(roce, v1_rdma_write_only_is_byte_exact, .init = setup, .fini = teardown)
{
	build_write(ROCE_V1, v1_write, sizeof(v1_write) - 1);
}

/* A frame roce_build made is vouched for, and the parse that trusts the word finds exactly
 * what the full one does; a write drops the word, and only the full parse catches the
 * flipped bit (which is why the receiver asks the word first). */
static void vouched_parse_matches(roce_version v)
{
	roce_addr a = fixture_addr(v, false, 0x100b);
	roce_bth bth = { .opcode = ROCE_OP_WRITE_ONLY, .ack_req = true, .pkey = 0xFFFF, .dest_qp = 0x112, .psn = 0xC0DF };
	roce_reth reth = { .va = 0x00007F0056780000ULL, .rkey = 0x3C4D, .dma_len = 61 };
	uint8_t data[61];
	for (unsigned i = 0; i < sizeof data; i++)
		data[i] = (uint8_t)(i * 7u + 3u);
	roce_seg seg = { data, sizeof data };
	sim_frame *f = roce_build(pool, &a, &bth, &reth, NULL, &seg, 1);
	cr_assert(sim_frame_sums_vouched(f));
	roce_pkt full, trusted;
	smcr_decode_err err;
	cr_assert_eq(roce_parse(f->data, f->len, &full, &err), 0);
	cr_assert_eq(roce_parse_vouched(f->data, f->len, &trusted, &err), 0);
	cr_assert_eq(memcmp(&full, &trusted, sizeof full), 0, "the same packet, ICRC value included");
	cr_assert_eq(trusted.bth.pad, 3);
	uint8_t *p = sim_frame_writable(f);
	p[f->len - 4 - 3 - 10] ^= 0x10; /* a payload bit */
	cr_assert_not(sim_frame_sums_vouched(f));
	cr_assert_eq(roce_parse(f->data, f->len, &full, &err), SMCR_ERR_FIELD);
	cr_assert_str_eq(err.field, "ICRC");
	cr_assert_eq(roce_parse_vouched(f->data, f->len, &trusted, &err), 0, "the trusting parse computes no sums");
	sim_frame_free(f);
}

Test(roce, vouched_frames_parse_the_same_without_sums, .init = setup, .fini = teardown)
{
	vouched_parse_matches(ROCE_V2);
	vouched_parse_matches(ROCE_V1);
}

Test(roce, parses_the_fixture_frames)
{
	roce_pkt p;
	smcr_decode_err err;
	cr_assert_eq(roce_parse(v2_send, sizeof(v2_send) - 1, &p, &err), 0);
	cr_assert_eq(p.addr.version, ROCE_V2);
	cr_assert_eq(p.bth.opcode, ROCE_OP_SEND_ONLY);
	cr_assert(p.bth.se && p.bth.ack_req);
	cr_assert_eq(p.bth.dest_qp, 0x111);
	cr_assert_eq(p.bth.psn, 0xA1B2);
	cr_assert_eq(p.addr.udp_sport, 0xC112);
	cr_assert_eq(gid_ipv4(p.addr.sgid), 0x0A000002);
	cr_assert_eq(p.payload_len, 44);
	cr_assert_eq(p.payload[0], 0x01);
	cr_assert_eq(p.payload[1], 0x2C);

	cr_assert_eq(roce_parse(v1_ack, sizeof(v1_ack) - 1, &p, &err), 0);
	cr_assert_eq(p.addr.version, ROCE_V1);
	cr_assert(p.has_aeth);
	cr_assert_eq(p.aeth.syndrome, 0x1F);
	cr_assert_eq(p.aeth.msn, 1);
	cr_assert_eq(p.payload_len, 0);
	uint8_t mac[6];
	cr_assert(gid_to_mac(p.addr.sgid, mac));
	cr_assert_eq(memcmp(mac, mac_server, 6), 0);

	cr_assert_eq(roce_parse(v2_write, sizeof(v2_write) - 1, &p, &err), 0);
	cr_assert(p.has_reth);
	cr_assert_eq(p.reth.va, 0x00007F0056780000ULL);
	cr_assert_eq(p.reth.rkey, 0x3C4D);
	cr_assert_eq(p.reth.dma_len, 64);
	cr_assert_eq(p.payload_len, 64);
}

Test(roce, pad_count_and_vlan_round_trip, .init = setup, .fini = teardown)
{
	for (roce_version v = ROCE_V1; v <= ROCE_V2; v++) {
		for (uint32_t len = 57; len <= 64; len++) {
			roce_addr a = fixture_addr(v, false, 7);
			a.vlan_tci = (3u << 13) | 100;
			roce_bth bth = { .opcode = ROCE_OP_WRITE_FIRST, .pkey = 0xFFFF, .dest_qp = 0xABCDEF, .psn = 0xFFFFFF };
			roce_reth reth = { .va = 0x1122334455667788ULL, .rkey = 0x01020304, .dma_len = 100000 };
			uint8_t data[64];
			for (uint32_t i = 0; i < len; i++)
				data[i] = (uint8_t)(i + len);
			roce_seg seg = { data, len };
			sim_frame *f = roce_build(pool, &a, &bth, &reth, NULL, &seg, 1);
			cr_assert_eq(f->len, roce_overhead(v, true, ROCE_OP_WRITE_FIRST) + ((len + 3) & ~3u));
			roce_pkt p;
			smcr_decode_err err;
			cr_assert_eq(roce_parse(f->data, f->len, &p, &err), 0, "len %u", len);
			cr_assert_eq(p.bth.pad, (4 - len % 4) % 4);
			cr_assert_eq(p.payload_len, len);
			cr_assert_eq(memcmp(p.payload, data, len), 0);
			cr_assert_eq(p.addr.vlan_tci, (3u << 13) | 100);
			cr_assert_eq(p.bth.dest_qp, 0xABCDEF);
			cr_assert_eq(p.bth.psn, 0xFFFFFF);
			cr_assert_eq(p.reth.va, 0x1122334455667788ULL);
			cr_assert_eq(p.reth.dma_len, 100000);
			sim_frame_free(f);
		}
	}
}

Test(roce, every_truncation_is_rejected_without_reading_past_the_end)
{
	const uint8_t *frames[] = { v2_send, v2_ack, v2_write, v1_send, v1_ack, v1_write };
	size_t lens[] = { sizeof(v2_send) - 1, sizeof(v2_ack) - 1, sizeof(v2_write) - 1,
		          sizeof(v1_send) - 1, sizeof(v1_ack) - 1, sizeof(v1_write) - 1 };
	for (size_t k = 0; k < 6; k++) {
		for (size_t n = 0; n < lens[k]; n++) {
			/* a heap copy of exactly n bytes, so ASan catches any over-read */
			uint8_t *copy = malloc(n ? n : 1);
			memcpy(copy, frames[k], n);
			roce_pkt p;
			smcr_decode_err err;
			cr_assert_lt(roce_parse(copy, (uint32_t)n, &p, &err), 0, "frame %zu cut to %zu", k, n);
			free(copy);
		}
	}
}

static void expect_error(const uint8_t *frame, size_t len, int code, const char *field)
{
	roce_pkt p;
	smcr_decode_err err = { 0 };
	int rc = roce_parse(frame, (uint32_t)len, &p, &err);
	cr_assert_eq(rc, code, "rc %d (%s), want %d", rc, smcr_err_name(rc), code);
	cr_assert_str_eq(err.field, field);
}

Test(roce, bad_fields_are_named_precisely)
{
	uint8_t f[200];
	size_t n2 = sizeof(v2_send) - 1, n1 = sizeof(v1_send) - 1;

	memcpy(f, v2_send, n2);
	f[60] ^= 0x10; /* a payload bit */
	expect_error(f, n2, SMCR_ERR_FIELD, "ICRC");

	memcpy(f, v2_send, n2);
	f[n2 - 1] ^= 0xFF;
	expect_error(f, n2, SMCR_ERR_FIELD, "ICRC");

	memcpy(f, v2_send, n2);
	f[14 + 10] ^= 1;
	expect_error(f, n2, SMCR_ERR_FIELD, "IPv4 header checksum");

	memcpy(f, v2_send, n2);
	f[36] = 0x12, f[37] = 0xb8; /* UDP port 4792 */
	expect_error(f, n2, SMCR_ERR_TYPE, "UDP destination port");

	memcpy(f, v2_send, n2);
	f[12] = 0x08, f[13] = 0x06; /* ARP */
	expect_error(f, n2, SMCR_ERR_TYPE, "ethertype");

	memcpy(f, v2_send, n2);
	f[42] = 0x64; /* UD SEND: not RC */
	expect_error(f, n2, SMCR_ERR_TYPE, "BTH OpCode");

	memcpy(f, v1_send, n1);
	f[14 + 6] = 0x1C;
	expect_error(f, n1, SMCR_ERR_FIELD, "GRH NxtHdr");

	memcpy(f, v1_send, n1);
	f[n1] = 0; /* one byte (an FCS, say) after the ICRC */
	expect_error(f, n1 + 1, SMCR_ERR_LENGTH, "GRH PayLen");

	memcpy(f, v1_send, n1);
	f[14 + 40 + 1] |= 0x01; /* TVer 1 */
	expect_error(f, n1, SMCR_ERR_VERSION, "BTH TVer");

	/* RoCE v2 may carry Ethernet padding after the IP packet: still fine */
	memcpy(f, v2_ack, sizeof(v2_ack) - 1);
	memset(f + sizeof(v2_ack) - 1, 0, 4);
	roce_pkt p;
	smcr_decode_err err;
	cr_assert_eq(roce_parse(f, sizeof(v2_ack) - 1 + 4, &p, &err), 0);
}

Test(roce, decode_error_message_names_field_and_offset)
{
	uint8_t f[200];
	size_t n = sizeof(v2_send) - 1;
	memcpy(f, v2_send, n);
	f[n - 2] ^= 1;
	roce_pkt p;
	smcr_decode_err err;
	cr_assert_lt(roce_parse(f, (uint32_t)n, &p, &err), 0);
	char line[256];
	smcr_decode_err_format(&err, line, sizeof(line));
	cr_assert(strstr(line, "RoCE v2"), "%s", line);
	cr_assert(strstr(line, "ICRC"), "%s", line);
	cr_assert(strstr(line, "98"), "offset of the ICRC: %s", line);
	cr_assert(strstr(line, "0x76b985e1"), "expected value: %s", line);
}

Test(roce, psn_arithmetic_wraps_at_24_bits)
{
	cr_assert_eq(roce_psn_add(0xFFFFFF, 1), 0);
	cr_assert_eq(roce_psn_diff(0, 0xFFFFFF), 1);
	cr_assert_eq(roce_psn_diff(0xFFFFFF, 0), -1);
	cr_assert_eq(roce_psn_diff(5, 5), 0);
	cr_assert_eq(roce_psn_diff(0x7FFFFF, 0), 0x7FFFFF);
}
