/* CLC codecs: golden bytes (real Linux captures, the Wireshark fixture, kernel layouts),
 * round trips of every variant, Linux's validation rules one by one, robustness. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/clc.h"
#include "model/smcr_err.h"
#include "model/byteorder.h"
#include "tests/support/bytes.h"

/* ---- real bytes ---------------------------------------------------------------------- */

/* hwipl/smc handshake/README.md: Linux SMC-R v1 over IPv4 loopback (old RFC layout Proposal). */
static const char hwipl_proposal_hex[] =
        "e2 d4 c3 d9 01 00 34 10  b1 a0 98 03 9b ab cd ef"
        "fe 80 00 00 00 00 00 00  9a 03 9b ff fe ab cd ef"
        "98 03 9b ab cd ef 00 00  7f 00 00 00 08 00 00 00"
        "e2 d4 c3 d9";
static const char hwipl_proposal6_hex[] =
        "e2 d4 c3 d9 01 00 45 10  39 44 98 03 9b ab cd ef"
        "fe 80 00 00 00 00 00 00  9a 03 9b ff fe ab cd ef"
        "98 03 9b ab cd ef 00 00  00 00 00 00 00 00 00 01"
        "00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 01"
        "80 e2 d4 c3 d9";
static const char hwipl_accept_hex[] =
        "e2 d4 c3 d9 02 00 44 18  b1 a0 98 03 9b ab cd ef"
        "fe 80 00 00 00 00 00 00  9a 03 9b ff fe ab cd ef"
        "98 03 9b ab cd ef 00 00  e4 00 00 15 7d 01 00 00"
        "00 05 23 00 00 00 00 00  f0 a6 00 00 00 72 f5 fe"
        "e2 d4 c3 d9";
static const char hwipl_confirm_hex[] =
        "e2 d4 c3 d9 03 00 44 10  b1 a0 98 03 9b ab cd ef"
        "fe 80 00 00 00 00 00 00  9a 03 9b ff fe ab cd ef"
        "98 03 9b ab cd ef 00 00  e5 00 00 18 7f 01 00 00"
        "00 06 23 00 00 00 00 00  f0 a4 00 00 00 0d 89 a4"
        "e2 d4 c3 d9";
static const char hwipl_decline_hex[] =
        "e2 d4 c3 d9 04 00 1c 10  25 25 25 25 25 25 25 00"
        "03 03 00 00 00 00 00 00  e2 d4 c3 d9";

/* The Wireshark fixture capture (tests/data/replay/wireshark-fixture-rocev2.pcap) frames 4, 5, 6, 18 (tshark decodes them
 * without warnings, expected/rocev2.detail.txt). */
static const char fixture_proposal_hex[] =
        "e2d4c3d901005c101a2b02000000000100000000000000000000ffff0a000001020000000001002800000000"
        "0000000000000000000000000000000000000000000000000000000000000000000000000a00000018000000e2d4c3d9";
static const char fixture_accept_hex[] =
        "e2d4c3d9020044183c4d02000000000200000000000000000000ffff0a00000202000000000200011200003c4d"
        "0100000101030000007f00567800000000a1b2e2d4c3d9";
static const char fixture_confirm_hex[] =
        "e2d4c3d9030044181a2b02000000000100000000000000000000ffff0a00000102000000000100011100001a2b"
        "0100000201030000007f00123400000000c0dee2d4c3d9";
static const char fixture_decline_hex[] = "e2d4c3d904001c103c4d0200000000020303000000000000e2d4c3d9";

/* The annotated Accept of the protocol digest (§2.4). */
static const char digest_accept_hex[] =
        "E2 D4 C3 D9 02 00 44 18 3A 7C 02 11 22 33 44 55"
        "FE 80 00 00 00 00 00 00 00 11 22 FF FE 33 44 55"
        "02 11 22 33 44 55 00 01 2C 00 00 A0 07 01 00 00 00 2A"
        "23 00 00 00 00 01 F0 40 00 00 00 5E 0B 7C E2 D4 C3 D9";

/* ---- Linux v2 forms, laid out from the kernel structs (smc_clc.h) --------------------- */
/* prop_v1only: 92 bytes */
static const char prop_v1only_hex[] =
        "e2 d4 c3 d9 01 00 5c 28 3a 7c 02 11 22 33 44 55 fe 80 00 00 00 00 00 00 00 11 22 ff fe 33 44 55"
        "02 11 22 33 44 55 00 28 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00"
        "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 0a 00 00 00 18 00 00 00 e2 d4 c3 d9";
/* prop_v1v2: 164 bytes */
static const char prop_v1v2_hex[] =
        "e2 d4 c3 d9 01 00 a4 20 3a 7c 02 11 22 33 44 55 fe 80 00 00 00 00 00 00 00 11 22 ff fe 33 44 55"
        "02 11 22 33 44 55 00 28 00 00 00 00 00 00 00 00 00 00 00 24 00 00 00 00 00 00 00 00 00 00 00 00"
        "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 0a 00 00 00 18 00 00 00 01 00 00 10 00 00 00 00"
        "00 00 00 00 00 00 00 00 00 00 ff ff 0a 00 00 01 ff 02 00 01 00 00 00 00 00 00 00 00 00 00 00 00"
        "53 4d 43 52 2d 53 49 4d 2d 54 45 53 54 20 20 20 20 20 20 20 20 20 20 20 20 20 20 20 20 20 20 20"
        "e2 d4 c3 d9";
/* prop_v2only: 156 bytes */
static const char prop_v2only_hex[] =
        "e2 d4 c3 d9 01 00 9c 22 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00"
        "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 1c 00 00 00 00 00 00 00 00 00 00 00 00"
        "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 01 00 00 10 00 00 00 00 00 00 00 00 00 00 00 00"
        "00 00 ff ff 0a 00 00 01 ff 02 00 01 00 00 00 00 00 00 00 00 00 00 00 00 53 4d 43 52 2d 53 49 4d"
        "2d 54 45 53 54 20 20 20 20 20 20 20 20 20 20 20 20 20 20 20 20 20 20 20 e2 d4 c3 d9";
/* acc_v2_fc: 160 bytes */
static const char acc_v2_fc_hex[] =
        "e2 d4 c3 d9 02 00 a0 28 3a 7c 02 11 22 33 44 55 00 00 00 00 00 00 00 00 00 00 ff ff 0a 00 00 02"
        "02 11 22 33 44 55 00 01 12 00 00 3c 4d 01 00 00 01 01 23 00 00 00 7f 00 56 78 00 00 00 00 a1 b2"
        "53 4d 43 52 2d 53 49 4d 2d 54 45 53 54 20 20 20 20 20 20 20 20 20 20 20 20 20 20 20 20 20 20 20"
        "00 00 00 00 00 00 00 00 80 21 00 00 73 65 72 76 65 72 31 20 20 20 20 20 20 20 20 20 20 20 20 20"
        "20 20 20 20 20 20 20 20 20 20 20 20 ff 02 00 01 00 00 00 00 00 00 00 00 00 00 00 00 e2 d4 c3 d9";
/* acc_v2: 108 bytes */
static const char acc_v2_hex[] =
        "e2 d4 c3 d9 02 00 6c 20 3a 7c 02 11 22 33 44 55 00 00 00 00 00 00 00 00 00 00 ff ff 0a 00 00 02"
        "02 11 22 33 44 55 00 01 12 00 00 3c 4d 01 00 00 01 01 23 00 00 00 7f 00 56 78 00 00 00 00 a1 b2"
        "53 4d 43 52 2d 53 49 4d 2d 54 45 53 54 20 20 20 20 20 20 20 20 20 20 20 20 20 20 20 20 20 20 20"
        "00 00 00 00 00 00 00 00 e2 d4 c3 d9";
/* conf_v2_fc1: 180 bytes */
static const char conf_v2_fc1_hex[] =
        "e2 d4 c3 d9 03 00 b4 28 3a 7c 02 11 22 33 44 55 00 00 00 00 00 00 00 00 00 00 ff ff 0a 00 00 02"
        "02 11 22 33 44 55 00 01 12 00 00 3c 4d 01 00 00 01 01 23 00 00 00 7f 00 56 78 00 00 00 00 a1 b2"
        "53 4d 43 52 2d 53 49 4d 2d 54 45 53 54 20 20 20 20 20 20 20 20 20 20 20 20 20 20 20 20 20 20 20"
        "00 00 00 00 00 00 00 00 80 21 00 00 73 65 72 76 65 72 31 20 20 20 20 20 20 20 20 20 20 20 20 20"
        "20 20 20 20 20 20 20 20 20 20 20 20 ff 02 00 01 00 00 00 00 00 00 00 00 00 00 00 00 01 00 00 00"
        "00 00 00 00 00 00 00 00 00 00 ff ff 0a 00 00 01 e2 d4 c3 d9";
