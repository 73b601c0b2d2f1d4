/* Attribute defaults of scenario files, per personality: the one table the parser takes
 * defaults from and `smcr-sim run --defaults` prints.
 *
 * Where a value imitates a real system, the comment says where it comes from:
 *  [zos-gc]  z/OS Communications Server IP Configuration Reference, GLOBALCONFIG statement,
 *            SMCR options: PFID pfid PORTNUM 1, MTU 1024, FIXEDMEMORY 256 (MB),
 *            TCPKEEPMININTERVAL 300.
 *  [zos-tc]  same, TCPCONFIG statement: INTERVAL 120 (minutes, default keepalive interval),
 *            TCPRCVBUFRSIZE 65536, TCPSENDBFRSIZE 65536.
 *  [lx-smc]  Linux Documentation/networking/smc-sysctl.rst and net/smc/smc_sysctl.c:
 *            wmem = rmem = 64 KiB, smcr_testlink_time 30 s, smcr_max_links_per_lgr 2
 *            (1..2), smcr_max_conns_per_lgr 255 (16..255).
 *  [lx-tcp]  Linux net.ipv4.tcp_keepalive_time 7200 s.
 *  [digest]  the team's protocol digest (RMBE sizes 16 KiB..512 MiB: net/smc smc_core.c; IB MTU enum: rdma-core enum ibv_mtu).
 * Values marked `derived` are computed per item and described instead of spelled. */
#include <stdio.h>
#include <string.h>

#include "sim/scenario/scn_int.h"

