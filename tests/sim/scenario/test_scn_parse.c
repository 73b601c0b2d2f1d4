/* The scenario language: one test per kind of mistake (exact message and position), the
 * resolved model of valid files, canonical round trips, and every shipped scenario. */
#include <criterion/criterion.h>
#include <glib.h>
#include <stdio.h>
#include <string.h>

#include "sim/scenario/scn_int.h"
#include "sim/scenario/scn_model.h"
#include "sim/scenario/scn_values.h"

/* A valid little world; statements appended to it start on line 14. */
#define FABRIC                                         \
	"switch SW1\n"                                 \
	"adapter RA pfid=0018 switch=SW1\n"            \
	"adapter RB pfid=0019 switch=SW1\n"            \
	"stack A\n"                                    \
	"  interface eth0 switch=SW1 ip=10.0.0.1/24\n" \
	"  smcr pfid=0018\n"                           \
	"end\n"                                        \
	"stack B\n"                                    \
	"  interface eth0 switch=SW1 ip=10.0.0.2/24\n" \
	"  smcr pfid=0019\n"                           \
	"end\n"                                        \
	"app srv B listen port=5000 kind=sink\n"       \
	"app cli A connect B:5000 kind=bulk\n"

/* All error messages of loading `text`, one per line; asserts that nothing was returned. */
static char *errors_of_n(const char *text, size_t len)
{
	scn_diag d;
	scn_diag_init(&d);
	scn_scenario *s = scn_load_string("t.scn", text, len, &d);
	GString *out = g_string_new(NULL);
	for (size_t i = 0; i < scn_diag_count(&d); i++)
		g_string_append_printf(out, "%s\n", scn_diag_message(&d, i));
	if (d.overflow)
		g_string_append(out, "(overflow)\n");
	cr_assert(s == NULL || out->len == 0, "a scenario came back despite errors");
	cr_assert(s != NULL || out->len > 0, "no scenario and no error");
	scn_free(s);
	scn_diag_free(&d);
	return g_string_free(out, FALSE);
}

static char *errors_of(const char *text)
{
	return errors_of_n(text, strlen(text));
}

#define EXPECT_ERRORS(text, expected)                               \
	do {                                                        \
		char *got_ = errors_of(text);                       \
		cr_assert_str_eq(got_, expected, "got:\n%s", got_); \
		g_free(got_);                                       \
	} while (0)

static scn_scenario *load_ok(const char *text)
{
	scn_diag d;
	scn_diag_init(&d);
	scn_scenario *s = scn_load_string("t.scn", text, strlen(text), &d);
	cr_assert(s, "unexpected errors: %s", scn_diag_count(&d) ? scn_diag_message(&d, 0) : "(none)");
	scn_diag_free(&d);
	return s;
}

/* ---- lexical mistakes --------------------------------------------------------- */

Test(scn_parse, unterminated_string)
{
	EXPECT_ERRORS("scenario \"two stacks\n", "t.scn:1:10: unterminated string; expected a closing '\"' on the same line\n");
}

Test(scn_parse, unknown_escape_in_string)
{
	EXPECT_ERRORS("scenario \"a\\tb\"\n", "t.scn:1:12: unknown escape in a string; expected \\\" or \\\\\n");
}

Test(scn_parse, quote_inside_a_word)
{
	EXPECT_ERRORS("switch S\"1\"\n", "t.scn:1:9: '\"' inside a word; expected quotes around a whole value\n");
}

Test(scn_parse, text_right_after_a_closing_quote)
{
	EXPECT_ERRORS("scenario \"a\"b\n", "t.scn:1:13: 'b' right after a closing quote; expected a blank between words\n");
}

Test(scn_parse, stray_backslash)
{
	EXPECT_ERRORS(FABRIC "seed 1 \\ 2\n",
	              "t.scn:14:8: stray '\\'; expected '\\' only at the end of a line to continue it\n");
}

Test(scn_parse, continuation_past_the_end_of_the_file)
{
	EXPECT_ERRORS(FABRIC "seed 1 \\\n", "t.scn:14:8: '\\' continues past the end of the file; expected another line\n");
}

Test(scn_parse, continuation_into_an_empty_line)
{
	EXPECT_ERRORS(FABRIC "seed \\\n\nend 1s\n",
	              "t.scn:14:6: '\\' continues into an empty line 15; expected the statement to go on there\n");
}

Test(scn_parse, empty_value_after_equals)
{
	EXPECT_ERRORS(FABRIC "report format=\n", "t.scn:14:15: empty value for 'format'; expected a value right after '='\n");
}

Test(scn_parse, control_character)
{
	static const char text[] = FABRIC "seed 1\001\nscenario \"a\0b\"\n";
	char *got = errors_of_n(text, sizeof(text) - 1);
	cr_assert_str_eq(got, "t.scn:14:7: control character 0x01; expected printable text\n"
	                      "t.scn:15:12: control character 0x00 in a string; expected printable text\n");
	g_free(got);
}

/* ---- statements and blocks ----------------------------------------------------------- */

Test(scn_parse, unknown_statement)
{
	EXPECT_ERRORS(FABRIC "swich S2\n",
	              "t.scn:14:1: unknown statement 'swich'; expected one of scenario, seed, end, switch, wire, adapter, "
	              "stack, app, at, expect, report\n");
}

Test(scn_parse, unknown_statement_in_a_stack_block)
{
	EXPECT_ERRORS("switch SW1\nstack A\n  interface e0 switch=SW1 ip=10.0.0.1/24\n  router on\nend\n",
	              "t.scn:4:3: unknown statement 'router' in a stack block; expected one of interface, route, "
	              "forwarding, smcr, host, tcp, end\n");
}

Test(scn_parse, statement_outside_its_block)
{
	EXPECT_ERRORS(FABRIC "interface eth1 switch=SW1 ip=10.0.0.3/24\n",
	              "t.scn:14:1: 'interface' outside a stack block; expected it between 'stack NAME' and 'end'\n");
}

Test(scn_parse, top_level_statement_inside_a_block_closes_it)
{
	/* the app is parsed as a top-level statement after the error, so no follow-up errors */
	EXPECT_ERRORS("switch SW1\nstack A\n  interface e0 switch=SW1 ip=10.0.0.1/24\n"
	              "stack B\n  interface e0 switch=SW1 ip=10.0.0.2/24\nend\n",
	              "t.scn:4:1: 'stack' inside the block of stack 'A' (opened at 2:1); expected 'end' to close the block "
	              "first\n");
}

Test(scn_parse, block_without_end)
{
	EXPECT_ERRORS("switch SW1\nstack A\n  interface e0 switch=SW1 ip=10.0.0.1/24\n",
	              "t.scn:2:1: the block of stack 'A' is not closed; expected 'end' before the end of the file\n");
}

Test(scn_parse, end_without_a_block)
{
	EXPECT_ERRORS(FABRIC "end\n", "t.scn:14:1: 'end' without an open block; expected 'end TIME' to set the run's end time\n");
}

Test(scn_parse, end_of_block_with_words_after_it)
{
	EXPECT_ERRORS("switch SW1\nstack A\n  interface e0 switch=SW1 ip=10.0.0.1/24\nend 5s\n",
	              "t.scn:4:5: 'end' closing a stack block takes nothing after it; expected 'end' alone\n");
}

