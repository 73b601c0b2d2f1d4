/* GID derivation (modified EUI-64, IPv4-mapped); the GID tables of adapter VFs are in
 * tests/sim/rdma/test_vf_gid.c. */
#include <criterion/criterion.h>
#include <string.h>

#include "sim/fabric/gid.h"

static void expect_gid_text(const uint8_t mac[6], const char *want)
{
	uint8_t gid[16];
	char text[GID_STRLEN];
	gid_from_mac(mac, gid);
	gid_format(gid, text);
	cr_assert_str_eq(text, want);
	uint8_t back[6];
	cr_assert(gid_to_mac(gid, back));
	cr_assert_eq(memcmp(back, mac, 6), 0, "round trip of %s", want);
}

Test(gid, link_local_from_locally_administered_mac_clears_the_ul_bit)
{
	expect_gid_text((const uint8_t[]){ 0x02, 0, 0, 0, 0, 0x02 }, "fe80::ff:fe00:2");
	expect_gid_text((const uint8_t[]){ 0x02, 0x00, 0x10, 0x01, 0x00, 0x01 }, "fe80::10ff:fe01:1");
}

Test(gid, link_local_from_universal_mac_sets_the_ul_bit)
{
	expect_gid_text((const uint8_t[]){ 0x00, 0x1a, 0x2b, 0x3c, 0x4d, 0x5e }, "fe80::21a:2bff:fe3c:4d5e");
	expect_gid_text((const uint8_t[]){ 0x98, 0x03, 0x9b, 0x11, 0x22, 0x33 }, "fe80::9a03:9bff:fe11:2233");
}

Test(gid, ul_bit_edges)
{
	/* all ones: the U/L bit is the only one that flips */
	expect_gid_text((const uint8_t[]){ 0xff, 0xff, 0xff, 0xff, 0xff, 0xff }, "fe80::fdff:ffff:feff:ffff");
	/* all zeros becomes 02 */
	expect_gid_text((const uint8_t[]){ 0, 0, 0, 0, 0, 0 }, "fe80::200:ff:fe00:0");
	/* only the U/L bit set: the interface id starts with zero */
	expect_gid_text((const uint8_t[]){ 0x02, 0, 0, 0, 0, 0 }, "fe80::ff:fe00:0");
	/* the multicast bit (0x01) is not touched */
	expect_gid_text((const uint8_t[]){ 0x03, 0, 0, 0, 0, 0 }, "fe80::100:ff:fe00:0");
}

Test(gid, ipv4_mapped)
{
	uint8_t gid[16];
	char text[GID_STRLEN];
	gid_from_ipv4(0x0A000002, gid);
	gid_format(gid, text);
	cr_assert_str_eq(text, "::ffff:10.0.0.2");
	cr_assert(gid_is_ipv4_mapped(gid));
	cr_assert_eq(gid_ipv4(gid), 0x0A000002);
	uint8_t mac[6];
	cr_assert_not(gid_to_mac(gid, mac));
	gid_from_mac((const uint8_t[]){ 2, 0, 0, 0, 0, 1 }, gid);
	cr_assert_not(gid_is_ipv4_mapped(gid));
}
