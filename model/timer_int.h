/* Timers (timer.c): embedded in the objects they belong to, kept in the context's binary
 * heap ordered by (at, arm sequence); the context dispatches them by kind. */
#ifndef SMCR_TIMER_INT_H
#define SMCR_TIMER_INT_H

#include <stdbool.h>
#include <stdint.h>

typedef struct smcr_ctx smcr_ctx;

typedef enum smcr_timer_kind {
	SMCR_TMR_CONN_CLC = 1,  /* CLC message wait (6 s / 1 s) */
	SMCR_TMR_CONN_CLOSE,    /* close: flush wait (2 s) */
	SMCR_TMR_LGR_FREE,      /* idle linger */
	SMCR_TMR_LGR_LLC,       /* local LLC flow waiting for a message */
	SMCR_TMR_LGR_FLOW,      /* initiators waiting for the flow slot */
	SMCR_TMR_LGR_TERM,      /* DELETE_LINK ALL send completion wait */
	SMCR_TMR_LINK_TESTLINK, /* keepalive */
	SMCR_TMR_LINK_SLOT,     /* send slot wait (10 s) */
} smcr_timer_kind;

typedef struct smcr_timer {
	uint64_t at;
	uint64_t seq;
	uint32_t pos; /* heap index + 1; 0 = not armed */
	uint8_t kind;
	void *obj;
} smcr_timer;

void smcr_timer_init(smcr_timer *t, smcr_timer_kind kind, void *obj);
/* Grow (delta > 0) or shrink the heap's reserved room: objects reserve for their timers
 * when they are created, so arming never allocates. */
int smcr_timer_reserve(smcr_ctx *ctx, int delta);
void smcr_timer_arm(smcr_ctx *ctx, smcr_timer *t, uint64_t at);
void smcr_timer_cancel(smcr_ctx *ctx, smcr_timer *t);
static inline bool smcr_timer_armed(const smcr_timer *t) { return t->pos != 0; }
smcr_timer *smcr_timer_pop_due(smcr_ctx *ctx, uint64_t now);
uint64_t smcr_timer_next(const smcr_ctx *ctx);

#endif
