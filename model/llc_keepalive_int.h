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
/* The link's keepalive timer (testlink_timer) ran out: TEST_LINK, or down when the last
 * one had no answer. */
void smcr_llc_testlink_timer(smcr_link *lnk);
/* A TEST_LINK response arrived on the link. */
void smcr_llc_testlink_answered(smcr_link *lnk);
/* The response and the answer, into the flow engine's table. */
void smcr_llc_keepalive_register(smcr_llc_handlers *h);

#endif
