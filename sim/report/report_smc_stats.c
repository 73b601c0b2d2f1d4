/* `smcr -d stats` as smc-tools v1.8.5 prints it (stats.c print_as_text with the detail
 * level, util.c get_abbreviated), from a stack's report_stats.
 *
 * What the simulator does not have prints as the kernel would print a counter it never
 * moved: the special socket calls but urgent data (no cork, nodelay, sendpage or splice
 * in the simulated applications), and for a report read from a capture everything a
 * capture cannot show (buffer usage, full and too-small counts, request sizes). */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "model/clc.h"
#include "sim/report/report_smc_int.h"

/* determine_mag_factor(): the unit for a number of `digits` decimal digits; from 13 digits
 * on smc-tools takes pow(1000, digits / 3), which for 15 digits is 1e15 named T: kept. */
static void magnitude(int digits, char *mag, double *factor)
{
	if (digits < 7) {
		*mag = 'K';
		*factor = 1000;
	} else if (digits < 10) {
		*mag = 'M';
		*factor = 1000000;
	} else if (digits < 13) {
		*mag = 'G';
		*factor = 1000000000;
	} else {
		*factor = pow(1000, digits / 3);
		*mag = digits < 16 ? 'T' : digits < 19 ? 'P' : '?';
	}
}

/* determine_digs(): digits before the point and places after it */
static void digs(int digits, int max_digs, int *full, int *places)
{
	*full = digits % 3 ? digits % 3 : 3;
	*places = max_digs - *full - 2;
	if (*places <= 0) {
		*places = 0;
		*full = max_digs - 1;
	}
}

void report_smc_abbrev(uint64_t num, int max_digs, char *out)
{
	char tmp[32];
	if (!num) {
		snprintf(out, (size_t)max_digs + 1, "0");
		return;
	}
	/* smc-tools counts the digits of (long long)num: past INT64_MAX a minus sign */
	int digits = snprintf(tmp, sizeof(tmp), "%lld", (long long)num);
	if (digits < 4) {
		snprintf(out, (size_t)max_digs + 1, "%" PRIu64, num);
		return;
	}
	int full, places;
	char mag;
	double factor;
	digs(digits, max_digs, &full, &places);
	magnitude(digits, &mag, &factor);
	double scaled = (double)num / factor;
	if (scaled + 5 * pow(10, -1 - places) >= pow(10, full)) {
		if (places > 0) {
			places--; /* 9.96 in a 1.1 format would be 10.0 */
		} else {
			digits++; /* 999.872 in 3.0 would be 1000K: the next unit */
			digs(digits, max_digs, &full, &places);
			magnitude(digits, &mag, &factor);
		}
	}
	snprintf(out, (size_t)max_digs + 1, "%*.*f%c", max_digs - 1, places, (double)num / factor, mag);
}

/* get_fbackstr(): smc-tools' own names, "[unknown]" for codes it does not know */
static const char *fallback_name(uint32_t code)
{
	static const struct {
		uint32_t code;
		const char *name;
	} names[] = {
		{ 0x03010000, "PEER_NO_SMC" }, { 0x01010000, "MEMORY" },     { 0x02010000, "TIMEOUT_CL" },
		{ 0x02020000, "TIMEOUT_AL" },  { 0x03000000, "CNF_ERR" },    { 0x03020000, "IPSEC" },
		{ 0x03030000, "NOSMCDEV" },    { 0x03030001, "NOSMCDDEV" },  { 0x03030002, "NOSMCRDEV" },
		{ 0x03030003, "NOISM2SUPP" },  { 0x03030004, "NOV2EXT" },    { 0x05000000, "PEERDECL" },
		{ 0x04000000, "SYNCERR" },     { 0x030d0000, "MAX_DMB" },    { 0x030c0000, "VERSMISMAT" },
		{ 0x030b0000, "NOSRVLINK" },   { 0x03030006, "NOSEID" },     { 0x03030007, "NOSMCD2DEV" },
		{ 0x03040000, "MODEUNSUPP" },  { 0x03050000, "RMBE_EC" },    { 0x03060000, "OPTUNSUPP" },
		{ 0x03070000, "DIFFPREFIX" },  { 0x03080000, "GETVLANERR" }, { 0x03090000, "ISMVLANERR" },
		{ 0x030a0000, "NOACTLINK" },   { 0x03030005, "NOV2DEXT" },
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].code == code)
			return names[i].name;
	return "[unknown]";
}

