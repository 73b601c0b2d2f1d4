/* Byte-order helpers for codecs: explicit writers and readers over uint8_t buffers,
 * never packed-struct casts. Writers return the advanced pointer (p = put_be32(p, v)).
 * Shared by model/ and sim/ (header only, libc only). */
#ifndef SMCR_BYTEORDER_H
#define SMCR_BYTEORDER_H

#include <stdint.h>
#include <string.h>

static inline uint8_t *put_u8(uint8_t *p, uint8_t v)
{
	*p = v;
	return p + 1;
}
static inline uint8_t *put_be16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
	return p + 2;
}
static inline uint8_t *put_le16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	return p + 2;
}
static inline uint8_t *put_be24(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 16);
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)v;
	return p + 3;
}
static inline uint8_t *put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
	return p + 4;
}
static inline uint8_t *put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
	return p + 4;
}
static inline uint8_t *put_be64(uint8_t *p, uint64_t v)
{
	p = put_be32(p, (uint32_t)(v >> 32));
	return put_be32(p, (uint32_t)v);
}
static inline uint8_t *put_bytes(uint8_t *p, const void *src, size_t n)
{
	memcpy(p, src, n);
	return p + n;
}
static inline uint8_t *put_zero(uint8_t *p, size_t n)
{
	memset(p, 0, n);
	return p + n;
}

static inline uint16_t get_be16(const uint8_t *p) { return (uint16_t)((p[0] << 8) | p[1]); }
static inline uint16_t get_le16(const uint8_t *p) { return (uint16_t)((p[1] << 8) | p[0]); }
static inline uint32_t get_be24(const uint8_t *p)
{
	return ((uint32_t)p[0] << 16) | ((uint32_t)p[1] << 8) | p[2];
}
static inline uint32_t get_be32(const uint8_t *p)
{
	return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}
static inline uint32_t get_le32(const uint8_t *p)
{
	return ((uint32_t)p[3] << 24) | ((uint32_t)p[2] << 16) | ((uint32_t)p[1] << 8) | p[0];
}
static inline uint64_t get_be64(const uint8_t *p)
{
	return ((uint64_t)get_be32(p) << 32) | get_be32(p + 4);
}

#endif
