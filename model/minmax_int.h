/* The smaller of two byte counts (ring pieces, window limits). */
#ifndef SMCR_MINMAX_INT_H
#define SMCR_MINMAX_INT_H

#include <stdint.h>

static inline uint32_t smcr_min32(uint32_t a, uint32_t b) { return a < b ? a : b; }

#endif
