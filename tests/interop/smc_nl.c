/* smc_nl: configure and inspect the Linux kernel's SMC over generic netlink, for the
 * interoperability test (smc-tools is not packaged for amd64 in Debian).
 *
 *   smc_nl ueid-add EID            add a user EID (SMC-Rv2 needs a common one); blank padded
 *   smc_nl ueid-show
 *   smc_nl pnet-add PNETID ETHDEV IBDEV PORT
 *                                  PNET table entry: 6.1's smc finds the RDMA device of a
 *                                  netdev only this way on rxe (no ib get_netdev)
 *   smc_nl pnet-show
 *   smc_nl lgrs                    SMC-R link groups, one line each
 *   smc_nl links                   SMC-R links, one line each, with their link group's id
 *
 * Families and attributes: include/uapi/linux/smc.h (SMC_PNETID, SMC_GEN_NETLINK).
 * Output lines are key=value so the test compares them with smcr-sim's report:
 *   lgr id=00000100 role=client type=1 vlan=0 conns=4 pnetid=LABNET v2_ver=2 v2_rel=0
 *       v2_os=2 neg_eid=SMC-RXE-LAB peer_host=… v2_direct=1
 *   link lgr=00000100 link_id=1 state=3 conn_cnt=4 ibdev=rxe0 ibport=1 uid=00000101
 *       peer_uid=00000101 gid=0000:…:0a00:0001 peer_gid=…
 * Link group ids and link user ids are the kernel's 4 bytes in wire order (hex). */
#include <errno.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/smc.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

typedef struct nlreq {
	struct nlmsghdr n;
	struct genlmsghdr g;
	uint8_t buf[1024];
} nlreq;

static int nl_fd = -1;
static uint32_t nl_seq = 1;

static int add_attr(nlreq *m, uint16_t type, const void *data, size_t len)
{
	size_t off = NLMSG_ALIGN(m->n.nlmsg_len);
	if (off + NLA_HDRLEN + NLA_ALIGN(len) > sizeof(*m))
		return -1;
	struct nlattr *a = (struct nlattr *)((uint8_t *)m + off);
	a->nla_type = type;
	a->nla_len = (uint16_t)(NLA_HDRLEN + len);
	memcpy((uint8_t *)a + NLA_HDRLEN, data, len);
	m->n.nlmsg_len = (uint32_t)(off + NLA_ALIGN(a->nla_len));
	return 0;
}

static void init_req(nlreq *m, uint16_t family, uint8_t cmd, uint16_t flags)
{
	memset(m, 0, sizeof(*m));
	m->n.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	m->n.nlmsg_type = family;
	m->n.nlmsg_flags = (uint16_t)(NLM_F_REQUEST | flags);
	m->n.nlmsg_seq = nl_seq++;
	m->g.cmd = cmd;
	m->g.version = 1;
}

typedef void (*msg_fn)(const struct genlmsghdr *g, const struct nlattr *attrs, int len);

/* Send a request; hand every reply message to fn. 0 or -errno. */
static int transact(nlreq *m, msg_fn fn)
{
	if (send(nl_fd, m, m->n.nlmsg_len, 0) < 0)
		return -errno;
	static uint8_t buf[65536] __attribute__((aligned(8)));
	for (;;) {
		ssize_t n = recv(nl_fd, buf, sizeof(buf), 0);
		if (n < 0)
			return -errno;
		int len = (int)n;
		for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, len); h = NLMSG_NEXT(h, len)) {
			if (h->nlmsg_type == NLMSG_DONE)
				return 0;
			if (h->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = NLMSG_DATA(h);
				return e->error; /* 0 is the acknowledgement */
			}
			const struct genlmsghdr *g = NLMSG_DATA(h);
			if (fn)
				fn(g, (const struct nlattr *)((const uint8_t *)g + GENL_HDRLEN),
				   (int)(h->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN)));
		}
		if (!(m->n.nlmsg_flags & (NLM_F_DUMP | NLM_F_ACK)))
			return 0;
	}
}

