/* CRC-32 (reflected 0xEDB88320): PCLMULQDQ folding with a slicing-by-8 fallback.
 *
 * Folding works on the message as a polynomial over GF(2). A 16-byte register loaded
 * little-endian holds 128 message bits; its low quadword carries the higher powers. To move
 * a register D bits further along the message it is multiplied by x^D, which is replaced by
 * two 32-bit constants (x^(D+63) and x^(D-1) mod P: the extra -1 absorbs the one-bit shift of
 * a carry-less product of reflected operands). A tail shorter than 16 bytes is folded in
 * as one more block: the register and the tail, taken as one message, are split into the
 * register's first bytes (moved 128 bits along) and the 16 bytes that end the message.
 * What is left is a 16-byte block congruent to the whole message; two more folds bring
 * it to 64 bits and a Barrett reduction (quotient by mu = x^64 / P) to the 32-bit CRC.
 * Messages of 16 bytes and more take this path (the masked RoCE headers too); shorter
 * ones, and CPUs without PCLMULQDQ, use the table. The constants are computed at start-up
 * from the polynomial, not copied from anywhere. */
#include "sim/fabric/icrc.h"

#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define ICRC_X86 1
#endif

static uint32_t table[8][256];
/* {low-quadword, high-quadword constant} for moving a 16-byte register N bits along */
static uint64_t fold2048[2], fold1536[2], fold1024[2], fold512[2], fold384[2], fold256[2], fold128[2];
static uint64_t fold_to64[2]; /* 128 -> 96 bits, 96 -> 64 bits */
static uint64_t barrett[2];   /* {mu, P}, 33 bits each, reflected */
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

/* A 33-bit polynomial (coefficients of x^0..x^32 at bits 0..32) reflected: x^e at bit 32 - e. */
static uint64_t reverse33(uint64_t v)
{
	uint64_t r = 0;
	for (int i = 0; i < 33; i++)
		r |= ((v >> i) & 1u) << (32 - i);
	return r;
}

/* floor(x^64 / P) by long division over GF(2); 33 bits. */
static uint64_t barrett_mu(void)
{
	const uint64_t p = 0x104C11DB7ULL;
	uint64_t rem_hi = 1, q = 0; /* the dividend x^64, consumed from the top */
	uint64_t r = 0;
	for (int bit = 64; bit >= 0; bit--) {
		r = (r << 1) | (bit == 64 ? rem_hi : 0);
		q <<= 1;
		if (r & 0x100000000ULL) {
			r ^= p;
			q |= 1;
		}
	}
	return q;
}

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
	static const struct {
		uint64_t *k;
		unsigned bits;
	} folds[] = { { fold2048, 2048 }, { fold1536, 1536 }, { fold1024, 1024 }, { fold512, 512 }, { fold384, 384 }, { fold256, 256 }, { fold128, 128 } };
	for (size_t i = 0; i < sizeof(folds) / sizeof(folds[0]); i++) {
		folds[i].k[0] = fold_constant(folds[i].bits + 63);
		folds[i].k[1] = fold_constant(folds[i].bits - 1);
	}
	fold_to64[0] = fold_constant(96 - 1);
	fold_to64[1] = fold_constant(64 - 1);
	barrett[0] = reverse33(barrett_mu());
	barrett[1] = reverse33(0x104C11DB7ULL);
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

/* The CRC register of the message a 16-byte block stands for (its last byte ends the
 * message): bit i of the block is the coefficient of x^(127-i), the CRC that of
 * block * x^32 mod P, reflected. */
