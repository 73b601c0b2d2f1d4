/* CRC-32 (reflected 0xEDB88320): PCLMULQDQ folding with a slicing-by-8 fallback.
 *
 * Folding works on the message as a polynomial over GF(2). A 16-byte register loaded
 * little-endian holds 128 message bits; its low quadword carries the higher powers. To move
 * a register D bits further along the message it is multiplied by x^D, which is replaced by
 * two 32-bit constants (x^(D+63) and x^(D-1) mod P: the extra -1 absorbs the one-bit shift of
 * a carry-less product of reflected operands). What is left after folding is a 16-byte
 * block congruent to everything folded so far; its CRC (and that of the short tail) comes
 * from the table code, so no Barrett reduction is needed. The constants are computed at
 * start-up from the polynomial, not copied from anywhere. */
#include "sim/icrc.h"

#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define ICRC_X86 1
#endif

static uint32_t table[8][256];
static uint64_t fold2048[2], fold512[2], fold128[2]; /* {low-quadword, high-quadword constant} */
static bool have_clmul, have_vclmul;

/* x^n mod P in normal (non-reflected) bit order, P = x^32 + 0x04C11DB7. */
static uint32_t xpow_mod(unsigned n)
{
	uint64_t v = 1;
	for (unsigned i = 0; i < n; i++) {
		v <<= 1;
		if (v & 0x100000000ULL)
			v ^= 0x104C11DB7ULL;
	}
	return (uint32_t)v;
}

static uint32_t reverse32(uint32_t v)
{
	uint32_t r = 0;
	for (int i = 0; i < 32; i++)
		r |= ((v >> i) & 1u) << (31 - i);
	return r;
}

/* A folding multiplier in the reflected 64-bit form: coefficient of x^e at bit 63 - e. */
static uint64_t fold_constant(unsigned n) { return (uint64_t)reverse32(xpow_mod(n)) << 32; }

__attribute__((constructor)) static void icrc_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
		table[0][i] = c;
	}
	for (uint32_t i = 0; i < 256; i++)
		for (int t = 1; t < 8; t++)
			table[t][i] = (table[t - 1][i] >> 8) ^ table[0][table[t - 1][i] & 0xFF];
	fold2048[0] = fold_constant(2048 + 63);
	fold2048[1] = fold_constant(2048 - 1);
	fold512[0] = fold_constant(512 + 63);
	fold512[1] = fold_constant(512 - 1);
	fold128[0] = fold_constant(128 + 63);
	fold128[1] = fold_constant(128 - 1);
#ifdef ICRC_X86
	__builtin_cpu_init();
	have_clmul = __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1");
	have_vclmul = have_clmul && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("vpclmulqdq");
#endif
}

static inline uint32_t load_le32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap32(v);
#endif
	return v;
}

/* Raw register update (no pre/post inversion). */
static uint32_t update_table(uint32_t s, const uint8_t *p, size_t len)
{
	while (len >= 8) {
		uint32_t a = s ^ load_le32(p);
		uint32_t b = load_le32(p + 4);
		s = table[7][a & 0xFF] ^ table[6][(a >> 8) & 0xFF] ^ table[5][(a >> 16) & 0xFF] ^
		    table[4][a >> 24] ^ table[3][b & 0xFF] ^ table[2][(b >> 8) & 0xFF] ^
		    table[1][(b >> 16) & 0xFF] ^ table[0][b >> 24];
		p += 8;
		len -= 8;
	}
	while (len--)
		s = (s >> 8) ^ table[0][(s ^ *p++) & 0xFF];
	return s;
}

uint32_t icrc_crc32_table(uint32_t crc, const void *buf, size_t len)
{
	return ~update_table(~crc, buf, len);
}

#ifdef ICRC_X86
#define CLMUL_TARGET __attribute__((target("pclmul,sse4.1")))

CLMUL_TARGET static inline __m128i fold(__m128i x, __m128i k, __m128i data)
{
	__m128i lo = _mm_clmulepi64_si128(x, k, 0x00);
	__m128i hi = _mm_clmulepi64_si128(x, k, 0x11);
	return _mm_xor_si128(_mm_xor_si128(lo, hi), data);
}

/* The last 64 bytes folded so far (x0..x3, in message order) and the rest of the message. */
CLMUL_TARGET static uint32_t finish_clmul(__m128i x0, __m128i x1, __m128i x2, __m128i x3, const uint8_t *p,
                                          size_t len)
{
	const __m128i k1 = _mm_set_epi64x((long long)fold128[1], (long long)fold128[0]);
	x1 = fold(x0, k1, x1);
	x2 = fold(x1, k1, x2);
	x3 = fold(x2, k1, x3);
	while (len >= 16) {
		x3 = fold(x3, k1, _mm_loadu_si128((const __m128i *)p));
		p += 16;
		len -= 16;
	}
	uint8_t rest[16];
	_mm_storeu_si128((__m128i *)rest, x3);
	return update_table(update_table(0, rest, 16), p, len);
}