/* decl_v2: 44 bytes */
static const char decl_v2_hex[] =
        "e2 d4 c3 d9 04 00 2c 20 3a 7c 02 11 22 33 44 55 03 03 00 08 20 00 00 00 00 00 00 00 00 00 00 00"
        "00 00 00 00 00 00 00 00 e2 d4 c3 d9";
/* decl_v2_oos: 44 bytes */
static const char decl_v2_oos_hex[] =
        "e2 d4 c3 d9 04 00 2c 28 3a 7c 02 11 22 33 44 55 04 00 00 00 20 00 00 00 00 00 00 00 00 00 00 00"
        "00 00 00 00 00 00 00 00 e2 d4 c3 d9";

/* ---- host forms as Linux fills them ------------------------------------------------- */

static const uint8_t PEER[8] = { 0x3a, 0x7c, 0x02, 0x11, 0x22, 0x33, 0x44, 0x55 };
static const uint8_t GID_V1[16] = { 0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x00, 0x11, 0x22, 0xff, 0xfe, 0x33, 0x44, 0x55 };
static const uint8_t MAC[6] = { 0x02, 0x11, 0x22, 0x33, 0x44, 0x55 };
static const uint8_t GID_C[16] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 0, 1 };
static const uint8_t GID_S[16] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 0, 2 };

static void blank_pad(char *dst, const char *s, size_t n)
{
	memset(dst, ' ', n);
	memcpy(dst, s, strlen(s));
}

/* What smc_clc_send_proposal builds for an IPv4 client on 10.0.0.1/24 with one UEID. */
static smcr_clc_proposal linux_proposal(smcr_clc_smc_type v1, smcr_clc_smc_type v2)
{
	smcr_clc_proposal p;
	memset(&p, 0, sizeof(p));
	p.version = 2;
	p.typev1 = v1;
	p.typev2 = v2;
	if (v1 == SMCR_CLC_TYPE_R) {
		memcpy(p.peer_id, PEER, 8);
		memcpy(p.gid, GID_V1, 16);
		memcpy(p.mac, MAC, 6);
		p.iparea_offset = 40;
		p.ipv4_subnet = 0x0a000000;
		p.ipv4_prefix_len = 24;
	}
	if (v2 == SMCR_CLC_TYPE_R) {
		p.n_eids = 1;
		blank_pad(p.eids[0], "SMCR-SIM-TEST", SMCR_EID_LEN);
		p.release = 1;
		memcpy(p.roce_v2_gid, GID_C, 16);
		p.max_conns = 255;
		p.max_links = 2;
		p.feature_mask = 1;
	}
	return p;
}

/* What smcr_clc_prep_confirm_accept builds for the server / client of the v2 examples. */
static smcr_clc_accept linux_accept(smcr_clc_type type, uint8_t version, bool fc, uint8_t n_gids)
{
	smcr_clc_accept a;
	memset(&a, 0, sizeof(a));
	a.type = type;
	a.version = version;
	a.first_contact = fc;
	memcpy(a.peer_id, PEER, 8);
	memcpy(a.gid, GID_S, 16);
	memcpy(a.mac, MAC, 6);
	a.qpn = 0x112;
	a.rkey = 0x3c4d;
	a.rmbe_idx = 1;
	a.rmbe_alert_token = 0x101;
	a.rmbe_size = 2;
	a.qp_mtu = 3;
	a.rmb_vaddr = 0x7f0056780000ull;
	a.psn = 0xa1b2;
	if (version == 2) {
		blank_pad(a.eid, "SMCR-SIM-TEST", SMCR_EID_LEN);
		if (fc) {
			a.fce.v2_direct = true;
			a.fce.os_type = SMCR_CLC_OS_LINUX;
			a.fce.release = 1;
			blank_pad(a.fce.hostname, "server1", SMCR_HOSTNAME_LEN);
			a.fce.max_conns = 255;
			a.fce.max_links = 2;
			a.fce.feature_mask = 1;
		}
		a.n_gids = n_gids;
		for (unsigned i = 0; i < n_gids; i++)
			memcpy(a.gids[i], GID_C, 16);
	}
	return a;
}

static smcr_clc_decline linux_decline(uint8_t version, uint32_t diag, bool oos)
{
	smcr_clc_decline d;
	memset(&d, 0, sizeof(d));
	d.version = version;
	d.out_of_sync = oos;
	memcpy(d.peer_id, PEER, 8);
	d.diagnosis = diag;
	d.os_type = version == 2 ? SMCR_CLC_OS_LINUX : 0;
	return d;
}

static void check_proposal_golden(const char *hex, const smcr_clc_proposal *want)
{
	uint8_t wire[600], out[1024];
	size_t n = bytes_from_hex(hex, wire, sizeof(wire));
	smcr_clc_proposal got;
	smcr_decode_err err = { 0 };
	cr_assert_eq(smcr_clc_decode_proposal(&got, wire, n, &err), 0, "%s %s", err.field, err.expected);
	cr_assert(memcmp(&got, want, sizeof(got)) == 0, "decoded Proposal differs from the expected host form");
	ssize_t len = smcr_clc_encode_proposal(out, sizeof(out), want);
	cr_assert_gt(len, 0);
	bytes_assert_eq(out, (size_t)len, wire, n);
}

static void check_accept_golden(const char *hex, const smcr_clc_accept *want)
{
	uint8_t wire[600], out[1024];
	size_t n = bytes_from_hex(hex, wire, sizeof(wire));
	smcr_clc_accept got;
	smcr_decode_err err = { 0 };
	cr_assert_eq(smcr_clc_decode_accept(&got, wire, n, &err), 0, "%s %s", err.field, err.expected);
	cr_assert(memcmp(&got, want, sizeof(got)) == 0, "decoded Accept/Confirm differs from the expected host form");
	ssize_t len = smcr_clc_encode_accept(out, sizeof(out), want);
	cr_assert_gt(len, 0);
	bytes_assert_eq(out, (size_t)len, wire, n);
}

static void check_decline_golden(const char *hex, const smcr_clc_decline *want)
{
	uint8_t wire[64], out[64];
	size_t n = bytes_from_hex(hex, wire, sizeof(wire));
	smcr_clc_decline got;
	smcr_decode_err err = { 0 };
	cr_assert_eq(smcr_clc_decode_decline(&got, wire, n, &err), 0, "%s %s", err.field, err.expected);
	cr_assert(memcmp(&got, want, sizeof(got)) == 0, "decoded Decline differs from the expected host form");
	ssize_t len = smcr_clc_encode_decline(out, sizeof(out), want);
	cr_assert_gt(len, 0);
	bytes_assert_eq(out, (size_t)len, wire, n);
}

/* ---- golden ------------------------------------------------------------------------- */

Test(clc, real_linux_rfc_layout_proposals_decode_and_reencode_identically)
{
	smcr_clc_proposal p;
	memset(&p, 0, sizeof(p));
	p.version = 1;
	p.typev1 = SMCR_CLC_TYPE_R;
	p.typev2 = SMCR_CLC_TYPE_NONE;
	memcpy(p.peer_id, (const uint8_t[]){ 0xb1, 0xa0, 0x98, 0x03, 0x9b, 0xab, 0xcd, 0xef }, 8);
	memcpy(p.gid, (const uint8_t[]){ 0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x9a, 0x03, 0x9b, 0xff, 0xfe, 0xab, 0xcd, 0xef }, 16);
	memcpy(p.mac, (const uint8_t[]){ 0x98, 0x03, 0x9b, 0xab, 0xcd, 0xef }, 6);
	p.rfc_layout = true;
	p.ipv4_subnet = 0x7f000000;
	p.ipv4_prefix_len = 8;
	check_proposal_golden(hwipl_proposal_hex, &p);

	memcpy(p.peer_id, (const uint8_t[]){ 0x39, 0x44, 0x98, 0x03, 0x9b, 0xab, 0xcd, 0xef }, 8);
	p.ipv4_subnet = 0;
	p.ipv4_prefix_len = 0;
	p.n_ipv6 = 1;
	p.ipv6[0].prefix[15] = 1; /* ::1/128 */
	p.ipv6[0].len = 128;
	check_proposal_golden(hwipl_proposal6_hex, &p);
}

