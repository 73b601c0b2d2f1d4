/* The LLC flow engine of a link group (Linux smc_llc.c: flows, event queue, delayed event,
 * response routing, smc_llc_wait()).
 *
 * One local flow per lgr runs at a time; Linux uses it both for flows started here (first
 * link confirmation, ADD_LINK, rkey registration) and for ADD/DELETE_LINK requests from the
 * peer. The remote flow only ever carries CONFIRM_RKEY/DELETE_RKEY requests, answered at
 * once, so here it never stays busy. Responses go straight to the local flow when it runs
 * the matching flow type and has no message yet; requests queue and are handled in order.
 * A request of the other exclusive type arriving during a flow is deferred once (the
 * delayed event); further ones are dropped. Local initiators wait up to 20 s for the flow.
 *
 * Linux blocks in smc_llc_wait(); here a procedure records its step, arms the flow timer
 * and returns; resume_proc() continues it on a message, a timeout or a failure. The
 * procedures and the requests answered at once are run through the context's table
 * (smcr_llc_handlers), which llc_link.c, llc_rkey.c and llc_keepalive.c register into. */
#include "model/llc_flow_int.h"

#include <string.h>

#include "model/buf_int.h"
#include "model/clc.h"
#include "model/conn_int.h"
#include "model/ctx_int.h"
#include "model/decode_err.h"
#include "model/lgr_int.h"
#include "model/link_int.h"
#include "model/list_int.h"
#include "model/llc.h"
#include "model/mem_int.h"
#include "model/smcr.h"
#include "model/smcr_err.h"
#include "model/timer_int.h"
#include "model/wr_int.h"

static void run_events(smcr_lgr *lgr);
static void kick_waiters(smcr_lgr *lgr);

void smcr_llc_lgr_init(smcr_lgr *lgr)
{
	memset(&lgr->lcl, 0, sizeof(lgr->lcl));
	smcr_list_init(&lgr->event_q);
	smcr_list_init(&lgr->flow_waiters);
}

static void qentry_free(smcr_lgr *lgr, smcr_llc_qentry *q)
{
	if (q)
		smcr_free(lgr->ctx, q);
}

static void report_drop(smcr_lgr *lgr, const char *why)
{
	lgr->ctx->stats.llc_dropped++;
	smcr_emit_simple(lgr->ctx, SMCR_EV_LLC_DROPPED, lgr->id, 0, 0, why);
}

static void protocol_violation(smcr_lgr *lgr, uint8_t type)
{
	/* smc_llc_protocol_violation(): terminate the lgr with reason 0x00040000 */
	(void)type;
	lgr->ctx->stats.llc_prot_viol++;
	smcr_emit_simple(lgr->ctx, SMCR_EV_LLC_PROTOCOL_VIOLATION, lgr->id, 0, SMCR_LLC_DEL_PROT_VIOL,
	                 smcr_llc_type_name(type));
	if (!lgr->termination_rsn)
		lgr->termination_rsn = SMCR_LLC_DEL_PROT_VIOL;
	smcr_lgr_terminate(lgr, SMCR_LLC_DEL_PROT_VIOL, "unexpected LLC message");
}

/* Sending ------------------------------------------------------------------------------- */

void smcr_llc_init_msg(smcr_lgr *lgr, smcr_llc_msg *m, uint8_t type)
{
	memset(m, 0, sizeof(*m));
	m->type = type;
	m->version = lgr->version == 2 ? 2 : 1;
	m->length = SMCR_LLC_LEN;
}

static int send_msg(smcr_link *lnk, const smcr_llc_msg *m, bool wait)
{
	if (!smcr_link_sendable(lnk) && !(wait && lnk && lnk->qp))
		return SMCR_ERR_STATE; /* smcr_wr_send_llc() judges an ending lgr's last message */
	uint8_t *buf = smcr_alloc(lnk->ctx, SMCR_LLC_V2_MAX_LEN);
	if (!buf)
		return SMCR_ERR_NOMEM;
	ssize_t n = smcr_llc_encode(buf, SMCR_LLC_V2_MAX_LEN, m, lnk->ctx->set.llc_v2_order);
	int rc = n < 0 ? (int)n : smcr_wr_send_llc(lnk, buf, (uint32_t)n, wait);
	smcr_free(lnk->ctx, buf);
	return rc;
}

