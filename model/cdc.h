/* CDC: connection data control (type 0xFE, 44 bytes, an RDMA SEND on the connection's
 * link), and the cursor arithmetic it carries (Linux smc_cdc.h). Layout:
 * RFC 7609 and Linux struct smc_cdc_msg.
 */
#ifndef SMCR_CDC_H
#define SMCR_CDC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/decode_err.h"

#define SMCR_CDC_LEN 44
#define SMCR_CDC_MIN_LEN 26 /* Linux accepts a CDC once the flags (bytes 24-25) are there */

/* Producer flags (byte 24). */
#define SMCR_CDC_WRITE_BLOCKED 0x80
#define SMCR_CDC_URG_PENDING 0x40
#define SMCR_CDC_URG_PRESENT 0x20
#define SMCR_CDC_CONS_UPD_REQ 0x10
#define SMCR_CDC_FAILOVER_VALIDATION 0x08

/* Connection state flags (byte 25). */
#define SMCR_CDC_PEER_DONE_WRITING 0x80
#define SMCR_CDC_PEER_CONN_CLOSED 0x40
#define SMCR_CDC_PEER_CONN_ABORT 0x20
#define SMCR_CDC_CLOSE_FLAGS (SMCR_CDC_PEER_DONE_WRITING | SMCR_CDC_PEER_CONN_CLOSED | SMCR_CDC_PEER_CONN_ABORT)

typedef struct smcr_cursor {
	uint16_t wrap;
	uint32_t count; /* 0 <= count < RMBE size */
} smcr_cursor;

typedef struct smcr_cdc_msg {
	uint16_t seqno;
	uint32_t token; /* alert token of the receiving connection */
	smcr_cursor prod;
	smcr_cursor cons;
	uint8_t prod_flags;
	uint8_t conn_flags;
} smcr_cdc_msg;

void smcr_cdc_encode(uint8_t out[SMCR_CDC_LEN], const smcr_cdc_msg *m);
/* Linux rules (smc_cdc_rx_handler): drop when byte 0 is not 0xFE, when shorter than 26
 * bytes (the fields before the reserved tail) or when the length byte is not 44. */
int smcr_cdc_decode(smcr_cdc_msg *m, const uint8_t *buf, size_t len, smcr_decode_err *err);
void smcr_cdc_describe(const smcr_cdc_msg *m, char *out, size_t outlen);

/* Cursor arithmetic over a ring of `size` bytes. */
static inline void smcr_curs_add(smcr_cursor *c, uint32_t size, uint32_t n)
{
	uint64_t v = (uint64_t)c->count + n;
	while (v >= size) {
		v -= size;
		c->wrap++;
	}
	c->count = (uint32_t)v;
}

/* Bytes from old to new (old not after new, at most one ring apart). */
static inline uint32_t smcr_curs_diff(uint32_t size, const smcr_cursor *old, const smcr_cursor *new_)
{
	if (old->wrap != new_->wrap)
		return size - old->count + new_->count;
	return new_->count >= old->count ? new_->count - old->count : 0;
}

/* <0, 0, >0 as a is before, equal to, after b (wrap compared modulo 2^16). */
static inline int smcr_curs_comp(uint32_t size, const smcr_cursor *a, const smcr_cursor *b)
{
	(void)size;
	if (a->wrap != b->wrap)
		return (int16_t)(uint16_t)(a->wrap - b->wrap) < 0 ? -1 : 1;
	return a->count < b->count ? -1 : a->count > b->count ? 1
	                                                      : 0;
}

#endif
