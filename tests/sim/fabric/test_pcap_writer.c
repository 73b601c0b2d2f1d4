/* pcap output: libpcap reads back what we wrote, with nanosecond virtual timestamps. */
#include <criterion/criterion.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sim/fabric/pcap_writer.h"

Test(pcap_writer, frames_and_nanosecond_timestamps_read_back)
{
	char path[] = "/tmp/smcr-pcap-XXXXXX";
	int fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	close(fd);
	char err[256];
	sim_pcap_writer *w = sim_pcap_open(path, err, sizeof(err));
	cr_assert_not_null(w, "%s", err);
	uint8_t a[60], b[1500];
	memset(a, 0xAA, sizeof(a));
	memset(b, 0xBB, sizeof(b));
	sim_pcap_write(w, 123, a, sizeof(a));
	sim_pcap_write(w, 5 * SIM_S + 987654321, b, sizeof(b));
	cr_assert_eq(sim_pcap_frames(w), 2);
	sim_pcap_close(w);

	char perr[PCAP_ERRBUF_SIZE];
	pcap_t *p = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, perr);
	cr_assert_not_null(p, "%s", perr);
	cr_assert_eq(pcap_datalink(p), DLT_EN10MB);
	struct pcap_pkthdr *h;
	const u_char *data;
	cr_assert_eq(pcap_next_ex(p, &h, &data), 1);
	cr_assert_eq(h->ts.tv_sec, 0);
	cr_assert_eq(h->ts.tv_usec, 123, "nanoseconds");
	cr_assert_eq(h->caplen, 60);
	cr_assert_eq(memcmp(data, a, 60), 0);
	cr_assert_eq(pcap_next_ex(p, &h, &data), 1);
	cr_assert_eq(h->ts.tv_sec, 5);
	cr_assert_eq(h->ts.tv_usec, 987654321);
	cr_assert_eq(h->len, 1500);
	cr_assert_eq(memcmp(data, b, 1500), 0);
	cr_assert_eq(pcap_next_ex(p, &h, &data), PCAP_ERROR_BREAK);
	pcap_close(p);
	unlink(path);
}

Test(pcap_writer, unwritable_path_is_reported)
{
	char err[256] = "";
	cr_assert_null(sim_pcap_open("/nonexistent-dir/x.pcap", err, sizeof(err)));
	cr_assert(strstr(err, "/nonexistent-dir/x.pcap"), "%s", err);
}