int smcr_llc_send_raw(smcr_link *lnk, const uint8_t *buf, uint32_t len)
{
	if (!smcr_link_sendable(lnk))
		return SMCR_ERR_STATE;
	return smcr_wr_send_llc(lnk, buf, len, false);
}

int smcr_llc_send(smcr_link *lnk, const smcr_llc_msg *m) { return send_msg(lnk, m, false); }
int smcr_llc_send_wait(smcr_link *lnk, const smcr_llc_msg *m) { return send_msg(lnk, m, true); }

/* Flow bookkeeping ------------------------------------------------------------------------ */

static uint8_t flow_type_for(uint8_t msg_type)
{
	switch (msg_type) {
	case SMCR_LLC_ADD_LINK:
		return SMCR_FLOW_ADD_LINK;
	case SMCR_LLC_DELETE_LINK:
		return SMCR_FLOW_DEL_LINK;
	case SMCR_LLC_CONFIRM_RKEY:
	case SMCR_LLC_DELETE_RKEY:
		return SMCR_FLOW_RKEY;
	default:
		return SMCR_FLOW_NONE;
	}
}

/* smc_llc_flow_parallel(): defer one ADD/DELETE_LINK of the other type, drop the rest. */
static void flow_parallel(smcr_lgr *lgr, smcr_llc_qentry *q)
{
	uint8_t t = q->msg.type;
	if ((t == SMCR_LLC_ADD_LINK || t == SMCR_LLC_DELETE_LINK) && lgr->lcl.type != t &&
	    !lgr->delayed_event) {
		lgr->delayed_event = q;
		return;
	}
	report_drop(lgr, "parallel LLC request");
	qentry_free(lgr, q);
}

/* smc_llc_flow_start() for an incoming request. */
static bool flow_start(smcr_lgr *lgr, smcr_llc_qentry *q)
{
	if (lgr->lcl.type != SMCR_FLOW_NONE) {
		flow_parallel(lgr, q);
		return false;
	}
	memset(&lgr->lcl, 0, sizeof(lgr->lcl));
	lgr->lcl.type = flow_type_for(q->msg.type);
	lgr->lcl.qentry = q;
	return true;
}

static bool flow_start_local(smcr_lgr *lgr, uint8_t type)
{
	if (lgr->lcl.type != SMCR_FLOW_NONE || !lgr->listed)
		return false;
	memset(&lgr->lcl, 0, sizeof(lgr->lcl));
	lgr->lcl.type = type;
	return true;
}

void smcr_llc_flow_qentry_del(smcr_lgr *lgr)
{
	qentry_free(lgr, lgr->lcl.qentry);
	lgr->lcl.qentry = NULL;
}

void smcr_llc_flow_stop(smcr_lgr *lgr)
{
	smcr_llc_flow_qentry_del(lgr);
	qentry_free(lgr, lgr->lcl.req);
	memset(&lgr->lcl, 0, sizeof(lgr->lcl));
	smcr_timer_cancel(lgr->ctx, &lgr->llc_timer);
	if (lgr->listed && lgr->delayed_event)
		run_events(lgr);
	kick_waiters(lgr);
}

bool smcr_llc_wait_msg(smcr_lgr *lgr, smcr_link *lnk, uint64_t timeout, uint8_t exp_msg)
{
	smcr_llc_flow *f = &lgr->lcl;
	f->wait_exp = exp_msg;
	f->wait_link = lnk ? lnk->id : 0;
	if (f->qentry || (lnk && !smcr_link_usable(lnk)) || !lgr->listed) {
		f->waiting = false;
		return true; /* satisfied (or failed) at once: the caller continues now */
	}
	f->waiting = true;
	smcr_timer_arm(lgr->ctx, &lgr->llc_timer, lgr->ctx->now + timeout);
	return false;
}

