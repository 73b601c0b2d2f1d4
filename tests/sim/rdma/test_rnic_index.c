/* The adapter's indexes: memory regions by address (the I/O address shared by
 * registrations of the same memory) and by key, and VFs by VMAC on the receive path. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "sim/fabric/eth_header.h"
#include "sim/rdma/mr.h"
#include "sim/rdma/rnic.h"

static sim_engine *eng;
static sim_fabric *fab;
static rnic *nic;

static void setup(void)
{
	eng = sim_engine_new(1);
	fab = sim_fabric_new(eng);
	rnic_config c;
	rnic_config_default(&c, "R1", 0x0101);
	nic = rnic_new(fab, &c);
}

static void teardown(void)
{
	rnic_free(nic);
	sim_fabric_free(fab);
	sim_engine_free(eng);
}

#define RW (SMCR_ACCESS_LOCAL_WRITE | SMCR_ACCESS_REMOTE_WRITE)

Test(rnic_index, the_same_memory_keeps_its_io_address_while_registered, .init = setup, .fini = teardown)
{
	rnic_vf *vf = rnic_activate(nic, "A", NULL);
	static uint8_t mem[3][65536];
	smcr_mr_info a1, a2, b, a_short, a3;
	rnic_mr *m1 = rnic_mr_reg(vf, mem[0], 65536, RW, &a1);
	rnic_mr *mb = rnic_mr_reg(vf, mem[1], 65536, RW, &b);
	rnic_mr *m2 = rnic_mr_reg(vf, mem[0], 65536, RW, &a2);
	rnic_mr *ms = rnic_mr_reg(vf, mem[0], 4096, RW, &a_short);
	cr_assert_eq(a2.iova, a1.iova, "registered again: the same I/O address");
	cr_assert_neq(a2.rkey, a1.rkey, "but its own key");
	cr_assert_neq(b.iova, a1.iova);
	cr_assert_neq(a_short.iova, a1.iova, "another length is another region");
	rnic_mr_dereg(m1);
	rnic_mr *m3 = rnic_mr_reg(vf, mem[0], 65536, RW, &a3);
	cr_assert_eq(a3.iova, a1.iova, "one registration was left: the address stays");
	/* keys find their region, stale ones nothing */
	cr_assert_eq(rnic_mr_remote(vf, a3.rkey, a3.iova + 100, 10, SMCR_ACCESS_REMOTE_WRITE), mem[0] + 100);
	cr_assert_null(rnic_mr_remote(vf, a1.rkey, a1.iova, 10, SMCR_ACCESS_REMOTE_WRITE), "deregistered key");
	cr_assert_eq(rnic_mr_local(vf, b.lkey, mem[1] + 5, 5, SMCR_ACCESS_LOCAL_WRITE), mem[1] + 5);
	rnic_mr_dereg(m2);
	rnic_mr_dereg(m3);
	rnic_mr_dereg(ms);
	smcr_mr_info a4;
	rnic_mr *m4 = rnic_mr_reg(vf, mem[0], 65536, RW, &a4);
	cr_assert_neq(a4.iova, a1.iova, "nothing registered any more: a fresh address");
	rnic_mr_dereg(m4);
	rnic_mr_dereg(mb);
	rnic_deactivate(vf);
}

Test(rnic_index, many_regions_each_found_by_address_and_key, .init = setup, .fini = teardown)
{
	enum { N = 4000 };
	rnic_vf *vf = rnic_activate(nic, "A", NULL);
	uint8_t *mem = calloc(N, 256);
	rnic_mr **mr = calloc(N, sizeof(*mr));
	smcr_mr_info *info = calloc(N, sizeof(*info));
	for (int i = 0; i < N; i++)
		mr[i] = rnic_mr_reg(vf, mem + i * 256, 256, RW, &info[i]);
	for (int i = 0; i < N; i += 2) /* every other one twice: shares its address */
		cr_assert_not_null(rnic_mr_reg(vf, mem + i * 256, 256, RW, &(smcr_mr_info){ 0 }));
	for (int i = 0; i < N; i++) {
		cr_assert_eq(rnic_mr_remote(vf, info[i].rkey, info[i].iova, 256, SMCR_ACCESS_REMOTE_WRITE), mem + i * 256);
		smcr_mr_info again;
		rnic_mr *m = rnic_mr_reg(vf, mem + i * 256, 256, RW, &again);
		cr_assert_eq(again.iova, info[i].iova, "region %d", i);
		rnic_mr_dereg(m);
	}
	rnic_deactivate(vf); /* frees the rest */
	free(mem);
	free(mr);
	free(info);
}

