/* `smcr-sim debug memory FILE`: run a scenario silently and say what its connections cost
 * the simulator: heap in use and resident SMC-R buffer pages after building the world and
 * at the end, the SMC-R buffers as configured, and the difference per connection still
 * open at the end (both ends, TCP and SMC-R state, their share of the frame pool and the
 * event queue). The figures are the process's own (glibc's allocator, the kernel's page
 * residency): they differ between machines and never go into a scenario's outputs. */
#include <glib.h>
#include <inttypes.h>
#include <malloc.h>
#include <stdio.h>
#include <string.h>

#include "sim/fabric/fabric.h"
#include "sim/rdma/lazy_arena.h"
#include "sim/world/world.h"
#include "tools/cli.h"

typedef struct mem_point {
	size_t heap;     /* bytes malloc has handed out and not got back */
	size_t resident; /* resident pages of the SMC-R buffers */
} mem_point;

static mem_point measure(void)
{
	struct mallinfo2 mi = mallinfo2();
	return (mem_point){ mi.uordblks + mi.hblkhd, lazy_arena_resident() };
}

typedef struct conn_count {
	uint64_t smcr, other;
} conn_count;

static void count_conn(void *arg, const smc_layer_conn *c)
{
	conn_count *n = arg;
	if (c->server)
		return; /* one connection, counted at its client */
	if (c->mode == SOCK_MODE_SMCR)
		n->smcr++;
	else
		n->other++;
}

static double per(size_t bytes, uint64_t n) { return n ? (double)bytes / (double)n : 0.0; }

int debug_memory(int argc, char **argv)
{
	GOptionEntry entries[] = { { NULL } };
	cli_options opts = { .params = "SCENARIO - what its connections cost the simulator",
		             .description = "Runs the scenario silently and prints heap and resident buffer pages before and\n"
		                            "after, the buffers as configured, and the cost per connection open at the end.",
		             .entries = entries };
	if (cli_parse_options(&opts, &argc, &argv))
		return 2;
	if (argc != 2) {
		fprintf(stderr, "%s: expected one SCENARIO file (try --help)\n", argv[0]);
		return 2;
	}
	scn_diag diag;
	scn_diag_init(&diag);
	scn_scenario *scn = scn_load_file(argv[1], &diag);
	if (!scn)
		scn_diag_print(&diag, stderr);
	scn_diag_free(&diag);
	if (!scn)
		return 2;
	world_opts o;
	world_opts_default(&o);
	o.quiet = true;
	char err[256];
	world *w = world_new(scn, &o, err, sizeof(err));
	if (!w) {
		fprintf(stderr, "%s: %s\n", argv[1], err);
		scn_free(scn);
		return 2;
	}
	mem_point before = measure();
	uint64_t failed = world_run(w);
	mem_point after = measure();
	conn_count n = { 0, 0 };
	for (size_t i = 0; i < scn->n_stacks; i++) {
		const smc_layer *l = world_layer(w, scn->stacks[i].name);
		if (l)
			smc_layer_foreach_conn(l, count_conn, &n);
	}
	lazy_arena_stats st;
	lazy_arena_stats_get(&st);
	sim_frame_pool_stats fp;
	sim_frame_pool_stats_get(sim_fabric_frames(world_fabric(w)), &fp);
	size_t grown = after.heap + after.resident > before.heap + before.resident
	                       ? after.heap + after.resident - before.heap - before.resident
	                       : 0;
	uint64_t conns = n.smcr + n.other;
	printf("debug memory: %s, %" PRIu64 " connections open at the end (%" PRIu64 " on SMC-R)\n", argv[1], conns,
	       n.smcr);
	printf("  heap in use          %zu bytes after building the world, %zu at the end\n", before.heap, after.heap);
	printf("  SMC-R buffers        %zu bytes as configured (%zu buffers), %zu resident at the end\n",
	       st.buffer_bytes, st.buffers, after.resident);
	printf("  buffers given back   %" PRIu64 " times idle, %" PRIu64 " kept for bytes in flight\n", st.released,
	       st.kept_in_flight);
	printf("  frame pool           %zu bytes (%zu frames in flight at the end); at most %zu handles and",
	       fp.bytes, fp.frames_in_use, fp.frames_allocated);
	for (int c = 0; c < SIM_FRAME_CLASSES; c++)
		printf(" %s%zu of %" PRIu32 " B", c ? ", " : "", fp.bufs_allocated[c], sim_frame_class_size[c]);
	printf(" buffers at once\n");
	printf("  per connection       %.0f bytes (both ends, TCP and SMC-R state, resident buffer pages);"
	       " buffers as configured: %.0f\n",
	       per(grown, conns), per(st.buffer_bytes, conns));
	world_free(w);
	scn_free(scn);
	return failed ? 1 : 0;
}
