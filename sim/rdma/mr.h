/* Memory regions of a simulated VF (its protection domain).
 *
 * A registration pins [addr, addr+len) of host memory and gives it an lkey, an rkey (equal
 * to the lkey, or 0 without remote access, as rxe does) and an I/O virtual address: a
 * synthetic, deterministic value (VF-local counter, page aligned), never the host pointer,
 * so nothing address-dependent reaches the wire. Keys are (slot index << 8 | 8-bit tag);
 * the tag changes when a slot is reused, so a stale key fails. */
#ifndef SIM_MR_H
#define SIM_MR_H

#include <stddef.h>
#include <stdint.h>

#include "model/smcr_transport.h"

typedef struct rnic_vf rnic_vf;
typedef struct rnic_mr rnic_mr;

/* NULL on bad arguments (len 0, unknown access bits, REMOTE_WRITE without LOCAL_WRITE as
 * verbs requires). */
rnic_mr *rnic_mr_reg(rnic_vf *vf, void *addr, size_t len, uint32_t access, smcr_mr_info *out);
void rnic_mr_dereg(rnic_mr *mr);

/* For the QP engine: the host bytes behind a local SGE (lkey, pointer range) or a remote
 * access (rkey, iova range), or NULL when the key, range or access rights do not fit. */
uint8_t *rnic_mr_local(rnic_vf *vf, uint32_t lkey, const void *addr, uint32_t len, uint32_t need_access);
uint8_t *rnic_mr_remote(rnic_vf *vf, uint32_t rkey, uint64_t iova, uint32_t len, uint32_t need_access);

#endif
