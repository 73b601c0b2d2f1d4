/* --real-hw without real hardware: the mapping's syntax (sim/smc/realhw_map.h), what a world
 * with a mapping refuses before it touches a device, and that it stops at once with a
 * clear message when the device is not there. The runs on Soft-RoCE are in
 * rxe-setup/check-hw.sh (make check-hw). */
#include <criterion/criterion.h>
#include <string.h>

#include "sim/smc/realhw_map.h"
#include "sim/world/world.h"

#define PAIR                                                                        \
	"end 1s\n"                                                                  \
	"switch SW\n"                                                               \
	"adapter RA pfid=0010 switch=SW\n"                                          \
	"adapter RB pfid=0020 switch=SW ports=2 switch2=SW\n"                       \
	"stack A\n  interface e0 switch=SW ip=10.0.0.1/24\n  smcr pfid=0010\nend\n" \
	"stack B\n  interface e0 switch=SW ip=10.0.0.2/24\n  smcr pfid=0020\nend\n" \
	"app sink B listen port=5000 kind=sink\n"                                   \
	"app bulk A connect B:5000 kind=bulk bytes=64K\n"

static int parse(const char *text, realhw_map *m, char *err)
{
	return realhw_map_parse(text, m, err, 256);
}

Test(realhw, a_mapping_names_adapter_ports_devices_ports_and_addresses)
{
	realhw_map m;
	char err[256];
	cr_assert_eq(parse("0101=rxe0,0x201/2=mlx5_1:2@10.0.0.11,FFFF=rxe-a.b_c:1", &m, err), 0, "%s", err);
	cr_assert_eq(m.n, 3);
	cr_assert_eq(m.port[0].pfid, 0x0101);
	cr_assert_eq(m.port[0].port, 1);
	cr_assert_str_eq(m.port[0].dev, "rxe0");
	cr_assert_eq(m.port[0].dev_port, 1);
	cr_assert_eq(m.port[0].ipv4, 0);
	cr_assert_eq(m.port[1].pfid, 0x0201);
	cr_assert_eq(m.port[1].port, 2);
	cr_assert_str_eq(m.port[1].dev, "mlx5_1");
	cr_assert_eq(m.port[1].dev_port, 2);
	cr_assert_eq(m.port[1].ipv4, 0x0a00000b);
	cr_assert_eq(m.port[2].pfid, 0xffff);
	cr_assert_str_eq(m.port[2].dev, "rxe-a.b_c");
	char buf[64];
	realhw_map_format(&m.port[1], buf, sizeof(buf));
	cr_assert_str_eq(buf, "0201/2=mlx5_1:2@10.0.0.11");
	realhw_map_format(&m.port[0], buf, sizeof(buf));
	cr_assert_str_eq(buf, "0101=rxe0:1");
}