const scn_default scn_defaults[] = {
	/* run */
	{ "run", "seed", { "1", "1" }, "the command line's --seed overrides it", SCN_DEF_VALUE },
	{ "run", "end", { "1h", "1h" }, "without `end` the run stops when idle, at the latest then", SCN_DEF_INFO },

	/* fabric */
	{ "switch", "vlans", { "all", "all" }, "VLANs the switch carries", SCN_DEF_VALUE },
	/* congestion (docs/congestion.md): off unless buffer= is given */
	{ "switch", "buffer", { "0", "0" }, "shared buffer bytes, 0 = none: frames queue on the wires (0..4G)", SCN_DEF_VALUE },
	{ "switch", "alpha", { "1", "1" }, "dynamic threshold: a queue may use alpha x free buffer ((0, 1])", SCN_DEF_VALUE },
	{ "switch", "pfc", { "00", "00" }, "PFC class-enable vector of lossless priorities (hex 00..ff; 08 = priority 3)", SCN_DEF_VALUE },
	{ "switch", "xoff", { "0", "0" }, "ingress XOFF per port and priority, 0 = alpha x free buffer", SCN_DEF_VALUE },
	{ "switch", "xon", { "2K", "2K" }, "ingress XON per port and priority (below xoff)", SCN_DEF_VALUE },
	{ "switch", "headroom", { "0", "0" }, "reserved per port and lossless priority (0..1G)", SCN_DEF_VALUE },
	{ "switch", "quanta", { "65535", "65535" }, "pause quanta of an XOFF, 512 bit times each (1..65535)", SCN_DEF_VALUE },
	{ "switch", "ecn", { "no", "no" }, "RED marking of ECT frames at egress", SCN_DEF_VALUE },
	/* DCQCN paper (Zhu et al., SIGCOMM 2015), 40 Gb/s: Kmin 5 KB, Kmax 200 KB, Pmax 1 % */
	{ "switch", "kmin", { "5K", "5K" }, "no marks at or below this queue", SCN_DEF_VALUE },
	{ "switch", "kmax", { "200K", "200K" }, "every ECT frame marked above (kmin < kmax)", SCN_DEF_VALUE },
	{ "switch", "pmax", { "1%", "1%" }, "marking probability reached at kmax", SCN_DEF_VALUE },
	{ "switch", "trust", { "pcp", "pcp" }, "classify by 802.1Q PCP, or by DSCP (priority = DSCP >> 3)", SCN_DEF_VALUE },
	{ "wire", "latency", { "1us", "1us" }, "one-way propagation delay", SCN_DEF_VALUE },
	{ "wire", "bandwidth", { "25Gbps", "25Gbps" }, "serialisation rate", SCN_DEF_VALUE },
	{ "wire", "mtu", { "9000", "9000" }, "largest Ethernet payload carried", SCN_DEF_VALUE },
	{ "wire", "loss", { "0", "0" }, "", SCN_DEF_VALUE },
	{ "wire", "dup", { "0", "0" }, "", SCN_DEF_VALUE },
	{ "wire", "reorder", { "0", "0" }, "", SCN_DEF_VALUE },
	{ "wire", "corrupt", { "0", "0" }, "", SCN_DEF_VALUE },
	{ "wire", "vlans", { "all", "all" }, "VLANs the trunk carries", SCN_DEF_VALUE },

	/* adapters */
	{ "adapter", "ports", { "1", "1" }, "", SCN_DEF_VALUE },
	{ "adapter", "mtu", { "4096", "4096" }, "largest RoCE MTU of the ports (IB enum max) [digest]", SCN_DEF_VALUE },
	{ "adapter", "roce", { "both", "both" }, "RoCE v1 (SMC-Rv1) and v2 (SMC-Rv2)", SCN_DEF_VALUE },
	{ "adapter", "mac", { "02:01:PF:ID:00:01", "02:01:PF:ID:00:01" }, "PF:ID = the PFID's two bytes", SCN_DEF_DERIVED },
	{ "adapter", "mac2", { "02:01:PF:ID:00:02", "02:01:PF:ID:00:02" }, "port 2", SCN_DEF_DERIVED },
	{ "adapter", "pnetid", { "", "" }, "none: ports match interfaces by L2 segment", SCN_DEF_UNSET },
	{ "adapter", "pnetid2", { "", "" }, "port 2", SCN_DEF_UNSET },
	{ "adapter", "latency", { "1us", "1us" }, "access wire of each port", SCN_DEF_VALUE },
	{ "adapter", "bandwidth", { "25Gbps", "25Gbps" }, "", SCN_DEF_VALUE },
	{ "adapter", "loss", { "0", "0" }, "", SCN_DEF_VALUE },
	{ "adapter", "dup", { "0", "0" }, "", SCN_DEF_VALUE },
	{ "adapter", "reorder", { "0", "0" }, "", SCN_DEF_VALUE },
	{ "adapter", "corrupt", { "0", "0" }, "", SCN_DEF_VALUE },
	/* congestion: off unless asked for. DCQCN values of Zhu et al., SIGCOMM 2015 [dcqcn];
	 * CNP priority and DSCP as ConnectX firmware sets them [cx] */
	{ "adapter", "dcqcn", { "off", "off" }, "ECT(0) on RoCE v2, CNPs, DCQCN rate limiter", SCN_DEF_VALUE },
	{ "adapter", "prio", { "", "" }, "802.1p PCP of RoCE frames (0..7): no tag of its own", SCN_DEF_UNSET },
	{ "adapter", "dscp", { "", "" }, "DSCP of RoCE v2 frames (0..63): TOS 0", SCN_DEF_UNSET },
	{ "adapter", "cnpprio", { "6", "6" }, "PCP of CNPs (with prio=) [cx]", SCN_DEF_VALUE },
	{ "adapter", "cnpdscp", { "48", "48" }, "DSCP of CNPs [cx]", SCN_DEF_VALUE },
	{ "adapter", "cnpinterval", { "50us", "50us" }, "at most one CNP per QP this often (N) [dcqcn]", SCN_DEF_VALUE },
	{ "adapter", "txwindow", { "10us", "10us" }, "wire time queued on the access wire (PFC cannot recall it); 1us on a lossless priority", SCN_DEF_VALUE },
	{ "adapter", "rxstall", { "", "" }, "time its receive side stops draining and sends PFC (0..1h): never", SCN_DEF_UNSET },
	{ "adapter", "rxstallfor", { "1ms", "1ms" }, "how long the receive stall lasts (1us..10s)", SCN_DEF_VALUE },
	{ "adapter", "dcqcn_g", { "1/256", "1/256" }, "alpha gain g (> 0) [dcqcn]", SCN_DEF_VALUE },
	{ "adapter", "alphatimer", { "55us", "55us" }, "alpha update timer K (1us..100ms) [dcqcn]", SCN_DEF_VALUE },
	{ "adapter", "ratetimer", { "55us", "55us" }, "rate increase timer T (1us..100ms) [dcqcn]", SCN_DEF_VALUE },
	{ "adapter", "bytecounter", { "10MB", "10MB" }, "rate increase byte counter B, 0 = none [dcqcn]", SCN_DEF_VALUE },
	{ "adapter", "recovery", { "5", "5" }, "fast recovery steps F (1..64) [dcqcn]", SCN_DEF_VALUE },
	{ "adapter", "rai", { "40Mbps", "40Mbps" }, "additive increase R_AI [dcqcn]", SCN_DEF_VALUE },
	{ "adapter", "rhai", { "400Mbps", "400Mbps" }, "hyper increase R_HAI (10 x R_AI, as QCN and [cx])", SCN_DEF_VALUE },
	{ "adapter", "minrate", { "10Mbps", "10Mbps" }, "floor of the DCQCN rate", SCN_DEF_VALUE },

	/* stacks */
	{ "stack", "personality", { "linux", "linux" }, "", SCN_DEF_VALUE },
	{ "stack", "hostname", { "NAME", "NAME" }, "the stack's name", SCN_DEF_DERIVED },
	{ "stack", "host", { "zos", "linux" }, "the host's cost profile (`host` statement below; docs/hosts.md)", SCN_DEF_VALUE },
	/* scn_kernel.c: the presets and their sources, printed after this table */
	{ "stack", "kernel", { "-", SCN_KERNEL_DEFAULT_TEXT }, "Linux kernel version: its smcr defaults (presets below)", SCN_DEF_VALUE },
	{ "stack", "vmac", { "generated per stack and PFID", "generated per stack and PFID" }, "MAC of the RoCE function (VF) a stack uses: 02:PF:ID:port:VF, one per stack on either personality", SCN_DEF_INFO },
	{ "stack", "os", { "1 (z/OS)", "2 (Linux)" }, "OS type in CLC v2 messages", SCN_DEF_INFO },
	/* Linux writes u16 length_v2 in host order (little-endian on x86); z/OS is big-endian */
	{ "stack", "llcorder", { "big-endian", "little-endian (x86)" }, "SMC-Rv2 LLC lengths and counts", SCN_DEF_INFO },
	{ "stack", "forwarding", { "off", "off" }, "", SCN_DEF_VALUE },
	/* z/OS TCPSENDBFRSIZE/TCPRCVBUFRSIZE 65536 [zos-tc]; Linux: the stack's own defaults
	 * (docs/stack.md), without Linux's receive autotuning */
	{ "tcp", "sndbuf", { "64K", "256K" }, "TCP send buffer of a socket [zos-tc]", SCN_DEF_VALUE },
	{ "tcp", "rcvbuf", { "64K", "128K" }, "TCP receive buffer of a socket (Linux grows its own: give what it grows to) [zos-tc]", SCN_DEF_VALUE },
	{ "interface", "vlan", { "", "" }, "untagged", SCN_DEF_UNSET },
	{ "interface", "mtu", { "1500", "1500" }, "IP MTU", SCN_DEF_VALUE },
	{ "interface", "mac", { "02:00:A:B:C:D", "02:00:A:B:C:D" }, "A.B.C.D = the interface's IPv4 address", SCN_DEF_DERIVED },
	{ "interface", "pnetid", { "", "" }, "none", SCN_DEF_UNSET },
	{ "interface", "latency", { "1us", "1us" }, "access wire", SCN_DEF_VALUE },
	{ "interface", "bandwidth", { "25Gbps", "25Gbps" }, "", SCN_DEF_VALUE },
	{ "interface", "loss", { "0", "0" }, "", SCN_DEF_VALUE },
	{ "interface", "dup", { "0", "0" }, "", SCN_DEF_VALUE },
	{ "interface", "reorder", { "0", "0" }, "", SCN_DEF_VALUE },
	{ "interface", "corrupt", { "0", "0" }, "", SCN_DEF_VALUE },

	/* SMC-R settings. enable=yes although z/OS defaults to NOSMCR: a simulated stack
	 * exists to do SMC-R; write `smcr enable=no` for a stack without it. */
	{ "smcr", "enable", { "yes", "yes" }, "", SCN_DEF_VALUE },
	/* z/OS: MTU 1024 [zos-gc]. Linux: the port's active MTU, 1024 under a 1500-byte netdev */
	{ "smcr", "mtu", { "1024", "1024" }, "RoCE MTU for activations without mtu= [zos-gc]", SCN_DEF_VALUE },
	/* z/OS FIXEDMEMORY 256 (MB) [zos-gc]; Linux has no such cap */
	{ "smcr", "fixedmemory", { "256M", "0" }, "buffer storage cap, 0 = none [zos-gc]", SCN_DEF_VALUE },
	/* Linux rmem/wmem 64 KiB [lx-smc]; z/OS sizes RMBs from TCPRCVBUFRSIZE 65536 [zos-tc] */
	{ "smcr", "rmbsize", { "64K", "64K" }, "receive buffer per connection [lx-smc][zos-tc]", SCN_DEF_VALUE },
	{ "smcr", "sndbufsize", { "64K", "64K" }, "send buffer per connection [lx-smc][zos-tc]", SCN_DEF_VALUE },
	{ "smcr", "v2", { "yes", "yes" }, "propose SMC-Rv2 (needs a common UEID)", SCN_DEF_VALUE },
	{ "smcr", "ueid", { "", "" }, "none", SCN_DEF_UNSET },
	/* z/OS TCPCONFIG INTERVAL 120 minutes [zos-tc]; Linux tcp_keepalive_time 7200 s [lx-tcp] */
	{ "smcr", "keepalive", { "2h", "2h" }, "TCP keepalive idle time [zos-tc][lx-tcp]", SCN_DEF_VALUE },
	/* Linux smcr_testlink_time 30 s [lx-smc]; z/OS has no documented knob: same timer assumed */
	{ "smcr", "testlink", { "30s", "30s" }, "LLC TEST_LINK idle time [lx-smc]", SCN_DEF_VALUE },
	{ "smcr", "maxlinks", { "2", "2" }, "links per link group (v2.1) [lx-smc]", SCN_DEF_VALUE },
	{ "smcr", "maxconns", { "255", "255" }, "connections per link group (v2.1) [lx-smc]", SCN_DEF_VALUE },
	/* Linux 6.6 on proposes SMC-Rv2.1 (SMC_RELEASE 1); 6.1 proposes release 0 */
	{ "smcr", "release", { "1", "1" }, "SMC-Rv2 release proposed (0: v2.0, 1: v2.1) [lx-smc][kernel]", SCN_DEF_VALUE },
	/* SMC_AUTOCORKING_DEFAULT_SIZE 0x10000 (net/smc/smc.h); z/OS: the same assumed */
	{ "smcr", "autocork", { "64K", "64K" }, "net.smc.autocorking_size: hold at most min(sndbuf/2, this), 0 = off [kernel]", SCN_DEF_VALUE },
	{ "smcr", "limiths", { "no", "no" }, "net.smc.limit_smc_hs: listeners limit SMC handshakes [kernel]", SCN_DEF_VALUE },
	/* smc_hs_wq: per-CPU workqueue, max_active WQ_DFL_ACTIVE (one CPU's pool assumed) */
	{ "smcr", "hsqueue", { "256", "256" }, "handshakes run at once before the queue counts as congested (WQ_DFL_ACTIVE)", SCN_DEF_VALUE },
	{ "smcr pfid", "port", { "1", "1" }, "PORTNUM 1 [zos-gc]", SCN_DEF_VALUE },
	{ "smcr pfid", "mtu", { "smcr mtu", "smcr mtu" }, "the stack's `smcr mtu=`", SCN_DEF_DERIVED },

	/* applications */
	{ "app", "smc", { "yes", "yes" }, "an SMC socket (no: plain TCP)", SCN_DEF_VALUE },
	{ "app", "start", { "0", "0" }, "", SCN_DEF_VALUE },
	{ "app", "conns", { "1", "1" }, "connect: connections opened", SCN_DEF_VALUE },
	{ "app", "interval", { "0", "0" }, "connect: between opening connections", SCN_DEF_VALUE },
	{ "app", "close", { "after", "after" }, "connect: close when the exchange is done", SCN_DEF_VALUE },
	{ "app", "cork", { "no", "no" }, "TCP_CORK: each message held until written whole, then uncorked", SCN_DEF_VALUE },
	{ "app", "more", { "no", "no" }, "MSG_MORE on every piece of a message but its last", SCN_DEF_VALUE },
	{ "app", "nodelay", { "yes", "yes" }, "TCP_NODELAY", SCN_DEF_VALUE },
	{ "app", "limiths", { "", "" }, "listen: SMC_LIMIT_HS socket option; the stack's limiths", SCN_DEF_UNSET },
	{ "app bulk", "bytes", { "1M", "1M" }, "", SCN_DEF_VALUE },
	{ "app echo", "bytes", { "64K", "64K" }, "", SCN_DEF_VALUE },
	{ "app bulk", "write", { "64K", "64K" }, "bytes per send call, and per receive call at the sink (qperf msg_size)", SCN_DEF_VALUE },
	{ "app echo", "write", { "64K", "64K" }, "bytes per send and receive call", SCN_DEF_VALUE },
	{ "app rr", "request", { "64", "64" }, "", SCN_DEF_VALUE },
	{ "app rr", "response", { "1K", "1K" }, "", SCN_DEF_VALUE },
	{ "app rr", "count", { "100", "100" }, "requests per connection", SCN_DEF_VALUE },
	{ "app rr", "think", { "0", "0" }, "pause after each transaction", SCN_DEF_VALUE },
	{ "app crr", "request", { "64", "64" }, "", SCN_DEF_VALUE },
	{ "app crr", "response", { "1K", "1K" }, "", SCN_DEF_VALUE },
	{ "app crr", "count", { "100", "100" }, "transactions (connections) per client", SCN_DEF_VALUE },
	{ "app crr", "think", { "0", "0" }, "pause after each transaction", SCN_DEF_VALUE },

	/* reports */
	{ "report", "format", { "auto", "auto" }, "auto: each stack in its personality's style", SCN_DEF_VALUE },
	{ "report", "style", { "netstat", "smc" }, "what format=auto prints", SCN_DEF_INFO },
};