/* What smc_llc_wait() returns once woken: the message if it is the expected one. An
 * unexpected DELETE_LINK while waiting for ADD_LINK becomes the delayed event. */
smcr_llc_qentry *smcr_llc_flow_take(smcr_lgr *lgr, uint8_t exp_msg, smcr_llc_wake why, bool *delayed)
{
	smcr_llc_flow *f = &lgr->lcl;
	if (delayed)
		*delayed = false;
	smcr_link *wl = f->wait_link ? smcr_ctx_find_link(lgr->ctx, f->wait_link) : NULL;
	if (why == SMCR_WAKE_FAIL || !f->qentry || (f->wait_link && !smcr_link_usable(wl)) || !lgr->listed) {
		smcr_llc_flow_qentry_del(lgr);
		return NULL;
	}
	uint8_t rcv = f->qentry->msg.type;
	if (exp_msg && rcv != exp_msg) {
		if (exp_msg == SMCR_LLC_ADD_LINK && rcv == SMCR_LLC_DELETE_LINK) {
			smcr_llc_qentry *q = f->qentry;
			f->qentry = NULL;
			flow_start(lgr, q); /* busy: becomes the delayed event */
			if (delayed)
				*delayed = true;
			return NULL;
		}
		report_drop(lgr, "unexpected LLC message");
		smcr_llc_flow_qentry_del(lgr);
		return NULL;
	}
	return f->qentry;
}

static void resume_proc(smcr_lgr *lgr, smcr_llc_wake why)
{
	smcr_llc_flow *f = &lgr->lcl;
	f->waiting = false;
	smcr_timer_cancel(lgr->ctx, &lgr->llc_timer);
	if (f->proc != SMCR_PROC_NONE)
		lgr->ctx->llc.proc[f->proc](lgr, why);
}

void smcr_llc_on_timer(smcr_lgr *lgr)
{
	if (lgr->lcl.waiting)
		resume_proc(lgr, SMCR_WAKE_TIMEOUT);
}

void smcr_llc_link_unusable(smcr_link *lnk)
{
	smcr_lgr *lgr = lnk->lgr;
	if (lgr->lcl.waiting && lgr->lcl.wait_link == lnk->id)
		resume_proc(lgr, SMCR_WAKE_FAIL);
}

/* Hand a message to the local flow and wake it if it waits. */
static void assign(smcr_lgr *lgr, smcr_llc_qentry *q)
{
	if (lgr->lcl.qentry)
		qentry_free(lgr, lgr->lcl.qentry);
	lgr->lcl.qentry = q;
	if (lgr->lcl.waiting)
		resume_proc(lgr, SMCR_WAKE_MSG);
}

/* Initiators waiting for the flow slot (smc_llc_flow_initiate) ------------------------ */

static void arm_flow_timer(smcr_lgr *lgr)
{
	uint64_t first = SMCR_NEVER;
	smcr_list *pos;
	smcr_list_for_each(pos, &lgr->flow_waiters) {
		smcr_flow_waiter *w = SMCR_CONTAINER_OF(pos, smcr_flow_waiter, node);
		if (w->deadline < first)
			first = w->deadline;
	}
	if (first == SMCR_NEVER)
		smcr_timer_cancel(lgr->ctx, &lgr->flow_timer);
	else
		smcr_timer_arm(lgr->ctx, &lgr->flow_timer, first);
}