static uint64_t side_count(const report_fallback *f, bool server) { return server ? f->srv_cnt : f->clnt_cnt; }
static uint32_t side_seq(const report_fallback *f, bool server) { return server ? f->srv_seq : f->clnt_seq; }

/* print_fback_details(): a side's reasons by count, ties in the kernel's order (its bubble
 * sort only swaps for a larger count), the first three */
static void print_fallbacks(FILE *out, const report_stats *st, bool server)
{
	const report_fallback *order[REPORT_MAX_FALLBACKS];
	uint32_t n = 0;
	for (uint32_t i = 0; i < st->n_fallbacks; i++)
		if (side_count(&st->fallbacks[i], server))
			order[n++] = &st->fallbacks[i];
	for (uint32_t i = 1; i < n; i++) /* by seq: the kernel's list order */
		for (uint32_t j = i; j > 0 && side_seq(order[j], server) < side_seq(order[j - 1], server); j--) {
			const report_fallback *t = order[j];
			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	for (uint32_t i = 1; i < n; i++) /* stable, by count */
		for (uint32_t j = i; j > 0 && side_count(order[j], server) > side_count(order[j - 1], server); j--) {
			const report_fallback *t = order[j];
			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	if (n)
		report_smc_line(out, "    %s", server ? "Server" : "Client");
	for (uint32_t i = 0; i < n && i < 3; i++)
		report_smc_line(out, "     %-12s            %12d", fallback_name(order[i]->code),
		                (int)side_count(order[i], server));
}

/* fillbuffer() and the two rows: buffers by size, requests by size */
static void print_sizes(FILE *out, const uint64_t bufs[REPORT_BUF_BUCKETS], const uint64_t reqs[REPORT_BUF_BUCKETS])
{
	report_smc_line(out, "            8KB    16KB    32KB    64KB   128KB   256KB   512KB  >512KB");
	const uint64_t *rows[2] = { bufs, reqs };
	for (int r = 0; r < 2; r++) {
		char b[REPORT_BUF_BUCKETS][8];
		for (int i = 0; i < REPORT_BUF_BUCKETS; i++)
			report_smc_abbrev(rows[r][i], 6, b[i]);
		report_smc_line(out, "  %s   %6s  %6s  %6s  %6s  %6s  %6s  %6s  %6s", r ? "Reqs" : "Bufs", b[0], b[1], b[2], b[3],
		                b[4], b[5], b[6], b[7]);
	}
}

/* a share as smc-tools computes it: a float of count / (double)total * 100 */
static double share(uint64_t count, uint64_t total)
{
	float f = total ? (float)((double)count / (double)total * 100) : 0;
	return (double)f;
}

static void print_abbrev_line(FILE *out, const char *label, int width, uint64_t v)
{
	char a[8];
	report_smc_abbrev(v, 6, a);
	report_smc_line(out, "  %s%*" PRIu64 " (%s)", label, width, v, a);
}

static void print_summary(FILE *out, const report_stats *st)
{
	uint64_t clnt = st->clnt_v1_succ + st->clnt_v2_succ, srv = st->srv_v1_succ + st->srv_v2_succ;
	uint64_t smc = clnt + srv, hs = st->clnt_hshake_err + st->srv_hshake_err;
	uint64_t fb_c = 0, fb_s = 0;
	for (uint32_t i = 0; i < st->n_fallbacks; i++) {
		fb_c += st->fallbacks[i].clnt_cnt;
		fb_s += st->fallbacks[i].srv_cnt;
	}
	float avg = smc ? (float)((double)(st->rx_cnt + st->tx_cnt) / (double)smc) : 0;
	report_smc_line(out, "SMC-R Connections Summary");
	report_smc_line(out, "  Total connections handled  %12" PRIu64, smc + hs + fb_c + fb_s);
	report_smc_line(out, "  SMC connections            %12" PRIu64 " (client %" PRIu64 ", server %" PRIu64 ")", smc, clnt,
	                srv);
	report_smc_line(out, "    v1                       %12" PRIu64, st->clnt_v1_succ + st->srv_v1_succ);
	report_smc_line(out, "    v2                       %12" PRIu64, st->clnt_v2_succ + st->srv_v2_succ);
	report_smc_line(out, "  Handshake errors           %12" PRIu64 " (client %" PRIu64 ", server %" PRIu64 ")", hs,
	                st->clnt_hshake_err, st->srv_hshake_err);
	report_smc_line(out, "  Avg requests per SMC conn  %14.1f", (double)avg);
	report_smc_line(out, "  TCP fallback               %12" PRIu64 " (client %" PRIu64 ", server %" PRIu64 ")",
	                fb_c + fb_s, fb_c, fb_s);
	print_fallbacks(out, st, true);
	print_fallbacks(out, st, false);
}

void report_smc_stats(FILE *out, const report_stack *s)
{
	const report_stats *st = &s->stats;
	report_smc_line(out, "# smcr -d stats");
	print_summary(out, st);
	fputc('\n', out);
	report_smc_line(out, "RX Stats");
	print_abbrev_line(out, "Data transmitted (Bytes) ", 14, st->rx_bytes);
	report_smc_line(out, "  Total requests             %12" PRIu64, st->rx_cnt);
	print_abbrev_line(out, "Buffer usage (Bytes)       ", 12, st->rx_rmbuse);
	report_smc_line(out, "  Buffer full                %12" PRIu64 " (%.2f%%)", st->rx_buf_full, share(st->rx_buf_full, st->rx_cnt));
	report_smc_line(out, "  Buffer downgrades          %12" PRIu64, st->rx_downgrades);
	report_smc_line(out, "  Buffer reuses              %12" PRIu64, st->rx_reuses);
	print_sizes(out, st->rx_rmb_hist, st->rx_pd);
	fputc('\n', out);
	report_smc_line(out, "TX Stats");
	print_abbrev_line(out, "Data transmitted (Bytes) ", 14, st->tx_bytes);
	report_smc_line(out, "  Total requests             %12" PRIu64, st->tx_cnt);
	print_abbrev_line(out, "Buffer usage (Bytes)       ", 12, st->tx_rmbuse);
	report_smc_line(out, "  Buffer full                %12" PRIu64 " (%.2f%%)", st->tx_buf_full, share(st->tx_buf_full, st->tx_cnt));
	report_smc_line(out, "  Buffer full (remote)       %12" PRIu64 " (%.2f%%)", st->tx_buf_full_peer,
	                share(st->tx_buf_full_peer, st->tx_cnt));
	report_smc_line(out, "  Buffer too small           %12" PRIu64 " (%.2f%%)", st->tx_size_small,
	                share(st->tx_size_small, st->tx_cnt));
	report_smc_line(out, "  Buffer too small (remote)  %12" PRIu64 " (%.2f%%)", st->tx_size_small_peer,
	                share(st->tx_size_small_peer, st->tx_cnt));
	report_smc_line(out, "  Buffer downgrades          %12" PRIu64, st->tx_downgrades);
	report_smc_line(out, "  Buffer reuses              %12" PRIu64, st->tx_reuses);
	print_sizes(out, st->tx_rmb_hist, st->tx_pd);
	fputc('\n', out);
	report_smc_line(out, "Extras");
	report_smc_line(out, "  Special socket calls       %12" PRIu64, st->urg_data_cnt);
	report_smc_line(out, "    cork                     %12d", 0);
	report_smc_line(out, "    nodelay                  %12d", 0);
	report_smc_line(out, "    sendpage                 %12d", 0);
	report_smc_line(out, "    splice                   %12d", 0);
	report_smc_line(out, "    urgent data              %12" PRIu64, st->urg_data_cnt);
}
