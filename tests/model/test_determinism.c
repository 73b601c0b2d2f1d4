/* Same seed, same bytes: two runs of the same scenario put identical LLC/CDC messages on
 * the links; another seed changes the random parts (PSNs, alert tokens, system ids). */
#include <criterion/criterion.h>

#include "tests/support/duo.h"

typedef struct wire_hash {
	uint64_t h;
	uint64_t n;
} wire_hash;

static void hash_send(void *arg, uint32_t src, uint32_t dst, const uint8_t *buf, uint32_t len)
{
	wire_hash *w = arg;
	w->h = (w->h ^ src ^ ((uint64_t)dst << 24)) * 0x100000001b3ull;
	for (uint32_t i = 0; i < len; i++)
		w->h = (w->h ^ buf[i]) * 0x100000001b3ull;
	w->n++;
}

static bool up(void *arg)
{
	duo_conn *c = arg;
	return c->established && c->peer->established;
}

static bool streamed(void *arg) { return duo_stream_done(arg); }

static wire_hash run(uint64_t seed)
{
	duo_opts o;
	duo_opts_default(&o);
	o.seed = seed;
	o.ports[0] = o.ports[1] = 2;
	duo *d = duo_new(&o);
	wire_hash w = { 0xcbf29ce484222325ull, 0 };
	loopback_set_observer(d->lb, hash_send, &w);
	duo_conn *c = duo_connect(d, 0);
	cr_assert(duo_run_until(d, up, c, 20 * SMCR_S));
	duo_conn *c2 = duo_connect(d, 1);
	cr_assert(duo_run_until(d, up, c2, 20 * SMCR_S));
	duo_stream(c, 1 << 20);
	duo_stream(c2, 1 << 20);
	cr_assert(duo_run_until(d, streamed, c, 20 * SMCR_S));
	cr_assert(duo_run_until(d, streamed, c2, 20 * SMCR_S));
	smcr_conn_close(c->c, duo_now(d));
	duo_sync(d);
	duo_run(d, duo_now(d) + 700 * SMCR_S);
	w.h ^= (uint64_t)d->n_ev << 48;
	duo_free(d);
	return w;
}

Test(determinism, same_seed_same_wire_bytes)
{
	wire_hash a = run(7), b = run(7), c = run(8);
	cr_assert_gt(a.n, 100);
	cr_assert_eq(a.n, b.n);
	cr_assert_eq(a.h, b.h);
	cr_assert_neq(a.h, c.h);
}