Test(scn_parse, statement_starting_with_an_attribute_or_a_string)
{
	EXPECT_ERRORS(FABRIC "seed=3\n\"seed\" 3\n",
	              "t.scn:14:1: a statement cannot start with an attribute ('seed=…'); expected one of scenario, seed, "
	              "end, switch, wire, adapter, stack, app, at, expect, report\n"
	              "t.scn:15:1: a statement cannot start with a quoted string; expected one of scenario, seed, end, "
	              "switch, wire, adapter, stack, app, at, expect, report\n");
}

Test(scn_parse, repeated_run_setting)
{
	EXPECT_ERRORS(FABRIC "seed 1\nseed 2\n", "t.scn:15:1: repeated 'seed' (first at 14:1); expected one 'seed' statement\n");
}

Test(scn_parse, word_after_the_attributes)
{
	EXPECT_ERRORS(FABRIC "switch SW2 vlans=10 extra\n",
	              "t.scn:14:21: unexpected word 'extra' after the attributes; expected key=value (switch NAME "
	              "[vlans=LIST])\n");
}

Test(scn_parse, missing_name)
{
	EXPECT_ERRORS(FABRIC "switch vlans=10\n", "t.scn:14:1: missing switch name; expected switch NAME [vlans=LIST]\n");
}

Test(scn_parse, bad_name)
{
	EXPECT_ERRORS(FABRIC "switch 2nd\n", "t.scn:14:8: bad switch name '2nd'; expected a name starting with a letter\n");
}

/* ---- attributes and values ----------------------------------------------------------- */

Test(scn_parse, unknown_attribute)
{
	EXPECT_ERRORS(FABRIC "wire W1 SW1 SW1b latncy=3us\nswitch SW1b\n",
	              "t.scn:14:18: unknown attribute 'latncy' for wire; expected one of latency, bandwidth, mtu, loss, "
	              "dup, reorder, corrupt, vlans\n");
}

Test(scn_parse, repeated_attribute)
{
	EXPECT_ERRORS(FABRIC "switch SW2\nwire W1 SW1 SW2 mtu=1500 mtu=9000\n",
	              "t.scn:15:26: repeated attribute 'mtu' (first at 15:17); expected each attribute once\n");
}

Test(scn_parse, missing_required_attribute)
{
	EXPECT_ERRORS(FABRIC "adapter RC pfid=0020\n",
	              "t.scn:14:1: missing attribute 'switch' for adapter; expected switch=NAME\n");
}

Test(scn_parse, missing_second_switch_for_two_ports)
{
	EXPECT_ERRORS(FABRIC "adapter RC pfid=0020 switch=SW1 ports=2\n",
	              "t.scn:14:1: missing attribute 'switch2' for adapter 'RC' with ports=2; expected switch2=NAME\n");
}

Test(scn_parse, port_two_attribute_on_a_one_port_adapter)
{
	EXPECT_ERRORS(FABRIC "adapter RC pfid=0020 switch=SW1 mac2=02:00:00:00:00:09\n",
	              "t.scn:14:33: mac2= describes port 2 but adapter 'RC' has one port; expected ports=2 with it\n");
}

Test(scn_parse, bad_integer)
{
	EXPECT_ERRORS(FABRIC "app srv2 B listen port=80a kind=sink\n",
	              "t.scn:14:24: bad integer '80a' for port; expected a decimal or 0x-prefixed hex integer\n");
}

Test(scn_parse, bad_hex)
{
	EXPECT_ERRORS(FABRIC "adapter RC pfid=00G0 switch=SW1\n",
	              "t.scn:14:17: bad hex number '00G0' for pfid; expected hex digits 0-9, a-f\n");
}

Test(scn_parse, bad_duration)
{
	EXPECT_ERRORS(FABRIC "switch SW2\nwire W1 SW1 SW2 latency=5x\n",
	              "t.scn:15:25: bad duration '5x' for latency; expected a unit ns, us, ms, s, m or h\n");
}

Test(scn_parse, bad_size)
{
	EXPECT_ERRORS(FABRIC "app c2 A connect B:5000 kind=bulk bytes=10k\n",
	              "t.scn:14:41: bad size '10k' for bytes; expected a unit K, KiB, M, MiB, G, GiB, T, TiB, KB, MB, GB or "
	              "TB\n");
}

Test(scn_parse, bad_rate)
{
	EXPECT_ERRORS(FABRIC "adapter RC pfid=0020 switch=SW1 bandwidth=10\n",
	              "t.scn:14:43: bad rate '10' for bandwidth; expected a unit bps, Kbps, Mbps, Gbps, Tbps (or K, M, G, T)\n");
}

Test(scn_parse, bad_ratio)
{
	EXPECT_ERRORS(FABRIC "at 1s set adapter RA loss=2/1\n",
	              "t.scn:14:27: bad ratio '2/1' for loss; expected a probability between 0 and 1\n");
}

Test(scn_parse, bad_boolean)
{
	EXPECT_ERRORS(FABRIC "app c2 A connect B:5000 kind=bulk smc=maybe\n",
	              "t.scn:14:39: bad boolean 'maybe' for smc; expected yes or no (on/off, true/false)\n");
}

Test(scn_parse, bad_ip_address)
{
	EXPECT_ERRORS("switch SW1\nstack A\n  interface e0 switch=SW1 ip=10.0.0.300/24\nend\n",
	              "t.scn:3:30: bad address/prefix '10.0.0.300/24' for ip; expected octets 0..255\n");
}

Test(scn_parse, bad_prefix_length)
{
	EXPECT_ERRORS("switch SW1\nstack A\n  interface e0 switch=SW1 ip=10.0.0.1/0\nend\n",
	              "t.scn:3:30: prefix length /0 is out of range; expected 1..32\n");
}

Test(scn_parse, bad_mac)
{
	EXPECT_ERRORS(FABRIC "adapter RC pfid=0020 switch=SW1 mac=02:00:00:00:01\n",
	              "t.scn:14:37: bad MAC address '02:00:00:00:01' for mac; expected a MAC address such as "
	              "02:00:00:00:01:01\n");
}

Test(scn_parse, multicast_mac)
{
	EXPECT_ERRORS(FABRIC "adapter RC pfid=0020 switch=SW1 mac=01:00:5e:00:00:01\n",
	              "t.scn:14:37: mac=01:00:5e:00:00:01 is a multicast address; expected a unicast MAC (first byte "
	              "even)\n");
}

Test(scn_parse, bad_enum_value)
{
	EXPECT_ERRORS(FABRIC "stack C personality=mvs\n  interface e0 switch=SW1 ip=10.0.0.3/24\nend\n",
	              "t.scn:14:21: bad value 'mvs' for personality; expected zos or linux\n");
}

Test(scn_parse, bad_vlan_list)
{
	EXPECT_ERRORS(FABRIC "switch SW2 vlans=10,,20\n",
	              "t.scn:14:18: bad VLAN list '10,,20' for vlans; expected all or VLAN ids separated by single commas, "
	              "such as 10,20\n");
}

Test(scn_parse, bad_ueid)
{
	EXPECT_ERRORS("switch SW1\nstack A\n  interface e0 switch=SW1 ip=10.0.0.1/24\n  smcr ueid=lower.case\nend\n",
	              "t.scn:4:13: bad UEID list 'lower.case' for ueid; expected UEIDs of A-Z, 0-9, '.' and '-' starting "
	              "with a letter or digit\n");
}

