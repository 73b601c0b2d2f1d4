/* A short RoCE exchange between the testbed's two adapters (sim/testbed/testbed.h), every
 * frame adapter A sends or receives written to a classic pcap, so that tshark can judge
 * the encoding (`smcr-sim debug fabric-pcap`, tests/captures/t_fabric_tshark.sh): two 44-byte
 * SENDs shaped like SMC-R CDC messages, RDMA WRITEs of 5000 and 61 bytes, and the ACKs.
 * One run per RoCE version, one after the other in the file. */
#ifndef SIM_TESTBED_CAPTURE_H
#define SIM_TESTBED_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct testbed_capture_result {
	uint64_t frames; /* written */
	bool failed;     /* an exchange did not complete (the v2 run is then not made) */
} testbed_capture_result;

/* The v1 and/or the v2 run into path. 0, or -1 with the reason in err when the file
 * cannot be written. */
int testbed_capture_write(const char *path, bool v1, bool v2, testbed_capture_result *r, char *err, size_t errlen);

#endif