Test(clc, fixture_proposal_with_smcd_area_decodes_and_reencodes_identically)
{
	smcr_clc_proposal p;
	memset(&p, 0, sizeof(p));
	p.version = 1;
	p.typev1 = SMCR_CLC_TYPE_R;
	p.typev2 = SMCR_CLC_TYPE_NONE;
	memcpy(p.peer_id, (const uint8_t[]){ 0x1a, 0x2b, 0x02, 0, 0, 0, 0, 0x01 }, 8);
	memcpy(p.gid, GID_C, 16);
	memcpy(p.mac, (const uint8_t[]){ 0x02, 0, 0, 0, 0, 0x01 }, 6);
	p.iparea_offset = 40;
	p.ipv4_subnet = 0x0a000000;
	p.ipv4_prefix_len = 24;
	check_proposal_golden(fixture_proposal_hex, &p);
}

Test(clc, real_linux_accept_and_confirm_decode_and_reencode_identically)
{
	smcr_clc_accept a;
	memset(&a, 0, sizeof(a));
	a.type = SMCR_CLC_ACCEPT;
	a.version = 1;
	a.first_contact = true;
	memcpy(a.peer_id, (const uint8_t[]){ 0xb1, 0xa0, 0x98, 0x03, 0x9b, 0xab, 0xcd, 0xef }, 8);
	memcpy(a.gid, (const uint8_t[]){ 0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x9a, 0x03, 0x9b, 0xff, 0xfe, 0xab, 0xcd, 0xef }, 16);
	memcpy(a.mac, (const uint8_t[]){ 0x98, 0x03, 0x9b, 0xab, 0xcd, 0xef }, 6);
	a.qpn = 228;
	a.rkey = 5501;
	a.rmbe_idx = 1;
	a.rmbe_alert_token = 5;
	a.rmbe_size = 2;
	a.qp_mtu = 3;
	a.rmb_vaddr = 0xf0a60000;
	a.psn = 7534078;
	check_accept_golden(hwipl_accept_hex, &a);

	a.type = SMCR_CLC_CONFIRM;
	a.first_contact = false;
	a.qpn = 229;
	a.rkey = 6271;
	a.rmbe_alert_token = 6;
	a.rmb_vaddr = 0xf0a40000;
	a.psn = 887204;
	check_accept_golden(hwipl_confirm_hex, &a);
}

Test(clc, fixture_accept_and_confirm_decode_and_reencode_identically)
{
	smcr_clc_accept a;
	memset(&a, 0, sizeof(a));
	a.type = SMCR_CLC_ACCEPT;
	a.version = 1;
	a.first_contact = true;
	memcpy(a.peer_id, (const uint8_t[]){ 0x3c, 0x4d, 0x02, 0, 0, 0, 0, 0x02 }, 8);
	memcpy(a.gid, GID_S, 16);
	memcpy(a.mac, (const uint8_t[]){ 0x02, 0, 0, 0, 0, 0x02 }, 6);
	a.qpn = 0x112;
	a.rkey = 0x3c4d;
	a.rmbe_idx = 1;
	a.rmbe_alert_token = 0x101;
	a.rmbe_size = 0;
	a.qp_mtu = 3;
	a.rmb_vaddr = 0x7f0056780000ull;
	a.psn = 0xa1b2;
	check_accept_golden(fixture_accept_hex, &a);

	a.type = SMCR_CLC_CONFIRM;
	memcpy(a.peer_id, (const uint8_t[]){ 0x1a, 0x2b, 0x02, 0, 0, 0, 0, 0x01 }, 8);
	memcpy(a.gid, GID_C, 16);
	memcpy(a.mac, (const uint8_t[]){ 0x02, 0, 0, 0, 0, 0x01 }, 6);
	a.qpn = 0x111;
	a.rkey = 0x1a2b;
	a.rmbe_alert_token = 0x201;
	a.rmb_vaddr = 0x7f0012340000ull;
	a.psn = 0xc0de;
	check_accept_golden(fixture_confirm_hex, &a);
}

Test(clc, digest_annotated_accept_decodes_field_by_field)
{
	smcr_clc_accept a;
	memset(&a, 0, sizeof(a));
	a.type = SMCR_CLC_ACCEPT;
	a.version = 1;
	a.first_contact = true;
	memcpy(a.peer_id, PEER, 8);
	memcpy(a.gid, GID_V1, 16);
	memcpy(a.mac, MAC, 6);
	a.qpn = 0x12c;
	a.rkey = 0xa007;
	a.rmbe_idx = 1;
	a.rmbe_alert_token = 42;
	a.rmbe_size = 2;
	a.qp_mtu = 3;
	a.rmb_vaddr = 0x1f0400000ull;
	a.psn = 0x5e0b7c;
	check_accept_golden(digest_accept_hex, &a);
}

Test(clc, real_and_fixture_declines_decode_and_reencode_identically)
{
	smcr_clc_decline d;
	memset(&d, 0, sizeof(d));
	d.version = 1;
	memcpy(d.peer_id, (const uint8_t[]){ 0x25, 0x25, 0x25, 0x25, 0x25, 0x25, 0x25, 0x00 }, 8);
	d.diagnosis = SMCR_DECL_NOSMCDEV;
	check_decline_golden(hwipl_decline_hex, &d);
	memcpy(d.peer_id, (const uint8_t[]){ 0x3c, 0x4d, 0x02, 0, 0, 0, 0, 0x02 }, 8);
	check_decline_golden(fixture_decline_hex, &d);
}

Test(clc, linux_v2_format_proposals_match_the_kernel_layout)
{
	smcr_clc_proposal p = linux_proposal(SMCR_CLC_TYPE_R, SMCR_CLC_TYPE_NONE);
	check_proposal_golden(prop_v1only_hex, &p);
	p = linux_proposal(SMCR_CLC_TYPE_R, SMCR_CLC_TYPE_R);
	check_proposal_golden(prop_v1v2_hex, &p);
	p = linux_proposal(SMCR_CLC_TYPE_NONE, SMCR_CLC_TYPE_R);
	check_proposal_golden(prop_v2only_hex, &p);
}

Test(clc, linux_v2_accept_and_confirm_match_the_kernel_layout)
{
	smcr_clc_accept a = linux_accept(SMCR_CLC_ACCEPT, 2, true, 0);
	check_accept_golden(acc_v2_fc_hex, &a);
	a = linux_accept(SMCR_CLC_ACCEPT, 2, false, 0);
	check_accept_golden(acc_v2_hex, &a);
	a = linux_accept(SMCR_CLC_CONFIRM, 2, true, 1);
	check_accept_golden(conf_v2_fc1_hex, &a);
}

Test(clc, linux_v2_declines_match_the_kernel_layout)
{
	smcr_clc_decline d = linux_decline(2, SMCR_DECL_NOUEID, false);
	check_decline_golden(decl_v2_hex, &d);
	d = linux_decline(2, SMCR_DECL_SYNCERR, true);
	check_decline_golden(decl_v2_oos_hex, &d);
}

/* ---- lengths and header bytes ------------------------------------------------------- */

static ssize_t enc_p(smcr_clc_proposal p, uint8_t *out) { return smcr_clc_encode_proposal(out, 1024, &p); }
static ssize_t enc_a(smcr_clc_accept a, uint8_t *out) { return smcr_clc_encode_accept(out, 1024, &a); }
static ssize_t enc_d(smcr_clc_decline d, uint8_t *out) { return smcr_clc_encode_decline(out, 1024, &d); }

