/* Replay mode 2: the injector (see replay_timing.h). It streams the capture: one frame is
 * read ahead and scheduled; its event injects it and schedules the next played frame. */
#include "sim/redrive/replay_timing.h"

#include <glib.h>
#include <inttypes.h>
#include <pcap/pcap.h>
#include <stdlib.h>
#include <string.h>

#include "model/byteorder.h"
#include "sim/addr/addr_text.h"
#include "sim/fabric/endpoint.h"
#include "sim/fabric/eth_header.h"
#include "sim/fabric/fabric.h"
#include "sim/fabric/roce.h"
#include "sim/rdma/rnic.h"
#include "sim/net/inet_csum.h"
#include "sim/replay/replay.h"
#include "sim/replay/replay_clock.h"
#include "sim/replay/replay_frame.h"

#define MAX_MACS 64

/* A TCP connection between a simulated endpoint E and a played endpoint P: the recorded
 * and the simulated initial sequence number of E. */
typedef struct tcp_key {
	uint32_t e_ip, p_ip;
	uint16_t e_port, p_port;
} tcp_key;

typedef struct tcp_isn {
	tcp_key k;
	bool has_rec, has_sim;
	uint32_t rec, sim;
} tcp_isn;

struct replay_timing {
	world *w;
	replay_timing_opts o;
	replay_timing_stats st;
	sim_endpoint ep;
	bool attached;
	pcap_t *p;
	rp_clock clock; /* time stamps with absurd jumps closed */
	uint64_t ts0;   /* capture time of the first frame */
	bool have_ts0;
	sim_time last_at;
	uint64_t end_ns;
	/* the frame read ahead */
	uint8_t *buf;
	uint32_t len;
	uint64_t frame_no;
	bool pending;
	/* who is played */
	uint64_t macs[MAX_MACS];
	size_t n_macs;
	uint8_t ip_mac[REPLAY_TIMING_MAX_PLAY][6]; /* the MAC each played address answered ARP with */
	bool has_ip_mac[REPLAY_TIMING_MAX_PLAY];
	GHashTable *isn; /* tcp_key -> tcp_isn */
	uint32_t k_inject;
};

/* ---- small frame helpers ---- */

static bool is_played_ip(const replay_timing *t, uint32_t ip)
{
	for (size_t i = 0; i < t->st.n_played; i++)
		if (t->st.played[i] == ip)
			return true;
	return false;
}

static int played_index(const replay_timing *t, uint32_t ip)
{
	for (size_t i = 0; i < t->st.n_played; i++)
		if (t->st.played[i] == ip)
			return (int)i;
	return -1;
}

static bool is_played_mac(const replay_timing *t, const uint8_t *mac)
{
	uint64_t k = sim_mac_key(mac);
	for (size_t i = 0; i < t->n_macs; i++)
		if (t->macs[i] == k)
			return true;
	return false;
}

static void add_mac(replay_timing *t, const uint8_t *mac)
{
	if (is_played_mac(t, mac) || t->n_macs == MAX_MACS || sim_mac_is_multicast(mac))
		return;
	t->macs[t->n_macs++] = sim_mac_key(mac);
}

static uint32_t ip4_of(const uint8_t ip[16]) { return get_be32(ip); }

/* Offsets of the IPv4 and TCP headers in an Ethernet frame (802.1Q/802.1ad tags
 * skipped); false if it is no complete IPv4/TCP header. */
static bool locate_tcp(const uint8_t *d, uint32_t len, uint32_t *ip_off, uint32_t *tcp_off)
{
	uint32_t off = 12;
	for (;;) {
		if (off + 2 > len)
			return false;
		uint16_t et = get_be16(d + off);
		if (et == 0x8100 || et == 0x88A8) {
			off += 4;
			continue;
		}
		if (et != 0x0800)
			return false;
		off += 2;
		break;
	}
	if (off + 20 > len || (d[off] >> 4) != 4 || d[off + 9] != 6)
		return false;
	uint32_t ihl = (d[off] & 0x0Fu) * 4u;
	if (ihl < 20 || off + ihl + 20 > len)
		return false;
	*ip_off = off;
	*tcp_off = off + ihl;
	return true;
}

