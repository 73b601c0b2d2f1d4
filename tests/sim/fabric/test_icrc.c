/* CRC-32 implementations and the RoCE ICRC against published and independent vectors. */
#include <criterion/criterion.h>
#include <string.h>

#include "model/byteorder.h"
#include "sim/fabric/icrc.h"
#include "sim/engine/rng.h"
#include "sim/fabric/roce.h"

Test(icrc, crc32_check_value_of_123456789)
{
	/* the catalogue check value of CRC-32/ISO-HDLC (zlib, Ethernet) */
	cr_assert_eq(icrc_crc32(0, "123456789", 9), 0xCBF43926u);
	cr_assert_eq(icrc_crc32_table(0, "123456789", 9), 0xCBF43926u);
	cr_assert_eq(icrc_crc32_clmul(0, "123456789", 9), 0xCBF43926u);
	cr_assert_eq(icrc_crc32(0, "", 0), 0u);
}

Test(icrc, folding_and_table_agree_on_random_buffers)
{
	cr_assert(icrc_have_clmul(), "this machine should have PCLMULQDQ (the fast path is what is tested)");
	static uint8_t buf[9000 + 64];
	sim_rng r;
	sim_rng_stream(&r, 7, "test.icrc", 0);
	sim_rng_bytes(&r, buf, sizeof(buf));
	for (int i = 0; i < 3000; i++) {
		size_t off = sim_rng_below(&r, 64);
		size_t len = i < 300 ? (size_t)i : sim_rng_below(&r, 9000);
		uint32_t seed = i % 3 ? sim_rng_u32(&r) : 0;
		uint32_t t = icrc_crc32_table(seed, buf + off, len);
		uint32_t c = icrc_crc32_clmul(seed, buf + off, len);
		cr_assert_eq(t, c, "len %zu off %zu: table %08x clmul %08x", len, off, t, c);
		cr_assert_eq(icrc_crc32(seed, buf + off, len), t);
	}
}

Test(icrc, chaining_equals_one_pass)
{
	static uint8_t buf[5000];
	sim_rng r;
	sim_rng_stream(&r, 7, "test.icrc.chain", 0);
	sim_rng_bytes(&r, buf, sizeof(buf));
	uint32_t whole = icrc_crc32(0, buf, sizeof(buf));
	for (size_t cut = 0; cut <= sizeof(buf); cut += 97)
		cr_assert_eq(icrc_crc32(icrc_crc32(0, buf, cut), buf + cut, sizeof(buf) - cut), whole, "cut %zu", cut);
}

/* A short first part (a masked header) and the rest folded as one message: the same as
 * chaining, across every head length and the lengths where the folding changes gear. */
Test(icrc, two_parts_in_one_pass_equal_chaining)
{
	static uint8_t buf[9000 + 64], head[96];
	sim_rng r;
	sim_rng_stream(&r, 7, "test.icrc.two", 0);
	sim_rng_bytes(&r, buf, sizeof(buf));
	sim_rng_bytes(&r, head, sizeof(head));
	size_t lens[] = { 0, 1, 15, 16, 17, 23, 24, 40, 63, 64, 100, 255, 447, 448, 460, 500, 511, 512, 4112, 9000 };
	for (size_t alen = 0; alen <= 80; alen++) {
		for (size_t k = 0; k < sizeof(lens) / sizeof(lens[0]); k++) {
			size_t off = sim_rng_below(&r, 64), blen = lens[k];
			uint32_t seed = alen % 2 ? sim_rng_u32(&r) : 0;
			uint32_t want = icrc_crc32_table(icrc_crc32_table(seed, head, alen), buf + off, blen);
			uint32_t got = icrc_crc32_2(seed, head, alen, buf + off, blen);
			cr_assert_eq(got, want, "alen %zu blen %zu: %08x, chained %08x", alen, blen, got, want);
		}
	}
}