void smcr_llc_add_waiter(smcr_lgr *lgr, smcr_flow_waiter_kind kind, uint64_t timeout,
                         uint64_t conn_id, smcr_buf *buf, uint64_t link_id, uint64_t to_link_id)
{
	smcr_flow_waiter *w = smcr_alloc(lgr->ctx, sizeof(*w));
	if (!w) {
		/* no memory to wait: behave as if the wait timed out right away */
		smcr_flow_waiter tmp = { .kind = kind, .conn_id = conn_id, .buf = buf, .link_id = link_id, .to_link_id = to_link_id };
		if (kind == SMCR_FW_CONN_RKEY) {
			smcr_conn *c = smcr_ctx_find_conn(lgr->ctx, conn_id);
			if (c)
				smcr_ctx_role(lgr->ctx, c->role)->rkey_done(c, SMCR_ERR_NOMEM);
		} else if (kind == SMCR_FW_DEL_RKEY) {
			lgr->ctx->hooks.rmb_unused(lgr, buf);
		} else if (kind == SMCR_FW_CLNT_LINKDOWN) {
			lgr->ctx->llc.clnt_linkdown_send(lgr, link_id, to_link_id);
		}
		(void)tmp;
		return;
	}
	w->kind = kind;
	w->deadline = lgr->ctx->now + timeout;
	w->conn_id = conn_id;
	w->buf = buf;
	w->link_id = link_id;
	w->to_link_id = to_link_id;
	smcr_list_add_tail(&lgr->flow_waiters, &w->node);
	kick_waiters(lgr); /* may start (and free) it at once; arms the timer */
}

void smcr_llc_remove_waiters_conn(smcr_lgr *lgr, uint64_t conn_id)
{
	smcr_list *pos, *tmp;
	smcr_list_for_each_safe(pos, tmp, &lgr->flow_waiters) {
		smcr_flow_waiter *w = SMCR_CONTAINER_OF(pos, smcr_flow_waiter, node);
		if (w->conn_id == conn_id) {
			smcr_list_del(&w->node);
			smcr_free(lgr->ctx, w);
		}
	}
	arm_flow_timer(lgr);
}

static void start_waiter(smcr_lgr *lgr, smcr_flow_waiter *w)
{
	smcr_llc_flow *f = &lgr->lcl;
	switch (w->kind) {
	case SMCR_FW_CONN_RKEY:
		flow_start_local(lgr, SMCR_FLOW_RKEY);
		f->proc = SMCR_PROC_RKEY;
		f->conn_id = w->conn_id;
		lgr->ctx->llc.proc[f->proc](lgr, SMCR_WAKE_START);
		break;
	case SMCR_FW_DEL_RKEY:
		flow_start_local(lgr, SMCR_FLOW_RKEY);
		f->proc = SMCR_PROC_DEL_RKEY;
		f->buf = w->buf;
		lgr->ctx->llc.proc[f->proc](lgr, SMCR_WAKE_START);
		break;
	case SMCR_FW_FIRST: {
		smcr_conn *c = smcr_ctx_find_conn(lgr->ctx, w->conn_id);
		flow_start_local(lgr, SMCR_FLOW_ADD_LINK);
		f->conn_id = w->conn_id;
		f->link_id = c && c->lnk ? c->lnk->id : 0;
		bool clnt = lgr->role == SMCR_ROLE_CLIENT;
		f->proc = clnt ? SMCR_PROC_CLNT_FIRST : SMCR_PROC_SRV_FIRST;
		lgr->ctx->llc.proc[f->proc](lgr, SMCR_WAKE_START);
		break;
	}
	case SMCR_FW_CLNT_LINKDOWN:
		lgr->ctx->llc.clnt_linkdown_send(lgr, w->link_id, w->to_link_id);
		break;
	}
}

static void kick_waiters(smcr_lgr *lgr)
{
	while (lgr->lcl.type == SMCR_FLOW_NONE && !smcr_list_empty(&lgr->flow_waiters) && lgr->listed &&
	       !lgr->delayed_event) {
		smcr_flow_waiter *w = SMCR_CONTAINER_OF(lgr->flow_waiters.next, smcr_flow_waiter, node);
		smcr_list_del(&w->node);
		smcr_flow_waiter copy = *w;
		smcr_free(lgr->ctx, w);
		start_waiter(lgr, &copy);
	}
	arm_flow_timer(lgr);
}