static guint key_hash(gconstpointer p)
{
	const tcp_key *k = p;
	return (guint)(k->e_ip * 2654435761u ^ k->p_ip * 40503u ^ ((uint32_t)k->e_port << 16 | k->p_port));
}

static gboolean key_equal(gconstpointer a, gconstpointer b)
{
	const tcp_key *x = a, *y = b;
	return x->e_ip == y->e_ip && x->p_ip == y->p_ip && x->e_port == y->e_port && x->p_port == y->p_port;
}

static tcp_isn *isn_entry(replay_timing *t, const tcp_key *k)
{
	tcp_isn *e = g_hash_table_lookup(t->isn, k);
	if (!e) {
		e = g_new0(tcp_isn, 1);
		e->k = *k;
		g_hash_table_insert(t->isn, &e->k, e);
	}
	return e;
}

/* ---- injecting ---- */

static void schedule_next(replay_timing *t);

static void rewrite_tcp(replay_timing *t, uint8_t *d, uint32_t len)
{
	uint32_t ipo, tco;
	if (t->o.no_tcp_rewrite || !locate_tcp(d, len, &ipo, &tco))
		return;
	if (!(d[tco + 13] & RP_TCP_ACK))
		return;
	tcp_key k = { .p_ip = get_be32(d + ipo + 12), .e_ip = get_be32(d + ipo + 16), .p_port = get_be16(d + tco), .e_port = get_be16(d + tco + 2) };
	tcp_isn *e = g_hash_table_lookup(t->isn, &k);
	if (!e || !e->has_rec || !e->has_sim || e->rec == e->sim)
		return;
	uint32_t ack = get_be32(d + tco + 8) + (e->sim - e->rec);
	put_be32(d + tco + 8, ack);
	/* the checksum over the pseudo-header and the whole segment, as the IP length says */
	uint32_t ip_len = get_be16(d + ipo + 2), ihl = tco - ipo;
	if (ip_len < ihl + 20 || ipo + ip_len > len)
		return;
	uint32_t seg = ip_len - ihl;
	put_be16(d + tco + 16, 0);
	uint32_t sum = inet_csum_pseudo4(get_be32(d + ipo + 12), get_be32(d + ipo + 16), 6, (uint16_t)seg);
	sum = inet_csum_add(sum, d + tco, seg);
	put_be16(d + tco + 16, inet_csum_finish(sum));
	t->st.tcp_rewritten++;
}

/* A played RoCE frame goes to a QP number no simulated adapter has now: the recording's
 * QPNs cannot be the scenario's (said after the run). */
static void check_qp(replay_timing *t, const uint8_t *d, uint32_t len)
{
	roce_pkt pk;
	smcr_decode_err e;
	if (roce_parse_vouched(d, len, &pk, &e))
		return;
	t->st.roce_injected++;
	const scn_scenario *s = world_scenario(t->w);
	for (uint32_t i = 0; i < s->n_adapters; i++)
		if (rnic_find_qp(world_rnic(t->w, i), pk.bth.dest_qp))
			return;
	if (!t->st.roce_no_qp++) {
		t->st.first_no_qp = pk.bth.dest_qp;
		t->st.first_no_qp_frame = t->frame_no;
	}
}

static void inject(sim_engine *eng, sim_event *ev)
{
	(void)eng;
	replay_timing *t = ev->ctx;
	if (!t->pending)
		return;
	sim_frame *f = sim_frame_alloc(sim_fabric_frames(world_fabric(t->w)));
	memcpy(sim_frame_put(f, t->len), t->buf, t->len);
	rewrite_tcp(t, f->data, f->len);
	check_qp(t, f->data, f->len);
	sim_time now = sim_now(world_engine(t->w));
	if (!t->st.injected)
		t->st.first_ns = now;
	t->st.last_ns = now;
	t->st.injected++;
	t->pending = false;
	sim_endpoint_send(&t->ep, f);
	schedule_next(t);
}

