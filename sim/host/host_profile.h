/* Host cost profiles: what each piece of networking work costs a host's CPUs, and the
 * latencies of its adapters, for one kind of system.
 *
 * Built-in profiles (host_profile_find): "none" (no costs: today's zero-time hosts),
 * "linux" (x86 Linux with a ConnectX-4 Lx class RNIC for both TCP and SMC-R) and "zos"
 * (IBM Z z/OS with OSA-Express for TCP/IP and RoCE Express for SMC-R). Every value, its
 * unit and where it comes from is in host_profile_fields() and docs/hosts.md (a test
 * checks the two agree). A scenario picks a profile per stack and may override any field
 * (`host cpus=4 syscall=400ns`). */
#ifndef SIM_HOST_PROFILE_H
#define SIM_HOST_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HOST_PROFILE_NAME_LEN 16
#define HOST_MAX_CPUS 256u

typedef struct host_profile {
	char name[HOST_PROFILE_NAME_LEN];
	bool costs; /* false: "none", every cost below is ignored */

	/* CPUs */
	uint32_t cpus;      /* how many */
	uint32_t speed_pct; /* relative speed, 100 = the profile's reference CPU */
	uint32_t irq_cpu;   /* the CPU that takes NIC and RNIC interrupts */
	uint64_t wakeup_ns; /* waking a task on another CPU: IPI, scheduling, context switch */

	/* sockets (either path) */
	uint64_t syscall_ns;      /* one socket call: entry, exit, socket lock */
	uint64_t copy_ps;         /* copying one byte between application and kernel, ps */
	uint64_t app_op_ns;       /* the application's own work per operation */
	uint64_t connect_ns;      /* socket set-up and teardown of one connection */

	/* the TCP/IP path */
	uint64_t tcp_tx_skb_ns;   /* one send buffer's segment built and handed to the driver
	                             (a TSO super-segment of up to tso_max bytes) */
	uint64_t tcp_tx_pkt_ns;   /* per wire segment in the driver (descriptors) */
	uint32_t tso_max;         /* bytes per super-segment (0: no TSO, one skb per segment) */
	uint64_t tcp_rx_pkt_ns;   /* per frame received, in the driver (NAPI) */
	uint64_t tcp_rx_skb_ns;   /* per (GRO-merged) segment through IP and TCP */
	uint32_t gro_max;         /* bytes GRO merges into one segment (0: no GRO) */
	uint64_t tcp_ack_ns;      /* building and sending one pure ACK */
	uint64_t tcp_timer_ns;    /* one TCP timer handled */
	uint64_t csum_ps;         /* per byte checksummed in software (0: offloaded) */

	/* the TCP/IP adapter (OSA-Express, a NIC) */
	uint64_t nic_tx_ns;       /* doorbell to the first bit on the wire */
	uint64_t nic_rx_ns;       /* last bit in to the frame in host memory */
	uint64_t nic_irq_delay_ns; /* interrupt moderation and delivery after a frame lands */
	uint64_t irq_ns;          /* interrupt entry and exit on the CPU */

	/* the SMC-R path */
	uint64_t smc_wr_ns;       /* building and posting one work request (with its doorbell) */
	uint64_t smc_cqe_ns;      /* one completion polled and dispatched */
	uint64_t smc_cdc_ns;      /* one CDC message handled (cursors, wake-ups) */
	uint64_t smc_clc_ns;      /* one CLC message built or handled */
	uint64_t smc_llc_ns;      /* one LLC message built or handled */
	uint64_t smc_buf_ns;      /* a new RMB or send buffer allocated and registered */

	/* the RoCE adapter (RoCE Express, ConnectX) */
	uint64_t rnic_doorbell_ns; /* doorbell to the first packet of a work request */
	uint64_t rnic_cqe_ns;      /* an event to its completion queue entry in host memory */
	uint64_t rnic_irq_delay_ns; /* completion interrupt delivery */
} host_profile;

/* A built-in profile by name, or NULL. */
const host_profile *host_profile_find(const char *name);
/* The names of the built-in profiles, NULL-terminated. */
const char *const *host_profile_names(void);

/* The fields, for scenario overrides, `check --defaults` and docs/hosts.md. */
typedef enum host_field_unit {
	HOST_UNIT_COUNT,  /* a plain number */
	HOST_UNIT_NS,     /* a duration */
	HOST_UNIT_PS_BYTE, /* a cost per byte, given as a rate (bytes per second) */
	HOST_UNIT_BYTES,  /* a size */
	HOST_UNIT_PCT,    /* a percentage (speed) */
} host_field_unit;

typedef struct host_field {
	const char *key;  /* the scenario attribute */
	host_field_unit unit;
	size_t offset;    /* in host_profile */
	bool is32;        /* uint32_t, else uint64_t */
	uint64_t min, max; /* allowed range (in the field's unit) */
	const char *what;
} host_field;

const host_field *host_profile_fields(size_t *n);
uint64_t host_field_get(const host_profile *p, const host_field *f);
void host_field_set(host_profile *p, const host_field *f, uint64_t v);
const host_field *host_field_find(const char *key);

/* Checks a profile for impossible values; 0, or -1 with *why naming the field. */
int host_profile_check(const host_profile *p, const char **why);

#endif
