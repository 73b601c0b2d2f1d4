/* Replay decoder (mode 1): the exact SMC-R picture from the Wireshark fixtures (RoCE v1 and
 * v2) and from a real Linux SMC-Rv2 capture; the same picture through VLAN tags, split,
 * merged, reordered and retransmitted TCP segments and pcapng; failures (DELETE LINK,
 * fatal NAK, stopped traffic); and damaged input (snaplen cuts, truncated files, wrong
 * link types, garbage, random mutations) reported with frame numbers, never a crash. */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <glib.h>
#include <pcap/pcap.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "model/cdc.h"
#include "model/clc.h"
#include "model/llc.h"
#include "model/byteorder.h"
#include "sim/replay/replay.h"
#include "sim/replay/replay_clock.h"
#include "sim/replay/replay_frame.h"
#include "sim/replay/replay_map.h"
#include "sim/report/report_print.h"
#include "sim/engine/rng.h"
#include "tests/support/pcap_edit.h"

#define FIXTURE_V2 "tests/data/replay/wireshark-fixture-rocev2.pcap"
#define FIXTURE_V1 "tests/data/replay/wireshark-fixture-rocev1.pcap"
#define LINUX_TRACE "traces/linux-6.1-smcr-v2-rxe.pcapng"
#define LINUX_NO_CONFIRM "tests/data/replay/linux-6.1-no-confirm-link.pcap"
#define LINUX_SAME_HOST "tests/data/replay/linux-6.1-same-host.pcap"
#define TWO_STACKS "traces/trace-two-stacks.pcapng"
#define LINUX_FALLBACKS "tests/data/replay/linux-6.1-fallbacks.pcap"
#define LINUX_TWO_LINKS "tests/data/replay/linux-6.1-two-links-failover.pcap"
#define LINUX_32_CONNS "tests/data/replay/linux-6.1-32-conns.pcap"
#define LINUX_ABORT "tests/data/replay/linux-6.1-abort-testlink-rmmod.pcap"
#define LINUX_SRV_DOWN "tests/data/replay/linux-6.1-server-link-down.pcap"
#define LINUX_VLAN "tests/data/replay/linux-6.1-vlan.pcap"

/* Fixture frame indexes (frame number - 1). */
enum { F_SYN,
       F_SYNACK,
       F_ACK,
       F_PROPOSAL,
       F_ACCEPT,
       F_CONFIRM,
       F_ACK2,
       F_CL_REQ,
       F_CL_RSP,
       F_RACK,
       F_WRITE,
       F_CDC_C2S,
       F_CDC_S2C,
       F_SYN2,
       F_SYNACK2,
       F_ACK3,
       F_PROPOSAL2,
       F_DECLINE,
       F_ACK4 };

static void teardown(void)
{
	pe_tmp_cleanup();
}

TestSuite(replay, .fini = teardown);

static const report_conn *conn_of(const smcr_report *r, uint32_t stack_id, uint16_t local_port, uint16_t peer_port)
{
	for (size_t i = 0; i < r->n_conns; i++)
		if (r->conns[i].stack_id == stack_id && r->conns[i].local_port == local_port && r->conns[i].peer_port == peer_port)
			return &r->conns[i];
	cr_assert_fail("no connection %u->%u on stack %u", local_port, peer_port, stack_id);
	return NULL;
}

static const report_link *link_of(const smcr_report *r, uint32_t stack_id, uint8_t num)
{
	for (size_t i = 0; i < r->n_links; i++)
		if (r->links[i].stack_id == stack_id && r->links[i].link_num == num)
			return &r->links[i];
	cr_assert_fail("no link %u on stack %u", num, stack_id);
	return NULL;
}

static void gid_of(uint8_t gid[16], const char *text)
{
	cr_assert_eq(inet_pton(AF_INET6, text, gid), 1, "%s", text);
}

static void assert_gid(const uint8_t got[16], const char *want)
{
	uint8_t w[16];
	gid_of(w, want);
	char g[64];
	report_gid_str(got, g, sizeof(g));
	cr_assert(!memcmp(got, w, 16), "GID %s, expected %s", g, want);
}

static const uint8_t mac1[6] = { 2, 0, 0, 0, 0, 1 }, mac2[6] = { 2, 0, 0, 0, 0, 2 };

/* The picture mkpcap.py's capture shows: client 10.0.0.1 (QP 0x111, token 0x201) and
 * server 10.0.0.2 (QP 0x112, token 0x101) on one link of one link group, 64 bytes written
 * by the client, and a second connection the server declined with 0x03030000. */
static void assert_fixture_picture(const replay_result *res, int roce, uint16_t vlan)
{
	const smcr_report *r = &res->report;
	const char *g1 = roce == 1 ? "fe80::ff:fe00:1" : "::ffff:10.0.0.1";
	const char *g2 = roce == 1 ? "fe80::ff:fe00:2" : "::ffff:10.0.0.2";
	cr_assert_eq(res->errors.total, 0, "errors: %s", res->errors.n ? res->errors.items[0].text : "");
	cr_assert_eq(res->unexplained.total, 0, "unexplained: %s", res->unexplained.n ? res->unexplained.items[0].text : "");
	cr_assert_eq(res->explained, res->frames);
	cr_assert_eq(r->n_stacks, 2);
	static const uint8_t sys1[8] = { 0x1a, 0x2b, 2, 0, 0, 0, 0, 1 }, sys2[8] = { 0x3c, 0x4d, 2, 0, 0, 0, 0, 2 };
	cr_assert(!memcmp(r->stacks[0].system_id, sys1, 8));
	cr_assert(!memcmp(r->stacks[1].system_id, sys2, 8));
	cr_assert_eq(r->n_lgrs, 2);
	for (int s = 0; s < 2; s++) {
		cr_assert_eq(r->lgrs[s].id, 0x100);
		cr_assert_eq(r->lgrs[s].role, s == 0 ? REPORT_ROLE_CLIENT : REPORT_ROLE_SERVER);
		cr_assert_eq(r->lgrs[s].type, REPORT_LGR_SINGLE);
		cr_assert_eq(r->lgrs[s].vlan, vlan);
		cr_assert_eq(r->lgrs[s].n_links, 1);
		cr_assert_eq(r->lgrs[s].n_conns, 1);
		cr_assert_eq(r->lgrs[s].peer_stack_id, (uint32_t)(2 - s));
	}
	cr_assert_eq(r->n_links, 2);
	const report_link *lc = link_of(r, 1, 1), *ls = link_of(r, 2, 1);
	cr_assert_eq(lc->local_qpn, 0x111);
	cr_assert_eq(lc->remote_qpn, 0x112);
	cr_assert_eq(ls->local_qpn, 0x112);
	cr_assert_eq(ls->remote_qpn, 0x111);
	cr_assert_eq(lc->local_link_id, 0x100);
	cr_assert_eq(lc->remote_link_id, 0x100);
	cr_assert_eq(lc->state, REPORT_LINK_ACTIVE);
	cr_assert_eq(lc->mtu, 1024);
	cr_assert_eq(lc->vlan, vlan);
	assert_gid(lc->local_gid, g1);
	assert_gid(lc->remote_gid, g2);
	assert_gid(ls->local_gid, g2);
	cr_assert(!memcmp(lc->local_mac, mac1, 6) && !memcmp(lc->remote_mac, mac2, 6));
	cr_assert_eq(lc->ops_out, 3, "CONFIRM LINK response, RDMA WRITE, CDC");
	cr_assert_eq(lc->ops_in, 2, "CONFIRM LINK request, CDC");
	cr_assert_eq(ls->ops_in, 3);
	cr_assert_eq(r->n_rnics, 2);
	cr_assert_eq(r->n_conns, 4);
	const report_conn *c1 = conn_of(r, 1, 40001, 12345), *s1 = conn_of(r, 2, 12345, 40001);
	cr_assert_eq(c1->mode, REPORT_MODE_SMCR);
	cr_assert_eq(c1->role, REPORT_ROLE_CLIENT);
	cr_assert_eq(c1->smc_version, 1);
	cr_assert_eq(c1->local_token, 0x201);
	cr_assert_eq(c1->peer_token, 0x101);
	cr_assert_eq(c1->link_num, 1);
	cr_assert_eq(c1->lgr_id, 0x100);
	cr_assert_eq(c1->bytes_sent, 64);
	cr_assert_eq(c1->rdma_bytes_out, 64);
	cr_assert_eq(c1->bytes_received, 0);
	cr_assert_eq(c1->tx_prod.count, 64);
	cr_assert_eq(c1->rmbe_size, 16384);
	assert_gid(c1->peer_gid, g2);
	cr_assert_eq(s1->local_token, 0x101);
	cr_assert_eq(s1->bytes_received, 64);
	cr_assert_eq(s1->rx_prod.count, 64);
	cr_assert_eq(s1->tx_cons.count, 64, "the server's CDC returns the consumer cursor");
	cr_assert_eq(s1->role, REPORT_ROLE_SERVER);
	const report_conn *c2 = conn_of(r, 1, 40002, 12345), *s2 = conn_of(r, 2, 12345, 40002);
	cr_assert_eq(c2->mode, REPORT_MODE_TCP);
	cr_assert_eq(c2->fallback_reason, SMCR_DECL_PEERDECL);
	cr_assert_eq(c2->peer_diagnosis, SMCR_DECL_NOSMCDEV);
	cr_assert_eq(s2->mode, REPORT_MODE_TCP);
	cr_assert_eq(s2->fallback_reason, SMCR_DECL_NOSMCDEV);
	const report_stats *st1 = &r->stacks[0].stats, *st2 = &r->stacks[1].stats;
	cr_assert_eq(st1->clnt_v1_succ, 1);
	cr_assert_eq(st2->srv_v1_succ, 1);
	cr_assert_eq(st1->n_fallbacks, 1);
	cr_assert_eq(st1->fallbacks[0].code, SMCR_DECL_PEERDECL);
	cr_assert_eq(st1->fallbacks[0].clnt_cnt, 1);
	cr_assert_eq(st2->fallbacks[0].code, SMCR_DECL_NOSMCDEV);
	cr_assert_eq(st2->fallbacks[0].srv_cnt, 1);
	cr_assert_eq(st1->tx_bytes, 64);
	cr_assert_eq(st2->rx_bytes, 64);
	cr_assert_eq(res->clc_messages, 5);
	cr_assert_eq(res->llc_messages, 2);
	cr_assert_eq(res->cdc_messages, 2);
	cr_assert_eq(res->rdma_writes, 1);
}

static void decode_file(const char *path, replay_result *res)
{
	char err[256];
	cr_assert_eq(replay_decode_file(path, NULL, res, err, sizeof(err)), 0, "%s", err);
}

Test(replay, wireshark_fixture_rocev2_gives_the_exact_picture)
{
	replay_result res;
	decode_file(FIXTURE_V2, &res);
	assert_fixture_picture(&res, 2, REPORT_NO_VLAN);
	replay_result_free(&res);
}

Test(replay, wireshark_fixture_rocev1_gives_the_exact_picture)
{
	replay_result res;
	decode_file(FIXTURE_V1, &res);
	assert_fixture_picture(&res, 1, REPORT_NO_VLAN);
	replay_result_free(&res);
}

