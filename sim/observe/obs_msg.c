/* Observers' view of one message (obs_msg.h). */
#include "sim/observe/obs_msg.h"

#include <stdio.h>
#include <string.h>

#include "model/byteorder.h"
#include "model/cdc.h"
#include "model/clc.h"
#include "model/llc.h"
#include "sim/replay/replay_fields.h"

const char *obs_proto_name(smcr_trace_proto p)
{
	switch (p) {
	case SMCR_TRACE_CLC:
		return "clc";
	case SMCR_TRACE_LLC:
		return "llc";
	case SMCR_TRACE_CDC:
		return "cdc";
	}
	return "?";
}

static void cdc_summary(const uint8_t *p, size_t len, char *buf, size_t n)
{
	if (len < SMCR_CDC_MIN_LEN) {
		snprintf(buf, n, "CDC (%zu bytes)", len);
		return;
	}
	uint8_t pf = p[24], cf = p[25];
	snprintf(buf, n, "CDC seq %u%s%s%s%s%s", get_be16(p + 2), cf & SMCR_CDC_PEER_CONN_ABORT ? " abort" : "",
	         cf & SMCR_CDC_PEER_CONN_CLOSED ? " closed" : "", cf & SMCR_CDC_PEER_DONE_WRITING ? " done" : "",
	         pf & SMCR_CDC_FAILOVER_VALIDATION ? " validation" : "", pf & SMCR_CDC_WRITE_BLOCKED ? " blocked" : "");
}

void obs_msg_summary(smcr_trace_proto proto, const uint8_t *p, size_t len, char *buf, size_t n)
{
	switch (proto) {
	case SMCR_TRACE_CLC: {
		uint8_t type = len > 4 ? p[4] : 0;
		unsigned ver = len > 7 ? (unsigned)(p[7] >> 4) : 0u;
		if (type == SMCR_CLC_DECLINE && len >= 20)
			snprintf(buf, n, "%s v%u %s", smcr_clc_type_name(type), ver, smcr_decline_name(get_be32(p + 16)));
		else
			snprintf(buf, n, "%s v%u", smcr_clc_type_name(type), ver);
		return;
	}
	case SMCR_TRACE_LLC: {
		bool v2 = len && (p[0] & 0xF0) == 0x20;
		snprintf(buf, n, "%s %s %s", v2 ? "LLCv2" : "LLC", len ? smcr_llc_type_name(p[0]) : "?",
		         len > 3 && (p[3] & SMCR_LLC_FLAG_RESP) ? "response" : "request");
		return;
	}
	case SMCR_TRACE_CDC:
		cdc_summary(p, len, buf, n);
		return;
	}
	snprintf(buf, n, "?");
}

void obs_msg_fields_json(json_writer *w, smcr_trace_proto proto, const uint8_t *data, size_t len)
{
	replay_msg m;
	memset(&m, 0, sizeof(m));
	m.kind = proto == SMCR_TRACE_CLC ? REPLAY_MSG_CLC : proto == SMCR_TRACE_LLC ? REPLAY_MSG_LLC
	                                                                            : REPLAY_MSG_CDC;
	m.data = data;
	m.len = (uint32_t)len;
	rp_sink k = { .w = w };
	rp_fields_of_msg(&k, &m);
}

int obs_cdc_is_notable(const uint8_t *p, size_t len)
{
	if (len < SMCR_CDC_MIN_LEN)
		return 1;
	return (p[25] & SMCR_CDC_CLOSE_FLAGS) || (p[24] & SMCR_CDC_FAILOVER_VALIDATION);
}
