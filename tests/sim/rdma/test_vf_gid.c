/* The GID tables of adapter VFs: a VMAC and its link-local GID per stack on a shared
 * adapter, the port's description, VLANs and IPv4 addresses filling the table in order
 * (the derivations themselves: tests/sim/fabric/test_gid.c). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "model/smcr_err.h"
#include "sim/fabric/gid.h"
#include "sim/rdma/rnic.h"

typedef struct world {
	sim_engine *eng;
	sim_fabric *fab;
	rnic *nic;
} world;

static world make_world(uint8_t nports)
{
	world w;
	w.eng = sim_engine_new(1);
	w.fab = sim_fabric_new(w.eng);
	rnic_config c;
	rnic_config_default(&c, "EZRIUT10", 0x0110);
	c.nports = nports;
	snprintf(c.ports[0].pnet_id, sizeof(c.ports[0].pnet_id), "NETA");
	c.ports[1].eth_mtu = 9000;
	w.nic = rnic_new(w.fab, &c);
	return w;
}

static void free_world(world *w)
{
	rnic_free(w->nic);
	sim_fabric_free(w->fab);
	sim_engine_free(w->eng);
}

Test(vf_gid, every_stack_on_a_shared_adapter_gets_its_own_vmac_and_gid)
{
	world w = make_world(2);
	rnic_vf *vf[3];
	for (int i = 0; i < 3; i++)
		vf[i] = rnic_activate(w.nic, "stack", NULL);
	for (uint8_t port = 1; port <= 2; port++) {
		for (int i = 0; i < 3; i++) {
			smcr_port_desc d;
			rnic_vf_port_desc(vf[i], port, &d);
			cr_assert_eq(d.dev, (smcr_tp_dev *)(void *)vf[i]);
			cr_assert_eq(d.pfid, 0x0110);
			cr_assert_eq(d.port, port);
			cr_assert_eq(memcmp(d.mac, rnic_vf_vmac(vf[i], port), 6), 0);
			cr_assert(d.mac[0] & 0x02, "a VMAC is locally administered");
			cr_assert_not(d.mac[0] & 0x01, "and unicast");
			cr_assert_eq(d.n_gids, 1);
			cr_assert_eq(d.gids[0].type, SMCR_GID_ROCE_V1);
			cr_assert_eq(d.gids[0].vlan_id, 0);
			uint8_t want[16];
			gid_from_mac(d.mac, want);
			cr_assert_eq(memcmp(d.gids[0].gid, want, 16), 0);
			for (int j = 0; j < i; j++) {
				smcr_port_desc e;
				rnic_vf_port_desc(vf[j], port, &e);
				cr_assert_neq(memcmp(d.mac, e.mac, 6), 0, "VF %d and %d share a VMAC", i, j);
				cr_assert_neq(memcmp(d.gids[0].gid, e.gids[0].gid, 16), 0);
			}
		}
	}
	/* the two ports of one VF differ too, and the VMAC is a pure function of
	 * (PFID, port, VF number): 02:PP:PP:pp:VV:VV */
	cr_assert_neq(memcmp(rnic_vf_vmac(vf[0], 1), rnic_vf_vmac(vf[0], 2), 6), 0);
	static const uint8_t vmac_vf2_port2[6] = { 0x02, 0x01, 0x10, 0x02, 0x00, 0x02 };
	cr_assert_eq(memcmp(rnic_vf_vmac(vf[1], 2), vmac_vf2_port2, 6), 0);
	free_world(&w);
}

Test(vf_gid, port_description_reports_mtu_pnet_and_state)
{
	world w = make_world(2);
	rnic_vf *vf = rnic_activate(w.nic, "stackA", NULL);
	smcr_port_desc d;
	rnic_vf_port_desc(vf, 1, &d);
	cr_assert_str_eq(d.name, "EZRIUT10");
	cr_assert_str_eq(d.pnet_id, "NETA");
	cr_assert_eq(d.active_mtu, SMCR_MTU_1024, "eth MTU 1500 gives IB MTU 1024");
	cr_assert_eq(d.state, SMCR_PORT_DOWN, "not attached to anything");
	rnic_vf_port_desc(vf, 2, &d);
	cr_assert_eq(d.active_mtu, SMCR_MTU_4096, "eth MTU 9000 gives IB MTU 4096");
	free_world(&w);
}

Test(vf_gid, vlans_and_ipv4_addresses_fill_the_table_in_order)
{
	world w = make_world(1);
	rnic_vf *vf = rnic_activate(w.nic, "stackA", NULL);
	uint16_t vlans[2] = { 0, 100 };
	cr_assert_eq(rnic_vf_set_vlans(vf, 1, vlans, 2), 0);
	cr_assert_eq(rnic_vf_add_ipv4(vf, 1, 0xC0A80001, 33, 100), SMCR_ERR_INVAL, "a prefix of 33 bits");
	cr_assert_eq(rnic_vf_add_ipv4(vf, 1, 0xC0A80001, 16, 100), 0);
	cr_assert_eq(rnic_vf_add_ipv4(vf, 1, 0xC0A80001, 16, 100), SMCR_ERR_INVAL, "an address only once");
	smcr_port_desc d;
	rnic_vf_port_desc(vf, 1, &d);
	cr_assert_eq(d.n_gids, 3);
	cr_assert_eq(d.gids[0].type, SMCR_GID_ROCE_V1);
	cr_assert_eq(d.gids[0].vlan_id, 0);
	cr_assert_eq(d.gids[1].type, SMCR_GID_ROCE_V1);
	cr_assert_eq(d.gids[1].vlan_id, 100);
	cr_assert_eq(memcmp(d.gids[0].gid, d.gids[1].gid, 16), 0, "same link-local GID on each VLAN");
	cr_assert_eq(d.gids[2].type, SMCR_GID_ROCE_V2);
	cr_assert_eq(d.gids[2].vlan_id, 100);
	cr_assert_eq(d.gids[2].index, 2);
	cr_assert_eq(d.gids[2].prefix_len, 16, "the interface's subnet goes with its GID");
	cr_assert_eq(d.gids[0].prefix_len, 0);
	char text[GID_STRLEN];
	gid_format(d.gids[2].gid, text);
	cr_assert_str_eq(text, "::ffff:192.168.0.1");
	cr_assert_eq(rnic_vf_del_ipv4(vf, 1, 0xC0A80001), 0);
	cr_assert_eq(rnic_vf_del_ipv4(vf, 1, 0xC0A80001), SMCR_ERR_NOTFOUND);
	rnic_vf_port_desc(vf, 1, &d);
	cr_assert_eq(d.n_gids, 2);
	/* the table has SMCR_MAX_GIDS entries */
	for (uint32_t i = 0; i < SMCR_MAX_GIDS - 2; i++)
		cr_assert_eq(rnic_vf_add_ipv4(vf, 1, 0x0A000001 + i, 24, 0), 0);
	cr_assert_eq(rnic_vf_add_ipv4(vf, 1, 0x0B000001, 24, 0), SMCR_ERR_LIMIT);
	cr_assert_eq(rnic_vf_set_vlans(vf, 1, vlans, 0), SMCR_ERR_INVAL);
	free_world(&w);
}