/* Linux's UEID table holds SMC_MAX_UEID (4) entries; a fifth is refused (-ERANGE) */
Test(scn_parse, a_fifth_ueid_is_refused_as_linux_does)
{
	EXPECT_ERRORS("switch SW1\nstack A\n  interface e0 switch=SW1 ip=10.0.0.1/24\n  smcr ueid=A1,A2,A3,A4,A5\nend\n",
	              "t.scn:4:13: bad UEID list 'A1,A2,A3,A4,A5' for ueid; expected at most 4 UEIDs (Linux's table holds "
	              "4, SMC_MAX_UEID)\n");
}

/* kernel presets: a version the stack's kernel lacks is refused, as is kernel= on z/OS */
Test(scn_parse, kernel_presets_refuse_what_the_kernel_lacks)
{
	EXPECT_ERRORS("switch SW1\nstack A personality=linux kernel=6.1\n  interface e0 switch=SW1 ip=10.0.0.1/24\n"
	              "  smcr release=1\nend\nstack B personality=zos kernel=6.12\n"
	              "  interface e0 switch=SW1 ip=10.0.0.2/24\nend\nstack C kernel=6\n"
	              "  interface e0 switch=SW1 ip=10.0.0.3/24\nend\nstack D kernel=5.15\n"
	              "  interface e0 switch=SW1 ip=10.0.0.4/24\n  smcr v2=yes\nend\n",
	              "t.scn:4:16: release=1 on kernel 6.1; expected SMC-Rv2.1 only with kernel 6.6 or later\n"
	              "t.scn:6:32: kernel=6.12 on a z/OS stack; expected kernel= only with personality=linux\n"
	              "t.scn:9:16: bad kernel version '6'; expected a Linux kernel version such as 6.1, 6.12 or 7.3 (4.11 or "
	              "later: SMC came with 4.11)\n"
	              "t.scn:14:11: v2=yes on kernel 5.15; expected SMC-Rv2 only with kernel 5.16 or later\n");
}

Test(scn_parse, out_of_range_values)
{
	EXPECT_ERRORS("switch SW1\nstack A\n  interface e0 switch=SW1 ip=10.0.0.1/24 vlan=4095\n  smcr maxconns=300\n"
	              "  smcr pfid=0018 mtu=1000\nend\napp s A listen port=0 kind=sink\n",
	              "t.scn:3:47: vlan=4095 is out of range; expected 1..4094\n"
	              "t.scn:4:17: maxconns=300 is out of range; expected 16..255\n"
	              "t.scn:5:22: mtu=1000 is not allowed; expected 256, 512, 1024, 2048 or 4096\n"
	              "t.scn:7:21: port=0 is out of range; expected 1..65535\n");
}

Test(scn_parse, out_of_range_sizes_and_times_use_their_units)
{
	EXPECT_ERRORS("switch SW1\nstack A\n  interface e0 switch=SW1 ip=10.0.0.1/24\n  smcr rmbsize=1K\nend\nend 2d\nend 25h\n",
	              "t.scn:4:16: rmbsize=1K is out of range; expected 16K..512M\n"
	              "t.scn:6:5: bad duration '2d' for end; expected a unit ns, us, ms, s, m or h\n"
	              "t.scn:7:5: end=25h is out of range; expected 1ns..24h\n");
}

Test(scn_parse, attribute_of_another_kind)
{
	EXPECT_ERRORS(FABRIC "app c2 A connect B:5000 kind=bulk count=3\n",
	              "t.scn:14:35: attribute 'count' does not apply to kind=bulk; expected it only with kind=rr or kind=crr\n");
}

Test(scn_parse, unknown_role)
{
	EXPECT_ERRORS(FABRIC "app c2 A accept B:5000 kind=bulk\n", "t.scn:14:10: unknown role 'accept'; expected listen or connect\n");
}

Test(scn_parse, bad_endpoint)
{
	EXPECT_ERRORS(FABRIC "app c2 A connect B kind=bulk\napp c3 A connect B:99999 kind=bulk\n",
	              "t.scn:14:18: bad endpoint 'B'; expected STACK:PORT, STACK.INTERFACE:PORT or A.B.C.D:PORT\n"
	              "t.scn:15:20: port=99999 is out of range; expected 1..65535\n");
}

Test(scn_parse, subnet_address_as_host)
{
	EXPECT_ERRORS("switch SW1\nstack A\n  interface e0 switch=SW1 ip=10.0.0.0/24\nend\n",
	              "t.scn:3:30: 10.0.0.0/24 is the subnet's own address; expected a host address\n");
}

Test(scn_parse, route_with_host_bits)
{
	EXPECT_ERRORS("switch SW1\nstack A\n  interface e0 switch=SW1 ip=10.0.0.1/24\n  route 10.2.0.1/16 via=10.0.0.9\nend\n",
	              "t.scn:4:9: 10.2.0.1/16 has host bits set; expected 10.2.0.0/16\n");
}

/* ---- names and references ------------------------------------------------------------- */

Test(scn_parse, duplicate_name)
{
	EXPECT_ERRORS(FABRIC "stack A\n  interface eth0 switch=SW1 ip=10.0.0.3/24\nend\n",
	              "t.scn:14:7: duplicate stack 'A' (first defined at 4:7); expected a unique name\n");
}

Test(scn_parse, duplicate_interface)
{
	EXPECT_ERRORS("switch SW1\nstack A\n  interface e0 switch=SW1 ip=10.0.0.1/24\n  interface e0 switch=SW1 ip=10.0.1.1/24\nend\n",
	              "t.scn:4:13: duplicate interface 'e0' in stack 'A' (first defined at 3:13); expected a unique name\n");
}

Test(scn_parse, unknown_reference)
{
	EXPECT_ERRORS(FABRIC "adapter RC pfid=0020 switch=SW9\n",
	              "t.scn:14:29: unknown switch 'SW9'; expected the name of a switch (defined: SW1)\n");
}

Test(scn_parse, wrong_kind_reference)
{
	EXPECT_ERRORS(FABRIC "adapter RC pfid=0020 switch=A\n",
	              "t.scn:14:29: 'A' is a stack, not a switch; expected the name of a switch (defined: SW1)\n");
}

Test(scn_parse, references_may_point_forward)
{
	scn_scenario *s = load_ok("app cli A connect B:5000 kind=bulk\napp srv B listen port=5000 kind=sink\n"
	                          "stack A\n  interface eth0 switch=SW1 ip=10.0.0.1/24\nend\n"
	                          "stack B\n  interface eth0 switch=SW1 ip=10.0.0.2/24\nend\nswitch SW1\n");
	cr_assert_eq(s->apps[0].listener, 1);
	cr_assert_eq(s->apps[0].dst_stack, 1);
	cr_assert_eq(s->stacks[0].ifaces[0].sw, 0);
	scn_free(s);
}

Test(scn_parse, unknown_pfid_in_smcr)
{
	EXPECT_ERRORS("switch SW1\nadapter RA pfid=0018 switch=SW1\nstack A\n  interface e0 switch=SW1 ip=10.0.0.1/24\n"
	              "  smcr pfid=0019\nend\n",
	              "t.scn:5:3: no adapter has PFID 0019 (0018 (RA)); expected the pfid= of an adapter\n");
}

