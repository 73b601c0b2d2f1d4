/* Decoder error reporting shared by every model/ codec. */
#include "model/decode_err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "model/smcr_err.h"

int smcr_decode_fail(smcr_decode_err *err, int code, const char *message, const char *field,
                     uint32_t offset, uint64_t got, const char *expected_fmt, ...)
{
	if (!err)
		return code;
	err->code = code;
	err->message = message;
	err->field = field;
	err->offset = offset;
	err->got = got;
	va_list ap;
	va_start(ap, expected_fmt);
	vsnprintf(err->expected, sizeof(err->expected), expected_fmt, ap);
	va_end(ap);
	return code;
}

void smcr_decode_err_format(const smcr_decode_err *err, char *buf, size_t buflen)
{
	snprintf(buf, buflen, "%s: field %s at offset %u: got %llu (0x%llx), expected %s (%s)",
	         err->message ? err->message : "message", err->field ? err->field : "?",
	         (unsigned)err->offset, (unsigned long long)err->got, (unsigned long long)err->got,
	         err->expected, smcr_strerror(err->code));
}
