/* The built-in host profiles and the table of their fields. Where each value comes from
 * is in docs/hosts.md, field by field (tests/tree/t_hosts_doc.sh checks the table there lists
 * the same fields and values as this file). */
#include "sim/host/host_profile.h"

#include <stddef.h>
#include <string.h>

/* No costs: hosts as they were before host profiles (zero-time protocol processing). */
static const host_profile p_none = {
	.name = "none",
	.costs = false,
	.cpus = 1,
	.speed_pct = 100,
	.rx_queues = 1,
};

/* x86 Linux in a VM with a ConnectX-4 Lx SR-IOV virtual function for both TCP and SMC-R,
 * as in the measurements the profile is calibrated on (docs/hosts.md). */
static const host_profile p_linux = {
	.name = "linux",
	.costs = true,
	.cpus = 2,
	.speed_pct = 100,
	.irq_cpu = 0,
	.rx_queues = 1,
	.wakeup_ns = 2500,
	.syscall_ns = 500,
	.copy_ps = 42,
	.app_op_ns = 60,
	.connect_ns = 8000,
	.tcp_tx_skb_ns = 1150,
	.tcp_tx_pkt_ns = 100,
	.tso_max = 65536,
	.tcp_rx_pkt_ns = 80,
	.tcp_rx_skb_ns = 230,
	.gro_max = 65536,
	.tcp_ack_ns = 600,
	.tcp_timer_ns = 300,
	.csum_ps = 0,
	.tcp_autocork = 1,
	.nic_tx_ns = 1800,
	.nic_txc_ns = 8000,
	.nic_rx_ns = 2200,
	.nic_irq_delay_ns = 150,
	.nic_irq_busy_ns = 4700,
	.nic_dim_gap_ns = 750,
	.irq_ns = 980,
	.smc_wr_ns = 300,
	.smc_cqe_ns = 185,
	.smc_cdc_ns = 415,
	.smc_clc_ns = 2000,
	.smc_buf_ns = 240000,
	.rnic_doorbell_ns = 150,
	.rnic_cqe_ns = 315,
	.rnic_irq_delay_ns = 380,
};

/* IBM Z z/OS with OSA-Express (QDIO) for TCP/IP and RoCE Express for SMC-R. */
static const host_profile p_zos = {
	.name = "zos",
	.costs = true,
	.cpus = 4,
	.speed_pct = 100,
	.irq_cpu = 0,
	.rx_queues = 1,
	.wakeup_ns = 2000,
	.syscall_ns = 725,
	.copy_ps = 165,
	.app_op_ns = 100,
	.connect_ns = 15000,
	.tcp_tx_skb_ns = 8000,
	.tcp_tx_pkt_ns = 330,
	.tso_max = 65536,
	.tcp_rx_pkt_ns = 820,
	.tcp_rx_skb_ns = 1370,
	.gro_max = 0,
	.tcp_ack_ns = 1630,
	.tcp_timer_ns = 600,
	.csum_ps = 0,
	.nic_tx_ns = 19400,
	.nic_txc_ns = 8000,
	.nic_rx_ns = 7690,
	.nic_irq_delay_ns = 18300,
	.nic_irq_busy_ns = 8000,
	.nic_dim_gap_ns = 0,
	.irq_ns = 315,
	.smc_wr_ns = 180,
	.smc_cqe_ns = 355,
	.smc_cdc_ns = 900,
	.smc_clc_ns = 4000,
	.smc_buf_ns = 300000,
	.rnic_doorbell_ns = 1510,
	.rnic_cqe_ns = 400,
	.rnic_irq_delay_ns = 3060,
};

static const host_profile *const builtin[] = { &p_none, &p_linux, &p_zos };
static const char *const names[] = { "none", "linux", "zos", NULL };

const host_profile *host_profile_find(const char *name)
{
	for (size_t i = 0; i < sizeof builtin / sizeof builtin[0]; i++)
		if (name && !strcmp(builtin[i]->name, name))
			return builtin[i];
	return NULL;
}

const char *const *host_profile_names(void) { return names; }

#define F32(k, u, field, lo, hi, w) { k, u, offsetof(host_profile, field), true, lo, hi, w }
#define F64(k, u, field, lo, hi, w) { k, u, offsetof(host_profile, field), false, lo, hi, w }
#define MAXNS (1000ull * 1000 * 1000) /* one second: no single piece of work costs more */

