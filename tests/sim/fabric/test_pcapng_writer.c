/* pcapng output: block structure checked byte by byte, read back by libpcap (frames,
 * nanosecond timestamps, snap length) and by tshark (interface names and descriptions,
 * packet comments, timestamps), and the same calls give the same bytes. */
#include <criterion/criterion.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/byteorder.h"
#include "sim/fabric/capture_file.h"
#include "sim/fabric/pcapng_writer.h"

static void tmp_path(char *path, size_t n)
{
	snprintf(path, n, "/tmp/smcr-pcapng-XXXXXX");
	int fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	close(fd);
}

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	cr_assert_not_null(f);
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *b = malloc((size_t)n + 1);
	cr_assert_eq(fread(b, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return b;
}

static uint8_t frame_a[61], frame_b[1500];

/* Two interfaces, a snap length of 100, three frames, one comment. */
static void write_sample(const char *path)
{
	char err[256];
	sim_pcapng_writer *w = sim_pcapng_open(path, 100, err, sizeof(err));
	cr_assert_not_null(w, "%s", err);
	for (size_t i = 0; i < sizeof(frame_a); i++)
		frame_a[i] = (uint8_t)i;
	memset(frame_b, 0xBB, sizeof(frame_b));
	cr_assert_eq(sim_pcapng_add_interface(w, "SW1/ZOSA.osd1", "frames ZOSA.osd1 sent"), 0);
	sim_pcapng_write(w, 0, 123, frame_a, sizeof(frame_a), "SMC-R link 00000101: LLC CONFIRM LINK");
	cr_assert_eq(sim_pcapng_add_interface(w, "RA1.p1", NULL), 1);
	sim_pcapng_write(w, 1, 5 * SIM_S + 987654321, frame_b, sizeof(frame_b), NULL);
	sim_pcapng_write(w, 0, 6 * SIM_S, frame_a, 60, "");
	cr_assert_eq(sim_pcapng_frames(w), 3);
	cr_assert_eq(sim_pcapng_close(w), 0);
}

Test(pcapng_writer, blocks_are_padded_and_carry_their_length_at_both_ends)
{
	char path[64];
	tmp_path(path, sizeof(path));
	write_sample(path);
	size_t n;
	uint8_t *b = slurp(path, &n);
	uint32_t types[8];
	size_t nb = 0, off = 0;
	while (off < n) {
		cr_assert_leq(off + 12, n);
		uint32_t type = get_le32(b + off), len = get_le32(b + off + 4);
		cr_assert_eq(len % 4, 0, "block at %zu has length %u", off, len);
		cr_assert_leq(off + len, n);
		cr_assert_eq(get_le32(b + off + len - 4), len, "trailing length of the block at %zu", off);
		cr_assert_lt(nb, 8);
		types[nb++] = type;
		if (type == PCAPNG_BT_SHB)
			cr_assert_eq(get_le32(b + off + 8), PCAPNG_BYTE_ORDER_MAGIC);
		if (type == PCAPNG_BT_EPB) {
			uint32_t cap = get_le32(b + off + 20), orig = get_le32(b + off + 24);
			cr_assert_leq(cap, orig);
			/* after the data: options (a comment ends with opt_endofopt) or the trailer */
			size_t o = off + 28 + ((cap + 3u) & ~3u);
			if (o + 4 < off + len) {
				cr_assert_eq(get_le16(b + o), PCAPNG_OPT_COMMENT);
				uint16_t cl = get_le16(b + o + 2);
				cr_assert_eq(memcmp(b + o + 4, "SMC-R link", 10), 0);
				size_t end = o + 4 + ((cl + 3u) & ~3u);
				cr_assert_eq(get_le32(b + end), 0, "opt_endofopt");
				cr_assert_eq(end + 8, off + len);
			}
		}
		if (type == PCAPNG_BT_IDB) {
			cr_assert_eq(get_le16(b + off + 8), PCAPNG_LINKTYPE_ETHERNET);
			/* if_tsresol = 9 is among the options */
			size_t o = off + 16;
			bool tsresol = false;
			while (get_le16(b + o) != PCAPNG_OPT_ENDOFOPT) {
				uint16_t code = get_le16(b + o), ol = get_le16(b + o + 2);
				if (code == PCAPNG_IF_TSRESOL)
					tsresol = ol == 1 && b[o + 4] == 9;
				o += 4 + ((ol + 3u) & ~3u);
			}
			cr_assert(tsresol);
		}
		off += len;
	}
	cr_assert_eq(off, n);
	uint32_t want[] = { PCAPNG_BT_SHB, PCAPNG_BT_IDB, PCAPNG_BT_EPB, PCAPNG_BT_IDB, PCAPNG_BT_EPB, PCAPNG_BT_EPB };
	cr_assert_eq(nb, 6);
	cr_assert_arr_eq(types, want, sizeof(want));
	free(b);
	unlink(path);
}

Test(pcapng_writer, libpcap_reads_frames_timestamps_and_snap_length)
{
	char path[64];
	tmp_path(path, sizeof(path));
	write_sample(path);
	char perr[PCAP_ERRBUF_SIZE];
	pcap_t *p = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, perr);
	cr_assert_not_null(p, "%s", perr);
	cr_assert_eq(pcap_datalink(p), DLT_EN10MB);
	struct pcap_pkthdr *h;
	const u_char *data;
	cr_assert_eq(pcap_next_ex(p, &h, &data), 1);
	cr_assert_eq(h->ts.tv_sec, 0);
	cr_assert_eq(h->ts.tv_usec, 123, "nanoseconds");
	cr_assert_eq(h->caplen, 61);
	cr_assert_eq(memcmp(data, frame_a, 61), 0);
	cr_assert_eq(pcap_next_ex(p, &h, &data), 1);
	cr_assert_eq(h->ts.tv_sec, 5);
	cr_assert_eq(h->ts.tv_usec, 987654321);
	cr_assert_eq(h->caplen, 100, "cut to the snap length");
	cr_assert_eq(h->len, 1500);
	cr_assert_eq(pcap_next_ex(p, &h, &data), 1);
	cr_assert_eq(h->ts.tv_sec, 6);
	cr_assert_eq(h->caplen, 60);
	cr_assert_eq(pcap_next_ex(p, &h, &data), PCAP_ERROR_BREAK);
	pcap_close(p);
	unlink(path);
}

