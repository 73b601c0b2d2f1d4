/* LLC and CDC messages as the core receives them on a link (model/rx.c, llc_flow.c and
 * the LLC procedures, CDC cursor handling): two cores with an SMC-R connection up over
 * the ideal transport, data flowing, and the fuzz injecting SENDs into either side's QP
 * as if the peer had posted them (sim/rdma/loopback_transport.c loopback_inject_recv).
 *
 * Input: records (fuzz_record: 16-bit length, bytes), each a flags byte and the SEND's
 * bytes (at most 8192). Flags: 0x01 into the client's QP (else the server's); 0x02 a
 * CDC message gets the receiving connection's alert token and 0x04 its current producer
 * cursor wrap (bytes 4..7, 8..9), so mutations reach the cursor checks; 0x08 the other
 * side writes 10 KB first. 1 ms passes after each SEND, 30 s after the last (LLC waits,
 * TEST LINK, close). */
#include <stdlib.h>
#include <string.h>

#include "fuzz/fuzz.h"
#include "model/smcr.h"
#include "tests/support/duo.h"

static bool up(void *arg)
{
	duo_conn *c = arg;
	return c->established && c->peer->established;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	duo_opts o;
	duo_opts_default(&o);
	duo *d = duo_new(&o);
	duo_conn *cc = duo_connect(d, 0);
	if (!duo_run_until(d, up, cc, 20 * SMCR_S))
		abort(); /* the harness itself is broken */
	fuzz_in in = fuzz_in_make(data, size);
	const uint8_t *rec;
	size_t len;
	uint8_t buf[SMCR_LLC_V2_MAX_LEN];
	while (fuzz_record(&in, &rec, &len)) {
		if (len < 1 || len - 1 > sizeof(buf))
			continue;
		uint8_t flags = rec[0];
		size_t n = len - 1;
		memcpy(buf, rec + 1, n);
		duo_conn *to = flags & 0x01 ? cc : cc->peer;
		int host = flags & 0x01 ? 0 : 1;
		if (flags & 0x08)
			duo_stream(to->peer, 10000);
		smcr_conn_info ci;
		if (to->c && smcr_conn_get_info(to->c, &ci) == 0 && n >= 10 && buf[0] == SMCR_CDC_TYPE) {
			if (flags & 0x02) {
				buf[4] = (uint8_t)(ci.local_token >> 24);
				buf[5] = (uint8_t)(ci.local_token >> 16);
				buf[6] = (uint8_t)(ci.local_token >> 8);
				buf[7] = (uint8_t)ci.local_token;
			}
			if (flags & 0x04) {
				buf[8] = (uint8_t)(ci.rx_prod.wrap >> 8);
				buf[9] = (uint8_t)ci.rx_prod.wrap;
			}
		}
		smcr_link_info li;
		if (duo_first_link(d, host, &li))
			(void)loopback_inject_recv(d->lb, li.local_qpn, buf, (uint32_t)n);
		duo_run(d, duo_now(d) + SMCR_MS);
	}
	duo_run(d, duo_now(d) + 30 * SMCR_S);
	duo_free(d);
	return 0;
}
