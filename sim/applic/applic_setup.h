/* The SMC-R set-up a capture's hosts would have, for `smcr-sim applicability`: which hosts
 * have RoCE adapters, on which physical networks (PNet IDs), subnets and VLANs, and which
 * speak SMC-Rv2 with which UEIDs. From a set-up file, from a scenario (its stacks), or
 * the default: every host has SMC-R on one physical network, subnets /24 (IPv4) and /64
 * (IPv6), SMC-Rv1 only.
 *
 * Set-up file, one statement a line, '#' starts a comment, later lines win:
 *   default [smcr=yes|no] [pnetid=ID] [vlan=N] [v2=yes|no] [ueid=ID,ID...] [prefix=LEN]
 *   host ADDR[/LEN] [smcr=…] [pnetid=…] [vlan=…] [v2=…] [ueid=…]
 * A host line with /LEN names every address of that subnet and says it is the hosts'
 * subnet; without, the host's subnet is the default prefix around it.
 *
 * A connection can use SMC-R (is eligible) when both ends have SMC-R and either SMC-Rv1
 * reaches (the same subnet, VLAN and PNet ID: RFC 7609's rendezvous; the VLAN the capture
 * shows wins over the set-up's) or SMC-Rv2 does (both v2, IPv4, a common UEID: the v2
 * rendezvous of Linux net/smc and z/OS). */
#ifndef SIM_APPLIC_SETUP_H
#define SIM_APPLIC_SETUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/host/host_profile.h"

typedef enum applic_inelig {
	APPLIC_INELIG_NO_SMCR = 0, /* an end without SMC-R */
	APPLIC_INELIG_SUBNET,      /* different subnets and no common SMC-Rv2 UEID */
	APPLIC_INELIG_VLAN,        /* different VLANs */
	APPLIC_INELIG_PNETID,      /* no common physical network */
	APPLIC_INELIG_N,
} applic_inelig;

const char *applic_inelig_text(applic_inelig r);

typedef struct applic_host {
	uint8_t family;
	uint8_t ip[16];
	uint8_t len;     /* the addresses it names: ADDR/len */
	uint8_t net_len; /* their subnet's prefix length (0: the default prefix) */
	bool smcr, v2;
	char pnetid[17];
	uint16_t vlan;
	uint8_t n_ueids;
	char ueids[8][33];
	bool has_host;      /* a scenario's stack: the host under it (profile and overrides) */
	host_profile host;
	char stack[32];     /* that stack's name */
} applic_host;

typedef struct applic_setup {
	applic_host def; /* the default (family 0) */
	uint8_t def_prefix4, def_prefix6;
	applic_host *hosts;
	size_t n_hosts, cap_hosts;
	char source[256]; /* what it was read from, for the outputs */
} applic_setup;

void applic_setup_default(applic_setup *s);
/* Read a set-up file; 0, or -1 with "FILE:LINE: what is wrong" in err. */
int applic_setup_load(applic_setup *s, const char *path, char *err, size_t errlen);
/* Take the hosts from a scenario file (each stack's interfaces, its SMC-R activations,
 * PNet IDs, VLANs, v2 and UEIDs, and the host under it: its cost profile for the re-run);
 * 0 or -1 with the scenario's diagnostics in err. */
int applic_setup_from_scenario(applic_setup *s, const char *path, char *err, size_t errlen);
void applic_setup_free(applic_setup *s);

/* The entry that describes address ip (the most specific; later lines win ties), NULL when
 * only the default does. */
const applic_host *applic_setup_host(const applic_setup *s, uint8_t family, const uint8_t ip[16]);

/* Whether a connection between a and b (captured on VLAN vlan, 0 untagged) can use SMC-R;
 * when not, why. */
bool applic_setup_eligible(const applic_setup *s, uint8_t family, const uint8_t a[16], const uint8_t b[16],
                           uint16_t vlan, applic_inelig *why);

#endif