static void waiter_failed(smcr_lgr *lgr, smcr_flow_waiter *w, int rc)
{
	switch (w->kind) {
	case SMCR_FW_CONN_RKEY:
	case SMCR_FW_FIRST: {
		smcr_conn *c = smcr_ctx_find_conn(lgr->ctx, w->conn_id);
		if (!c)
			break;
		if (w->kind == SMCR_FW_CONN_RKEY)
			smcr_ctx_role(lgr->ctx, c->role)->rkey_done(c, rc);
		else
			smcr_ctx_role(lgr->ctx, c->role)->first_link_done(c, SMCR_DECL_INTERR);
		break;
	}
	case SMCR_FW_DEL_RKEY:
		lgr->ctx->hooks.rmb_unused(lgr, w->buf);
		break;
	case SMCR_FW_CLNT_LINKDOWN:
		/* waited 2 s: send the DELETE_LINK anyway (smcr_link_down) */
		lgr->ctx->llc.clnt_linkdown_send(lgr, w->link_id, w->to_link_id);
		break;
	}
}

void smcr_llc_on_flow_timer(smcr_lgr *lgr)
{
	smcr_ctx *ctx = lgr->ctx;
	smcr_list *pos, *tmp;
	smcr_list_for_each_safe(pos, tmp, &lgr->flow_waiters) {
		smcr_flow_waiter *w = SMCR_CONTAINER_OF(pos, smcr_flow_waiter, node);
		if (w->deadline > ctx->now)
			continue;
		smcr_list_del(&w->node);
		smcr_flow_waiter copy = *w;
		smcr_free(ctx, w);
		waiter_failed(lgr, &copy, SMCR_ERR_AGAIN);
		/* the callbacks may have changed the list */
		tmp = lgr->flow_waiters.next;
	}
	arm_flow_timer(lgr);
}

/* Called when the lgr ends: nothing waits any more. */
void smcr_llc_lgr_clear(smcr_lgr *lgr)
{
	smcr_ctx *ctx = lgr->ctx;
	while (!smcr_list_empty(&lgr->event_q)) {
		smcr_llc_qentry *q = SMCR_CONTAINER_OF(lgr->event_q.next, smcr_llc_qentry, node);
		smcr_list_del(&q->node);
		qentry_free(lgr, q);
	}
	qentry_free(lgr, lgr->delayed_event);
	lgr->delayed_event = NULL;
	/* a procedure that waits is told it failed (smc_llc_wait sees list_empty) */
	if (lgr->lcl.proc != SMCR_PROC_NONE && lgr->lcl.waiting)
		resume_proc(lgr, SMCR_WAKE_FAIL);
	if (lgr->lcl.type != SMCR_FLOW_NONE && lgr->lcl.proc == SMCR_PROC_NONE) {
		smcr_llc_flow_qentry_del(lgr);
		qentry_free(lgr, lgr->lcl.req);
		memset(&lgr->lcl, 0, sizeof(lgr->lcl));
	}
	while (!smcr_list_empty(&lgr->flow_waiters)) {
		smcr_flow_waiter *w = SMCR_CONTAINER_OF(lgr->flow_waiters.next, smcr_flow_waiter, node);
		smcr_list_del(&w->node);
		smcr_flow_waiter copy = *w;
		smcr_free(ctx, w);
		if (copy.kind != SMCR_FW_CLNT_LINKDOWN)
			waiter_failed(lgr, &copy, SMCR_ERR_CLOSED);
	}
	smcr_timer_cancel(ctx, &lgr->flow_timer);
	smcr_timer_cancel(ctx, &lgr->llc_timer);
}

/* Receiving ------------------------------------------------------------------------------ */

static void start_proc(smcr_lgr *lgr, smcr_llc_proc proc, smcr_llc_qentry *req)
{
	smcr_llc_flow *f = &lgr->lcl;
	f->proc = proc;
	f->step = 0; /* its start */
	f->req = req;
	resume_proc(lgr, SMCR_WAKE_START);
}