static sim_time frame_time(replay_timing *t, uint64_t ts)
{
	if (!t->have_ts0) {
		t->ts0 = ts;
		t->have_ts0 = true;
	}
	uint64_t gap = ts > t->ts0 ? ts - t->ts0 : 0;
	unsigned __int128 scaled = (unsigned __int128)gap * t->o.speed_den / t->o.speed_num;
	sim_time at = t->o.offset_ns + (scaled > UINT64_MAX / 2 ? UINT64_MAX / 2 : (uint64_t)scaled);
	if (at < t->last_at)
		at = t->last_at;
	return at;
}

/* Read on to the next frame to inject and schedule it; count what is skipped. */
static void schedule_next(replay_timing *t)
{
	if (!t->p)
		return;
	for (;;) {
		struct pcap_pkthdr *h;
		const u_char *data;
		int rc = pcap_next_ex(t->p, &h, &data);
		if (rc == PCAP_ERROR_BREAK) {
			pcap_close(t->p);
			t->p = NULL;
			return;
		}
		if (rc != 1) {
			t->st.damaged = true;
			snprintf(t->st.damage, sizeof(t->st.damage), "capture file damaged at frame %" PRIu64 ": %s",
			         t->frame_no + 1, pcap_geterr(t->p));
			pcap_close(t->p);
			t->p = NULL;
			return;
		}
		t->frame_no++;
		t->st.frames++;
		uint64_t ts; /* the decode pass has reported the jumps (time_gaps) */
		rp_clock_next(&t->clock, t->frame_no, rp_clock_stamp(h->ts.tv_sec, h->ts.tv_usec), &ts, NULL, 0);
		sim_time at = frame_time(t, ts);
		if (h->caplen < SIM_ETH_HLEN || !is_played_mac(t, data + 6)) {
			t->st.not_played++;
			continue;
		}
		if (h->caplen < h->len) {
			t->st.cut++;
			continue;
		}
		if (h->len > SIM_FRAME_CAPACITY - 256) {
			t->st.too_big++;
			continue;
		}
		if (t->end_ns && at > t->end_ns) {
			t->st.after_end++;
			continue;
		}
		memcpy(t->buf, data, h->len);
		t->len = h->len;
		t->pending = true;
		t->last_at = at;
		sim_post(world_engine(t->w), at, t->k_inject, t->ep.plug.id, inject, t, t->frame_no);
		return;
	}
}

/* ---- what reaches the injector ---- */

static void answer_arp(replay_timing *t, const uint8_t *d, uint32_t len)
{
	/* untagged or tagged ARP request for a played address */
	uint32_t off = 12;
	while (off + 2 <= len && (get_be16(d + off) == 0x8100 || get_be16(d + off) == 0x88A8))
		off += 4;
	if (off + 2 + 28 > len || get_be16(d + off) != 0x0806)
		return;
	const uint8_t *a = d + off + 2;
	if (get_be16(a) != 1 || get_be16(a + 2) != 0x0800 || a[4] != 6 || a[5] != 4 || get_be16(a + 6) != 1)
		return;
	uint32_t target = get_be32(a + 24);
	int pi = played_index(t, target);
	if (pi < 0)
		return;
	const uint8_t *mac = t->has_ip_mac[pi] ? t->ip_mac[pi] : t->ep.mac;
	sim_frame *f = sim_frame_alloc(sim_fabric_frames(world_fabric(t->w)));
	uint8_t *p = sim_frame_put(f, off + 2 + 28);
	memcpy(p, a + 8, 6); /* to the requester */
	memcpy(p + 6, mac, 6);
	memcpy(p + 12, d + 12, off - 12); /* the same tags */
	uint8_t *r = p + off;
	r = put_be16(r, 0x0806);
	r = put_be16(r, 1);
	r = put_be16(r, 0x0800);
	r = put_u8(r, 6);
	r = put_u8(r, 4);
	r = put_be16(r, 2); /* reply */
	r = put_bytes(r, mac, 6);
	r = put_be32(r, target);
	r = put_bytes(r, a + 8, 6);
	put_bytes(r, a + 14, 4);
	t->st.arp_answered++;
	sim_endpoint_send(&t->ep, f);
}

