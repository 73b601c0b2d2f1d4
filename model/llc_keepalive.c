/* TEST_LINK (Linux smc_llc_send_test_link, smc_llc_event_handler): the keepalive request
 * carries 16 bytes of user data that the response echoes. The timer side is in link.c. */
#include "model/llc_keepalive_int.h"

#include <string.h>

#include "model/link_int.h"
#include "model/llc.h"
#include "model/llc_flow_int.h"

int smcr_llc_send_test_link(smcr_link *lnk, const uint8_t user_data[16], bool resp)
{
	smcr_llc_msg m;
	smcr_llc_init_msg(lnk->lgr, &m, SMCR_LLC_TEST_LINK);
	if (resp)
		m.flags |= SMCR_LLC_FLAG_RESP;
	memcpy(m.u.test_link.user_data, user_data, 16);
	return smcr_llc_send(lnk, &m);
}
