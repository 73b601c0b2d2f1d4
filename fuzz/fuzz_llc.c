/* LLC messages (model/llc.c): the decoder and the describer on any bytes, as a receive
 * completion of that length delivers them; for every message that decodes, the round
 * trip in the byte order the decoder found: encode(decode()) decodes again, and encoding
 * that gives the same bytes. */
#include <stdlib.h>
#include <string.h>

#include "fuzz/fuzz.h"
#include "model/llc.h"

static uint8_t out[SMCR_LLC_V2_MAX_LEN], again[SMCR_LLC_V2_MAX_LEN];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *buf = malloc(size ? size : 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	static smcr_llc_msg m, m2;
	smcr_decode_err err;
	memset(&err, 0, sizeof(err));
	char text[512];
	int rc = smcr_llc_decode(&m, buf, size, &err);
	free(buf);
	if (rc < 0) {
		smcr_decode_err_format(&err, text, sizeof(text));
		return 0;
	}
	smcr_llc_describe(&m, text, sizeof(text));
	smcr_llc_describe(&m, text, 9);
	(void)smcr_llc_type_name(m.type);
	ssize_t n = smcr_llc_encode(out, sizeof(out), &m, m.order);
	if (n < 0)
		abort(); /* a decoded message the encoder refuses */
	if (smcr_llc_decode(&m2, out, (size_t)n, &err))
		abort(); /* the encoder wrote what the decoder rejects */
	ssize_t n2 = smcr_llc_encode(again, sizeof(again), &m2, m2.order);
	if (n2 != n || memcmp(out, again, (size_t)n))
		abort(); /* encode(decode()) is not a fixed point */
	return 0;
}
