/* The receive side of a connection (rx.c, Linux smc_rx.c and the receive half of
 * smc_cdc.c): a received CDC. */
#ifndef SMCR_RX_INT_H
#define SMCR_RX_INT_H

#include <stdint.h>

typedef struct smcr_link smcr_link;

void smcr_cdc_rx(smcr_link *lnk, const uint8_t *buf, uint32_t len);

#endif
