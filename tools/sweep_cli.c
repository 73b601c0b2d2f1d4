/* The options `sweep` and `swarm` share (tools/sweep_cli.h). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tools/sweep_cli.h"

int sweep_cli_opts(const char *prog, const sweep_cli_args *a, const char *what, sweep_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->what = what;
	if (a->jobs < 0 || a->jobs > 4096) {
		fprintf(stderr, "%s: bad --jobs %d; expected 1..4096 worker processes\n", prog, a->jobs);
		return 2;
	}
	o->jobs = (unsigned)a->jobs;
	o->mpi = a->mpi || sweep_mpi_detected();
	if (o->mpi && o->jobs > 1) {
		fprintf(stderr, "%s: --jobs with MPI: each rank runs one point at a time; expected one of them (more ranks "
		                "instead of --jobs)\n",
		        prog);
		return 2;
	}
	if (o->mpi && !sweep_mpi_built()) {
		fprintf(stderr, "%s: %s", prog, a->mpi ? "--mpi" : "running under mpirun/srun");
		fprintf(stderr, ", but this smcr-sim was built without MPI (smcr-sim --version: mpi: no); expected a build "
		                "with Open MPI (tools/install-deps --mpi, then make)\n");
		return 2;
	}
	if (a->resume && !a->out) {
		fprintf(stderr, "%s: --resume needs --out FILE (the result file to go on from)\n", prog);
		return 2;
	}
	o->out_path = a->out;
	o->resume = a->resume;
	o->progress = !a->quiet && isatty(STDERR_FILENO) ? stderr : NULL;
	return 0;
}

int sweep_cli_execute(const char *prog, const sweep_job *job, const sweep_opts *o, const sweep_summary_opts *sum)
{
	sweep_outcome oc;
	char err[1024];
	int rc = sweep_execute(job, o, &oc, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "%s: %s\n", prog, err);
		sweep_results_free(oc.results);
		return rc;
	}
	if (oc.worker)
		return 0; /* an MPI rank other than 0: rank 0 prints */
	uint64_t bad = sweep_print_summary(stdout, sum, &oc);
	sweep_results_free(oc.results);
	return bad ? 1 : 0;
}

void sweep_cli_args_free(sweep_cli_args *a)
{
	g_free(a->out);
}
