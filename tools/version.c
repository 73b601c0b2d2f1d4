/* `smcr-sim --version`: the version, the tree it was built from and which optional parts
 * it has. The values come from the build (Makefile: BUILD/gen/version.h); tshark is looked
 * up at run time, as the commands that use it do (bench replay, the tests). */
#include <glib.h>
#include <pcap/pcap.h>
#include <stdio.h>

#include "sim/sweep/sweep_runner.h"
#include "tools/cli.h"
#include "version.h"

const char *cli_sample_scenarios(void)
{
	return SMCR_SIM_DATADIR "/smcr-sim/scenarios";
}

void cli_print_examples(FILE *out)
{
	fprintf(out,
	        "Examples:\n"
	        "  smcr-sim run -v scenarios/default.scn       # run a scenario: event log, reports, expectations\n"
	        "  smcr-sim check my.scn                       # is it valid (and does every client reach its listener)?\n"
	        "  smcr-sim msc scenarios/default.scn -o a.svg # its message-sequence chart\n"
	        "  smcr-sim replay capture.pcapng              # decode a capture into the same reports\n"
	        "Sample scenarios: scenarios/*.scn in the source tree, %s/*.scn once\n"
	        "installed; two-stacks.scn is the smallest, default.scn a failover. The language: man\n"
	        "smcr-scenario, docs/scenario-format.md; every attribute's default: smcr-sim check --defaults.\n",
	        cli_sample_scenarios());
}

void cli_print_version(FILE *out)
{
	fprintf(out, "smcr-sim %s\n", SMCR_SIM_VERSION);
	/* without git (a tarball) the VERSION file is all there is */
	fprintf(out, "git: %s\n", SMCR_SIM_GIT[0] ? SMCR_SIM_GIT : "none (built outside git; VERSION " SMCR_SIM_VERSION ")");
	/* libibverbs is a build dependency: `run --real-hw`, `node`, `interop`, bench verbs/realhw */
	fprintf(out, "verbs: yes (libibverbs %s)\n", SMCR_SIM_VERBS_VERSION[0] ? SMCR_SIM_VERBS_VERSION : "unknown version");
	/* the sweep's MPI engine: built in when the build found Open MPI (sim/sweep/sweep_mpi.c) */
	const char *mpi = sweep_mpi_version();
	fprintf(out, "mpi: %s%s%s\n", mpi ? "yes (" : "no", mpi ? mpi : "", mpi ? ")" : "");
	gchar *tshark = g_find_program_in_path("tshark");
	fprintf(out, "tshark: %s\n", tshark ? tshark : "not found in PATH");
	g_free(tshark);
	fprintf(out, "libpcap: %s\n", pcap_lib_version());
	fprintf(out, "glib: %u.%u.%u (built with %s)\n", glib_major_version, glib_minor_version, glib_micro_version,
	        SMCR_SIM_GLIB_BUILD);
}