Test(clc, messages_come_out_at_the_linux_lengths_and_byte7_values)
{
	uint8_t b[1024];
	smcr_clc_proposal rfc = linux_proposal(SMCR_CLC_TYPE_R, SMCR_CLC_TYPE_NONE);
	rfc.version = 1;
	rfc.rfc_layout = true;
	struct {
		ssize_t len;
		ssize_t want;
		uint8_t byte7;
		const char *what;
	} t[] = {
		{ enc_p(linux_proposal(SMCR_CLC_TYPE_R, SMCR_CLC_TYPE_NONE), b), 92, 0x28, "Proposal v1-only (v2 format)" },
		{ enc_p(linux_proposal(SMCR_CLC_TYPE_R, SMCR_CLC_TYPE_R), b), 164, 0x20, "Proposal v1+v2, 1 UEID" },
		{ enc_p(linux_proposal(SMCR_CLC_TYPE_NONE, SMCR_CLC_TYPE_R), b), 156, 0x22, "Proposal v2-only, 1 UEID" },
		{ enc_p(rfc, b), 52, 0x10, "Proposal RFC layout" },
		{ enc_a(linux_accept(SMCR_CLC_ACCEPT, 1, true, 0), b), 68, 0x18, "Accept v1 FC" },
		{ enc_a(linux_accept(SMCR_CLC_ACCEPT, 1, false, 0), b), 68, 0x10, "Accept v1" },
		{ enc_a(linux_accept(SMCR_CLC_CONFIRM, 1, false, 0), b), 68, 0x10, "Confirm v1" },
		{ enc_a(linux_accept(SMCR_CLC_ACCEPT, 2, false, 0), b), 108, 0x20, "Accept v2" },
		{ enc_a(linux_accept(SMCR_CLC_ACCEPT, 2, true, 0), b), 160, 0x28, "Accept v2 FC" },
		{ enc_a(linux_accept(SMCR_CLC_CONFIRM, 2, true, 1), b), 180, 0x28, "Confirm v2 FC 1 GID" },
		{ enc_a(linux_accept(SMCR_CLC_CONFIRM, 2, true, 0), b), 164, 0x28, "Confirm v2 FC 0 GIDs" },
		{ enc_a(linux_accept(SMCR_CLC_CONFIRM, 2, false, 0), b), 108, 0x20, "Confirm v2" },
		{ enc_d(linux_decline(1, SMCR_DECL_NOSMCDEV, false), b), 28, 0x10, "Decline v1" },
		{ enc_d(linux_decline(1, SMCR_DECL_SYNCERR, true), b), 28, 0x18, "Decline v1 out of sync" },
		{ enc_d(linux_decline(2, SMCR_DECL_NOSMCDEV, false), b), 44, 0x20, "Decline v2" },
		{ enc_d(linux_decline(2, SMCR_DECL_SYNCERR, true), b), 44, 0x28, "Decline v2 out of sync" },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		cr_assert_eq(t[i].len, t[i].want, "%s: %zd bytes, expected %zd", t[i].what, t[i].len, t[i].want);
	}
	/* byte 7 needs the bytes: encode each again and look */
	smcr_clc_proposal ps[] = { linux_proposal(SMCR_CLC_TYPE_R, SMCR_CLC_TYPE_NONE),
		                   linux_proposal(SMCR_CLC_TYPE_R, SMCR_CLC_TYPE_R),
		                   linux_proposal(SMCR_CLC_TYPE_NONE, SMCR_CLC_TYPE_R), rfc };
	for (size_t i = 0; i < 4; i++) {
		enc_p(ps[i], b);
		cr_assert_eq(b[7], t[i].byte7, "%s: byte 7 0x%02x", t[i].what, b[7]);
		cr_assert_eq(get_be16(b + 5), t[i].want);
	}
	smcr_clc_accept as[] = { linux_accept(SMCR_CLC_ACCEPT, 1, true, 0), linux_accept(SMCR_CLC_ACCEPT, 1, false, 0),
		                 linux_accept(SMCR_CLC_CONFIRM, 1, false, 0), linux_accept(SMCR_CLC_ACCEPT, 2, false, 0),
		                 linux_accept(SMCR_CLC_ACCEPT, 2, true, 0), linux_accept(SMCR_CLC_CONFIRM, 2, true, 1),
		                 linux_accept(SMCR_CLC_CONFIRM, 2, true, 0), linux_accept(SMCR_CLC_CONFIRM, 2, false, 0) };
	for (size_t i = 0; i < 8; i++) {
		enc_a(as[i], b);
		cr_assert_eq(b[7], t[4 + i].byte7, "%s: byte 7 0x%02x", t[4 + i].what, b[7]);
		cr_assert_eq(get_be16(b + 5), t[4 + i].want);
	}
	smcr_clc_decline ds[] = { linux_decline(1, SMCR_DECL_NOSMCDEV, false), linux_decline(1, SMCR_DECL_SYNCERR, true),
		                  linux_decline(2, SMCR_DECL_NOSMCDEV, false), linux_decline(2, SMCR_DECL_SYNCERR, true) };
	for (size_t i = 0; i < 4; i++) {
		enc_d(ds[i], b);
		cr_assert_eq(b[7], t[12 + i].byte7, "%s: byte 7 0x%02x", t[12 + i].what, b[7]);
	}
}

Test(clc, encoders_report_small_buffers_and_invalid_host_forms)
{
	uint8_t b[1024];
	smcr_clc_proposal p = linux_proposal(SMCR_CLC_TYPE_R, SMCR_CLC_TYPE_R);
	cr_assert_eq(smcr_clc_encode_proposal(b, 163, &p), SMCR_ERR_NOBUF);
	cr_assert_eq(smcr_clc_encode_proposal(b, 164, &p), 164);
	p.n_eids = 9;
	cr_assert_eq(smcr_clc_encode_proposal(b, sizeof(b), &p), SMCR_ERR_INVAL);
	p = linux_proposal(SMCR_CLC_TYPE_R, SMCR_CLC_TYPE_R);
	p.version = 3;
	cr_assert_eq(smcr_clc_encode_proposal(b, sizeof(b), &p), SMCR_ERR_INVAL);
	p = linux_proposal(SMCR_CLC_TYPE_NONE, SMCR_CLC_TYPE_R);
	p.version = 1;
	cr_assert_eq(smcr_clc_encode_proposal(b, sizeof(b), &p), SMCR_ERR_INVAL, "v1 offering nothing");
	p = linux_proposal(SMCR_CLC_TYPE_R, SMCR_CLC_TYPE_NONE);
	p.rfc_layout = true; /* only with version 1 */
	cr_assert_eq(smcr_clc_encode_proposal(b, sizeof(b), &p), SMCR_ERR_INVAL);

	smcr_clc_accept a = linux_accept(SMCR_CLC_CONFIRM, 2, true, 1);
	cr_assert_eq(smcr_clc_encode_accept(b, 179, &a), SMCR_ERR_NOBUF);
	a.qpn = 0x1000000;
	cr_assert_eq(smcr_clc_encode_accept(b, sizeof(b), &a), SMCR_ERR_INVAL);
	a = linux_accept(SMCR_CLC_CONFIRM, 2, true, 1);
	a.n_gids = 9;
	cr_assert_eq(smcr_clc_encode_accept(b, sizeof(b), &a), SMCR_ERR_INVAL);
	a = linux_accept(SMCR_CLC_DECLINE, 2, true, 1);
	cr_assert_eq(smcr_clc_encode_accept(b, sizeof(b), &a), SMCR_ERR_INVAL);

	smcr_clc_decline d = linux_decline(2, SMCR_DECL_NOSMCDEV, false);
	cr_assert_eq(smcr_clc_encode_decline(b, 43, &d), SMCR_ERR_NOBUF);
	d.version = 0;
	cr_assert_eq(smcr_clc_encode_decline(b, sizeof(b), &d), SMCR_ERR_INVAL);
}

/* ---- round trips -------------------------------------------------------------------- */

static void fill_pattern(uint8_t *b, size_t n, uint8_t seed)
{
	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)(seed + 37 * i);
}

