/* CLC messages (model/clc.c): the header peek, the three decoders and the describer on
 * any bytes; and, for every message that decodes, the round trip: what the encoder
 * writes from the decoded form must decode to the same form again (the decoders are
 * what the handshake and replay trust, the encoders what goes on the wire). Versions
 * above 2 decode in the v2 layout, as Linux reads them; the encoders write only the
 * versions we speak, so the round trip starts from version 2 then. */
#include <stdlib.h>
#include <string.h>

#include "fuzz/fuzz.h"
#include "model/clc.h"

static void check_proposal(const uint8_t *buf, size_t len)
{
	smcr_clc_proposal a, b;
	smcr_decode_err err;
	memset(&a, 0, sizeof(a));
	if (smcr_clc_decode_proposal(&a, buf, len, &err))
		return;
	if (a.version > 2)
		a.version = 2;
	uint8_t out[SMCR_CLC_MAX_LEN];
	ssize_t n = smcr_clc_encode_proposal(out, sizeof(out), &a);
	if (n < 0)
		abort(); /* a decoded Proposal the encoder refuses */
	memset(&b, 0, sizeof(b));
	if (smcr_clc_decode_proposal(&b, out, (size_t)n, &err))
		abort(); /* the encoder wrote what the decoder rejects */
	uint8_t again[SMCR_CLC_MAX_LEN];
	ssize_t m = smcr_clc_encode_proposal(again, sizeof(again), &b);
	if (m != n || memcmp(out, again, (size_t)n))
		abort(); /* encode(decode()) is not a fixed point */
}

static void check_accept(const uint8_t *buf, size_t len)
{
	smcr_clc_accept a, b;
	smcr_decode_err err;
	memset(&a, 0, sizeof(a));
	if (smcr_clc_decode_accept(&a, buf, len, &err))
		return;
	if (a.version > 2)
		a.version = 2;
	uint8_t out[SMCR_CLC_MAX_LEN];
	ssize_t n = smcr_clc_encode_accept(out, sizeof(out), &a);
	if (n < 0)
		abort();
	memset(&b, 0, sizeof(b));
	if (smcr_clc_decode_accept(&b, out, (size_t)n, &err))
		abort();
	uint8_t again[SMCR_CLC_MAX_LEN];
	ssize_t m = smcr_clc_encode_accept(again, sizeof(again), &b);
	if (m != n || memcmp(out, again, (size_t)n))
		abort();
}

static void check_decline(const uint8_t *buf, size_t len)
{
	smcr_clc_decline a, b;
	smcr_decode_err err;
	memset(&a, 0, sizeof(a));
	if (smcr_clc_decode_decline(&a, buf, len, &err))
		return;
	if (a.version > 2)
		a.version = 2;
	(void)smcr_decline_name(a.diagnosis);
	(void)smcr_decline_text(a.diagnosis);
	uint8_t out[SMCR_CLC_MAX_LEN];
	ssize_t n = smcr_clc_encode_decline(out, sizeof(out), &a);
	if (n < 0)
		abort();
	memset(&b, 0, sizeof(b));
	if (smcr_clc_decode_decline(&b, out, (size_t)n, &err))
		abort();
	uint8_t again[SMCR_CLC_MAX_LEN];
	ssize_t m = smcr_clc_encode_decline(again, sizeof(again), &b);
	if (m != n || memcmp(out, again, (size_t)n))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* a copy of exactly `size` bytes, so reading past the message is caught */
	uint8_t *buf = malloc(size ? size : 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	smcr_clc_hdr h;
	memset(&h, 0, sizeof(h));
	smcr_decode_err err;
	memset(&err, 0, sizeof(err));
	int rc = smcr_clc_peek(buf, size, &h, &err);
	char text[512];
	if (rc < 0)
		smcr_decode_err_format(&err, text, sizeof(text));
	(void)smcr_clc_type_name(h.type);
	/* the decoders on the whole input, and on the message the header announces */
	check_proposal(buf, size);
	check_accept(buf, size);
	check_decline(buf, size);
	smcr_clc_describe(buf, size, text, sizeof(text));
	smcr_clc_describe(buf, size, text, 7);
	if (rc > 0 && (size_t)rc < size) {
		check_proposal(buf, (size_t)rc);
		check_accept(buf, (size_t)rc);
		check_decline(buf, (size_t)rc);
	}
	free(buf);
	return 0;
}
