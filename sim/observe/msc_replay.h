/* A message-sequence chart of a capture (msc.h): replay's decoder (sim/replay/replay.h)
 * reads the file, each CLC, LLC and CDC message becomes an arrow between the two hosts
 * (lifelines named by IP address, or "client"/"server" while the addresses are unknown),
 * link groups and connections are the decoder's numbers (connection "3" for the third),
 * and the decoder's errors are marks across all lifelines. RDMA WRITEs (data) are not
 * drawn. CDC: all, none, or every Nth per connection and direction plus the notable. */
#ifndef SIM_MSC_REPLAY_H
#define SIM_MSC_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "sim/observe/event_stream.h"
#include "sim/observe/msc.h"

/* 0, or -1 with the reason in err (an unreadable capture). */
int msc_from_capture(msc_chart *c, const char *path, obs_cdc_mode cdc, uint32_t cdc_every, char *err,
                     size_t errlen);

#endif
