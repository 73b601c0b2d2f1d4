/* The event stream of a run (`smcr-sim run --events FILE`): one JSON object per line (JSON
 * Lines) for every protocol-visible event, in the order they happen, each with its virtual
 * time and the stack it concerns:
 *   start     the scenario, its seed and stacks (the first line)
 *   clc llc cdc  a message a stack sent ("dir": "out") or received ("in"), with its peer,
 *             link group, link and connection as the reports name them, a summary and
 *             every decoded wire field ("fields", the keys of replay --messages)
 *   link      a link became active, failed, failed to set up, was removed
 *   lgr       a link group was created, changed type, ended, was freed
 *   note      an ADD LINK rejected, a message that did not decode, an LLC message dropped
 *   conn      a connection end opened (its mode, a fallback's reason), changed state, ended
 *   timeline  a fail, restore, set, start or stop of the scenario's timeline
 *   expect    an expectation checked, met or not
 *   end       the run's end: virtual time, engine events, expectations, fingerprint
 * Every line of one kind has the same keys (null where a value does not apply);
 * docs/schema/events.schema.json describes each. The stream depends only on the scenario
 * and the seed, like every other output. CDC messages can be many: all, none, or every
 * Nth of each connection and direction (plus every one carrying a close or abort flag or a
 * failover validation). */
#ifndef SIM_EVENT_STREAM_H
#define SIM_EVENT_STREAM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "sim/observe/obs_ident.h"
#include "sim/world/world.h"

typedef enum obs_cdc_mode {
	OBS_CDC_ALL,
	OBS_CDC_NONE,
	OBS_CDC_EVERY,
} obs_cdc_mode;

typedef struct event_stream_opts {
	obs_cdc_mode cdc;
	uint32_t cdc_every; /* OBS_CDC_EVERY: keep the 1st, (N+1)th, … of each connection and direction */
	uint64_t seed;      /* the run's seed, for the start line */
} event_stream_opts;

/* "all", "none", "every=N" (N >= 1); 0, or -1 with what was expected in err. */
int event_stream_parse_cdc(const char *text, event_stream_opts *o, char *err, size_t errlen);

typedef struct event_stream event_stream;

/* Write to `out` (not closed here). The start line is written at once. */
event_stream *event_stream_new(FILE *out, world *w, obs_ident *id, const event_stream_opts *o);
/* The callbacks that feed it (sample_ns stays 0: it takes no samples). */
void event_stream_observer(event_stream *es, world_observer *obs);
/* Lines written so far. */
uint64_t event_stream_lines(const event_stream *es);
void event_stream_free(event_stream *es);

#endif
