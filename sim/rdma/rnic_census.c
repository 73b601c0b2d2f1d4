/* What a VF's memory regions and QPs hold on the heap (rnic.h rnic_vf_mem_census_add),
 * counted block by block as the allocator sizes them, for bench scale's split of the
 * memory an idle connection costs. Only sizes are read: nothing here reaches output. */

#include "sim/engine/oom.h"
#include "sim/rdma/rnic.h"
#include "sim/rdma/rnic_int.h"

void rnic_vf_mem_census_add(const rnic_vf *vf, rnic_vf_mem_census *out)
{
	out->mr_bytes += sim_heap_block_bytes(vf->mrs) + sim_heap_block_bytes(vf->mr_by_addr.slots);
	for (uint32_t i = 0; i < vf->n_mr_slots; i++)
		if (vf->mrs[i].mr) {
			out->mrs++;
			out->mr_bytes += sim_heap_block_bytes(vf->mrs[i].mr);
		}
	for (const rnic_qp *qp = vf->qps; qp; qp = qp->next_in_vf) {
		out->qps++;
		out->qp_bytes += sim_heap_block_bytes(qp) + sim_heap_block_bytes(qp->sq) + sim_heap_block_bytes(qp->sq_inline) + sim_heap_block_bytes(qp->rq);
	}
}
