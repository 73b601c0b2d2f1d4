/* Capture editing for replay tests (see pcap_edit.h). */
#include "tests/support/pcap_edit.h"

#include <criterion/criterion.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <pcap/pcap.h>
#include <string.h>

#include "model/byteorder.h"
#include "sim/fabric/roce.h"

static char *tmp_dir;

static void add(pe_capture *c, pe_frame fr)
{
	if (c->n == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 64;
		c->f = g_realloc_n(c->f, c->cap, sizeof(*c->f));
	}
	c->f[c->n++] = fr;
}

void pe_load(pe_capture *c, const char *path)
{
	memset(c, 0, sizeof(*c));
	char err[PCAP_ERRBUF_SIZE];
	pcap_t *p = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, err);
	cr_assert_not_null(p, "cannot open %s: %s", path, err);
	struct pcap_pkthdr *h;
	const u_char *data;
	while (pcap_next_ex(p, &h, &data) == 1)
		add(c, (pe_frame){ .ts_ns = (uint64_t)h->ts.tv_sec * 1000000000u + (uint64_t)h->ts.tv_usec,
		                   .data = g_memdup2(data, h->caplen),
		                   .caplen = h->caplen,
		                   .len = h->len });
	pcap_close(p);
}

void pe_free(pe_capture *c)
{
	for (size_t i = 0; i < c->n; i++)
		g_free(c->f[i].data);
	g_free(c->f);
	memset(c, 0, sizeof(*c));
}

void pe_copy(pe_capture *dst, const pe_capture *src)
{
	memset(dst, 0, sizeof(*dst));
	for (size_t i = 0; i < src->n; i++) {
		pe_frame fr = src->f[i];
		fr.data = g_memdup2(fr.data, fr.caplen);
		add(dst, fr);
	}
}

static void insert_at(pe_capture *c, size_t at, pe_frame fr)
{
	add(c, fr);
	memmove(&c->f[at + 1], &c->f[at], (c->n - 1 - at) * sizeof(*c->f));
	c->f[at] = fr;
}

void pe_dup(pe_capture *c, size_t idx, size_t at)
{
	cr_assert_lt(idx, c->n);
	pe_frame fr = c->f[idx];
	fr.data = g_memdup2(fr.data, fr.caplen);
	insert_at(c, at, fr);
}

void pe_remove(pe_capture *c, size_t idx)
{
	cr_assert_lt(idx, c->n);
	g_free(c->f[idx].data);
	memmove(&c->f[idx], &c->f[idx + 1], (c->n - idx - 1) * sizeof(*c->f));
	c->n--;
}

void pe_move(pe_capture *c, size_t from, size_t to)
{
	cr_assert_lt(from, c->n);
	cr_assert_lt(to, c->n);
	pe_frame fr = c->f[from];
	memmove(&c->f[from], &c->f[from + 1], (c->n - from - 1) * sizeof(*c->f));
	c->n--;
	insert_at(c, to, fr);
}

void pe_append(pe_capture *c, uint64_t ts_ns, const uint8_t *data, uint32_t len)
{
	add(c, (pe_frame){ .ts_ns = ts_ns, .data = g_memdup2(data, len), .caplen = len, .len = len });
}

void pe_vlan(pe_capture *c, size_t idx, uint16_t vid)
{
	pe_frame *fr = &c->f[idx];
	uint8_t *d = g_malloc(fr->caplen + 4);
	memcpy(d, fr->data, 12);
	put_be16(d + 12, 0x8100);
	put_be16(d + 14, vid & 0x0FFF);
	memcpy(d + 16, fr->data + 12, fr->caplen - 12);
	g_free(fr->data);
	fr->data = d;
	fr->caplen += 4;
	fr->len += 4;
}

/* IPv4 + TCP header offsets of an untagged frame */
static uint32_t ip_off(const pe_frame *fr)
{
	cr_assert_eq(get_be16(fr->data + 12), 0x0800, "IPv4 frames only");
	return 14;
}

uint32_t pe_tcp_payload_off(const pe_capture *c, size_t idx)
{
	const pe_frame *fr = &c->f[idx];
	uint32_t ip = ip_off(fr), ihl = (uint32_t)(fr->data[ip] & 0x0F) * 4;
	cr_assert_eq(fr->data[ip + 9], 6, "TCP frames only");
	return ip + ihl + (uint32_t)(fr->data[ip + ihl + 12] >> 4) * 4;
}