Test(scn_parse, smcr_port_the_adapter_lacks)
{
	EXPECT_ERRORS("switch SW1\nadapter RA pfid=0018 switch=SW1\nstack A\n  interface e0 switch=SW1 ip=10.0.0.1/24\n"
	              "  smcr pfid=0018 port=2\nend\n",
	              "t.scn:5:3: adapter 'RA' (PFID 0018) has one port; expected port=1\n");
}

Test(scn_parse, smcr_activation_twice)
{
	EXPECT_ERRORS("switch SW1\nadapter RA pfid=0018 switch=SW1\nstack A\n  interface e0 switch=SW1 ip=10.0.0.1/24\n"
	              "  smcr pfid=0018\n  smcr pfid=18\nend\n",
	              "t.scn:6:3: PFID 0018 port 1 is already active in stack 'A' (at 5:3); expected each port once\n");
}

Test(scn_parse, smcr_settings_twice)
{
	EXPECT_ERRORS("switch SW1\nstack A\n  interface e0 switch=SW1 ip=10.0.0.1/24\n  smcr v2=no\n  smcr enable=no\nend\n",
	              "t.scn:5:3: repeated smcr settings (first at 4:3); expected one 'smcr' settings statement per stack "
	              "(activations use smcr pfid=…)\n");
}

Test(scn_parse, unknown_attribute_of_an_activation)
{
	EXPECT_ERRORS("switch SW1\nstack A\n  interface e0 switch=SW1 ip=10.0.0.1/24\n  smcr pfid=0018 maxconns=20\nend\n",
	              "t.scn:4:18: unknown attribute 'maxconns' for smcr pfid=; expected one of pfid, port, mtu\n");
}

/* ---- semantic checks -------------------------------------------------------------------- */

Test(scn_parse, duplicate_pfid)
{
	EXPECT_ERRORS(FABRIC "adapter RC pfid=18 switch=SW1\n",
	              "t.scn:14:17: duplicate PFID 0018 (adapter 'RA' at 2:1 has it); expected a PFID unique in the fabric\n");
}

Test(scn_parse, duplicate_mac_on_one_network)
{
	EXPECT_ERRORS(FABRIC "adapter RC pfid=0020 switch=SW1 mac=02:01:00:18:00:01\n",
	              "t.scn:14:1: MAC 02:01:00:18:00:01 of adapter 'RC' port 1 is already used by adapter 'RA' port 1 (2:1) "
	              "on the same network; expected a unique MAC\n");
}

Test(scn_parse, address_conflict_on_one_segment)
{
	/* SW2 is joined to SW1 by a wire: one L2 segment */
	EXPECT_ERRORS(FABRIC "switch SW2\nwire W SW1 SW2\nstack C\n  interface e0 switch=SW2 ip=10.0.0.2/24\nend\n",
	              "t.scn:17:30: address 10.0.0.2 is already used by B.eth0 (9:3) on the same network (L2 segment of "
	              "switch 'SW2', untagged); expected a unique address\n");
}

Test(scn_parse, wires_that_close_a_loop_are_refused)
{
	/* the switches flood without a spanning tree: a loop was a broadcast storm that took
	 * gigabytes and never ended */
	EXPECT_ERRORS(FABRIC "switch SW2\nswitch SW3\nwire W1 SW1 SW2\nwire W2 SW2 SW3\nwire W3 SW3 SW1\n",
	              "t.scn:18:1: wire 'W3' closes a loop: switches 'SW3' and 'SW1' are joined already by the wires above it; "
	              "expected wires that form a tree (the switches run no spanning tree protocol: a loop would flood "
	              "broadcasts forever)\n");
	EXPECT_ERRORS(FABRIC "switch SW2\nwire W1 SW1 SW2\nwire W2 SW2 SW1\n",
	              "t.scn:16:1: wire 'W2' closes a loop: switches 'SW2' and 'SW1' are joined already by the wires above it; "
	              "expected wires that form a tree (the switches run no spanning tree protocol: a loop would flood "
	              "broadcasts forever)\n");
	/* per VLAN: parallel trunks of different VLANs are no loop, a shared VLAN is */
	EXPECT_ERRORS(FABRIC "switch SW2\nwire W1 SW1 SW2 vlans=1,10\nwire W2 SW1 SW2 vlans=20\nwire W3 SW2 SW1 vlans=20,30\n",
	              "t.scn:17:1: wire 'W3' closes a loop on VLAN 20: switches 'SW2' and 'SW1' are joined already by the wires "
	              "above it; expected wires that form a tree (the switches run no spanning tree protocol: a loop would "
	              "flood broadcasts forever)\n");
	scn_scenario *s = load_ok(FABRIC "switch SW2 vlans=1,10\nwire W1 SW1 SW2 vlans=1,10\nwire W2 SW1 SW2 vlans=20\n");
	cr_assert_eq(s->n_wires, 2);
	scn_free(s);
}

Test(scn_parse, same_address_on_separate_networks_is_fine)
{
	scn_scenario *s = load_ok(FABRIC "switch SW2\nstack C\n  interface e0 switch=SW2 ip=10.0.0.2/24\nend\n"
	                                 "stack D\n  interface e0 switch=SW1 ip=10.0.0.2/24 vlan=7\nend\n");
	cr_assert_eq(s->switches[0].segment, 0);
	cr_assert_eq(s->switches[1].segment, 1);
	scn_free(s);
}

Test(scn_parse, vlan_not_carried_by_the_switch)
{
	EXPECT_ERRORS("switch SW1 vlans=10,20\nstack A\n  interface e0 switch=SW1 ip=10.0.0.1/24 vlan=30\nend\n",
	              "t.scn:3:3: VLAN 30 is not carried by switch 'SW1' (vlans=10,20); expected a VLAN the switch carries\n");
}

Test(scn_parse, untagged_interface_on_a_switch_without_vlan_1)
{
	/* untagged frames travel on VLAN 1, which this switch drops */
	EXPECT_ERRORS("switch SW1 vlans=10,20\nstack A\n  interface e0 switch=SW1 ip=10.0.0.1/24\nend\n",
	              "t.scn:3:3: untagged interface on switch 'SW1', which does not carry VLAN 1 (vlans=10,20); expected "
	              "vlan=ID on the interface or 1 in the switch's vlans\n");
	scn_free(load_ok("switch SW1 vlans=1,10\nstack A\n  interface e0 switch=SW1 ip=10.0.0.1/24\nend\n"));
}

Test(scn_parse, stack_without_interface)
{
	EXPECT_ERRORS("stack A\nend\n",
	              "t.scn:1:1: stack 'A' has no interface; expected at least one 'interface' statement in its block\n");
}

Test(scn_parse, gateway_off_link)
{
	EXPECT_ERRORS("switch SW1\nstack A\n  interface e0 switch=SW1 ip=10.0.0.1/24\n  route default via=10.9.9.1\nend\n",
	              "t.scn:4:3: gateway 10.9.9.1 is not on a subnet of stack 'A' (10.0.0.0/24); expected an address on "
	              "one of them\n");
}

