/* One SMC-R message as observers show it: a short summary ("CLC Proposal v2", "LLC
 * ADD_LINK request", "CDC seq 5 closed") for pictures and the event stream, and its
 * decoded wire fields written with replay's field walk (sim/replay/replay_fields.h), so the
 * event stream names every field exactly as `replay --messages --format json` does. */
#ifndef SIM_OBS_MSG_H
#define SIM_OBS_MSG_H

#include <stddef.h>
#include <stdint.h>

#include "model/smcr.h"
#include "sim/report/json_writer.h"

/* The protocol's name in outputs: "clc", "llc", "cdc". */
const char *obs_proto_name(smcr_trace_proto p);
void obs_msg_summary(smcr_trace_proto p, const uint8_t *data, size_t len, char *buf, size_t n);
/* Every field of the message as members of the current JSON object. */
void obs_msg_fields_json(json_writer *w, smcr_trace_proto p, const uint8_t *data, size_t len);
/* A CDC message that says something beyond cursors: a close or abort flag, a failover
 * validation (sampled CDC streams keep these). */
int obs_cdc_is_notable(const uint8_t *data, size_t len);

#endif
