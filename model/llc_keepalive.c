/* TEST_LINK (Linux smc_llc_send_test_link, smc_llc_event_handler): the keepalive request
 * carries 16 bytes of user data; the response is the whole request echoed with the
 * response flag. The timer side is in link.c. */
#include "model/llc_keepalive_int.h"

#include <string.h>

#include "model/link_int.h"
#include "model/llc.h"
#include "model/llc_flow_int.h"

int smcr_llc_send_test_link(smcr_link *lnk, const uint8_t user_data[16])
{
	smcr_llc_msg m;
	smcr_llc_init_msg(lnk->lgr, &m, SMCR_LLC_TEST_LINK);
	memcpy(m.u.test_link.user_data, user_data, 16);
	return smcr_llc_send(lnk, &m);
}

/* smc_llc_event_handler(): `llc->test_link.hd.flags |= SMC_LLC_FLAG_RESP` and the same
 * buffer goes back, so reserved bytes and a v2 length in the requester's byte order
 * return untouched. */
int smcr_llc_send_test_link_resp(smcr_link *lnk, const uint8_t *req, uint32_t len)
{
	uint8_t buf[SMCR_LLC_LEN];
	if (len != SMCR_LLC_LEN)
		return SMCR_ERR_INVAL; /* the decoder let only a 44-byte TEST_LINK through */
	memcpy(buf, req, len);
	buf[3] |= SMCR_LLC_FLAG_RESP;
	return smcr_llc_send_raw(lnk, buf, len);
}

void smcr_llc_keepalive_register(smcr_llc_handlers *h) { h->test_link_resp = smcr_llc_send_test_link_resp; }
