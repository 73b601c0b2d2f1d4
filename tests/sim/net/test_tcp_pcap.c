/* A TCP conversation with the SMC option, captured to pcap with libpcap: the capture
 * tests/captures/t_tcp_smc_option.sh hands to tshark. With SMCR_PCAP_DIR set the files stay
 * there; otherwise they go to a temporary directory and are only read back here. */
#include <criterion/criterion.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/app/app.h"
#include "sim/net/stack.h"
#include "tests/support/net.h"
#include "tests/support/pcap_tap.h"

static void out_path(char *buf, size_t len, const char *name, char *tmpdir)
{
	const char *dir = getenv("SMCR_PCAP_DIR");
	if (!dir) {
		strcpy(tmpdir, "/tmp/smcr-pcap-XXXXXX");
		cr_assert_not_null(mkdtemp(tmpdir));
		dir = tmpdir;
	} else {
		tmpdir[0] = 0;
	}
	snprintf(buf, len, "%s/%s", dir, name);
}

/* a (Linux-like) and b (z/OS-like), both SMC-R enabled; a 3-request exchange and an
 * orderly close, captured on a in both directions. Returns the frames written. */
static unsigned long capture_conversation(const char *path, long corrupt_frame)
{
	test_net n;
	test_net_init(&n, 5, 100 * SIM_US, (sim_ratio){ 0, 1 });
	stack *a = test_net_add_stack(&n, "a", STACK_LINUX, IPV4(192, 168, 10, 1), 24, 0);
	stack *b = test_net_add_stack(&n, "b", STACK_ZOS, IPV4(192, 168, 10, 2), 24, 0);
	stack_smcr(a)->enabled = true;
	stack_smcr(b)->enabled = true;
	pcap_tap *tap = pcap_tap_open(path, n.eng);
	cr_assert_not_null(tap, "cannot write %s", path);
	if (corrupt_frame >= 0)
		pcap_tap_corrupt(tap, (unsigned long)corrupt_frame, 14 + 20 + 16); /* TCP checksum */
	pcap_tap_attach(tap, a->netifs[0], true, true);
	int err;
	app_spec rr = { .kind = APP_RR, .request = 300, .response = 300, .count = 3, .close_after = true };
	app_listener *e = app_serve(b, NULL, 12345, APP_RESPONDER, &rr, 1, &err);
	app_flow *r = app_connect(a, NULL, IPV4(192, 168, 10, 2), 12345, &rr, 1, &err);
	test_net_run(&n, 200 * SIM_S);
	cr_assert(app_end_done(&r->c));
	unsigned long frames = pcap_tap_frames(tap);
	pcap_tap_close(tap);
	app_connect_free(r);
	app_listener_close(e);
	test_net_free(&n);
	return frames;
}

static unsigned long count_frames(const char *path)
{
	char errbuf[PCAP_ERRBUF_SIZE];
	pcap_t *p = pcap_open_offline(path, errbuf);
	cr_assert_not_null(p, "%s", errbuf);
	cr_assert_eq(pcap_datalink(p), DLT_EN10MB);
	struct pcap_pkthdr *h;
	const u_char *d;
	unsigned long n = 0;
	while (pcap_next_ex(p, &h, &d) == 1)
		n++;
	pcap_close(p);
	return n;
}

static void finish(const char *path, char *tmpdir)
{
	if (tmpdir[0]) {
		unlink(path);
		rmdir(tmpdir);
	}
}

Test(tcp_pcap, conversation_with_smc_option_is_written)
{
	char path[512], tmp[64];
	out_path(path, sizeof path, "smc-option.pcap", tmp);
	unsigned long frames = capture_conversation(path, -1);
	cr_assert_geq(frames, 2 + 3 + 6 + 4, "ARP, handshake, 3 exchanges, close");
	cr_assert_eq(count_frames(path), frames);
	finish(path, tmp);
}

Test(tcp_pcap, conversation_with_one_damaged_checksum_is_written)
{
	char path[512], tmp[64];
	out_path(path, sizeof path, "bad-checksum.pcap", tmp);
	unsigned long frames = capture_conversation(path, 4);
	cr_assert_eq(count_frames(path), frames);
	finish(path, tmp);
}