Test(scn_parse, connect_without_listener)
{
	EXPECT_ERRORS(FABRIC "app c2 A connect B:6000 kind=bulk\n",
	              "t.scn:14:18: no app listens on B port 6000; expected an 'app NAME B listen port=6000 kind=sink'\n");
}

Test(scn_parse, connect_to_the_wrong_kind_of_listener)
{
	EXPECT_ERRORS(FABRIC "app c2 A connect B:5000 kind=echo\n",
	              "t.scn:14:18: app 'c2' (kind=echo) connects to 'srv' (kind=sink) on B:5000; expected a listener with "
	              "kind=echo\n");
}

Test(scn_parse, connect_to_own_stack)
{
	EXPECT_ERRORS(FABRIC "app c2 B connect B:5000 kind=bulk\n",
	              "t.scn:14:18: app 'c2' connects to its own stack 'B'; expected another stack\n");
}

Test(scn_parse, connect_to_an_unknown_address)
{
	EXPECT_ERRORS(FABRIC "app c2 A connect 10.0.0.9:5000 kind=bulk\n",
	              "t.scn:14:18: no interface has address 10.0.0.9; expected the address of a stack's interface\n");
}

Test(scn_parse, two_listeners_on_one_port)
{
	EXPECT_ERRORS(FABRIC "app srv2 B listen port=5000 kind=echo\n",
	              "t.scn:14:1: port 5000 of stack 'B' already has listener 'srv' (12:1); expected one listener per port\n");
}

Test(scn_parse, client_starting_before_its_listener)
{
	EXPECT_ERRORS(FABRIC "app srv2 B listen port=6000 kind=sink start=2s\napp c2 A connect B:6000 kind=bulk start=1s\n",
	              "t.scn:15:1: app 'c2' starts at 1s but its listener 'srv2' starts at 2s; expected a start at or after "
	              "2s\n");
}

Test(scn_parse, app_that_never_starts)
{
	EXPECT_ERRORS(FABRIC "app c2 A connect B:5000 kind=bulk start=never\n",
	              "t.scn:14:1: app 'c2' never starts (start=never and no 'at … start app c2'); expected one of them\n");
}

Test(scn_parse, close_before_start)
{
	EXPECT_ERRORS(FABRIC "app c2 A connect B:5000 kind=bulk start=2s close=1s\n",
	              "t.scn:14:1: close=1s of app 'c2' is not after its start (2s); expected a later close time\n");
}

Test(scn_parse, time_beyond_end)
{
	EXPECT_ERRORS(FABRIC "end 10s\nat 10s report\nat 11s expect aborted == 0\napp c2 A connect B:5000 kind=bulk start=20s\n",
	              "t.scn:15:1: time 10s is not before the run's end (end 10s at 14:1); expected an earlier time\n"
	              "t.scn:16:1: time 11s is not before the run's end (end 10s at 14:1); expected an earlier time\n"
	              "t.scn:17:1: start=20s of app 'c2' is not before the run's end (end 10s at 14:1); expected an earlier "
	              "time\n");
}

Test(scn_parse, time_beyond_the_default_end)
{
	EXPECT_ERRORS(FABRIC "at 2h report\n",
	              "t.scn:14:1: time 2h is not before the run's end (1h without an 'end' statement); expected an earlier "
	              "time\n");
}

Test(scn_parse, restore_without_fail_and_double_fail)
{
	EXPECT_ERRORS(FABRIC "at 2s restore adapter RA\nat 3s fail adapter RB\nat 4s fail adapter RB\n",
	              "t.scn:14:1: adapter 'RA' is restored at 2s but is not failed then; expected an earlier 'fail adapter "
	              "RA'\n"
	              "t.scn:16:1: adapter 'RB' fails again at 4s but is still failed (since 15:1); expected 'restore adapter "
	              "RB' in between\n");
}

Test(scn_parse, timeline_unknown_action_and_target)
{
	EXPECT_ERRORS(FABRIC "at 1s crash adapter RA\nat 1s fail router R\nat 1s set switch SW1 loss=0\n",
	              "t.scn:14:7: unknown action 'crash'; expected fail, restore, set, start, stop, report or expect\n"
	              "t.scn:15:12: unknown target 'router' for fail; expected adapter, wire, switch or interface\n"
	              "t.scn:16:11: unknown target 'switch' for set; expected adapter, wire or interface\n");
}

Test(scn_parse, timeline_interface_reference)
{
	EXPECT_ERRORS(FABRIC "at 1s fail interface A.eth9\nat 2s fail interface eth0\n",
	              "t.scn:14:22: stack 'A' has no interface 'eth9'; expected one of its interfaces (eth0)\n"
	              "t.scn:15:22: bad interface 'eth0'; expected STACK.INTERFACE such as ZOSA.eth0\n");
}

Test(scn_parse, set_without_anything_to_set)
{
	EXPECT_ERRORS(FABRIC "at 1s set adapter RA\n",
	              "t.scn:14:1: nothing to set; expected at least one of latency=, bandwidth=, loss=, dup=, reorder=, "
	              "corrupt=\n");
}

Test(scn_parse, expectation_mistakes)
{
	EXPECT_ERRORS(FABRIC "expect links A A == 1\nexpect linkz A B == 1\nexpect links A B 1\nexpect mode cli < SMCR\n"
	                     "expect mode cli == SMC\nexpect mode cli == SMCR reason=PEERNOSMC\nexpect links A == 1\n",
	              "t.scn:14:16: both stacks are 'A'; expected two different stacks\n"
	              "t.scn:15:8: unknown expectation 'linkz'; expected one of linkgroups, links, conns, mode, sent, "
	              "delivered, received, aborted, fallback, ops, latency, connect, fct, throughput, cpu\n"
	              "t.scn:16:1: missing comparison; expected ==, !=, <, <=, > or >= in expect links STACK STACK OP N\n"
	              "t.scn:17:17: '<' cannot compare modes; expected == or !=\n"
	              "t.scn:18:20: bad mode 'SMC'; expected SMCR, TCP or FALLBACK\n"
	              "t.scn:19:25: reason= applies only to FALLBACK; expected mode … == FALLBACK reason=…\n"
	              "t.scn:20:16: too few words before '=='; expected expect links STACK STACK OP N\n");
}

Test(scn_parse, expectation_of_a_connection_that_does_not_exist)
{
	EXPECT_ERRORS(FABRIC "expect mode cli.2 == SMCR\nexpect mode srv.1 == SMCR\n",
	              "t.scn:14:13: app 'cli' has 1 connection; expected cli.1 … cli.1\n"
	              "t.scn:15:13: 'srv.1' names one connection of 'srv', which listens; expected a connecting app\n");
}

Test(scn_parse, expectation_reason_names_and_codes)
{
	EXPECT_ERRORS(FABRIC "expect fallback A == 1 reason=NOPE\n",
	              "t.scn:14:31: bad reason code 'NOPE' for reason; expected a 0x-prefixed code such as 0x03010000 or a "
	              "name such as PEERNOSMC\n");
	scn_scenario *s = load_ok(FABRIC "expect fallback A == 1 reason=DIFFPREFIX\nexpect fallback B == 0 reason=0x03030000\n");
	cr_assert_eq(s->expects[0].reason, 0x03070000u);
	cr_assert_eq(s->expects[1].reason, 0x03030000u);
	scn_free(s);
}

/* ---- recovery, caps, never half-understood ---------------------------------------------- */

