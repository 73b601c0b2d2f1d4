/* LLC link procedures (llc_link.c): first-link confirmation in both roles, ADD_LINK with
 * its rkey exchange, the client's invitation and v2 REQUEST_ADD_LINK, DELETE_LINK in both
 * roles and the local triggers that start them. */
#ifndef SMCR_LLC_LINK_INT_H
#define SMCR_LLC_LINK_INT_H

#include <stdint.h>

#include "model/llc_flow_int.h"

typedef struct smcr_lgr smcr_lgr;
typedef struct smcr_link smcr_link;

/* The procedures, run and resumed by the flow engine (llc_flow.c). */
void smcr_llc_proc_clnt_first(smcr_lgr *lgr, smcr_llc_wake why);
void smcr_llc_proc_srv_first(smcr_lgr *lgr, smcr_llc_wake why);
void smcr_llc_proc_srv_add(smcr_lgr *lgr, smcr_llc_wake why);
void smcr_llc_proc_clnt_add(smcr_lgr *lgr, smcr_llc_wake why);
void smcr_llc_proc_clnt_req_add(smcr_lgr *lgr, smcr_llc_wake why);
void smcr_llc_proc_srv_del(smcr_lgr *lgr, smcr_llc_wake why);
/* The client answers a DELETE_LINK request at once (no procedure); q is freed. */
void smcr_llc_process_cli_delete_link(smcr_lgr *lgr, smcr_llc_qentry *q);
/* Local triggers: an ADD_LINK or DELETE_LINK request queued as if received. */
void smcr_llc_add_link_local(smcr_link *lnk);
void smcr_llc_srv_delete_link_local(smcr_link *lnk, uint8_t del_link_id);
void smcr_llc_cli_add_link_invite(smcr_link *lnk);
/* Client link down: DELETE_LINK for link_id on to_link_id, then clear the link. */
void smcr_llc_clnt_linkdown_send(smcr_lgr *lgr, uint64_t link_id, uint64_t to_link_id);
/* The procedures and request handlers above, into the flow engine's table. */
void smcr_llc_link_register(smcr_llc_handlers *h);

#endif