Test(replay, pcapng_gives_the_same_picture_as_pcap)
{
	pe_capture c;
	pe_load(&c, FIXTURE_V2);
	char *path = pe_write_pcapng(&c, "fixture.pcapng");
	replay_result res;
	decode_file(path, &res);
	assert_fixture_picture(&res, 2, REPORT_NO_VLAN);
	cr_assert_eq(res.first_ns, c.f[0].ts_ns);
	replay_result_free(&res);
	g_free(path);
	pe_free(&c);
}

/* Rewrite every Ethernet frame as `tcpdump -i any` records it: a Linux cooked
 * pseudo-header (SLL or SLL2) with the sender's MAC and the EtherType after any VLAN
 * tags (the kernel hands the tag over as metadata), then the payload. */
static void to_cooked(pe_capture *c, int linktype)
{
	for (size_t i = 0; i < c->n; i++) {
		pe_frame *f = &c->f[i];
		uint32_t off = 12;
		while (off + 4 <= f->caplen && (f->data[off] == 0x81 && f->data[off + 1] == 0x00))
			off += 4;
		uint32_t body = off + 2, hlen = linktype == DLT_LINUX_SLL2 ? 20 : 16;
		uint8_t *d = g_malloc0(hlen + f->caplen - body);
		uint8_t src[6];
		memcpy(src, f->data + 6, 6);
		bool out = src[5] & 1; /* some frames "outgoing", as from the capturing host */
		if (linktype == DLT_LINUX_SLL2) {
			memcpy(d, f->data + off, 2);
			put_be32(d + 4, 3);
			put_be16(d + 8, 1);
			d[10] = out ? 4 : 0;
			d[11] = 6;
			memcpy(d + 12, src, 6);
		} else {
			put_be16(d, out ? 4 : 0);
			put_be16(d + 2, 1);
			put_be16(d + 4, 6);
			memcpy(d + 6, src, 6);
			memcpy(d + 14, f->data + off, 2);
		}
		memcpy(d + hlen, f->data + body, f->caplen - body);
		g_free(f->data);
		f->data = d;
		f->caplen = hlen + f->caplen - body;
		f->len = hlen + f->len - body;
	}
}

/* tcpdump -i any on a Linux host (its rxe traffic is UDP 4791 on the netdev): the same
 * picture as the Ethernet capture, from SLL and SLL2, VLAN tags gone with the cooking */
Test(replay, linux_cooked_captures_give_the_same_picture)
{
	int types[] = { DLT_LINUX_SLL, DLT_LINUX_SLL2 };
	for (size_t t = 0; t < 2; t++) {
		pe_capture c;
		pe_load(&c, FIXTURE_V2);
		pe_vlan(&c, 0, 7);
		to_cooked(&c, types[t]);
		char *path = pe_write_pcap(&c, "cooked.pcap", types[t]);
		replay_result res;
		decode_file(path, &res);
		assert_fixture_picture(&res, 2, REPORT_NO_VLAN);
		cr_assert_eq(res.linktype, types[t]);
		replay_result_free(&res);
		g_free(path);
		pe_free(&c);

		pe_load(&c, LINUX_TRACE);
		to_cooked(&c, types[t]);
		path = pe_write_pcap(&c, "cooked-linux.pcap", types[t]);
		decode_file(path, &res);
		cr_assert_eq(res.errors.total, 0, "%s", res.errors.n ? res.errors.items[0].text : "");
		cr_assert_eq(res.frames, 227);
		cr_assert_eq(res.clc_messages, 3);
		cr_assert_eq(res.llc_messages, 8);
		cr_assert_eq(res.report.n_stacks, 2);
		cr_assert_eq(res.report.lgrs[0].version, 2);
		cr_assert_eq(res.unexplained.total, 18, "ICMPv6, ARP and ping, as from Ethernet");
		replay_result_free(&res);
		g_free(path);
		pe_free(&c);
	}
}

/* a cut pseudo-header is malformed, a non-Ethernet protocol is not ours; both are
 * listed with their frame numbers and the rest decodes */
Test(replay, bad_cooked_records_are_listed_with_their_frames)
{
	pe_capture c;
	pe_load(&c, FIXTURE_V2);
	to_cooked(&c, DLT_LINUX_SLL);
	uint8_t cut[10] = { 0 }, can[40] = { 0 };
	put_be16(can + 2, 280);     /* ARPHRD_CAN */
	put_be16(can + 14, 0x000C); /* ETH_P_CAN */
	pe_append(&c, c.f[c.n - 1].ts_ns + 1000, cut, sizeof(cut));
	pe_append(&c, c.f[c.n - 1].ts_ns + 2000, can, sizeof(can));
	char *path = pe_write_pcap(&c, "cooked-bad.pcap", DLT_LINUX_SLL);
	replay_result res;
	decode_file(path, &res);
	cr_assert_eq(res.unexplained.total, 2);
	cr_assert_eq(res.unexplained.items[0].frame, c.n - 1);
	cr_assert_not_null(strstr(res.unexplained.items[0].text, "truncated LINUX_SLL header: 10 of 16 bytes"), "%s",
	                   res.unexplained.items[0].text);
	cr_assert_eq(res.unexplained.items[1].frame, c.n);
	cr_assert_not_null(strstr(res.unexplained.items[1].text, "Linux protocol 0x000c"), "%s", res.unexplained.items[1].text);
	cr_assert_eq(res.clc_messages, 5, "the frames before them decode");
	replay_result_free(&res);
	g_free(path);
	pe_free(&c);
}

/* Keep this process's address space within `extra` bytes of what it uses now, so that
 * an allocation sized by a value from a file fails here (g_malloc aborts) instead of
 * passing unnoticed on an overcommitting system. Not under AddressSanitizer, whose
 * shadow memory needs the address space. */
static void limit_address_space(size_t extra)
{
#ifndef __SANITIZE_ADDRESS__
	FILE *f = fopen("/proc/self/statm", "r");
	cr_assert_not_null(f);
	unsigned long pages = 0;
	cr_assert_eq(fscanf(f, "%lu", &pages), 1);
	fclose(f);
	struct rlimit rl = { .rlim_cur = pages * (rlim_t)sysconf(_SC_PAGESIZE) + extra };
	rl.rlim_max = rl.rlim_cur;
	cr_assert_eq(setrlimit(RLIMIT_AS, &rl), 0);
#else
	(void)extra;
#endif
}

/* The snap length in a file's header is the file's word: a cooked capture claiming
 * 1.3 GB (or 2 GB) decodes as usual with the reader's own record buffer (a huge claim
 * was once the size of an allocation; found by fuzz_pcap) */
Test(replay, a_huge_snap_length_in_the_file_header_is_not_a_buffer_size)
{
	uint32_t claims[] = { 0x50040000u, 0x7FFFFFFFu };
	for (size_t k = 0; k < 2; k++) {
		pe_capture c;
		pe_load(&c, FIXTURE_V2);
		to_cooked(&c, DLT_LINUX_SLL);
		char *path = pe_write_pcap(&c, "cooked-snaplen.pcap", DLT_LINUX_SLL);
		FILE *f = fopen(path, "r+b");
		cr_assert_not_null(f);
		uint8_t hdr[24];
		cr_assert_eq(fread(hdr, 1, sizeof(hdr), f), sizeof(hdr));
		if (hdr[0] == 0xd4) /* written in the host's byte order: little-endian magic */
			put_le32(hdr + 16, claims[k]);
		else
			put_be32(hdr + 16, claims[k]);
		cr_assert_eq(fseek(f, 0, SEEK_SET), 0);
		cr_assert_eq(fwrite(hdr, 1, sizeof(hdr), f), sizeof(hdr));
		fclose(f);
		if (k == 0)
			limit_address_space(512u << 20);
		replay_result res;
		decode_file(path, &res);
		assert_fixture_picture(&res, 2, REPORT_NO_VLAN);
		cr_assert_eq(res.unexplained.total, 0);
		replay_result_free(&res);
		g_free(path);
		pe_free(&c);
	}
}

Test(replay, vlan_tags_give_the_link_group_vlan)
{
	for (int v = 1; v <= 2; v++) {
		pe_capture c;
		pe_load(&c, v == 1 ? FIXTURE_V1 : FIXTURE_V2);
		for (size_t i = 0; i < c.n; i++)
			pe_vlan(&c, i, 613);
		replay_result res;
		pe_decode(&c, NULL, &res);
		assert_fixture_picture(&res, v, 613);
		replay_result_free(&res);
		pe_free(&c);
	}
}

Test(replay, clc_split_into_many_segments_is_reassembled)
{
	pe_capture c;
	pe_load(&c, FIXTURE_V2);
	/* Confirm in 3 pieces, Accept into 1-byte + rest, Proposal into 5 + 40 + rest */
	pe_tcp_split(&c, F_CONFIRM, 30);
	pe_tcp_split(&c, F_CONFIRM + 1, 1);
	pe_tcp_split(&c, F_ACCEPT, 1);
	pe_tcp_split(&c, F_PROPOSAL, 5);
	pe_tcp_split(&c, F_PROPOSAL + 1, 40);
	replay_result res;
	pe_decode(&c, NULL, &res);
	assert_fixture_picture(&res, 2, REPORT_NO_VLAN);
	replay_result_free(&res);
	pe_free(&c);
}

Test(replay, out_of_order_and_retransmitted_segments_are_handled)
{
	pe_capture c;
	pe_load(&c, FIXTURE_V2);
	pe_tcp_split(&c, F_ACCEPT, 20);         /* Accept = A1 A2 */
	pe_tcp_split(&c, F_ACCEPT + 1, 20);     /* Accept = A1 A2 A3 */
	pe_move(&c, F_ACCEPT + 2, F_ACCEPT);    /* A3 A1 A2: the last piece arrives first */
	pe_dup(&c, F_ACCEPT + 1, F_ACCEPT + 3); /* A1 again after A2: full retransmission */
	/* the Proposal retransmitted whole, and a partial overlap of its middle */
	pe_dup(&c, F_PROPOSAL, F_PROPOSAL + 1);
	pe_dup(&c, F_PROPOSAL, F_PROPOSAL + 2);
	pe_tcp_slice(&c, F_PROPOSAL + 2, 10, 30);
	replay_result res;
	pe_decode(&c, NULL, &res);
	assert_fixture_picture(&res, 2, REPORT_NO_VLAN);
	cr_assert_eq(res.tcp_retransmissions, 3);
	replay_result_free(&res);
	pe_free(&c);
}

Test(replay, two_clc_messages_in_one_segment_both_decode)
{
	pe_capture c;
	pe_load(&c, FIXTURE_V2);
	/* parser test: the Accept is put first so that Proposal + Confirm can share a segment */
	pe_move(&c, F_ACCEPT, F_PROPOSAL);
	pe_tcp_merge(&c, F_PROPOSAL + 1, F_CONFIRM);
	replay_result res;
	pe_decode(&c, NULL, &res);
	assert_fixture_picture(&res, 2, REPORT_NO_VLAN);
	replay_result_free(&res);
	pe_free(&c);
}

