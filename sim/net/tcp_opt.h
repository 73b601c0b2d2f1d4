/* TCP options: the codec, separate from the state machine so it can be tested byte for
 * byte. Writing follows Linux's tcp_options_write() layout:
 *   MSS                        02 04 mm mm
 *   SACK-permitted + TS        04 02 08 0a <tsval> <tsecr>   (01 01 08 0a ... without SACK)
 *   SACK-permitted alone       01 01 04 02
 *   window scale               01 03 03 ss
 *   SACK blocks                01 01 05 len <start end>...
 *   SMC-R rendezvous           01 01 fe 06 e2 d4 c3 d9
 * Parsing stops at a malformed option and keeps what it read before. The SMC option is
 * recognised only with SYN set, with an even length >= 6 and the magic in the first
 * four data bytes, wherever it sits in the list (Linux smc_parse_options). */
#ifndef SIM_TCP_OPT_H
#define SIM_TCP_OPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TCPOPT_EOL 0
#define TCPOPT_NOP 1
#define TCPOPT_MSS 2
#define TCPOPT_WSCALE 3
#define TCPOPT_SACK_PERM 4
#define TCPOPT_SACK 5
#define TCPOPT_TIMESTAMP 8
#define TCPOPT_EXP 254
#define TCP_SMC_MAGIC 0xE2D4C3D9u
#define TCP_MAX_WSCALE 14
#define TCP_MAX_SACK_BLOCKS 4
#define TCP_MAX_OPT_LEN 40

typedef struct tcp_sack_block {
	uint32_t start, end;
} tcp_sack_block;

typedef struct tcp_opts {
	bool has_mss;
	uint16_t mss;
	bool has_wscale;
	uint8_t wscale; /* as sent; a parsed value above 14 is clamped to 14 */
	bool sack_perm;
	bool has_ts;
	uint32_t tsval, tsecr;
	bool smc; /* the SMC-R rendezvous option */
	uint8_t n_sack;
	tcp_sack_block sack[TCP_MAX_SACK_BLOCKS];
} tcp_opts;

/* Bytes tcp_opts_write() will produce (a multiple of 4). */
size_t tcp_opts_len(const tcp_opts *o, bool syn);
/* Write the options (the caller guarantees TCP_MAX_OPT_LEN bytes); returns the length.
 * On a SYN, SACK blocks are ignored; elsewhere MSS, window scale, SACK-permitted and the
 * SMC option are ignored, as Linux never sends them there. */
size_t tcp_opts_write(uint8_t *out, const tcp_opts *o, bool syn);
/* Parse; returns false if the list was malformed (what came before is kept). */
bool tcp_opts_parse(const uint8_t *p, size_t len, bool syn, tcp_opts *out);

#endif
