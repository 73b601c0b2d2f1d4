/* Memory regions: keys, synthetic I/O addresses, access checks. */
#include "sim/rdma/mr.h"

#include <stdlib.h>

#include "sim/engine/oom.h"
#include "sim/fabric/speed_contracts.h" /* 1: deregistering settles */
#include "sim/rdma/rnic_int.h"

#define PAGE 4096u
#define ACCESS_ALL (SMCR_ACCESS_LOCAL_WRITE | SMCR_ACCESS_REMOTE_WRITE | SMCR_ACCESS_REMOTE_READ)

static uint32_t slot_alloc(rnic_vf *vf)
{
	if (vf->mr_free != UINT32_MAX) {
		uint32_t s = vf->mr_free;
		vf->mr_free = vf->mrs[s].next_free;
		return s;
	}
	if (vf->n_mr_slots == vf->cap_mr_slots) {
		vf->cap_mr_slots = vf->cap_mr_slots ? vf->cap_mr_slots * 2 : 16;
		vf->mrs = sim_xreallocarray(vf->mrs, vf->cap_mr_slots, sizeof(*vf->mrs), "memory regions");
	}
	/* slot 0 stays unused so that key 0 is never valid */
	if (vf->n_mr_slots == 0)
		vf->mrs[vf->n_mr_slots++] = (mr_slot){ NULL, 0, UINT32_MAX };
	uint32_t s = vf->n_mr_slots++;
	vf->mrs[s] = (mr_slot){ NULL, 0, UINT32_MAX };
	return s;
}

rnic_mr *rnic_mr_reg(rnic_vf *vf, void *addr, size_t len, uint32_t access, smcr_mr_info *out)
{
	if (!addr || len == 0 || len > ((size_t)1 << 40) || (access & ~ACCESS_ALL))
		return NULL;
	if ((access & SMCR_ACCESS_REMOTE_WRITE) && !(access & SMCR_ACCESS_LOCAL_WRITE))
		return NULL;
	if (vf->n_mr_slots >= 0xFFFFFF && vf->mr_free == UINT32_MAX)
		return NULL;
	rnic_mr *mr = sim_xcalloc(1, sizeof(*mr), "memory regions");
	uint32_t s = slot_alloc(vf);
	mr_slot *slot = &vf->mrs[s];
	slot->tag++;
	slot->mr = mr;
	mr->vf = vf;
	mr->slot = s;
	mr->lkey = (s << 8) | slot->tag;
	mr->rkey = (access & (SMCR_ACCESS_REMOTE_WRITE | SMCR_ACCESS_REMOTE_READ)) ? mr->lkey : 0;
	mr->addr = addr;
	mr->len = len;
	mr->access = access;
	/* The same memory registered again on the same function keeps its I/O address, as a
	 * real device's DMA address does (Linux announces that address for every link of
	 * an RMB on one device: smc_llc_fill_ext_v2, sg_dma_address of the link's sgt). The
	 * VF's live regions are indexed by address; regions at one address form a chain. */
	mr->iova = 0;
	uint64_t key = (uint64_t)(uintptr_t)addr;
	rnic_mr *head = u64map_get(&vf->mr_by_addr, key);
	for (const rnic_mr *o = head; o && !mr->iova; o = o->same_addr)
		if (o->len == len)
			mr->iova = o->iova;
	mr->same_addr = head;
	u64map_put(&vf->mr_by_addr, key, mr);
	if (!mr->iova) {
		mr->iova = vf->next_iova;
		/* page aligned, with an unmapped guard page behind every region */
		vf->next_iova += ((len + PAGE - 1) / PAGE + 1) * PAGE;
	}
	if (out) {
		out->lkey = mr->lkey;
		out->rkey = mr->rkey;
		out->iova = mr->iova;
	}
	return mr;
}

void rnic_mr_dereg(rnic_mr *mr)
{
	if (!mr)
		return;
	rnic_vf *vf = mr->vf;
	/* the host may do anything with the memory now: packets in flight take their bytes */
	if (vf->notes_writes)
		rnic_host_writes(vf->r, mr->addr, mr->len);
	uint64_t key = (uint64_t)(uintptr_t)mr->addr;
	rnic_mr *head = u64map_get(&vf->mr_by_addr, key);
	if (head == mr) {
		if (mr->same_addr)
			u64map_put(&vf->mr_by_addr, key, mr->same_addr);
		else
			u64map_del(&vf->mr_by_addr, key);
	} else {
		while (head->same_addr != mr)
			head = head->same_addr;
		head->same_addr = mr->same_addr;
	}
	mr_slot *slot = &vf->mrs[mr->slot];
	slot->mr = NULL;
	slot->next_free = vf->mr_free;
	vf->mr_free = mr->slot;
	free(mr);
}

void rnic_mr_free_all(rnic_vf *vf)
{
	if (vf->notes_writes)
		sim_frame_pool_settle_all(sim_fabric_frames(vf->r->fab));
	for (uint32_t i = 0; i < vf->n_mr_slots; i++)
		free(vf->mrs[i].mr);
	free(vf->mrs);
	vf->mrs = NULL;
	u64map_free(&vf->mr_by_addr);
	vf->n_mr_slots = vf->cap_mr_slots = 0;
	vf->mr_free = UINT32_MAX;
}

static rnic_mr *by_key(rnic_vf *vf, uint32_t key)
{
	uint32_t s = key >> 8;
	if (s == 0 || s >= vf->n_mr_slots)
		return NULL;
	rnic_mr *mr = vf->mrs[s].mr;
	return mr && mr->lkey == key ? mr : NULL;
}

uint8_t *rnic_mr_local(rnic_vf *vf, uint32_t lkey, const void *addr, uint32_t len, uint32_t need_access)
{
	rnic_mr *mr = by_key(vf, lkey);
	if (!mr || (mr->access & need_access) != need_access)
		return NULL;
	/* pointer comparison only to check containment, never for ordering or output */
	uintptr_t a = (uintptr_t)addr, base = (uintptr_t)mr->addr;
	if (a < base || a - base > mr->len || len > mr->len - (a - base))
		return NULL;
	return mr->addr + (a - base);
}

uint8_t *rnic_mr_remote(rnic_vf *vf, uint32_t rkey, uint64_t iova, uint32_t len, uint32_t need_access)
{
	rnic_mr *mr = by_key(vf, rkey);
	if (!mr || mr->rkey != rkey || (mr->access & need_access) != need_access)
		return NULL;
	if (iova < mr->iova || iova - mr->iova > mr->len || len > mr->len - (iova - mr->iova))
		return NULL;
	return mr->addr + (iova - mr->iova);
}