/* smc_llc_event_handler(): requests, in arrival order. */
static void event_handler(smcr_lgr *lgr, smcr_llc_qentry *q)
{
	smcr_link *lnk = smcr_ctx_find_link(lgr->ctx, q->link_id);
	smcr_llc_flow *f = &lgr->lcl;
	if (!smcr_link_usable(lnk)) {
		qentry_free(lgr, q);
		return;
	}
	switch (q->msg.type) {
	case SMCR_LLC_TEST_LINK:
		lgr->ctx->llc.test_link_resp(lnk, q->raw, q->raw_len);
		break;
	case SMCR_LLC_ADD_LINK:
		if (!lgr->listed)
			break; /* lgr is terminating */
		if (lgr->role == SMCR_ROLE_CLIENT) {
			if (q->local) {
				if (f->type == SMCR_FLOW_ADD_LINK)
					break; /* add_link in progress */
				if (flow_start(lgr, q)) {
					f->qentry = NULL;
					qentry_free(lgr, q);
					lgr->ctx->llc.cli_add_link_invite(lnk);
				}
				return;
			}
			if (f->type == SMCR_FLOW_ADD_LINK && !f->qentry) {
				assign(lgr, q); /* a flow is waiting for this message */
				return;
			}
			if (f->type == SMCR_FLOW_REQ_ADD_LINK) {
				/* the server started add_link processing */
				smcr_timer_cancel(lgr->ctx, &lgr->llc_timer);
				f->type = SMCR_FLOW_ADD_LINK;
				f->qentry = NULL;
				start_proc(lgr, SMCR_PROC_CLNT_ADD, q);
				return;
			}
			if (flow_start(lgr, q)) {
				f->qentry = NULL;
				start_proc(lgr, SMCR_PROC_CLNT_ADD, q);
			}
		} else if (flow_start(lgr, q)) {
			/* as server: local trigger or client suggestion */
			f->qentry = NULL;
			start_proc(lgr, SMCR_PROC_SRV_ADD, q);
		}
		return;
	case SMCR_LLC_CONFIRM_LINK:
	case SMCR_LLC_ADD_LINK_CONT:
		if (f->type != SMCR_FLOW_NONE) {
			assign(lgr, q);
			return;
		}
		report_drop(lgr, "LLC message outside of a flow");
		break;
	case SMCR_LLC_DELETE_LINK:
		if (f->type == SMCR_FLOW_ADD_LINK && !f->qentry) {
			assign(lgr, q); /* DELETE_LINK request during ADD_LINK */
			return;
		}
		if (flow_start(lgr, q)) {
			f->qentry = NULL;
			if (lgr->role == SMCR_ROLE_CLIENT) {
				lgr->ctx->llc.cli_delete_link(lgr, q);
				smcr_llc_flow_stop(lgr);
			} else {
				start_proc(lgr, SMCR_PROC_SRV_DEL, q);
			}
		}
		return;
	case SMCR_LLC_CONFIRM_RKEY:
		lgr->ctx->llc.rmt_conf_rkey(lgr, q);
		break;
	case SMCR_LLC_CONFIRM_RKEY_CONT:
		break; /* not used: max 3 links fit into one CONFIRM_RKEY */
	case SMCR_LLC_DELETE_RKEY:
		lgr->ctx->llc.rmt_delete_rkey(lgr, q);
		break;
	case SMCR_LLC_REQ_ADD_LINK:
		if (lgr->role == SMCR_ROLE_CLIENT && f->type == SMCR_FLOW_REQ_ADD_LINK &&
		    (q->msg.flags & SMCR_LLC_FLAG_RESP)) {
			qentry_free(lgr, q);
			smcr_llc_flow_stop(lgr);
			return;
		}
		if (lgr->role == SMCR_ROLE_SERVER) {
			if (flow_start(lgr, q)) {
				f->type = SMCR_FLOW_ADD_LINK;
				f->qentry = NULL;
				start_proc(lgr, SMCR_PROC_SRV_ADD, q);
			}
			return;
		}
		break;
	default:
		qentry_free(lgr, q);
		protocol_violation(lgr, q->msg.type);
		return;
	}
	qentry_free(lgr, q);
}

/* smc_llc_event_work(): the delayed event first (when the flow is free), then the queue.
 * Not reentrant: a nested call leaves the work to the running loop. */
