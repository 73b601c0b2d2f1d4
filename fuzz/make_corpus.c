/* make_corpus OUTDIR FILE...: the seed corpora of the fuzz targets, cut out of the
 * captures and scenarios given (`make fuzz-corpus`: traces/, tests/data/, scenarios/).
 *
 * From each capture: its CLC, LLC and CDC messages as the replay decoder reads them
 * (clc, llc, cdc), the CLC stream of each side of a connection (clc_stream), single
 * frames (roce, replay_frame, cooked as LINUX_SLL/SLL2 records, tcp_opt), the client's
 * side of its first TCP connections addressed to the fuzzed stack (net), and short
 * captures: its first frames whole and more frames cut to a snap length, as pcap,
 * pcapng and cooked files (pcap, redrive, timing, applic) and in fuzz_replay's record format (replay).
 * A .scn file goes to the scenario corpus as it is.
 *
 * Each seed is OUTDIR/TARGET/seed-HASH (FNV-1a of the bytes); earlier seed-* files are
 * removed first, files with other names (inputs the fuzzer found) stay. Frames and
 * messages are kept one per shape (what kind of frame or message it is), so the
 * corpora stay small and varied. Same inputs, same files. */
#include <dirent.h>
#include <errno.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sim/fabric/pcapng_writer.h"
#include "sim/replay/replay.h"
#include "sim/replay/replay_frame.h"

#define MAX_SHAPES 4096
#define WHOLE_BUDGET (24 * 1024) /* bytes of whole frames in a short capture */
#define CUT_FRAMES 300           /* frames in the cut capture */
#define CUT_SNAPLEN 128
#define NET_CONNS 2   /* TCP connections per capture made into net seeds */
#define NET_FRAMES 16 /* client frames per net seed */

static const char *outdir;

typedef struct target {
	const char *name;
	unsigned cap; /* seeds at most (per run) */
	unsigned n;
	uint64_t shapes[MAX_SHAPES];
	size_t n_shapes;
} target;

static target targets[] = {
	{ "clc", 80 },
	{ "llc", 120 },
	{ "cdc", 40 },
	{ "clc_stream", 40 },
	{ "roce", 80 },
	{ "replay_frame", 80 },
	{ "cooked", 60 },
	{ "tcp_opt", 40 },
	{ "net", 40 },
	{ "pcap", 40 },
	{ "replay", 20 },
	{ "redrive", 16 },
	{ "scenario", 40 },
	{ "link_rx", 60 },
	{ "timing", 12 },
	{ "applic", 24 },
};

static target *tgt(const char *name)
{
	for (size_t i = 0; i < sizeof(targets) / sizeof(targets[0]); i++)
		if (!strcmp(targets[i].name, name))
			return &targets[i];
	fprintf(stderr, "make_corpus: no target %s\n", name);
	exit(2);
}

static uint64_t fnv(const void *data, size_t len, uint64_t h)
{
	const uint8_t *p = data;
	for (size_t i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3ull;
	}
	return h;
}
#define FNV0 0xcbf29ce484222325ull

/* First sight of this shape in the target? */
static bool shape_new(target *t, uint64_t shape)
{
	for (size_t i = 0; i < t->n_shapes; i++)
		if (t->shapes[i] == shape)
			return false;
	if (t->n_shapes == MAX_SHAPES)
		return false;
	t->shapes[t->n_shapes++] = shape;
	return true;
}

