/* Switches: learning, flooding, 802.1Q access/trunk ports, VLAN isolation, failures. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "model/smcr_err.h"
#include "sim/fabric/switch.h"
#include "sim/fabric/wire.h"
#include "tests/support/frame_recorder.h"

#define N 4
static sim_engine *eng;
static sim_fabric *fab;
static sim_switch *sw;
static frame_recorder rec[N];
static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
static uint8_t mac[N][6];

static void setup(void)
{
	eng = sim_engine_new(1);
	fab = sim_fabric_new(eng);
	sim_switch_params p;
	sim_switch_params_default(&p);
	p.nports = N;
	p.latency = 500;
	sw = sim_switch_new(fab, "sw1", &p);
	for (int i = 0; i < N; i++) {
		uint8_t m[6] = { 2, 0, 0, 0, 0, (uint8_t)(i + 1) };
		memcpy(mac[i], m, 6);
		char name[16];
		snprintf(name, sizeof(name), "h%d", i);
		rec_init(&rec[i], fab, name, m);
		cr_assert_eq(sim_endpoint_attach(&rec[i].ep, sim_switch_port(sw, (uint32_t)i)), 0);
	}
}

static void teardown(void)
{
	for (int i = 0; i < N; i++)
		rec_destroy(&rec[i]);
	cr_expect_eq(sim_frame_pool_in_use(sim_fabric_frames(fab)), 0, "frames leaked");
	sim_fabric_free(fab);
	sim_engine_free(eng);
}

static void send_from(int i, const uint8_t *dst, uint16_t tci, uint32_t seq)
{
	sim_endpoint_send(&rec[i].ep, rec_make_frame(fab, dst, mac[i], tci, 46, 0x55, seq));
	sim_engine_run(eng, SIM_TIME_NEVER, 0);
}

Test(switch, unknown_unicast_is_flooded_then_learned, .init = setup, .fini = teardown)
{
	send_from(0, mac[1], 0, 1); /* nobody known yet: flood */
	cr_assert_eq(rec[0].n, 0, "never back out of the ingress port");
	cr_assert_eq(rec[1].n, 1);
	cr_assert_eq(rec[2].n, 1);
	cr_assert_eq(rec[3].n, 1);
	cr_assert_eq(rec[1].got[0].at, 500, "forwarding latency");
	cr_assert_eq(sim_switch_lookup(sw, 1, mac[0]), 0);
	send_from(1, mac[0], 0, 2); /* h0 is known: only to port 0 */
	cr_assert_eq(rec[0].n, 1);
	cr_assert_eq(rec[2].n, 1);
	cr_assert_eq(rec[3].n, 1);
	send_from(0, mac[1], 0, 3); /* both known now */
	cr_assert_eq(rec[1].n, 2);
	cr_assert_eq(rec[2].n, 1);
	cr_assert_eq(rec[3].n, 1);
	cr_assert_eq(rec_seq(&rec[1].got[1]), 3);
	cr_assert_eq(sim_switch_mac_count(sw), 2);
	cr_assert_eq(sim_switch_stats_get(sw)->floods, 1);
	cr_assert_eq(sim_switch_stats_get(sw)->forwarded, 2);
}

Test(switch, broadcast_reaches_every_other_port_and_bytes_are_unchanged, .init = setup, .fini = teardown)
{
	sim_frame *f = rec_make_frame(fab, bcast, mac[2], 0, 46, 0x77, 9);
	uint8_t copy[60];
	memcpy(copy, f->data, 60);
	sim_endpoint_send(&rec[2].ep, f);
	sim_engine_run(eng, SIM_TIME_NEVER, 0);
	for (int i = 0; i < N; i++) {
		cr_assert_eq(rec[i].n, i == 2 ? 0u : 1u, "port %d", i);
		if (i != 2)
			cr_assert_eq(memcmp(rec[i].got[0].data, copy, 60), 0);
	}
}

Test(switch, learned_entries_age_out_and_move_with_the_station, .init = setup, .fini = teardown)
{
	send_from(0, bcast, 0, 1);
	cr_assert_eq(sim_switch_lookup(sw, 1, mac[0]), 0);
	/* the same MAC shows up on port 3: the entry moves */
	sim_endpoint_send(&rec[3].ep, rec_make_frame(fab, bcast, mac[0], 0, 46, 0, 2));
	sim_engine_run(eng, SIM_TIME_NEVER, 0);
	cr_assert_eq(sim_switch_lookup(sw, 1, mac[0]), 3);
	sim_engine_advance(eng, 301 * SIM_S);
	cr_assert_eq(sim_switch_lookup(sw, 1, mac[0]), -1, "aged out after 300 s");
}