Test(replay, decline_followed_by_data_in_one_segment_counts_tcp_bytes)
{
	pe_capture c;
	pe_load(&c, FIXTURE_V2);
	/* the server's Decline and its first 28 bytes of application data in one segment */
	pe_dup(&c, F_DECLINE, F_DECLINE + 1);
	uint32_t off = pe_tcp_payload_off(&c, F_DECLINE + 1);
	memset(c.f[F_DECLINE + 1].data + off, 'x', 28);
	pe_frame *fr = &c.f[F_DECLINE + 1];
	put_be32(fr->data + 14 + 20 + 4, get_be32(fr->data + 14 + 20 + 4) + 28);
	pe_tcp_merge(&c, F_DECLINE, F_DECLINE + 1);
	replay_result res;
	pe_decode(&c, NULL, &res);
	cr_assert_eq(res.errors.total, 0);
	const report_conn *s2 = conn_of(&res.report, 2, 12345, 40002);
	cr_assert_eq(s2->mode, REPORT_MODE_TCP);
	cr_assert_eq(s2->bytes_sent, 28);
	replay_result_free(&res);
	pe_free(&c);
}

Test(replay, syn_ack_without_smc_option_is_a_peernosmc_fallback)
{
	pe_capture c;
	pe_load(&c, FIXTURE_V2);
	/* drop the option from the second SYN-ACK: kind 254 -> NOP NOP NOP NOP NOP NOP */
	pe_frame *fr = &c.f[F_SYNACK2];
	uint8_t *p = memchr(fr->data + 54, 254, fr->caplen - 54);
	cr_assert_not_null(p);
	memset(p, 1, 6);
	pe_remove(&c, F_DECLINE);
	pe_remove(&c, F_PROPOSAL2);
	replay_result res;
	pe_decode(&c, NULL, &res);
	cr_assert_eq(res.errors.total, 0);
	const report_conn *c2 = conn_of(&res.report, 1, 40002, 12345);
	cr_assert_eq(c2->mode, REPORT_MODE_TCP);
	cr_assert_eq(c2->fallback_reason, SMCR_DECL_PEERNOSMC);
	cr_assert_eq(res.report.n_conns, 3, "the server did not speak SMC on that connection");
	cr_assert_eq(res.report.stacks[0].stats.fallbacks[0].code, SMCR_DECL_PEERNOSMC);
	replay_result_free(&res);
	pe_free(&c);
}

Test(replay, tcp_without_smc_option_is_listed_not_reported)
{
	pe_capture c;
	pe_load(&c, FIXTURE_V2);
	pe_frame *fr = &c.f[F_SYN2];
	uint8_t *p = memchr(fr->data + 54, 254, fr->caplen - 54);
	memset(p, 1, 6);
	pe_remove(&c, F_DECLINE);
	pe_remove(&c, F_PROPOSAL2);
	replay_result res;
	pe_decode(&c, NULL, &res);
	cr_assert_eq(res.report.n_conns, 2);
	cr_assert_eq(res.unexplained.total, 4, "SYN, SYN-ACK and two ACKs of the plain TCP connection");
	cr_assert_eq(res.n_reasons, 1);
	cr_assert_str_eq(res.reasons[0].reason, "TCP without the SMC option");
	cr_assert_eq(res.reasons[0].first_frame, F_SYN2 + 1);
	replay_result_free(&res);
	pe_free(&c);
}

/* A copy of the fixture's CONFIRM LINK request frame (a 44-byte SEND ONLY from the server
 * to the client's QP) carrying another LLC message from `from` with the next PSN. */
static void append_llc(pe_capture *c, const smcr_llc_msg *m, bool from_server, uint32_t psn, uint64_t ts)
{
	size_t src = from_server ? F_CL_REQ : F_CL_RSP;
	pe_dup(c, src, c->n);
	pe_frame *fr = &c->f[c->n - 1];
	fr->ts_ns = ts;
	uint8_t *bth = fr->data + 14 + 20 + 8;
	put_be24(bth + 9, psn);
	cr_assert_eq(smcr_llc_encode(bth + 12, 44, m, SMCR_LLC_V2_LE), 44);
	pe_roce_fix_icrc(c, c->n - 1);
}

Test(replay, delete_link_fails_the_link_with_ist2406i_fields)
{
	pe_capture c;
	pe_load(&c, FIXTURE_V2);
	uint32_t psn = get_be24(c.f[F_CDC_S2C].data + 14 + 20 + 8 + 9) + 1;
	smcr_llc_msg m = { .type = SMCR_LLC_DELETE_LINK, .version = 1 };
	m.u.delete_link.link_id = 1;
	m.u.delete_link.reason = SMCR_LLC_DEL_LOST_PATH;
	append_llc(&c, &m, true, psn, c.f[c.n - 1].ts_ns + 1000);
	replay_result res;
	pe_decode(&c, NULL, &res);
	cr_assert_eq(res.errors.total, 0);
	const smcr_report *r = &res.report;
	cr_assert_eq(r->n_events, 2, "one event per stack");
	for (size_t i = 0; i < 2; i++) {
		const report_event *e = &r->events[i];
		cr_assert_eq(e->kind, REPORT_EVENT_LINK_FAILED);
		cr_assert_eq(e->code, SMCR_LLC_DEL_LOST_PATH);
		cr_assert_eq(e->frame, c.n);
		cr_assert_eq(e->link_num, 1);
		cr_assert_eq(e->local_qpn, e->stack_id == 1 ? 0x111u : 0x112u);
		cr_assert_eq(e->remote_qpn, e->stack_id == 1 ? 0x112u : 0x111u);
		cr_assert_str_eq(e->intf, "RNIC1");
	}
	cr_assert_eq(link_of(r, 1, 1)->state, REPORT_LINK_INACTIVE);
	cr_assert_eq(r->lgrs[0].type, REPORT_LGR_NONE);
	replay_result_free(&res);
	pe_free(&c);
}

Test(replay, orderly_delete_of_all_links_is_a_removal_not_a_failure)
{
	pe_capture c;
	pe_load(&c, FIXTURE_V2);
	uint32_t psn = get_be24(c.f[F_CDC_S2C].data + 14 + 20 + 8 + 9) + 1;
	smcr_llc_msg m = { .type = SMCR_LLC_DELETE_LINK, .version = 2, .flags = SMCR_LLC_FLAG_DEL_LINK_ALL | SMCR_LLC_FLAG_DEL_LINK_ORDERLY };
	m.u.delete_link.reason = SMCR_LLC_DEL_PROG_INIT_TERM;
	append_llc(&c, &m, true, psn, c.f[c.n - 1].ts_ns + 1000);
	replay_result res;
	pe_decode(&c, NULL, &res);
	cr_assert_eq(res.errors.total, 0, "a v2 (little-endian length) DELETE LINK decodes");
	cr_assert_eq(res.report.n_events, 2);
	cr_assert_eq(res.report.events[0].kind, REPORT_EVENT_LINK_DELETED);
	replay_result_free(&res);
	pe_free(&c);
}

Test(replay, fatal_nak_fails_the_link)
{
	pe_capture c;
	pe_load(&c, FIXTURE_V2);
	/* the server answers the client's CDC with NAK "remote access error" instead of ACK */
	pe_dup(&c, F_RACK, c.n);
	pe_frame *fr = &c.f[c.n - 1];
	fr->ts_ns = c.f[c.n - 2].ts_ns + 10;
	uint8_t *bth = fr->data + 14 + 20 + 8;
	put_be24(bth + 9, get_be24(c.f[F_CDC_C2S].data + 14 + 20 + 8 + 9));
	bth[12] = 0x62;
	pe_roce_fix_icrc(&c, c.n - 1);
	replay_result res;
	pe_decode(&c, NULL, &res);
	cr_assert_eq(res.report.n_events, 2);
	cr_assert_eq(res.report.events[0].kind, REPORT_EVENT_LINK_FAILED);
	cr_assert_eq(res.report.events[0].code, 0x62);
	cr_assert_not_null(strstr(res.report.events[0].cause, "remote access error"));
	const report_link *ls = link_of(&res.report, 2, 1), *lc = link_of(&res.report, 1, 1);
	cr_assert_eq(ls->naks_out, 1);
	cr_assert_eq(lc->naks_in, 1);
	replay_result_free(&res);
	pe_free(&c);
}

Test(replay, unacknowledged_requests_until_the_end_mean_stopped_traffic)
{
	pe_capture c;
	pe_load(&c, FIXTURE_V2);
	/* the fixture's CONFIRM LINK request and CDCs ask for ACKs and get none; the capture
	 * goes on for 2 s */
	uint64_t end = c.f[c.n - 1].ts_ns + 2000000000ull;
	pe_dup(&c, F_ACK4, c.n);
	c.f[c.n - 1].ts_ns = end;
	replay_result res;
	pe_decode(&c, NULL, &res);
	cr_assert_eq(res.report.n_events, 2);
	cr_assert_eq(res.report.events[0].frame, F_CL_REQ + 1, "dated at the oldest unacknowledged request");
	cr_assert_not_null(strstr(res.report.events[0].cause, "traffic stopped"));
	replay_result_free(&res);
	/* with a longer stall threshold nothing is reported */
	replay_opts o = { .stall_ns = 3000000000ull };
	pe_decode(&c, &o, &res);
	cr_assert_eq(res.report.n_events, 0);
	replay_result_free(&res);
	pe_free(&c);
}

Test(replay, roce_retransmission_is_counted_once)
{
	pe_capture c;
	pe_load(&c, FIXTURE_V2);
	pe_dup(&c, F_CDC_C2S, F_CDC_C2S + 1); /* the CDC twice: same PSN */
	replay_result res;
	pe_decode(&c, NULL, &res);
	assert_fixture_picture(&res, 2, REPORT_NO_VLAN);
	cr_assert_eq(res.roce_retransmissions, 1);
	cr_assert_eq(link_of(&res.report, 1, 1)->retrans_out, 1);
	replay_result_free(&res);
	pe_free(&c);
}

/* After a failover Linux rewinds the producer cursor to what the peer confirmed and writes
 * those bytes again (smc_switch_cursor): a CDC with a cursor behind the last, then one that
 * catches up. The application sent the bytes once (a capture of Linux 6.12 on rxe counted
 * 16 KiB twice before). */
Test(replay, a_rewound_producer_cursor_counts_the_bytes_once)
{
	pe_capture c;
	pe_load(&c, FIXTURE_V2);
	const uint8_t *orig = c.f[F_CDC_C2S].data + 14 + 20 + 8;
	uint32_t psn = get_be24(orig + 9);
	uint16_t seq = (uint16_t)(orig[12 + 2] << 8 | orig[12 + 3]);
	const uint32_t counts[2] = { 32, 64 }; /* back to 32, then 64 again */
	for (int k = 0; k < 2; k++) {
		pe_dup(&c, F_CDC_C2S, c.n);
		pe_frame *fr = &c.f[c.n - 1];
		fr->ts_ns = c.f[c.n - 2].ts_ns + 10;
		uint8_t *bth = fr->data + 14 + 20 + 8, *cdc = bth + 12;
		put_be24(bth + 9, (psn + 1 + (uint32_t)k) & 0xffffff);
		put_be16(cdc + 2, (uint16_t)(seq + 1 + k));
		put_be32(cdc + 8 + 4, counts[k]);
		pe_roce_fix_icrc(&c, c.n - 1);
	}
	replay_result res;
	pe_decode(&c, NULL, &res);
	cr_assert_eq(res.errors.total, 0, "%s", res.errors.n ? res.errors.items[0].text : "");
	const report_conn *c1 = conn_of(&res.report, 1, 40001, 12345), *s1 = conn_of(&res.report, 2, 12345, 40001);
	cr_assert_eq(c1->tx_prod.count, 64);
	cr_assert_eq(c1->bytes_sent, 64, "sent %llu", (unsigned long long)c1->bytes_sent);
	cr_assert_eq(s1->bytes_received, 64);
	replay_result_free(&res);
	pe_free(&c);
}

