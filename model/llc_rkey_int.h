/* RMB rkeys at the peer (llc_rkey.c): CONFIRM_RKEY for a connection's RMB on a reused
 * link group, DELETE_RKEY before an RMB is reused, and the answers to the peer's. */
#ifndef SMCR_LLC_RKEY_INT_H
#define SMCR_LLC_RKEY_INT_H

#include "model/llc_flow_int.h"

typedef struct smcr_lgr smcr_lgr;

void smcr_llc_proc_rkey(smcr_lgr *lgr, smcr_llc_wake why);
void smcr_llc_proc_del_rkey(smcr_lgr *lgr, smcr_llc_wake why);
void smcr_llc_rmt_conf_rkey(smcr_lgr *lgr, smcr_llc_qentry *q);
void smcr_llc_rmt_delete_rkey(smcr_lgr *lgr, smcr_llc_qentry *q);
/* An RMB whose connection ended: DELETE_RKEY at the peer before it is reused, once the
 * LLC flow is free (buf.c, through ctx->hooks). */
void smcr_llc_delete_rkey_later(smcr_lgr *lgr, smcr_buf *rmb);
/* The above, into the flow engine's table. */
void smcr_llc_rkey_register(smcr_llc_handlers *h);

#endif
