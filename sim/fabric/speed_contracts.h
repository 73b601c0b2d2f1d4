/* Speed contracts: promises between folders that make the simulator fast and that no
 * include would otherwise show. Each says what is promised, by whom to whom, where it is
 * kept and how it is checked. Every file that keeps a part of one includes this header
 * (`grep -l speed_contracts.h` finds them); a contract broken shows as an abort that
 * names it, in the checks below.
 *
 * 1. DEFERRED COPIES: an RDMA WRITE's payload is copied once (sender's memory -> the
 *    receiver's RMB), not twice (-> the frame -> the RMB).
 *    - fabric (sim/fabric/frame.c): a frame may leave n of its bytes where they come from
 *      (sim_frame_defer_copy; its ICRC owed too, sim_frame_defer_copy_crc), any number at
 *      a time in a pool, each listed under the 64 KiB region its source starts in, and
 *      copies them the moment anybody else may look (sim_frame_writable, push, put, a tap
 *      or capture: sim_frame_settle) or their source is about to change
 *      (sim_frame_pool_settle_range, _all: only the copies of the regions it touches).
 *    - rdma (sim/rdma/qp_requester.c, rnic.c, mr.c): an adapter leaves a WRITE packet's
 *      payload in host memory only for a VF whose host promised to say before that memory
 *      changes (rnic_vf_notes_writes); rnic_host_writes settles what overlaps; deregistering
 *      a region and taking a VF down settle too.
 *    - smc (sim/smc/smc_layer.c): the SMC-R layer makes that promise for the VFs of a
 *      simulated stack, and keeps it through the core's memory hooks (contract 2): before
 *      the core writes a send buffer (buf_write), and before a buffer is freed, reset or
 *      idled (its pages may then be given back), it calls rnic_host_writes on each of its
 *      adapters.
 *    - model (model/mem.c, model/tx.c): the core calls buf_write before it writes a send
 *      buffer (the one place it writes one) and buf_free, buf_reset or buf_idle before a
 *      buffer's bytes change otherwise.
 *    Checked: under AddressSanitizer a frame's bytes not copied yet are poisoned (a reader
 *    that should have settled is caught); a pool that checks (SAN=1 builds, or
 *    sim_frame_pool_check_contracts) hashes a source when the copy is deferred and again
 *    when it is made, and aborts naming this contract if the bytes changed in between (a
 *    writer that did not say so first). tests/sim/world/test_deferred_copy.c runs a world
 *    with a checking pool, tests/sim/rdma/test_deferred_copy.c shows a host that breaks the
 *    promise caught; make check SAN=1 runs every shipped scenario with every pool checking.
 *
 * 2. THE SIMULATOR'S MEMORY HOOKS (smcr_mem, model/smcr.h). malloc, calloc and free serve
 *    every host. free_sized serves a host that counts bytes (the core says each block's
 *    size, so the host keeps no header per block). Five exist for the simulator alone:
 *    buf_alloc, buf_free, buf_reset and buf_idle (RMBs and send buffers backed lazily,
 *    sim/rdma/lazy_arena.h: pages only while bytes are in flight) and buf_write (contract
 *    1). A host on real devices (--real-hw, smcr-sim node, interop) leaves the five NULL:
 *    registered memory stays resident, and a real adapter reads a send buffer by DMA when
 *    it sends. The core takes the four lazy hooks all or none (model/mem.c).
 *    Checked: where the SMC-R layer sets the hooks it sets the five or none
 *    (SIM_CONTRACT_SIM_MEM_HOOKS).
 *
 * 3. LAZY BUFFERS (smcr_mem buf_idle, sim/rdma/lazy_arena.h): the core says when it will
 *    not read a buffer's bytes again before new ones are written (an RMB drained, a send
 *    buffer all confirmed), with the bytes the peer wrote into it as far as it knows; the
 *    host may then give the pages back (reading as zero) unless more bytes than that
 *    reached it (bytes in flight), and the core says buf_idle(false) before it writes an
 *    idle send buffer again. Checked by tests/model/test_buf_hooks.c and
 *    tests/sim/rdma/test_lazy_arena.c.
 */
#ifndef SIM_FABRIC_SPEED_CONTRACTS_H
#define SIM_FABRIC_SPEED_CONTRACTS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "sim/fabric/frame.h"

/* A deferred copy's record lives in the bytes it leaves out: part of contract 1's price
 * is that only copies this long are deferred. */
_Static_assert(SIM_FRAME_DEFER_MIN >= 64, "a deferred copy keeps its record in the bytes it leaves out");

/* Builds that check the contracts on every pool (make SAN=1); any pool can be asked to. */
#if defined(__SANITIZE_ADDRESS__)
#define SIM_CONTRACTS_CHECKED 1
#else
#define SIM_CONTRACTS_CHECKED 0
#endif

__attribute__((noreturn, cold)) static inline void sim_contract_broken(const char *contract, const char *what)
{
	fprintf(stderr, "speed contract broken (%s, sim/fabric/speed_contracts.h): %s\n", contract, what);
	abort();
}

#define SIM_CONTRACT(cond, contract, what) ((cond) ? (void)0 : sim_contract_broken(contract, what))

/* A source's bytes, hashed (FNV-1a) when a copy is deferred and when it is made. */
static inline uint64_t sim_contract_digest(const void *p, size_t n)
{
	const uint8_t *b = p;
	uint64_t h = 0xcbf29ce484222325ULL;
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ULL;
	return h;
}

/* Contract 2: an smcr_mem's simulator-only hooks are all set or none. */
#define SIM_CONTRACT_SIM_MEM_HOOKS(m)                                                              \
	SIM_CONTRACT(((m)->buf_alloc && (m)->buf_free && (m)->buf_reset && (m)->buf_idle && (m)->buf_write) || \
	                     (!(m)->buf_alloc && !(m)->buf_free && !(m)->buf_reset && !(m)->buf_idle &&      \
	                      !(m)->buf_write),                                                             \
	             "the simulator's memory hooks",                                                        \
	             "smcr_mem's buf_alloc, buf_free, buf_reset, buf_idle and buf_write go together")

#endif