Test(replay, bad_icrc_is_reported_and_the_frame_still_decoded)
{
	pe_capture c;
	pe_load(&c, FIXTURE_V2);
	c.f[F_WRITE].data[c.f[F_WRITE].caplen - 10] ^= 0xFF; /* a data byte of the RDMA WRITE */
	replay_result res;
	pe_decode(&c, NULL, &res);
	cr_assert_eq(res.errors.total, 1);
	cr_assert_eq(res.errors.items[0].frame, F_WRITE + 1);
	cr_assert_not_null(strstr(res.errors.items[0].text, "field ICRC"), "%s", res.errors.items[0].text);
	cr_assert_eq(conn_of(&res.report, 1, 40001, 12345)->rdma_bytes_out, 64, "still attributed");
	cr_assert_eq(res.explained, res.frames);
	replay_result_free(&res);
	pe_free(&c);
}

Test(replay, rdma_write_outside_the_rmb_is_an_error)
{
	pe_capture c;
	pe_load(&c, FIXTURE_V2);
	uint8_t *reth = c.f[F_WRITE].data + 14 + 20 + 8 + 12;
	put_be64(reth, get_be64(reth) + 16384 - 32); /* 64 bytes at 32 before the end of a 16 KiB RMB */
	pe_roce_fix_icrc(&c, F_WRITE);
	replay_result res;
	pe_decode(&c, NULL, &res);
	cr_assert_eq(res.errors.total, 1);
	cr_assert_eq(res.errors.items[0].frame, F_WRITE + 1);
	cr_assert_not_null(strstr(res.errors.items[0].text, "outside the RMB"));
	replay_result_free(&res);
	pe_free(&c);
}

Test(replay, rdma_write_that_wraps_the_address_space_is_outside_the_rmb)
{
	/* an RMB announced at address 0 and a WRITE of 64 bytes at 2^64 - 32: the end wraps
	 * to 32, inside the RMB, unless the check keeps to the sizes */
	pe_capture c;
	pe_load(&c, FIXTURE_V2);
	uint8_t *reth = c.f[F_WRITE].data + 14 + 20 + 8 + 12;
	uint8_t vaddr[8];
	put_be64(vaddr, get_be64(reth));
	uint8_t *clc = c.f[F_ACCEPT].data + pe_tcp_payload_off(&c, F_ACCEPT);
	uint8_t *at = memmem(clc, c.f[F_ACCEPT].caplen - pe_tcp_payload_off(&c, F_ACCEPT), vaddr, sizeof(vaddr));
	cr_assert_not_null(at, "the Accept holds the RMB address the WRITE goes to");
	put_be64(at, 0);
	put_be64(reth, UINT64_MAX - 31);
	pe_roce_fix_icrc(&c, F_WRITE);
	replay_result res;
	pe_decode(&c, NULL, &res);
	cr_assert_eq(res.errors.total, 1);
	cr_assert_eq(res.errors.items[0].frame, F_WRITE + 1);
	cr_assert_not_null(strstr(res.errors.items[0].text, "outside the RMB"), "%s", res.errors.items[0].text);
	replay_result_free(&res);
	pe_free(&c);
}

Test(replay, snaplen_cut_clc_is_reported_with_its_frame)
{
	pe_capture c;
	pe_load(&c, FIXTURE_V2);
	pe_cut(&c, F_ACCEPT, pe_tcp_payload_off(&c, F_ACCEPT) + 20);
	replay_result res;
	pe_decode(&c, NULL, &res);
	cr_assert_eq(res.cut_frames, 1);
	cr_assert_geq(res.errors.total, 1);
	cr_assert_eq(res.errors.items[0].frame, F_ACCEPT + 1);
	cr_assert_not_null(strstr(res.errors.items[0].text, "cut by the snap length"));
	/* without the Accept no link is known: the RoCE frames are listed, not dropped */
	cr_assert_eq(res.report.n_links, 0);
	cr_assert_eq(res.unexplained.total, 6);
	cr_assert_eq(res.explained + res.unexplained.total, res.frames);
	replay_result_free(&res);
	pe_free(&c);
}

Test(replay, snaplen_cut_roce_frames_keep_wire_lengths_and_report_cut_messages)
{
	pe_capture c;
	pe_load(&c, FIXTURE_V2);
	pe_cut(&c, F_WRITE, 14 + 20 + 8 + 12 + 16 + 10); /* RETH and 10 data bytes */
	pe_cut(&c, F_CDC_S2C, 14 + 20 + 8 + 12 + 20);    /* half a CDC */
	replay_result res;
	pe_decode(&c, NULL, &res);
	cr_assert_eq(conn_of(&res.report, 1, 40001, 12345)->rdma_bytes_out, 64, "wire length counts");
	cr_assert_eq(res.errors.total, 1);
	cr_assert_eq(res.errors.items[0].frame, F_CDC_S2C + 1);
	cr_assert_not_null(strstr(res.errors.items[0].text, "20 of 44 bytes captured"));
	replay_result_free(&res);
	pe_free(&c);
}

Test(replay, garbage_in_the_clc_stream_is_a_decode_error)
{
	pe_capture c;
	pe_load(&c, FIXTURE_V2);
	uint32_t off = pe_tcp_payload_off(&c, F_ACCEPT);
	c.f[F_ACCEPT].data[off + 5] = 0x7f; /* length field: 0x7fxx, beyond any CLC message */
	replay_result res;
	pe_decode(&c, NULL, &res);
	cr_assert_eq(res.errors.total, 1);
	cr_assert_eq(res.errors.items[0].frame, F_ACCEPT + 1);
	cr_assert_not_null(strstr(res.errors.items[0].text, "length"), "%s", res.errors.items[0].text);
	cr_assert_eq(res.report.stacks[1].stats.srv_hshake_err, 1);
	replay_result_free(&res);
	pe_free(&c);
}

static void mutate_and_decode(const char *path, uint64_t seed, int rounds)
{
	pe_capture base;
	pe_load(&base, path);
	sim_rng rng;
	sim_rng_seed(&rng, seed);
	for (int round = 0; round < rounds; round++) {
		pe_capture c;
		pe_copy(&c, &base);
		unsigned flips = 1 + (unsigned)sim_rng_below(&rng, 8);
		for (unsigned k = 0; k < flips; k++) {
			pe_frame *fr = &c.f[sim_rng_below(&rng, c.n)];
			fr->data[sim_rng_below(&rng, fr->caplen)] = (uint8_t)sim_rng_u32(&rng);
		}
		if (sim_rng_below(&rng, 4) == 0) {
			size_t i = sim_rng_below(&rng, c.n);
			pe_cut(&c, i, (uint32_t)sim_rng_below(&rng, c.f[i].caplen + 1));
		}
		if (sim_rng_below(&rng, 4) == 0)
			pe_move(&c, sim_rng_below(&rng, c.n), sim_rng_below(&rng, c.n));
		if (sim_rng_below(&rng, 4) == 0)
			pe_dup(&c, sim_rng_below(&rng, c.n), sim_rng_below(&rng, c.n));
		if (sim_rng_below(&rng, 4) == 0)
			pe_remove(&c, sim_rng_below(&rng, c.n));
		replay_result res;
		pe_decode(&c, NULL, &res);
		cr_assert_eq(res.frames, c.n);
		cr_assert_eq(res.explained + res.unexplained.total, res.frames, "round %d", round);
		replay_result_free(&res);
		pe_free(&c);
	}
	pe_free(&base);
}

Test(replay, random_mutations_never_crash_and_every_frame_is_accounted)
{
	mutate_and_decode(FIXTURE_V2, 42, 300);
	mutate_and_decode(FIXTURE_V1, 43, 200);
	mutate_and_decode(LINUX_TRACE, 44, 200);
}

Test(replay, truncated_file_is_decoded_up_to_the_damage)
{
	pe_capture c;
	pe_load(&c, FIXTURE_V2);
	char *path = pe_write_pcap(&c, "trunc.pcap", DLT_EN10MB);
	FILE *f = fopen(path, "r+");
	cr_assert_not_null(f);
	fseek(f, 0, SEEK_END);
	long size = ftell(f);
	fclose(f);
	cr_assert_eq(truncate(path, size - 10), 0);
	replay_result res;
	decode_file(path, &res);
	cr_assert(res.file_damaged);
	cr_assert_eq(res.frames, 18);
	cr_assert_eq(res.errors.items[0].frame, 19);
	cr_assert_not_null(strstr(res.errors.items[0].text, "damaged at frame 19"), "%s", res.errors.items[0].text);
	cr_assert_eq(res.report.n_links, 2, "what came before is decoded");
	replay_result_free(&res);
	g_free(path);
	pe_free(&c);
}

Test(replay, wrong_link_type_and_non_captures_are_refused_clearly)
{
	pe_capture c;
	pe_load(&c, FIXTURE_V2);
	char *path = pe_write_pcap(&c, "raw.pcap", DLT_RAW);
	replay_result res;
	char err[512];
	cr_assert_eq(replay_decode_file(path, NULL, &res, err, sizeof(err)), -1);
	cr_assert_not_null(strstr(err, "is not Ethernet"), "%s", err);
	cr_assert_not_null(strstr(err, "RAW"), "%s", err);
	g_free(path);
	cr_assert_eq(replay_decode_file("tests/data/replay/README.md", NULL, &res, err, sizeof(err)), -1);
	cr_assert_not_null(strstr(err, "cannot read as a capture file"), "%s", err);
	cr_assert_eq(replay_decode_file("/nonexistent/x.pcap", NULL, &res, err, sizeof(err)), -1);
	pe_free(&c);
}

/* The real Linux 6.1 SMC-Rv2 capture: v2 CLC, v2 LLC with little-endian lengths (which
 * tshark 4.0 cannot read), rxe retransmissions, 1 MiB each way, a close and the middle
 * of the transfer trimmed away. */
