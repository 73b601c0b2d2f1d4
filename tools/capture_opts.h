/* The capture options of `smcr-sim run` (and the replay modes that run a world):
 *   --pcap FILE            the whole fabric (pcapng unless --pcap-format pcap); '-' stdout
 *   --pcap-format F        pcapng (default) or pcap (classic, nanosecond magic)
 *   --pcap-per-stack DIR   one file per stack: its interfaces and RoCE ports
 *   --pcap-snaplen N       store at most N bytes of each frame
 *   --pcap-taps T          ingress (default: each frame once) or both (per access port)
 * A command adds them to its options with one call. */
#ifndef TOOLS_CAPTURE_OPTS_H
#define TOOLS_CAPTURE_OPTS_H

#include <glib.h>

#include "sim/world/world.h"

/* Past this size of its files a capture says so on stderr, once (sim/world/world.h
 * pcap_warn_bytes): a long run at full rate writes hundreds of megabytes. */
#define CAPTURE_WARN_BYTES ((uint64_t)100 << 20)

typedef struct capture_args {
	gchar *pcap, *format, *per_stack, *snaplen, *taps;
} capture_args;

void capture_option_add(GOptionContext *ctx, capture_args *a);
/* Check the values and put them into o (pointers into a: keep a alive). 0 or 2 (usage
 * error, printed with prog). */
int capture_args_apply(const char *prog, const capture_args *a, world_opts *o);
void capture_args_free(capture_args *a);

#endif