const size_t scn_n_defaults = sizeof(scn_defaults) / sizeof(scn_defaults[0]);

const scn_default *scn_default_find(const char *scope, const char *key)
{
	for (size_t i = 0; i < scn_n_defaults; i++)
		if (!strcmp(scn_defaults[i].scope, scope) && !strcmp(scn_defaults[i].key, key))
			return &scn_defaults[i];
	return NULL;
}

/* A host profile field's value as the `host` statement writes it. */
static void host_value(const host_profile *p, const host_field *f, char *buf, size_t len)
{
	uint64_t v = host_field_get(p, f);
	switch (f->unit) {
	case HOST_UNIT_NS:
		if (v && v % 1000000 == 0)
			snprintf(buf, len, "%llums", (unsigned long long)(v / 1000000));
		else if (v && v % 1000 == 0)
			snprintf(buf, len, "%lluus", (unsigned long long)(v / 1000));
		else
			snprintf(buf, len, v ? "%lluns" : "%llu", (unsigned long long)v);
		break;
	case HOST_UNIT_PS_BYTE:
		if (!v)
			snprintf(buf, len, "0 (offloaded)");
		else
			snprintf(buf, len, "%lluGbps (%llu ps/B)", (unsigned long long)(8000 / v), (unsigned long long)v);
		break;
	case HOST_UNIT_PCT:
		snprintf(buf, len, "%llu%%", (unsigned long long)v);
		break;
	case HOST_UNIT_COUNT:
	case HOST_UNIT_BYTES:
		snprintf(buf, len, "%llu", (unsigned long long)v);
		break;
	}
}

