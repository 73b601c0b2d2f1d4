/* API error codes of the SMC-R core: negative ints in bands (ngtcp2 style).
 *   -1xx  argument or state misuse by the caller
 *   -2xx  decode / protocol errors in peer input
 *   -3xx  resource limits
 *   <= -500 fatal
 * Protocol reason codes (CLC decline, LLC delete reasons) are not errors: they are
 * uint32_t wire constants kept with their codecs. The table is written once (X-macro);
 * the enum, smcr_err_name() and smcr_strerror() are generated from it. */
#ifndef SMCR_ERR_H
#define SMCR_ERR_H

#define SMCR_ERR_MAP(XX)                                            \
	XX(OK, 0, "success")                                        \
	XX(INVAL, -101, "invalid argument")                         \
	XX(STATE, -102, "operation not allowed in this state")      \
	XX(NOTFOUND, -103, "no such object")                        \
	XX(AGAIN, -104, "try again later (resource busy)")          \
	XX(CLOSED, -105, "connection closed")                       \
	XX(NOBUF, -201, "output buffer too small")                  \
	XX(SHORT, -202, "message shorter than its format requires") \
	XX(LENGTH, -203, "length field does not match the message") \
	XX(EYECATCHER, -204, "bad eyecatcher")                      \
	XX(TYPE, -205, "unknown or unexpected message type")        \
	XX(VERSION, -206, "unsupported version")                    \
	XX(FIELD, -207, "field value out of range")                 \
	XX(PROTO, -208, "protocol violation")                       \
	XX(TRAILER, -209, "bad trailer")                            \
	XX(NOMEM, -301, "out of memory")                            \
	XX(LIMIT, -302, "configured limit reached")                 \
	XX(TRANSPORT, -303, "transport operation failed")           \
	XX(CALLBACK, -401, "a callback reported failure")           \
	XX(FATAL, -500, "fatal internal error")

typedef enum smcr_err {
#define SMCR_ERR_ENUM(name, val, text) SMCR_ERR_##name = (val),
	SMCR_ERR_MAP(SMCR_ERR_ENUM)
#undef SMCR_ERR_ENUM
} smcr_err;

const char *smcr_err_name(int err);
const char *smcr_strerror(int err);

#endif