/* The copy that pays for its CRC: the bytes arrive as memcpy puts them and the CRC is the
 * table's, at every length across the gear changes (64- and 256-byte rounds, the tails),
 * from and to misaligned places, without touching a byte around the destination. */
Test(icrc, copying_and_summing_in_one_pass_equal_each_alone)
{
	static uint8_t src[9000 + 64], dst[9000 + 128];
	sim_rng r;
	sim_rng_stream(&r, 7, "test.icrc.copy", 0);
	sim_rng_bytes(&r, src, sizeof(src));
	for (int i = 0; i < 2600; i++) {
		size_t len = i < 2200 ? (size_t)i : 4000 + sim_rng_below(&r, 5000);
		size_t so = sim_rng_below(&r, 64), d_o = 1 + sim_rng_below(&r, 63);
		uint32_t seed = i % 3 ? sim_rng_u32(&r) : 0;
		memset(dst, 0x5A, sizeof(dst));
		uint32_t got = icrc_crc32_copy(seed, dst + d_o, src + so, len);
		cr_assert_eq(got, icrc_crc32_table(seed, src + so, len), "len %zu", len);
		cr_assert_eq(memcmp(dst + d_o, src + so, len), 0, "len %zu: the bytes", len);
		cr_assert_eq(dst[d_o - 1], 0x5A, "len %zu: nothing before", len);
		cr_assert_eq(dst[d_o + len], 0x5A, "len %zu: nothing after", len);
	}
}

Test(icrc, eight_ones_prefix_constant)
{
	static const uint8_t ff[8] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	cr_assert_eq(icrc_crc32(0, ff, 8), 0x2144df1cu);
}

/* A real ConnectX-4 Lx RoCE v2 CNP frame (the scapy test vector used by mkpcap.py
 * --selftest): its ICRC on the wire is 82 fd 00 2a. */
Test(icrc, roce_v2_vector_from_real_hardware)
{
	static const uint8_t frame[] =
	        "\xe4\x1d\x2d\xab\x2b\xc2\x7c\xfe\x90\x64\x3b\x32\x08\x00\x45\xc2"
	        "\x00\x3c\x71\x8c\x40\x00\x40\x11\x91\x61\x0a\x00\x11\x01\x0a\x00"
	        "\x12\x01\x00\x00\x12\xb7\x00\x28\x00\x00\x81\x00\xff\xff\x40\x00"
	        "\x01\x18\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"
	        "\x00\x00\x00\x00\x00\x00\x82\xfd\x00\x2a";
	size_t len = sizeof(frame) - 1;
	cr_assert_eq(len, 74);
	uint32_t crc = roce_icrc(ROCE_V2, frame + 14, (uint32_t)(len - 14 - 4));
	cr_assert_eq(crc, 0x2a00fd82u, "got %08x", crc);
	cr_assert_eq(crc, get_le32(frame + len - 4));
}

/* Frame 8 of the Wireshark fixture (RoCE v2 SEND ONLY, LLC CONFIRM LINK): the recipe
 * computed zlib.crc32 = 0x76b985e1, wire bytes e1 85 b9 76. */
Test(icrc, fixture_frame_8)
{
	static const uint8_t frame[] =
	        "\x02\x00\x00\x00\x00\x01\x02\x00\x00\x00\x00\x02\x08\x00\x45\x02"
	        "\x00\x58\x10\x08\x40\x00\x40\x11\x16\x89\x0a\x00\x00\x02\x0a\x00"
	        "\x00\x01\xc1\x12\x12\xb7\x00\x44\x00\x00\x04\x80\xff\xff\x00\x00"
	        "\x01\x11\x80\x00\xa1\xb2\x01\x2c\x00\x00\x02\x00\x00\x00\x00\x02"
	        "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\xff\xff\x0a\x00\x00\x02"
	        "\x00\x01\x12\x01\x00\x00\x01\x00\x02\x00\x00\x00\x00\x00\x00\x00"
	        "\x00\x00\xe1\x85\xb9\x76";
	uint32_t len = sizeof(frame) - 1;
	cr_assert_eq(roce_icrc(ROCE_V2, frame + 14, len - 18), 0x76b985e1u);
	roce_pkt pkt;
	smcr_decode_err err;
	cr_assert_eq(roce_parse(frame, len, &pkt, &err), 0);
	cr_assert_eq(pkt.icrc, 0x76b985e1u);
}