static int family_id(const char *name)
{
	nlreq m;
	init_req(&m, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 0);
	add_attr(&m, CTRL_ATTR_FAMILY_NAME, name, strlen(name) + 1);
	if (send(nl_fd, &m, m.n.nlmsg_len, 0) < 0)
		return -1;
	static uint8_t buf[8192] __attribute__((aligned(8)));
	ssize_t n = recv(nl_fd, buf, sizeof(buf), 0);
	const struct nlmsghdr *h = (const struct nlmsghdr *)buf;
	if (n < (ssize_t)NLMSG_HDRLEN || h->nlmsg_type == NLMSG_ERROR)
		return -1;
	const struct nlattr *a = (const struct nlattr *)((const uint8_t *)NLMSG_DATA(h) + GENL_HDRLEN);
	int len = (int)(h->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN));
	while (len >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN && a->nla_len <= len) {
		if (a->nla_type == CTRL_ATTR_FAMILY_ID) {
			uint16_t id;
			memcpy(&id, (const uint8_t *)a + NLA_HDRLEN, sizeof(id));
			return id;
		}
		len -= NLA_ALIGN(a->nla_len);
		a = (const struct nlattr *)((const uint8_t *)a + NLA_ALIGN(a->nla_len));
	}
	return -1;
}

/* ---- attribute access ---- */

#define MAX_ATTR 32
typedef struct attr_table {
	const struct nlattr *a[MAX_ATTR];
} attr_table;

static void parse_attrs(attr_table *t, const struct nlattr *a, int len)
{
	memset(t, 0, sizeof(*t));
	while (len >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN && a->nla_len <= len) {
		unsigned type = a->nla_type & NLA_TYPE_MASK;
		if (type < MAX_ATTR)
			t->a[type] = a;
		len -= NLA_ALIGN(a->nla_len);
		a = (const struct nlattr *)((const uint8_t *)a + NLA_ALIGN(a->nla_len));
	}
}

static const uint8_t *payload(const struct nlattr *a, size_t *len)
{
	*len = a->nla_len - NLA_HDRLEN;
	return (const uint8_t *)a + NLA_HDRLEN;
}

static void nested(attr_table *t, const struct nlattr *a)
{
	size_t len;
	const uint8_t *p = payload(a, &len);
	parse_attrs(t, (const struct nlattr *)p, (int)len);
}

static unsigned long long get_uint(const attr_table *t, unsigned type)
{
	const struct nlattr *a = type < MAX_ATTR ? t->a[type] : NULL;
	if (!a)
		return 0;
	size_t len;
	const uint8_t *p = payload(a, &len);
	if (len == 1)
		return p[0];
	if (len == 2) {
		uint16_t v;
		memcpy(&v, p, 2);
		return v;
	}
	if (len == 4) {
		uint32_t v;
		memcpy(&v, p, 4);
		return v;
	}
	uint64_t v = 0;
	if (len == 8)
		memcpy(&v, p, 8);
	return v;
}

/* A u32 that holds 4 bytes of wire data (lgr id, link user id): print the bytes. */
static void put_bytes4(char *out, size_t outlen, const attr_table *t, unsigned type)
{
	const struct nlattr *a = type < MAX_ATTR ? t->a[type] : NULL;
	size_t len = 0;
	const uint8_t *p = a ? payload(a, &len) : NULL;
	if (len != 4) {
		snprintf(out, outlen, "none");
		return;
	}
	snprintf(out, outlen, "%02x%02x%02x%02x", p[0], p[1], p[2], p[3]);
}

/* A string attribute with trailing blanks trimmed and blanks inside replaced by '_'. */
static void put_string(char *out, size_t outlen, const attr_table *t, unsigned type)
{
	const struct nlattr *a = type < MAX_ATTR ? t->a[type] : NULL;
	size_t len = 0, o = 0;
	const uint8_t *p = a ? payload(a, &len) : NULL;
	while (len && (p[len - 1] == 0 || p[len - 1] == ' '))
		len--;
	for (size_t i = 0; i < len && o + 1 < outlen; i++)
		out[o++] = p[i] == ' ' ? '_' : (p[i] < 32 || p[i] > 126) ? '?'
		                                                         : (char)p[i];
	out[o] = 0;
	if (!o)
		snprintf(out, outlen, "-");
}

/* Attributes newer than Debian 12's <linux/smc.h> (6.1), numbered as in 6.12's: the v2.1
 * lgr limits (6.6) and the buffers a group and the namespace hold (6.12). A 6.1 kernel
 * sends none of them: they print as 0. */
#define NL_LGR_R_V2_MAX_CONNS 2     /* SMC_NLA_LGR_R_V2_MAX_CONNS */
#define NL_LGR_R_V2_MAX_LINKS 3     /* SMC_NLA_LGR_R_V2_MAX_LINKS */
#define NL_LGR_R_SNDBUF_ALLOC 12    /* SMC_NLA_LGR_R_SNDBUF_ALLOC */
#define NL_LGR_R_RMB_ALLOC 13       /* SMC_NLA_LGR_R_RMB_ALLOC */
#define NL_STATS_T_RX_RMB_USAGE 20  /* SMC_NLA_STATS_T_RX_RMB_USAGE */
#define NL_STATS_T_TX_RMB_USAGE 21  /* SMC_NLA_STATS_T_TX_RMB_USAGE */

