/* A host profile's fields in the words of the scenario's `host` statement: what `check
 * --dump` and the applicability tool write, and the parser reads back to the same value. */
#ifndef SIM_SCENARIO_SCN_HOST_TEXT_H
#define SIM_SCENARIO_SCN_HOST_TEXT_H

#include <stddef.h>
#include <stdint.h>

#include "sim/host/host_profile.h"

/* A per-byte cost is given as a rate: 8 bits x 10^12 ps / bps = ps a byte. */
#define SCN_PS_PER_BYTE_BITS 8000000000000ULL

/* The roundest rate that reads back to ps picoseconds a byte. */
uint64_t scn_host_rate_of_ps(uint64_t ps);
/* Field f of p as its value is written (50us, 64K, 190Gbps, 4). */
char *scn_host_field_text(const host_profile *p, const host_field *f, char *buf, size_t len);

#endif
