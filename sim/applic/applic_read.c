/* The applicability reader: the capture read once with libpcap, each record dissected
 * (applic_packet.c), its time taken through the replay clock (a jump of more than
 * max_gap is closed and said), the TCP segments handed to the tracker; then the re-run.
 * A progress line (bytes read of the file, frames, connections) goes to o->progress about
 * every second of wall time (sim/engine/realtime.h is the clock). */
#include <inttypes.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "sim/applic/applic_int.h"
#include "sim/engine/realtime.h"
#include "sim/replay/replay_clock.h"

void applic_opts_default(applic_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->short_ns = 1000000000ull;
	o->small_bytes = 10000;
	o->pause_ns = 20000000ull;
	o->max_open = 262144;
	o->max_dests = 4096;
	o->rerun_max = 0;
	o->steps_max = 4096;
	o->rerun_bytes = 1ull << 30;
	o->seed = 1;
}

static void fill_defaults(applic_opts *o)
{
	applic_opts d;
	applic_opts_default(&d);
	if (!o->short_ns)
		o->short_ns = d.short_ns;
	if (!o->small_bytes)
		o->small_bytes = d.small_bytes;
	if (!o->pause_ns)
		o->pause_ns = d.pause_ns;
	if (!o->max_open)
		o->max_open = d.max_open;
	if (!o->max_dests)
		o->max_dests = d.max_dests;
	if (!o->steps_max)
		o->steps_max = d.steps_max;
	if (!o->rerun_bytes)
		o->rerun_bytes = d.rerun_bytes;
	if (!o->max_gap_ns)
		o->max_gap_ns = RP_CLOCK_MAX_GAP_DEFAULT;
}

typedef struct progress {
	FILE *out, *in;
	uint64_t size, next_ns;
	bool shown;
} progress;

static void progress_line(progress *pg, const ac_tracker *t, bool last)
{
	if (!pg->out)
		return;
	uint64_t now = sim_realtime_clock_ns();
	if (!last && now < pg->next_ns)
		return;
	pg->next_ns = now + 1000000000ull;
	long pos = pg->in ? ftell(pg->in) : -1;
	uint64_t at = pos > 0 ? (uint64_t)pos : 0;
	fprintf(pg->out, "\rapplicability: %" PRIu64 " MB of %" PRIu64 " MB (%" PRIu64 "%%), %" PRIu64 " frames, %" PRIu32
	                 " connections   ",
	        at >> 20, pg->size >> 20, pg->size ? at * 100 / pg->size : 0, t->res->frames, t->next_id);
	pg->shown = true;
	if (last)
		fputc('\n', pg->out);
	fflush(pg->out);
}

static void one_record(ac_tracker *t, int dlt, const struct pcap_pkthdr *h, const u_char *data, uint64_t ts,
                       uint64_t frame)
{
	applic_result *res = t->res;
	ap_packet p;
	char why[96];
	switch (ap_parse(dlt, data, h->caplen, h->len, &p, why, sizeof(why))) {
	case AP_TCP:
		ac_tracker_packet(t, &p, ts, frame);
		break;
	case AP_NOT_TCP:
		res->not_tcp++;
		break;
	case AP_BAD:
		if (!res->bad_frames++ || res->bad_frames <= 5)
			ac_note(res, frame, "%s: skipped", why);
		break;
	}
}

static void read_all(pcap_t *p, ac_tracker *t, progress *pg, const char *path)
{
	applic_result *res = t->res;
	int dlt = pcap_datalink(p);
	rp_clock clock;
	rp_clock_init(&clock, t->o.max_gap_ns);
	uint64_t last_raw = 0;
	for (;;) {
		struct pcap_pkthdr *h;
		const u_char *data;
		int rc = pcap_next_ex(p, &h, &data);
		if (rc == PCAP_ERROR_BREAK)
			break;
		if (rc != 1) {
			res->damaged = true;
			ac_note(res, res->frames + 1, "%s: the file is damaged here (%s); the frames before were read", path,
			        pcap_geterr(p));
			break;
		}
		uint64_t frame = ++res->frames, ts;
		uint64_t raw = rp_clock_stamp(h->ts.tv_sec, h->ts.tv_usec);
		char gap[320];
		if (rp_clock_next(&clock, frame, raw, &ts, gap, sizeof(gap))) {
			res->time_gaps++;
			ac_note(res, frame, "%s", gap);
		} else if (frame > 1 && raw < last_raw) {
			res->out_of_order++;
		}
		last_raw = raw;
		if (frame == 1)
			res->first_ns = ts;
		if (ts > res->last_ns)
			res->last_ns = ts;
		one_record(t, dlt, h, data, ts, frame);
		if (!(frame & 1023))
			progress_line(pg, t, false);
	}
}

int applic_run(const char *path, const applic_opts *opts, applic_result *res, char *err, size_t errlen)
{
	memset(res, 0, sizeof(*res));
	applic_opts o = *opts;
	fill_defaults(&o);
	static applic_setup none;
	if (!o.setup) {
		applic_setup_default(&none);
		o.setup = &none;
	}
	res->o = o;
	res->setup_said = o.setup->source;
	res->local_known = o.has_local;
	res->local_family = o.local_family;
	memcpy(res->local_ip, o.local_ip, 16);
	char ebuf[PCAP_ERRBUF_SIZE] = "";
	pcap_t *p = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, ebuf);
	if (!p) {
		snprintf(err, errlen, "%s: cannot read as a capture file: %s", path, ebuf);
		return -1;
	}
	res->linktype = pcap_datalink(p);
	if (!ap_linktype_ok(res->linktype)) {
		const char *name = pcap_datalink_val_to_name(res->linktype);
		snprintf(err, errlen, "%s: link-layer type %s (%d) is not one applicability reads (Ethernet, Linux cooked, raw IP, "
		                      "loopback)",
		         path, name ? name : "unknown", res->linktype);
		pcap_close(p);
		return -1;
	}
	struct stat sb;
	progress pg = { .out = o.progress, .in = pcap_file(p), .size = stat(path, &sb) == 0 ? (uint64_t)sb.st_size : 0 };
	ac_tracker t;
	ac_tracker_init(&t, &o, res);
	read_all(p, &t, &pg, path);
	pcap_close(p);
	pg.in = NULL;
	ac_tracker_finish(&t);
	if (pg.shown)
		progress_line(&pg, &t, true);
	if (!res->tcp_segments)
		ac_note(res, 0, "%s: no TCP segment in %" PRIu64 " frames: nothing to judge", path, res->frames);
	if (o.rerun_max && t.n_scripts)
		ac_rerun(&t);
	ac_tracker_free(&t);
	return 0;
}

void applic_result_free(applic_result *res)
{
	g_free(res->dests);
	g_free(res->rerun);
	g_free(res->hosts);
	memset(res, 0, sizeof(*res));
}