static smcr_clc_proposal rich_proposal(smcr_clc_smc_type v1, smcr_clc_smc_type v2, uint8_t n6, uint8_t ne, uint8_t ng)
{
	smcr_clc_proposal p;
	memset(&p, 0, sizeof(p));
	p.version = 2;
	p.typev1 = v1;
	p.typev2 = v2;
	fill_pattern(p.peer_id, 8, 1);
	fill_pattern(p.gid, 16, 2);
	fill_pattern(p.mac, 6, 3);
	if (v1 == SMCR_CLC_TYPE_D || v1 == SMCR_CLC_TYPE_BOTH) { /* Linux fills it only then */
		p.ism_gid = 0x1122334455667788ull;
		p.ism_chid = 0xabcd;
	}
	if (v1 != SMCR_CLC_TYPE_NONE) {
		p.iparea_offset = 40;
		p.ipv4_subnet = 0xc0a80000;
		p.ipv4_prefix_len = 16;
		p.n_ipv6 = n6;
		for (unsigned i = 0; i < n6; i++) {
			fill_pattern(p.ipv6[i].prefix, 16, (uint8_t)(10 + i));
			p.ipv6[i].len = (uint8_t)(48 + i);
		}
	}
	if (v2 != SMCR_CLC_TYPE_NONE) {
		p.n_eids = ne;
		for (unsigned i = 0; i < ne; i++) {
			char name[16];
			snprintf(name, sizeof(name), "UEID-%u", i);
			blank_pad(p.eids[i], name, SMCR_EID_LEN);
		}
		p.release = 1;
		p.seid_indicator = v2 == SMCR_CLC_TYPE_BOTH;
		fill_pattern(p.roce_v2_gid, 16, 5);
		p.max_conns = 100;
		p.max_links = 1;
		p.feature_mask = 0x8001;
		if (v2 == SMCR_CLC_TYPE_D || v2 == SMCR_CLC_TYPE_BOTH) {
			p.smcd_v2_ext = true;
			fill_pattern(p.seid, SMCR_EID_LEN, 6);
			p.n_ism_gids = ng;
			for (unsigned i = 0; i < ng; i++) {
				p.ism_v2[i].gid = 0x1000 + i;
				p.ism_v2[i].chid = (uint16_t)(0x200 + i);
			}
		}
	}
	return p;
}

static void round_trip_proposal(const smcr_clc_proposal *p, size_t want_len)
{
	uint8_t b[1024];
	smcr_clc_proposal back;
	smcr_decode_err err = { 0 };
	ssize_t n = smcr_clc_encode_proposal(b, sizeof(b), p);
	cr_assert_eq(n, (ssize_t)want_len, "encoded %zd bytes, expected %zu", n, want_len);
	cr_assert_eq(smcr_clc_peek(b, (size_t)n, NULL, &err), n);
	cr_assert_eq(smcr_clc_decode_proposal(&back, b, (size_t)n, &err), 0, "%s: %s", err.field, err.expected);
	cr_assert(memcmp(&back, p, sizeof(back)) == 0, "round trip changed the Proposal (v1 %d v2 %d)", p->typev1, p->typev2);
}

Test(clc, every_proposal_variant_round_trips)
{
	smcr_clc_proposal p = rich_proposal(SMCR_CLC_TYPE_R, SMCR_CLC_TYPE_NONE, 0, 0, 0);
	round_trip_proposal(&p, 92);
	p = rich_proposal(SMCR_CLC_TYPE_R, SMCR_CLC_TYPE_NONE, 8, 0, 0);
	round_trip_proposal(&p, 92 + 8 * 17);
	p = rich_proposal(SMCR_CLC_TYPE_R, SMCR_CLC_TYPE_R, 3, 8, 0);
	round_trip_proposal(&p, 84 + 8 + 3 * 17 + 40 + 8 * 32);
	p = rich_proposal(SMCR_CLC_TYPE_NONE, SMCR_CLC_TYPE_R, 0, 0, 0);
	round_trip_proposal(&p, 84 + 40);
	p = rich_proposal(SMCR_CLC_TYPE_BOTH, SMCR_CLC_TYPE_BOTH, 8, 8, 8);
	round_trip_proposal(&p, 84 + 8 + 8 * 17 + 40 + 8 * 32 + 48 + 8 * 10);
	p = rich_proposal(SMCR_CLC_TYPE_NONE, SMCR_CLC_TYPE_D, 0, 0, 2);
	round_trip_proposal(&p, 84 + 40 + 48 + 2 * 10);
	p = rich_proposal(SMCR_CLC_TYPE_D, SMCR_CLC_TYPE_NONE, 1, 0, 0);
	round_trip_proposal(&p, 84 + 8 + 17);
	p = rich_proposal(SMCR_CLC_TYPE_NONE, SMCR_CLC_TYPE_NONE, 0, 0, 0);
	round_trip_proposal(&p, 84);

	/* version 1: with the 40-byte area (Linux >= 5.10 layout) and without (RFC layout) */
	p = rich_proposal(SMCR_CLC_TYPE_BOTH, SMCR_CLC_TYPE_NONE, 2, 0, 0);
	p.version = 1;
	round_trip_proposal(&p, 92 + 2 * 17);
	p.rfc_layout = true;
	p.iparea_offset = 0;
	p.ism_gid = 0;
	p.ism_chid = 0;
	round_trip_proposal(&p, 52 + 2 * 17);
}

Test(clc, every_accept_confirm_variant_round_trips)
{
	for (int type = SMCR_CLC_ACCEPT; type <= SMCR_CLC_CONFIRM; type++)
		for (uint8_t v = 1; v <= 2; v++)
			for (int fc = 0; fc <= 1; fc++)
				for (uint8_t g = 0; g <= (type == SMCR_CLC_CONFIRM && v == 2 && fc ? 8 : 0); g++) {
					smcr_clc_accept a = linux_accept((smcr_clc_type)type, v, fc, g), back;
					if (v == 2 && fc) {
						a.fce.vendor_exp = 0xdeadbeef;
						a.fce.os_type = SMCR_CLC_OS_UNKNOWN;
					}
					uint8_t b[1024];
					smcr_decode_err err = { 0 };
					ssize_t n = smcr_clc_encode_accept(b, sizeof(b), &a);
					cr_assert_gt(n, 0);
					cr_assert_eq(smcr_clc_decode_accept(&back, b, (size_t)n, &err), 0, "%s", err.expected);
					cr_assert(memcmp(&back, &a, sizeof(a)) == 0, "type %d v%u fc %d gids %u", type, v, fc, g);
				}
}

Test(clc, every_decline_variant_round_trips)
{
	for (uint8_t v = 1; v <= 2; v++)
		for (int oos = 0; oos <= 1; oos++) {
			smcr_clc_decline d = linux_decline(v, 0x09990003, oos), back;
			if (v == 2)
				for (int i = 0; i < 4; i++)
					d.diag_more[i] = 0x03030000u + (uint32_t)i;
			uint8_t b[64];
			ssize_t n = smcr_clc_encode_decline(b, sizeof(b), &d);
			cr_assert_eq(n, v == 1 ? 28 : 44);
			cr_assert_eq(smcr_clc_decode_decline(&back, b, (size_t)n, NULL), 0);
			cr_assert(memcmp(&back, &d, sizeof(d)) == 0, "v%u oos %d", v, oos);
		}
}

/* ---- validation, one Linux rule at a time ------------------------------------------- */

typedef struct patch {
	int off; /* -1 ends the list */
	uint8_t val;
} patch;

typedef struct bad_case {
	const char *what;
	const char *hex;
	char decoder; /* 'P'roposal, 'A'ccept, 'D'ecline, 'K' peek */
	int keep;     /* use only the first bytes (0 = all), then append `tail` */
	const char *tail;
	patch p[5];
	int code;
	const char *field;
	uint32_t offset;
	const char *expected; /* substring of err.expected */
} bad_case;

#define END           \
	{             \
		-1, 0 \
	}
#define LEN16(off, v) \
	{ off, (uint8_t)((v) >> 8) }, { off + 1, (uint8_t)(v) }