Test(icrc, masked_fields_do_not_change_the_icrc)
{
	/* TOS, TTL, IP checksum, UDP checksum and BTH byte 4 are masked: changing them keeps
	 * the ICRC; changing anything else changes it */
	static const uint8_t base[] =
	        "\x02\x00\x00\x00\x00\x01\x02\x00\x00\x00\x00\x02\x08\x00\x45\x02"
	        "\x00\x30\x10\x0a\x40\x00\x40\x11\x16\xaf\x0a\x00\x00\x02\x0a\x00"
	        "\x00\x01\xc1\x12\x12\xb7\x00\x1c\x00\x00\x11\x00\xff\xff\x00\x00"
	        "\x01\x11\x00\x00\xc0\xde\x1f\x00\x00\x01\xbf\x16\xbb\x75";
	uint8_t f[sizeof(base)];
	uint32_t len = sizeof(base) - 1, l3len = len - 18;
	uint32_t want = roce_icrc(ROCE_V2, base + 14, l3len);
	static const unsigned masked[] = { 14 + 1, 14 + 8, 14 + 10, 14 + 11, 34 + 6, 34 + 7, 42 + 4 };
	for (size_t i = 0; i < sizeof(masked) / sizeof(masked[0]); i++) {
		memcpy(f, base, sizeof(base));
		f[masked[i]] ^= 0x5a;
		cr_assert_eq(roce_icrc(ROCE_V2, f + 14, l3len), want, "byte %u is masked", masked[i]);
	}
	for (unsigned b = 14; b < len - 4; b++) {
		bool is_masked = false;
		for (size_t i = 0; i < sizeof(masked) / sizeof(masked[0]); i++)
			is_masked |= masked[i] == b;
		if (is_masked)
			continue;
		memcpy(f, base, sizeof(base));
		f[b] ^= 0x01;
		cr_assert_neq(roce_icrc(ROCE_V2, f + 14, l3len), want, "byte %u is covered", b);
	}
}

/* The ICRC by its definition (eight bytes of ones, then the packet with its variant fields
 * masked, by the table) against roce_icrc at every length on both sides of its one-copy
 * path for short packets, both versions. */
static uint32_t icrc_by_definition(roce_version v, const uint8_t *l3, uint32_t n)
{
	static const uint8_t ones[8] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	uint8_t m[400];
	memcpy(m, l3, n);
	if (v == ROCE_V2) {
		m[1] = m[8] = m[10] = m[11] = m[26] = m[27] = m[32] = 0xff;
	} else {
		m[0] |= 0x0f;
		m[1] = m[2] = m[3] = m[7] = m[44] = 0xff;
	}
	return icrc_crc32_table(icrc_crc32_table(0, ones, 8), m, n);
}

Test(icrc, roce_icrc_matches_its_definition_at_every_length)
{
	uint8_t pkt[400];
	for (unsigned i = 0; i < sizeof pkt; i++)
		pkt[i] = (uint8_t)(i * 37u + 11u);
	for (roce_version v = ROCE_V1; v <= ROCE_V2; v++) {
		uint32_t hl = v == ROCE_V2 ? 40u : 52u;
		for (uint32_t n = hl; n <= sizeof pkt; n++)
			cr_assert_eq(roce_icrc(v, pkt, n), icrc_by_definition(v, pkt, n), "version %d, %u bytes", v, n);
	}
}
