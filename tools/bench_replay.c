/* bench replay: decode rate of `smcr-sim replay` (mode 1) in frames per second, next to
 * `tshark -n -r FILE` on the same file (both read the whole file; tshark's output goes to
 * /dev/null). Without a FILE, a large trace is made deterministically from the real Linux
 * SMC-Rv2 trace: N copies one after the other, each with its own TCP client port (so every
 * copy is a new connection and a new link group) and time stamps shifted past the previous
 * copy. */
#include <glib.h>
#include <glib/gstdio.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <string.h>

#include "model/byteorder.h"
#include "sim/replay/replay.h"
#include "tools/bench.h"
#include "tools/cli.h"

#define DEFAULT_BASE "traces/linux-6.1-smcr-v2-rxe.pcap"

/* Rewrite TCP port `from` to `to` in an untagged IPv4 frame. */
static void rewrite_port(u_char *d, uint32_t caplen, uint16_t from, uint16_t to)
{
	if (caplen < 14 + 20 + 4 || get_be16(d + 12) != 0x0800 || d[14 + 9] != 6)
		return;
	uint8_t *t = d + 14 + (uint32_t)(d[14] & 0x0F) * 4;
	if (t + 4 > d + caplen)
		return;
	if (get_be16(t) == from)
		put_be16(t, to);
	if (get_be16(t + 2) == from)
		put_be16(t + 2, to);
}

static int make_trace(const char *base, const char *out, unsigned copies, char *err, size_t errlen)
{
	char ebuf[PCAP_ERRBUF_SIZE];
	pcap_t *in = pcap_open_offline_with_tstamp_precision(base, PCAP_TSTAMP_PRECISION_NANO, ebuf);
	if (!in) {
		snprintf(err, errlen, "%s: %s", base, ebuf);
		return -1;
	}
	GPtrArray *frames = g_ptr_array_new_with_free_func(g_free);
	GArray *hdrs = g_array_new(FALSE, FALSE, sizeof(struct pcap_pkthdr));
	struct pcap_pkthdr *h;
	const u_char *data;
	uint16_t client_port = 0;
	while (pcap_next_ex(in, &h, &data) == 1) {
		g_ptr_array_add(frames, g_memdup2(data, h->caplen));
		g_array_append_val(hdrs, *h);
		/* the client port: source port of the first SYN */
		if (!client_port && h->caplen >= 54 && get_be16(data + 12) == 0x0800 && data[23] == 6 &&
		    (data[14 + 20 + 13] & 0x12) == 0x02)
			client_port = get_be16(data + 34);
	}
	pcap_close(in);
	int rc = -1;
	if (hdrs->len == 0) {
		snprintf(err, errlen, "%s: no frames", base);
		goto out;
	}
	struct pcap_pkthdr *first = &g_array_index(hdrs, struct pcap_pkthdr, 0),
	                   *last = &g_array_index(hdrs, struct pcap_pkthdr, hdrs->len - 1);
	uint64_t t0 = (uint64_t)first->ts.tv_sec * 1000000000u + (uint64_t)first->ts.tv_usec;
	uint64_t span = (uint64_t)last->ts.tv_sec * 1000000000u + (uint64_t)last->ts.tv_usec - t0 + 1000000000u;
	pcap_t *dead = pcap_open_dead_with_tstamp_precision(DLT_EN10MB, 65535, PCAP_TSTAMP_PRECISION_NANO);
	pcap_dumper_t *dp = pcap_dump_open(dead, out);
	if (!dp) {
		snprintf(err, errlen, "%s: %s", out, pcap_geterr(dead));
		pcap_close(dead);
		goto out;
	}
	for (unsigned k = 0; k < copies; k++) {
		uint16_t port = (uint16_t)(20000 + k % 40000);
		for (guint i = 0; i < hdrs->len; i++) {
			struct pcap_pkthdr ph = g_array_index(hdrs, struct pcap_pkthdr, i);
			uint64_t ts = (uint64_t)ph.ts.tv_sec * 1000000000u + (uint64_t)ph.ts.tv_usec + k * span;
			ph.ts.tv_sec = (time_t)(ts / 1000000000u);
			ph.ts.tv_usec = (suseconds_t)(ts % 1000000000u);
			u_char *d = g_memdup2(frames->pdata[i], ph.caplen);
			if (client_port)
				rewrite_port(d, ph.caplen, client_port, port);
			pcap_dump((u_char *)dp, &ph, d);
			g_free(d);
		}
	}
	pcap_dump_close(dp);
	pcap_close(dead);
	rc = 0;
out:
	g_ptr_array_free(frames, TRUE);
	g_array_free(hdrs, TRUE);
	return rc;
}