static const host_field fields[] = {
	F32("cpus", HOST_UNIT_COUNT, cpus, 1, HOST_MAX_CPUS, "CPUs"),
	F32("speed", HOST_UNIT_PCT, speed_pct, 1, 10000, "CPU speed, percent of the profile's reference CPU"),
	F32("irqcpu", HOST_UNIT_COUNT, irq_cpu, 0, HOST_MAX_CPUS - 1, "the CPU that takes NIC and RNIC interrupts"),
	F32("rxqueues", HOST_UNIT_COUNT, rx_queues, 1, HOST_MAX_CPUS, "NIC receive queues (RSS), each interrupting its own CPU"),
	F64("wakeup", HOST_UNIT_NS, wakeup_ns, 0, MAXNS, "waking a task on an idle CPU"),
	F64("syscall", HOST_UNIT_NS, syscall_ns, 1, MAXNS, "one socket call"),
	F64("copy", HOST_UNIT_PS_BYTE, copy_ps, 1, 1000000, "copying between application and kernel"),
	F64("appop", HOST_UNIT_NS, app_op_ns, 0, MAXNS, "the application's own work per operation"),
	F64("connect", HOST_UNIT_NS, connect_ns, 1, MAXNS, "socket set-up and teardown of a connection"),
	F64("tcptxskb", HOST_UNIT_NS, tcp_tx_skb_ns, 1, MAXNS, "a TCP segment (TSO super-segment) built and queued"),
	F64("tcptxpkt", HOST_UNIT_NS, tcp_tx_pkt_ns, 0, MAXNS, "per wire segment sent, in the driver"),
	F32("tso", HOST_UNIT_BYTES, tso_max, 0, 262144, "bytes per TSO super-segment (0: no TSO)"),
	F64("tcprxpkt", HOST_UNIT_NS, tcp_rx_pkt_ns, 1, MAXNS, "per frame received, in the driver"),
	F64("tcprxskb", HOST_UNIT_NS, tcp_rx_skb_ns, 1, MAXNS, "per (GRO-merged) segment through IP and TCP"),
	F32("gro", HOST_UNIT_BYTES, gro_max, 0, 262144, "bytes GRO merges into one segment (0: no GRO)"),
	F64("tcpack", HOST_UNIT_NS, tcp_ack_ns, 1, MAXNS, "a pure ACK built and sent"),
	F64("tcptimer", HOST_UNIT_NS, tcp_timer_ns, 1, MAXNS, "a TCP timer handled"),
	F64("csum", HOST_UNIT_PS_BYTE, csum_ps, 0, 1000000, "software checksum per byte (0: offloaded)"),
	F32("autocork", HOST_UNIT_COUNT, tcp_autocork, 0, 1, "TCP autocorking: small writes wait for the NIC (1) or go at once (0)"),
	F64("nictx", HOST_UNIT_NS, nic_tx_ns, 0, MAXNS, "NIC: doorbell to the wire"),
	F64("nictxc", HOST_UNIT_NS, nic_txc_ns, 0, MAXNS, "NIC: a frame sent to its transmit completion"),
	F64("nicrx", HOST_UNIT_NS, nic_rx_ns, 0, MAXNS, "NIC: the wire to host memory"),
	F64("nicirqdelay", HOST_UNIT_NS, nic_irq_delay_ns, 0, MAXNS, "NIC: interrupt moderation and delivery"),
	F64("nicirqbusy", HOST_UNIT_NS, nic_irq_busy_ns, 0, MAXNS, "NIC: interrupt moderation under sustained load"),
	F64("nicdimgap", HOST_UNIT_NS, nic_dim_gap_ns, 0, MAXNS, "NIC: frames closer than this on average are sustained load"),
	F64("irq", HOST_UNIT_NS, irq_ns, 1, MAXNS, "interrupt entry and exit"),
	F64("smcwr", HOST_UNIT_NS, smc_wr_ns, 1, MAXNS, "an SMC-R work request built and posted"),
	F64("smccqe", HOST_UNIT_NS, smc_cqe_ns, 1, MAXNS, "an SMC-R completion polled and dispatched"),
	F64("smccdc", HOST_UNIT_NS, smc_cdc_ns, 1, MAXNS, "a CDC (or LLC) message received and handled"),
	F64("smcclc", HOST_UNIT_NS, smc_clc_ns, 1, MAXNS, "a CLC message built or handled"),
	F64("smcbuf", HOST_UNIT_NS, smc_buf_ns, 1, MAXNS, "a new RMB or send buffer allocated and registered"),
	F64("rnicdoorbell", HOST_UNIT_NS, rnic_doorbell_ns, 0, MAXNS, "RNIC: doorbell to the first packet"),
	F64("rniccqe", HOST_UNIT_NS, rnic_cqe_ns, 0, MAXNS, "RNIC: an event to its completion in host memory"),
	F64("rnicirqdelay", HOST_UNIT_NS, rnic_irq_delay_ns, 0, MAXNS, "RNIC: completion interrupt delivery"),
};

const host_field *host_profile_fields(size_t *n)
{
	*n = sizeof fields / sizeof fields[0];
	return fields;
}

uint64_t host_field_get(const host_profile *p, const host_field *f)
{
	const char *b = (const char *)p + f->offset;
	if (f->is32) {
		uint32_t v;
		memcpy(&v, b, sizeof v);
		return v;
	}
	uint64_t v;
	memcpy(&v, b, sizeof v);
	return v;
}

void host_field_set(host_profile *p, const host_field *f, uint64_t v)
{
	char *b = (char *)p + f->offset;
	if (f->is32) {
		uint32_t w = (uint32_t)v;
		memcpy(b, &w, sizeof w);
	} else {
		memcpy(b, &v, sizeof v);
	}
}

const host_field *host_field_find(const char *key)
{
	for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
		if (!strcmp(fields[i].key, key))
			return &fields[i];
	return NULL;
}

int host_profile_check(const host_profile *p, const char **why)
{
	if (!p->costs)
		return 0;
	for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
		uint64_t v = host_field_get(p, &fields[i]);
		if (v < fields[i].min || v > fields[i].max) {
			*why = fields[i].key;
			return -1;
		}
	}
	if (p->irq_cpu >= p->cpus) {
		*why = "irqcpu";
		return -1;
	}
	return 0;
}
