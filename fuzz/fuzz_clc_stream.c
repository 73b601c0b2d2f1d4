/* The CLC handshake as the core reads it from the TCP stream (model/clc_stream.c
 * smcr_conn_clc_input: framing, the state machine's Proposal / Accept / Confirm /
 * Decline handling, fallback with the bytes after the last message handed back, CLC
 * timeouts). Two cores over the ideal transport (tests/support/duo.c): one of them,
 * the core under test, gets the fuzzed stream as the bytes its peer wrote; the peer's
 * real CLC messages are dropped, so the fuzz plays the peer.
 *
 * Input: byte 0: 0x01 the core under test is the client (else the server), 0x02 the
 * TCP connection ends after the stream (0x04: with a reset), 0x08 both cores offer
 * only SMC-Rv1; byte 1: the segment size the stream arrives in (0: one segment); then
 * the stream. 1 ms passes between segments, 10 s after the last (the CLC waits). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/fuzz.h"
#include "model/smcr.h"
#include "tests/support/duo.h"

static void eid(char out[SMCR_EID_LEN], const char *s)
{
	memset(out, ' ', SMCR_EID_LEN);
	memcpy(out, s, strlen(s));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_in in = fuzz_in_make(data, size);
	uint8_t mode = fuzz_u8(&in);
	size_t chunk = fuzz_u8(&in);
	duo_opts o;
	duo_opts_default(&o);
	for (int i = 0; i < 2; i++) {
		o.set[i].n_ueids = 1;
		eid(o.set[i].ueids[0], "SMCSIM.DEMO.V2");
		if (mode & 0x08)
			o.set[i].v2 = false;
	}
	duo *d = duo_new(&o);
	int client_under_test = mode & 0x01;
	/* duo_connect(d, h): the client on host h; the core under test is on host 0 */
	duo_conn *cc = duo_connect(d, client_under_test ? 0 : 1);
	duo_conn *victim = client_under_test ? cc : cc->peer;
	/* the peer's messages never arrive: the fuzz plays the peer */
	victim->peer->drop_clc = true;
	victim->peer->clc_pending_len = 0;
	victim->drop_clc = true;
	victim->clc_pending_len = 0;
	const uint8_t *p = in.p;
	size_t left = in.left;
	while (left && victim->c && !victim->fallback) {
		size_t n = chunk && chunk < left ? chunk : left;
		ssize_t took = smcr_conn_clc_input(victim->c, p, n, duo_now(d));
		duo_sync(d);
		if (took < 0)
			break;
		p += n;
		left -= n;
		duo_run(d, duo_now(d) + SMCR_MS);
	}
	if (victim->c && (mode & 0x02)) {
		smcr_conn_tcp_closed(victim->c, mode & 0x04, duo_now(d));
		duo_sync(d);
	}
	duo_run(d, duo_now(d) + 10 * SMCR_S);
	if (getenv("FUZZ_DEBUG")) {
		/* how far an input got, for whoever writes seeds */
		smcr_stats st;
		smcr_ctx_get_stats(victim->host->ctx, &st);
		fprintf(stderr, "clc_stream: %s under test: established %d fallback %d (0x%08x, peer 0x%08x) aborted %d (%d), "
		                "decode errors %llu\n",
		        client_under_test ? "client" : "server", victim->established,
		        victim->fallback, victim->fb_reason, victim->fb_peer_diag, victim->aborted, victim->abort_err,
		        (unsigned long long)st.decode_errors);
	}
	duo_free(d);
	return 0;
}