int bench_replay(int argc, char **argv)
{
	gint64 copies = 300, repeat = 3;
	gchar *base = NULL;
	gboolean no_tshark = FALSE, keep = FALSE;
	GOptionEntry entries[] = {
		{ "copies", 'n', 0, G_OPTION_ARG_INT64, &copies, "copies of the base trace in the made trace (300)", "N" },
		{ "base", 'b', 0, G_OPTION_ARG_FILENAME, &base, "base trace to copy (" DEFAULT_BASE ")", "FILE" },
		{ "repeat", 'r', 0, G_OPTION_ARG_INT64, &repeat, "decoder runs; the best is reported (3)", "N" },
		{ "no-tshark", 0, 0, G_OPTION_ARG_NONE, &no_tshark, "do not time tshark", NULL },
		{ "keep", 0, 0, G_OPTION_ARG_NONE, &keep, "keep the made trace and print its path", NULL },
		{ NULL },
	};
	cli_options opts = { .params = "[FILE] - replay decode rate, next to tshark -r", .entries = entries };
	int rc = 2;
	char *made = NULL, *tmpdir = NULL;
	if (cli_parse_options(&opts, &argc, &argv))
		goto out;
	if (argc > 2 || copies <= 0 || copies > 1000000 || repeat <= 0) {
		fprintf(stderr, "%s: usage: [FILE] with copies in 1..1000000 and repeat > 0\n", argv[0]);
		goto out;
	}
	const char *file = argc == 2 ? argv[1] : NULL;
	if (!file) {
		char err[512];
		tmpdir = g_dir_make_tmp("smcr-bench-replay-XXXXXX", NULL);
		made = g_build_filename(tmpdir ? tmpdir : g_get_tmp_dir(), "bench-replay.pcap", NULL);
		if (make_trace(base ? base : DEFAULT_BASE, made, (unsigned)copies, err, sizeof(err)) < 0) {
			fprintf(stderr, "%s: cannot make the trace: %s\n", argv[0], err);
			goto out;
		}
		file = made;
	}

	double best = 0;
	replay_result res = { 0 };
	for (gint64 i = 0; i < repeat; i++) {
		char err[512];
		if (i)
			replay_result_free(&res);
		double t0 = bench_wall_seconds();
		if (replay_decode_file(file, NULL, &res, err, sizeof(err)) < 0) {
			fprintf(stderr, "%s: %s\n", argv[0], err);
			goto out;
		}
		double dt = bench_wall_seconds() - t0;
		if (best == 0 || dt < best)
			best = dt;
	}
	printf("replay decode benchmark: %s%s\n", file, made ? " (made from the base trace)" : "");
	printf("  frames %llu, bytes %llu; decoded %zu link groups, %zu links, %zu connection ends, %llu errors\n",
	       (unsigned long long)res.frames, (unsigned long long)res.bytes, res.report.n_lgrs, res.report.n_links,
	       res.report.n_conns, (unsigned long long)res.errors.total);
	double rate = (double)res.frames / best;
	printf("  smcr-sim replay (decode)  %8.3f s  %12.0f frames/s  %8.1f MB/s  (best of %lld)\n", best, rate,
	       (double)res.bytes / best / 1e6, (long long)repeat);
	uint64_t frames = res.frames;
	replay_result_free(&res);
	rc = 0;
	if (!no_tshark) {
		/* tshark gets the same best-of treatment (at most 2 runs: it is the slow one) */
		gchar *targv[] = { "tshark", "-n", "-r", (gchar *)file, NULL };
		gint status = 0;
		gboolean ok = TRUE;
		GError *gerr = NULL;
		double dt = 0;
		for (gint64 i = 0; i < (repeat < 2 ? repeat : 2) && ok; i++) {
			double t0 = bench_wall_seconds();
			ok = g_spawn_sync(NULL, targv, NULL,
			                  G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL, NULL,
			                  NULL, NULL, NULL, &status, &gerr);
			double t = bench_wall_seconds() - t0;
			if (dt == 0 || t < dt)
				dt = t;
		}
		if (!ok) {
			printf("  tshark -n -r              not run: %s\n", gerr->message);
			g_clear_error(&gerr);
		} else if (!g_spawn_check_wait_status(status, NULL)) {
			printf("  tshark -n -r              failed (status %d)\n", status);
		} else {
			double trate = (double)frames / dt;
			printf("  tshark -n -r              %8.3f s  %12.0f frames/s  (best of %lld)\n", dt, trate,
			       (long long)(repeat < 2 ? repeat : 2));
			printf("  speed-up                  %8.1f x\n", rate / trate);
		}
	}
	printf("  peak RSS %.1f MiB\n", (double)bench_peak_rss() / (1024.0 * 1024.0));
	if (made && keep)
		printf("  trace kept: %s\n", made);
out:
	if (made && !keep) {
		g_unlink(made);
		if (tmpdir)
			g_rmdir(tmpdir);
	}
	g_free(made);
	g_free(tmpdir);
	g_free(base);
	return rc;
}