Test(realhw, a_bad_mapping_says_which_entry_and_what_was_expected)
{
	static const struct {
		const char *text, *says;
	} bad[] = {
		{ "", "needs a mapping" },
		{ "0101", "expected PFID[/PORT]=DEV" },
		{ "10000=rxe0", "1 to 4 hex digits" },
		{ "01g1=rxe0", "1 to 4 hex digits" },
		{ "0101/3=rxe0", "adapter port must be 1 or 2" },
		{ "0101=", "RDMA device name" },
		{ "0101=rxe 0", "letters, digits" },
		{ "0101=rxe0:0", "device port" },
		{ "0101=rxe0:x", "device port" },
		{ "0101=rxe0@10.0.0", "IPv4 address" },
		{ "0101=rxe0@10.0.0.256", "IPv4 address" },
		{ "0101=rxe0@010.0.0.1", "IPv4 address" },
		{ "0101=rxe0,,0201=rxe0", "empty entry" },
		{ "0101=rxe0,0101/1=rxe1", "twice" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		realhw_map m;
		char err[256] = "";
		cr_assert_eq(parse(bad[i].text, &m, err), -1, "'%s' was accepted", bad[i].text);
		cr_assert(strstr(err, bad[i].says), "'%s': said '%s', expected '%s'", bad[i].text, err, bad[i].says);
	}
}

/* world_new with a mapping; NULL and the message, or the world */
static world *real_world(const char *scenario, const char *map_text, char *err, size_t errlen, scn_scenario **scn)
{
	scn_diag diag;
	scn_diag_init(&diag);
	*scn = scn_load_string("rh.scn", scenario, strlen(scenario), &diag);
	scn_diag_free(&diag);
	cr_assert(*scn, "the test scenario does not load");
	static realhw_map m;
	cr_assert_eq(realhw_map_parse(map_text, &m, err, errlen), 0, "%s", err);
	world_opts o;
	world_opts_default(&o);
	o.real_hw = &m;
	o.quiet = true;
	return world_new(*scn, &o, err, errlen);
}

Test(realhw, every_activated_pfid_must_be_mapped_and_every_mapping_must_name_an_adapter)
{
	char err[1024];
	scn_scenario *scn;
	cr_assert_null(real_world(PAIR, "0010=smcr-test-nodev", err, sizeof(err), &scn));
	cr_assert(strstr(err, "rh.scn:11: stack B activates PFID 0020 port 1, which --real-hw does not map"), "%s", err);
	cr_assert(strstr(err, "(add 0020=DEV[:PORT])"), "%s", err);
	scn_free(scn);
	cr_assert_null(real_world(PAIR, "0010=d,0020=d,0030=d", err, sizeof(err), &scn));
	cr_assert(strstr(err, "--real-hw maps PFID 0030, which is no adapter of rh.scn (adapters: RA 0010, RB 0020)"),
	          "%s", err);
	scn_free(scn);
	cr_assert_null(real_world(PAIR, "0010/2=d,0020=d", err, sizeof(err), &scn));
	cr_assert(strstr(err, "adapter RA has 1 port(s)"), "%s", err);
	scn_free(scn);
}

Test(realhw, a_timeline_change_of_an_adapter_wire_is_refused_on_a_real_device)
{
	char err[1024];
	scn_scenario *scn;
	cr_assert_null(real_world(PAIR "at 100ms set adapter RA latency=1ms\n", "0010=d,0020=d", err, sizeof(err), &scn));
	cr_assert(strstr(err, "rh.scn:15: 'set adapter RA' changes a simulated access wire"), "%s", err);
	cr_assert(strstr(err, "fail and restore"), "%s", err);
	scn_free(scn);
}

Test(realhw, a_missing_device_stops_the_world_at_once_naming_it_and_how_to_create_one)
{
	char err[1024];
	scn_scenario *scn;
	cr_assert_null(real_world(PAIR, "0010=smcr-test-nodev,0020=smcr-test-nodev", err, sizeof(err), &scn));
	cr_assert(strstr(err, "stack A: no RDMA device 'smcr-test-nodev'"), "%s", err);
	cr_assert(strstr(err, "rxe-setup/rxe-host.sh up"), "%s", err);
	cr_assert(strstr(err, "make check-hw"), "%s", err);
	scn_free(scn);
}

Test(realhw, the_span_of_an_app_runs_from_its_first_connect_to_its_last_close)
{
	const char *text = PAIR "app more A connect B:5000 kind=bulk bytes=64K conns=2 interval=100ms start=200ms\n";
	scn_diag diag;
	scn_diag_init(&diag);
	scn_scenario *scn = scn_load_string("rh.scn", text, strlen(text), &diag);
	scn_diag_free(&diag);
	cr_assert(scn);
	world_opts o;
	world_opts_default(&o);
	o.quiet = true;
	char err[256];
	world *w = world_new(scn, &o, err, sizeof(err));
	cr_assert(w, "%s", err);
	uint64_t a, b;
	cr_assert_not(world_app_span(w, "more", &a, &b), "nothing connected yet");
	cr_assert_eq(world_run(w), 0);
	cr_assert(world_app_span(w, "more", &a, &b));
	cr_assert_geq(a, 200 * SIM_MS, "connected after its start");
	cr_assert_lt(a, 250 * SIM_MS);
	cr_assert_gt(b, 300 * SIM_MS, "the second connection opened at 300 ms and closed later");
	cr_assert_lt(b, 1 * SIM_S);
	cr_assert_not(world_app_span(w, "sink", &a, &b), "a listener has no span of its own");
	world_free(w);
	scn_free(scn);
}
