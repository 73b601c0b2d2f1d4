/* TEST_LINK (Linux smc_llc_send_test_link, smc_llc_testlink_work, smc_llc_event_handler):
 * a link idle for testlink_time sends the keepalive request with 16 bytes of user data
 * and goes down when no response comes within 2 s; the response is the whole request
 * echoed with the response flag. */
#include "model/llc_keepalive_int.h"

#include <string.h>

#include "model/ctx_int.h"
#include "model/link_int.h"
#include "model/llc.h"
#include "model/llc_flow_int.h"
#include "model/timer_int.h"

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

void smcr_llc_testlink_timer(smcr_link *lnk)
{
	/* smc_llc_testlink_work() */
	smcr_ctx *ctx = lnk->ctx;
	if (!smcr_link_active(lnk))
		return;
	if (lnk->testlink_pending) {
		lnk->testlink_pending = false;
		smcr_link_down(lnk, SMCR_LINKDOWN_TESTLINK);
		return;
	}
	uint64_t expire = lnk->last_rx + lnk->testlink_time;
	if (expire > ctx->now) {
		smcr_timer_arm(ctx, &lnk->testlink_timer, expire);
		return;
	}
	static const uint8_t user_data[16];
	lnk->testlink_pending = true;
	smcr_llc_send_test_link(lnk, user_data);
	smcr_timer_arm(ctx, &lnk->testlink_timer, ctx->now + SMCR_LLC_WAIT_TIME);
}

void smcr_llc_testlink_answered(smcr_link *lnk)
{
	if (!smcr_link_active(lnk) || !lnk->testlink_pending)
		return;
	lnk->testlink_pending = false;
	smcr_timer_arm(lnk->ctx, &lnk->testlink_timer, lnk->ctx->now + lnk->testlink_time);
}

void smcr_llc_keepalive_register(smcr_llc_handlers *h)
{
	h->test_link_resp = smcr_llc_send_test_link_resp;
	h->test_link_answered = smcr_llc_testlink_answered;
}
