/* The applicability reader (sim/applic/): the input is a capture file, classic pcap or
 * pcapng of any link type libpcap reads, taken as `smcr-sim applicability FILE` takes it:
 * every record dissected from its headers (applic_packet.c), connections tracked at most
 * 64 at a time (the eviction path runs), SMCAT's figures, a small re-run (2 connections,
 * 64 steps, 1 MiB) and every output format; then the same bytes as one record of each
 * link type straight to the header parser. A file that cannot be used must say so. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <pcap/pcap.h>

#include "fuzz/fuzz.h"
#include "sim/applic/applic.h"
#include "sim/applic/applic_packet.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const int dlts[] = { DLT_EN10MB, DLT_LINUX_SLL, DLT_LINUX_SLL2, DLT_RAW, DLT_IPV4, DLT_IPV6, DLT_NULL, DLT_LOOP };
	for (size_t i = 0; i < sizeof(dlts) / sizeof(dlts[0]); i++) {
		ap_packet p;
		char why[96];
		uint32_t n = size > 65535 ? 65535 : (uint32_t)size;
		(void)ap_parse(dlts[i], data, n, n + (uint32_t)(size & 0xFFF), &p, why, sizeof(why));
	}
	char path[64];
	int fd = fuzz_memfile(data, size, path, sizeof(path));
	if (fd < 0)
		return 0;
	applic_opts o;
	applic_opts_default(&o);
	o.max_open = 64;
	o.max_dests = 8;
	o.rerun_max = 2;
	o.steps_max = 64;
	o.rerun_bytes = 1 << 20;
	applic_result res;
	char err[512] = "";
	if (applic_run(path, &o, &res, err, sizeof(err)) == 0) {
		FILE *null = fopen("/dev/null", "w");
		if (null) {
			applic_print_text(null, &res, "fuzz");
			applic_print_json(null, &res, "fuzz");
			applic_print_svg(null, &res, "fuzz");
			fclose(null);
		}
		applic_result_free(&res);
	} else if (!err[0]) {
		abort(); /* refused without saying why */
	}
	close(fd);
	return 0;
}
