/* Typed values of scenario files (and of command-line options): integers, durations,
 * sizes, rates, ratios, booleans, IPv4 addresses and prefixes, MACs, names.
 *
 * Each parser takes the whole text of one value and returns true on success. On failure
 * it sets *why to a fixed phrase starting with "expected …" that says precisely what was
 * wrong, for a message like "bad duration '5x' for latency; expected …". Parsers never
 * round: a value that is not exact in the target unit ("1.5ns", "0.5" bytes) is an error.
 * Formatters print the canonical spelling the parsers read back to the same value. */
#ifndef SIM_SCN_VALUES_H
#define SIM_SCN_VALUES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/engine/rng.h"

/* The *why of a number too large for its type (above 2^64-1 bytes, ns, bps, …): callers
 * report it as out of range rather than malformed. Compare the pointer. */
extern const char scn_why_overflow[];
#define SCN_WHY_OVERFLOW scn_why_overflow

/* Decimal ("42") or 0x-prefixed hex ("0x2a"); no sign, no blanks. */
bool scn_parse_uint(const char *s, uint64_t *out, const char **why);
/* Hex digits with an optional 0x prefix ("0018", "0x18"), at most max_digits digits. */
bool scn_parse_hex(const char *s, unsigned max_digits, uint64_t *out, const char **why);

/* Durations: a decimal number and a unit ns, us, ms, s, m or h ("2.5ms"); "0" needs no
 * unit. With SCN_DUR_BARE_NS a number without unit counts nanoseconds. */
#define SCN_DUR_BARE_NS 1u
bool scn_parse_duration(const char *s, unsigned flags, uint64_t *ns, const char **why);
/* Sizes in bytes: "4096", "64K"/"64KiB" (1024), "1M"/"1MiB", "G"/"GiB", "T"/"TiB";
 * "KB", "MB", "GB", "TB" are powers of 1000. */
bool scn_parse_size(const char *s, uint64_t *bytes, const char **why);
/* Rates in bits per second: "10Gbps", "100Mbps", "25G", "1Kbps", "9600bps" (powers of 1000). */
bool scn_parse_rate(const char *s, uint64_t *bps, const char **why);
/* Probabilities 0..1 as exact integer ratios: "1/1000", "0.25", "0.5%", "0", "1".
 * The result is reduced ("0.5%" is 1/200; "0" is 0/1). */
bool scn_parse_ratio(const char *s, sim_ratio *r, const char **why);
/* yes/no, on/off, true/false. */
bool scn_parse_bool(const char *s, bool *b, const char **why);
/* Dotted quad "10.1.1.1" (host order result); no leading zeros. */
bool scn_parse_ipv4(const char *s, uint32_t *addr, const char **why);
/* "10.1.1.0/24" (length 0..32). Host bits are not checked here. */
bool scn_parse_prefix(const char *s, uint32_t *addr, uint8_t *len, const char **why);
/* "02:00:00:00:01:01" (hex pairs, either case). */
bool scn_parse_mac(const char *s, uint8_t mac[6], const char **why);
/* Names: [A-Za-z][A-Za-z0-9_-]*, at most 31 characters. */
bool scn_valid_name(const char *s, const char **why);

/* Canonical spellings; each returns buf. 32 bytes are always enough. */
#define SCN_FMT_LEN 32
char *scn_format_duration(uint64_t ns, char *buf, size_t len);
char *scn_format_size(uint64_t bytes, char *buf, size_t len);
char *scn_format_rate(uint64_t bps, char *buf, size_t len);
char *scn_format_ratio(sim_ratio r, char *buf, size_t len);

#endif
