/* The interoperability test's application (sim/app/app_interop.h) between two simulated
 * stacks: the first connection runs alone, the others reuse its link group, every byte
 * both ways is checked, each connection is reported complete while still open and then
 * closed in order; the client retries while the server is not listening yet. */
#include <criterion/criterion.h>
#include <string.h>

#include "sim/app/app_interop.h"
#include "sim/smc/smc_layer.h"
#include "tests/support/scn_world.h"

#define IP4(a, b, c, d) ((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | (uint32_t)(c) << 8 | (uint32_t)(d))

#define V2_PAIR                                                                                                       \
	"end 20s\n"                                                                                                   \
	"switch SW\n"                                                                                                 \
	"adapter RA pfid=0010 switch=SW\n"                                                                            \
	"adapter RB pfid=0020 switch=SW\n"                                                                            \
	"stack A\n  interface eth0 switch=SW ip=10.0.0.1/24\n  smcr pfid=0010\n  smcr v2=yes ueid=SMC-RXE-LAB\nend\n" \
	"stack B\n  interface eth0 switch=SW ip=10.0.0.2/24\n  smcr pfid=0020\n  smcr v2=yes ueid=SMC-RXE-LAB\nend\n"

typedef struct seen {
	smc_layer *l;
	int n;
	uint64_t k[8];
	sock_mode mode[8];
	uint64_t lgr[8];
	bool open[8];
} seen;

static void on_complete(void *user, const app_interop_conn *c, sock *s)
{
	seen *v = user;
	smc_layer_conn lc;
	if (v->n >= 8)
		return;
	v->k[v->n] = c->k;
	v->mode[v->n] = sock_get_mode(s);
	v->open[v->n] = smc_layer_sock_conn(v->l, s, &lc) && lc.has_core;
	v->lgr[v->n] = v->open[v->n] ? lc.core_info.lgr_id : 0;
	v->n++;
}

static void check_side(app_interop *a, unsigned conns, uint64_t bytes, bool server)
{
	cr_assert(app_interop_done(a));
	cr_assert_eq(app_interop_n_conns(a), conns);
	for (size_t i = 0; i < conns; i++) {
		const app_interop_conn *c = app_interop_conn_get(a, i);
		cr_assert_eq(c->err, 0, "conn %zu: error %d", i, c->err);
		cr_assert(c->verified, "conn %zu: content differs at %llu", i, (unsigned long long)c->mismatch_at);
		cr_assert(c->closed && c->eof);
		cr_assert_eq(c->mode, SOCK_MODE_SMCR);
		cr_assert_eq(c->sent, bytes + (server ? 0 : 8));
		cr_assert_eq(c->received, bytes + (server ? 8 : 0));
	}
}

Test(app_interop, connections_verify_both_ways_and_close_over_one_link_group)
{
	scn_world *t = scn_world_new(V2_PAIR, NULL);
	seen vs = { .l = world_layer(t->w, "B") }, vc = { .l = world_layer(t->w, "A") };
	int err = 0;
	sock_opts o;
	sock_opts_default(&o);
	app_interop *srv = app_interop_server_start(world_stack(t->w, "B"), &o, 5000, 4, 300000, on_complete, &vs, &err);
	cr_assert_not_null(srv, "%d", err);
	app_interop *cli = app_interop_client_start(world_stack(t->w, "A"), &o, IP4(10, 0, 0, 2), 5000, 4, 300000,
	                                            2 * SIM_S, on_complete, &vc, &err);
	cr_assert_not_null(cli, "%d", err);
	scn_world_run(t);
	check_side(cli, 4, 300000, false);
	check_side(srv, 4, 300000, true);
	cr_assert_eq(vc.n, 4);
	cr_assert_eq(vc.k[0], 1, "connection 1 completes first: the others start after its close");
	for (int i = 0; i < 4; i++) {
		cr_assert(vc.open[i] && vs.open[i], "reported while still on SMC-R");
		cr_assert_eq(vc.lgr[i], vc.lgr[0], "one link group");
		cr_assert_eq(vs.mode[i], SOCK_MODE_SMCR);
	}
	uint64_t ks = 0;
	for (int i = 0; i < 4; i++)
		ks |= 1ull << vs.k[i];
	cr_assert_eq(ks, 0x1e, "the server learned numbers 1..4");
	app_interop_free(cli);
	app_interop_free(srv);
	scn_world_free(t);
}

static void start_server(sim_engine *eng, sim_event *ev)
{
	(void)eng;
	app_interop **srv = ev->ctx;
	int err = 0;
	*srv = app_interop_server_start((stack *)(uintptr_t)ev->arg, NULL, 5000, 1, 1000, NULL, NULL, &err);
}

Test(app_interop, the_client_retries_until_the_server_listens)
{
	scn_world *t = scn_world_new(V2_PAIR, NULL);
	app_interop *srv = NULL;
	int err = 0;
	sim_post(world_engine(t->w), 1 * SIM_S, sim_kind("test.listen"), 0, start_server, &srv,
	         (uint64_t)(uintptr_t)world_stack(t->w, "B"));
	app_interop *cli = app_interop_client_start(world_stack(t->w, "A"), NULL, IP4(10, 0, 0, 2), 5000, 1, 1000,
	                                            3 * SIM_S, NULL, NULL, &err);
	cr_assert_not_null(cli);
	scn_world_run(t);
	cr_assert_not_null(srv);
	check_side(cli, 1, 1000, false);
	check_side(srv, 1, 1000, true);
	app_interop_free(cli);
	app_interop_free(srv);

	/* without the wait, a refused connection is an error */
	scn_world *t2 = scn_world_new(V2_PAIR, NULL);
	cli = app_interop_client_start(world_stack(t2->w, "A"), NULL, IP4(10, 0, 0, 2), 5000, 1, 1000, 0, NULL, NULL,
	                               &err);
	scn_world_run(t2);
	cr_assert(app_interop_done(cli));
	cr_assert_lt(app_interop_conn_get(cli, 0)->err, 0);
	app_interop_free(cli);
	scn_world_free(t2);
	scn_world_free(t);
}