/* ---- printers ---- */

static char last_lgr[16] = "none";

static void print_lgr(const struct nlattr *nest)
{
	attr_table t, v2, r2;
	char id[16], pnet[40], eid[40], host[40];
	nested(&t, nest);
	put_bytes4(id, sizeof(id), &t, SMC_NLA_LGR_R_ID);
	put_string(pnet, sizeof(pnet), &t, SMC_NLA_LGR_R_PNETID);
	snprintf(last_lgr, sizeof(last_lgr), "%s", id);
	unsigned long long role = get_uint(&t, SMC_NLA_LGR_R_ROLE);
	printf("lgr id=%s role=%s type=%llu vlan=%llu conns=%llu pnetid=%s", id, role ? "server" : "client",
	       get_uint(&t, SMC_NLA_LGR_R_TYPE), get_uint(&t, SMC_NLA_LGR_R_VLAN_ID),
	       get_uint(&t, SMC_NLA_LGR_R_CONNS_NUM), pnet);
	if (t.a[SMC_NLA_LGR_R_V2_COMMON]) {
		nested(&v2, t.a[SMC_NLA_LGR_R_V2_COMMON]);
		put_string(eid, sizeof(eid), &v2, SMC_NLA_LGR_V2_NEG_EID);
		put_string(host, sizeof(host), &v2, SMC_NLA_LGR_V2_PEER_HOST);
		printf(" v2_ver=%llu v2_rel=%llu v2_os=%llu neg_eid=%s peer_host=%s", get_uint(&v2, SMC_NLA_LGR_V2_VER),
		       get_uint(&v2, SMC_NLA_LGR_V2_REL), get_uint(&v2, SMC_NLA_LGR_V2_OS), eid, host);
	}
	if (t.a[SMC_NLA_LGR_R_V2]) {
		nested(&r2, t.a[SMC_NLA_LGR_R_V2]);
		printf(" v2_direct=%llu max_conns=%llu max_links=%llu", get_uint(&r2, SMC_NLA_LGR_R_V2_DIRECT),
		       get_uint(&r2, NL_LGR_R_V2_MAX_CONNS), get_uint(&r2, NL_LGR_R_V2_MAX_LINKS));
	}
	printf(" sndbuf_alloc=%llu rmb_alloc=%llu\n", get_uint(&t, NL_LGR_R_SNDBUF_ALLOC), get_uint(&t, NL_LGR_R_RMB_ALLOC));
}

static void print_link(const struct nlattr *nest)
{
	attr_table t;
	char uid[16], puid[16], dev[40], gid[48], pgid[48];
	nested(&t, nest);
	put_bytes4(uid, sizeof(uid), &t, SMC_NLA_LINK_UID);
	put_bytes4(puid, sizeof(puid), &t, SMC_NLA_LINK_PEER_UID);
	put_string(dev, sizeof(dev), &t, SMC_NLA_LINK_IB_DEV);
	put_string(gid, sizeof(gid), &t, SMC_NLA_LINK_GID);
	put_string(pgid, sizeof(pgid), &t, SMC_NLA_LINK_PEER_GID);
	printf("link lgr=%s link_id=%llu state=%llu conn_cnt=%llu ibdev=%s ibport=%llu uid=%s peer_uid=%s gid=%s "
	       "peer_gid=%s\n",
	       last_lgr, get_uint(&t, SMC_NLA_LINK_ID), get_uint(&t, SMC_NLA_LINK_STATE),
	       get_uint(&t, SMC_NLA_LINK_CONN_CNT), dev, get_uint(&t, SMC_NLA_LINK_IB_PORT), uid, puid, gid, pgid);
}

static void on_gen_msg(const struct genlmsghdr *g, const struct nlattr *attrs, int len)
{
	(void)g;
	attr_table t;
	parse_attrs(&t, attrs, len);
	if (t.a[SMC_GEN_LGR_SMCR])
		print_lgr(t.a[SMC_GEN_LGR_SMCR]);
	if (t.a[SMC_GEN_LINK_SMCR])
		print_link(t.a[SMC_GEN_LINK_SMCR]);
}

/* smc_stats of SMC-R (SMC_NETLINK_GET_STATS): one line of key=value, as `smcr stats -d`
 * has them */
static void print_hist(const char *name, const attr_table *tech, unsigned type)
{
	attr_table h;
	if (!tech->a[type])
		return;
	nested(&h, tech->a[type]);
	static const char *const b[] = { "8K", "16K", "32K", "64K", "128K", "256K", "512K", "1024K", "G1024K" };
	for (unsigned i = 0; i < 9; i++)
		printf(" %s_%s=%llu", name, b[i], get_uint(&h, SMC_NLA_STATS_PLOAD_8K + i));
}

