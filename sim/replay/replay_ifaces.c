/* pcapng interface ids per packet (see replay_ifaces.h). */
#include "sim/replay/replay_ifaces.h"

#include <string.h>

#define SHB 0x0A0D0D0Au
#define IDB 1u
#define PB 2u
#define SPB 3u
#define EPB 6u
#define BOM 0x1A2B3C4Du

static uint32_t u32(const rp_ifaces *w, const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return w->swap ? __builtin_bswap32(v) : v;
}

static uint16_t u16(const rp_ifaces *w, const uint8_t *p)
{
	uint16_t v;
	memcpy(&v, p, 2);
	return w->swap ? __builtin_bswap16(v) : v;
}

/* Read one block head (type, length) and the first 12 bytes of its body. */
static bool block(rp_ifaces *w, uint32_t *type, uint8_t body[12], uint32_t *len)
{
	uint8_t head[8];
	if (!w->f || fread(head, 1, 8, w->f) != 8)
		return false;
	uint32_t t;
	memcpy(&t, head, 4);
	if (t == SHB) {
		/* a new section: its byte-order magic decides how to read it */
		uint8_t bom[4];
		if (fread(bom, 1, 4, w->f) != 4)
			return false;
		uint32_t m;
		memcpy(&m, bom, 4);
		if (m != BOM && __builtin_bswap32(m) != BOM)
			return false;
		w->swap = m != BOM;
		w->base += w->in_section;
		w->in_section = 0;
		*type = SHB;
		*len = u32(w, head + 4);
		return *len >= 28 && fseek(w->f, (long)*len - 12, SEEK_CUR) == 0;
	}
	*type = u32(w, head);
	*len = u32(w, head + 4);
	if (*len < 12 || *len % 4)
		return false;
	uint32_t want = *len - 8 < 12 ? *len - 8 : 12;
	memset(body, 0, 12);
	if (fread(body, 1, want, w->f) != want)
		return false;
	return fseek(w->f, (long)(*len - 8 - want), SEEK_CUR) == 0;
}

bool rp_ifaces_open(rp_ifaces *w, const char *path)
{
	memset(w, 0, sizeof(*w));
	w->f = fopen(path, "rb");
	if (!w->f)
		return false;
	uint8_t head[4];
	uint32_t t;
	if (fread(head, 1, 4, w->f) != 4 || (memcpy(&t, head, 4), t != SHB) || fseek(w->f, 0, SEEK_SET)) {
		rp_ifaces_close(w);
		return false;
	}
	return true;
}

uint32_t rp_ifaces_next(rp_ifaces *w)
{
	uint32_t type, len;
	uint8_t body[12];
	while (block(w, &type, body, &len)) {
		if (type == IDB)
			w->in_section++;
		else if (type == EPB)
			return w->base + u32(w, body);
		else if (type == PB)
			return w->base + u16(w, body);
		else if (type == SPB)
			return w->base;
	}
	rp_ifaces_close(w); /* lost: the rest is on interface 0 */
	return 0;
}

void rp_ifaces_close(rp_ifaces *w)
{
	if (w->f)
		fclose(w->f);
	w->f = NULL;
}