CLMUL_TARGET static uint32_t update_clmul(uint32_t s, const uint8_t *p, size_t len)
{
	if (len < 64)
		return update_table(s, p, len);
	const __m128i k4 = _mm_set_epi64x((long long)fold512[1], (long long)fold512[0]);
	__m128i x0 = _mm_xor_si128(_mm_loadu_si128((const __m128i *)p), _mm_cvtsi32_si128((int)s));
	__m128i x1 = _mm_loadu_si128((const __m128i *)(p + 16));
	__m128i x2 = _mm_loadu_si128((const __m128i *)(p + 32));
	__m128i x3 = _mm_loadu_si128((const __m128i *)(p + 48));
	p += 64;
	len -= 64;
	while (len >= 64) {
		x0 = fold(x0, k4, _mm_loadu_si128((const __m128i *)p));
		x1 = fold(x1, k4, _mm_loadu_si128((const __m128i *)(p + 16)));
		x2 = fold(x2, k4, _mm_loadu_si128((const __m128i *)(p + 32)));
		x3 = fold(x3, k4, _mm_loadu_si128((const __m128i *)(p + 48)));
		p += 64;
		len -= 64;
	}
	return finish_clmul(x0, x1, x2, x3, p, len);
}

/* VPCLMULQDQ: the same folding on four 512-bit registers (four 16-byte lanes each),
 * 256 bytes per round; the four registers are then folded into one, whose lanes are the
 * last 64 bytes the 128-bit code finishes. */
#define VCLMUL_TARGET __attribute__((target("avx512f,vpclmulqdq,pclmul,sse4.1")))

VCLMUL_TARGET static inline __m512i vfold(__m512i x, __m512i k, __m512i data)
{
	__m512i lo = _mm512_clmulepi64_epi128(x, k, 0x00);
	__m512i hi = _mm512_clmulepi64_epi128(x, k, 0x11);
	return _mm512_ternarylogic_epi64(lo, hi, data, 0x96); /* lo ^ hi ^ data */
}

VCLMUL_TARGET static uint32_t update_vclmul(uint32_t s, const uint8_t *p, size_t len)
{
	if (len < 512)
		return update_clmul(s, p, len);
	const __m512i k16 = _mm512_broadcast_i32x4(_mm_set_epi64x((long long)fold2048[1], (long long)fold2048[0]));
	const __m512i k4 = _mm512_broadcast_i32x4(_mm_set_epi64x((long long)fold512[1], (long long)fold512[0]));
	__m512i z0 = _mm512_xor_si512(_mm512_loadu_si512(p), _mm512_zextsi128_si512(_mm_cvtsi32_si128((int)s)));
	__m512i z1 = _mm512_loadu_si512(p + 64);
	__m512i z2 = _mm512_loadu_si512(p + 128);
	__m512i z3 = _mm512_loadu_si512(p + 192);
	p += 256;
	len -= 256;
	while (len >= 256) {
		z0 = vfold(z0, k16, _mm512_loadu_si512(p));
		z1 = vfold(z1, k16, _mm512_loadu_si512(p + 64));
		z2 = vfold(z2, k16, _mm512_loadu_si512(p + 128));
		z3 = vfold(z3, k16, _mm512_loadu_si512(p + 192));
		p += 256;
		len -= 256;
	}
	z1 = vfold(z0, k4, z1);
	z2 = vfold(z1, k4, z2);
	z3 = vfold(z2, k4, z3);
	return finish_clmul(_mm512_extracti32x4_epi32(z3, 0), _mm512_extracti32x4_epi32(z3, 1),
	                    _mm512_extracti32x4_epi32(z3, 2), _mm512_extracti32x4_epi32(z3, 3), p, len);
}

bool icrc_have_clmul(void) { return have_clmul; }

uint32_t icrc_crc32_clmul(uint32_t crc, const void *buf, size_t len)
{
	return ~update_clmul(~crc, buf, len);
}
#else
bool icrc_have_clmul(void) { return false; }

uint32_t icrc_crc32_clmul(uint32_t crc, const void *buf, size_t len)
{
	return icrc_crc32_table(crc, buf, len);
}
#endif

uint32_t icrc_crc32(uint32_t crc, const void *buf, size_t len)
{
#ifdef ICRC_X86
	if (have_vclmul)
		return ~update_vclmul(~crc, buf, len);
	if (have_clmul)
		return ~update_clmul(~crc, buf, len);
#endif
	return ~update_table(~crc, buf, len);
}

const char *icrc_impl_name(void) { return have_vclmul ? "vpclmul" : have_clmul ? "pclmul" : "slice8"; }
