/* A port's RoCE GID table as SMC-R uses it: choosing the GID, and parsing the small kernel
 * text files (sysfs, /proc) that describe a GID's interface. The GID forms themselves
 * (IPv4-mapped, EUI-64, text) are in sim/fabric/gid.h. No verbs here, so every rule can be
 * tested on a host without RDMA hardware.
 *
 * Selection follows Linux smc_ib_determine_gid(): SMC-Rv1 takes the first RoCE v1 entry
 * on the right VLAN (the link-local fe80:: one comes first in practice); SMC-Rv2 takes
 * the first RoCE v2 entry whose GID is IPv4-mapped (::ffff:a.b.c.d), on the right VLAN,
 * and, when an address is given, inside that address's subnet. */
#ifndef SIM_GID_TABLE_H
#define SIM_GID_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/smcr_transport.h"

/* Position in p->gids of the GID to use, or -1 when none fits.
 * type: SMCR_GID_ROCE_V1 or _V2. vlan: 0 = untagged. ipv4/prefix_len (host order):
 * only for v2; prefix_len 0 accepts any IPv4-mapped GID. */
int gid_table_select(const smcr_port_desc *p, smcr_gid_type type, uint16_t vlan, uint32_t ipv4,
                     unsigned prefix_len);

/* Text forms. Each returns 0, or -1 when the text is not what it should be. */
/* "fe80:0000:…" (sysfs) or any inet_pton form, surrounding whitespace allowed */
int gid_table_parse_gid(const char *text, uint8_t gid[16]);
/* sysfs gid_attrs/types/N: "RoCE v2" → V2, "IB/RoCE v1" → V1; "IB" and others → -1 */
int gid_table_parse_type(const char *text, smcr_gid_type *type);
/* "52:54:00:12:34:56" */
int gid_table_parse_mac(const char *text, uint8_t mac[6]);
/* The VLAN id of interface ifname according to the text of /proc/net/vlan/config:
 * 1 and *vid when it is a VLAN device, 0 when it is not listed. */
int gid_table_vlan_lookup(const char *vlan_config, const char *ifname, uint16_t *vid);

#endif