Test(scn_parse, reports_every_statement_with_an_error_and_returns_nothing)
{
	char *e = errors_of(FABRIC "seed x\nswitch 9\nend 0\nreport format=pdf\n");
	gchar **lines = g_strsplit(e, "\n", -1);
	cr_assert_eq(g_strv_length(lines), 5, "%s", e); /* four errors and the empty tail */
	cr_assert(g_str_has_prefix(lines[0], "t.scn:14:6: "));
	cr_assert(g_str_has_prefix(lines[1], "t.scn:15:8: "));
	cr_assert(g_str_has_prefix(lines[2], "t.scn:16:5: "));
	cr_assert(g_str_has_prefix(lines[3], "t.scn:17:15: "));
	g_strfreev(lines);
	g_free(e);
}

Test(scn_parse, only_the_first_error_of_a_statement)
{
	EXPECT_ERRORS(FABRIC "adapter RC pfid=zz switch=nowhere mtu=7\n",
	              "t.scn:14:17: bad hex number 'zz' for pfid; expected hex digits 0-9, a-f\n");
}

Test(scn_parse, broken_items_do_not_cascade)
{
	/* the stack's header is wrong, but its name exists: the app naming it raises nothing */
	EXPECT_ERRORS(FABRIC "stack C personality=vms\n  interface e0 switch=SW1 ip=10.0.0.3/24\nend\n"
	                     "app srvc C listen port=1 kind=sink\n",
	              "t.scn:14:21: bad value 'vms' for personality; expected zos or linux\n");
}

Test(scn_parse, lexically_broken_definitions_keep_their_names)
{
	/* the stack, the adapter and the block structure survive their broken statements */
	EXPECT_ERRORS("switch S1\nstack A hostname=\"x\n  interface e0 switch=S1 ip=10.0.0.1/24\nend\n"
	              "app s A listen port=1 kind=sink\nadapter R1 pfid=00\"18\" switch=S1\n"
	              "stack B\n  interface e0 switch=S1 ip=10.0.0.2/24\n  smcr pfid=0018\nend\n"
	              "app c B connect A:1 kind=bulk\nat 1s fail adapter R1\nat 2s fail interface A.e0\n",
	              "t.scn:2:18: unterminated string; expected a closing '\"' on the same line\n"
	              "t.scn:6:19: '\"' inside a word; expected quotes around a whole value\n");
}

Test(scn_parse, error_cap)
{
	GString *t = g_string_new(NULL);
	for (int i = 0; i < 80; i++)
		g_string_append(t, "bogus\n");
	scn_diag d;
	scn_diag_init(&d);
	cr_assert_null(scn_load_string("t.scn", t->str, t->len, &d));
	cr_assert_eq(scn_diag_count(&d), SCN_MAX_ERRORS);
	cr_assert(d.overflow);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	scn_diag_print(&d, f);
	fclose(f);
	cr_assert(strstr(buf, "t.scn: too many errors; stopped after 50\n"));
	free(buf);
	scn_diag_free(&d);
	g_string_free(t, TRUE);
}

Test(scn_parse, unreadable_file)
{
	scn_diag d;
	scn_diag_init(&d);
	cr_assert_null(scn_load_file("/nonexistent/x.scn", &d));
	cr_assert_eq(scn_diag_count(&d), 1);
	cr_assert(g_str_has_prefix(scn_diag_message(&d, 0), "/nonexistent/x.scn: cannot read the file"));
	scn_diag_free(&d);
}

/* ---- the resolved model --------------------------------------------------------------- */

Test(scn_parse, resolves_defaults_per_personality)
{
	scn_scenario *s = load_ok("switch SW1\nadapter RA pfid=0018 switch=SW1\n"
	                          "stack Z personality=zos\n  interface e0 switch=SW1 ip=10.0.0.1/24\n  smcr pfid=0018\nend\n"
	                          "stack L\n  interface e0 switch=SW1 ip=10.0.0.2/24\n  smcr mtu=2048\n  smcr pfid=0018\nend\n");
	const scn_stack *z = &s->stacks[0], *l = &s->stacks[1];
	cr_assert_eq(z->personality, SCN_PERS_ZOS);
	cr_assert_eq(l->personality, SCN_PERS_LINUX);
	cr_assert_eq(z->smcr.fixedmemory, 256ULL << 20);
	cr_assert_eq(l->smcr.fixedmemory, 0);
	cr_assert_eq(z->smcr.mtu, 1024);
	cr_assert_eq(z->smcr_ports[0].mtu, 1024);
	cr_assert_eq(l->smcr_ports[0].mtu, 2048); /* inherits the stack's smcr mtu= */
	cr_assert_eq(z->smcr_ports[0].adapter, 0);
	cr_assert_eq(z->smcr.keepalive_ns, 7200ULL * 1000000000ULL);
	cr_assert_eq(z->smcr.testlink_ns, 30ULL * 1000000000ULL);
	cr_assert_eq(z->smcr.rmbsize, 65536);
	cr_assert_eq(z->smcr.maxconns, 255);
	cr_assert_eq(z->smcr.maxlinks, 2);
	cr_assert(z->smcr.enable && z->smcr.v2);
	cr_assert_str_eq(z->hostname, "Z");
	const uint8_t ifmac[6] = { 2, 0, 10, 0, 0, 1 }, admac[6] = { 2, 1, 0, 0x18, 0, 1 };
	cr_assert_arr_eq(z->ifaces[0].mac, ifmac, 6);
	cr_assert_arr_eq(s->adapters[0].port[0].mac, admac, 6);
	cr_assert_eq(s->adapters[0].mtu, 4096);
	cr_assert_eq(s->adapters[0].roce, SCN_ROCE_BOTH);
	cr_assert_eq(z->ifaces[0].link.latency_ns, 1000);
	cr_assert_eq(z->ifaces[0].link.bandwidth_bps, 25000000000ULL);
	cr_assert_eq(z->ifaces[0].link.mtu, 1500);
	cr_assert_eq(s->end_ns, SCN_DEFAULT_END_NS);
	cr_assert_not(s->has_end);
	scn_free(s);
}

