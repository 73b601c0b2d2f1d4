/* `smcr-sim debug TOOL …`: small developer tools, kept in the binary so that tests and
 * people use the same code.
 *   fabric-pcap [--roce v1|v2|both] OUT.pcap
 *       Run a short RoCE exchange between two simulated adapters (two 44-byte SENDs
 *       shaped like SMC-R CDC messages, RDMA WRITEs of 5000 and 61 bytes, and the ACKs)
 *       and write every frame adapter A sends or receives to OUT.pcap, so that tshark can
 *       judge the encoding (tests/t_fabric_tshark.sh).
 *   frames FILE
 *       One line per frame, classified from its bytes alone (tools/debug_frames.c).
 *   memory SCENARIO
 *       What the scenario's connections cost the simulator: heap and resident buffer
 *       pages, per connection open at the end (tools/debug_memory.c). */
#include <glib.h>
#include <stdio.h>
#include <string.h>

#include "sim/fabric/pcap_writer.h"
#include "sim/rdma/testbed.h"
#include "tools/cli.h"

typedef struct capture {
	sim_pcap_writer *w;
	sim_time offset; /* runs follow each other in one file */
} capture;

static void capture_tap(void *ctx, const sim_plug *plug, sim_tap_dir dir, sim_time at, const sim_frame *f)
{
	(void)plug;
	(void)dir;
	capture *c = ctx;
	sim_pcap_write(c->w, c->offset + at, f->data, f->len);
}

static void cdc_like(uint8_t *p, uint16_t seq, uint32_t token, uint32_t prod)
{
	memset(p, 0, 44);
	p[0] = 0xFE; /* CDC message type */
	p[1] = 0x2C; /* length 44 */
	p[2] = (uint8_t)(seq >> 8);
	p[3] = (uint8_t)seq;
	p[4] = (uint8_t)(token >> 24);
	p[5] = (uint8_t)(token >> 16);
	p[6] = (uint8_t)(token >> 8);
	p[7] = (uint8_t)token;
	p[12] = (uint8_t)(prod >> 24);
	p[13] = (uint8_t)(prod >> 16);
	p[14] = (uint8_t)(prod >> 8);
	p[15] = (uint8_t)prod;
}

static int one_run(roce_version v, capture *c)
{
	testbed_params p;
	testbed_params_default(&p);
	p.version = v;
	testbed *tb = testbed_new(&p);
	if (!tb)
		return -1;
	sim_plug_set_tap(&rnic_port_endpoint(tb->a.nic, 1)->plug, capture_tap, c);
	testbed_side *a = &tb->a, *b = &tb->b;
	for (uint32_t i = 0; i < 5061; i++)
		a->mem[4096 + i] = (uint8_t)('a' + i % 26);
	cdc_like(a->mem, 1, 0x101, 5061);
	cdc_like(b->mem, 1, 0x201, 0);
	int rc = testbed_post_recv(b, 1, 65536, 44) | testbed_post_recv(a, 1, 65536, 44) |
	         testbed_post_write(a, 10, 4096, 5000, 0, SMCR_SEND_SIGNALED) |
	         testbed_post_write(a, 11, 4096 + 5000, 61, 8192, SMCR_SEND_SIGNALED) |
	         testbed_post_send(a, 12, 0, 44, SMCR_SEND_SIGNALED | SMCR_SEND_SOLICITED) |
	         testbed_post_send(b, 13, 0, 44, SMCR_SEND_SIGNALED | SMCR_SEND_SOLICITED);
	testbed_run(tb, SIM_TIME_NEVER);
	size_t ok = 0;
	for (size_t i = 0; i < a->n_wcs; i++)
		ok += a->wcs[i].status == SMCR_WC_SUCCESS;
	for (size_t i = 0; i < b->n_wcs; i++)
		ok += b->wcs[i].status == SMCR_WC_SUCCESS;
	c->offset += sim_now(tb->eng) + SIM_US;
	testbed_free(tb);
	return rc == 0 && ok == 6 ? 0 : -1;
}

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
	capture c = { .w = sim_pcap_open(argv[1], msg, sizeof(msg)) };
	if (!c.w) {
		fprintf(stderr, "%s: %s\n", argv[0], msg);
		goto out;
	}
	rc = 0;
	if ((v1 && one_run(ROCE_V1, &c)) || (v2 && one_run(ROCE_V2, &c))) {
		fprintf(stderr, "%s: the simulated exchange failed\n", argv[0]);
		rc = 1;
	}
	printf("wrote %s: %" G_GUINT64_FORMAT " frames\n", argv[1], sim_pcap_frames(c.w));
	sim_pcap_close(c.w);
out:
	g_free(roce);
	return rc;
}

static const cli_command tools[] = {
	{ "fabric-pcap", "capture a short RoCE v1/v2 exchange between two simulated adapters", fabric_pcap },
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