static void learn_isn(replay_timing *t, const uint8_t *d, uint32_t len)
{
	uint32_t ipo, tco;
	if (!locate_tcp(d, len, &ipo, &tco) || !(d[tco + 13] & RP_TCP_SYN))
		return;
	tcp_key k = { .e_ip = get_be32(d + ipo + 12), .p_ip = get_be32(d + ipo + 16), .e_port = get_be16(d + tco), .p_port = get_be16(d + tco + 2) };
	if (!is_played_ip(t, k.p_ip) || is_played_ip(t, k.e_ip))
		return;
	tcp_isn *e = isn_entry(t, &k);
	e->sim = get_be32(d + tco + 4);
	e->has_sim = true;
}

static void injector_rx(sim_endpoint *ep, sim_frame *f)
{
	replay_timing *t = ep->ctx;
	t->st.received++;
	answer_arp(t, f->data, f->len);
	learn_isn(t, f->data, f->len);
	sim_frame_free(f);
}

/* ---- preparing ---- */

static int open_capture(const char *path, pcap_t **out, char *err, size_t errlen)
{
	char ebuf[PCAP_ERRBUF_SIZE] = "";
	pcap_t *p = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, ebuf);
	if (!p) {
		snprintf(err, errlen, "%s: cannot read as a capture file: %s", path, ebuf);
		return -1;
	}
	if (pcap_datalink(p) != DLT_EN10MB) {
		/* injection needs the frames as they were on the wire, MAC addresses included */
		const char *name = pcap_datalink_val_to_name(pcap_datalink(p));
		snprintf(err, errlen,
		         "%s: link-layer type %s (%d) is not Ethernet; timing replay injects Ethernet frames with their "
		         "MAC addresses (a Linux cooked capture can be decoded and re-driven, not injected)",
		         path, name ? name : "unknown", pcap_datalink(p));
		pcap_close(p);
		return -1;
	}
	*out = p;
	return 0;
}

static bool scenario_has_ip(const scn_scenario *s, uint32_t ip)
{
	for (size_t i = 0; i < s->n_stacks; i++)
		for (size_t k = 0; k < s->stacks[i].n_ifaces; k++)
			if (s->stacks[i].ifaces[k].ip == ip)
				return true;
	return false;
}

/* Scan the capture once: the played hosts' MACs, ARP answers and recorded ISNs. */
static int scan(replay_timing *t, const char *path, char *err, size_t errlen)
{
	pcap_t *p;
	if (open_capture(path, &p, err, errlen))
		return -1;
	for (;;) {
		struct pcap_pkthdr *h;
		const u_char *data;
		int rc = pcap_next_ex(p, &h, &data);
		if (rc != 1)
			break; /* the end, or damage: the injection pass reports it with its frame */
		rp_frame f;
		char why[128];
		rp_frame_kind kind = rp_frame_parse(&f, data, h->caplen, h->len, why, sizeof(why));
		if ((kind == RP_FRAME_TCP || kind == RP_FRAME_ROCE) && f.family == 4 && is_played_ip(t, ip4_of(f.src_ip)))
			add_mac(t, f.src_mac);
		if (kind == RP_FRAME_TCP && f.family == 4 && (f.tcp_flags & RP_TCP_SYN) && !is_played_ip(t, ip4_of(f.src_ip)) &&
		    is_played_ip(t, ip4_of(f.dst_ip))) {
			tcp_key k = { .e_ip = ip4_of(f.src_ip), .p_ip = ip4_of(f.dst_ip), .e_port = f.sport, .p_port = f.dport };
			tcp_isn *e = isn_entry(t, &k);
			if (!e->has_rec) {
				e->rec = f.seq;
				e->has_rec = true;
			}
		}
		if (kind == RP_FRAME_OTHER && h->caplen >= 42) {
			uint32_t off = 12;
			while (off + 2 <= h->caplen && (get_be16(data + off) == 0x8100 || get_be16(data + off) == 0x88A8))
				off += 4;
			if (off + 30 <= h->caplen && get_be16(data + off) == 0x0806) {
				const uint8_t *a = data + off + 2;
				int pi = played_index(t, get_be32(a + 14));
				if (pi >= 0) {
					add_mac(t, data + 6);
					if (!t->has_ip_mac[pi]) {
						memcpy(t->ip_mac[pi], a + 8, 6);
						t->has_ip_mac[pi] = true;
					}
				}
			}
		}
		if (f.family == 4 && (kind == RP_FRAME_TCP || kind == RP_FRAME_ROCE)) {
			int pi = played_index(t, ip4_of(f.src_ip));
			if (pi >= 0 && !t->has_ip_mac[pi] && kind == RP_FRAME_TCP) {
				memcpy(t->ip_mac[pi], f.src_mac, 6);
				t->has_ip_mac[pi] = true;
			}
		}
	}
	pcap_close(p);
	return 0;
}

