/* The applicability reader's parts: packet headers from every link type (cut frames, TSO
 * and BIG TCP lengths of 0, IPv6 extension headers, VLAN tags), the set-up's eligibility
 * rules, and a capture without TCP (the fuzzer's first finding: no destination at all). */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <pcap/pcap.h>
#include <string.h>

#include "sim/applic/applic.h"
#include "sim/applic/applic_packet.h"

static size_t ipv4_tcp(uint8_t *f, uint16_t tot, uint32_t seq, uint8_t flags)
{
	static const uint8_t eth[14] = { 2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x08, 0x00 };
	memcpy(f, eth, 14);
	uint8_t *ip = f + 14, *t = ip + 20;
	memset(ip, 0, 40);
	ip[0] = 0x45;
	ip[2] = (uint8_t)(tot >> 8);
	ip[3] = (uint8_t)tot;
	ip[6] = 0x40;
	ip[8] = 64;
	ip[9] = 6;
	ip[12] = 10, ip[13] = 0, ip[14] = 0, ip[15] = 1;
	ip[16] = 10, ip[17] = 0, ip[18] = 0, ip[19] = 2;
	t[0] = 0x9c, t[1] = 0x40; /* 40000 */
	t[2] = 0x13, t[3] = 0x88; /* 5000 */
	t[4] = (uint8_t)(seq >> 24), t[5] = (uint8_t)(seq >> 16), t[6] = (uint8_t)(seq >> 8), t[7] = (uint8_t)seq;
	t[12] = 5 << 4;
	t[13] = flags;
	return 54;
}

Test(applic, headers_alone_give_the_payload_length)
{
	uint8_t f[128];
	ap_packet p;
	char why[96];
	size_t n = ipv4_tcp(f, 40 + 1448, 1000, AP_ACK | AP_PSH);
	/* 96 bytes captured of a 1502-byte frame */
	cr_assert_eq(ap_parse(DLT_EN10MB, f, (uint32_t)n, 1502, &p, why, sizeof(why)), AP_TCP);
	cr_assert_eq(p.payload, 1448);
	cr_assert_eq(p.sport, 40000);
	cr_assert_eq(p.dport, 5000);
	cr_assert_eq(p.seq, 1000);
	/* a TSO segment of 60000 bytes, IPv4 total length 0 (BIG TCP): the frame's length */
	ipv4_tcp(f, 0, 1, AP_ACK);
	cr_assert_eq(ap_parse(DLT_EN10MB, f, (uint32_t)n, 14 + 40 + 60000, &p, why, sizeof(why)), AP_TCP);
	cr_assert_eq(p.payload, 60000);
	/* raw IP: the same without the Ethernet header */
	cr_assert_eq(ap_parse(DLT_RAW, f + 14, 40, 40 + 60000, &p, why, sizeof(why)), AP_TCP);
	cr_assert_eq(p.payload, 60000);
}

Test(applic, cut_and_foreign_frames_say_why)
{
	uint8_t f[128];
	ap_packet p;
	char why[96];
	size_t n = ipv4_tcp(f, 40, 1, AP_SYN);
	cr_assert_eq(ap_parse(DLT_EN10MB, f, 40, 54, &p, why, sizeof(why)), AP_BAD);
	cr_assert_str_eq(why, "TCP header cut");
	cr_assert_eq(ap_parse(DLT_EN10MB, f, 20, 54, &p, why, sizeof(why)), AP_BAD);
	cr_assert_str_eq(why, "IPv4 header cut");
	f[14 + 9] = 17;
	cr_assert_eq(ap_parse(DLT_EN10MB, f, (uint32_t)n, 54, &p, why, sizeof(why)), AP_NOT_TCP);
	cr_assert_str_eq(why, "UDP");
	f[14 + 9] = 6;
	f[14 + 20 + 12] = 15 << 4; /* 60 bytes of TCP header in a 20-byte segment */
	cr_assert_eq(ap_parse(DLT_EN10MB, f, (uint32_t)n, 54, &p, why, sizeof(why)), AP_BAD);
	f[14 + 20 + 12] = 5 << 4;
	f[14 + 6] = 0x20; /* more fragments */
	cr_assert_eq(ap_parse(DLT_EN10MB, f, (uint32_t)n, 54, &p, why, sizeof(why)), AP_NOT_TCP);
	cr_assert_str_eq(why, "IPv4 fragment");
	cr_assert_eq(ap_parse(DLT_LINUX_SLL2, f, 10, 54, &p, why, sizeof(why)), AP_BAD);
}