static const bad_case bad_cases[] = {
	/* header (smcr_clc_peek, Linux smc_clc_wait_msg / smc_clc_msg_hdr_valid) */
	{ "header shorter than 8", fixture_decline_hex, 'K', 7, NULL, { END }, SMCR_ERR_SHORT, "header", 0, "8" },
	{ "bad eyecatcher", fixture_decline_hex, 'K', 0, NULL, { { 3, 0xC4 - 1 }, END }, SMCR_ERR_EYECATCHER, "eyecatcher", 0, "SMCD" },
	{ "type 0", fixture_decline_hex, 'K', 0, NULL, { { 4, 0 }, END }, SMCR_ERR_TYPE, "type", 4, "1..4" },
	{ "type 5", fixture_decline_hex, 'K', 0, NULL, { { 4, 5 }, END }, SMCR_ERR_TYPE, "type", 4, "1..4" },
	{ "version 0", fixture_decline_hex, 'K', 0, NULL, { { 7, 0x00 }, END }, SMCR_ERR_VERSION, "version", 7, ">= 1" },
	{ "length 11", fixture_decline_hex, 'K', 0, NULL, { LEN16(5, 11), END }, SMCR_ERR_LENGTH, "length", 5, "12..1024" },
	{ "length 1025", fixture_decline_hex, 'K', 0, NULL, { LEN16(5, 1025), END }, SMCR_ERR_LENGTH, "length", 5, "12..1024" },
	{ "length field != bytes", fixture_accept_hex, 'A', 0, NULL, { LEN16(5, 69), END }, SMCR_ERR_LENGTH, "length", 5, "68 (the bytes" },
	{ "decline to the accept decoder", fixture_decline_hex, 'A', 0, NULL, { END }, SMCR_ERR_TYPE, "type", 4, "2 (CLC Accept)" },
	{ "version 0 in a decoder", fixture_accept_hex, 'A', 0, NULL, { { 7, 0x08 }, END }, SMCR_ERR_VERSION, "version", 7, ">= 1" },
	/* Proposal (smc_clc_msg_prop_valid, smc_clc_proposal_get_prefix, smc_get_clc_v2_ext) */
	{ "proposal shorter than its base", hwipl_proposal_hex, 'P', 20, NULL, { LEN16(5, 20), END }, SMCR_ERR_SHORT, "iparea_offset", 38, ">= 40" },
	{ "iparea_offset 41", prop_v1v2_hex, 'P', 0, NULL, { LEN16(38, 41), END }, SMCR_ERR_FIELD, "iparea_offset", 38, "<= 40" },
	{ "prefix area beyond the message", hwipl_proposal_hex, 'P', 44, NULL, { LEN16(5, 44), END }, SMCR_ERR_SHORT, "ip prefix area", 40, ">= 48" },
	{ "9 IPv6 prefixes", prop_v1only_hex, 'P', 0, NULL, { { 87, 9 }, END }, SMCR_ERR_FIELD, "ipv6_prefixes_cnt", 87, "<= 8" },
	{ "v1 offering no type", fixture_proposal_hex, 'P', 0, NULL, { { 7, 0x12 }, END }, SMCR_ERR_FIELD, "typev1", 7, "version 1" },
	{ "v1 length vs prefix count", fixture_proposal_hex, 'P', 0, NULL, { { 87, 1 }, END }, SMCR_ERR_LENGTH, "length", 5, "109" },
	{ "v2 offered without v2 extension", prop_v1v2_hex, 'P', 0, NULL, { LEN16(50, 0), END }, SMCR_ERR_FIELD, "v2_ext_offset", 50, "1..172" },
	{ "v2 extension offset 173", prop_v1v2_hex, 'P', 0, NULL, { LEN16(50, 173), END }, SMCR_ERR_FIELD, "v2_ext_offset", 50, "1..172" },
	{ "SMC-D v1 offered with iparea_offset 0", prop_v1v2_hex, 'P', 0, NULL, { { 7, 0x23 }, LEN16(38, 0), END }, SMCR_ERR_FIELD, "v2_ext_offset", 50, "unusable" },
	{ "v2 extension beyond the message", prop_v2only_hex, 'P', 0, NULL, { LEN16(50, 172), END }, SMCR_ERR_SHORT, "v2 extension", 224, ">= 264" },
	{ "9 UEIDs", prop_v1v2_hex, 'P', 0, NULL, { { 88, 9 }, END }, SMCR_ERR_FIELD, "eid_cnt", 88, "<= 8" },
	{ "9 SMC-Dv2 GIDs", prop_v1v2_hex, 'P', 0, NULL, { { 7, 0x2C }, { 89, 9 }, END }, SMCR_ERR_FIELD, "ism_gid_cnt", 89, "<= 8" },
	{ "v2 length vs UEID count", prop_v1v2_hex, 'P', 0, NULL, { { 88, 2 }, END }, SMCR_ERR_LENGTH, "length", 5, "196" },
	{ "v2 length vs SMC-Dv2 extension", prop_v1v2_hex, 'P', 0, NULL, { { 7, 0x2C }, END }, SMCR_ERR_LENGTH, "length", 5, "212" },
	{ "proposal trailer", prop_v1v2_hex, 'P', 0, NULL, { { 160, 0x00 }, END }, SMCR_ERR_TRAILER, "trailer", 160, "SMCR" },
	{ "v2 extension overlapping the trailer", prop_v2only_hex, 'P', 0, NULL, { LEN16(50, 36), { 88, 1 }, END }, SMCR_ERR_FIELD, "v2_ext_offset", 50, "inside" },
	/* Accept / Confirm (smc_clc_msg_acc_conf_valid) */
	{ "accept type none", fixture_accept_hex, 'A', 0, NULL, { { 7, 0x1A }, END }, SMCR_ERR_FIELD, "typev1", 7, "SMC-R" },
	{ "accept type both", fixture_accept_hex, 'A', 0, NULL, { { 7, 0x1B }, END }, SMCR_ERR_FIELD, "typev1", 7, "SMC-R" },
	{ "v1 accept of 69 bytes", fixture_accept_hex, 'A', 64, "00 e2 d4 c3 d9", { LEN16(5, 69), END }, SMCR_ERR_LENGTH, "length", 5, "68 (SMC-R v1)" },
	{ "v1 accept of 64 bytes", fixture_accept_hex, 'A', 60, "e2 d4 c3 d9", { LEN16(5, 64), END }, SMCR_ERR_LENGTH, "length", 5, "68 (SMC-R v1)" },
	{ "v2 accept of 104 bytes", acc_v2_hex, 'A', 100, "e2 d4 c3 d9", { LEN16(5, 104), END }, SMCR_ERR_LENGTH, "length", 5, ">= 108" },
	{ "SMC-D v1 accept", fixture_accept_hex, 'A', 44, "e2 d4 c3 c4", { LEN16(5, 48), { 7, 0x11 }, END }, SMCR_ERR_TYPE, "typev1", 7, "SMC-D is not supported" },
	{ "SMC-D v1 accept of 68 bytes", fixture_accept_hex, 'A', 0, NULL, { { 7, 0x11 }, END }, SMCR_ERR_LENGTH, "length", 5, "48 (SMC-D v1)" },
	{ "accept trailer", fixture_accept_hex, 'A', 0, NULL, { { 64, 0x00 }, END }, SMCR_ERR_TRAILER, "trailer", 64, "SMCR" },
	{ "v2 first contact without FCE", acc_v2_hex, 'A', 0, NULL, { { 7, 0x28 }, END }, SMCR_ERR_SHORT, "first contact extension", 104, ">= 160" },
	{ "confirm with 9 GIDs", conf_v2_fc1_hex, 'A', 0, NULL, { { 156, 9 }, END }, SMCR_ERR_FIELD, "gid_cnt", 156, "<= 8" },
	{ "confirm GID list beyond the message", conf_v2_fc1_hex, 'A', 0, NULL, { { 156, 2 }, END }, SMCR_ERR_SHORT, "gid list", 160, ">= 196" },
	/* Decline (smc_clc_msg_decl_valid) */
	{ "v1 decline of 44 bytes", decl_v2_hex, 'D', 0, NULL, { { 7, 0x10 }, END }, SMCR_ERR_LENGTH, "length", 5, "28" },
	{ "v2 decline of 28 bytes", fixture_decline_hex, 'D', 0, NULL, { { 7, 0x20 }, END }, SMCR_ERR_LENGTH, "length", 5, "44" },
	{ "v3 decline of 28 bytes", fixture_decline_hex, 'D', 0, NULL, { { 7, 0x30 }, END }, SMCR_ERR_LENGTH, "length", 5, "44" },
};

static int run_decoder(char which, const uint8_t *b, size_t n, smcr_decode_err *err)
{
	smcr_clc_proposal p;
	smcr_clc_accept a;
	smcr_clc_decline d;
	switch (which) {
	case 'P': return smcr_clc_decode_proposal(&p, b, n, err);
	case 'A': return smcr_clc_decode_accept(&a, b, n, err);
	case 'D': return smcr_clc_decode_decline(&d, b, n, err);
	default: return smcr_clc_peek(b, n, NULL, err);
	}
}