static void print_rmb(const char *name, const attr_table *tech, unsigned type)
{
	attr_table r;
	if (!tech->a[type])
		return;
	nested(&r, tech->a[type]);
	printf(" %s_size_small_peer=%llu %s_size_small=%llu %s_full_peer=%llu %s_full=%llu %s_reuse=%llu %s_alloc=%llu "
	       "%s_downgrade=%llu",
	       name, get_uint(&r, SMC_NLA_STATS_RMB_SIZE_SM_PEER_CNT), name, get_uint(&r, SMC_NLA_STATS_RMB_SIZE_SM_CNT), name,
	       get_uint(&r, SMC_NLA_STATS_RMB_FULL_PEER_CNT), name, get_uint(&r, SMC_NLA_STATS_RMB_FULL_CNT), name,
	       get_uint(&r, SMC_NLA_STATS_RMB_REUSE_CNT), name, get_uint(&r, SMC_NLA_STATS_RMB_ALLOC_CNT), name,
	       get_uint(&r, SMC_NLA_STATS_RMB_DGRADE_CNT));
}

static void on_stats_msg(const struct genlmsghdr *g, const struct nlattr *attrs, int len)
{
	(void)g;
	attr_table t, s, r;
	parse_attrs(&t, attrs, len);
	if (!t.a[SMC_GEN_STATS])
		return;
	nested(&s, t.a[SMC_GEN_STATS]);
	if (!s.a[SMC_NLA_STATS_SMCR_TECH])
		return;
	nested(&r, s.a[SMC_NLA_STATS_SMCR_TECH]);
	printf("stats clnt_v1_succ=%llu clnt_v2_succ=%llu srv_v1_succ=%llu srv_v2_succ=%llu cork=%llu nodelay=%llu urg=%llu "
	       "rx_bytes=%llu tx_bytes=%llu rx_cnt=%llu tx_cnt=%llu rx_rmb_usage=%llu tx_rmb_usage=%llu",
	       get_uint(&r, SMC_NLA_STATS_T_CLNT_V1_SUCC), get_uint(&r, SMC_NLA_STATS_T_CLNT_V2_SUCC),
	       get_uint(&r, SMC_NLA_STATS_T_SRV_V1_SUCC), get_uint(&r, SMC_NLA_STATS_T_SRV_V2_SUCC),
	       get_uint(&r, SMC_NLA_STATS_T_CORK_CNT), get_uint(&r, SMC_NLA_STATS_T_NDLY_CNT),
	       get_uint(&r, SMC_NLA_STATS_T_URG_DATA_CNT), get_uint(&r, SMC_NLA_STATS_T_RX_BYTES),
	       get_uint(&r, SMC_NLA_STATS_T_TX_BYTES), get_uint(&r, SMC_NLA_STATS_T_RX_CNT), get_uint(&r, SMC_NLA_STATS_T_TX_CNT),
	       get_uint(&r, NL_STATS_T_RX_RMB_USAGE), get_uint(&r, NL_STATS_T_TX_RMB_USAGE));
	print_hist("rx_rmbsize", &r, SMC_NLA_STATS_T_RX_RMB_SIZE);
	print_hist("tx_rmbsize", &r, SMC_NLA_STATS_T_TX_RMB_SIZE);
	print_hist("rx_pd", &r, SMC_NLA_STATS_T_RXPLOAD_SIZE);
	print_hist("tx_pd", &r, SMC_NLA_STATS_T_TXPLOAD_SIZE);
	print_rmb("rmb_rx", &r, SMC_NLA_STATS_T_RX_RMB_STATS);
	print_rmb("rmb_tx", &r, SMC_NLA_STATS_T_TX_RMB_STATS);
	printf("\n");
}

static void on_ueid_msg(const struct genlmsghdr *g, const struct nlattr *attrs, int len)
{
	(void)g;
	attr_table t;
	char eid[40];
	parse_attrs(&t, attrs, len);
	put_string(eid, sizeof(eid), &t, SMC_NLA_EID_TABLE_ENTRY);
	printf("ueid %s\n", eid);
}

