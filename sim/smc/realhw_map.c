/* Parsing the --real-hw mapping (see realhw_map.h). */
#include "sim/smc/realhw_map.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/addr/addr_text.h"

static int bad(char *err, size_t errlen, const char *entry, size_t len, const char *what)
{
	snprintf(err, errlen, "bad --real-hw entry '%.*s': %s", (int)len, entry, what);
	return -1;
}

static bool parse_uint(const char *s, size_t len, int base, unsigned long max, unsigned long *out)
{
	if (!len || len > 16)
		return false;
	char buf[20];
	memcpy(buf, s, len);
	buf[len] = 0;
	const char *p = buf;
	if (base == 16 && len > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	for (const char *q = p; *q; q++) {
		bool ok = base == 16 ? ((*q >= '0' && *q <= '9') || (*q >= 'a' && *q <= 'f') || (*q >= 'A' && *q <= 'F'))
		                     : (*q >= '0' && *q <= '9');
		if (!ok)
			return false;
	}
	if (!*p)
		return false;
	unsigned long v = strtoul(p, NULL, base);
	if (v > max)
		return false;
	*out = v;
	return true;
}

static bool parse_ipv4(const char *s, size_t len, uint32_t *out)
{
	uint32_t a = 0;
	size_t i = 0;
	for (int octet = 0; octet < 4; octet++) {
		size_t st = i;
		while (i < len && s[i] >= '0' && s[i] <= '9')
			i++;
		unsigned long v;
		if (i == st || i - st > 3 || (i - st > 1 && s[st] == '0') || !parse_uint(s + st, i - st, 10, 255, &v))
			return false;
		a = a << 8 | (uint32_t)v;
		if (octet < 3) {
			if (i >= len || s[i] != '.')
				return false;
			i++;
		}
	}
	if (i != len || a == 0)
		return false;
	*out = a;
	return true;
}

static int parse_entry(const char *e, size_t len, smc_real_port *p, char *err, size_t errlen)
{
	memset(p, 0, sizeof(*p));
	const char *eq = memchr(e, '=', len);
	if (!eq)
		return bad(err, errlen, e, len, "expected PFID[/PORT]=DEV[:PORT][@A.B.C.D]");
	size_t left = (size_t)(eq - e);
	const char *slash = memchr(e, '/', left);
	unsigned long v;
	if (!parse_uint(e, slash ? (size_t)(slash - e) : left, 16, 0xffff, &v))
		return bad(err, errlen, e, len, "the PFID must be 1 to 4 hex digits");
	p->pfid = (uint16_t)v;
	p->port = 1;
	if (slash) {
		if (!parse_uint(slash + 1, left - (size_t)(slash + 1 - e), 10, 2, &v) || v < 1)
			return bad(err, errlen, e, len, "the adapter port must be 1 or 2");
		p->port = (uint8_t)v;
	}
	const char *r = eq + 1;
	size_t rlen = len - left - 1;
	const char *at = memchr(r, '@', rlen);
	size_t devpart = at ? (size_t)(at - r) : rlen;
	if (at && !parse_ipv4(at + 1, rlen - devpart - 1, &p->ipv4))
		return bad(err, errlen, e, len, "expected an IPv4 address after '@'");
	const char *colon = memchr(r, ':', devpart);
	size_t namelen = colon ? (size_t)(colon - r) : devpart;
	if (!namelen || namelen >= sizeof(p->dev))
		return bad(err, errlen, e, len, "expected an RDMA device name (as ibv_devices lists it) after '='");
	for (size_t i = 0; i < namelen; i++) {
		char c = r[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
		      c == '.'))
			return bad(err, errlen, e, len, "a device name has letters, digits, '_', '-' and '.' only");
	}
	memcpy(p->dev, r, namelen);
	p->dev_port = 1;
	if (colon) {
		if (!parse_uint(colon + 1, devpart - namelen - 1, 10, 255, &v) || v < 1)
			return bad(err, errlen, e, len, "the device port must be a number from 1");
		p->dev_port = (uint8_t)v;
	}
	return 0;
}

int realhw_map_parse(const char *text, realhw_map *m, char *err, size_t errlen)
{
	memset(m, 0, sizeof(*m));
	if (!text || !*text) {
		snprintf(err, errlen, "--real-hw needs a mapping such as 0101=rxe0:1,0201=rxe0:1");
		return -1;
	}
	const char *s = text;
	for (;;) {
		const char *comma = strchr(s, ',');
		size_t len = comma ? (size_t)(comma - s) : strlen(s);
		if (!len) {
			snprintf(err, errlen, "bad --real-hw mapping '%s': an empty entry", text);
			return -1;
		}
		if (m->n == REALHW_MAP_MAX) {
			snprintf(err, errlen, "--real-hw maps at most %d adapter ports", REALHW_MAP_MAX);
			return -1;
		}
		smc_real_port *p = &m->port[m->n];
		if (parse_entry(s, len, p, err, errlen))
			return -1;
		for (size_t i = 0; i < m->n; i++)
			if (m->port[i].pfid == p->pfid && m->port[i].port == p->port) {
				snprintf(err, errlen, "--real-hw maps PFID %04X port %u twice", (unsigned)p->pfid,
				         (unsigned)p->port);
				return -1;
			}
		m->n++;
		if (!comma)
			break;
		s = comma + 1;
	}
	return 0;
}

void realhw_map_format(const smc_real_port *p, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%04X%s=%s:%u", (unsigned)p->pfid, p->port == 2 ? "/2" : "", p->dev, (unsigned)p->dev_port);
	char ip[ADDR_TEXT_IPV4_LEN];
	if (p->ipv4 && n > 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, "@%s", addr_text_ipv4(p->ipv4, ip, sizeof(ip)));
}
