/* A port's RoCE GID table: Linux's selection rules and the kernel's text formats. */
#include <criterion/criterion.h>
#include <string.h>

#include "sim/rdma/gid_table.h"

static void add_gid(smcr_port_desc *p, const char *text, uint16_t index, smcr_gid_type type, uint16_t vlan)
{
	smcr_gid_entry *g = &p->gids[p->n_gids++];
	cr_assert_eq(gid_table_parse_gid(text, g->gid), 0, "parse %s", text);
	g->index = index;
	g->type = type;
	g->vlan_id = vlan;
}

/* The table rxe builds on eth0 10.0.0.1/24 plus a VLAN 100 device 10.1.0.1/24, with v1
 * and v2 entries as a mlx5 port would also have them. */
static smcr_port_desc sample_port(void)
{
	smcr_port_desc p;
	memset(&p, 0, sizeof p);
	add_gid(&p, "fe80::5054:ff:fe12:3401", 0, SMCR_GID_ROCE_V1, 0);
	add_gid(&p, "fe80::5054:ff:fe12:3401", 1, SMCR_GID_ROCE_V2, 0);
	add_gid(&p, "::ffff:10.0.0.1", 2, SMCR_GID_ROCE_V1, 0);
	add_gid(&p, "::ffff:10.0.0.1", 3, SMCR_GID_ROCE_V2, 0);
	add_gid(&p, "fe80::5054:ff:fe12:3401", 4, SMCR_GID_ROCE_V1, 100);
	add_gid(&p, "::ffff:10.1.0.1", 5, SMCR_GID_ROCE_V2, 100);
	add_gid(&p, "::ffff:10.2.0.1", 7, SMCR_GID_ROCE_V2, 0);
	return p;
}

Test(roce_gid, v2_picks_the_first_ipv4_mapped_entry_in_the_subnet)
{
	smcr_port_desc p = sample_port();
	cr_assert_eq(gid_table_select(&p, SMCR_GID_ROCE_V2, 0, 0x0a000005u, 24), 3);
	cr_assert_eq(gid_table_select(&p, SMCR_GID_ROCE_V2, 0, 0x0a020063u, 24), 6);
	cr_assert_eq(gid_table_select(&p, SMCR_GID_ROCE_V2, 0, 0, 0), 3, "any address: first v4-mapped v2");
	cr_assert_eq(gid_table_select(&p, SMCR_GID_ROCE_V2, 0, 0x0b000001u, 24), -1, "no GID in 11.0.0.0/24");
	cr_assert_eq(gid_table_select(&p, SMCR_GID_ROCE_V2, 0, 0x0a000001u, 32), 3);
}

Test(roce_gid, v1_picks_the_first_v1_entry_on_the_vlan)
{
	smcr_port_desc p = sample_port();
	cr_assert_eq(gid_table_select(&p, SMCR_GID_ROCE_V1, 0, 0, 0), 0);
	cr_assert_eq(p.gids[0].index, 0);
	cr_assert_eq(gid_table_select(&p, SMCR_GID_ROCE_V1, 100, 0, 0), 4);
	cr_assert_eq(gid_table_select(&p, SMCR_GID_ROCE_V1, 200, 0, 0), -1);
}

Test(roce_gid, vlan_separates_v2_entries)
{
	smcr_port_desc p = sample_port();
	cr_assert_eq(gid_table_select(&p, SMCR_GID_ROCE_V2, 100, 0x0a010001u, 24), 5);
	cr_assert_eq(gid_table_select(&p, SMCR_GID_ROCE_V2, 100, 0x0a000001u, 24), -1,
	             "the untagged 10.0.0.1 entry does not serve VLAN 100");
}

Test(roce_gid, rxe_has_only_v2_so_v1_finds_nothing)
{
	smcr_port_desc p;
	memset(&p, 0, sizeof p);
	add_gid(&p, "fe80::5054:ff:fe00:1", 0, SMCR_GID_ROCE_V2, 0);
	add_gid(&p, "::ffff:10.0.0.1", 1, SMCR_GID_ROCE_V2, 0);
	cr_assert_eq(gid_table_select(&p, SMCR_GID_ROCE_V1, 0, 0, 0), -1);
	cr_assert_eq(gid_table_select(&p, SMCR_GID_ROCE_V2, 0, 0x0a000002u, 24), 1);
}

Test(roce_gid, parses_sysfs_gid_text_and_rejects_junk)
{
	uint8_t g[16], want[16] = { 0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x50, 0x54, 0x00, 0xff, 0xfe, 0x12, 0x34, 0x56 };
	cr_assert_eq(gid_table_parse_gid("fe80:0000:0000:0000:5054:00ff:fe12:3456\n", g), 0);
	cr_assert_arr_eq(g, want, 16);
	cr_assert_eq(gid_table_parse_gid("", g), -1);
	cr_assert_eq(gid_table_parse_gid("fe80::zz", g), -1);
	cr_assert_eq(gid_table_parse_gid("10.0.0.1", g), -1);
}

Test(roce_gid, parses_gid_types_as_the_kernel_writes_them)
{
	smcr_gid_type t;
	cr_assert_eq(gid_table_parse_type("RoCE v2\n", &t), 0);
	cr_assert_eq(t, SMCR_GID_ROCE_V2);
	cr_assert_eq(gid_table_parse_type("IB/RoCE v1\n", &t), 0);
	cr_assert_eq(t, SMCR_GID_ROCE_V1);
	cr_assert_eq(gid_table_parse_type("IB\n", &t), -1);
	cr_assert_eq(gid_table_parse_type("", &t), -1);
}

Test(roce_gid, parses_mac_addresses)
{
	uint8_t mac[6], want[6] = { 0x52, 0x54, 0x00, 0xab, 0xcd, 0xef };
	cr_assert_eq(gid_table_parse_mac("52:54:00:ab:cd:ef\n", mac), 0);
	cr_assert_arr_eq(mac, want, 6);
	cr_assert_eq(gid_table_parse_mac("52:54:00:ab:cd", mac), -1);
	cr_assert_eq(gid_table_parse_mac("52:54:00:ab:cd:ef:01", mac), -1);
}

Test(roce_gid, finds_vlan_ids_in_proc_net_vlan_config)
{
	const char *cfg = "VLAN Dev name\t | VLAN ID\n"
	                  "Name-Type: VLAN_NAME_TYPE_RAW_PLUS_VID_NO_PAD\n"
	                  "eth0.100       | 100  | eth0\n"
	                  "storage        | 2001 | eth1\n";
	uint16_t vid = 0;
	cr_assert_eq(gid_table_vlan_lookup(cfg, "eth0.100", &vid), 1);
	cr_assert_eq(vid, 100);
	cr_assert_eq(gid_table_vlan_lookup(cfg, "storage", &vid), 1);
	cr_assert_eq(vid, 2001);
	cr_assert_eq(gid_table_vlan_lookup(cfg, "eth0", &vid), 0);
	cr_assert_eq(gid_table_vlan_lookup("", "eth0", &vid), 0);
}
