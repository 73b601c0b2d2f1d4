/* A short RoCE exchange on the testbed, captured (see testbed_capture.h). */
#include "sim/testbed/testbed_capture.h"

#include <string.h>

#include "sim/fabric/pcap_writer.h"
#include "sim/testbed/testbed.h"

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

static size_t successes(const testbed_side *s)
{
	size_t ok = 0;
	for (size_t i = 0; i < s->n_wcs; i++)
		ok += s->wcs[i].status == SMCR_WC_SUCCESS;
	return ok;
}

/* One exchange; 0 when all six work requests completed. */
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
	size_t ok = successes(a) + successes(b);
	c->offset += sim_now(tb->eng) + SIM_US;
	testbed_free(tb);
	return rc == 0 && ok == 6 ? 0 : -1;
}

int testbed_capture_write(const char *path, bool v1, bool v2, testbed_capture_result *r, char *err, size_t errlen)
{
	memset(r, 0, sizeof(*r));
	capture c = { .w = sim_pcap_open(path, err, errlen) };
	if (!c.w)
		return -1;
	r->failed = (v1 && one_run(ROCE_V1, &c)) || (v2 && one_run(ROCE_V2, &c));
	r->frames = sim_pcap_frames(c.w);
	sim_pcap_close(c.w);
	return 0;
}
