/* The send side of a connection (tx.c, Linux smc_tx.c and the send half of smc_cdc.c):
 * RDMA WRITEs of the send buffer into the peer's RMBE, the CDC that announces them and its
 * completion, and consumer cursor updates. */
#ifndef SMCR_TX_INT_H
#define SMCR_TX_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "model/smcr.h"

typedef struct smcr_link smcr_link;
typedef struct smcr_send_slot smcr_send_slot;

int smcr_tx_sndbuf_nonempty(smcr_conn *conn);
uint32_t smcr_tx_prepared_sends(const smcr_conn *conn);
void smcr_tx_consumer_update(smcr_conn *conn, bool force);
int smcr_cdc_get_slot_and_msg_send(smcr_conn *conn);
/* A send slot freed up for a connection that waited for one. */
void smcr_tx_slot_available(smcr_conn *conn);
void smcr_cdc_tx_done(smcr_link *lnk, smcr_send_slot *s, bool ok);

#endif
