/* The names observers give things, one way for the event stream, the statistics and the
 * pictures: a core's numeric link-group, link and connection ids turned into what the
 * reports print (the link group id 0x00000100, the link number and 4-byte link ids, the
 * connection's number in its stack, its 4-tuple, the app instance that opened it: "bulk.3")
 * and the peer stack. The answers are cached per stack, so a link group that is gone keeps
 * its name for the events that tell of its end. */
#ifndef SIM_OBS_IDENT_H
#define SIM_OBS_IDENT_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/world/world.h"

#define OBS_NONE UINT32_MAX

typedef struct obs_ident obs_ident;

typedef struct obs_lgr {
	bool known;
	uint32_t num;  /* 0x00000100, as reports print it */
	uint32_t peer; /* stack index of the peer, OBS_NONE unknown */
} obs_lgr;

typedef struct obs_link {
	bool known;
	uint32_t lgr_num;
	uint8_t link_num;
	uint32_t local_id, remote_id; /* the 4-byte link ids (remote 0 until confirmed) */
	uint32_t peer;                /* stack index, OBS_NONE */
	uint32_t port_index;          /* the core's port */
	char port_name[33];           /* EZARIUT10018, or the adapter's name */
	uint32_t local_qpn, remote_qpn;
	smcr_link_state state;
} obs_link;

typedef struct obs_conn {
	bool known;
	uint32_t conn_id; /* the stack's connection number (reports' connections[].id) */
	bool server;
	uint32_t local_ip, peer_ip; /* host order */
	uint16_t local_port, peer_port;
	char name[48]; /* the connecting app's instance, "" unknown */
	uint32_t peer; /* stack index, OBS_NONE */
} obs_conn;

obs_ident *obs_ident_new(world *w);
void obs_ident_free(obs_ident *id);

const char *obs_ident_stack_name(const obs_ident *id, uint32_t si);
/* The stack whose core has this system id, OBS_NONE. */
uint32_t obs_ident_stack_by_sysid(const obs_ident *id, const uint8_t sysid[8]);

/* A core's link group, link or connection (by its numeric id) of stack `si`. */
void obs_ident_lgr(obs_ident *id, uint32_t si, uint64_t lgr_id, obs_lgr *out);
void obs_ident_link(obs_ident *id, uint32_t si, uint64_t link_id, obs_link *out);
/* The same from a link's introspection record (links that are being removed). */
void obs_ident_link_info(obs_ident *id, uint32_t si, const smcr_link_info *li, obs_link *out);
void obs_ident_conn(obs_ident *id, uint32_t si, uint64_t core_conn_id, obs_conn *out);
/* A connection end as the world reports it (world_conn_view) completed with the core's
 * connection number when the layer knows the socket; lgr and link 0 when none. */
void obs_ident_end(obs_ident *id, const world_conn_view *v, obs_conn *out, uint64_t *core_lgr, uint64_t *core_link,
                   uint8_t *smc_version);

/* "10.1.1.1:1025" */
void obs_addr_text(uint32_t ip, uint16_t port, char *buf, size_t len);

/* A timeline action's verb ("fail", "restore", "set", "start", "stop"; NULL for reports
 * and expectations); its target: scn_event_target_text (sim/scenario/scn_model.h). */
const char *obs_timeline_verb(const scn_event *ev);

#endif
