/* Linux "cooked" captures (`tcpdump -i any`, LINKTYPE_LINUX_SLL 113 and LINUX_SLL2 276):
 * each record starts with a pseudo-header in place of the Ethernet header. Replay reads
 * them by rebuilding an Ethernet frame: the pseudo-header's protocol as the EtherType,
 * its link-layer address (the sender's MAC on Ethernet devices) as the source MAC, and a
 * zero destination MAC, which the capture does not have (the decoder takes MACs from the
 * CLC and LLC messages, not from frame headers). */
#ifndef SIM_REPLAY_COOKED_H
#define SIM_REPLAY_COOKED_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

#define RP_LINKTYPE_ETHERNET 1
#define RP_LINKTYPE_LINUX_SLL 113
#define RP_LINKTYPE_LINUX_SLL2 276

/* The longest record libpcap hands out (its MAXIMUM_SNAPLEN), whatever snap length a
 * file's header claims: the header's value is the file's word, not a buffer size. */
#define RP_MAX_RECORD 262144u

/* A link type replay can read (Ethernet or one of the cooked ones). */
bool rp_linktype_readable(int linktype);

/* Rebuild the Ethernet frame of a cooked record into out (at least caplen + 14 bytes):
 * *out_caplen and *out_len are the captured and wire lengths of the result. Returns
 * RP_COOKED_OK, or with the reason in why RP_COOKED_MALFORMED (the pseudo-header is cut)
 * or RP_COOKED_OTHER (it carries no EtherType: not Ethernet traffic). */
typedef enum rp_cooked_result { RP_COOKED_OK,
	                        RP_COOKED_MALFORMED,
	                        RP_COOKED_OTHER } rp_cooked_result;
rp_cooked_result rp_cooked_to_ethernet(int linktype, const uint8_t *data, uint32_t caplen, uint32_t len, uint8_t *out,
                                       uint32_t *out_caplen, uint32_t *out_len, char *why, size_t whylen);

#endif