Test(clc, each_linux_validation_rule_fails_with_field_offset_and_expectation)
{
	for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		const bad_case *c = &bad_cases[i];
		uint8_t b[1100];
		size_t n = bytes_from_hex(c->hex, b, sizeof(b));
		if (c->keep)
			n = (size_t)c->keep;
		if (c->tail)
			n += bytes_from_hex(c->tail, b + n, sizeof(b) - n);
		for (const patch *p = c->p; p->off >= 0; p++)
			b[p->off] = p->val;
		uint8_t *exact = malloc(n ? n : 1); /* exact size: ASan sees any overread */
		memcpy(exact, b, n);
		smcr_decode_err err = { 0 };
		int rc = run_decoder(c->decoder, exact, n, &err);
		free(exact);
		char line[256];
		smcr_decode_err_format(&err, line, sizeof(line));
		cr_assert_eq(rc, c->code, "%s: rc %d (%s), expected %d [%s]", c->what, rc, smcr_err_name(rc), c->code, line);
		cr_assert_eq(err.code, c->code, "%s", c->what);
		cr_assert_str_eq(err.field, c->field, "%s: field '%s'", c->what, err.field);
		cr_assert_eq(err.offset, c->offset, "%s: offset %u", c->what, err.offset);
		cr_assert(strstr(err.expected, c->expected) != NULL, "%s: expected '%s' lacks '%s'", c->what,
		          err.expected, c->expected);
		cr_assert_not_null(err.message, "%s", c->what);
	}
}

Test(clc, smcd_eyecatchers_are_accepted_and_decline_trailers_are_not_checked)
{
	uint8_t b[200];
	size_t n = bytes_from_hex(fixture_accept_hex, b, sizeof(b));
	b[3] = 0xC4; /* "SMCD" */
	b[67] = 0xC4;
	smcr_clc_accept a;
	cr_assert_eq(smcr_clc_decode_accept(&a, b, n, NULL), 0);
	n = bytes_from_hex(fixture_decline_hex, b, sizeof(b));
	memset(b + n - 4, 0, 4);
	smcr_clc_decline d;
	cr_assert_eq(smcr_clc_decode_decline(&d, b, n, NULL), 0);
	cr_assert_eq(d.diagnosis, SMCR_DECL_NOSMCDEV);
}

Test(clc, peek_frames_a_stream_without_consuming_what_follows)
{
	uint8_t stream[300];
	size_t a = bytes_from_hex(fixture_proposal_hex, stream, sizeof(stream));
	size_t b = bytes_from_hex(fixture_accept_hex, stream + a, sizeof(stream) - a);
	memcpy(stream + a + b, "GET /", 5);
	smcr_clc_hdr h;
	smcr_decode_err err;
	cr_assert_eq(smcr_clc_peek(stream, 3, &h, &err), SMCR_ERR_SHORT);
	cr_assert_eq(smcr_clc_peek(stream, sizeof(stream), &h, &err), 92);
	cr_assert_eq(h.type, SMCR_CLC_PROPOSAL);
	cr_assert_eq(h.version, 1);
	cr_assert_eq(h.flags, 0x10);
	cr_assert_eq(h.eyecatcher, SMCR_CLC_EYECATCHER_R);
	cr_assert_eq(smcr_clc_peek(stream + a, 8, &h, &err), 68);
	cr_assert_eq(h.type, SMCR_CLC_ACCEPT);
	smcr_clc_accept acc;
	cr_assert_eq(smcr_clc_decode_accept(&acc, stream + a, 68, &err), 0);
	cr_assert_eq(memcmp(stream + a + b, "GET /", 5), 0);
}

/* Linux accepts v2 Accept/Confirm longer than it needs; the extra bytes are ignored. */
Test(clc, longer_v2_accept_is_accepted_like_linux)
{
	uint8_t b[300];
	size_t n = bytes_from_hex(acc_v2_fc_hex, b, sizeof(b));
	memmove(b + n - 4 + 12, b + n - 4, 4);
	memset(b + n - 4, 0xAA, 12);
	n += 12;
	put_be16(b + 5, (uint16_t)n);
	smcr_clc_accept a, want = linux_accept(SMCR_CLC_ACCEPT, 2, true, 0);
	cr_assert_eq(smcr_clc_decode_accept(&a, b, n, NULL), 0);
	cr_assert(memcmp(&a, &want, sizeof(a)) == 0);
}

/* ---- robustness --------------------------------------------------------------------- */

static const char *const valid_hex[] = {
	hwipl_proposal_hex,
	hwipl_proposal6_hex,
	hwipl_accept_hex,
	hwipl_confirm_hex,
	hwipl_decline_hex,
	fixture_proposal_hex,
	fixture_accept_hex,
	fixture_confirm_hex,
	fixture_decline_hex,
	digest_accept_hex,
	prop_v1only_hex,
	prop_v1v2_hex,
	prop_v2only_hex,
	acc_v2_fc_hex,
	acc_v2_hex,
	conf_v2_fc1_hex,
	decl_v2_hex,
	decl_v2_oos_hex,
};

/* Decode with every decoder from an exact-size heap copy; whatever the input, decoders
 * return 0 or an error, and what they accept encodes again and decodes to the same. */
static void decode_all(const uint8_t *src, size_t n)
{
	uint8_t *b = malloc(n ? n : 1);
	memcpy(b, src, n);
	uint8_t out[1024];
	smcr_decode_err err;
	smcr_clc_hdr h;
	int rc = smcr_clc_peek(b, n, &h, &err);
	cr_assert(rc < 0 ? rc >= SMCR_ERR_TRAILER && rc <= SMCR_ERR_NOBUF : rc >= 12 && rc <= SMCR_CLC_MAX_LEN);
	smcr_clc_proposal p, p2;
	if (smcr_clc_decode_proposal(&p, b, n, &err) == 0 && p.version <= 2) {
		ssize_t m = smcr_clc_encode_proposal(out, sizeof(out), &p);
		cr_assert_gt(m, 0, "an accepted Proposal must encode (%zd): v%u t%d/%d rfc %d n6 %u ne %u ng %u rel %u", m, p.version, p.typev1, p.typev2, p.rfc_layout, p.n_ipv6, p.n_eids, p.n_ism_gids, p.release);
		cr_assert_eq(smcr_clc_decode_proposal(&p2, out, (size_t)m, &err), 0, "%s", err.expected);
	}
	smcr_clc_accept a, a2;
	if (smcr_clc_decode_accept(&a, b, n, &err) == 0 && a.version <= 2) {
		ssize_t m = smcr_clc_encode_accept(out, sizeof(out), &a);
		cr_assert_gt(m, 0);
		cr_assert_eq(smcr_clc_decode_accept(&a2, out, (size_t)m, &err), 0, "%s", err.expected);
		cr_assert(memcmp(&a, &a2, sizeof(a)) == 0);
	}
	smcr_clc_decline d, d2;
	if (smcr_clc_decode_decline(&d, b, n, &err) == 0) {
		ssize_t m = smcr_clc_encode_decline(out, sizeof(out), &d);
		if (d.version <= 2) {
			cr_assert_gt(m, 0);
			cr_assert_eq(smcr_clc_decode_decline(&d2, out, (size_t)m, &err), 0);
			cr_assert(memcmp(&d, &d2, sizeof(d)) == 0);
		}
	}
	char line[512];
	smcr_clc_describe(b, n, line, sizeof(line));
	cr_assert_gt(strlen(line), 0);
	free(b);
}

Test(clc, decoders_survive_truncation_every_length_value_and_random_mutation)
{
	bytes_rng rng;
	bytes_rng_seed(&rng, 0xc1c);
	uint8_t b[1100], m[1100];
	for (size_t v = 0; v < sizeof(valid_hex) / sizeof(valid_hex[0]); v++) {
		size_t n = bytes_from_hex(valid_hex[v], b, sizeof(b));
		decode_all(b, n);
		/* every truncation, with the length field as sent and as the truncated length */
		for (size_t t = 0; t < n; t++) {
			decode_all(b, t);
			memcpy(m, b, n);
			if (t >= 7)
				put_be16(m + 5, (uint16_t)t);
			decode_all(m, t);
		}
		/* every length value the buffer can hold, the bytes after the message random */
		for (size_t len = 0; len <= 1024; len++) {
			memcpy(m, b, n);
			for (size_t i = n; i < len; i++)
				m[i] = (uint8_t)bytes_rng_u64(&rng);
			put_be16(m + 5, (uint16_t)len);
			decode_all(m, len);
		}
		/* random byte flips, sometimes with a random truncation */
		for (int round = 0; round < 3000; round++) {
			memcpy(m, b, n);
			int flips = 1 + (int)bytes_rng_below(&rng, 4);
			for (int f = 0; f < flips; f++)
				m[bytes_rng_below(&rng, n)] = (uint8_t)bytes_rng_u64(&rng);
			size_t len = bytes_rng_below(&rng, 8) == 0 ? bytes_rng_below(&rng, n + 1) : n;
			decode_all(m, len);
		}
	}
}

