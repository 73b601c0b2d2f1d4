/* CDC codec: the 44-byte connection data control message (Linux smc_cdc.h,
 * smc_cdc_rx_handler). Cursor arithmetic lives in cdc.h. */
#include "model/cdc.h"

#include <stdio.h>
#include <string.h>

#include "model/llc.h"
#include "model/smcr_err.h"
#include "model/byteorder.h"

static uint8_t *put_cursor(uint8_t *p, const smcr_cursor *c)
{
	p = put_zero(p, 2); /* reserved */
	p = put_be16(p, c->wrap);
	return put_be32(p, c->count);
}

static void get_cursor(smcr_cursor *c, const uint8_t *p)
{
	c->wrap = get_be16(p + 2);
	c->count = get_be32(p + 4);
}

void smcr_cdc_encode(uint8_t out[SMCR_CDC_LEN], const smcr_cdc_msg *m)
{
	uint8_t *p = out;
	p = put_u8(p, SMCR_CDC_TYPE);
	p = put_u8(p, SMCR_CDC_LEN);
	p = put_be16(p, m->seqno);
	p = put_be32(p, m->token);
	p = put_cursor(p, &m->prod);
	p = put_cursor(p, &m->cons);
	p = put_u8(p, m->prod_flags);
	p = put_u8(p, m->conn_flags);
	put_zero(p, SMCR_CDC_LEN - 26);
}

int smcr_cdc_decode(smcr_cdc_msg *m, const uint8_t *buf, size_t len, smcr_decode_err *err)
{
	const char *msg = "CDC";
	if (len < 1)
		return smcr_decode_fail(err, SMCR_ERR_SHORT, msg, "type", 0, len, ">= %d bytes", SMCR_CDC_MIN_LEN);
	if (buf[0] != SMCR_CDC_TYPE)
		return smcr_decode_fail(err, SMCR_ERR_TYPE, msg, "type", 0, buf[0], "0x%02X", SMCR_CDC_TYPE);
	if (len < SMCR_CDC_MIN_LEN)
		return smcr_decode_fail(err, SMCR_ERR_SHORT, msg, "message", 0, len, ">= %d bytes", SMCR_CDC_MIN_LEN);
	if (buf[1] != SMCR_CDC_LEN)
		return smcr_decode_fail(err, SMCR_ERR_LENGTH, msg, "length", 1, buf[1], "%d", SMCR_CDC_LEN);
	memset(m, 0, sizeof(*m));
	m->seqno = get_be16(buf + 2);
	m->token = get_be32(buf + 4);
	get_cursor(&m->prod, buf + 8);
	get_cursor(&m->cons, buf + 16);
	m->prod_flags = buf[24];
	m->conn_flags = buf[25];
	return 0;
}

void smcr_cdc_describe(const smcr_cdc_msg *m, char *out, size_t outlen)
{
	if (!outlen)
		return;
	uint8_t pf = m->prod_flags, cf = m->conn_flags;
	snprintf(out, outlen, "CDC seq %u token 0x%08x prod %u:%u cons %u:%u%s%s%s%s%s%s%s%s", m->seqno, m->token,
	         m->prod.wrap, m->prod.count, m->cons.wrap, m->cons.count,
	         pf & SMCR_CDC_WRITE_BLOCKED ? " write-blocked" : "", pf & SMCR_CDC_URG_PENDING ? " urg-pending" : "",
	         pf & SMCR_CDC_URG_PRESENT ? " urg-present" : "", pf & SMCR_CDC_CONS_UPD_REQ ? " cons-upd-req" : "",
	         pf & SMCR_CDC_FAILOVER_VALIDATION ? " failover-validation" : "",
	         cf & SMCR_CDC_PEER_DONE_WRITING ? " done-writing" : "", cf & SMCR_CDC_PEER_CONN_CLOSED ? " closed" : "",
	         cf & SMCR_CDC_PEER_CONN_ABORT ? " abort" : "");
}