Test(replay, real_linux_smcr_v2_capture_is_reconstructed)
{
	replay_result res;
	decode_file(LINUX_TRACE, &res);
	const smcr_report *r = &res.report;
	cr_assert_eq(res.errors.total, 0, "%s", res.errors.n ? res.errors.items[0].text : "");
	cr_assert_eq(res.frames, 227);
	cr_assert_eq(res.unexplained.total, 18, "ICMPv6, ARP and ping before the test");
	cr_assert_eq(res.clc_messages, 3);
	cr_assert_eq(res.llc_messages, 8, "CONFIRM LINK x2, ADD LINK + reject, DELETE RKEY x2 + responses");
	cr_assert_gt(res.capture_gaps, 1000, "the trimmed middle shows as missing packets");
	cr_assert_eq(r->n_stacks, 2);
	cr_assert_eq(r->stacks[0].os, REPORT_OS_LINUX);
	cr_assert_str_eq(r->stacks[0].name, "(none)", "the guests' host name, from the v2 First Contact Extension");
	/* stack 1 is the client 10.0.0.2 (its SYN comes first) */
	const report_link *lc = link_of(r, 1, 1), *ls = link_of(r, 2, 1);
	cr_assert_eq(lc->local_link_id, 0x101, "CONFIRM LINK v2 (length 2c 00) read");
	cr_assert_eq(lc->remote_link_id, 0x101);
	cr_assert_eq(lc->local_qpn, 0x11);
	cr_assert_eq(lc->remote_qpn, 0x11);
	assert_gid(lc->local_gid, "::ffff:10.0.0.2");
	assert_gid(ls->local_gid, "::ffff:10.0.0.1");
	cr_assert_eq(lc->state, REPORT_LINK_ACTIVE);
	cr_assert_eq(r->lgrs[0].version, 2);
	cr_assert_eq(r->lgrs[0].id, 0x100);
	cr_assert_eq(r->lgrs[0].max_links, 2, "from CONFIRM LINK v2");
	/* 6.1 (release 0) leaves CONFIRM LINK's max_conns 0; its lgr has SMC_CONN_PER_LGR_MAX,
	 * which a 6.12 kernel's netlink shows for a link group with a 6.1 peer */
	cr_assert_eq(r->lgrs[0].max_conns, 255, "SMC_CONN_PER_LGR_MAX for a release 0 group");
	const report_conn *cc = conn_of(r, 1, 35728, 5000), *sc = conn_of(r, 2, 5000, 35728);
	cr_assert_eq(cc->smc_version, 2);
	cr_assert_eq(cc->bytes_sent, 1048576);
	cr_assert_eq(cc->bytes_received, 1048576);
	cr_assert_eq(sc->bytes_sent, 1048576);
	cr_assert_eq(cc->state, REPORT_CONN_CLOSED);
	cr_assert_eq(cc->local_token, 1);
	cr_assert_eq(cc->rmbe_size, 65536);
	cr_assert_eq(res.notes.total, 1);
	cr_assert_not_null(strstr(res.notes.items[0].text, "ADD LINK rejected"));
	/* Linux's v2 reject: bytes 1-2 are the length (2c 00), the reason it set is gone */
	cr_assert_not_null(strstr(res.notes.items[0].text, "the reason is not on the wire"), "%s", res.notes.items[0].text);
	cr_assert_null(strstr(res.notes.items[0].text, "no alternate path"));
	replay_result_free(&res);
}

Test(replay, v2_llc_in_big_endian_order_reads_the_same)
{
	pe_capture c;
	pe_load(&c, LINUX_TRACE);
	/* rewrite every v2 LLC length (and ADD LINK rkey count) from Linux x86's order (2c 00)
	 * to s390's and Wireshark's (00 2c) */
	unsigned swapped = 0;
	for (size_t i = 0; i < c.n; i++) {
		pe_frame *fr = &c.f[i];
		if (fr->caplen < 14 + 20 + 8 + 12 + 44 || get_be16(fr->data + 12) != 0x0800 || fr->data[23] != 17)
			continue;
		uint8_t *ib = fr->data + 14 + 20 + 8, *p = ib + 12;
		uint32_t msg_len = get_be16(fr->data + 14 + 20 + 4) - 8u - 12u - 4u;
		if (ib[0] == RP_OP_SEND_ONLY && (p[0] & 0xF0) == 0x20 && get_le16(p + 1) == msg_len) {
			put_be16(p + 1, (uint16_t)msg_len);
			if (p[0] == 0x22 && msg_len > 72) /* ADD LINK's rkey count is in the same order */
				put_be16(p + 70, get_le16(p + 70));
			pe_roce_fix_icrc(&c, i);
			swapped++;
		}
	}
	cr_assert_eq(swapped, 8);
	replay_result res;
	pe_decode(&c, NULL, &res);
	cr_assert_eq(res.errors.total, 0, "%s", res.errors.n ? res.errors.items[0].text : "");
	cr_assert_eq(res.llc_messages, 8);
	cr_assert_eq(link_of(&res.report, 1, 1)->local_link_id, 0x101);
	replay_result_free(&res);
	pe_free(&c);
}

Test(replay, lists_are_capped_but_everything_is_counted)
{
	replay_result res;
	replay_opts o = { .max_listed = 5 };
	char err[128];
	cr_assert_eq(replay_decode_file(LINUX_TRACE, &o, &res, err, sizeof(err)), 0);
	cr_assert_eq(res.unexplained.n, 5);
	cr_assert_eq(res.unexplained.total, 18);
	uint64_t sum = 0;
	for (size_t i = 0; i < res.n_reasons; i++)
		sum += res.reasons[i].count;
	cr_assert_eq(sum, 18);
	replay_result_free(&res);
}

Test(replay_frame, parses_vlan_stacks_ipv6_tcp_and_rejects_short_headers)
{
	uint8_t f[200] = { 0 };
	char why[128];
	rp_frame fr;
	/* QinQ: 88a8 (vid 5) + 8100 (vid 613) + IPv6 + TCP with the SMC option */
	put_be16(f + 12, 0x88A8);
	put_be16(f + 14, 5);
	put_be16(f + 16, 0x8100);
	put_be16(f + 18, 613);
	put_be16(f + 20, 0x86DD);
	uint8_t *ip = f + 22;
	ip[0] = 0x60;
	put_be16(ip + 4, 32);
	ip[6] = 6;
	ip[23] = 1;
	ip[39] = 2;
	uint8_t *t = ip + 40;
	put_be16(t, 40001);
	put_be16(t + 2, 12345);
	put_be32(t + 4, 1000);
	t[12] = 8 << 4;
	t[13] = RP_TCP_SYN;
	t[20] = 1;
	t[21] = 1;
	t[22] = 254;
	t[23] = 6;
	put_be32(t + 24, 0xE2D4C3D9);
	t[28] = 1;
	t[29] = 1;
	t[30] = 1;
	t[31] = 1;
	cr_assert_eq(rp_frame_parse(&fr, f, 22 + 40 + 32, 22 + 40 + 32, why, sizeof(why)), RP_FRAME_TCP, "%s", why);
	cr_assert_eq(fr.vlan, 613);
	cr_assert_eq(fr.family, 6);
	cr_assert(fr.smc_option);
	cr_assert_eq(fr.seq, 1000);
	cr_assert_eq(fr.payload_len, 0);
	cr_assert_eq(rp_frame_parse(&fr, f, 22 + 40 + 10, 22 + 40 + 32, why, sizeof(why)), RP_FRAME_BAD);
	cr_assert_not_null(strstr(why, "truncated TCP header"));
	cr_assert_eq(rp_frame_parse(&fr, f, 10, 10, why, sizeof(why)), RP_FRAME_BAD);
	put_be16(f + 12, 0x0806);
	cr_assert_eq(rp_frame_parse(&fr, f, 60, 60, why, sizeof(why)), RP_FRAME_OTHER);
	cr_assert_str_eq(why, "ARP");
}

Test(replay_frame, bth_headers_by_opcode_and_non_rc_packets)
{
	uint8_t ib[64] = { 0 };
	char why[128];
	rp_bth b;
	ib[0] = RP_OP_WRITE_ONLY;
	ib[1] = 0x10; /* pad 1 */
	put_be24(ib + 5, 0x111);
	ib[8] = 0x80;
	put_be24(ib + 9, 0xABCDEF);
	put_be64(ib + 12, 0x7f0056780000ull);
	put_be32(ib + 20, 0x3c4d);
	put_be32(ib + 24, 7);
	cr_assert_eq(rp_bth_parse(&b, ib, 12 + 16 + 8 + 4, 12 + 16 + 8 + 4, why, sizeof(why)), RP_FRAME_ROCE, "%s", why);
	cr_assert(b.has_reth && b.ackreq);
	cr_assert_eq(b.dest_qp, 0x111);
	cr_assert_eq(b.psn, 0xABCDEF);
	cr_assert_eq(b.rkey, 0x3c4d);
	cr_assert_eq(b.payload_len, 7, "8 bytes minus 1 pad byte");
	ib[0] = RP_OP_ACK;
	ib[1] = 0;
	ib[12] = 0x60;
	cr_assert_eq(rp_bth_parse(&b, ib, 20, 20, why, sizeof(why)), RP_FRAME_ROCE);
	cr_assert(b.has_aeth);
	cr_assert_eq(b.syndrome, 0x60);
	cr_assert_eq(rp_bth_parse(&b, ib, 20, 24, why, sizeof(why)), RP_FRAME_BAD, "payload on an ACK");
	ib[0] = 0x81; /* CNP */
	cr_assert_eq(rp_bth_parse(&b, ib, 32, 32, why, sizeof(why)), RP_FRAME_OTHER);
	cr_assert_not_null(strstr(why, "CNP"));
	ib[0] = RP_OP_SEND_ONLY;
	cr_assert_eq(rp_bth_parse(&b, ib, 10, 60, why, sizeof(why)), RP_FRAME_BAD);
	cr_assert_eq(rp_bth_parse(&b, ib, 14, 14, why, sizeof(why)), RP_FRAME_BAD, "shorter than BTH + ICRC");
}

Test(replay_map, stores_replaces_and_grows)
{
	rp_map m;
	rp_map_init(&m, 20);
	uint8_t key[20] = { 0 };
	for (uint32_t i = 0; i < 5000; i++) {
		memcpy(key, &i, 4);
		rp_map_put(&m, key, i * 3u);
	}
	for (uint32_t i = 0; i < 5000; i++) {
		memcpy(key, &i, 4);
		uint64_t *v = rp_map_get(&m, key);
		cr_assert_not_null(v);
		cr_assert_eq(*v, i * 3u);
	}
	uint32_t k = 77;
	memcpy(key, &k, 4);
	rp_map_put(&m, key, 1);
	cr_assert_eq(*rp_map_get(&m, key), 1);
	k = 5000;
	memcpy(key, &k, 4);
	cr_assert_null(rp_map_get(&m, key));
	cr_assert_eq(m.n, 5000);
	rp_map_free(&m);
}

/* ---- fidelity: what the bytes say, and only that ------------------------------------ */

static char *text_of_msgs(const char *path, bool json)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	json_writer w;
	replay_opts o = { .on_msg_ctx = m };
	if (json) {
		json_init(&w, m, false);
		json_begin_array(&w);
		o.on_msg = (replay_msg_fn)(void (*)(void))replay_write_msg_json;
		o.on_msg_ctx = &w;
	} else {
		o.on_msg = (replay_msg_fn)(void (*)(void))replay_print_msg;
	}
	replay_result res;
	char err[256];
	cr_assert_eq(replay_decode_file(path, &o, &res, err, sizeof(err)), 0, "%s", err);
	if (json) {
		json_end_array(&w);
		json_finish(&w);
	}
	replay_result_free(&res);
	fclose(m);
	return buf;
}

static void json_extra(json_writer *w, void *ctx)
{
	replay_write_json(w, ctx);
}