static void put(const char *name, const void *data, size_t len)
{
	target *t = tgt(name);
	if (t->n >= t->cap)
		return;
	char path[512];
	snprintf(path, sizeof(path), "%s/%s/seed-%016llx", outdir, name, (unsigned long long)fnv(data, len, FNV0));
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(data, 1, len, f) != len || fclose(f)) {
		fprintf(stderr, "make_corpus: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	t->n++;
}

/* put() once per shape */
static void put_shaped(const char *name, uint64_t shape, const void *data, size_t len)
{
	if (shape_new(tgt(name), shape))
		put(name, data, len);
}

/* A growing byte buffer. */
typedef struct bytes {
	uint8_t *p;
	size_t n, cap;
} bytes;

static void add(bytes *b, const void *data, size_t len)
{
	if (b->n + len > b->cap) {
		b->cap = (b->n + len) * 2 + 64;
		b->p = realloc(b->p, b->cap);
		if (!b->p)
			abort();
	}
	memcpy(b->p + b->n, data, len);
	b->n += len;
}

static void add_u8(bytes *b, uint8_t v) { add(b, &v, 1); }
static void add_be16(bytes *b, uint16_t v)
{
	uint8_t x[2] = { (uint8_t)(v >> 8), (uint8_t)v };
	add(b, x, 2);
}

/* ---------------------------------------------------------------- messages (replay) */

#define MAX_STREAMS 64
typedef struct stream {
	uint32_t conn;
	int from;
	uint8_t first_version;
	bytes b;
} stream;

typedef struct msg_state {
	stream streams[MAX_STREAMS];
	size_t n_streams;
} msg_state;

/* link_rx: one SEND in fuzz_link_rx.c's record format, once per shape */
static void link_rx_seed(uint64_t shape, uint8_t flags, const uint8_t *d, uint32_t n)
{
	if (!shape_new(tgt("link_rx"), shape | (uint64_t)flags << 60))
		return;
	bytes b = { 0 };
	add_be16(&b, (uint16_t)(n + 1));
	add_u8(&b, flags);
	add(&b, d, n);
	put("link_rx", b.p, b.n);
	free(b.p);
}

static void on_msg(void *ctx, const replay_msg *m)
{
	msg_state *st = ctx;
	const uint8_t *d = m->data;
	uint32_t n = m->len;
	switch (m->kind) {
	case REPLAY_MSG_CLC: {
		if (n >= 8)
			put_shaped("clc", (uint64_t)d[4] << 32 | (uint64_t)d[7] << 16 | n, d, n);
		stream *s = NULL;
		for (size_t i = 0; i < st->n_streams; i++)
			if (st->streams[i].conn == m->conn && st->streams[i].from == m->from)
				s = &st->streams[i];
		if (!s && st->n_streams < MAX_STREAMS) {
			s = &st->streams[st->n_streams++];
			memset(s, 0, sizeof(*s));
			s->conn = m->conn;
			s->from = m->from;
			s->first_version = n >= 8 ? (uint8_t)(d[7] >> 4) : 0;
		}
		if (s)
			add(&s->b, d, n);
		break;
	}
	case REPLAY_MSG_LLC:
		if (n >= 4) {
			put_shaped("llc", (uint64_t)d[0] << 40 | (uint64_t)d[3] << 32 | n, d, n);
			/* into the QP of the side that received it (from the client: the server's) */
			link_rx_seed((uint64_t)d[0] << 40 | (uint64_t)d[3] << 32 | n, m->from == 1 ? 0x01 : 0x00, d, n);
		}
		break;
	case REPLAY_MSG_CDC:
		if (n >= 26) {
			put_shaped("cdc", (uint64_t)d[24] << 8 | d[25], d, n);
			link_rx_seed(1ull << 56 | (uint64_t)d[24] << 8 | d[25], (m->from == 1 ? 0x01 : 0x00) | 0x06 | 0x08, d, n);
		}
		break;
	case REPLAY_MSG_WRITE:
		break;
	}
}

static void streams_out(msg_state *st)
{
	for (size_t i = 0; i < st->n_streams; i++) {
		stream *s = &st->streams[i];
		/* the fuzz plays the side that sent the stream: the core under test is the other */
		uint8_t mode = (uint8_t)((s->from == 1 ? 0x01 : 0x00) | (s->first_version == 1 ? 0x08 : 0x00));
		uint8_t chunk = i == 0 ? 7 : 0;
		bytes seed = { 0 };
		add_u8(&seed, mode);
		add_u8(&seed, chunk);
		add(&seed, s->b.p, s->b.n);
		put_shaped("clc_stream", fnv(seed.p, 2, fnv(s->b.p, s->b.n < 16 ? s->b.n : 16, FNV0)), seed.p, seed.n);
		free(seed.p);
		free(s->b.p);
	}
}

/* ---------------------------------------------------------------- frames */

typedef struct frame {
	uint64_t ts;
	uint32_t caplen, len;
	uint8_t *data;
} frame;

typedef struct capture {
	frame *f;
	size_t n, cap;
	int dlt;
} capture;

static int read_capture(const char *path, capture *c)
{
	char ebuf[PCAP_ERRBUF_SIZE];
	pcap_t *p = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, ebuf);
	if (!p) {
		fprintf(stderr, "make_corpus: %s: %s\n", path, ebuf);
		return -1;
	}
	memset(c, 0, sizeof(*c));
	c->dlt = pcap_datalink(p);
	struct pcap_pkthdr *h;
	const u_char *data;
	while (pcap_next_ex(p, &h, &data) == 1) {
		if (c->n == c->cap) {
			c->cap = c->cap ? c->cap * 2 : 256;
			c->f = realloc(c->f, c->cap * sizeof(frame));
			if (!c->f)
				abort();
		}
		frame *f = &c->f[c->n++];
		f->ts = (uint64_t)h->ts.tv_sec * 1000000000u + (uint64_t)h->ts.tv_usec;
		f->caplen = h->caplen;
		f->len = h->len;
		f->data = malloc(h->caplen ? h->caplen : 1);
		memcpy(f->data, data, h->caplen);
	}
	pcap_close(p);
	return 0;
}

