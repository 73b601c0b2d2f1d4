/* The forwarding database: learning, moving, aging, a full table, flushing, growth. */
#include <criterion/criterion.h>

#include "sim/fabric/fdb.h"

static const uint8_t mac_a[6] = { 2, 0, 0, 0, 0, 1 }, mac_b[6] = { 2, 0, 0, 0, 0, 2 };

static void mac_n(uint8_t out[6], uint32_t n)
{
	out[0] = 2;
	out[1] = 0;
	out[2] = (uint8_t)(n >> 24);
	out[3] = (uint8_t)(n >> 16);
	out[4] = (uint8_t)(n >> 8);
	out[5] = (uint8_t)n;
}

Test(fdb, learns_per_vlan_and_follows_a_moving_station)
{
	sim_fdb t;
	sim_fdb_init(&t, 100, 300 * SIM_S, 4);
	cr_assert_eq(sim_fdb_lookup(&t, 1, mac_a, 0), -1);
	cr_assert(sim_fdb_learn(&t, 1, mac_a, 2, 10, 10));
	cr_assert_eq(sim_fdb_lookup(&t, 1, mac_a, 10), 2);
	cr_assert_eq(sim_fdb_lookup(&t, 2, mac_a, 10), -1, "learning is per VLAN");
	cr_assert_eq(sim_fdb_lookup(&t, 1, mac_b, 10), -1);
	cr_assert(sim_fdb_learn(&t, 1, mac_a, 3, 20, 20));
	cr_assert_eq(sim_fdb_lookup(&t, 1, mac_a, 20), 3, "the entry moved");
	cr_assert_eq(sim_fdb_count(&t), 1);
	cr_assert_eq(t.per_port[2], 0);
	cr_assert_eq(t.per_port[3], 1);
	sim_fdb_destroy(&t);
}

Test(fdb, entries_age_by_virtual_time_and_learning_refreshes_them)
{
	sim_fdb t;
	sim_fdb_init(&t, 100, 300 * SIM_S, 2);
	sim_fdb_learn(&t, 1, mac_a, 0, 0, 0);
	cr_assert_eq(sim_fdb_lookup(&t, 1, mac_a, 300 * SIM_S), 0, "exactly the aging time: still there");
	cr_assert_eq(sim_fdb_lookup(&t, 1, mac_a, 300 * SIM_S + 1), -1);
	sim_fdb_learn(&t, 1, mac_a, 0, 400 * SIM_S, 400 * SIM_S);
	cr_assert_eq(sim_fdb_lookup(&t, 1, mac_a, 650 * SIM_S), 0);
	sim_fdb_destroy(&t);
}

Test(fdb, a_full_table_purges_aged_entries_before_refusing)
{
	sim_fdb t;
	sim_fdb_init(&t, 2, 10, 4);
	cr_assert(sim_fdb_learn(&t, 1, mac_a, 0, 0, 0));
	cr_assert(sim_fdb_learn(&t, 1, mac_b, 1, 5, 5));
	uint8_t m[6];
	mac_n(m, 77);
	cr_assert_not(sim_fdb_learn(&t, 1, m, 2, 8, 8), "full, nothing aged yet");
	cr_assert_eq(sim_fdb_count(&t), 2);
	cr_assert(sim_fdb_learn(&t, 1, mac_a, 3, 8, 8), "a known station is still refreshed");
	cr_assert(sim_fdb_learn(&t, 1, m, 2, 17, 17), "mac_b aged (seen at 5): purged, room made");
	cr_assert_eq(sim_fdb_count(&t), 2);
	cr_assert_eq(sim_fdb_lookup(&t, 1, mac_b, 17), -1);
	cr_assert_eq(sim_fdb_lookup(&t, 1, mac_a, 17), 3);
	cr_assert_eq(sim_fdb_lookup(&t, 1, m, 17), 2);
	sim_fdb_destroy(&t);
}

Test(fdb, flushing_a_port_forgets_only_its_stations)
{
	sim_fdb t;
	sim_fdb_init(&t, 1000, SIM_S, 8);
	uint8_t m[6];
	for (uint32_t i = 0; i < 500; i++) {
		mac_n(m, i);
		sim_fdb_learn(&t, (uint16_t)(1 + i % 3), m, i % 8, 0, 0);
	}
	cr_assert_eq(sim_fdb_count(&t), 500);
	size_t cap = t.cap;
	sim_fdb_flush_port(&t, 5);
	cr_assert_eq(sim_fdb_count(&t), 500 - 62);
	cr_assert_eq(t.per_port[5], 0);
	for (uint32_t i = 0; i < 500; i++) {
		mac_n(m, i);
		cr_assert_eq(sim_fdb_lookup(&t, (uint16_t)(1 + i % 3), m, 0), i % 8 == 5 ? -1 : (int)(i % 8), "mac %u", i);
	}
	sim_fdb_entry *slots = t.slots;
	sim_fdb_flush_port(&t, 5);
	cr_assert_eq(t.slots, slots, "a port without entries: nothing to do");
	cr_assert_eq(t.cap, cap);
	sim_fdb_flush(&t);
	cr_assert_eq(sim_fdb_count(&t), 0);
	mac_n(m, 1);
	cr_assert_eq(sim_fdb_lookup(&t, 2, m, 0), -1);
	sim_fdb_destroy(&t);
}

Test(fdb, the_table_grows_with_what_it_learned_and_stays_at_most_half_full)
{
	sim_fdb t;
	sim_fdb_init(&t, 8192, SIM_S, 2);
	cr_assert_leq(t.cap, 16, "sized to what it holds, not to its capacity");
	uint8_t m[6];
	for (uint32_t i = 0; i < 8192; i++) {
		mac_n(m, i * 2654435761u);
		cr_assert(sim_fdb_learn(&t, 1, m, i & 1, 0, 0));
		cr_assert_leq(2 * sim_fdb_count(&t), t.cap);
	}
	cr_assert_eq(t.cap, 16384);
	mac_n(m, 1);
	cr_assert_not(sim_fdb_learn(&t, 7, m, 0, 0, 0), "capacity reached");
	for (uint32_t i = 0; i < 8192; i++) {
		mac_n(m, i * 2654435761u);
		cr_assert_eq(sim_fdb_lookup(&t, 1, m, 0), (int)(i & 1));
	}
	sim_fdb_destroy(&t);
}