CLMUL_TARGET static inline uint32_t reduce128(__m128i r)
{
	const __m128i k = _mm_set_epi64x((long long)fold_to64[1], (long long)fold_to64[0]);
	const __m128i b = _mm_set_epi64x((long long)barrett[1], (long long)barrett[0]);
	const __m128i low32 = _mm_set_epi32(0, 0, 0, -1);
	/* 128 -> 96 bits: the low quadword (x^127..x^64) times x^96 mod P, plus the high
	 * quadword times x^32 (moved down 32 bits) */
	__m128i t = _mm_clmulepi64_si128(r, k, 0x00);
	t = _mm_xor_si128(t, _mm_slli_si128(_mm_srli_si128(r, 8), 4));
	/* 96 -> 64 bits: the top 32 (bits 32..63) times x^64 mod P; the result is the high
	 * quadword, W (x^63 at bit 64) */
	__m128i w = _mm_srli_si128(_mm_xor_si128(_mm_clmulepi64_si128(t, k, 0x10), t), 8);
	/* Barrett: q = (W / x^32) * mu / x^32, then W + q * P; the remainder is in bits 32..63 */
	__m128i q = _mm_clmulepi64_si128(_mm_and_si128(w, low32), b, 0x00);
	q = _mm_clmulepi64_si128(_mm_and_si128(q, low32), b, 0x10);
	return (uint32_t)_mm_extract_epi32(_mm_xor_si128(q, w), 1);
}

/* pshufb masks: 16 bytes from shift_masks + n move a register's bytes down by n - 16 (n >
 * 16) or up by 16 - n (n < 16), zeros coming in */
/* clang-format off */ /* a table laid out by hand */
static const uint8_t shift_masks[48] = {
	0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
	0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
	0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
};
/* clang-format on */

/* x stands for the message up to p, which has at least 16 bytes before p; fold in the last
 * len (< 16) bytes and reduce. */
CLMUL_TARGET static uint32_t finish_tail(__m128i x, const uint8_t *p, size_t len)
{
	if (len) {
		/* x's first len bytes go 128 bits along (zeros before them); the 16 bytes that
		 * end the message are x's other bytes and the tail, which the 16 bytes loaded
		 * backwards from the end have in place */
		const __m128i k1 = _mm_set_epi64x((long long)fold128[1], (long long)fold128[0]);
		__m128i up = _mm_loadu_si128((const __m128i *)(shift_masks + len));
		__m128i down = _mm_loadu_si128((const __m128i *)(shift_masks + 16 + len));
		__m128i end = _mm_loadu_si128((const __m128i *)(p + len - 16));
		__m128i last = _mm_blendv_epi8(end, _mm_shuffle_epi8(x, down), up);
		x = fold(_mm_shuffle_epi8(x, up), k1, last);
	}
	return reduce128(x);
}

/* The last 64 bytes folded so far (x0..x3, in message order) and the rest of the message. */
CLMUL_TARGET static uint32_t finish_clmul(__m128i x0, __m128i x1, __m128i x2, __m128i x3, const uint8_t *p,
                                          size_t len)
{
	const __m128i k1 = _mm_set_epi64x((long long)fold128[1], (long long)fold128[0]);
	const __m128i k2 = _mm_set_epi64x((long long)fold256[1], (long long)fold256[0]);
	const __m128i k3 = _mm_set_epi64x((long long)fold384[1], (long long)fold384[0]);
	/* each lane straight to the last one: the products do not wait for each other */
	x3 = fold(x0, k3, fold(x1, k2, fold(x2, k1, x3)));
	while (len >= 16) {
		x3 = fold(x3, k1, _mm_loadu_si128((const __m128i *)p));
		p += 16;
		len -= 16;
	}
	return finish_tail(x3, p, len);
}

/* Four lanes, 64 bytes a round: x0..x3 hold the first 64 bytes (the register value in
 * x0), p the rest of the message. The 16 bytes ending at p + len must be message bytes in
 * memory (finish_tail loads them). */
