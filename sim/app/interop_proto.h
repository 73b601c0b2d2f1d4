/* The application exchange of the Linux interoperability test (smcr-sim interop and
 * tests/interop/smc_peer.c speak it): on each connection the client sends its connection
 * number k (8 bytes, big-endian) and then `bytes` bytes of pattern(INTEROP_SEED_C2S + k);
 * the server, once it knows k, sends `bytes` bytes of pattern(INTEROP_SEED_S2C + k)
 * (sim/engine/pattern.h). Each side checks every byte it receives, shuts its sending side down
 * and reads the end of the stream: an orderly close. */
#ifndef SIM_INTEROP_PROTO_H
#define SIM_INTEROP_PROTO_H

#include <stdint.h>

#define INTEROP_SEED_C2S 0x4332530000000000ull /* "C2S" */
#define INTEROP_SEED_S2C 0x5332430000000000ull /* "S2C" */
#define INTEROP_HDR_LEN 8

static inline void interop_put_be64(uint8_t *p, uint64_t v)
{
	for (int i = 7; i >= 0; i--, v >>= 8)
		p[i] = (uint8_t)v;
}

static inline uint64_t interop_get_be64(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

#endif
