/* What a virtual TCP/IP stack is configured with, and the defaults each personality
 * brings. A z/OS-like stack and a Linux-like stack differ only in these values (and in
 * how later reports look); the code paths are the same.
 *
 * The SMC-R part follows z/OS GLOBALCONFIG SMCR (PFID/PORTNUM, MTU, FIXEDMEMORY,
 * TCPKEEPMININTERVAL), the PORT ... NOSMCR exclusion and the SMC-Rv2 settings (UEIDs,
 * the SMC-R IP address). The stack stores and exposes it; the SMC-R layer reads it. */
#ifndef SIM_STACK_CONFIG_H
#define SIM_STACK_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/engine/engine.h"

typedef enum stack_personality {
	STACK_LINUX, /* Linux-like: AF_SMC sockets opt in, Linux TCP defaults */
	STACK_ZOS,   /* z/OS-like: GLOBALCONFIG SMCR applies to every TCP connection */
} stack_personality;

const char *stack_personality_name(stack_personality p);

typedef struct tcp_config {
	uint32_t sndbuf;             /* default send buffer, bytes */
	uint32_t rcvbuf;             /* default receive buffer, bytes */
	bool window_scaling;         /* offer the window-scale option (RFC 7323) */
	uint8_t wscale;              /* our shift when offered (0..14) */
	bool sack;                   /* offer SACK-permitted; send SACK blocks when agreed */
	bool timestamps;             /* offer timestamps (RFC 7323) */
	sim_time rto_initial;        /* RFC 6298: 1 s */
	sim_time rto_min;            /* Linux 200 ms; RFC 6298 says 1 s */
	sim_time rto_max;            /* 120 s */
	uint32_t syn_retries;        /* SYN retransmissions before connect fails */
	uint32_t synack_retries;     /* SYN-ACK retransmissions before a half-open is dropped */
	uint32_t data_retries;       /* consecutive RTOs before an established connection is reset */
	sim_time delack;             /* delayed-ACK timeout; 0 = acknowledge every segment at once */
	sim_time msl;                /* TIME_WAIT lasts 2 * msl */
	sim_time fin_wait2_timeout;  /* an orphaned FIN_WAIT_2 is dropped after this */
	sim_time keepalive_idle;     /* idle time before the first keepalive probe */
	sim_time keepalive_interval; /* between unanswered probes */
	uint32_t keepalive_probes;   /* unanswered probes before the connection is reset */
	uint32_t initial_cwnd;       /* initial congestion window, segments */
	uint32_t backlog;            /* default listen backlog */
	uint16_t port_lo, port_hi;   /* ephemeral port range */
} tcp_config;

typedef struct arp_config {
	sim_time timeout;        /* a resolved entry is used this long, then re-resolved */
	sim_time retry_interval; /* between requests while resolving */
	uint32_t max_tries;      /* requests before giving up (queued packets are dropped) */
	uint32_t queue_len;      /* packets held per entry while resolving */
	uint32_t cache_size;     /* entries per interface; the oldest resolved one is evicted */
} arp_config;

typedef struct ip_config {
	uint8_t ttl;     /* TTL of packets this stack originates */
	bool forwarding; /* route packets not addressed to this stack */
} ip_config;

#define SMCR_CFG_MAX_PFIDS 16
#define SMCR_CFG_MAX_EXCLUDED_PORTS 64
#define SMCR_CFG_MAX_UEIDS 4 /* Linux SMC_MAX_UEID */
#define SMCR_CFG_UEID_LEN 32

/* One RoCE adapter port to activate (z/OS: PFID xxxx PORTNUM n [MTU m]). */
typedef struct smcr_pfid_config {
	uint16_t pfid;   /* PCI function id of the adapter */
	uint8_t portnum; /* 1 or 2 */
	uint16_t mtu;    /* RoCE MTU for this port; 0 = the global one */
} smcr_pfid_config;

typedef struct smcr_config {
	bool enabled; /* GLOBALCONFIG SMCR present */
	smcr_pfid_config pfids[SMCR_CFG_MAX_PFIDS];
	size_t n_pfids;
	uint16_t mtu;                                         /* RoCE MTU (256, 512, 1024, 2048, 4096); z/OS default 1024 */
	uint64_t fixed_memory;                                /* cap on SMC-R buffer memory, bytes; beyond it new
	                              connections fall back to TCP (z/OS FIXEDMEMORY, 256 MiB) */
	uint16_t excluded_ports[SMCR_CFG_MAX_EXCLUDED_PORTS]; /* TCP ports that never use SMC-R
	                              (z/OS PORT n TCP ... NOSMCR): a listener there answers without the option */
	size_t n_excluded_ports;
	sim_time tcp_keepalive_interval;                       /* keepalive on the idle TCP connection under SMC-R
	                              (z/OS TCPKEEPMININTERVAL, default 300 s) */
	bool v2;                                               /* SMC-Rv2 enabled */
	char ueids[SMCR_CFG_MAX_UEIDS][SMCR_CFG_UEID_LEN + 1]; /* user EIDs, NUL-terminated */
	size_t n_ueids;
	uint32_t v2_ipaddr; /* the SMC-Rv2 (SMCR) IP address, host order; 0 = none */
	/* What the peer learns of this system from the wire (per personality, not knobs):
	 * the CLC OS type of v2 first contacts and Declines, and the byte order of the v2 LLC
	 * lengths and counts, which Linux writes in host order (little-endian on x86) and a
	 * big-endian z/OS in network order. */
	uint8_t clc_os_type; /* SMCR_CLC_OS_ZOS 1, SMCR_CLC_OS_LINUX 2 (model/clc.h) */
	bool llc_v2_big_endian;
	bool limit_hs; /* net.smc.limit_smc_hs: listeners limit handshakes (default off) */
	/* RMB or send buffer memory refused (the fixed_memory limit): Linux tries the next
	 * smaller size; z/OS declines the new connection, which uses TCP (docs/zos.md). */
	bool buf_downgrade;
} smcr_config;

typedef struct stack_config {
	tcp_config tcp;
	arp_config arp;
	ip_config ip;
	smcr_config smcr;
} stack_config;

/* Fill every field with the personality's defaults (SMC-R disabled). */
void stack_config_defaults(stack_config *cfg, stack_personality p);

/* Helpers for building an SMC-R configuration; they return -ENOSPC when a table is full
 * and -EINVAL for a bad value. */
int smcr_config_add_pfid(smcr_config *c, uint16_t pfid, uint8_t portnum, uint16_t mtu);
int smcr_config_exclude_port(smcr_config *c, uint16_t tcp_port);
int smcr_config_add_ueid(smcr_config *c, const char *ueid);
bool smcr_config_port_excluded(const smcr_config *c, uint16_t tcp_port);

#endif