static void frame_seeds(const frame *f)
{
	rp_frame rf;
	char why[200];
	rp_frame_kind k = rp_frame_parse(&rf, f->data, f->caplen, f->len, why, sizeof(why));
	uint64_t shape = (uint64_t)k << 48 | (uint64_t)rf.ethertype << 32 | (rf.vlan != 0xFFFF ? 1u << 24 : 0);
	if (k == RP_FRAME_ROCE && rf.ib_caplen)
		shape |= (uint64_t)rf.ib[0] << 8 | rf.roce_version;
	if (k == RP_FRAME_TCP)
		shape |= (uint64_t)rf.tcp_flags << 8 | (rf.payload_len ? 1 : 0);
	bytes b = { 0 };
	/* replay_frame: whole, and cut to 60 bytes once per shape */
	add_be16(&b, (uint16_t)(f->len - f->caplen > 0xFFFF ? 0xFFFF : f->len - f->caplen));
	add(&b, f->data, f->caplen);
	put_shaped("replay_frame", shape, b.p, b.n);
	if (f->caplen > 60 && shape_new(tgt("replay_frame"), shape | 1ull << 63)) {
		b.n = 0;
		add_be16(&b, (uint16_t)(f->len - 60 > 0xFFFF ? 0xFFFF : f->len - 60));
		add(&b, f->data, 60);
		put("replay_frame", b.p, b.n);
	}
	/* roce: with both checksum fix-ups on, so mutations keep passing them */
	if (k == RP_FRAME_ROCE && f->caplen == f->len) {
		b.n = 0;
		add_u8(&b, 0x03);
		add(&b, f->data, f->caplen);
		put_shaped("roce", shape | (f->caplen > 200 ? 1ull << 40 : 0), b.p, b.n);
	}
	/* cooked: the frame as a LINUX_SLL or LINUX_SLL2 record (by shape parity) */
	if (f->caplen >= 14 && shape_new(tgt("cooked"), shape)) {
		bool sll2 = fnv(&shape, sizeof(shape), FNV0) & 1;
		b.n = 0;
		add_u8(&b, sll2 ? 1 : 0);
		add_be16(&b, 0);
		uint8_t h[20] = { 0 };
		if (sll2) {
			memcpy(h, f->data + 12, 2); /* protocol */
			h[7] = 2;                   /* interface index */
			h[9] = 1;                   /* ARPHRD_ETHER */
			h[11] = 6;                  /* address length */
			memcpy(h + 12, f->data + 6, 6);
			add(&b, h, 20);
		} else {
			h[3] = 1;
			h[5] = 6;
			memcpy(h + 6, f->data + 6, 6);
			memcpy(h + 14, f->data + 12, 2);
			add(&b, h, 16);
		}
		add(&b, f->data + 14, f->caplen - 14);
		put("cooked", b.p, b.n);
	}
	/* tcp_opt: the options of an IPv4 TCP header, with its SYN bit */
	if (k == RP_FRAME_TCP && rf.family == 4) {
		uint32_t off = 12;
		while (f->data[off] == 0x81 && f->data[off + 1] == 0x00)
			off += 4;
		const uint8_t *tcp = f->data + off + 2 + (f->data[off + 2] & 15) * 4;
		size_t hlen = (size_t)(tcp[12] >> 4) * 4;
		if (hlen > 20) {
			b.n = 0;
			add_u8(&b, rf.tcp_flags & RP_TCP_SYN ? 1 : 0);
			add(&b, tcp + 20, hlen - 20);
			put_shaped("tcp_opt", fnv(b.p, b.n, FNV0), b.p, b.n);
		}
	}
	free(b.p);
}