CLMUL_TARGET static uint32_t run_clmul(__m128i x0, __m128i x1, __m128i x2, __m128i x3, const uint8_t *p, size_t len)
{
	const __m128i k4 = _mm_set_epi64x((long long)fold512[1], (long long)fold512[0]);
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

CLMUL_TARGET static uint32_t update_clmul(uint32_t s, const uint8_t *p, size_t len)
{
	if (len < 16)
		return update_table(s, p, len);
	if (len < 64) {
		const __m128i k1 = _mm_set_epi64x((long long)fold128[1], (long long)fold128[0]);
		__m128i x = _mm_xor_si128(_mm_loadu_si128((const __m128i *)p), _mm_cvtsi32_si128((int)s));
		p += 16;
		len -= 16;
		while (len >= 16) {
			x = fold(x, k1, _mm_loadu_si128((const __m128i *)p));
			p += 16;
			len -= 16;
		}
		return finish_tail(x, p, len);
	}
	return run_clmul(_mm_xor_si128(_mm_loadu_si128((const __m128i *)p), _mm_cvtsi32_si128((int)s)),
	                 _mm_loadu_si128((const __m128i *)(p + 16)), _mm_loadu_si128((const __m128i *)(p + 32)),
	                 _mm_loadu_si128((const __m128i *)(p + 48)), p + 64, len - 64);
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

/* The 128-bit finish (legacy SSE code) after the 512-bit rounds: the upper halves of the
 * vector registers are cleared first, or every SSE instruction there pays for merging
 * them (a tenth of the bulk benchmark's time went to that stall). */
VCLMUL_TARGET static uint32_t finish_from_vclmul(__m512i z3, const uint8_t *p, size_t len)
{
	__m128i x0 = _mm512_extracti32x4_epi32(z3, 0), x1 = _mm512_extracti32x4_epi32(z3, 1);
	__m128i x2 = _mm512_extracti32x4_epi32(z3, 2), x3 = _mm512_extracti32x4_epi32(z3, 3);
	_mm256_zeroupper();
	return finish_clmul(x0, x1, x2, x3, p, len);
}

/* z0 holds the first 64 bytes (the register value in its first four), p the rest, at
 * least 192 bytes. */
VCLMUL_TARGET static uint32_t run_vclmul(__m512i z0, const uint8_t *p, size_t len)
{
	const __m512i k16 = _mm512_broadcast_i32x4(_mm_set_epi64x((long long)fold2048[1], (long long)fold2048[0]));
	const __m512i k4 = _mm512_broadcast_i32x4(_mm_set_epi64x((long long)fold512[1], (long long)fold512[0]));
	__m512i z1 = _mm512_loadu_si512(p);
	__m512i z2 = _mm512_loadu_si512(p + 64);
	__m512i z3 = _mm512_loadu_si512(p + 128);
	p += 192;
	len -= 192;
	while (len >= 256) {
		z0 = vfold(z0, k16, _mm512_loadu_si512(p));
		z1 = vfold(z1, k16, _mm512_loadu_si512(p + 64));
		z2 = vfold(z2, k16, _mm512_loadu_si512(p + 128));
		z3 = vfold(z3, k16, _mm512_loadu_si512(p + 192));
		p += 256;
		len -= 256;
	}
	const __m512i k8 = _mm512_broadcast_i32x4(_mm_set_epi64x((long long)fold1024[1], (long long)fold1024[0]));
	const __m512i k12 = _mm512_broadcast_i32x4(_mm_set_epi64x((long long)fold1536[1], (long long)fold1536[0]));
	z3 = vfold(z0, k12, vfold(z1, k8, vfold(z2, k4, z3)));
	return finish_from_vclmul(z3, p, len);
}

VCLMUL_TARGET static uint32_t update_vclmul(uint32_t s, const uint8_t *p, size_t len)
{
	if (len < 512)
		return update_clmul(s, p, len);
	__m512i z0 = _mm512_xor_si512(_mm512_loadu_si512(p), _mm512_zextsi128_si512(_mm_cvtsi32_si128((int)s)));
	return run_vclmul(z0, p + 64, len - 64);
}

/* a then b, folded as one message: the first 64 bytes (all of a, the start of b) are put
 * together, the rest is read from b, whose last 16 bytes finish_tail may load. */
static bool update2_folds(size_t alen, size_t blen)
{
	return have_clmul && alen <= 64 && blen >= 16 && alen + blen >= 64;
}

CLMUL_TARGET static uint32_t update2_clmul(uint32_t s, const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
	uint8_t head[64];
	icrc_copy_upto64(head, a, alen);
	icrc_copy_upto64(head + alen, b, 64 - alen);
	size_t used = 64 - alen;
	__m128i x0 = _mm_xor_si128(_mm_loadu_si128((const __m128i *)head), _mm_cvtsi32_si128((int)s));
	return run_clmul(x0, _mm_loadu_si128((const __m128i *)(head + 16)), _mm_loadu_si128((const __m128i *)(head + 32)),
	                 _mm_loadu_si128((const __m128i *)(head + 48)), b + used, blen - used);
}

VCLMUL_TARGET static uint32_t update2_vclmul(uint32_t s, const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
	size_t used = 64 - alen;
	if (blen - used < 448)
		return update2_clmul(s, a, alen, b, blen);
	uint8_t head[64];
	icrc_copy_upto64(head, a, alen);
	icrc_copy_upto64(head + alen, b, used);
	__m512i z0 = _mm512_xor_si512(_mm512_loadu_si512(head), _mm512_zextsi128_si512(_mm_cvtsi32_si128((int)s)));
	return run_vclmul(z0, b + used, blen - used);
}

/* The same folds, each block stored to d as it is loaded: a copy that pays for its CRC
 * with the one read (the rest, under 64 or 256 bytes, is copied and then folded from p). */
CLMUL_TARGET static uint32_t copy_clmul(uint32_t s, uint8_t *d, const uint8_t *p, size_t len)
{
	const __m128i k4 = _mm_set_epi64x((long long)fold512[1], (long long)fold512[0]);
	__m128i y0 = _mm_loadu_si128((const __m128i *)p), y1 = _mm_loadu_si128((const __m128i *)(p + 16));
	__m128i y2 = _mm_loadu_si128((const __m128i *)(p + 32)), y3 = _mm_loadu_si128((const __m128i *)(p + 48));
	_mm_storeu_si128((__m128i *)d, y0);
	_mm_storeu_si128((__m128i *)(d + 16), y1);
	_mm_storeu_si128((__m128i *)(d + 32), y2);
	_mm_storeu_si128((__m128i *)(d + 48), y3);
	__m128i x0 = _mm_xor_si128(y0, _mm_cvtsi32_si128((int)s)), x1 = y1, x2 = y2, x3 = y3;
	p += 64;
	d += 64;
	len -= 64;
	while (len >= 64) {
		y0 = _mm_loadu_si128((const __m128i *)p);
		y1 = _mm_loadu_si128((const __m128i *)(p + 16));
		y2 = _mm_loadu_si128((const __m128i *)(p + 32));
		y3 = _mm_loadu_si128((const __m128i *)(p + 48));
		_mm_storeu_si128((__m128i *)d, y0);
		_mm_storeu_si128((__m128i *)(d + 16), y1);
		_mm_storeu_si128((__m128i *)(d + 32), y2);
		_mm_storeu_si128((__m128i *)(d + 48), y3);
		x0 = fold(x0, k4, y0);
		x1 = fold(x1, k4, y1);
		x2 = fold(x2, k4, y2);
		x3 = fold(x3, k4, y3);
		p += 64;
		d += 64;
		len -= 64;
	}
	memcpy(d, p, len);
	return finish_clmul(x0, x1, x2, x3, p, len);
}

VCLMUL_TARGET static uint32_t copy_vclmul(uint32_t s, uint8_t *d, const uint8_t *p, size_t len)
{
	const __m512i k16 = _mm512_broadcast_i32x4(_mm_set_epi64x((long long)fold2048[1], (long long)fold2048[0]));
	const __m512i k4 = _mm512_broadcast_i32x4(_mm_set_epi64x((long long)fold512[1], (long long)fold512[0]));
	__m512i y0 = _mm512_loadu_si512(p), y1 = _mm512_loadu_si512(p + 64);
	__m512i y2 = _mm512_loadu_si512(p + 128), y3 = _mm512_loadu_si512(p + 192);
	_mm512_storeu_si512(d, y0);
	_mm512_storeu_si512(d + 64, y1);
	_mm512_storeu_si512(d + 128, y2);
	_mm512_storeu_si512(d + 192, y3);
	__m512i z0 = _mm512_xor_si512(y0, _mm512_zextsi128_si512(_mm_cvtsi32_si128((int)s))), z1 = y1, z2 = y2, z3 = y3;
	p += 256;
	d += 256;
	len -= 256;
	while (len >= 256) {
		y0 = _mm512_loadu_si512(p);
		y1 = _mm512_loadu_si512(p + 64);
		y2 = _mm512_loadu_si512(p + 128);
		y3 = _mm512_loadu_si512(p + 192);
		_mm512_storeu_si512(d, y0);
		_mm512_storeu_si512(d + 64, y1);
		_mm512_storeu_si512(d + 128, y2);
		_mm512_storeu_si512(d + 192, y3);
		z0 = vfold(z0, k16, y0);
		z1 = vfold(z1, k16, y1);
		z2 = vfold(z2, k16, y2);
		z3 = vfold(z3, k16, y3);
		p += 256;
		d += 256;
		len -= 256;
	}
	memcpy(d, p, len);
	const __m512i k8 = _mm512_broadcast_i32x4(_mm_set_epi64x((long long)fold1024[1], (long long)fold1024[0]));
	const __m512i k12 = _mm512_broadcast_i32x4(_mm_set_epi64x((long long)fold1536[1], (long long)fold1536[0]));
	z3 = vfold(z0, k12, vfold(z1, k8, vfold(z2, k4, z3)));
	return finish_from_vclmul(z3, p, len);
}

bool icrc_have_clmul(void) { return have_clmul; }

uint32_t icrc_crc32_clmul(uint32_t crc, const void *buf, size_t len)
{
	return ~update_clmul(~crc, buf, len);
}
#else
bool icrc_have_clmul(void)
{
	return false;
}

uint32_t icrc_crc32_clmul(uint32_t crc, const void *buf, size_t len)
{
	return icrc_crc32_table(crc, buf, len);
}
#endif

uint32_t icrc_crc32_2(uint32_t crc, const void *a, size_t alen, const void *b, size_t blen)
{
#ifdef ICRC_X86
	if (have_clmul && alen + blen <= 128 && alen + blen >= 16) {
		/* a short message (an ACK, an LLC or CDC message): one copy, one pass */
		uint8_t whole[128];
		icrc_copy_short(whole, a, alen);
		icrc_copy_short(whole + alen, b, blen);
		return ~update_clmul(~crc, whole, alen + blen);
	}
	if (update2_folds(alen, blen))
		return ~(have_vclmul ? update2_vclmul : update2_clmul)(~crc, a, alen, b, blen);
#endif
	return icrc_crc32(icrc_crc32(crc, a, alen), b, blen);
}

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

uint32_t icrc_crc32_copy(uint32_t crc, void *dst, const void *src, size_t len)
{
#ifdef ICRC_X86
	if (have_vclmul && len >= 512)
		return ~copy_vclmul(~crc, dst, src, len);
	if (have_clmul && len >= 64)
		return ~copy_clmul(~crc, dst, src, len);
#endif
	memcpy(dst, src, len);
	return icrc_crc32(crc, dst, len);
}

const char *icrc_impl_name(void) { return have_vclmul ? "vpclmul" : have_clmul ? "pclmul"
	                                                                       : "slice8"; }