Test(switch, vlans_on_access_ports_never_meet, .init = setup, .fini = teardown)
{
	cr_assert_eq(sim_switch_port_access(sw, 0, 10), 0);
	cr_assert_eq(sim_switch_port_access(sw, 1, 10), 0);
	cr_assert_eq(sim_switch_port_access(sw, 2, 20), 0);
	cr_assert_eq(sim_switch_port_access(sw, 3, 20), 0);
	send_from(0, bcast, 0, 1);
	send_from(2, bcast, 0, 2);
	send_from(0, mac[2], 0, 3); /* unknown in VLAN 10, flooded there only */
	cr_assert_eq(rec[1].n, 2);
	cr_assert_eq(rec[2].n, 0, "VLAN 20 never sees VLAN 10");
	cr_assert_eq(rec[3].n, 1);
	cr_assert_eq(rec_seq(&rec[3].got[0]), 2);
	cr_assert_eq(sim_switch_lookup(sw, 10, mac[0]), 0);
	cr_assert_eq(sim_switch_lookup(sw, 20, mac[0]), -1, "learning is per VLAN");
	/* a tagged frame on an access port of another VLAN is dropped */
	send_from(0, bcast, 20, 4);
	cr_assert_eq(rec[3].n, 1);
	cr_assert_eq(sim_switch_port_stats_get(sw, 0)->vlan_drops, 1);
	cr_assert_eq(sim_switch_port_access(sw, 0, 0), SMCR_ERR_INVAL);
	cr_assert_eq(sim_switch_port_access(sw, 9, 5), SMCR_ERR_INVAL);
}

Test(switch, trunk_ports_tag_and_access_ports_untag, .init = setup, .fini = teardown)
{
	uint16_t allowed[2] = { 10, 20 };
	cr_assert_eq(sim_switch_port_trunk(sw, 0, 0, allowed, 2), 0);
	cr_assert_eq(sim_switch_port_access(sw, 1, 10), 0);
	cr_assert_eq(sim_switch_port_access(sw, 2, 20), 0);
	cr_assert_eq(sim_switch_port_access(sw, 3, 30), 0);
	/* tagged VLAN 20 (priority 3) from the trunk: leaves port 2 untagged */
	send_from(0, bcast, (3u << 13) | 20, 1);
	cr_assert_eq(rec[1].n, 0);
	cr_assert_eq(rec[2].n, 1);
	cr_assert_eq(rec[3].n, 0);
	cr_assert_eq(rec[2].got[0].len, 60, "tag removed");
	cr_assert_eq(rec[2].got[0].data[12], 0x88);
	cr_assert_eq(rec_seq(&rec[2].got[0]), 1);
	/* untagged from access VLAN 10: reaches the trunk tagged 10 */
	send_from(1, bcast, 0, 2);
	cr_assert_eq(rec[0].n, 1);
	cr_assert_eq(rec[0].got[0].len, 64);
	cr_assert_eq(rec[0].got[0].data[12], 0x81);
	cr_assert_eq(rec[0].got[0].data[13], 0x00);
	cr_assert_eq(rec[0].got[0].data[14], 0x00);
	cr_assert_eq(rec[0].got[0].data[15], 10);
	cr_assert_eq(rec_seq(&rec[0].got[0]), 2);
	/* VLAN 30 is not allowed on the trunk; untagged frames have no native VLAN */
	send_from(3, bcast, 0, 3);
	cr_assert_eq(rec[0].n, 1);
	send_from(0, bcast, 30, 4);
	send_from(0, bcast, 0, 5);
	cr_assert_eq(sim_switch_port_stats_get(sw, 0)->vlan_drops, 2);
	/* priority bits survive from a tagged ingress to a tagged egress */
	cr_assert_eq(sim_switch_port_trunk(sw, 3, 0, allowed, 2), 0);
	send_from(0, bcast, (5u << 13) | 10, 6);
	cr_assert_eq(rec[3].n, 1);
	cr_assert_eq(rec[3].got[0].data[14], 5u << 5);
	cr_assert_eq(rec[3].got[0].data[15], 10);
}

Test(switch, trunk_native_vlan_is_untagged, .init = setup, .fini = teardown)
{
	uint16_t allowed[1] = { 10 };
	cr_assert_eq(sim_switch_port_trunk(sw, 0, 1, allowed, 1), 0);
	send_from(1, bcast, 0, 1); /* access VLAN 1 = the trunk's native VLAN */
	cr_assert_eq(rec[0].n, 1);
	cr_assert_eq(rec[0].got[0].len, 60, "untagged on the native VLAN");
	send_from(0, bcast, 0, 2); /* untagged in from the trunk: VLAN 1 */
	cr_assert_eq(rec[1].n, 1);
}