/* net: the frames the client of a TCP connection sent, fixed up to reach the stack's
 * echo servers (fuzz_net.c's record format). */
static void net_seeds(const capture *c)
{
	int conns = 0;
	for (size_t i = 0; i < c->n && conns < NET_CONNS; i++) {
		rp_frame syn;
		char why[200];
		if (rp_frame_parse(&syn, c->f[i].data, c->f[i].caplen, c->f[i].len, why, sizeof(why)) != RP_FRAME_TCP ||
		    (syn.tcp_flags & (RP_TCP_SYN | RP_TCP_ACK)) != RP_TCP_SYN)
			continue;
		conns++;
		bytes b = { 0 };
		add_u8(&b, 0x20); /* learn the peer's MAC first */
		int n = 0;
		for (size_t j = i; j < c->n && n < NET_FRAMES; j++) {
			rp_frame rf;
			const frame *f = &c->f[j];
			if (rp_frame_parse(&rf, f->data, f->caplen, f->len, why, sizeof(why)) != RP_FRAME_TCP ||
			    rf.sport != syn.sport || rf.dport != syn.dport || memcmp(rf.src_ip, syn.src_ip, 16) ||
			    f->caplen != f->len || f->caplen + 2 > 0xFFFF)
				continue;
			add_be16(&b, (uint16_t)(f->caplen + 2));
			add_u8(&b, 0x1F); /* MAC, checksums, ack, seq, addressed to us */
			add_u8(&b, 0);
			add(&b, f->data, f->caplen);
			n++;
		}
		put("net", b.p, b.n);
		free(b.p);
	}
}

/* A few frames built here: an ARP request and a ping for the fuzzed stack (10.0.0.1),
 * which the captures do not have. */
static void net_builtin_seeds(void)
{
	/* clang-format off */ /* a table laid out by hand */
	static const uint8_t arp[] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02, 0, 0, 0, 0, 0x02, 0x08, 0x06,
		0x00, 0x01, 0x08, 0x00, 6, 4, 0x00, 0x01, 0x02, 0, 0, 0, 0, 0x02, 10, 0, 0, 2,
		0, 0, 0, 0, 0, 0, 10, 0, 0, 1,
	};
	/* clang-format on */
	/* clang-format off */ /* a table laid out by hand */
	static const uint8_t ping[] = {
		0x02, 0, 0, 0, 0, 0x01, 0x02, 0, 0, 0, 0, 0x02, 0x08, 0x00,
		0x45, 0x00, 0x00, 0x24, 0x12, 0x34, 0x40, 0x00, 0x40, 0x01, 0, 0, 10, 0, 0, 2, 10, 0, 0, 1,
		0x08, 0x00, 0, 0, 0x00, 0x07, 0x00, 0x01, 'p', 'i', 'n', 'g', 'p', 'i', 'n', 'g',
	};
	/* clang-format on */
	bytes b = { 0 };
	add_u8(&b, 0x00);
	add_be16(&b, sizeof(arp) + 2);
	add_u8(&b, 0x00);
	add_u8(&b, 0);
	add(&b, arp, sizeof(arp));
	add_be16(&b, sizeof(ping) + 2);
	add_u8(&b, 0x03); /* MAC, checksums */
	add_u8(&b, 1);
	add(&b, ping, sizeof(ping));
	put("net", b.p, b.n);
	/* the same on VLAN 5 */
	b.n = 0;
	add_u8(&b, 0x02);
	uint8_t tagged[sizeof(ping) + 4];
	memcpy(tagged, ping, 12);
	memcpy(tagged + 12, (const uint8_t[]){ 0x81, 0x00, 0x00, 0x05 }, 4);
	memcpy(tagged + 16, ping + 12, sizeof(ping) - 12);
	add_be16(&b, sizeof(tagged) + 2);
	add_u8(&b, 0x03);
	add_u8(&b, 0);
	add(&b, tagged, sizeof(tagged));
	put("net", b.p, b.n);
	free(b.p);
}

