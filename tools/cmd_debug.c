/* `smcr-sim debug TOOL …`: small developer tools, kept in the binary so that tests and
 * people use the same code.
 *   fabric-pcap [--roce v1|v2|both] OUT.pcap
 *       Run a short RoCE exchange between two simulated adapters and write every frame
 *       adapter A sends or receives to OUT.pcap (sim/testbed/testbed_capture.h), so that
 *       tshark can judge the encoding (tests/captures/t_fabric_tshark.sh).
 *   dcqcn-pcap [--frames N] OUT.pcap
 *       Two RoCE v2 WRITE flows with DCQCN through a RED-marking bottleneck
 *       (sim/testbed/testbed_bottleneck.h); the bottleneck's first N frames (default 20000:
 *       ECT(0) and CE-marked data, ACKs, CNPs) go to OUT.pcap (tests/captures/t_dcqcn_tshark.sh).
 *   frames FILE
 *       One line per frame, classified from its bytes alone (tools/debug_frames.c,
 *       sim/replay/frame_classify.h).
 *   memory SCENARIO
 *       What the scenario's connections cost the simulator: heap and resident buffer
 *       pages, per connection open at the end (tools/debug_memory.c). */
#include <glib.h>
#include <stdio.h>
#include <string.h>

#include "sim/testbed/testbed_bottleneck.h"
#include "sim/testbed/testbed_capture.h"
#include "tools/cli.h"

static int fabric_pcap(int argc, char **argv)
{
	gchar *roce = NULL;
	GOptionEntry entries[] = {
		{ "roce", 0, 0, G_OPTION_ARG_STRING, &roce, "v1, v2 or both (both)", "VER" },
		{ NULL },
	};
	cli_options opts = { .params = "OUT.pcap - capture a short simulated RoCE exchange", .entries = entries };
	if (cli_parse_options(&opts, &argc, &argv))
		return 2;
	int rc = 2;
	bool v1 = !roce || !strcmp(roce, "v1") || !strcmp(roce, "both");
	bool v2 = !roce || !strcmp(roce, "v2") || !strcmp(roce, "both");
	if (!v1 && !v2) {
		fprintf(stderr, "%s: --roce must be v1, v2 or both\n", argv[0]);
		goto out;
	}
	if (argc != 2) {
		fprintf(stderr, "%s: need exactly one output file\n", argv[0]);
		goto out;
	}
	char msg[256];
	testbed_capture_result r;
	if (testbed_capture_write(argv[1], v1, v2, &r, msg, sizeof(msg))) {
		fprintf(stderr, "%s: %s\n", argv[0], msg);
		goto out;
	}
	rc = 0;
	if (r.failed) {
		fprintf(stderr, "%s: the simulated exchange failed\n", argv[0]);
		rc = 1;
	}
	printf("wrote %s: %" G_GUINT64_FORMAT " frames\n", argv[1], r.frames);
out:
	g_free(roce);
	return rc;
}

static int dcqcn_pcap(int argc, char **argv)
{
	gint frames = 20000;
	GOptionEntry entries[] = {
		{ "frames", 0, 0, G_OPTION_ARG_INT, &frames, "frames to capture (20000)", "N" },
		{ NULL },
	};
	cli_options opts = { .params = "OUT.pcap - capture a DCQCN bottleneck", .entries = entries };
	if (cli_parse_options(&opts, &argc, &argv))
		return 2;
	if (argc != 2 || frames <= 0) {
		fprintf(stderr, "%s: need one output file and --frames above 0\n", argv[0]);
		return 2;
	}
	static bottleneck_params p;
	static bottleneck_result r;
	bottleneck_params_default(&p);
	p.duration = 10 * SIM_MS;
	p.pcap = argv[1];
	p.pcap_frames = (uint64_t)frames;
	char msg[256];
	if (bottleneck_run(&p, &r, msg, sizeof msg)) {
		fprintf(stderr, "%s: %s\n", argv[0], msg);
		return 2;
	}
	printf("wrote %s: %" G_GUINT64_FORMAT " frames; %" G_GUINT64_FORMAT " marked CE, %" G_GUINT64_FORMAT " CNPs\n",
	       argv[1], r.frames, r.marked, r.cnp_tx);
	return r.failed ? 1 : 0;
}

static const cli_command tools[] = {
	{ "fabric-pcap", "capture a short RoCE v1/v2 exchange between two simulated adapters", fabric_pcap },
	{ "dcqcn-pcap", "capture a DCQCN bottleneck: ECN-marked RoCE v2 frames and CNPs", dcqcn_pcap },
	{ "frames", "one line per frame of a capture, classified from its bytes (TCP/CLC, RoCE opcode, QP, message type)",
	  debug_frames },
	{ "memory", "run a scenario silently; heap and resident buffer memory per connection open at the end",
	  debug_memory },
};

static void list(FILE *out)
{
	fprintf(out, "Usage: smcr-sim debug TOOL [OPTION…]\n\nDeveloper tools:\n");
	for (size_t i = 0; i < G_N_ELEMENTS(tools); i++)
		fprintf(out, "  %-12s %s\n", tools[i].name, tools[i].summary);
}

int cmd_debug(int argc, char **argv)
{
	if (argc < 2) {
		list(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		list(stdout);
		return 0;
	}
	int rc = cli_run_command(tools, G_N_ELEMENTS(tools), "smcr-sim debug", argc, argv);
	if (rc >= 0)
		return rc;
	fprintf(stderr, "smcr-sim debug: unknown tool '%s'\n", argv[1]);
	list(stderr);
	return 2;
}