static uint32_t tcp_payload_len(const pe_frame *fr, uint32_t pay)
{
	uint32_t ip = ip_off(fr);
	return 14 + get_be16(fr->data + ip + 2) - pay;
}

static void set_tcp_payload(pe_frame *fr, uint32_t pay, const uint8_t *p, uint32_t n)
{
	uint32_t ip = ip_off(fr);
	uint8_t *d = g_malloc(pay + n);
	memcpy(d, fr->data, pay);
	memcpy(d + pay, p, n);
	put_be16(d + ip + 2, (uint16_t)(pay - ip + n));
	g_free(fr->data);
	fr->data = d;
	fr->caplen = fr->len = pay + n;
}

void pe_tcp_split(pe_capture *c, size_t idx, uint32_t at)
{
	uint32_t pay = pe_tcp_payload_off(c, idx), n = tcp_payload_len(&c->f[idx], pay);
	cr_assert(at > 0 && at < n, "split inside the payload");
	pe_dup(c, idx, idx + 1);
	uint8_t *copy = g_memdup2(c->f[idx].data + pay, n);
	set_tcp_payload(&c->f[idx], pay, copy, at);
	pe_frame *second = &c->f[idx + 1];
	set_tcp_payload(second, pay, copy + at, n - at);
	uint32_t ip = ip_off(second), th = ip + (uint32_t)(second->data[ip] & 0x0F) * 4;
	put_be32(second->data + th + 4, get_be32(second->data + th + 4) + at);
	g_free(copy);
}

void pe_tcp_merge(pe_capture *c, size_t dst, size_t src)
{
	uint32_t pd = pe_tcp_payload_off(c, dst), ps = pe_tcp_payload_off(c, src);
	uint32_t nd = tcp_payload_len(&c->f[dst], pd), ns = tcp_payload_len(&c->f[src], ps);
	uint8_t *buf = g_malloc(nd + ns);
	memcpy(buf, c->f[dst].data + pd, nd);
	memcpy(buf + nd, c->f[src].data + ps, ns);
	set_tcp_payload(&c->f[dst], pd, buf, nd + ns);
	g_free(buf);
	pe_remove(c, src);
}

void pe_tcp_slice(pe_capture *c, size_t idx, uint32_t from, uint32_t n)
{
	uint32_t pay = pe_tcp_payload_off(c, idx), total = tcp_payload_len(&c->f[idx], pay);
	cr_assert(from + n <= total);
	uint8_t *copy = g_memdup2(c->f[idx].data + pay + from, n);
	set_tcp_payload(&c->f[idx], pay, copy, n);
	g_free(copy);
	pe_frame *fr = &c->f[idx];
	uint32_t ip = ip_off(fr), th = ip + (uint32_t)(fr->data[ip] & 0x0F) * 4;
	put_be32(fr->data + th + 4, get_be32(fr->data + th + 4) + from);
}

void pe_roce_fix_icrc(pe_capture *c, size_t idx)
{
	pe_frame *fr = &c->f[idx];
	cr_assert_eq(get_be16(fr->data + 12), 0x0800, "untagged RoCE v2 frames only");
	uint32_t l3_len = fr->caplen - 14 - ROCE_ICRC_LEN;
	put_le32(fr->data + fr->caplen - ROCE_ICRC_LEN, roce_icrc(ROCE_V2, fr->data + 14, l3_len));
}

void pe_cut(pe_capture *c, size_t idx, uint32_t caplen)
{
	cr_assert_leq(caplen, c->f[idx].caplen);
	c->f[idx].caplen = caplen;
}

void pe_decode(const pe_capture *c, const replay_opts *opts, replay_result *res)
{
	replay_decoder *d = replay_decoder_new(opts);
	for (size_t i = 0; i < c->n; i++)
		replay_decoder_frame(d, c->f[i].ts_ns, c->f[i].data, c->f[i].caplen, c->f[i].len);
	replay_decoder_finish(d, res);
	replay_decoder_free(d);
}

static char *tmp_path(const char *name)
{
	if (!tmp_dir) {
		GError *err = NULL;
		tmp_dir = g_dir_make_tmp("smcr-replay-XXXXXX", &err);
		cr_assert_not_null(tmp_dir, "mkdtemp: %s", err ? err->message : "?");
	}
	return g_build_filename(tmp_dir, name, NULL);
}

