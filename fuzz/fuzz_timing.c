/* Replay mode 2, timing (sim/redrive/replay_timing.c): the input is a capture file whose
 * frames are injected at their recorded times into a world, the one server stack of
 * tests/data/replay/server-only.scn (192.168.10.2, the server of the sample traces), for
 * one second of virtual time; the injector's report is printed. First input byte: the
 * speed (0: recorded, else N times faster). A capture that cannot be played must say so. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz/fuzz.h"
#include "sim/redrive/replay_timing.h"
#include "sim/scenario/scn_model.h"
#include "sim/world/world.h"

static const char scenario[] = "scenario \"one server to inject into\"\n"
                               "seed 1\n"
                               "end 1s\n"
                               "switch SW1\n"
                               "adapter RNB pfid=0201 switch=SW1\n"
                               "stack LNXB personality=linux\n"
                               "  interface eth0 switch=SW1 ip=192.168.10.2/24\n"
                               "  smcr pfid=0201\n"
                               "end\n"
                               "app sink LNXB listen port=5000 kind=sink\n"
                               "app echo LNXB listen port=7 kind=echo\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static scn_scenario *scn;
	if (!scn) {
		scn_diag diag;
		scn_diag_init(&diag);
		scn = scn_load_string("timing.scn", scenario, sizeof(scenario) - 1, &diag);
		if (!scn) {
			scn_diag_print(&diag, stderr);
			abort();
		}
		scn_diag_free(&diag);
	}
	if (size < 1)
		return 0;
	char path[64];
	int fd = fuzz_memfile(data + 1, size - 1, path, sizeof(path));
	if (fd < 0)
		return 0;
	world_opts o;
	world_opts_default(&o);
	o.out = fuzz_devnull();
	o.quiet = true;
	o.spare_port_switch = "SW1";
	replay_timing_opts ro;
	memset(&ro, 0, sizeof(ro));
	ro.speed_num = data[0] ? data[0] : 1;
	ro.speed_den = 1;
	char err[512] = "";
	world *w = world_new(scn, &o, err, sizeof(err));
	if (!w)
		abort(); /* the harness's own scenario */
	replay_timing *t = replay_timing_new(w, path, &ro, err, sizeof(err));
	if (t) {
		(void)world_run(w);
		replay_timing_print(fuzz_devnull(), t);
		replay_timing_free(t);
	} else if (!err[0]) {
		abort(); /* refused without saying why */
	}
	world_free(w);
	close(fd);
	return 0;
}
