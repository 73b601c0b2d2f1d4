/* Failover (failover.c, Linux smc_switch_conns and the rest of smcr_link_down): connections
 * of a failed link move to another link of the group and resend what the peer may not
 * have, and the peer is told of the link's end. */
#ifndef SMCR_FAILOVER_INT_H
#define SMCR_FAILOVER_INT_H

#include <stdbool.h>

#include "model/smcr.h"

typedef struct smcr_lgr smcr_lgr;
typedef struct smcr_link smcr_link;

/* Move the connections of `from` to another active link: the link they went to, or NULL
 * when there is none (the lgr is then terminated) or that link failed meanwhile. */
smcr_link *smcr_switch_conns(smcr_lgr *lgr, smcr_link *from, bool is_dev_err);
void smcr_failover_slot_available(smcr_conn *conn);
void smcr_failover_orphans(smcr_link *lnk);
/* What a link that went down sets off (link.c's smcr_link_down, through ctx->hooks). */
void smcr_failover_link_down(smcr_link *lnk, smcr_linkdown_reason why, bool was_active);

#endif
