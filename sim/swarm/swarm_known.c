/* Known failures of the swarm: violations it found whose cause is understood and kept on
 * purpose (Linux behaves so) or not fixed yet (the protocol core is another area's work).
 * Each pair is {text the violation line contains, reason}; the summary lists a failing
 * seed whose first violation matches under "known failures", with the reason, and does
 * not count it as new. Nothing is excluded silently: every known seed is still printed. */
#include <stddef.h>

#include "sim/swarm/swarm_job.h"

const char *const swarm_known_failures[] = {
	"; a corrupted ARP message: ",
	"Linux and z/OS do the same: ARP has no checksum, so a bit flipped past the FCS (corrupt=) in an ARP "
	"message's sender MAC goes into the neighbour cache (RFC 826 merge: a known sender is refreshed by any "
	"ARP message; Linux arp_process, neigh_update) and frames to that address go to a MAC nobody owns until "
	"the entry ages out: 60 s in the Linux personality (real Linux re-probes after reachable_time, 15-45 s, "
	"then DELAY 5 s and 3 unicast probes, so SYN retries reach the peer at 31 or 63 s), ARPAGE 20 min on "
	"z/OS; meanwhile handshakes time out (CLC_WAIT_TIME), connections hang past the hang bound and TCP "
	"keeps retransmitting past the drain",
	"read the other's CLC Decline as data",
	"Linux does the same: after a first link that did not come up, client and server each wait "
	"CLC_WAIT_TIME_SHORT for the other's Decline (smc_clnt_conf_first_link, smc_serv_conf_first_link); "
	"when both time out at once both send one and fall back, and each Decline is then the first bytes "
	"of the other's TCP stream",
	"in the CLC handshake and failed",
	"Linux does the same: a CLC message that does not come within CLC_WAIT_TIME (6 s) fails connect() "
	"with an error, no fallback (smc_clc_wait_msg, -EAGAIN); here the server was serialising first "
	"contacts (smc_server_lgr_pending) behind links that could not come up",
	"orphan: ",
	"Linux does the same: the server gives up on a handshake after CLC_WAIT_TIME (6 s) without the "
	"client's CLC Confirm (smc_listen_work, -EAGAIN, smc_listen_out_err) while the client still waits "
	"for its handshake lock (smc_client_lgr_pending); a client that reuses a link group then confirms "
	"without waiting for an answer and is connected; SMC-R does not watch the TCP connection and the "
	"server ignores CDC messages with a token it does not know (smc_cdc_rx_handler)",
	NULL,
};