static char *report_json_of(const char *path)
{
	replay_result res;
	decode_file(path, &res);
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	report_print_json(m, &res.report, json_extra, &res);
	fclose(m);
	replay_result_free(&res);
	return buf;
}

static void assert_has(const char *text, const char *want)
{
	cr_assert_not_null(strstr(text, want), "missing: %s", want);
}

Test(replay, v1_add_link_reject_gives_the_reason_byte)
{
	replay_result res;
	decode_file(TWO_STACKS, &res);
	bool found = false;
	for (size_t i = 0; i < res.notes.n; i++)
		found |= strstr(res.notes.items[i].text, "ADD LINK rejected by the client: reason 1, no alternate path") != NULL;
	cr_assert(found, "the v1 reject carries reason 1 in byte 2");
	replay_result_free(&res);
}

/* Linux's ADD LINK request (frame 31 of the real capture): every field in --messages and in
 * both JSON forms, as the bytes have them. */
Test(replay, add_link_request_fields_are_visible_in_messages_and_json)
{
	char *t = text_of_msgs(LINUX_TRACE, false);
	assert_has(t, "31 6.925592000 10.0.0.1->10.0.0.2 LLCv2 ADD_LINK request 88 bytes: ");
	assert_has(t, "mac=52:54:00:00:00:01 gid=::ffff:10.0.0.1 qpn=0x000012 link_num=2 mtu_code=3 mtu=1024 psn=0x8970c1 "
	              "v2_direct=yes client_target_gid=::ffff:10.0.0.1 rkeys=[{rkey_known=0x000003cc rkey_new=0x000005b5 "
	              "vaddr_new=0xff220060848c0000}]");
	assert_has(t, "rejected=yes reject_reason=\"not on the wire\"");
	assert_has(t, "CLC Accept v2 160 bytes: ");
	assert_has(t, "rkey=0x000003cc rmbe_idx=1 rmbe_alert_token=0x00000001");
	assert_has(t, "rmb_vaddr=0xff220060848c0000 psn=0xfbed02");
	free(t);
	char *j = text_of_msgs(LINUX_TRACE, true);
	assert_has(j, "\"psn\":\"0x8970c1\"");
	assert_has(j, "\"rkey_new\":\"0x000005b5\"");
	free(j);
	char *r = report_json_of(LINUX_TRACE);
	assert_has(r, "\"source\": \"capture\"");
	assert_has(r, "\"first_contact\": true");
	assert_has(r, "\"local_rkey\": \"0x000003d3\"");
	assert_has(r, "\"peer_rkey\": \"0x000003cc\"");
	assert_has(r, "\"local_rmb_vaddr\": \"0xff339567c4680000\"");
	assert_has(r, "\"local_psn\": \"0xadc77b\"");
	assert_has(r, "\"remote_psn\": \"0xfbed02\"");
	assert_has(r, "\"client_target_gid\": \"::ffff:10.0.0.1\"");
	assert_has(r, "\"id_made_up\": false");
	free(r);
	/* the v1 fixture's Proposal carries an IPv4 prefix */
	r = report_json_of(FIXTURE_V2);
	assert_has(r, "\"proposal_prefixes\": [\n");
	assert_has(r, "\"10.0.0.0/24\"");
	free(r);
}

static const report_conn *only_smc_conn(const smcr_report *r, uint32_t stack_id)
{
	for (size_t i = 0; i < r->n_conns; i++)
		if (r->conns[i].stack_id == stack_id && r->conns[i].mode == REPORT_MODE_SMCR)
			return &r->conns[i];
	cr_assert_fail("no SMC-R connection on stack %u", stack_id);
	return NULL;
}

/* Two Linux 6.1 kernels over the stock rdma_rxe, which never lets SMC send CONFIRM LINK
 * (rxe-setup/interop/patches/0001): the CLC handshake completes, the link never does. */
Test(replay, real_first_contact_without_confirm_link_stays_init_with_a_note)
{
	replay_result res;
	decode_file(LINUX_NO_CONFIRM, &res);
	const smcr_report *r = &res.report;
	cr_assert_eq(res.clc_messages, 3);
	cr_assert_eq(res.llc_messages, 0);
	cr_assert_eq(r->n_stacks, 2);
	for (uint32_t s = 1; s <= 2; s++)
		cr_assert_eq(only_smc_conn(r, s)->state, REPORT_CONN_INIT, "SMC_INIT until the first contact completes");
	for (size_t i = 0; i < r->n_lgrs; i++)
		cr_assert(r->lgrs[i].id_made_up, "no CONFIRM LINK named the link group");
	for (size_t i = 0; i < r->n_links; i++)
		cr_assert_eq(r->links[i].state, REPORT_LINK_ACTIVATING);
	bool noted = false;
	for (size_t i = 0; i < res.notes.n; i++)
		noted |= strstr(res.notes.items[i].text, "first contact not completed: no CONFIRM LINK request") != NULL &&
		         res.notes.items[i].frame == 22;
	cr_assert(noted, "the missing CONFIRM LINK is a note at the Confirm (frame 22)");
	replay_result_free(&res);
	char *t = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&t, &len);
	decode_file(LINUX_NO_CONFIRM, &res);
	report_print_netstat(m, &res.report, NULL);
	fclose(m);
	assert_has(t, "SMCR link group: FF000100  (id made up by replay");
	free(t);
	replay_result_free(&res);
}

/* A simulator capture cut after the CONFIRM LINK request: the response is missing. */
Test(replay, cut_after_confirm_link_request_is_init_with_a_note)
{
	pe_capture c;
	pe_load(&c, TWO_STACKS);
	while (c.n > 9)
		pe_remove(&c, c.n - 1);
	replay_result res;
	pe_decode(&c, NULL, &res);
	cr_assert_eq(only_smc_conn(&res.report, 1)->state, REPORT_CONN_INIT);
	cr_assert_eq(only_smc_conn(&res.report, 2)->state, REPORT_CONN_INIT);
	bool noted = false;
	for (size_t i = 0; i < res.notes.n; i++)
		noted |= strstr(res.notes.items[i].text, "CONFIRM LINK response is not in the capture") != NULL;
	cr_assert(noted);
	replay_result_free(&res);
	pe_free(&c);
}

/* Without the CDC messages that carry the close flags, the TCP FINs both ways still
 * close the SMC-R connections (Linux closes the TCP socket with the SMC socket). */
Test(replay, fin_both_ways_closes_smc_connections_without_cdc_close_flags)
{
	pe_capture c;
	pe_load(&c, TWO_STACKS);
	size_t removed = 0;
	for (size_t i = c.n; i > 200; i--)
		if (get_be16(c.f[i - 1].data + 12) == 0x8915) {
			pe_remove(&c, i - 1);
			removed++;
		}
	cr_assert_gt(removed, 100);
	replay_result res;
	pe_decode(&c, NULL, &res);
	size_t smc = 0;
	for (size_t i = 0; i < res.report.n_conns; i++) {
		const report_conn *rc = &res.report.conns[i];
		if (rc->mode != REPORT_MODE_SMCR)
			continue;
		smc++;
		cr_assert_eq(rc->state, REPORT_CONN_CLOSED, "connection %u of stack %u", rc->id, rc->stack_id);
	}
	cr_assert_eq(smc, 6);
	bool noted = false;
	for (size_t i = 0; i < res.notes.n; i++)
		noted |= strstr(res.notes.items[i].text, "TCP closed both ways (FIN), but no CDC message with the close flags") != NULL;
	cr_assert(noted);
	replay_result_free(&res);
	pe_free(&c);
}

/* Each stack's link group lists its own link once: one link row per (stack, group). */
static void assert_one_link_block_per_group(const smcr_report *r)
{
	cr_assert_eq(r->n_stacks, 2, "the two ends are two stacks");
	for (size_t g = 0; g < r->n_lgrs; g++) {
		unsigned rows = 0;
		for (size_t l = 0; l < r->n_links; l++)
			rows += r->links[l].stack_id == r->lgrs[g].stack_id && r->links[l].lgr_id == r->lgrs[g].id;
		cr_assert_eq(rows, r->lgrs[g].n_links, "stack %u group %08X: %u link rows under Links: %u",
		             r->lgrs[g].stack_id, r->lgrs[g].id, rows, r->lgrs[g].n_links);
		cr_assert_neq(r->lgrs[g].stack_id, r->lgrs[g].peer_stack_id);
	}
}

/* One Linux kernel, client and server: the same system id at both ends, and both ended
 * up on one RoCE device (the same GID and MAC at both ends of the link). */
Test(replay, real_same_host_capture_gives_two_stacks)
{
	replay_result res;
	decode_file(LINUX_SAME_HOST, &res);
	const smcr_report *r = &res.report;
	assert_one_link_block_per_group(r);
	cr_assert(!memcmp(r->stacks[0].system_id, r->stacks[1].system_id, 8), "one kernel, one system id");
	bool noted = false;
	for (size_t i = 0; i < res.notes.n; i++)
		noted |= strstr(res.notes.items[i].text, "both ends on one system, shown as two stacks") != NULL;
	cr_assert(noted);
	/* its first contact timed out (no CONFIRM LINK) and the server declined 0x02010000 */
	cr_assert_gt(r->n_events, 0);
	cr_assert_eq(r->events[0].code, SMCR_DECL_TIMEOUT_CL);
	for (size_t i = 0; i < r->n_links; i++)
		cr_assert_eq(r->links[i].state, REPORT_LINK_INACTIVE);
	replay_result_free(&res);
}

/* A conversation of one address with itself (the server's address rewritten as the
 * client's): two stacks, the listening one named apart. */
Test(replay, one_address_conversation_gives_two_stacks)
{
	pe_capture c;
	pe_load(&c, TWO_STACKS);
	pe_ipv4_readdress(&c, 0xC0A80A01u, 0xC0A80A02u);
	replay_result res;
	pe_decode(&c, NULL, &res);
	assert_one_link_block_per_group(&res.report);
	cr_assert_str_eq(res.report.stacks[0].name, "192.168.10.1");
	cr_assert_str_eq(res.report.stacks[1].name, "192.168.10.1 (server)");
	replay_result_free(&res);
	pe_free(&c);
}

/* The same frame fed again at another interface is a copy; at the same one, a resend. */
Test(replay, copies_and_resends_are_told_apart)
{
	pe_capture c;
	pe_load(&c, FIXTURE_V2);
	replay_decoder *d = replay_decoder_new(NULL);
	for (size_t i = 0; i < c.n; i++)
		for (uint32_t tap = 0; tap < 2; tap++) {
			replay_decoder_interface(d, tap);
			replay_decoder_frame(d, c.f[i].ts_ns + tap * 500, c.f[i].data, c.f[i].caplen, c.f[i].len);
		}
	/* the RDMA WRITE once more from its sender, 2 us later: a real resend */
	replay_decoder_interface(d, 0);
	replay_decoder_frame(d, c.f[F_WRITE].ts_ns + 2000, c.f[F_WRITE].data, c.f[F_WRITE].caplen, c.f[F_WRITE].len);
	replay_result res;
	replay_decoder_finish(d, &res);
	replay_decoder_free(d);
	cr_assert_eq(res.frames, 2 * c.n + 1);
	cr_assert_eq(res.frames_captured_twice, c.n);
	cr_assert_eq(res.roce_retransmissions, 1, "the resend, and only it");
	cr_assert_eq(res.tcp_retransmissions, 0);
	cr_assert_eq(link_of(&res.report, 1, 1)->retrans_out, 1);
	replay_result_free(&res);
	pe_free(&c);
}