Test(pcapng_writer, tshark_reads_interface_names_and_comments)
{
	if (system("command -v tshark >/dev/null 2>&1") != 0) {
		cr_log_warn("tshark not installed: skipped");
		return;
	}
	char path[64], cmd[256];
	tmp_path(path, sizeof(path));
	write_sample(path);
	snprintf(cmd, sizeof(cmd),
	         "tshark -r %s -T fields -E separator='|' -e frame.number -e frame.interface_name "
	         "-e frame.interface_description -e frame.time_epoch -e frame.cap_len -e frame.comment 2>/dev/null",
	         path);
	FILE *f = popen(cmd, "r");
	cr_assert_not_null(f);
	char out[1024] = "";
	size_t got = fread(out, 1, sizeof(out) - 1, f);
	out[got] = 0;
	cr_assert_eq(pclose(f), 0);
	cr_assert_str_eq(out, "1|SW1/ZOSA.osd1|frames ZOSA.osd1 sent|0.000000123|61|SMC-R link 00000101: LLC CONFIRM LINK\n"
	                      "2|RA1.p1||5.987654321|100|\n"
	                      "3|SW1/ZOSA.osd1|frames ZOSA.osd1 sent|6.000000000|60|\n");
	unlink(path);
}

Test(pcapng_writer, same_calls_give_the_same_bytes)
{
	char a[64], b[64];
	tmp_path(a, sizeof(a));
	tmp_path(b, sizeof(b));
	write_sample(a);
	write_sample(b);
	size_t na, nb;
	uint8_t *x = slurp(a, &na), *y = slurp(b, &nb);
	cr_assert_eq(na, nb);
	cr_assert_eq(memcmp(x, y, na), 0);
	free(x);
	free(y);
	unlink(a);
	unlink(b);
}

Test(pcapng_writer, unwritable_path_is_reported)
{
	char err[256] = "";
	cr_assert_null(sim_pcapng_open("/nonexistent-dir/x.pcapng", 0, err, sizeof(err)));
	cr_assert(strstr(err, "/nonexistent-dir/x.pcapng"), "%s", err);
	cr_assert_null(capture_file_open("/nonexistent-dir/x.pcap", CAPTURE_PCAP, 0, err, sizeof(err)));
	cr_assert(strstr(err, "/nonexistent-dir/x.pcap"), "%s", err);
}

Test(pcapng_writer, capture_file_writes_either_format)
{
	char path[64], err[256];
	tmp_path(path, sizeof(path));
	for (int fmt = CAPTURE_PCAPNG; fmt <= CAPTURE_PCAP; fmt++) {
		capture_file *f = capture_file_open(path, (capture_format)fmt, 32, err, sizeof(err));
		cr_assert_not_null(f, "%s", err);
		uint32_t ifc = capture_file_add_interface(f, "x", "y");
		capture_file_write(f, ifc, 42, frame_b, 200, "c");
		cr_assert_eq(capture_file_frames(f), 1);
		cr_assert_eq(capture_file_close(f), 0);
		size_t n;
		uint8_t *b = slurp(path, &n);
		uint32_t magic = get_le32(b);
		cr_assert_eq(magic, fmt == CAPTURE_PCAPNG ? PCAPNG_BT_SHB : 0xA1B23C4Du);
		free(b);
		char perr[PCAP_ERRBUF_SIZE];
		pcap_t *p = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, perr);
		cr_assert_not_null(p, "%s", perr);
		struct pcap_pkthdr *h;
		const u_char *data;
		cr_assert_eq(pcap_next_ex(p, &h, &data), 1);
		cr_assert_eq(h->ts.tv_usec, 42);
		cr_assert_eq(h->caplen, 32);
		cr_assert_eq(h->len, 200);
		pcap_close(p);
	}
	capture_format cf;
	cr_assert_eq(capture_format_parse("pcap", &cf), 0);
	cr_assert_eq(cf, CAPTURE_PCAP);
	cr_assert_eq(capture_format_parse("pcapng", &cf), 0);
	cr_assert_eq(cf, CAPTURE_PCAPNG);
	cr_assert_eq(capture_format_parse("erf", &cf), -1);
	unlink(path);
}