static void on_pnet_msg(const struct genlmsghdr *g, const struct nlattr *attrs, int len)
{
	(void)g;
	attr_table t;
	char name[40], eth[40], ib[40];
	parse_attrs(&t, attrs, len);
	put_string(name, sizeof(name), &t, SMC_PNETID_NAME);
	put_string(eth, sizeof(eth), &t, SMC_PNETID_ETHNAME);
	put_string(ib, sizeof(ib), &t, SMC_PNETID_IBNAME);
	printf("pnet %s eth=%s ib=%s port=%llu\n", name, eth, ib, get_uint(&t, SMC_PNETID_IBPORT));
}

static int usage(void)
{
	fprintf(stderr, "usage: smc_nl ueid-add EID | ueid-show | pnet-add PNETID ETHDEV IBDEV PORT | pnet-show | stats | "
	                "lgrs | links\n");
	return 2;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage();
	setvbuf(stdout, NULL, _IOLBF, 0);
	nl_fd = socket(AF_NETLINK, SOCK_RAW, NETLINK_GENERIC);
	if (nl_fd < 0) {
		perror("smc_nl: netlink socket");
		return 1;
	}
	const char *cmd = argv[1];
	static const struct {
		const char *name;
		int argc;
	} known[] = {
		{ "ueid-add", 3 },
		{ "ueid-show", 2 },
		{ "pnet-add", 6 },
		{ "pnet-show", 2 },
		{ "lgrs", 2 },
		{ "links", 2 },
		{ "stats", 2 },
	};
	bool valid = false;
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		valid |= !strcmp(cmd, known[i].name) && argc == known[i].argc;
	if (!valid)
		return usage();
	bool pnet = !strncmp(cmd, "pnet", 4);
	const char *fam_name = pnet ? SMCR_GENL_FAMILY_NAME : SMC_GENL_FAMILY_NAME;
	int fam = family_id(fam_name);
	if (fam < 0) {
		fprintf(stderr, "smc_nl: generic netlink family %s not found (is smc.ko loaded?)\n", fam_name);
		return 1;
	}
	nlreq m;
	int rc;
	if (!strcmp(cmd, "ueid-add") && argc == 3) {
		char eid[SMC_MAX_EID_LEN + 1];
		size_t n = strlen(argv[2]);
		memset(eid, ' ', SMC_MAX_EID_LEN);
		memcpy(eid, argv[2], n < SMC_MAX_EID_LEN ? n : SMC_MAX_EID_LEN);
		eid[SMC_MAX_EID_LEN] = 0;
		init_req(&m, (uint16_t)fam, SMC_NETLINK_ADD_UEID, NLM_F_ACK);
		add_attr(&m, SMC_NLA_EID_TABLE_ENTRY, eid, sizeof(eid));
		rc = transact(&m, NULL);
	} else if (!strcmp(cmd, "ueid-show") && argc == 2) {
		init_req(&m, (uint16_t)fam, SMC_NETLINK_DUMP_UEID, NLM_F_DUMP);
		rc = transact(&m, on_ueid_msg);
	} else if (!strcmp(cmd, "pnet-add") && argc == 6) {
		uint8_t port = (uint8_t)strtoul(argv[5], NULL, 0);
		init_req(&m, (uint16_t)fam, SMC_PNETID_ADD, NLM_F_ACK);
		add_attr(&m, SMC_PNETID_NAME, argv[2], strlen(argv[2]) + 1);
		add_attr(&m, SMC_PNETID_ETHNAME, argv[3], strlen(argv[3]) + 1);
		add_attr(&m, SMC_PNETID_IBNAME, argv[4], strlen(argv[4]) + 1);
		add_attr(&m, SMC_PNETID_IBPORT, &port, 1);
		rc = transact(&m, NULL);
	} else if (!strcmp(cmd, "pnet-show") && argc == 2) {
		init_req(&m, (uint16_t)fam, SMC_PNETID_GET, NLM_F_DUMP);
		rc = transact(&m, on_pnet_msg);
	} else if (!strcmp(cmd, "lgrs") && argc == 2) {
		init_req(&m, (uint16_t)fam, SMC_NETLINK_GET_LGR_SMCR, NLM_F_DUMP);
		rc = transact(&m, on_gen_msg);
	} else if (!strcmp(cmd, "stats") && argc == 2) {
		init_req(&m, (uint16_t)fam, SMC_NETLINK_GET_STATS, NLM_F_DUMP);
		rc = transact(&m, on_stats_msg);
	} else if (!strcmp(cmd, "links") && argc == 2) {
		init_req(&m, (uint16_t)fam, SMC_NETLINK_GET_LINK_SMCR, NLM_F_DUMP);
		rc = transact(&m, on_gen_msg);
	} else {
		return usage();
	}
	if (rc) {
		fprintf(stderr, "smc_nl %s: %s\n", cmd, strerror(-rc));
		return 1;
	}
	return 0;
}
