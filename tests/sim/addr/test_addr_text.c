/* The text forms of addresses (sim/addr/addr_text.h): dotted-decimal IPv4 and
 * colon-separated MAC, at their extremes and cut to a short buffer like snprintf. */
#include <criterion/criterion.h>
#include <string.h>

#include "sim/addr/addr_text.h"

Test(addr_text, ipv4_dotted_decimal_host_order)
{
	char buf[ADDR_TEXT_IPV4_LEN];
	cr_assert_str_eq(addr_text_ipv4(0x0a010203, buf, sizeof(buf)), "10.1.2.3");
	cr_assert_str_eq(addr_text_ipv4(0xc0a807fe, buf, sizeof(buf)), "192.168.7.254");
	cr_assert_str_eq(addr_text_ipv4(0, buf, sizeof(buf)), "0.0.0.0");
	/* the longest form fills the buffer exactly */
	cr_assert_str_eq(addr_text_ipv4(0xffffffff, buf, sizeof(buf)), "255.255.255.255");
	cr_assert_eq(strlen(buf) + 1, ADDR_TEXT_IPV4_LEN);
}

Test(addr_text, mac_lower_case_with_colons)
{
	char buf[ADDR_TEXT_MAC_LEN];
	cr_assert_str_eq(addr_text_mac((const uint8_t[6]){ 2, 0, 0xa, 0xff, 1, 0x9b }, buf, sizeof(buf)),
	                 "02:00:0a:ff:01:9b");
	cr_assert_str_eq(addr_text_mac((const uint8_t[6]){ 0 }, buf, sizeof(buf)), "00:00:00:00:00:00");
	cr_assert_str_eq(addr_text_mac((const uint8_t[6]){ 0xff, 0xff, 0xff, 0xff, 0xff, 0xff }, buf, sizeof(buf)),
	                 "ff:ff:ff:ff:ff:ff");
	cr_assert_eq(strlen(buf) + 1, ADDR_TEXT_MAC_LEN);
}

Test(addr_text, short_buffers_are_cut_and_terminated)
{
	char buf[8];
	memset(buf, 'x', sizeof(buf));
	cr_assert_str_eq(addr_text_ipv4(0xc0a807fe, buf, sizeof(buf)), "192.168");
	memset(buf, 'x', sizeof(buf));
	cr_assert_str_eq(addr_text_mac((const uint8_t[6]){ 2, 0, 0xa, 0xff, 1, 0x9b }, buf, 6), "02:00");
}