replay_timing *replay_timing_new(world *w, const char *path, const replay_timing_opts *o, char *err,
                                 size_t errlen)
{
	sim_plug *port = world_spare_port(w);
	if (!port) {
		snprintf(err, errlen, "the world has no spare switch port for the injector");
		return NULL;
	}
	/* a decode pass: the capture's hosts and their RoCE MACs */
	replay_opts ro = { .max_listed = 64, .max_gap_ns = o->max_gap_ns };
	replay_result res;
	if (replay_decode_file(path, &ro, &res, err, errlen))
		return NULL;
	replay_timing *t = g_new0(replay_timing, 1);
	t->w = w;
	t->o = *o;
	if (!t->o.speed_num || !t->o.speed_den)
		t->o.speed_num = t->o.speed_den = 1;
	rp_clock_init(&t->clock, o->max_gap_ns);
	t->isn = g_hash_table_new_full(key_hash, key_equal, NULL, g_free);
	t->buf = g_malloc(SIM_FRAME_CAPACITY);
	t->k_inject = sim_kind("replay.inject");
	const scn_scenario *s = world_scenario(w);
	t->end_ns = world_end_time(w);
	if (o->n_play) {
		memcpy(t->st.played, o->play, o->n_play * sizeof(o->play[0]));
		t->st.n_played = o->n_play;
	} else {
		for (size_t i = 0; i < res.report.n_stacks && t->st.n_played < REPLAY_TIMING_MAX_PLAY; i++) {
			const report_stack *rs = &res.report.stacks[i];
			uint32_t ip = get_be32(rs->ip);
			if (rs->family == 4 && !scenario_has_ip(s, ip) && !is_played_ip(t, ip))
				t->st.played[t->st.n_played++] = ip;
		}
	}
	for (size_t i = 0; i < res.report.n_stacks; i++) {
		const report_stack *rs = &res.report.stacks[i];
		if (rs->family != 4 || !is_played_ip(t, get_be32(rs->ip)))
			continue;
		for (size_t k = 0; k < res.report.n_rnics; k++)
			if (res.report.rnics[k].stack_id == rs->id)
				add_mac(t, res.report.rnics[k].mac);
	}
	t->st.time_gaps = res.time_gaps;
	for (size_t i = 0; i < res.errors.n && !t->st.first_gap[0]; i++)
		if (strstr(res.errors.items[i].text, "time stamp jump"))
			snprintf(t->st.first_gap, sizeof(t->st.first_gap), "%s", res.errors.items[i].text);
	replay_result_free(&res);
	if (!t->st.n_played) {
		snprintf(err, errlen, "%s: nothing to play: every IPv4 host of the capture is in the scenario (name one with "
		                      "--play IP)",
		         path);
		replay_timing_free(t);
		return NULL;
	}
	if (scan(t, path, err, errlen) || open_capture(path, &t->p, err, errlen)) {
		replay_timing_free(t);
		return NULL;
	}
	static const uint8_t mac[6] = { 0x02, 0x52, 0x45, 0x50, 0x4C, 0x59 }; /* "REPLY" */
	sim_endpoint_init(&t->ep, world_fabric(w), "replay", mac, injector_rx, NULL, t);
	if (sim_endpoint_attach(&t->ep, port)) {
		snprintf(err, errlen, "cannot attach the injector");
		replay_timing_free(t);
		return NULL;
	}
	t->attached = true;
	schedule_next(t);
	return t;
}

