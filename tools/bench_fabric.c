/* bench fabric: RDMA WRITEs between two simulated adapters over one switch, every frame
 * really built (headers, payload copy, ICRC), carried over two wires and a switch,
 * parsed, ICRC-checked and placed into the target memory region. Prints simulated packets
 * and simulated payload bytes per wall-clock second. Target: >= 2 GB/s of payload. */
#include <glib.h>
#include <stdio.h>
#include <string.h>

#include "sim/fabric/icrc.h"
#include "sim/rdma/testbed.h"
#include "tools/bench.h"
#include "tools/cli.h"

typedef struct fabric_bench {
	uint64_t to_post;    /* writes still to post */
	uint64_t completed;
	uint64_t errors;
	uint32_t msg;
	uint32_t slots;      /* distinct target offsets, so writes land in different places */
	uint64_t next;
} fabric_bench;

static void post_one(testbed_side *a, fabric_bench *b)
{
	uint32_t slot = (uint32_t)(b->next++ % b->slots);
	if (testbed_post_write(a, b->next, 0, b->msg, (uint64_t)slot * b->msg, SMCR_SEND_SIGNALED) == 0)
		b->to_post--;
	else
		b->errors++;
}

static void on_wc(testbed *tb, testbed_side *side, const smcr_wc *wc)
{
	fabric_bench *b = tb->p.user;
	side->n_wcs = 0; /* the testbed's record is not needed here */
	if (side != &tb->a)
		return;
	if (wc->status != SMCR_WC_SUCCESS) {
		b->errors++;
		return;
	}
	b->completed++;
	if (b->to_post)
		post_one(side, b);
}

