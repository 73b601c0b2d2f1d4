/* CDC messages (model/cdc.c): the decoder and the describer on any bytes; a message that
 * decodes encodes to 44 bytes that decode to the same fields; and the cursor arithmetic
 * the receive path applies to its cursors, over a ring of the decoded count's size class. */
#include <stdlib.h>
#include <string.h>

#include "fuzz/fuzz.h"
#include "model/cdc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *buf = malloc(size ? size : 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	smcr_cdc_msg m, m2;
	smcr_decode_err err;
	memset(&err, 0, sizeof(err));
	char text[256];
	int rc = smcr_cdc_decode(&m, buf, size, &err);
	free(buf);
	if (rc < 0) {
		smcr_decode_err_format(&err, text, sizeof(text));
		return 0;
	}
	smcr_cdc_describe(&m, text, sizeof(text));
	uint8_t out[SMCR_CDC_LEN];
	smcr_cdc_encode(out, &m);
	if (smcr_cdc_decode(&m2, out, sizeof(out), &err))
		abort();
	if (m.seqno != m2.seqno || m.token != m2.token || m.prod.wrap != m2.prod.wrap || m.prod.count != m2.prod.count ||
	    m.cons.wrap != m2.cons.wrap || m.cons.count != m2.cons.count || m.prod_flags != m2.prod_flags ||
	    m.conn_flags != m2.conn_flags)
		abort();
	/* cursors as the receive path uses them: a ring of 16 KiB << k that holds both counts */
	uint32_t size_ring = 16384;
	while (size_ring <= m.prod.count || size_ring <= m.cons.count) {
		if (size_ring > (1u << 30))
			return 0;
		size_ring <<= 1;
	}
	(void)smcr_curs_comp(size_ring, &m.prod, &m.cons);
	(void)smcr_curs_diff(size_ring, &m.cons, &m.prod);
	smcr_cursor c = m.cons;
	smcr_curs_add(&c, size_ring, m.prod.count);
	if (c.count >= size_ring)
		abort();
	return 0;
}
