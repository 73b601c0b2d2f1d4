/* llc_pcap: capture files for the Wireshark Lua dissector test (tests/captures/t_wireshark_lua.sh).
 *
 *   llc_pcap catalogue le|be OUT.pcapng
 *       One RoCE frame per SMC-R message of a fixed catalogue, encoded by the model's own
 *       LLC codec (model/llc.c) with the v2 16-bit fields in the given byte order: every
 *       v2 LLC type Linux sends (with the flag and size variants: rejects, extensions with
 *       0..124 rkey pairs, ALL/ORDERLY, negative responses, 255 deleted rkeys), v1 LLC, a
 *       CDC message after every LLC one (so Wireshark's own SMC heuristic keeps matching
 *       between them), over RoCE v2 and then over RoCE v1. Each frame carries a packet
 *       comment naming its message as the simulator's captures do
 *       ("SMC-R LLC ADD_LINK (v2) request; ..."). Both orders give the same frames except
 *       for the order of those fields (and the ICRC).
 *   llc_pcap bad OUT.pcapng
 *       A valid v2 CONFIRM LINK on one QP, then v2 messages whose 16-bit length matches
 *       neither byte order: one on that QP, one on a QP that never carried SMC-R.
 *   llc_pcap swap IN OUT.pcap
 *       Copy a capture, rewriting every SMC-Rv2 LLC message into big-endian (network
 *       order) 16-bit fields: each is decoded by the model, re-encoded in the byte order it
 *       came in (little-endian from a Linux sender, big-endian from a z/OS one: that must
 *       give the original bytes back, or the program fails) and then big-endian; the ICRC
 *       is recomputed. Everything else is copied byte for byte.
 * Exit 0, 1 on an error (said on stderr), 2 on bad usage. */
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/byteorder.h"
#include "model/cdc.h"
#include "model/decode_err.h"
#include "model/llc.h"
#include "sim/fabric/eth_header.h"
#include "sim/fabric/frame.h"
#include "sim/fabric/gid.h"
#include "sim/fabric/pcap_writer.h"
#include "sim/fabric/pcapng_writer.h"
#include "sim/fabric/roce.h"

#define MAX_MSGS 64

typedef struct entry {
	smcr_llc_msg m;
	const char *note; /* what the message shows, for the comment */
} entry;

typedef struct catalogue {
	entry e[MAX_MSGS];
	unsigned n;
} catalogue;

static const uint8_t MAC_A[6] = { 0x02, 0x00, 0x00, 0x0a, 0x01, 0x01 };
static const uint8_t MAC_B[6] = { 0x02, 0x00, 0x00, 0x0a, 0x02, 0x01 };
static const uint32_t IP_A = 0x0A010001u; /* 10.1.0.1 */
static const uint32_t IP_B = 0x0A020001u; /* 10.2.0.1 */

static smcr_llc_msg *add(catalogue *c, uint8_t type, uint8_t version, uint8_t flags, const char *note)
{
	if (c->n == MAX_MSGS) {
		fprintf(stderr, "llc_pcap: catalogue full\n");
		exit(1);
	}
	entry *e = &c->e[c->n++];
	memset(e, 0, sizeof(*e));
	e->m.type = type;
	e->m.version = version;
	e->m.flags = flags;
	e->note = note;
	return &e->m;
}

static void rkey_pairs(smcr_rkey_pair *p, unsigned n, uint32_t seed)
{
	for (unsigned i = 0; i < n; i++)
		p[i] = (smcr_rkey_pair){ seed + i, seed + 0x100 + i, 0x0000701000000000ull + ((uint64_t)seed << 20) + i * 0x4000u };
}

static void add_link(smcr_llc_msg *m, uint8_t link_id, uint32_t qpn)
{
	memcpy(m->u.add_link.mac, MAC_B, 6);
	gid_from_ipv4(IP_B, m->u.add_link.gid);
	m->u.add_link.qpn = qpn;
	m->u.add_link.link_id = link_id;
	m->u.add_link.mtu = 3; /* 1024 */
	m->u.add_link.psn = 0x00abcdef & 0xFFFFFF;
}

