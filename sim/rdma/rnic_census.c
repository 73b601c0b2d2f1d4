/* What a VF's memory regions and QPs hold on the heap (rnic.h rnic_vf_mem_census_add),
 * counted block by block as the allocator sizes them, for bench scale's split of the
 * memory an idle connection costs. Only sizes are read: nothing here reaches output. */
#include <malloc.h>

#include "sim/rdma/rnic.h"
#include "sim/rdma/rnic_int.h"

/* A heap block as the allocator holds it: its usable bytes and the size word before them. */
static uint64_t heap_block(const void *p) { return p ? malloc_usable_size((void *)p) + sizeof(size_t) : 0; }

void rnic_vf_mem_census_add(const rnic_vf *vf, rnic_vf_mem_census *out)
{
	out->mr_bytes += heap_block(vf->mrs) + heap_block(vf->mr_by_addr.slots);
	for (uint32_t i = 0; i < vf->n_mr_slots; i++)
		if (vf->mrs[i].mr) {
			out->mrs++;
			out->mr_bytes += heap_block(vf->mrs[i].mr);
		}
	for (const rnic_qp *qp = vf->qps; qp; qp = qp->next_in_vf) {
		out->qps++;
		out->qp_bytes += heap_block(qp) + heap_block(qp->sq) + heap_block(qp->sq_inline) + heap_block(qp->rq);
	}
}
