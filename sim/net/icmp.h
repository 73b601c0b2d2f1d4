/* ICMP (RFC 792), the part a simulated stack needs: answering echo requests, sending
 * echo requests (stack_ping), and the errors a router raises (time exceeded,
 * destination unreachable incl. "fragmentation needed" with the next-hop MTU). */
#ifndef SIM_ICMP_H
#define SIM_ICMP_H

#include <stddef.h>
#include <stdint.h>

#include "sim/net/ipv4.h"

#define ICMP_ECHO_REPLY 0
#define ICMP_DEST_UNREACH 3
#define ICMP_ECHO_REQUEST 8
#define ICMP_TIME_EXCEEDED 11
#define ICMP_NET_UNREACH 0 /* codes of ICMP_DEST_UNREACH */
#define ICMP_HOST_UNREACH 1
#define ICMP_FRAG_NEEDED 4

typedef struct icmp_counters {
	uint64_t echo_requests_sent, echo_requests_received;
	uint64_t echo_replies_sent, echo_replies_received;
	uint16_t last_reply_seq;
	uint64_t errors_sent, errors_received, malformed;
} icmp_counters;

void icmp_input(stack *st, const ipv4_rx *rx);
/* An error about the datagram `orig` (its IPv4 header and first 8 payload bytes are
 * quoted). Never sent about an ICMP error. `mtu` only for ICMP_FRAG_NEEDED. */
void icmp_send_error(stack *st, uint8_t type, uint8_t code, uint16_t mtu, const uint8_t *orig,
                     size_t orig_len);
/* Echo request with `len` bytes of payload. Returns ipv4_output's result. */
int icmp_send_echo(stack *st, uint32_t dst, uint16_t id, uint16_t seq, size_t len);

#endif