/* Every v2 LLC message type Linux sends, with the variants that change the layout. */
static void v2_messages(catalogue *c)
{
	smcr_llc_msg *m;
	m = add(c, SMCR_LLC_CONFIRM_LINK, 2, SMCR_LLC_FLAG_NO_RMBE_EYEC, "request");
	memcpy(m->u.confirm_link.mac, MAC_A, 6);
	gid_from_ipv4(IP_A, m->u.confirm_link.gid);
	m->u.confirm_link.qpn = 0x000101;
	m->u.confirm_link.link_id = 1;
	m->u.confirm_link.link_uid = 0x00000101;
	m->u.confirm_link.max_links = 3;
	m->u.confirm_link.max_conns = 255;
	m = add(c, SMCR_LLC_CONFIRM_LINK, 2, SMCR_LLC_FLAG_RESP | SMCR_LLC_FLAG_NO_RMBE_EYEC, "response");
	memcpy(m->u.confirm_link.mac, MAC_B, 6);
	gid_from_ipv4(IP_B, m->u.confirm_link.gid);
	m->u.confirm_link.qpn = 0x000201;
	m->u.confirm_link.link_id = 1;
	m->u.confirm_link.link_uid = 0x00000201;
	m->u.confirm_link.max_links = 3;

	m = add(c, SMCR_LLC_ADD_LINK, 2, 0, "request, extension with 3 rkey pairs");
	add_link(m, 2, 0x000102);
	m->u.add_link.v2_ext = true;
	gid_from_ipv4(IP_B, m->u.add_link.client_target_gid);
	m->u.add_link.n_rkeys = 3;
	rkey_pairs(m->u.add_link.rkeys, 3, 0x401);
	m = add(c, SMCR_LLC_ADD_LINK, 2, SMCR_LLC_FLAG_RESP, "response, direct, extension with 1 rkey pair");
	add_link(m, 2, 0x000202);
	m->u.add_link.v2_ext = true;
	m->u.add_link.v2_direct = true;
	gid_from_ipv4(IP_A, m->u.add_link.client_target_gid);
	m->u.add_link.n_rkeys = 1;
	rkey_pairs(m->u.add_link.rkeys, 1, 0x501);
	m = add(c, SMCR_LLC_ADD_LINK, 2, SMCR_LLC_FLAG_RESP | SMCR_LLC_FLAG_ADD_LNK_REJ, "response, rejected");
	add_link(m, 0, 0);
	m = add(c, SMCR_LLC_ADD_LINK, 2, 0, "request, extension without rkeys");
	add_link(m, 3, 0x000103);
	m->u.add_link.v2_ext = true;
	/* 72 + 124 * 16 = 2056 = 0x0808: the length reads the same both ways, the count decides */
	m = add(c, SMCR_LLC_ADD_LINK, 2, 0, "request, 124 rkey pairs (length 0x0808)");
	add_link(m, 4, 0x000104);
	m->u.add_link.v2_ext = true;
	m->u.add_link.n_rkeys = 124;
	rkey_pairs(m->u.add_link.rkeys, 124, 0x601);

	m = add(c, SMCR_LLC_DELETE_LINK, 2, SMCR_LLC_FLAG_DEL_LINK_ALL | SMCR_LLC_FLAG_DEL_LINK_ORDERLY,
	        "request, all, orderly");
	m->u.delete_link.reason = SMCR_LLC_DEL_PROG_INIT_TERM;
	m = add(c, SMCR_LLC_DELETE_LINK, 2, 0, "request, link 2");
	m->u.delete_link.link_id = 2;
	m->u.delete_link.reason = SMCR_LLC_DEL_LOST_PATH;
	m = add(c, SMCR_LLC_DELETE_LINK, 2, SMCR_LLC_FLAG_RESP, "response, link 2");
	m->u.delete_link.link_id = 2;
	m->u.delete_link.reason = SMCR_LLC_DEL_NOLNK;

	m = add(c, SMCR_LLC_REQ_ADD_LINK, 2, 0, "request, 2 GIDs");
	m->u.req_add_link.n_gids = 2;
	gid_from_ipv4(IP_A, m->u.req_add_link.gids[0]);
	gid_from_ipv4(IP_A + 1, m->u.req_add_link.gids[1]);

	m = add(c, SMCR_LLC_CONFIRM_RKEY, 2, 0, "request, 2 other links");
	m->u.confirm_rkey.n_other = 2;
	m->u.confirm_rkey.rkey = 0x00000701;
	m->u.confirm_rkey.vaddr = 0x0000701000076000ull;
	m->u.confirm_rkey.other[0] = (smcr_rkey_entry){ 2, 0x00000702, 0x0000702000076000ull };
	m->u.confirm_rkey.other[1] = (smcr_rkey_entry){ 3, 0x00000703, 0x0000703000076000ull };
	m = add(c, SMCR_LLC_CONFIRM_RKEY, 2, SMCR_LLC_FLAG_RESP | SMCR_LLC_FLAG_RKEY_NEG | SMCR_LLC_FLAG_RKEY_RETRY,
	        "response, negative, retry");
	m->u.confirm_rkey.rkey = 0x00000701;
	m->u.confirm_rkey.vaddr = 0x0000701000076000ull;

	m = add(c, SMCR_LLC_TEST_LINK, 2, 0, "request");
	memcpy(m->u.test_link.user_data, "SMC-R test link!", 16);
	m = add(c, SMCR_LLC_TEST_LINK, 2, SMCR_LLC_FLAG_RESP, "response");
	memcpy(m->u.test_link.user_data, "SMC-R test link!", 16);

	m = add(c, SMCR_LLC_DELETE_RKEY, 2, 0, "request, 1 rkey");
	m->u.delete_rkey.n_rkeys = 1;
	m->u.delete_rkey.rkeys[0] = 0x00000701;
	m = add(c, SMCR_LLC_DELETE_RKEY, 2, 0, "request, 12 rkeys");
	m->u.delete_rkey.n_rkeys = 12;
	for (unsigned i = 0; i < 12; i++)
		m->u.delete_rkey.rkeys[i] = 0x00000801 + i;
	/* 8 + 255 * 4 = 1028 = 0x0404: the other length that reads the same both ways */
	m = add(c, SMCR_LLC_DELETE_RKEY, 2, 0, "request, 255 rkeys (length 0x0404)");
	m->u.delete_rkey.n_rkeys = 255;
	for (unsigned i = 0; i < 255; i++)
		m->u.delete_rkey.rkeys[i] = 0x00010000 + i;
	m = add(c, SMCR_LLC_DELETE_RKEY, 2, SMCR_LLC_FLAG_RESP | SMCR_LLC_FLAG_RKEY_NEG, "response, 1 invalid");
	m->u.delete_rkey.n_rkeys = 1;
	m->u.delete_rkey.err_mask = 1;
	m->u.delete_rkey.rkeys[0] = 0x00000701;
}

