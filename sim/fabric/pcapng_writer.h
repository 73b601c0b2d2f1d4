/* pcapng capture files (the format of Wireshark and tshark), written by hand: libpcap
 * reads pcapng but cannot write it.
 *
 * One section: a Section Header Block (little-endian, shb_userappl "smcr-sim", nothing
 * that varies from run to run), one Interface Description Block per tap point (Ethernet,
 * its snap length, if_name, if_description, if_tsresol = 9: nanosecond timestamps), and
 * one Enhanced Packet Block per frame (cut to the snap length), optionally with a packet comment (opt_comment).
 * Interfaces may be added at any time; an IDB is written before the first packet that
 * refers to it. Same calls, same bytes.
 */
#ifndef SIM_PCAPNG_WRITER_H
#define SIM_PCAPNG_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include "sim/engine/engine.h"

typedef struct sim_pcapng_writer sim_pcapng_writer;

/* Open (truncate) path and write the section header. Every interface gets the snap length
 * snaplen (0 means 262144; libpcap refuses files whose interfaces differ in it). NULL on
 * failure with the reason. */
sim_pcapng_writer *sim_pcapng_open(const char *path, uint32_t snaplen, char *err, size_t errlen);
/* Describe a tap point; returns its interface id (0, 1, ...). */
uint32_t sim_pcapng_add_interface(sim_pcapng_writer *w, const char *name, const char *description);
/* One frame of `len` bytes seen at virtual time `at` (ns) on interface `ifc`; at most the
 * interface's snap length is stored. comment may be NULL. */
void sim_pcapng_write(sim_pcapng_writer *w, uint32_t ifc, sim_time at, const uint8_t *data, uint32_t len,
                      const char *comment);
uint64_t sim_pcapng_frames(const sim_pcapng_writer *w);
/* Flush and close; returns 0, or -1 when a write failed (disk full, ...). */
int sim_pcapng_close(sim_pcapng_writer *w);

/* Block and option codes (pcapng specification, draft-ietf-opsawg-pcapng). */
#define PCAPNG_BT_SHB 0x0A0D0D0Au
#define PCAPNG_BT_IDB 0x00000001u
#define PCAPNG_BT_EPB 0x00000006u
#define PCAPNG_BYTE_ORDER_MAGIC 0x1A2B3C4Du
#define PCAPNG_OPT_ENDOFOPT 0
#define PCAPNG_OPT_COMMENT 1
#define PCAPNG_SHB_USERAPPL 4
#define PCAPNG_IF_NAME 2
#define PCAPNG_IF_DESCRIPTION 3
#define PCAPNG_IF_TSRESOL 9
#define PCAPNG_LINKTYPE_ETHERNET 1

#endif
