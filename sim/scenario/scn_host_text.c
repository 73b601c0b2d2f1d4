/* A host profile's fields in the words of the `host` statement (scn_host_text.h). */
#include <stdio.h>

#include "sim/scenario/scn_host_text.h"
#include "sim/scenario/scn_values.h"

/* The parser takes 8e12 / bps, so any bps in (8e12 / (ps + 1), 8e12 / ps] will do; 42 ps
 * is "190Gbps". */
uint64_t scn_host_rate_of_ps(uint64_t ps)
{
	uint64_t hi = SCN_PS_PER_BYTE_BITS / ps, lo = SCN_PS_PER_BYTE_BITS / (ps + 1);
	for (uint64_t unit = 1000000000000ULL; unit > 1; unit /= 10) {
		uint64_t m = hi / unit * unit;
		if (m > lo && SCN_PS_PER_BYTE_BITS / m == ps)
			return m;
	}
	return hi;
}

char *scn_host_field_text(const host_profile *p, const host_field *f, char *buf, size_t len)
{
	uint64_t v = host_field_get(p, f);
	switch (f->unit) {
	case HOST_UNIT_NS:
		return scn_format_duration(v, buf, len);
	case HOST_UNIT_BYTES:
		return scn_format_size(v, buf, len);
	case HOST_UNIT_PS_BYTE:
		if (v)
			return scn_format_rate(scn_host_rate_of_ps(v), buf, len);
		snprintf(buf, len, "0bps"); /* offloaded: no cost (a rate needs its unit) */
		return buf;
	case HOST_UNIT_COUNT:
	case HOST_UNIT_PCT:
		break;
	}
	snprintf(buf, len, "%llu", (unsigned long long)v);
	return buf;
}
