/* TCP option codec. */
#include "sim/net/tcp_opt.h"

#include <assert.h>
#include <string.h>

#include "model/byteorder.h"

size_t tcp_opts_len(const tcp_opts *o, bool syn)
{
	size_t n = 0;
	if (syn) {
		if (o->has_mss)
			n += 4;
		if (o->has_ts)
			n += 12; /* SACK-permitted shares the timestamp's padding */
		else if (o->sack_perm)
			n += 4;
		if (o->has_wscale)
			n += 4;
		if (o->smc)
			n += 8;
	} else {
		if (o->has_ts)
			n += 12;
		if (o->n_sack)
			n += 4 + 8u * o->n_sack;
	}
	return n;
}

size_t tcp_opts_write(uint8_t *out, const tcp_opts *o, bool syn)
{
	size_t want = tcp_opts_len(o, syn);
	assert(want <= TCP_MAX_OPT_LEN);
	uint8_t *p = out;
	if (syn && o->has_mss) {
		p = put_u8(p, TCPOPT_MSS);
		p = put_u8(p, 4);
		p = put_be16(p, o->mss);
	}
	if (o->has_ts) {
		if (syn && o->sack_perm) {
			p = put_u8(p, TCPOPT_SACK_PERM);
			p = put_u8(p, 2);
		} else {
			p = put_u8(p, TCPOPT_NOP);
			p = put_u8(p, TCPOPT_NOP);
		}
		p = put_u8(p, TCPOPT_TIMESTAMP);
		p = put_u8(p, 10);
		p = put_be32(p, o->tsval);
		p = put_be32(p, o->tsecr);
	} else if (syn && o->sack_perm) {
		p = put_u8(p, TCPOPT_NOP);
		p = put_u8(p, TCPOPT_NOP);
		p = put_u8(p, TCPOPT_SACK_PERM);
		p = put_u8(p, 2);
	}
	if (syn && o->has_wscale) {
		p = put_u8(p, TCPOPT_NOP);
		p = put_u8(p, TCPOPT_WSCALE);
		p = put_u8(p, 3);
		p = put_u8(p, o->wscale);
	}
	if (!syn && o->n_sack) {
		p = put_u8(p, TCPOPT_NOP);
		p = put_u8(p, TCPOPT_NOP);
		p = put_u8(p, TCPOPT_SACK);
		p = put_u8(p, (uint8_t)(2 + 8 * o->n_sack));
		for (unsigned i = 0; i < o->n_sack; i++) {
			p = put_be32(p, o->sack[i].start);
			p = put_be32(p, o->sack[i].end);
		}
	}
	if (syn && o->smc) {
		p = put_u8(p, TCPOPT_NOP);
		p = put_u8(p, TCPOPT_NOP);
		p = put_u8(p, TCPOPT_EXP);
		p = put_u8(p, 6);
		p = put_be32(p, TCP_SMC_MAGIC);
	}
	assert((size_t)(p - out) == want);
	return want;
}

bool tcp_opts_parse(const uint8_t *p, size_t len, bool syn, tcp_opts *o)
{
	memset(o, 0, sizeof *o);
	/* what nearly every segment of a connection with timestamps carries (NOP, NOP,
	 * timestamps: RFC 7323, appendix A), read straight; the loop reads it the same */
	if (len == 12 && p[0] == TCPOPT_NOP && p[1] == TCPOPT_NOP && p[2] == TCPOPT_TIMESTAMP && p[3] == 10) {
		o->has_ts = true;
		o->tsval = get_be32(p + 4);
		o->tsecr = get_be32(p + 8);
		return true;
	}
	size_t i = 0;
	while (i < len) {
		uint8_t kind = p[i];
		if (kind == TCPOPT_EOL)
			return true;
		if (kind == TCPOPT_NOP) {
			i++;
			continue;
		}
		if (i + 1 >= len)
			return false;
		uint8_t olen = p[i + 1];
		if (olen < 2 || olen > len - i)
			return false;
		const uint8_t *d = p + i + 2;
		size_t dlen = olen - 2u;
		switch (kind) {
		case TCPOPT_MSS:
			if (olen == 4 && syn) {
				o->has_mss = true;
				o->mss = get_be16(d);
			}
			break;
		case TCPOPT_WSCALE:
			if (olen == 3 && syn) {
				o->has_wscale = true;
				o->wscale = d[0] > TCP_MAX_WSCALE ? TCP_MAX_WSCALE : d[0];
			}
			break;
		case TCPOPT_SACK_PERM:
			if (olen == 2 && syn)
				o->sack_perm = true;
			break;
		case TCPOPT_TIMESTAMP:
			if (olen == 10) {
				o->has_ts = true;
				o->tsval = get_be32(d);
				o->tsecr = get_be32(d + 4);
			}
			break;
		case TCPOPT_SACK:
			if (!syn && dlen >= 8 && dlen % 8 == 0) {
				size_t n = dlen / 8;
				if (n > TCP_MAX_SACK_BLOCKS)
					n = TCP_MAX_SACK_BLOCKS;
				for (size_t b = 0; b < n; b++) {
					o->sack[b].start = get_be32(d + 8 * b);
					o->sack[b].end = get_be32(d + 8 * b + 4);
				}
				o->n_sack = (uint8_t)n;
			}
			break;
		case TCPOPT_EXP:
			if (syn && !(olen & 1) && olen >= 6 && get_be32(d) == TCP_SMC_MAGIC)
				o->smc = true;
			break;
		default:
			break;
		}
		i += olen;
	}
	return true;
}