/* ---- decline codes, RMBE sizes, descriptions ---------------------------------------- */

Test(clc, decline_codes_have_linux_names_and_texts)
{
	struct {
		uint32_t code;
		const char *name;
		const char *text;
	} t[] = {
		{ SMCR_DECL_MEM, "SMC_CLC_DECL_MEM", "memory" },
		{ SMCR_DECL_TIMEOUT_CL, "SMC_CLC_DECL_TIMEOUT_CL", "CONFIRM LINK" },
		{ SMCR_DECL_PEERNOSMC, "SMC_CLC_DECL_PEERNOSMC", "did not indicate SMC" },
		{ SMCR_DECL_NOSMCDEV, "SMC_CLC_DECL_NOSMCDEV", "no SMC device" },
		{ SMCR_DECL_NOUEID, "SMC_CLC_DECL_NOUEID", "UEID" },
		{ SMCR_DECL_MAXLINKERR, "SMC_CLC_DECL_MAXLINKERR", "max links" },
		{ SMCR_DECL_DIFFPREFIX, "SMC_CLC_DECL_DIFFPREFIX", "prefix" },
		{ SMCR_DECL_NOINDIRECT, "SMC_CLC_DECL_NOINDIRECT", "indirect" },
		{ SMCR_DECL_SYNCERR, "SMC_CLC_DECL_SYNCERR", "synchronization" },
		{ SMCR_DECL_ERR_REGBUF, "SMC_CLC_DECL_ERR_REGBUF", "buffers" },
		/* older kernels */
		{ 0x99990000u, "SMC_CLC_DECL_INTERR", "internal error" },
		{ 0x02000000u, "SMC_CLC_DECL_TIMEOUT", "timeout" },
		{ 0x02040000u, "SMC_CLC_DECL_TCL", "QP confirm" },
		{ 0x07000000u, "SMC_CLC_DECL_SEND", "sending" },
		/* unknown detail codes fall back to their class */
		{ 0x03990000u, "SMC_CLC_DECL_UNKNOWN", "configuration error" },
		{ 0x02990000u, "SMC_CLC_DECL_UNKNOWN", "timeout" },
		{ 0x12345678u, "SMC_CLC_DECL_UNKNOWN", "unknown peer diagnosis code" },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		cr_assert_str_eq(smcr_decline_name(t[i].code), t[i].name, "0x%08x", t[i].code);
		cr_assert(strstr(smcr_decline_text(t[i].code), t[i].text) != NULL, "0x%08x: '%s'", t[i].code,
		          smcr_decline_text(t[i].code));
	}
	/* every code of the header has its own name */
	uint32_t all[] = { SMCR_DECL_MEM, SMCR_DECL_TIMEOUT_CL, SMCR_DECL_TIMEOUT_AL, SMCR_DECL_CNFERR,
		           SMCR_DECL_PEERNOSMC, SMCR_DECL_IPSEC, SMCR_DECL_NOSMCDEV, SMCR_DECL_NOSMCDDEV, SMCR_DECL_NOSMCRDEV,
		           SMCR_DECL_NOISM2SUPP, SMCR_DECL_NOV2EXT, SMCR_DECL_NOV2DEXT, SMCR_DECL_NOSEID, SMCR_DECL_NOSMCD2DEV,
		           SMCR_DECL_NOUEID, SMCR_DECL_RELEASEERR, SMCR_DECL_MAXCONNERR, SMCR_DECL_MAXLINKERR,
		           SMCR_DECL_MODEUNSUPP, SMCR_DECL_RMBE_EC, SMCR_DECL_OPTUNSUPP, SMCR_DECL_DIFFPREFIX,
		           SMCR_DECL_GETVLANERR, SMCR_DECL_ISMVLANERR, SMCR_DECL_NOACTLINK, SMCR_DECL_NOSRVLINK,
		           SMCR_DECL_VERSMISMAT, SMCR_DECL_MAX_DMB, SMCR_DECL_NOROUTE, SMCR_DECL_NOINDIRECT, SMCR_DECL_SYNCERR,
		           SMCR_DECL_PEERDECL, SMCR_DECL_INTERR, SMCR_DECL_ERR_RTOK, SMCR_DECL_ERR_RDYLNK, SMCR_DECL_ERR_REGBUF };
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		cr_assert(strncmp(smcr_decline_name(all[i]), "SMC_CLC_DECL_", 13) == 0);
		cr_assert_str_neq(smcr_decline_name(all[i]), "SMC_CLC_DECL_UNKNOWN", "0x%08x", all[i]);
		for (size_t j = 0; j < i; j++)
			cr_assert_str_neq(smcr_decline_name(all[i]), smcr_decline_name(all[j]));
	}
}

Test(clc, rmbe_size_code_rounds_up_like_linux)
{
	struct {
		uint32_t bytes;
		uint8_t code;
	} t[] = {
		{ 0, 0 },
		{ 1, 0 },
		{ 16384, 0 },
		{ 16385, 1 },
		{ 32768, 1 },
		{ 32769, 2 },
		{ 65536, 2 },
		{ 65537, 3 },
		{ 100000, 3 },
		{ 131072, 3 },
		{ 524288, 5 },
		{ 524289, 6 },
		{ 1u << 20, 6 },
		{ 256u << 20, 14 },
		{ 512u << 20, 15 },
		{ (512u << 20) + 1, 15 },
		{ 0xFFFFFFFFu, 15 },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		cr_assert_eq(smcr_rmbe_size_code(t[i].bytes), t[i].code, "%u bytes -> %u", t[i].bytes,
		             smcr_rmbe_size_code(t[i].bytes));
	for (uint8_t c = 0; c <= 15; c++) {
		cr_assert_eq(smcr_rmbe_size_bytes(c), 16384u << c);
		cr_assert_eq(smcr_rmbe_size_code(smcr_rmbe_size_bytes(c)), c);
	}
}

Test(clc, describe_gives_one_readable_line)
{
	uint8_t b[300];
	char line[512];
	size_t n = bytes_from_hex(fixture_accept_hex, b, sizeof(b));
	smcr_clc_describe(b, n, line, sizeof(line));
	cr_assert(strstr(line, "CLC Accept v1 len 68 first-contact") != NULL, "%s", line);
	cr_assert(strstr(line, "qpn 0x000112") != NULL, "%s", line);
	cr_assert(strstr(line, "rmbe 16384 (code 0)") != NULL, "%s", line);
	n = bytes_from_hex(decl_v2_oos_hex, b, sizeof(b));
	smcr_clc_describe(b, n, line, sizeof(line));
	cr_assert(strstr(line, "CLC Decline v2 len 44 out-of-sync diag 0x04000000 SMC_CLC_DECL_SYNCERR") != NULL, "%s", line);
	n = bytes_from_hex(prop_v1v2_hex, b, sizeof(b));
	smcr_clc_describe(b, n, line, sizeof(line));
	cr_assert(strstr(line, "CLC Proposal v2 len 164 v1=R v2=R") != NULL, "%s", line);
	cr_assert(strstr(line, "prefix 10.0.0.0/24") != NULL, "%s", line);
	b[160] = 0;
	smcr_clc_describe(b, n, line, sizeof(line));
	cr_assert(strncmp(line, "invalid: CLC Proposal: field trailer at offset 160", 50) == 0, "%s", line);
	smcr_clc_describe(b, 5, line, sizeof(line));
	cr_assert(strncmp(line, "invalid:", 8) == 0, "%s", line);
	smcr_clc_describe(b, n, line, 10); /* truncates, stays terminated */
	cr_assert_eq(strlen(line), 9);
}
