/* pcapng output: blocks built with explicit little-endian writers (the section header's
 * byte-order magic says so), every block and option padded to 32 bits, the total length
 * at both ends of each block. */
#include "sim/fabric/pcapng_writer.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/byteorder.h"
#include "sim/engine/oom.h"

#define DEFAULT_SNAPLEN 262144u
#define MAX_OPT_LEN 0xFFFCu /* an option's length is 16 bits; keep it a multiple of 4 */

struct sim_pcapng_writer {
	FILE *f;
	bool failed;
	uint64_t frames;
	uint32_t snaplen;
	uint32_t n_ifs;
	uint8_t *buf; /* block under construction (headers and options) */
	size_t buf_cap;
};

static size_t pad4(size_t n) { return (n + 3u) & ~(size_t)3u; }

static uint8_t *reserve(sim_pcapng_writer *w, size_t n)
{
	if (n > w->buf_cap) {
		size_t cap = w->buf_cap ? w->buf_cap : 256;
		while (cap < n)
			cap *= 2;
		w->buf = sim_xrealloc(w->buf, cap, "a capture writer");
		w->buf_cap = cap;
	}
	return w->buf;
}

static void out(sim_pcapng_writer *w, const void *p, size_t n)
{
	if (n && fwrite(p, 1, n, w->f) != n)
		w->failed = true;
}

/* An option: code, length, value, zero padding. */
static uint8_t *put_opt(uint8_t *p, uint16_t code, const void *val, size_t len)
{
	p = put_le16(p, code);
	p = put_le16(p, (uint16_t)len);
	p = put_bytes(p, val, len);
	return put_zero(p, pad4(len) - len);
}

static size_t opt_size(size_t len) { return 4 + pad4(len); }

static size_t text_len(const char *s)
{
	size_t n = s ? strlen(s) : 0;
	return n > MAX_OPT_LEN ? MAX_OPT_LEN : n;
}

sim_pcapng_writer *sim_pcapng_open(const char *path, uint32_t snaplen, char *err, size_t errlen)
{
	FILE *f = fopen(path, "wb");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	sim_pcapng_writer *w = sim_xcalloc(1, sizeof(*w), "a capture writer");
	w->f = f;
	w->snaplen = snaplen ? snaplen : DEFAULT_SNAPLEN;
	static const char appl[] = "smcr-sim";
	size_t len = 24 + opt_size(sizeof(appl) - 1) + 4 + 4;
	uint8_t *p = reserve(w, len), *b = p;
	p = put_le32(p, PCAPNG_BT_SHB);
	p = put_le32(p, (uint32_t)len);
	p = put_le32(p, PCAPNG_BYTE_ORDER_MAGIC);
	p = put_le16(p, 1); /* version 1.0 */
	p = put_le16(p, 0);
	p = put_le32(p, 0xFFFFFFFFu); /* section length: not given (-1) */
	p = put_le32(p, 0xFFFFFFFFu);
	p = put_opt(p, PCAPNG_SHB_USERAPPL, appl, sizeof(appl) - 1);
	p = put_le32(p, 0); /* opt_endofopt */
	p = put_le32(p, (uint32_t)len);
	out(w, b, (size_t)(p - b));
	return w;
}

uint32_t sim_pcapng_add_interface(sim_pcapng_writer *w, const char *name, const char *description)
{
	size_t nl = text_len(name), dl = text_len(description);
	size_t len = 16 + (nl ? opt_size(nl) : 0) + (dl ? opt_size(dl) : 0) + opt_size(1) + 4 + 4;
	uint8_t *p = reserve(w, len), *b = p;
	p = put_le32(p, PCAPNG_BT_IDB);
	p = put_le32(p, (uint32_t)len);
	p = put_le16(p, PCAPNG_LINKTYPE_ETHERNET);
	p = put_le16(p, 0);
	p = put_le32(p, w->snaplen);
	if (nl)
		p = put_opt(p, PCAPNG_IF_NAME, name, nl);
	if (dl)
		p = put_opt(p, PCAPNG_IF_DESCRIPTION, description, dl);
	static const uint8_t nanoseconds = 9; /* 10^-9 s */
	p = put_opt(p, PCAPNG_IF_TSRESOL, &nanoseconds, 1);
	p = put_le32(p, 0);
	p = put_le32(p, (uint32_t)len);
	out(w, b, (size_t)(p - b));
	return w->n_ifs++;
}

void sim_pcapng_write(sim_pcapng_writer *w, uint32_t ifc, sim_time at, const uint8_t *data, uint32_t len,
                      const char *comment)
{
	if (ifc >= w->n_ifs)
		abort(); /* a caller bug: the interface was never described */
	uint32_t cap = len < w->snaplen ? len : w->snaplen;
	size_t cl = text_len(comment);
	size_t opts = cl ? opt_size(cl) + 4 : 0;
	size_t len_total = 28 + pad4(cap) + opts + 4;
	uint8_t *p = reserve(w, 28), *b = p;
	p = put_le32(p, PCAPNG_BT_EPB);
	p = put_le32(p, (uint32_t)len_total);
	p = put_le32(p, ifc);
	p = put_le32(p, (uint32_t)(at >> 32));
	p = put_le32(p, (uint32_t)at);
	p = put_le32(p, cap);
	p = put_le32(p, len);
	out(w, b, 28);
	out(w, data, cap);
	static const uint8_t zeros[4];
	out(w, zeros, pad4(cap) - cap);
	p = b = reserve(w, opts + 4);
	if (cl) {
		p = put_opt(p, PCAPNG_OPT_COMMENT, comment, cl);
		p = put_le32(p, 0);
	}
	p = put_le32(p, (uint32_t)len_total);
	out(w, b, (size_t)(p - b));
	w->frames++;
}

uint64_t sim_pcapng_frames(const sim_pcapng_writer *w) { return w->frames; }

int sim_pcapng_close(sim_pcapng_writer *w)
{
	if (!w)
		return 0;
	if (fclose(w->f))
		w->failed = true;
	int rc = w->failed ? -1 : 0;
	free(w->buf);
	free(w);
	return rc;
}