Test(applic, ipv6_extension_headers_and_vlan_tags)
{
	uint8_t f[160] = { 2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x81, 0x00, 0x00, 0x64, 0x86, 0xDD };
	uint8_t *ip = f + 18, *hop = ip + 40, *t = hop + 8;
	ip[0] = 0x60;
	ip[4] = 0, ip[5] = 8 + 20 + 100; /* a hop-by-hop header, TCP, 100 bytes */
	ip[6] = 0;                     /* next: hop-by-hop */
	ip[8] = 0xfd, ip[23] = 1;
	ip[24] = 0xfd, ip[39] = 2;
	hop[0] = 6; /* next: TCP */
	hop[1] = 0; /* 8 bytes */
	t[12] = 5 << 4;
	t[13] = AP_ACK;
	ap_packet p;
	char why[96];
	uint32_t cap = 18 + 40 + 8 + 20;
	cr_assert_eq(ap_parse(DLT_EN10MB, f, cap, cap + 100, &p, why, sizeof(why)), AP_TCP, "%s", why);
	cr_assert_eq(p.family, 6);
	cr_assert_eq(p.vlan, 100);
	cr_assert_eq(p.payload, 100);
	cr_assert_eq(p.src[15], 1);
	cr_assert_eq(p.dst[15], 2);
	ip[6] = 44; /* a fragment header */
	cr_assert_eq(ap_parse(DLT_EN10MB, f, cap, cap + 100, &p, why, sizeof(why)), AP_NOT_TCP);
}

Test(applic, eligibility_follows_the_setup)
{
	applic_setup s;
	applic_setup_default(&s);
	uint8_t a[16] = { 10, 1, 0, 1 }, b[16] = { 10, 1, 0, 2 }, c[16] = { 10, 2, 0, 1 };
	applic_inelig why;
	cr_assert(applic_setup_eligible(&s, 4, a, b, 0, &why));
	cr_assert_not(applic_setup_eligible(&s, 4, a, c, 0, &why));
	cr_assert_eq(why, APPLIC_INELIG_SUBNET);
	s.def.v2 = true;
	s.def.n_ueids = 1;
	snprintf(s.def.ueids[0], sizeof(s.def.ueids[0]), "APP1");
	cr_assert(applic_setup_eligible(&s, 4, a, c, 0, &why)); /* SMC-Rv2 across subnets */
	cr_assert_not(applic_setup_eligible(&s, 6, a, c, 0, &why)); /* ... not for IPv6 */
	applic_setup_free(&s);
}

/* fuzz/regressions/applic/crash-037b...: a file without a connection sorted no destinations
 * with a NULL array */
Test(applic, a_capture_without_tcp_gives_an_empty_result)
{
	applic_opts o;
	applic_opts_default(&o);
	o.rerun_max = 2;
	applic_result res;
	char err[256];
	cr_assert_eq(applic_run("fuzz/regressions/applic/crash-037b310ac6745686a5d6be27adfeb9a6bfe133c8", &o, &res, err,
	                        sizeof(err)),
	             0, "%s", err);
	cr_assert_eq(res.total.conns, 0);
	cr_assert_eq(res.n_dests, 0);
	FILE *null = fopen("/dev/null", "w");
	applic_print_text(null, &res, "x");
	applic_print_json(null, &res, "x");
	applic_print_svg(null, &res, "x");
	fclose(null);
	applic_result_free(&res);
}

/* --client-host / --server-host: read by the scenario's own parser, said back canonically */
Test(applic, host_choices_read_as_the_scenario_reads_them)
{
	applic_host_choice c;
	char err[512];
	cr_assert_eq(applic_host_parse("zos", "--server-host", &c, err, sizeof(err)), 0, "%s", err);
	cr_assert(c.given);
	cr_assert_str_eq(c.spec, "zos");
	cr_assert_eq(c.profile.cpus, host_profile_find("zos")->cpus);
	cr_assert_eq(applic_host_parse("linux,cpus=8 speed=150,copy=100Gbps,syscall=400ns,tso=0", "--client-host", &c, err,
	                               sizeof(err)),
	             0, "%s", err);
	cr_assert_eq(c.profile.cpus, 8);
	cr_assert_eq(c.profile.speed_pct, 150);
	cr_assert_eq(c.profile.copy_ps, 80); /* 8e12 / 100e9 */
	cr_assert_eq(c.profile.syscall_ns, 400);
	cr_assert_eq(c.profile.tso_max, 0);
	cr_assert_str_eq(c.spec, "linux,cpus=8,speed=150,syscall=400ns,copy=100Gbps,tso=0");
	/* the canonical spelling reads back to the same profile, an odd copy cost included */
	host_profile p = *host_profile_find("linux");
	p.copy_ps = 43;
	p.wakeup_ns = 1234;
	char spec[APPLIC_HOST_SPEC_LEN];
	applic_host_spec(&p, spec, sizeof(spec));
	applic_host_choice back;
	cr_assert_eq(applic_host_parse(spec, "x", &back, err, sizeof(err)), 0, "%s: %s", spec, err);
	cr_assert_eq(memcmp(&back.profile, &p, sizeof(p)), 0, "%s", spec);
	/* what is wrong, said as the scenario says it */
	cr_assert_eq(applic_host_parse("linux,cpus=0", "--client-host", &c, err, sizeof(err)), -1);
	cr_assert_str_eq(err, "--client-host 'linux,cpus=0': cpus=0 is out of range; expected 1..256");
	cr_assert_eq(applic_host_parse("zoss", "--server-host", &c, err, sizeof(err)), -1);
	cr_assert(strstr(err, "bad value 'zoss' for host; expected none, linux or zos"), "%s", err);
	cr_assert_eq(applic_host_parse("linux\nswitch X", "--server-host", &c, err, sizeof(err)), -1);
	cr_assert(strstr(err, "unexpected character"), "%s", err);
	cr_assert_eq(applic_host_parse("none,cpus=2", "--server-host", &c, err, sizeof(err)), -1);
	cr_assert_eq(applic_host_parse("", "--server-host", &c, err, sizeof(err)), -1);
}

