/* Personality defaults. Linux values are the kernel's sysctl defaults; z/OS values follow
 * the TCP/IP profile defaults where they exist, and Linux's where z/OS has no knob. */
#include "sim/net/stack_config.h"

#include <errno.h>
#include <string.h>

#include "model/clc.h"

const char *stack_personality_name(stack_personality p)
{
	switch (p) {
	case STACK_LINUX:
		return "linux";
	case STACK_ZOS:
		return "zos";
	}
	return "?";
}

void stack_config_defaults(stack_config *cfg, stack_personality p)
{
	memset(cfg, 0, sizeof *cfg);
	tcp_config *t = &cfg->tcp;
	t->sndbuf = 256 * 1024;
	t->rcvbuf = 128 * 1024;
	t->window_scaling = true;
	t->wscale = 7;
	t->sack = true;
	t->timestamps = true;
	t->rto_initial = 1 * SIM_S;
	t->rto_min = 200 * SIM_MS;
	t->rto_max = 120 * SIM_S;
	t->syn_retries = 6;
	t->synack_retries = 5;
	t->data_retries = 15;
	t->delack = 40 * SIM_MS;
	t->msl = 30 * SIM_S;
	t->fin_wait2_timeout = 60 * SIM_S;
	t->keepalive_idle = 7200 * SIM_S;
	t->keepalive_interval = 75 * SIM_S;
	t->keepalive_probes = 9;
	t->initial_cwnd = 10;
	t->backlog = 4096; /* Linux net.core.somaxconn since 5.4: what listen(fd, SOMAXCONN) gets */
	t->port_lo = 32768;
	t->port_hi = 60999;

	cfg->arp.timeout = 60 * SIM_S;
	cfg->arp.retry_interval = 1 * SIM_S;
	cfg->arp.max_tries = 3;
	cfg->arp.queue_len = 101; /* Linux neigh unres_qlen (now unres_qlen_bytes, ~100 packets) */
	cfg->arp.cache_size = 256;
	cfg->ip.ttl = 64;

	cfg->smcr.mtu = 1024;
	cfg->smcr.fixed_memory = 256ull * 1024 * 1024;
	cfg->smcr.tcp_keepalive_interval = 300 * SIM_S;
	cfg->smcr.clc_os_type = SMCR_CLC_OS_LINUX;
	cfg->smcr.llc_v2_big_endian = false; /* x86 Linux: u16 length_v2 in host order */
	cfg->smcr.buf_downgrade = true;       /* Linux __smc_buf_create */

	switch (p) {
	case STACK_LINUX:
		break;
	case STACK_ZOS:
		/* TCPCONFIG: TCPSENDBFRSIZE/TCPRCVBUFRSIZE 64K, FINWAIT2TIME 600 s,
		 * INTERVAL 120 min; ARPAGE 20 min; TTL 64 (IPCONFIG TTL). z/OS does not send
		 * SACK or timestamps by default. */
		t->sndbuf = 64 * 1024;
		t->rcvbuf = 64 * 1024;
		t->wscale = 2;
		t->sack = false;
		t->timestamps = false;
		t->rto_min = 300 * SIM_MS;
		t->fin_wait2_timeout = 600 * SIM_S;
		t->initial_cwnd = 4;
		t->port_lo = 1024;
		t->port_hi = 65535;
		cfg->arp.timeout = 20 * 60 * SIM_S;
		/* a big-endian system: its CLC says z/OS, its v2 LLC fields are in network order */
		cfg->smcr.clc_os_type = SMCR_CLC_OS_ZOS;
		cfg->smcr.llc_v2_big_endian = true;
		cfg->smcr.buf_downgrade = false; /* FIXEDMEMORY reached: new connections use TCP */
		break;
	}
}

int smcr_config_add_pfid(smcr_config *c, uint16_t pfid, uint8_t portnum, uint16_t mtu)
{
	if (portnum < 1 || portnum > 2)
		return -EINVAL;
	if (c->n_pfids == SMCR_CFG_MAX_PFIDS)
		return -ENOSPC;
	c->pfids[c->n_pfids++] = (smcr_pfid_config){ .pfid = pfid, .portnum = portnum, .mtu = mtu };
	return 0;
}

int smcr_config_exclude_port(smcr_config *c, uint16_t tcp_port)
{
	if (smcr_config_port_excluded(c, tcp_port))
		return 0;
	if (c->n_excluded_ports == SMCR_CFG_MAX_EXCLUDED_PORTS)
		return -ENOSPC;
	c->excluded_ports[c->n_excluded_ports++] = tcp_port;
	return 0;
}

int smcr_config_add_ueid(smcr_config *c, const char *ueid)
{
	size_t len = strlen(ueid);
	if (!len || len > SMCR_CFG_UEID_LEN)
		return -EINVAL;
	if (c->n_ueids == SMCR_CFG_MAX_UEIDS)
		return -ENOSPC;
	memcpy(c->ueids[c->n_ueids], ueid, len + 1);
	c->n_ueids++;
	return 0;
}

bool smcr_config_port_excluded(const smcr_config *c, uint16_t tcp_port)
{
	for (size_t i = 0; i < c->n_excluded_ports; i++)
		if (c->excluded_ports[i] == tcp_port)
			return true;
	return false;
}