/* ---------------------------------------------------------------- short captures */

/* How many frames from the start fit the budget of whole frames (at least 1). */
static size_t whole_prefix(const capture *c)
{
	size_t n = 0, bytes_used = 0;
	while (n < c->n && (n == 0 || bytes_used + c->f[n].caplen <= WHOLE_BUDGET)) {
		bytes_used += c->f[n].caplen;
		n++;
	}
	return n;
}

static void slurp_into(const char *target_name, const char *tmp, const uint8_t *prefix, size_t prefix_len)
{
	FILE *f = fopen(tmp, "rb");
	if (!f)
		abort();
	bytes b = { 0 };
	add(&b, prefix, prefix_len);
	uint8_t buf[4096];
	size_t n;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		add(&b, buf, n);
	fclose(f);
	put(target_name, b.p, b.n);
	free(b.p);
}

/* A classic pcap file of frames [0, n) (cut to snaplen, 0: whole), Ethernet or rebuilt as
 * LINUX_SLL / LINUX_SLL2 records. */
static void write_pcap(const char *tmp, const capture *c, size_t n, uint32_t snaplen, int dlt)
{
	pcap_t *dead = pcap_open_dead_with_tstamp_precision(dlt, 262144, PCAP_TSTAMP_PRECISION_NANO);
	pcap_dumper_t *d = pcap_dump_open(dead, tmp);
	if (!d)
		abort();
	uint8_t rec[262144 + 20];
	for (size_t i = 0; i < n; i++) {
		const frame *f = &c->f[i];
		struct pcap_pkthdr h;
		h.ts.tv_sec = (time_t)(f->ts / 1000000000u);
		h.ts.tv_usec = (suseconds_t)(f->ts % 1000000000u);
		const uint8_t *data = f->data;
		uint32_t caplen = f->caplen, len = f->len;
		if (dlt != DLT_EN10MB) {
			if (caplen < 14)
				continue;
			uint32_t hl = dlt == DLT_LINUX_SLL2 ? 20 : 16;
			memset(rec, 0, hl);
			if (dlt == DLT_LINUX_SLL2) {
				memcpy(rec, f->data + 12, 2);
				rec[7] = 2;
				rec[9] = 1;
				rec[11] = 6;
				memcpy(rec + 12, f->data + 6, 6);
			} else {
				rec[1] = (uint8_t)(i & 1 ? 4 : 0); /* outgoing / to us */
				rec[3] = 1;
				rec[5] = 6;
				memcpy(rec + 6, f->data + 6, 6);
				memcpy(rec + 14, f->data + 12, 2);
			}
			memcpy(rec + hl, f->data + 14, caplen - 14);
			data = rec;
			caplen = caplen - 14 + hl;
			len = len - 14 + hl;
		}
		if (snaplen && caplen > snaplen)
			caplen = snaplen;
		h.caplen = caplen;
		h.len = len;
		pcap_dump((u_char *)d, &h, data);
	}
	pcap_dump_close(d);
	pcap_close(dead);
}

static void write_pcapng(const char *tmp, const capture *c, size_t n, uint32_t snaplen)
{
	char err[256];
	sim_pcapng_writer *w = sim_pcapng_open(tmp, snaplen, err, sizeof(err));
	if (!w) {
		fprintf(stderr, "make_corpus: %s\n", err);
		exit(1);
	}
	uint32_t ifc = sim_pcapng_add_interface(w, "eth0", "seed");
	for (size_t i = 0; i < n; i++)
		sim_pcapng_write(w, ifc, c->f[i].ts, c->f[i].data, c->f[i].caplen, NULL);
	if (sim_pcapng_close(w))
		exit(1);
}