static void run_events(smcr_lgr *lgr)
{
	if (lgr->llc_running)
		return;
	lgr->llc_running = true;
	for (;;) {
		if (lgr->dead)
			break;
		if (lgr->lcl.type == SMCR_FLOW_NONE && lgr->delayed_event) {
			smcr_llc_qentry *q = lgr->delayed_event;
			lgr->delayed_event = NULL;
			event_handler(lgr, q);
			continue;
		}
		if (smcr_list_empty(&lgr->event_q))
			break;
		smcr_llc_qentry *q = SMCR_CONTAINER_OF(lgr->event_q.next, smcr_llc_qentry, node);
		smcr_list_del(&q->node);
		event_handler(lgr, q);
	}
	lgr->llc_running = false;
	if (!lgr->dead)
		kick_waiters(lgr);
}

/* smc_llc_rx_response(): responses go to the local flow if it expects them. */
static void rx_response(smcr_lgr *lgr, smcr_llc_qentry *q)
{
	smcr_llc_flow *f = &lgr->lcl;
	switch (q->msg.type) {
	case SMCR_LLC_TEST_LINK: {
		smcr_link *l = smcr_ctx_find_link(lgr->ctx, q->link_id);
		if (l)
			lgr->ctx->llc.test_link_answered(l);
		break;
	}
	case SMCR_LLC_ADD_LINK:
	case SMCR_LLC_ADD_LINK_CONT:
	case SMCR_LLC_CONFIRM_LINK:
		if (f->type != SMCR_FLOW_ADD_LINK || f->qentry)
			break; /* drop out-of-flow response */
		assign(lgr, q);
		return;
	case SMCR_LLC_DELETE_LINK:
		if (f->type != SMCR_FLOW_DEL_LINK || f->qentry)
			break;
		assign(lgr, q);
		return;
	case SMCR_LLC_CONFIRM_RKEY:
	case SMCR_LLC_DELETE_RKEY:
		if (f->type != SMCR_FLOW_RKEY || f->qentry)
			break;
		assign(lgr, q);
		return;
	case SMCR_LLC_CONFIRM_RKEY_CONT:
		break;
	default:
		qentry_free(lgr, q);
		protocol_violation(lgr, q->msg.type);
		return;
	}
	qentry_free(lgr, q);
}

static void enqueue(smcr_lgr *lgr, smcr_llc_qentry *q)
{
	if ((q->msg.flags & SMCR_LLC_FLAG_RESP) && q->msg.type != SMCR_LLC_REQ_ADD_LINK) {
		rx_response(lgr, q);
		return;
	}
	smcr_list_add_tail(&lgr->event_q, &q->node);
	run_events(lgr);
}

void smcr_llc_enqueue_local(smcr_link *lnk, const smcr_llc_msg *m)
{
	smcr_lgr *lgr = lnk->lgr;
	smcr_llc_qentry *q = smcr_alloc(lnk->ctx, sizeof(*q));
	if (!q)
		return;
	smcr_list_init(&q->node);
	q->link_id = lnk->id;
	q->local = true;
	q->msg = *m;
	enqueue(lgr, q);
}

void smcr_llc_rx(smcr_link *lnk, const uint8_t *buf, uint32_t len)
{
	smcr_ctx *ctx = lnk->ctx;
	smcr_lgr *lgr = lnk->lgr;
	smcr_llc_qentry *q = smcr_alloc(ctx, sizeof(*q));
	if (!q)
		return;
	smcr_decode_err err;
	memset(&err, 0, sizeof(err));
	int rc = smcr_llc_decode(&q->msg, buf, len, &err);
	if (rc) {
		smcr_free(ctx, q);
		ctx->stats.decode_errors++;
		smcr_event ev;
		memset(&ev, 0, sizeof(ev));
		ev.type = SMCR_EV_DECODE_ERROR;
		ev.lgr_id = lgr->id;
		ev.decode_err = &err;
		ev.text = "LLC";
		smcr_emit(ctx, &ev);
		return;
	}
	q->raw_len = len < SMCR_LLC_LEN ? len : SMCR_LLC_LEN;
	memcpy(q->raw, buf, q->raw_len);
	smcr_list_init(&q->node);
	q->link_id = lnk->id;
	enqueue(lgr, q);
}
