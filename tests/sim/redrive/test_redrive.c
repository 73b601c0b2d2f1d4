/* Replay's mode 3 (sim/redrive/redrive.h) on edited captures: the recorded conversation
 * re-driven over IPv6 and between two ends of one address compares as the IPv4 recording
 * does. (The command's runs against our own and real Linux traces:
 * tests/captures/t_replay_redrive.sh.) */
#include <criterion/criterion.h>
#include <glib.h>
#include <string.h>

#include "sim/redrive/redrive.h"
#include "sim/world/world.h"
#include "tests/support/pcap_edit.h"

#define TWO_STACKS "traces/trace-two-stacks.pcapng"

static void teardown(void)
{
	pe_tmp_cleanup();
}

TestSuite(redrive, .fini = teardown);

static void redrive_of(const char *path, redrive_side side, redrive_result *res)
{
	redrive_opts o;
	memset(&o, 0, sizeof(o));
	world_opts_default(&o.world);
	o.side = side;
	char err[512];
	cr_assert_eq(redrive_run(path, &o, res, err, sizeof(err)), 0, "%s", err);
}

/* Re-drive of the same conversation over IPv6, and between two ends of one address: the
 * world has 10.0.0.1 and 10.0.0.2 in their place, and every message compares as in the
 * IPv4 recording. */
Test(redrive, takes_ipv6_and_one_address_captures, .timeout = 120)
{
	pe_capture v6, one;
	pe_load(&v6, TWO_STACKS);
	pe_to_ipv6(&v6);
	pe_load(&one, TWO_STACKS);
	pe_ipv4_readdress(&one, 0xC0A80A01u, 0xC0A80A02u);
	char *p6 = pe_write_pcap(&v6, "v6.pcap", 1), *p1 = pe_write_pcap(&one, "one.pcap", 1);
	for (int side = 0; side < 2; side++) {
		redrive_result base, a, b;
		redrive_of(TWO_STACKS, (redrive_side)side, &base);
		redrive_of(p6, (redrive_side)side, &a);
		redrive_of(p1, (redrive_side)side, &b);
		cr_assert_gt(base.compared, 60);
		cr_assert_str_eq(a.r_rec, side == 0 ? "2001:db8::1" : "2001:db8::2");
		cr_assert_str_eq(b.r_rec, "192.168.10.1");
		const redrive_result *x[2] = { &a, &b };
		for (int k = 0; k < 2; k++) {
			cr_assert_eq(x[k]->compared, base.compared, "%s, side %d: %llu compared, IPv4 %llu", k ? "one address" : "IPv6", side, (unsigned long long)x[k]->compared, (unsigned long long)base.compared);
			cr_assert_eq(x[k]->equal, base.equal);
			cr_assert_eq(x[k]->missing, base.missing);
			cr_assert_eq(x[k]->extra, base.extra);
		}
		redrive_result_free(&base);
		redrive_result_free(&a);
		redrive_result_free(&b);
	}
	g_free(p6);
	g_free(p1);
	pe_free(&v6);
	pe_free(&one);
}
