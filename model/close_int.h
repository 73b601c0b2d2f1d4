/* Closing a connection (close.c, Linux smc_close.c): active close, shutdown, abort, the
 * passive side driven by the peer's close flags and the 2 s wait for the send buffer. */
#ifndef SMCR_CLOSE_INT_H
#define SMCR_CLOSE_INT_H

#include "model/smcr.h"

void smcr_close_passive(smcr_conn *conn);
void smcr_close_active_abort(smcr_conn *conn);
int smcr_close_abort(smcr_conn *conn);
void smcr_close_wake_tx_prepared(smcr_conn *conn);
void smcr_close_on_timer(smcr_conn *conn);

#endif