/* ---- more real Linux 6.1 captures (tests/data/replay/README.md says how each was made);
 * the expected values are what the kernels reported through smc_diag and netlink ---- */

static uint32_t stack_with_ip(const smcr_report *r, const char *ip)
{
	struct in_addr a;
	cr_assert_eq(inet_pton(AF_INET, ip, &a), 1);
	for (size_t i = 0; i < r->n_stacks; i++)
		if (r->stacks[i].family == 4 && !memcmp(r->stacks[i].ip, &a, 4))
			return r->stacks[i].id;
	cr_assert_fail("no stack with address %s", ip);
	return 0;
}

static size_t conns_of_stack(const smcr_report *r, uint32_t stack_id)
{
	size_t n = 0;
	for (size_t i = 0; i < r->n_conns; i++)
		n += r->conns[i].stack_id == stack_id;
	return n;
}

static bool has_note(const replay_result *res, const char *text)
{
	for (size_t i = 0; i < res->notes.n; i++)
		if (strstr(res->notes.items[i].text, text))
			return true;
	return false;
}

static void assert_tcp_conn(const smcr_report *r, uint32_t stack_id, uint16_t lport, uint16_t pport, uint32_t reason,
                            uint32_t peer_diag, uint64_t sent, uint64_t received)
{
	const report_conn *c = conn_of(r, stack_id, lport, pport);
	cr_assert_eq(c->mode, REPORT_MODE_TCP, "%u->%u: mode %d", lport, pport, c->mode);
	cr_assert_eq(c->state, REPORT_CONN_CLOSED);
	cr_assert_eq(c->fallback_reason, reason, "%u->%u: reason 0x%08x", lport, pport, c->fallback_reason);
	cr_assert_eq(c->peer_diagnosis, peer_diag, "%u->%u: peer diagnosis 0x%08x", lport, pport, c->peer_diagnosis);
	cr_assert_eq(c->bytes_sent, sent);
	cr_assert_eq(c->bytes_received, received);
}

/* A connection refused, one to a plain TCP server, one the client declines (no UEID, no
 * RoCE v1 GID: a v1 Decline 0x03030000 before any Proposal), one the server declines (its
 * v2 Decline, OS Linux). A refused connect() leaves no socket on either side. */
Test(replay, linux_fallbacks_and_a_refused_connection_as_the_kernels_saw_them)
{
	replay_result res;
	decode_file(LINUX_FALLBACKS, &res);
	const smcr_report *r = &res.report;
	cr_assert_eq(res.errors.total, 0);
	uint32_t cli = stack_with_ip(r, "10.0.0.2"), srv = stack_with_ip(r, "10.0.0.1");
	cr_assert_eq(conns_of_stack(r, cli), 3, "the refused connection is not a connection");
	cr_assert_eq(conns_of_stack(r, srv), 2, "the plain TCP server has no SMC socket");
	for (size_t i = 0; i < r->n_conns; i++)
		cr_assert_neq(r->conns[i].peer_port, 5001);
	cr_assert(has_note(&res, "10.0.0.2:56106 -> 10.0.0.1:5001 refused"));
	/* smc_diag: client reason / peer diagnosis, server the same */
	assert_tcp_conn(r, cli, 33828, 5002, SMCR_DECL_PEERNOSMC, 0, 20008, 20000);
	assert_tcp_conn(r, cli, 40548, 5000, SMCR_DECL_NOSMCDEV, 0, 20008, 20000);
	assert_tcp_conn(r, srv, 5000, 40548, SMCR_DECL_PEERDECL, SMCR_DECL_NOSMCDEV, 20000, 20008);
	assert_tcp_conn(r, cli, 56738, 5003, SMCR_DECL_PEERDECL, SMCR_DECL_NOSMCDEV, 20008, 20000);
	assert_tcp_conn(r, srv, 5003, 56738, SMCR_DECL_NOSMCDEV, 0, 20000, 20008);
	cr_assert_eq(r->n_lgrs, 0);
	cr_assert_eq(r->n_links, 0);
	/* the server's v2 Decline names its OS; the client sent none */
	cr_assert_eq(r->stacks[srv - 1].id, srv);
	cr_assert_eq(r->stacks[srv - 1].os, REPORT_OS_LINUX);
	cr_assert_eq(r->stacks[cli - 1].os, REPORT_OS_UNKNOWN);
	replay_result_free(&res);
}

static void assert_link(const smcr_report *r, uint32_t stack_id, uint8_t num, report_link_state state, uint32_t qpn,
                        const char *lgid, const char *rgid, uint8_t lmac, uint8_t rmac)
{
	const report_link *l = link_of(r, stack_id, num);
	cr_assert_eq(l->state, state, "link %u on stack %u: state %d", num, stack_id, l->state);
	cr_assert_eq(l->local_link_id, 0x100u + num);
	cr_assert_eq(l->remote_link_id, 0x100u + num);
	cr_assert_eq(l->local_qpn, qpn);
	cr_assert_eq(l->remote_qpn, qpn);
	assert_gid(l->local_gid, lgid);
	assert_gid(l->remote_gid, rgid);
	const uint8_t lm[6] = { 0x52, 0x54, 0, 0, 0, lmac }, rm[6] = { 0x52, 0x54, 0, 0, 0, rmac };
	cr_assert(!memcmp(l->local_mac, lm, 6) && !memcmp(l->remote_mac, rm, 6), "link %u MACs", num);
}

/* Two RoCE devices per side (rxe0 on eth0, rxe1 on a macvlan, one PNET ID): link 2 added
 * and confirmed (symmetric), the client's rxe1 goes down mid-transfer: its DELETE LINK
 * (lost path), the server's own DELETE LINK for the same link, connection 3 fails over
 * to link 1 (validation CDC), and the server adds link 3 from its rxe1 to the client's
 * rxe0 (asymmetric). The kernels' netlink at the end: links 1 and 3, client type 4. */
Test(replay, linux_two_links_and_a_failover_as_the_kernels_saw_them)
{
	replay_result res;
	decode_file(LINUX_TWO_LINKS, &res);
	const smcr_report *r = &res.report;
	cr_assert_eq(res.errors.total, 0);
	uint32_t cli = stack_with_ip(r, "10.0.0.2"), srv = stack_with_ip(r, "10.0.0.1");
	assert_link(r, cli, 1, REPORT_LINK_ACTIVE, 0x11, "::ffff:10.0.0.2", "::ffff:10.0.0.1", 2, 1);
	assert_link(r, srv, 1, REPORT_LINK_ACTIVE, 0x11, "::ffff:10.0.0.1", "::ffff:10.0.0.2", 1, 2);
	assert_link(r, cli, 2, REPORT_LINK_INACTIVE, 0x11, "::ffff:10.0.0.4", "::ffff:10.0.0.3", 4, 3);
	assert_link(r, srv, 2, REPORT_LINK_INACTIVE, 0x11, "::ffff:10.0.0.3", "::ffff:10.0.0.4", 3, 4);
	assert_link(r, cli, 3, REPORT_LINK_ACTIVE, 0x12, "::ffff:10.0.0.2", "::ffff:10.0.0.3", 2, 3);
	assert_link(r, srv, 3, REPORT_LINK_ACTIVE, 0x12, "::ffff:10.0.0.3", "::ffff:10.0.0.2", 3, 2);
	for (size_t i = 0; i < r->n_lgrs; i++)
		cr_assert_eq(r->lgrs[i].type, r->lgrs[i].stack_id == cli ? REPORT_LGR_ASYML : REPORT_LGR_ASYMP);
	/* smc_diag at the end: every connection on link 1; connection 3 (port 45584) moved
	 * there and stalled: the server's producer cursor ended at 59 wraps of 64 KiB */
	static const uint16_t ports[4] = { 45570, 45572, 45584, 45600 };
	for (int k = 0; k < 4; k++) {
		const report_conn *c = conn_of(r, cli, ports[k], 5000), *s = conn_of(r, srv, 5000, ports[k]);
		cr_assert_eq(c->mode, REPORT_MODE_SMCR);
		cr_assert_eq(c->state, REPORT_CONN_CLOSED);
		cr_assert_eq(c->link_id, 0x101u, "conn %d on link 0x%08x", k + 1, c->link_id);
		cr_assert_eq(s->link_id, 0x101u);
		cr_assert_eq(c->local_token, (uint32_t)k + 1);
		cr_assert_eq(c->bytes_sent, 4194312);
		cr_assert_eq(c->bytes_received, k == 2 ? 59u * 65536 : 4194304u);
		cr_assert_eq(s->bytes_received, 4194312);
	}
	cr_assert(has_note(&res, "connection with token 0x00000003 moved from link 2 to link 1"));
	cr_assert(has_note(&res, "DELETE LINK request from the server for link 2, which the client's DELETE LINK"));
	cr_assert(!has_note(&res, "not active in this link group"));
	size_t removed = 0;
	for (size_t i = 0; i < r->n_events; i++)
		removed += r->events[i].link_num == 2 && r->events[i].code == SMCR_LLC_DEL_LOST_PATH;
	cr_assert_eq(removed, 2, "link 2 removed on both sides, lost path");
	replay_result_free(&res);
}

/* 32 connections over one link group, up to 30 open at once (netlink), each with its own
 * RMB: Linux's CONFIRM RKEY before each new connection's Accept or Confirm and DELETE RKEY
 * after its close, crossing the CDC traffic of the others. smc_diag: tokens 1..32, link 1,
 * 508 bytes out and 500 in on the client. RDMA WRITE payloads are cut (snap length 256). */
Test(replay, linux_32_concurrent_connections_as_the_kernels_saw_them)
{
	replay_result res;
	decode_file(LINUX_32_CONNS, &res);
	const smcr_report *r = &res.report;
	cr_assert_eq(res.errors.total, 0);
	cr_assert_eq(res.capture_gaps, 0);
	uint32_t cli = stack_with_ip(r, "10.0.0.2"), srv = stack_with_ip(r, "10.0.0.1");
	cr_assert_eq(r->n_lgrs, 2, "one link group, seen from each side");
	cr_assert_eq(r->n_links, 2);
	assert_link(r, cli, 1, REPORT_LINK_ACTIVE, 0x11, "::ffff:10.0.0.2", "::ffff:10.0.0.1", 2, 1);
	assert_link(r, srv, 1, REPORT_LINK_ACTIVE, 0x11, "::ffff:10.0.0.1", "::ffff:10.0.0.2", 1, 2);
	cr_assert_eq(conns_of_stack(r, cli), 32);
	cr_assert_eq(conns_of_stack(r, srv), 32);
	bool token_seen[33] = { false };
	for (size_t i = 0; i < r->n_conns; i++) {
		const report_conn *c = &r->conns[i];
		bool client = c->stack_id == cli;
		cr_assert_eq(c->mode, REPORT_MODE_SMCR);
		cr_assert_eq(c->state, REPORT_CONN_CLOSED);
		cr_assert_eq(c->link_id, 0x101u);
		cr_assert_eq(c->local_token, c->peer_token, "Linux numbers both sides' tokens alike here");
		cr_assert(c->local_token >= 1 && c->local_token <= 32);
		cr_assert_eq(c->bytes_sent, client ? 508u : 500u);
		cr_assert_eq(c->bytes_received, client ? 500u : 508u);
		cr_assert_eq(c->rmbe_size, 65536);
		if (client) {
			cr_assert(!token_seen[c->local_token], "token %u twice", c->local_token);
			token_seen[c->local_token] = true;
		}
	}
	cr_assert_eq(res.clc_messages, 96);
	replay_result_free(&res);
}

