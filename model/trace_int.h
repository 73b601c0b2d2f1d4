/* Handing protocol messages to the host's optional trace callback (smcr_callbacks.trace,
 * model/smcr.h): one call per CLC, LLC or CDC message sent or taken in. */
#ifndef SMCR_TRACE_INT_H
#define SMCR_TRACE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/smcr.h"

typedef struct smcr_link smcr_link;

/* A CLC message of `conn` (its bytes as they go to or came from the stream). */
void smcr_trace_clc(smcr_conn *conn, bool outbound, const uint8_t *data, size_t len);
/* An LLC or CDC message on `lnk` (conn_id: the connection of a sent CDC, else 0). */
void smcr_trace_wr(smcr_link *lnk, smcr_trace_proto proto, bool outbound, uint64_t conn_id, const uint8_t *data,
                   size_t len);

#endif
