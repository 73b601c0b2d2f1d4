/* The --real-hw mapping: which real RDMA device and port stands for each virtual adapter
 * (PFID and port) of a scenario.
 *
 *   MAP   := ENTRY[,ENTRY…]
 *   ENTRY := PFID[/APORT]=DEV[:DPORT][@A.B.C.D]
 *
 * PFID is the adapter's hex PFID as in the scenario (`0101`, `0x101`), APORT its port (1
 * or 2, default 1), DEV an RDMA device name as `ibv_devices` lists it (`rxe0`, `mlx5_0`),
 * DPORT its 1-based port (default 1), and A.B.C.D selects the device's IPv4-mapped RoCE
 * v2 GID of that address (default: its first one). Examples:
 *   0101=rxe0,0201=rxe0                 two adapters on one Soft-RoCE device
 *   0101=rxe0:1@10.0.0.1,0201=rxe0:1@10.0.0.11   the same, with a GID each
 *   0010=mlx5_0,0010/2=mlx5_1           a two-port adapter on two functions
 * A PFID/port may be mapped once; several may share a device. */
#ifndef SIM_REALHW_MAP_H
#define SIM_REALHW_MAP_H

#include <stddef.h>

#include "sim/smc/smc_layer.h"

#define REALHW_MAP_MAX 32

typedef struct realhw_map {
	smc_real_port port[REALHW_MAP_MAX];
	size_t n;
} realhw_map;

/* Parse text into m (pnet_id left empty). 0, or -1 with a message naming the entry and
 * what was expected in err. */
int realhw_map_parse(const char *text, realhw_map *m, char *err, size_t errlen);

/* One entry in the form above ("0101=rxe0:1@10.0.0.1"). */
void realhw_map_format(const smc_real_port *p, char *buf, size_t len);

#endif
