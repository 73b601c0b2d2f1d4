/* The trace callback (model/trace_int.h): observation only, nothing here changes state. */
#include "model/trace_int.h"

#include "model/byteorder.h"
#include "model/conn_int.h"
#include "model/ctx_int.h"
#include "model/lgr_int.h"
#include "model/link_int.h"

static void emit(smcr_ctx *ctx, const smcr_trace_msg *m)
{
	if (ctx->cb.trace && !ctx->freeing)
		ctx->cb.trace(ctx->user, m);
}

void smcr_trace_clc(smcr_conn *conn, bool outbound, const uint8_t *data, size_t len)
{
	if (!conn->ctx->cb.trace)
		return;
	smcr_trace_msg m = { SMCR_TRACE_CLC, outbound, conn->id, conn->lgr ? conn->lgr->id : 0, 0, data, len };
	emit(conn->ctx, &m);
}

void smcr_trace_wr(smcr_link *lnk, smcr_trace_proto proto, bool outbound, uint64_t conn_id, const uint8_t *data,
                   size_t len)
{
	if (!lnk->ctx->cb.trace)
		return;
	if (proto == SMCR_TRACE_CDC && !outbound && len >= 8 && lnk->lgr) {
		/* the token names the receiving connection */
		const smcr_conn *c = smcr_lgr_find_conn(lnk->lgr, get_be32(data + 4));
		conn_id = c ? c->id : 0;
	}
	smcr_trace_msg m = { proto, outbound, conn_id, lnk->lgr ? lnk->lgr->id : 0, lnk->id, data, len };
	emit(lnk->ctx, &m);
}