/* v1 messages: Wireshark's own SMC dissector must keep decoding them. */
static void v1_messages(catalogue *c)
{
	smcr_llc_msg *m;
	m = add(c, SMCR_LLC_CONFIRM_LINK, 1, 0, "request");
	memcpy(m->u.confirm_link.mac, MAC_A, 6);
	gid_from_mac(MAC_A, m->u.confirm_link.gid);
	m->u.confirm_link.qpn = 0x000111;
	m->u.confirm_link.link_id = 1;
	m->u.confirm_link.link_uid = 0x00000111;
	m->u.confirm_link.max_links = 3;
	m = add(c, SMCR_LLC_ADD_LINK_CONT, 1, 0, "request, 2 rkey pairs");
	m->u.add_link_cont.link_id = 2;
	m->u.add_link_cont.n_remaining = 2;
	m->u.add_link_cont.n_here = 2;
	rkey_pairs(m->u.add_link_cont.rkeys, 2, 0x901);
	m = add(c, SMCR_LLC_DELETE_RKEY, 1, 0, "request, 2 rkeys");
	m->u.delete_rkey.n_rkeys = 2;
	m->u.delete_rkey.rkeys[0] = 0x00000901;
	m->u.delete_rkey.rkeys[1] = 0x00000902;
	add(c, SMCR_LLC_TEST_LINK, 1, SMCR_LLC_FLAG_RESP, "response");
}