Test(switch, port_down_and_switch_failure_stop_traffic, .init = setup, .fini = teardown)
{
	cr_assert(rec[1].carrier);
	sim_switch_port_set_up(sw, 1, false);
	cr_assert_not(rec[1].carrier, "the station sees its link go down");
	send_from(0, bcast, 0, 1);
	cr_assert_eq(rec[1].n, 0);
	cr_assert_eq(rec[2].n, 1);
	sim_switch_port_set_up(sw, 1, true);
	cr_assert(rec[1].carrier);

	sim_switch_fail(sw);
	for (int i = 0; i < N; i++)
		cr_assert_not(rec[i].carrier);
	cr_assert_eq(sim_switch_mac_count(sw), 0, "a failed switch forgets what it learned");
	cr_assert_not(sim_endpoint_send(&rec[0].ep, rec_make_frame(fab, bcast, mac[0], 0, 46, 0, 2)));
	sim_engine_run(eng, SIM_TIME_NEVER, 0);
	cr_assert_eq(rec[2].n, 1);
	sim_switch_restore(sw);
	for (int i = 0; i < N; i++)
		cr_assert(rec[i].carrier);
	send_from(0, bcast, 0, 3);
	cr_assert_eq(rec[2].n, 2);
}

Test(switch, learning_survives_a_full_table, .init = setup, .fini = teardown)
{
	for (int i = 0; i < N; i++)
		rec_destroy(&rec[i]);
	sim_fabric_free(fab);
	sim_engine_free(eng);
	eng = sim_engine_new(1);
	fab = sim_fabric_new(eng);
	sim_switch_params p;
	sim_switch_params_default(&p);
	p.nports = N;
	p.mac_capacity = 2;
	sw = sim_switch_new(fab, "small", &p);
	for (int i = 0; i < N; i++) {
		rec_init(&rec[i], fab, "h", mac[i]);
		sim_endpoint_attach(&rec[i].ep, sim_switch_port(sw, (uint32_t)i));
	}
	send_from(0, bcast, 0, 1);
	send_from(1, bcast, 0, 2);
	send_from(2, bcast, 0, 3);
	cr_assert_eq(sim_switch_mac_count(sw), 2);
	cr_assert_eq(sim_switch_stats_get(sw)->learn_full, 1);
	send_from(3, mac[2], 0, 4); /* h2 unknown: flooded, still delivered */
	cr_assert_eq(rec[2].n, 3);
}

Test(switch, a_flood_shares_one_buffer_and_only_a_tagging_port_copies_it, .init = setup, .fini = teardown)
{
	uint16_t allowed[1] = { 1 };
	cr_assert_eq(sim_switch_port_trunk(sw, 3, 0, allowed, 1), 0); /* VLAN 1 leaves port 3 tagged */
	sim_frame *f = rec_make_frame(fab, bcast, mac[0], 0, 46, 0x33, 7);
	uint8_t copy[60];
	memcpy(copy, f->data, 60);
	sim_endpoint_send(&rec[0].ep, f);
	sim_frame_pool_stats st;
	sim_frame_pool_stats_get(sim_fabric_frames(fab), &st);
	cr_assert_eq(st.frames_in_use, 3, "one handle per port it left");
	cr_assert_eq(st.bufs_in_use[0], 2, "ports 1 and 2 share the original, port 3 has its tagged copy");
	cr_assert_eq(st.copied_on_write, 1);
	sim_engine_run(eng, SIM_TIME_NEVER, 0);
	for (int i = 1; i < 3; i++) {
		cr_assert_eq(rec[i].n, 1);
		cr_assert_eq(rec[i].got[0].len, 60);
		cr_assert_eq(memcmp(rec[i].got[0].data, copy, 60), 0, "port %d: the bytes as sent", i);
	}
	cr_assert_eq(rec[3].n, 1);
	cr_assert_eq(rec[3].got[0].len, 64);
	cr_assert_eq(memcmp(rec[3].got[0].data, copy, 12), 0);
	cr_assert_eq(rec[3].got[0].data[12], 0x81);
	cr_assert_eq(rec[3].got[0].data[15], 1);
	cr_assert_eq(memcmp(rec[3].got[0].data + 16, copy + 12, 48), 0);
	sim_frame_pool_stats_get(sim_fabric_frames(fab), &st);
	cr_assert_eq(st.bufs_in_use[0], 0);
}