/* The re-run's CPU: every host with costs spends some in both runs, by the categories of its
 * path; a connection's share is never invented: the shares of the connections add up to
 * their hosts' time (tests/data/replay/linux-6.1-fallbacks.pcap: two hosts, four
 * connections); a host without costs spends none. */
Test(applic, rerun_cpu_is_the_hosts_and_shared_out_whole)
{
	applic_opts o;
	applic_opts_default(&o);
	o.rerun_max = 20;
	applic_result res;
	char err[256];
	cr_assert_eq(applic_run("tests/data/replay/linux-6.1-fallbacks.pcap", &o, &res, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(res.n_rerun, 4);
	cr_assert_eq(res.n_hosts, 2);
	const applic_rerun_totals *tot[2] = { &res.tcp, &res.smcr };
	for (int k = 0; k < 2; k++) {
		uint64_t hosts = 0, shares = 0, cats = 0;
		for (size_t i = 0; i < res.n_hosts; i++) {
			const applic_host_cpu *h = k ? &res.hosts[i].smcr : &res.hosts[i].tcp;
			cr_assert_gt(h->cpu_ns, 0, "host %zu run %d", i, k);
			cr_assert_str_eq(res.hosts[i].spec, "linux");
			hosts += h->cpu_ns;
		}
		for (size_t i = 0; i < res.n_rerun; i++) {
			const applic_meas *m = k ? &res.rerun[i].smcr : &res.rerun[i].tcp;
			cr_assert_gt(m->cpu_ns, 0, "connection %zu run %d", i, k);
			/* #1 is a SYN answered by a RST: its client has no step of its own to read at */
			cr_assert(i == 0 || (m->cpu_client_ns > 0 && m->cpu_server_ns > 0), "connection %zu run %d", i, k);
			cr_assert_eq(m->cpu_ns, m->cpu_client_ns + m->cpu_server_ns);
			shares += m->cpu_ns;
		}
		for (unsigned c = 0; c < APPLIC_CPU_NCATS; c++)
			cats += tot[k]->cpu_cat_ns[c];
		cr_assert_eq(tot[k]->cpu_ns, hosts);
		cr_assert_eq(shares, hosts, "run %d: shares %" PRIu64 ", hosts %" PRIu64, k, shares, hosts);
		cr_assert_eq(cats, hosts);
		cr_assert_gt(tot[k]->cpu_cat_ns[APPLIC_CPU_TCPIP], 0);
		cr_assert_gt(tot[k]->cpu_cat_ns[APPLIC_CPU_IRQ], 0);
		cr_assert_eq(tot[k]->cpu_per_exchange_ns, tot[k]->cpu_ns / tot[k]->exchanges);
	}
	cr_assert_eq(res.tcp.cpu_cat_ns[APPLIC_CPU_SMCR], 0);  /* nothing on SMC-R over TCP */
	cr_assert_gt(res.smcr.cpu_cat_ns[APPLIC_CPU_SMCR], 0); /* its buffers, work requests, CDC */
	applic_result_free(&res);

	/* clients without costs: their host spends nothing, the server's still does */
	cr_assert_eq(applic_host_parse("none", "--client-host", &o.client_host, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(applic_run("tests/data/replay/linux-6.1-fallbacks.pcap", &o, &res, err, sizeof(err)), 0, "%s", err);
	for (size_t i = 0; i < res.n_hosts; i++) {
		cr_assert_str_eq(res.hosts[i].from, res.hosts[i].server ? "default" : "--client-host");
		if (res.hosts[i].server)
			cr_assert_gt(res.hosts[i].tcp.cpu_ns, 0);
		else
			cr_assert_eq(res.hosts[i].tcp.cpu_ns + res.hosts[i].smcr.cpu_ns, 0);
	}
	applic_result_free(&res);
}