const replay_timing_stats *replay_timing_stats_get(const replay_timing *t) { return &t->st; }

static void count_rest(replay_timing *t)
{
	if (t->pending) {
		t->st.after_end++;
		t->pending = false;
	}
	while (t->p) {
		struct pcap_pkthdr *h;
		const u_char *data;
		int rc = pcap_next_ex(t->p, &h, &data);
		if (rc != 1) {
			if (rc != PCAP_ERROR_BREAK) {
				t->st.damaged = true;
				snprintf(t->st.damage, sizeof(t->st.damage), "capture file damaged at frame %" PRIu64 ": %s",
				         t->frame_no + 1, pcap_geterr(t->p));
			}
			pcap_close(t->p);
			t->p = NULL;
			break;
		}
		t->frame_no++;
		t->st.frames++;
		if (h->caplen >= SIM_ETH_HLEN && is_played_mac(t, data + 6))
			t->st.after_end++;
		else
			t->st.not_played++;
	}
}

void replay_timing_print(FILE *out, replay_timing *t)
{
	count_rest(t);
	const replay_timing_stats *st = &t->st;
	fprintf(out, "replay (timing): played");
	char ip[ADDR_TEXT_IPV4_LEN];
	for (size_t i = 0; i < st->n_played; i++)
		fprintf(out, " %s", addr_text_ipv4(st->played[i], ip, sizeof(ip)));
	fprintf(out, "\n  %" PRIu64 " frames read, %" PRIu64 " injected", st->frames, st->injected);
	if (st->injected)
		fprintf(out, " (virtual time %" PRIu64 ".%09" PRIu64 " to %" PRIu64 ".%09" PRIu64 " s)", st->first_ns / 1000000000u,
		        st->first_ns % 1000000000u, st->last_ns / 1000000000u, st->last_ns % 1000000000u);
	fprintf(out, ", %" PRIu64 " sent by hosts the scenario has\n", st->not_played);
	if (st->cut || st->too_big || st->after_end)
		fprintf(out, "  not injected: %" PRIu64 " cut by the snap length, %" PRIu64 " too large, %" PRIu64 " due after the end of the run\n",
		        st->cut, st->too_big, st->after_end);
	fprintf(out, "  %" PRIu64 " TCP acknowledgment numbers moved to the simulated peer's sequence, %" PRIu64 " ARP requests answered, %" PRIu64 " frames received by the injector\n",
	        st->tcp_rewritten, st->arp_answered, st->received);
	if (st->time_gaps)
		fprintf(out, "  %" PRIu64 " time stamp jump%s closed; the first: %s\n", st->time_gaps, st->time_gaps == 1 ? "" : "s",
		        st->first_gap);
	if (st->damaged)
		fprintf(out, "  %s; the frames before it were injected\n", st->damage);
	if (st->roce_no_qp)
		fprintf(out,
		        "  warning: %" PRIu64 " of %" PRIu64 " injected RoCE frames went to QP numbers no simulated adapter had "
		        "(the first: 0x%06" PRIx32 ", frame %" PRIu64 "): QPNs, PSNs and rkeys are injected as recorded, so past "
		        "the CLC handshake the conversation goes on only where the scenario's stacks chose the recorded "
		        "values (a recording of this scenario); the link groups it started end when their messages go "
		        "nowhere. --mode redrive maps them instead\n",
		        st->roce_no_qp, st->roce_injected, st->first_no_qp, st->first_no_qp_frame);
}

void replay_timing_free(replay_timing *t)
{
	if (!t)
		return;
	if (t->attached)
		sim_endpoint_destroy(&t->ep);
	if (t->p)
		pcap_close(t->p);
	g_hash_table_destroy(t->isn);
	g_free(t->buf);
	g_free(t);
}
