/* A large capture made deterministically from a small one: N copies one after the other,
 * each with its own TCP client port (so every copy is a new connection and a new link
 * group) and time stamps shifted past the previous copy. The replay benchmark decodes
 * such a trace. */
#ifndef SIM_REPLAY_TRACE_COPIES_H
#define SIM_REPLAY_TRACE_COPIES_H

#include <stddef.h>

/* Write `copies` copies of base to out (classic pcap, nanosecond time stamps). 0, or -1
 * with the reason in err. */
int trace_copies_write(const char *base, const char *out, unsigned copies, char *err, size_t errlen);

#endif
