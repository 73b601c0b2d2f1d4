/* ib_write_bw as a reference (see ib_write_bw.h). */
#include "sim/bench/ib_write_bw.h"

#include <glib.h>
#include <sys/wait.h>

#include "sim/rdma/gid_table.h"
#include "sim/rdma/verbs_transport.h"

/* The result row follows the "#bytes #iterations BW peak BW average" header. */
static double average_of(const char *out, int64_t size)
{
	double avg = 0;
	char **lines = g_strsplit(out, "\n", -1);
	for (int i = 0; lines[i]; i++) {
		unsigned long long bytes, it;
		double peak, average;
		if (sscanf(lines[i], " %llu %llu %lf %lf", &bytes, &it, &peak, &average) == 4 &&
		    bytes == (unsigned long long)size)
			avg = average;
	}
	g_strfreev(lines);
	return avg;
}

double ib_write_bw_run(const ib_write_bw_params *p, FILE *log)
{
	char s_size[32], s_iters[32], s_depth[32], s_port[16], s_gid_a[16], s_gid_b[16];
	snprintf(s_size, sizeof s_size, "%" G_GINT64_FORMAT, p->size);
	snprintf(s_iters, sizeof s_iters, "%" G_GINT64_FORMAT, p->iters);
	snprintf(s_depth, sizeof s_depth, "%" G_GINT64_FORMAT, p->depth);
	snprintf(s_port, sizeof s_port, "%d", p->port);
	snprintf(s_gid_a, sizeof s_gid_a, "%d", p->gid_a);
	snprintf(s_gid_b, sizeof s_gid_b, "%d", p->gid_b);
	char *srv[] = { (char *)p->prog, "-d", (char *)p->dev2, "-i", s_port, "-x", s_gid_b, "-s", s_size, "-n", s_iters,
		        "-t", s_depth, "-p", "18515", "-F", NULL };
	char *cli[] = { (char *)p->prog, "-d", (char *)p->dev, "-i", s_port, "-x", s_gid_a, "-s", s_size, "-n", s_iters,
		        "-t", s_depth, "-p", "18515", "-F", "127.0.0.1", NULL };
	GPid pid;
	GError *err = NULL;
	if (!g_spawn_async(NULL, srv, NULL, G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, &pid, &err)) {
		fprintf(log, "bench: cannot start %s: %s\n", p->prog, err->message);
		g_error_free(err);
		return 0;
	}
	g_usleep(1000000); /* the server must listen before the client connects */
	char *out = NULL;
	gint status = 0;
	double avg = 0;
	if (g_spawn_sync(NULL, cli, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, &out, NULL, &status, &err)) {
		avg = average_of(out, p->size);
		g_free(out);
	} else {
		fprintf(log, "bench: %s: %s\n", p->prog, err->message);
		g_error_free(err);
	}
	waitpid(pid, NULL, 0);
	g_spawn_close_pid(pid);
	return avg;
}

int ib_write_bw_gid_index(const char *dev, int port)
{
	verbs_transport *vt = verbs_transport_new(NULL, NULL);
	smcr_tp_dev *d = verbs_dev_open(vt, dev);
	smcr_port_desc pd;
	int idx = -1;
	if (d && verbs_dev_port(vt, d, (uint8_t)port, &pd) == 0) {
		int g = gid_table_select(&pd, SMCR_GID_ROCE_V2, 0, 0, 0);
		if (g >= 0)
			idx = pd.gids[g].index;
	}
	verbs_transport_free(vt);
	return idx;
}
