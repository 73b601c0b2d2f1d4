/* TCP options (sim/net/tcp_opt.c): the parser on any option list, with and without SYN
 * (first input byte, low bit), of at most 40 bytes as a TCP header holds. What it parsed is written again (tcp_opts_write, which
 * drops what Linux never sends in that kind of segment); parsing and writing that once
 * more must give the same bytes, and the length must match tcp_opts_len(). */
#include <stdlib.h>
#include <string.h>

#include "fuzz/fuzz.h"
#include "sim/net/tcp_opt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || size - 1 > TCP_MAX_OPT_LEN)
		return 0;
	bool syn = data[0] & 1;
	size_t len = size - 1;
	uint8_t *opt = malloc(len ? len : 1);
	if (!opt)
		return 0;
	memcpy(opt, data + 1, len);
	tcp_opts a, b;
	memset(&a, 0, sizeof(a));
	(void)tcp_opts_parse(opt, len, syn, &a);
	free(opt);
	if (a.n_sack > TCP_MAX_SACK_BLOCKS || (a.has_wscale && a.wscale > TCP_MAX_WSCALE))
		abort();
	uint8_t w1[TCP_MAX_OPT_LEN], w2[TCP_MAX_OPT_LEN];
	size_t n1 = tcp_opts_write(w1, &a, syn);
	if (n1 != tcp_opts_len(&a, syn) || n1 > TCP_MAX_OPT_LEN || n1 % 4)
		abort();
	memset(&b, 0, sizeof(b));
	if (!tcp_opts_parse(w1, n1, syn, &b))
		abort(); /* what we write does not parse */
	size_t n2 = tcp_opts_write(w2, &b, syn);
	if (n2 != n1 || memcmp(w1, w2, n1))
		abort();
	return 0;
}