/* One connection closed in order, a second whose client is killed (-9) mid-transfer: the
 * client's kernel aborts it (CDC abort flag) and the server's answers with its own abort
 * (smc_diag: SMC_PROCESSABORT, 27; its send() fails with EPIPE); then the idle link sees
 * TEST_LINK every 2 s from the server (net.smc.smcr_testlink_time 2, the client's 3) and
 * `rmmod smc` on the server ends the link group: DELETE LINK ALL, operator initiated
 * (0x00020000); the client's netlink then shows no link group. */
Test(replay, linux_abort_testlink_and_rmmod_as_the_kernels_saw_them)
{
	replay_result res;
	decode_file(LINUX_ABORT, &res);
	const smcr_report *r = &res.report;
	cr_assert_eq(res.errors.total, 0);
	uint32_t cli = stack_with_ip(r, "10.0.0.2"), srv = stack_with_ip(r, "10.0.0.1");
	const report_conn *c1 = conn_of(r, cli, 36636, 5000), *s1 = conn_of(r, srv, 5000, 36636);
	cr_assert_eq(c1->state, REPORT_CONN_CLOSED);
	cr_assert_eq(c1->bytes_sent, 262152);
	cr_assert_eq(s1->bytes_sent, 262144);
	cr_assert_eq(c1->tx_conn_flags & SMCR_CDC_PEER_CONN_ABORT, 0);
	const report_conn *c2 = conn_of(r, cli, 35534, 5001), *s2 = conn_of(r, srv, 5001, 35534);
	cr_assert_eq(c2->mode, REPORT_MODE_SMCR);
	cr_assert_eq(c2->local_token, 2);
	cr_assert(c2->tx_conn_flags & SMCR_CDC_PEER_CONN_ABORT, "the killed client's kernel aborts");
	cr_assert(s2->tx_conn_flags & SMCR_CDC_PEER_CONN_ABORT, "the server's answers with an abort");
	cr_assert_eq(c2->state, REPORT_CONN_CLOSED);
	cr_assert_eq(s2->state, REPORT_CONN_CLOSED);
	/* smc_peer on the server: 4390912 bytes received; its send() calls took 4194304, of
	 * which its kernel had written 63 RMBs' worth (CDC producer cursor 63:0) when the
	 * abort came */
	cr_assert_eq(s2->bytes_received, 4390912);
	cr_assert_eq(c2->bytes_sent, 4390912);
	cr_assert_eq(s2->bytes_sent, 63u * 65536);
	unsigned tl_req = 0, tl_resp = 0;
	for (size_t i = 0; i < res.n_kept; i++) {
		const replay_msg *m = &res.kept[i];
		if (m->kind != REPLAY_MSG_LLC || m->len < 4 || m->data[0] != 0x27)
			continue;
		if (m->data[3] & SMCR_LLC_FLAG_RESP)
			tl_resp += m->from == 0;
		else
			tl_req += m->from == 1;
	}
	cr_assert_eq(tl_req, 5, "TEST_LINK requests from the server: %u", tl_req);
	cr_assert_eq(tl_resp, 5, "each answered by the client: %u", tl_resp);
	for (int k = 0; k < 2; k++) {
		uint32_t st = k ? srv : cli;
		cr_assert_eq(link_of(r, st, 1)->state, REPORT_LINK_INACTIVE);
	}
	for (size_t i = 0; i < r->n_lgrs; i++)
		cr_assert_eq(r->lgrs[i].type, REPORT_LGR_NONE, "the link group ended");
	size_t ended = 0;
	for (size_t i = 0; i < r->n_events; i++)
		ended += r->events[i].code == SMCR_LLC_DEL_OP_INIT_TERM && r->events[i].link_num == 1;
	cr_assert_eq(ended, 2);
	/* the client's first SYNs came before the server listened: eleven refused, one note
	 * for the first and one for the ten after it */
	size_t refused_notes = 0;
	for (size_t i = 0; i < res.notes.n; i++)
		refused_notes += strstr(res.notes.items[i].text, " refused: RST in answer to the SYN") != NULL;
	cr_assert_eq(refused_notes, 1);
	cr_assert(has_note(&res, "10 more TCP connections from 10.0.0.2 to 10.0.0.1 port 5000 refused"));
	replay_result_free(&res);
}

/* Two links as in linux_two_links_..., but the server's rxe1 goes down: the server's
 * DELETE LINK (lost path), the client's response, connection 3 failing over to link 1,
 * then link 3 from the client's rxe1 to the server's rxe0. The client kept sending on
 * link 2 for a moment after the server's DELETE LINK (frames the server's downed
 * interface never received): that is no move back to link 2. Netlink at the end: links 1
 * and 3 on both, the client's group type 3 (asymmetric peer), the server's 4. */
Test(replay, linux_server_side_link_down_as_the_kernels_saw_it)
{
	replay_result res;
	decode_file(LINUX_SRV_DOWN, &res);
	const smcr_report *r = &res.report;
	cr_assert_eq(res.errors.total, 0);
	uint32_t cli = stack_with_ip(r, "10.0.0.2"), srv = stack_with_ip(r, "10.0.0.1");
	assert_link(r, cli, 1, REPORT_LINK_ACTIVE, 0x11, "::ffff:10.0.0.2", "::ffff:10.0.0.1", 2, 1);
	assert_link(r, cli, 2, REPORT_LINK_INACTIVE, 0x11, "::ffff:10.0.0.4", "::ffff:10.0.0.3", 4, 3);
	assert_link(r, cli, 3, REPORT_LINK_ACTIVE, 0x12, "::ffff:10.0.0.4", "::ffff:10.0.0.1", 4, 1);
	assert_link(r, srv, 3, REPORT_LINK_ACTIVE, 0x12, "::ffff:10.0.0.1", "::ffff:10.0.0.4", 1, 4);
	for (size_t i = 0; i < r->n_lgrs; i++)
		cr_assert_eq(r->lgrs[i].type, r->lgrs[i].stack_id == cli ? REPORT_LGR_ASYMP : REPORT_LGR_ASYML);
	for (size_t i = 0; i < r->n_conns; i++) {
		cr_assert_eq(r->conns[i].link_id, 0x101u, "smc_diag: every connection on link 1");
		cr_assert_eq(r->conns[i].bytes_sent, r->conns[i].stack_id == cli ? 2097160u : 2097152u);
	}
	cr_assert_eq(r->n_conns, 8);
	cr_assert(has_note(&res, "connection with token 0x00000003 moved from link 2 to link 1"));
	cr_assert(!has_note(&res, "moved from link 1 to link 2"));
	cr_assert(has_note(&res, "on link 2 after that link's DELETE LINK"));
	size_t removed = 0;
	for (size_t i = 0; i < r->n_events; i++)
		removed += r->events[i].link_num == 2 && r->events[i].code == SMCR_LLC_DEL_LOST_PATH &&
		           strstr(r->events[i].cause, "request from the server");
	cr_assert_eq(removed, 2);
	replay_result_free(&res);
}

/* SMC-Rv2 over VLAN 100 (eth0.100; rxe refuses VLAN devices, so rxe0 carries the VLAN's
 * GIDs): the CLC messages do not name the VLAN, the frames' tags do. Netlink: vlan=100,
 * GIDs ::ffff:10.1.0.x; smc_diag: two connections on link 1, 65544 bytes out of the client. */
Test(replay, linux_smcr_over_a_vlan_as_the_kernels_saw_it)
{
	replay_result res;
	decode_file(LINUX_VLAN, &res);
	const smcr_report *r = &res.report;
	cr_assert_eq(res.errors.total, 0);
	uint32_t cli = stack_with_ip(r, "10.1.0.2"), srv = stack_with_ip(r, "10.1.0.1");
	assert_link(r, cli, 1, REPORT_LINK_ACTIVE, 0x11, "::ffff:10.1.0.2", "::ffff:10.1.0.1", 2, 1);
	assert_link(r, srv, 1, REPORT_LINK_ACTIVE, 0x11, "::ffff:10.1.0.1", "::ffff:10.1.0.2", 1, 2);
	cr_assert_eq(link_of(r, cli, 1)->vlan, 100);
	cr_assert_eq(r->n_lgrs, 2);
	for (size_t i = 0; i < r->n_lgrs; i++)
		cr_assert_eq(r->lgrs[i].vlan, 100);
	cr_assert_eq(r->n_conns, 4);
	for (size_t i = 0; i < r->n_conns; i++) {
		cr_assert_eq(r->conns[i].mode, REPORT_MODE_SMCR);
		cr_assert_eq(r->conns[i].link_id, 0x101u);
		cr_assert_eq(r->conns[i].bytes_sent, r->conns[i].stack_id == cli ? 65544u : 65536u);
	}
	replay_result_free(&res);
}

/* Time stamps past 2554 saturate instead of wrapping; a jump beyond the limit, either
 * way, is closed and told with both frames; steps back under the limit are kept. */
Test(replay, clock_closes_absurd_jumps_and_keeps_small_ones)
{
	cr_assert_eq(rp_clock_stamp(INT64_MAX, 5), UINT64_MAX);
	cr_assert_eq(rp_clock_stamp(-1, 0), 0);
	cr_assert_eq(rp_clock_stamp(2, 7), 2000000007u);
	rp_clock c;
	rp_clock_init(&c, 3600ull * 1000000000u);
	uint64_t t, s = 1764000000ull * 1000000000u;
	char why[320];
	cr_assert_not(rp_clock_next(&c, 1, s, &t, why, sizeof(why)));
	cr_assert_eq(t, s);
	cr_assert_not(rp_clock_next(&c, 2, s - 1800ull * 1000000000u, &t, why, sizeof(why))); /* 30 min back: kept */
	cr_assert_eq(t, s - 1800ull * 1000000000u);
	cr_assert(rp_clock_next(&c, 3, UINT64_MAX, &t, why, sizeof(why))); /* past 2554 */
	cr_assert_eq(t, s - 1800ull * 1000000000u);
	cr_assert(strstr(why, "frame 3 is dated") && strstr(why, "after frame 2"), "%s", why);
	cr_assert(rp_clock_next(&c, 4, s + 5ull * 1000000000u, &t, why, sizeof(why))); /* and back */
	cr_assert(strstr(why, "before frame 3"), "%s", why);
	cr_assert_eq(t, s - 1800ull * 1000000000u);
	cr_assert_not(rp_clock_next(&c, 5, s + 7ull * 1000000000u, &t, why, sizeof(why)));
	cr_assert_eq(t, s - 1798ull * 1000000000u); /* the distance to frame 4 is kept */
	cr_assert_eq(c.gaps, 2);
}