typedef struct out_file {
	sim_pcapng_writer *w;
	uint32_t ifc;
	sim_frame_pool *pool;
	sim_time at;
	uint32_t psn;
} out_file;

static void write_send(out_file *o, roce_version v, uint32_t dest_qp, const uint8_t *payload, uint32_t len,
                       const char *comment)
{
	roce_addr a;
	memset(&a, 0, sizeof(a));
	a.version = v;
	memcpy(a.smac, MAC_A, 6);
	memcpy(a.dmac, MAC_B, 6);
	if (v == ROCE_V2) {
		gid_from_ipv4(IP_A, a.sgid);
		gid_from_ipv4(IP_B, a.dgid);
	} else {
		gid_from_mac(MAC_A, a.sgid);
		gid_from_mac(MAC_B, a.dgid);
	}
	a.hop_limit = 64;
	a.udp_sport = 0xC000;
	a.ip_id = (uint16_t)o->psn;
	roce_bth bth = { .opcode = ROCE_OP_SEND_ONLY, .se = true, .pkey = ROCE_DEFAULT_PKEY, .dest_qp = dest_qp, .ack_req = true, .psn = o->psn };
	o->psn = roce_psn_add(o->psn, 1);
	roce_seg seg = { payload, len };
	sim_frame *f = roce_build(o->pool, &a, &bth, NULL, NULL, &seg, 1);
	sim_pcapng_write(o->w, o->ifc, o->at, f->data, f->len, comment);
	o->at += SIM_US;
	sim_frame_free(f);
}

static int open_out(out_file *o, const char *path)
{
	char err[256];
	memset(o, 0, sizeof(*o));
	o->w = sim_pcapng_open(path, 0, err, sizeof(err));
	if (!o->w) {
		fprintf(stderr, "llc_pcap: %s\n", err);
		return -1;
	}
	o->ifc = sim_pcapng_add_interface(o->w, "llc_pcap", "SMC-R messages encoded by model/llc.c");
	o->pool = sim_frame_pool_new();
	o->psn = 0x000100;
	return 0;
}

static int close_out(out_file *o, const char *path)
{
	sim_frame_pool_free(o->pool);
	if (sim_pcapng_close(o->w) < 0) {
		fprintf(stderr, "llc_pcap: %s: write failed\n", path);
		return -1;
	}
	return 0;
}

static int write_llc(out_file *o, roce_version v, uint32_t qp, const entry *e, smcr_llc_v2_order order,
                     const char *order_name)
{
	static uint8_t buf[SMCR_LLC_V2_MAX_LEN];
	ssize_t n = smcr_llc_encode(buf, sizeof(buf), &e->m, order);
	if (n < 0) {
		fprintf(stderr, "llc_pcap: cannot encode %s %s\n", smcr_llc_type_name(e->m.type), e->note);
		return -1;
	}
	/* the decoder must see the order we wrote (or say the bytes cannot tell) */
	smcr_llc_msg back;
	smcr_decode_err err = { 0 };
	if (smcr_llc_decode(&back, buf, (size_t)n, &err) < 0 ||
	    (e->m.version == 2 && !back.order_ambiguous && back.order != order)) {
		fprintf(stderr, "llc_pcap: %s %s does not decode back (%s)\n", smcr_llc_type_name(e->m.type), e->note,
		        err.field ? err.field : "byte order");
		return -1;
	}
	char comment[200];
	snprintf(comment, sizeof(comment), "SMC-R LLC %s%s %s; catalogue, %s, %s", smcr_llc_type_name(e->m.type),
	         e->m.version == 2 ? " (v2)" : "", e->m.flags & SMCR_LLC_FLAG_RESP ? "response" : "request", e->note,
	         e->m.version == 2 ? order_name : "v1");
	write_send(o, v, qp, buf, (uint32_t)n, comment);
	return 0;
}

