/* Failover (failover.c, Linux smc_switch_conns): connections of a failed link move to
 * another link of the group and resend what the peer may not have. */
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

#endif