/* fuzz_replay.c's records: gap in ms, wire bytes beyond the captured ones, the frame. */
static void replay_seed(const capture *c, size_t n, uint32_t snaplen)
{
	bytes b = { 0 };
	uint64_t prev = n ? c->f[0].ts : 0;
	for (size_t i = 0; i < n; i++) {
		const frame *f = &c->f[i];
		uint32_t cap = snaplen && f->caplen > snaplen ? snaplen : f->caplen;
		if (cap + 2 > 0xFFFF)
			continue;
		uint64_t gap = (f->ts - prev) / 1000000u;
		prev = f->ts;
		uint32_t extra = f->len - cap;
		add_be16(&b, (uint16_t)(cap + 2));
		add_u8(&b, (uint8_t)(gap > 255 ? 255 : gap));
		add_u8(&b, (uint8_t)(extra > 255 ? 255 : extra));
		add(&b, f->data, cap);
	}
	put("replay", b.p, b.n);
	free(b.p);
}

static void capture_seeds(const capture *c, unsigned index)
{
	char tmp[512];
	snprintf(tmp, sizeof(tmp), "%s/.make_corpus.tmp", outdir);
	size_t whole = whole_prefix(c);
	size_t cut = c->n < CUT_FRAMES ? c->n : CUT_FRAMES;
	write_pcap(tmp, c, whole, 0, DLT_EN10MB);
	slurp_into("pcap", tmp, NULL, 0);
	slurp_into("applic", tmp, NULL, 0);
	slurp_into("redrive", tmp, (const uint8_t[]){ 0 }, 1);
	slurp_into("redrive", tmp, (const uint8_t[]){ 1 }, 1);
	slurp_into("timing", tmp, (const uint8_t[]){ index & 1 ? 4 : 0 }, 1);
	write_pcap(tmp, c, whole, 0, index & 1 ? DLT_LINUX_SLL2 : DLT_LINUX_SLL);
	slurp_into("pcap", tmp, NULL, 0);
	slurp_into("applic", tmp, NULL, 0);
	write_pcapng(tmp, c, cut, CUT_SNAPLEN);
	slurp_into("pcap", tmp, NULL, 0);
	slurp_into("applic", tmp, NULL, 0);
	remove(tmp);
	replay_seed(c, whole, 0);
	replay_seed(c, cut, CUT_SNAPLEN);
}

/* ---------------------------------------------------------------- main */

static void clear_seeds(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d)))
		if (!strncmp(e->d_name, "seed-", 5)) {
			char path[1024];
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			remove(path);
		}
	closedir(d);
}

static void one_scenario(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "make_corpus: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	bytes b = { 0 };
	uint8_t buf[4096];
	size_t n;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		add(&b, buf, n);
	fclose(f);
	put("scenario", b.p, b.n);
	free(b.p);
}

static void one_capture(const char *path, unsigned index)
{
	msg_state st;
	memset(&st, 0, sizeof(st));
	replay_opts o = { .max_listed = 1, .on_msg = on_msg, .on_msg_ctx = &st };
	replay_result res;
	char err[512];
	if (replay_decode_file(path, &o, &res, err, sizeof(err))) {
		fprintf(stderr, "make_corpus: %s\n", err);
		exit(1);
	}
	replay_result_free(&res);
	streams_out(&st);
	capture c;
	if (read_capture(path, &c))
		exit(1);
	for (size_t i = 0; i < c.n; i++)
		frame_seeds(&c.f[i]);
	net_seeds(&c);
	capture_seeds(&c, index);
	for (size_t i = 0; i < c.n; i++)
		free(c.f[i].data);
	free(c.f);
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: make_corpus OUTDIR FILE... (captures, and .scn scenarios)\n");
		return 2;
	}
	outdir = argv[1];
	mkdir(outdir, 0777);
	for (size_t i = 0; i < sizeof(targets) / sizeof(targets[0]); i++) {
		char dir[512];
		snprintf(dir, sizeof(dir), "%s/%s", outdir, targets[i].name);
		mkdir(dir, 0777);
		clear_seeds(dir);
	}
	net_builtin_seeds();
	unsigned captures = 0;
	for (int i = 2; i < argc; i++) {
		size_t l = strlen(argv[i]);
		if (l > 4 && !strcmp(argv[i] + l - 4, ".scn"))
			one_scenario(argv[i]);
		else
			one_capture(argv[i], captures++);
	}
	for (size_t i = 0; i < sizeof(targets) / sizeof(targets[0]); i++)
		printf("%-14s %3u seeds\n", targets[i].name, targets[i].n);
	return 0;
}