static void write_cdc(out_file *o, roce_version v, uint32_t qp, uint16_t seq)
{
	smcr_cdc_msg c = { .seqno = seq, .token = 0x101, .prod = { 0, 1024u * seq }, .prod_flags = 0 };
	uint8_t buf[SMCR_CDC_LEN];
	smcr_cdc_encode(buf, &c);
	char comment[80];
	snprintf(comment, sizeof(comment), "SMC-R CDC seq %u token 0x%08x; catalogue", seq, c.token);
	write_send(o, v, qp, buf, sizeof(buf), comment);
}

static int cmd_catalogue(const char *order_arg, const char *path)
{
	smcr_llc_v2_order order;
	if (!strcmp(order_arg, "le"))
		order = SMCR_LLC_V2_LE;
	else if (!strcmp(order_arg, "be"))
		order = SMCR_LLC_V2_BE;
	else {
		fprintf(stderr, "llc_pcap: byte order '%s': expected le or be\n", order_arg);
		return 2;
	}
	const char *order_name = order == SMCR_LLC_V2_LE ? "little-endian" : "big-endian";
	static catalogue c;
	c.n = 0;
	v2_messages(&c);
	v1_messages(&c);
	out_file o;
	if (open_out(&o, path) < 0)
		return 1;
	uint16_t seq = 1;
	for (roce_version v = ROCE_V2;; v = ROCE_V1) {
		for (unsigned i = 0; i < c.n; i++) {
			if (write_llc(&o, v, 0x000101, &c.e[i], order, order_name) < 0)
				return 1;
			write_cdc(&o, v, 0x000101, seq++);
		}
		if (v == ROCE_V1)
			break;
	}
	return close_out(&o, path) < 0 ? 1 : 0;
}

static int cmd_bad(const char *path)
{
	static catalogue c;
	c.n = 0;
	v2_messages(&c);
	out_file o;
	if (open_out(&o, path) < 0)
		return 1;
	if (write_llc(&o, ROCE_V2, 0x000101, &c.e[0], SMCR_LLC_V2_LE, "little-endian") < 0)
		return 1;
	uint8_t buf[SMCR_LLC_LEN];
	const entry *rkey = NULL;
	for (unsigned i = 0; i < c.n; i++)
		if (c.e[i].m.type == SMCR_LLC_CONFIRM_RKEY && !rkey)
			rkey = &c.e[i];
	if (!rkey || smcr_llc_encode(buf, sizeof(buf), &rkey->m, SMCR_LLC_V2_LE) != SMCR_LLC_LEN)
		return 1;
	put_le16(buf + 1, 48); /* 0x0030 little-endian, 0x3000 big-endian: neither is 44 */
	write_send(&o, ROCE_V2, 0x000101, buf, sizeof(buf),
	           "SMC-R LLC CONFIRM_RKEY (v2) request; bad length 48 on a QP that carried SMC-R");
	write_send(&o, ROCE_V2, 0x000999, buf, sizeof(buf),
	           "SMC-R LLC CONFIRM_RKEY (v2) request; bad length 48 on a QP that never carried SMC-R");
	return close_out(&o, path) < 0 ? 1 : 0;
}

/* Rewrite one v2 LLC SEND in place into big-endian fields; 1 if it was one, 0 if the
 * frame is something else, -1 on an error. */