/* The `host` statement's attributes: the values of the profile each personality's stacks
 * get (docs/hosts.md says where each comes from). */
static void print_host_defaults(FILE *out)
{
	const host_profile *z = host_profile_find("zos"), *l = host_profile_find("linux");
	size_t n;
	const host_field *f = host_profile_fields(&n);
	for (size_t i = 0; i < n; i++) {
		char zv[40], lv[40];
		host_value(z, &f[i], zv, sizeof zv);
		host_value(l, &f[i], lv, sizeof lv);
		fprintf(out, "%-11s %-12s %-30s %-30s %s [hosts]\n", "host", f[i].key, zv, lv, f[i].what);
	}
}

void scn_print_defaults(FILE *out)
{
	fprintf(out, "%-11s %-12s %-30s %-30s %s\n", "STATEMENT", "ATTRIBUTE", "personality=zos", "personality=linux", "NOTE");
	for (size_t i = 0; i < scn_n_defaults; i++) {
		const scn_default *d = &scn_defaults[i];
		const char *zos = d->value[SCN_PERS_ZOS], *lx = d->value[SCN_PERS_LINUX];
		char zbuf[64], lbuf[64];
		if (d->how == SCN_DEF_UNSET) {
			zos = lx = "(none)";
		} else if (d->how == SCN_DEF_DERIVED) {
			snprintf(zbuf, sizeof(zbuf), "<%s>", zos);
			snprintf(lbuf, sizeof(lbuf), "<%s>", lx);
			zos = zbuf;
			lx = lbuf;
		}
		fprintf(out, "%-11s %-12s %-30s %-30s %s%s\n", d->scope, d->key, zos, lx,
		        d->how == SCN_DEF_INFO ? "(not an attribute) " : "", d->note);
	}
	print_host_defaults(out);
	fprintf(out, "\nSources: [zos-gc] z/OS GLOBALCONFIG SMCR (PORTNUM 1, MTU 1024, FIXEDMEMORY 256);\n"
	             "[zos-tc] z/OS TCPCONFIG (INTERVAL 120 min, TCPRCVBUFRSIZE/TCPSENDBFRSIZE 65536);\n"
	             "[lx-smc] Linux net.smc sysctls (rmem/wmem 64 KiB, smcr_testlink_time 30 s,\n"
	             "smcr_max_links_per_lgr 2, smcr_max_conns_per_lgr 255); [lx-tcp] net.ipv4.tcp_keepalive_time 7200 s;\n"
	             "[digest] the team's SMC-R protocol digest (RMBE sizes, IB MTUs); [kernel] the Linux kernel\n"
	             "presets below;\n"
	             "[dcqcn] Zhu et al., Congestion Control for Large-Scale RDMA Deployments, SIGCOMM 2015\n"
	             "(g 1/256, K = T = 55 us, B 10 MB, F 5, R_AI 40 Mb/s, N 50 us); [cx] ConnectX DCQCN defaults\n"
	             "(CNP PCP 6, DSCP 48; R_HAI/R_AI = 10); [hosts] the host profiles, docs/hosts.md (`host=zos`,\n"
	             "`host=linux`; each value's source is there).\n");
	scn_kernel_print_presets(out);
}
