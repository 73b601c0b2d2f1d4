/* TEST_LINK (llc_keepalive.c): the keepalive request and its echo. */
#ifndef SMCR_LLC_KEEPALIVE_INT_H
#define SMCR_LLC_KEEPALIVE_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "model/llc_flow_int.h"

typedef struct smcr_link smcr_link;

int smcr_llc_send_test_link(smcr_link *lnk, const uint8_t user_data[16]);
/* The response: the request's bytes with the response flag set. */
int smcr_llc_send_test_link_resp(smcr_link *lnk, const uint8_t *req, uint32_t len);
/* The response, into the flow engine's table. */
void smcr_llc_keepalive_register(smcr_llc_handlers *h);

#endif