static int swap_frame(uint8_t *frame, uint32_t len, uint64_t number)
{
	roce_pkt pkt;
	smcr_decode_err err = { 0 };
	if (roce_parse(frame, len, &pkt, &err) < 0)
		return 0; /* not RoCE (or not a frame our parser takes): copied as it is */
	uint8_t op = pkt.bth.opcode;
	if ((op != ROCE_OP_SEND_ONLY && op != ROCE_OP_SEND_ONLY_IMM) || pkt.payload_len < 1 ||
	    (pkt.payload[0] & 0xF0) != 0x20)
		return 0;
	smcr_llc_msg m;
	if (smcr_llc_decode(&m, pkt.payload, pkt.payload_len, &err) < 0) {
		char why[200];
		smcr_decode_err_format(&err, why, sizeof(why));
		fprintf(stderr, "llc_pcap: frame %llu: v2 LLC does not decode: %s\n", (unsigned long long)number, why);
		return -1;
	}
	static uint8_t orig[SMCR_LLC_V2_MAX_LEN], be[SMCR_LLC_V2_MAX_LEN];
	ssize_t no = smcr_llc_encode(orig, sizeof(orig), &m, m.order);
	ssize_t nb = smcr_llc_encode(be, sizeof(be), &m, SMCR_LLC_V2_BE);
	if (no != (ssize_t)pkt.payload_len || nb != no || memcmp(orig, pkt.payload, pkt.payload_len) != 0) {
		fprintf(stderr, "llc_pcap: frame %llu: %s v2 is not the %s encoding of what it decodes to\n",
		        (unsigned long long)number, smcr_llc_type_name(m.type),
		        m.order == SMCR_LLC_V2_LE ? "little-endian" : "big-endian");
		return -1;
	}
	memcpy((uint8_t *)pkt.payload, be, (size_t)nb);
	sim_eth_hdr eh;
	sim_eth_parse(frame, len, &eh);
	uint8_t *l3 = frame + eh.hlen;
	uint32_t l3_len = len - eh.hlen - ROCE_ICRC_LEN;
	put_le32(l3 + l3_len, roce_icrc(pkt.addr.version, l3, l3_len));
	if (roce_parse(frame, len, &pkt, &err) < 0) {
		fprintf(stderr, "llc_pcap: frame %llu: rewritten frame does not parse (%s)\n", (unsigned long long)number,
		        err.field ? err.field : "?");
		return -1;
	}
	return 1;
}

static int cmd_swap(const char *in, const char *outp)
{
	char errbuf[PCAP_ERRBUF_SIZE];
	pcap_t *p = pcap_open_offline_with_tstamp_precision(in, PCAP_TSTAMP_PRECISION_NANO, errbuf);
	if (!p) {
		fprintf(stderr, "llc_pcap: %s: %s\n", in, errbuf);
		return 1;
	}
	if (pcap_datalink(p) != DLT_EN10MB) {
		fprintf(stderr, "llc_pcap: %s: link type %d, expected Ethernet\n", in, pcap_datalink(p));
		pcap_close(p);
		return 1;
	}
	char err[256];
	sim_pcap_writer *w = sim_pcap_open(outp, err, sizeof(err));
	if (!w) {
		fprintf(stderr, "llc_pcap: %s\n", err);
		pcap_close(p);
		return 1;
	}
	static uint8_t frame[65536];
	struct pcap_pkthdr *h;
	const u_char *data;
	uint64_t number = 0, swapped = 0;
	int rc = 0, r;
	while ((r = pcap_next_ex(p, &h, &data)) == 1) {
		number++;
		if (h->caplen != h->len || h->caplen > sizeof(frame)) {
			fprintf(stderr, "llc_pcap: %s: frame %llu is cut (%u of %u bytes)\n", in, (unsigned long long)number,
			        h->caplen, h->len);
			rc = 1;
			break;
		}
		memcpy(frame, data, h->caplen);
		int s = swap_frame(frame, h->caplen, number);
		if (s < 0) {
			rc = 1;
			break;
		}
		swapped += (uint64_t)s;
		sim_time at = (sim_time)h->ts.tv_sec * 1000000000ull + (sim_time)h->ts.tv_usec; /* ns precision */
		sim_pcap_write(w, at, frame, h->caplen);
	}
	if (r == PCAP_ERROR) {
		fprintf(stderr, "llc_pcap: %s: %s\n", in, pcap_geterr(p));
		rc = 1;
	}
	pcap_close(p);
	if (sim_pcap_close(w) < 0) {
		fprintf(stderr, "llc_pcap: %s: write failed\n", outp);
		rc = 1;
	}
	if (rc == 0)
		printf("%s: %llu frames, %llu v2 LLC messages rewritten big-endian\n", outp, (unsigned long long)number,
		       (unsigned long long)swapped);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "catalogue"))
		return cmd_catalogue(argv[2], argv[3]);
	if (argc == 3 && !strcmp(argv[1], "bad"))
		return cmd_bad(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "swap"))
		return cmd_swap(argv[2], argv[3]);
	fprintf(stderr, "usage: llc_pcap catalogue le|be OUT.pcapng | bad OUT.pcapng | swap IN OUT.pcap\n");
	return 2;
}
