/* What a decoder found wrong, precisely enough to tell a user: which message, which field,
 * at which byte offset, what was there and what was expected. Every model/ decoder fills
 * one of these when it returns an error. */
#ifndef SMCR_DECODE_ERR_H
#define SMCR_DECODE_ERR_H

#include <stddef.h>
#include <stdint.h>

typedef struct smcr_decode_err {
	int code;            /* SMCR_ERR_* */
	const char *message; /* message family and type, e.g. "CLC Accept" */
	const char *field;   /* field name, e.g. "length" */
	uint32_t offset;     /* byte offset of the field in the message */
	uint64_t got;        /* the value found (when numeric) */
	char expected[96];   /* what was expected, e.g. "68 (SMC-R v1)" */
} smcr_decode_err;

/* Fill *err (if non-NULL) and return code. */
int smcr_decode_fail(smcr_decode_err *err, int code, const char *message, const char *field,
                     uint32_t offset, uint64_t got, const char *expected_fmt, ...)
        __attribute__((format(printf, 7, 8)));

/* One line: "CLC Accept: field length at offset 5: got 70, expected 68 (SMC-R v1)". */
void smcr_decode_err_format(const smcr_decode_err *err, char *buf, size_t buflen);

#endif