int bench_fabric(int argc, char **argv)
{
	gint64 mtu = 4096, msg = 65536, total_mib = 4096, outstanding = 16, seed = 1, repeat = 3, gbps = 100;
	gchar *version = NULL;
	GOptionEntry entries[] = {
		{ "mtu", 'm', 0, G_OPTION_ARG_INT64, &mtu, "IB path MTU: 256, 512, 1024, 2048 or 4096 (4096)", "BYTES" },
		{ "msg", 0, 0, G_OPTION_ARG_INT64, &msg, "bytes per RDMA WRITE (65536)", "BYTES" },
		{ "total", 't', 0, G_OPTION_ARG_INT64, &total_mib, "MiB written per run (4096)", "MIB" },
		{ "outstanding", 'o', 0, G_OPTION_ARG_INT64, &outstanding, "writes in flight (16)", "N" },
		{ "roce", 0, 0, G_OPTION_ARG_STRING, &version, "v1 or v2 (v2)", "VER" },
		{ "gbps", 0, 0, G_OPTION_ARG_INT64, &gbps, "simulated link speed in Gb/s (100)", "N" },
		{ "seed", 's', 0, G_OPTION_ARG_INT64, &seed, "random seed (1)", "N" },
		{ "repeat", 'r', 0, G_OPTION_ARG_INT64, &repeat, "runs; the best is reported (3)", "N" },
		{ NULL },
	};
	cli_options opts = { .params = "- simulated RoCE fabric throughput", .entries = entries };
	if (cli_parse_options(&opts, &argc, &argv))
		return 2;
	int rc = 2;
	roce_version ver = ROCE_V2;
	smcr_mtu pm = SMCR_MTU_256;
	while (pm <= SMCR_MTU_4096 && smcr_mtu_bytes(pm) != (uint32_t)mtu)
		pm++;
	if (argc > 1) {
		fprintf(stderr, "%s: unexpected argument '%s'\n", argv[0], argv[1]);
		goto out;
	}
	if (version && !strcmp(version, "v1"))
		ver = ROCE_V1;
	else if (version && strcmp(version, "v2")) {
		fprintf(stderr, "%s: --roce must be v1 or v2\n", argv[0]);
		goto out;
	}
	if (pm > SMCR_MTU_4096 || msg <= 0 || msg > (1 << 24) || total_mib <= 0 || outstanding <= 0 ||
	    outstanding > 1024 || repeat <= 0 || gbps <= 0) {
		fprintf(stderr, "%s: need a valid --mtu, 0 < msg <= 16 MiB, total > 0, 0 < outstanding <= 1024, "
		                "repeat > 0, gbps > 0\n", argv[0]);
		goto out;
	}

	uint64_t writes = ((uint64_t)total_mib << 20) / (uint64_t)msg;
	if (writes == 0)
		writes = 1;
	double best = 0, best_pps = 0, sim_gbps = 0;
	uint64_t fp = 0, pkts = 0, payload = 0, acks = 0, events = 0, frames_alloc = 0;
	for (gint64 r = 0; r < repeat; r++) {
		testbed_params p;
		testbed_params_default(&p);
		fabric_bench b = { .to_post = writes, .msg = (uint32_t)msg, .slots = 8 };
		p.seed = (uint64_t)seed;
		p.version = ver;
		p.eth_mtu = 9000;
		p.path_mtu = pm;
		p.wire.bandwidth_bps = (uint64_t)gbps * 1000000000ULL;
		p.max_send_wr = (uint32_t)outstanding;
		p.mr_size = (size_t)b.slots * (size_t)msg;
		p.on_wc = on_wc;
		p.user = &b;
		testbed *tb = testbed_new(&p);
		if (!tb) {
			fprintf(stderr, "%s: could not build the testbed\n", argv[0]);
			rc = 1;
			goto out;
		}
		for (size_t i = 0; i < p.mr_size; i++)
			tb->a.mem[i] = (uint8_t)(i * 131u + 7u);
		double t0 = bench_wall_seconds();
		for (gint64 i = 0; i < outstanding && b.to_post; i++)
			post_one(&tb->a, &b);
		testbed_run(tb, SIM_TIME_NEVER);
		double dt = bench_wall_seconds() - t0;
		const rnic_qp_stats *qa = rnic_qp_stats_get(tb->a.qp), *qb = rnic_qp_stats_get(tb->b.qp);
		if (b.errors || b.completed != writes || qb->rx_payload_bytes != writes * (uint64_t)msg ||
		    memcmp(tb->a.mem, tb->b.mem, (size_t)msg) != 0) {
			fprintf(stderr, "%s: transfer failed (%" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT
			                " writes, %" G_GUINT64_FORMAT " errors)\n", argv[0], b.completed, writes, b.errors);
			testbed_free(tb);
			rc = 1;
			goto out;
		}
		pkts = qa->tx_packets + qb->tx_acks;
		acks = qb->tx_acks;
		payload = qb->rx_payload_bytes;
		double rate = (double)payload / dt;
		if (rate > best) {
			best = rate;
			best_pps = (double)pkts / dt;
		}
		sim_gbps = (double)payload * 8.0 / (double)sim_now(tb->eng);
		events = sim_engine_events_run(tb->eng);
		frames_alloc = sim_frame_pool_allocated(sim_fabric_frames(tb->fab));
		if (r == 0) {
			fp = sim_engine_fingerprint(tb->eng);
		} else if (fp != sim_engine_fingerprint(tb->eng)) {
			fprintf(stderr, "%s: fingerprint differs between runs (determinism bug)\n", argv[0]);
			testbed_free(tb);
			rc = 1;
			goto out;
		}
		testbed_free(tb);
	}
	printf("bench fabric: RoCE %s, path MTU %" G_GINT64_FORMAT ", %" G_GINT64_FORMAT "-byte RDMA WRITEs x %" G_GUINT64_FORMAT
	       ", %" G_GINT64_FORMAT " in flight, %" G_GINT64_FORMAT " Gb/s links, seed %" G_GINT64_FORMAT ", ICRC %s\n",
	       ver == ROCE_V1 ? "v1" : "v2", mtu, msg, writes, outstanding, gbps, seed, icrc_impl_name());
	printf("  simulated packets/s (best of %" G_GINT64_FORMAT "): %.2f M (%" G_GUINT64_FORMAT " packets, %" G_GUINT64_FORMAT " of them ACKs)\n",
	       repeat, best_pps / 1e6, pkts, acks);
	printf("  simulated payload/s:          %.2f GB/s (%" G_GUINT64_FORMAT " bytes)\n", best / 1e9, payload);
	printf("  simulated goodput:            %.1f Gb/s of virtual time\n", sim_gbps);
	printf("  events:                       %" G_GUINT64_FORMAT ", frame buffers: %" G_GUINT64_FORMAT "\n", events, frames_alloc);
	printf("  peak RSS (process):           %.1f MiB\n", (double)bench_peak_rss() / (1024.0 * 1024.0));
	printf("  fingerprint:                  %016" G_GINT64_MODIFIER "x\n", fp);
	printf("  target: >= 2 GB/s of simulated payload per wall second\n");
	rc = 0;
out:
	g_free(version);
	return rc;
}