Test(scn_parse, resolves_apps_endpoints_and_the_timeline)
{
	scn_scenario *s = load_ok(FABRIC "app e B listen port=7 kind=echo start=never\n"
	                                 "app p A connect 10.0.0.2:7 kind=echo bytes=1K conns=3 interval=2ms close=never start=1s\n"
	                                 "app r A connect B.eth0:5000 kind=bulk start=1s close=5s\n"
	                                 "at 3s report format=json stack=A smcid=00002A01\n"
	                                 "at 1s start app e\n"
	                                 "at 3s stop app p\n"
	                                 "at 1s set adapter RA port=1 loss=0.5% latency=10us\n"
	                                 "at 2s expect delivered p.2 >= 1K\n"
	                                 "expect received p == sent p\n"
	                                 "end 10s\n");
	const scn_app *cli = &s->apps[1], *p = &s->apps[3], *r = &s->apps[4];
	cr_assert_eq(cli->dst_ip, 0x0a000002);
	cr_assert_eq(cli->listener, 0);
	cr_assert_eq(p->ep_form, SCN_EP_IP);
	cr_assert_eq(p->dst_stack, 1);
	cr_assert_eq(p->listener, 2);
	cr_assert_eq(p->conns, 3);
	cr_assert_eq(p->interval_ns, 2000000);
	cr_assert_eq(p->close, SCN_CLOSE_NEVER);
	cr_assert_eq(r->ep_form, SCN_EP_IFACE);
	cr_assert_eq(r->close, SCN_CLOSE_AT);
	cr_assert_eq(r->close_at_ns, 5000000000ULL);
	cr_assert(s->apps[2].start_never);
	/* the timeline: by time, then file order */
	cr_assert_eq(s->n_events, 5);
	cr_assert_eq(s->events[0].kind, SCN_EV_START_APP);
	cr_assert_eq(s->events[1].kind, SCN_EV_SET);
	cr_assert_eq(s->events[1].set_mask, SCN_SET_LOSS | SCN_SET_LATENCY);
	cr_assert(s->events[1].set.loss.num == 1 && s->events[1].set.loss.den == 200);
	cr_assert_eq(s->events[1].port, 1);
	cr_assert_eq(s->events[2].kind, SCN_EV_EXPECT);
	cr_assert_eq(s->events[3].kind, SCN_EV_REPORT);
	cr_assert_eq(s->events[3].report.format, SCN_REPORT_JSON);
	cr_assert_eq(s->events[3].report.smcid, 0x2a01);
	cr_assert_eq(s->events[4].kind, SCN_EV_STOP_APP);
	/* expectations keep their position for run-time messages */
	cr_assert_eq(s->n_expects, 2);
	cr_assert(s->expects[0].timed);
	cr_assert_eq(s->expects[0].app.instance, 2);
	cr_assert_eq(s->expects[1].loc.line, 22);
	cr_assert_str_eq(s->expects[1].loc.file, "t.scn");
	char buf[128];
	cr_assert_str_eq(scn_format_expect(s, &s->expects[0], buf, sizeof(buf)), "expect delivered p.2 >= 1K");
	cr_assert_str_eq(scn_format_expect(s, &s->expects[1], buf, sizeof(buf)), "expect received p == sent p");
	scn_free(s);
}

Test(scn_parse, lexical_conveniences)
{
	scn_scenario *s = load_ok("# comment line\n"
	                          "scenario \"a \\\"quoted\\\" title \\\\ # not a comment\"   # a comment\n"
	                          "switch SW1\n\n"
	                          "stack A hostname=\"host one\"\n"
	                          "  interface e0 \\\n      switch=SW1\\\n      ip=10.0.0.1/24   # continued\n"
	                          "end\r\n");
	cr_assert_str_eq(s->title, "a \"quoted\" title \\ # not a comment");
	cr_assert_str_eq(s->stacks[0].hostname, "host one");
	cr_assert_eq(s->stacks[0].ifaces[0].ip, 0x0a000001);
	cr_assert_eq(s->stacks[0].ifaces[0].loc.line, 6);
	scn_free(s);
}

Test(scn_parse, every_default_in_the_table_parses)
{
	/* the loader aborts on a default that does not parse; load something that uses them all */
	for (size_t i = 0; i < scn_n_defaults; i++) {
		const scn_default *d = &scn_defaults[i];
		cr_assert(d->scope && d->key && d->value[SCN_PERS_ZOS] && d->value[SCN_PERS_LINUX]);
	}
	scn_scenario *s = load_ok(FABRIC "app rr1 A connect B:6000 kind=rr\napp rs B listen port=6000 kind=responder\n"
	                                 "app ec A connect B:7000 kind=echo\napp es B listen port=7000 kind=echo\n"
	                                 "switch SW2\nwire W SW1 SW2\nreport\n");
	cr_assert_eq(s->apps[2].count, 100);
	cr_assert_eq(s->apps[2].response, 1024);
	cr_assert_eq(s->apps[4].bytes, 65536);
	cr_assert_eq(s->apps[1].bytes, 1048576);
	cr_assert_eq(s->wires[0].link.mtu, 9000);
	cr_assert(s->switches[1].vlans.all);
	scn_free(s);
}

Test(scn_parse, defaults_are_printable)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	scn_print_defaults(f);
	fclose(f);
	cr_assert(strstr(buf, "smcr        fixedmemory  256M "));
	cr_assert(strstr(buf, "smcr        keepalive    2h "));
	free(buf);
}

/* ---- round trips and the shipped scenarios ------------------------------------------------ */

static char *dump_of(const scn_scenario *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	scn_dump(s, f);
	fclose(f);
	return buf;
}

static void assert_round_trip(scn_scenario *s, const char *what)
{
	char *d1 = dump_of(s);
	scn_diag d;
	scn_diag_init(&d);
	scn_scenario *s2 = scn_load_string("dump.scn", d1, strlen(d1), &d);
	cr_assert(s2, "%s: its dump does not load: %s\n%s", what, scn_diag_count(&d) ? scn_diag_message(&d, 0) : "", d1);
	char *d2 = dump_of(s2);
	cr_assert_str_eq(d1, d2, "%s: dump differs after a round trip", what);
	cr_assert_eq(s2->n_events, s->n_events);
	cr_assert_eq(s2->n_expects, s->n_expects);
	cr_assert_eq(s2->seed, s->seed);
	scn_free(s2);
	scn_diag_free(&d);
	free(d1);
	free(d2);
}

Test(scn_parse, round_trip_keeps_everything)
{
	scn_scenario *s = load_ok(FABRIC "scenario \"t \\\"x\\\"\"\nseed 9\nend 1m\n"
	                                 "switch SW2 vlans=5,7\nwire W SW1 SW2 loss=1/3 vlans=7\n"
	                                 "adapter R2 pfid=A0 ports=2 switch=SW1 switch2=SW2 pnetid=net1 roce=v2 mtu=2048\n"
	                                 "stack C personality=zos\n  interface e0 switch=SW2 ip=10.7.0.1/16 vlan=7 pnetid=NET1\n"
	                                 "  route 10.8.0.0/16 via=10.7.0.9\n  route default via=10.7.0.8\n  forwarding on\n"
	                                 "  smcr ueid=A.B,C-D v2=no maxconns=16 testlink=0\n  smcr pfid=00A0 port=2\nend\n"
	                                 "app rs C listen port=9 kind=responder start=never\n"
	                                 "app rr A connect C.e0:9 kind=rr count=3 start=1s close=2s smc=no\n"
	                                 "at 1s start app rs\nat 5s expect mode rr == FALLBACK reason=NOSMCDEV\n"
	                                 "at 6s fail interface C.e0\nat 7s restore interface C.e0\nat 8s report stack=C smcid=1\n"
	                                 "expect conns A B > 0\nexpect aborted C <= 2\nreport format=smc\n");
	cr_assert_str_eq(s->adapters[2].port[0].pnetid, "NET1");
	assert_round_trip(s, "inline scenario");
	scn_free(s);
}