char *pe_write_pcap(const pe_capture *c, const char *name, int linktype)
{
	char *path = tmp_path(name);
	pcap_t *p = pcap_open_dead(linktype, 65535);
	pcap_dumper_t *dp = pcap_dump_open(p, path);
	cr_assert_not_null(dp, "%s", pcap_geterr(p));
	for (size_t i = 0; i < c->n; i++) {
		struct pcap_pkthdr h = { .caplen = c->f[i].caplen, .len = c->f[i].len };
		h.ts.tv_sec = (time_t)(c->f[i].ts_ns / 1000000000u);
		h.ts.tv_usec = (suseconds_t)(c->f[i].ts_ns % 1000000000u / 1000u);
		pcap_dump((u_char *)dp, &h, c->f[i].data);
	}
	pcap_dump_close(dp);
	pcap_close(p);
	return path;
}

static void put32le(FILE *f, uint32_t v)
{
	uint8_t b[4];
	put_le32(b, v);
	fwrite(b, 1, 4, f);
}

char *pe_write_pcapng(const pe_capture *c, const char *name)
{
	char *path = tmp_path(name);
	FILE *f = fopen(path, "wb");
	cr_assert_not_null(f);
	/* Section Header Block: type, length, byte-order magic, version 1.0, section length -1 */
	put32le(f, 0x0A0D0D0A);
	put32le(f, 28);
	put32le(f, 0x1A2B3C4D);
	put32le(f, 0x00000001);
	put32le(f, 0xFFFFFFFF);
	put32le(f, 0xFFFFFFFF);
	put32le(f, 28);
	/* Interface Description Block: Ethernet, snaplen 65535, no options (microseconds) */
	put32le(f, 0x00000001);
	put32le(f, 20);
	put32le(f, 1); /* linktype 1, reserved 0 */
	put32le(f, 65535);
	put32le(f, 20);
	for (size_t i = 0; i < c->n; i++) {
		uint32_t padded = (c->f[i].caplen + 3) & ~3u, blen = 32 + padded;
		uint64_t us = c->f[i].ts_ns / 1000u;
		put32le(f, 0x00000006);
		put32le(f, blen);
		put32le(f, 0); /* interface 0 */
		put32le(f, (uint32_t)(us >> 32));
		put32le(f, (uint32_t)us);
		put32le(f, c->f[i].caplen);
		put32le(f, c->f[i].len);
		fwrite(c->f[i].data, 1, c->f[i].caplen, f);
		static const uint8_t pad[4];
		fwrite(pad, 1, padded - c->f[i].caplen, f);
		put32le(f, blen);
	}
	fclose(f);
	return path;
}

void pe_tmp_cleanup(void)
{
	if (!tmp_dir)
		return;
	GDir *dir = g_dir_open(tmp_dir, 0, NULL);
	const char *n;
	while (dir && (n = g_dir_read_name(dir))) {
		char *p = g_build_filename(tmp_dir, n, NULL);
		g_unlink(p);
		g_free(p);
	}
	if (dir)
		g_dir_close(dir);
	g_rmdir(tmp_dir);
	g_free(tmp_dir);
	tmp_dir = NULL;
}

void pe_ipv4_readdress(pe_capture *c, uint32_t a, uint32_t b)
{
	for (size_t i = 0; i < c->n; i++) {
		uint8_t *p = c->f[i].data;
		if (c->f[i].caplen < 34 || get_be16(p + 12) != 0x0800)
			continue;
		for (int k = 26; k <= 30; k += 4)
			if (get_be32(p + k) == b)
				put_be32(p + k, a);
	}
}

void pe_to_ipv6(pe_capture *c)
{
	for (size_t i = 0; i < c->n; i++) {
		pe_frame *fr = &c->f[i];
		uint8_t *p = fr->data;
		if (fr->caplen < 34 || get_be16(p + 12) != 0x0800 || p[23] != 6)
			continue;
		uint32_t ihl = (uint32_t)(p[14] & 0x0F) * 4, tot = get_be16(p + 16);
		uint32_t seg = tot - ihl, n = 14 + 40 + seg;
		uint8_t *q = g_malloc0(n);
		memcpy(q, p, 12);
		put_be16(q + 12, 0x86DD);
		q[14] = 0x60;
		put_be16(q + 18, (uint16_t)seg);
		q[20] = 6;
		q[21] = 64;
		for (int k = 0; k < 2; k++) {
			uint8_t *a = q + 22 + 16 * k;
			a[0] = 0x20;
			a[1] = 0x01;
			a[2] = 0x0d;
			a[3] = 0xb8;
			a[15] = p[29 + 4 * k];
		}
		memcpy(q + 54, p + 14 + ihl, seg);
		g_free(fr->data);
		fr->data = q;
		fr->caplen = fr->len = n;
	}
}