/* A non-RoCE frame for a VMAC: counted as the VF's (rx_not_roce) if a VF has that VMAC,
 * as nobody's (rx_not_mine) otherwise. */
static void frame_to(const uint8_t *dst)
{
	static const uint8_t src[6] = { 2, 9, 9, 9, 9, 9 };
	sim_frame *f = sim_frame_alloc_len(sim_fabric_frames(fab), 60);
	uint8_t *p = sim_frame_put(f, 60);
	memset(p, 0, 60);
	sim_eth_write(p, dst, src, 0, 0x88B5);
	sim_plug *port = &rnic_port_endpoint(nic, 1)->plug;
	port->receive(port, f, sim_now(eng));
	sim_engine_run(eng, SIM_TIME_NEVER, 0);
}

Test(rnic_index, frames_find_their_vf_by_vmac, .init = setup, .fini = teardown)
{
	rnic_vf *vf[RNIC_MAX_VFS];
	uint8_t vmac[RNIC_MAX_VFS][6];
	for (int i = 0; i < RNIC_MAX_VFS; i++) {
		vf[i] = rnic_activate(nic, "S", NULL);
		cr_assert_not_null(vf[i]);
		memcpy(vmac[i], rnic_vf_vmac(vf[i], 1), 6);
	}
	cr_assert_null(rnic_activate(nic, "S", NULL), "all VFs in use");
	for (int i = 0; i < RNIC_MAX_VFS; i += 3)
		rnic_deactivate(vf[i]);
	rnic_vf *again = rnic_activate(nic, "T", NULL);
	cr_assert_not_null(again);
	const uint8_t *new_vmac = rnic_vf_vmac(again, 1);
	uint64_t mine = 0, not_mine = 0;
	for (int i = 0; i < RNIC_MAX_VFS; i++) {
		frame_to(vmac[i]);
		if (i % 3)
			mine++;
		else
			not_mine++;
		cr_assert_eq(rnic_stats_get(nic)->rx_not_roce, mine, "VF %d", i);
		cr_assert_eq(rnic_stats_get(nic)->rx_not_mine, not_mine, "VF %d", i);
	}
	frame_to(new_vmac);
	cr_assert_eq(rnic_stats_get(nic)->rx_not_roce, mine + 1, "the new VF's VMAC is found");
	static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	frame_to(bcast);
	cr_assert_eq(rnic_stats_get(nic)->rx_not_mine, not_mine + 1);
}

/* The port remembers its last answer; a VF going away (or coming) makes it ask again. */
Test(rnic_index, a_remembered_vmac_is_forgotten_with_its_vf, .init = setup, .fini = teardown)
{
	rnic_vf *a = rnic_activate(nic, "A", NULL);
	rnic_vf *b = rnic_activate(nic, "B", NULL);
	uint8_t vmac[6];
	memcpy(vmac, rnic_vf_vmac(b, 1), 6);
	frame_to(vmac);
	frame_to(vmac);
	cr_assert_eq(rnic_stats_get(nic)->rx_not_roce, 2, "B's twice");
	rnic_deactivate(b);
	frame_to(vmac);
	cr_assert_eq(rnic_stats_get(nic)->rx_not_mine, 1, "nobody's once B is gone");
	cr_assert_eq(rnic_stats_get(nic)->rx_not_roce, 2);
	rnic_deactivate(a);
}
