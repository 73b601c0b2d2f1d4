/* SMCAT's figures (see applic.h): an ended connection folded into its destination's and
 * the total's.
 *
 * The definitions follow the VARY TCPIP,,SMCAT description (IP System Administrator's
 * Commands): a connection is eligible when it could use SMC (applic_setup.h), well-suited
 * when it is eligible and not both short-lived and small (short: under short_ns from its
 * first to its last segment; small: under small_bytes of payload both ways), segments
 * are counted sent and received, and the application send and receive sizes are those of
 * the well-suited connections. A send is what the sender's TCP pushed at once (Linux sets
 * PSH on the last segment of every send call, tcp_push()); sends are the client's (or,
 * with the capturing host known, that host's), receives the other side's.
 * Only connections the capture shows established count: a SYN nobody answered is no
 * connection. */
#include <string.h>

#include "sim/applic/applic_int.h"

const char *const applic_size_names[APPLIC_SIZES] = { "<=1500", "1501-4K", "4K-8K", "8K-16K", "16K-32K", "32K-64K", ">64K" };

unsigned applic_size_class(uint64_t bytes)
{
	static const uint64_t limits[APPLIC_SIZES - 1] = { 1500, 4096, 8192, 16384, 32768, 65536 };
	unsigned i = 0;
	while (i < APPLIC_SIZES - 1 && bytes > limits[i])
		i++;
	return i;
}

static void add(applic_figures *f, const ac_conn *c, bool well, int local_dir)
{
	uint64_t segs = c->segs[0] + c->segs[1], bytes = c->hi[0] + c->hi[1];
	f->conns++;
	f->segments += segs;
	f->bytes += bytes;
	if (!c->eligible) {
		f->not_eligible[c->why]++;
		return;
	}
	f->eligible++;
	if (!well)
		return;
	f->well_suited++;
	f->segments_well_suited += segs;
	f->bytes_well_suited += bytes;
	for (unsigned i = 0; i < APPLIC_SIZES; i++) {
		f->sends[i] += c->sizes[local_dir][i];
		f->recvs[i] += c->sizes[1 - local_dir][i];
	}
}

static applic_dest *dest_of(ac_tracker *t, uint8_t family, const uint8_t ip[16])
{
	uint8_t key[17];
	key[0] = family;
	memcpy(key + 1, ip, 16);
	GBytes *b = g_bytes_new(key, sizeof(key));
	size_t idx = GPOINTER_TO_SIZE(g_hash_table_lookup(t->dest_index, b));
	if (idx) {
		g_bytes_unref(b);
		return &t->dests[idx - 1];
	}
	if (t->n_dests >= t->o.max_dests) {
		g_bytes_unref(b);
		t->has_other = true;
		return &t->other;
	}
	if (t->n_dests == t->cap_dests) {
		t->cap_dests = t->cap_dests ? t->cap_dests * 2 : 64;
		t->dests = g_realloc_n(t->dests, t->cap_dests, sizeof(*t->dests));
	}
	applic_dest *d = &t->dests[t->n_dests++];
	memset(d, 0, sizeof(*d));
	d->family = family;
	memcpy(d->ip, ip, 16);
	g_hash_table_insert(t->dest_index, b, GSIZE_TO_POINTER(t->n_dests));
	return d;
}

void ac_fold(ac_tracker *t, const ac_conn *c)
{
	applic_result *res = t->res;
	bool established = c->any_data || (c->t_synack && c->t_ack) || (c->seen[0] && c->seen[1]);
	if (!established)
		return; /* a SYN nobody answered */
	if (!c->syn_seen)
		res->conns_no_syn++;
	if (!(c->seen[0] && c->seen[1]))
		res->conns_one_way++;
	ac_conn flushed = *c;
	for (int d = 0; d < 2; d++)
		if (flushed.send_now[d])
			flushed.sizes[d][applic_size_class(flushed.send_now[d])]++;
	uint64_t dur = c->t_last - c->t_first, bytes = c->hi[0] + c->hi[1];
	bool well = c->eligible && !(dur < t->o.short_ns && bytes < t->o.small_bytes);
	int local_dir = 0, dest_side = 1;
	if (t->o.has_local) {
		bool client_local = c->family == t->o.local_family && !memcmp(c->ip[0], t->o.local_ip, 16);
		bool server_local = c->family == t->o.local_family && !memcmp(c->ip[1], t->o.local_ip, 16);
		if (server_local && !client_local) {
			local_dir = 1;
			dest_side = 0;
		}
	}
	add(&res->total, &flushed, well, local_dir);
	add(&dest_of(t, c->family, c->ip[dest_side])->f, &flushed, well, local_dir);
}

static int cmp_dest(const void *a, const void *b)
{
	const applic_dest *x = a, *y = b;
	if (x->family != y->family)
		return x->family < y->family ? -1 : 1;
	return memcmp(x->ip, y->ip, 16);
}

void ac_dests_finish(ac_tracker *t)
{
	applic_result *res = t->res;
	if (t->n_dests)
		qsort(t->dests, t->n_dests, sizeof(*t->dests), cmp_dest);
	res->n_dests = t->n_dests + (t->has_other ? 1 : 0);
	res->dests = g_new0(applic_dest, res->n_dests ? res->n_dests : 1);
	if (t->n_dests)
		memcpy(res->dests, t->dests, t->n_dests * sizeof(*t->dests));
	if (t->has_other)
		res->dests[t->n_dests] = t->other; /* family 0 */
}