Test(scn_parse, every_shipped_scenario_loads_and_round_trips)
{
	GDir *dir = g_dir_open("scenarios", 0, NULL);
	cr_assert(dir, "run from the source tree: scenarios/ not found");
	const char *name;
	int n = 0;
	while ((name = g_dir_read_name(dir))) {
		if (!g_str_has_suffix(name, ".scn"))
			continue;
		char *path = g_build_filename("scenarios", name, NULL);
		scn_diag d;
		scn_diag_init(&d);
		scn_scenario *s = scn_load_file(path, &d);
		cr_assert(s, "%s: %s", path, scn_diag_count(&d) ? scn_diag_message(&d, 0) : "?");
		cr_assert(s->n_expects > 0, "%s has no expectations", path);
		assert_round_trip(s, path);
		scn_free(s);
		scn_diag_free(&d);
		g_free(path);
		n++;
	}
	g_dir_close(dir);
	cr_assert_geq(n, 10);
}

Test(scn_parse, default_scenario_is_what_the_demo_promises)
{
	scn_diag d;
	scn_diag_init(&d);
	scn_scenario *s = scn_load_file("scenarios/default.scn", &d);
	cr_assert(s);
	cr_assert_eq(s->n_stacks, 2);
	for (size_t i = 0; i < s->n_stacks; i++) {
		cr_assert_eq(s->stacks[i].personality, SCN_PERS_ZOS);
		cr_assert_eq(s->stacks[i].n_smcr_ports, 2, "two RNICs each");
	}
	bool fail = false, report = false;
	for (size_t i = 0; i < s->n_events; i++) {
		fail |= s->events[i].kind == SCN_EV_FAIL && s->events[i].target_kind == SCN_TGT_ADAPTER;
		report |= s->events[i].kind == SCN_EV_REPORT;
	}
	cr_assert(fail && report && s->n_reports == 1 && s->reports[0].format == SCN_REPORT_NETSTAT);
	uint32_t bulk = scn_find_app(s, "bulk");
	cr_assert_neq(bulk, SCN_NONE);
	cr_assert_gt(s->apps[bulk].conns, 1, "several connections reuse the link group");
	scn_free(s);
	scn_diag_free(&d);
}

/* ---- bad input never crashes ------------------------------------------------------------- */

Test(scn_parse, mutated_scenarios_load_or_fail_cleanly)
{
	static const char *const files[] = { "scenarios/default.scn", "scenarios/v2-routed.scn",
		                             "scenarios/redundancy-failover.scn" };
	static const char alphabet[] = "ab09 =:./\\\"#\n\t,%-x";
	sim_rng rng;
	sim_rng_seed(&rng, 2024);
	int loaded = 0, refused = 0;
	for (size_t f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
		gchar *text;
		gsize len;
		cr_assert(g_file_get_contents(files[f], &text, &len, NULL));
		for (int round = 0; round < 300; round++) {
			GString *m = g_string_new_len(text, (gssize)len);
			int edits = 1 + (int)sim_rng_below(&rng, 3);
			for (int e = 0; e < edits && m->len; e++) {
				size_t at = sim_rng_below(&rng, m->len);
				switch (sim_rng_below(&rng, 4)) {
				case 0: g_string_erase(m, (gssize)at, 1); break;
				case 1: g_string_insert_c(m, (gssize)at, alphabet[sim_rng_below(&rng, sizeof(alphabet) - 1)]); break;
				case 2: m->str[at] = alphabet[sim_rng_below(&rng, sizeof(alphabet) - 1)]; break;
				default: g_string_truncate(m, at); break;
				}
			}
			scn_diag d;
			scn_diag_init(&d);
			scn_scenario *s = scn_load_string("m.scn", m->str, m->len, &d);
			if (s) {
				cr_assert_eq(scn_diag_count(&d), 0);
				loaded++;
			} else {
				cr_assert_gt(scn_diag_count(&d), 0, "refused without a message:\n%s", m->str);
				for (size_t i = 0; i < scn_diag_count(&d); i++)
					cr_assert(g_str_has_prefix(scn_diag_message(&d, i), "m.scn:"));
				refused++;
			}
			scn_free(s);
			scn_diag_free(&d);
			g_string_free(m, TRUE);
		}
		g_free(text);
	}
	/* both outcomes happen: comment edits keep files valid, most others break them */
	cr_assert_gt(loaded, 0);
	cr_assert_gt(refused, 0);
}

/* ---- congestion attributes of adapters ----------------------------------------- */

Test(scn_parse, adapter_congestion_defaults_are_off_and_the_papers)
{
	scn_scenario *s = load_ok(FABRIC);
	const scn_adapter_cc *cc = &s->adapters[0].cc;
	cr_assert(!cc->dcqcn);
	cr_assert_eq(cc->pcp, -1);
	cr_assert_eq(cc->dscp, -1);
	cr_assert_eq(cc->cnp_pcp, 6);
	cr_assert_eq(cc->cnp_dscp, 48);
	cr_assert_eq(cc->cnp_interval_ns, 50000);
	cr_assert_eq(cc->txwindow_ns, 10000);
	cr_assert_eq(cc->g.num, 1);
	cr_assert_eq(cc->g.den, 256);
	cr_assert_eq(cc->alpha_timer_ns, 55000);
	cr_assert_eq(cc->rate_timer_ns, 55000);
	cr_assert_eq(cc->byte_counter, 10000000);
	cr_assert_eq(cc->recovery, 5);
	cr_assert_eq(cc->rai_bps, 40000000);
	cr_assert_eq(cc->rhai_bps, 400000000);
	cr_assert_eq(cc->min_bps, 10000000);
	scn_free(s);
}

Test(scn_parse, adapter_congestion_attributes_are_read)
{
	scn_scenario *s = load_ok(FABRIC "adapter RC pfid=0020 switch=SW1 dcqcn=on prio=3 dscp=26 cnpinterval=4us "
	                                 "dcqcn_g=1/16 rai=5Mbps rhai=50Mbps ratetimer=300us bytecounter=0 recovery=1\n");
	const scn_adapter_cc *cc = &s->adapters[2].cc;
	cr_assert(cc->dcqcn);
	cr_assert_eq(cc->pcp, 3);
	cr_assert_eq(cc->dscp, 26);
	cr_assert_eq(cc->cnp_interval_ns, 4000);
	cr_assert_eq(cc->g.den, 16);
	cr_assert_eq(cc->rai_bps, 5000000);
	cr_assert_eq(cc->rhai_bps, 50000000);
	cr_assert_eq(cc->rate_timer_ns, 300000);
	cr_assert_eq(cc->byte_counter, 0);
	cr_assert_eq(cc->recovery, 1);
	scn_free(s);
}

Test(scn_parse, adapter_congestion_ranges_are_checked)
{
	static const char *const bad[] = { "prio=8", "dscp=64", "cnpprio=9", "cnpinterval=1s", "recovery=0",
		                           "dcqcn=maybe", "alphatimer=0", "minrate=10", "txwindow=2ms" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char text[2048];
		snprintf(text, sizeof text, "%sadapter RC pfid=0020 switch=SW1 %s\n", FABRIC, bad[i]);
		char *e = errors_of(text);
		char key[32];
		snprintf(key, sizeof key, "%.*s", (int)(strchr(bad[i], '=') - bad[i]), bad[i]);
		cr_assert(strstr(e, "t.scn:14:") && strstr(e, key), "%s: %s", bad[i], e);
		g_free(e);
	}
	EXPECT_ERRORS(FABRIC "adapter RC pfid=0020 switch=SW1 dcqcn_g=0\n",
	              "t.scn:14:41: dcqcn_g=0 makes alpha stand still; expected a gain above 0 such as 1/256\n");
}
