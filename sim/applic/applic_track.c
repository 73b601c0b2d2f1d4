/* The connection tracker of the applicability reader (see applic_int.h).
 *
 * Connections live in a fixed array of max_open slots found through a hash table on the
 * 4-tuple and listed least recently seen first; a full array folds its oldest connection
 * early. A connection ends (its figures folded) at its second FIN or its RST; its slot
 * stays until it is the oldest, so the last ACK after the FINs finds it.
 *
 * Per direction only new bytes count: the sequence numbers, unwrapped from their first
 * value, say how far each side has sent; a retransmission adds nothing and a TSO segment
 * adds all it carries. A segment that moves a direction on by more than 64 MiB at once
 * is taken for a mangled or foreign sequence number: counted as its payload, noted. */
#include <inttypes.h>
#include <stdarg.h>
#include <string.h>

#include "sim/applic/applic_int.h"

#define RESYNC_BYTES (64ull << 20)

void ac_note(applic_result *res, uint64_t frame, const char *fmt, ...)
{
	res->notes_total++;
	if (res->n_notes == APPLIC_MAX_NOTES)
		return;
	applic_note *n = &res->notes[res->n_notes++];
	n->frame = frame;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(n->text, sizeof(n->text), fmt, ap);
	va_end(ap);
}

static guint key_hash(gconstpointer p)
{
	const ac_key *k = p;
	uint32_t h = 2166136261u ^ k->family;
	unsigned n = k->family == 4 ? 4 : 16;
	for (unsigned i = 0; i < n; i++)
		h = (h ^ k->a[i]) * 16777619u;
	for (unsigned i = 0; i < n; i++)
		h = (h ^ k->b[i]) * 16777619u;
	return h ^ ((uint32_t)k->pa << 16 | k->pb);
}

static gboolean key_equal(gconstpointer x, gconstpointer y)
{
	return !memcmp(x, y, sizeof(ac_key));
}

void ac_tracker_init(ac_tracker *t, const applic_opts *o, applic_result *res)
{
	memset(t, 0, sizeof(*t));
	t->o = *o;
	t->setup = o->setup;
	t->res = res;
	t->slots = g_new0(ac_conn, o->max_open);
	t->keys = g_new0(ac_key, o->max_open);
	t->index = g_hash_table_new(key_hash, key_equal);
	t->dest_index = g_hash_table_new_full(g_bytes_hash, g_bytes_equal, (GDestroyNotify)g_bytes_unref, NULL);
	/* slots are taken in order and their pages touched only then: a small capture costs
	 * little of the array (calloc'd pages stay unbacked until written) */
	t->free_head = 0;
	t->high = 0;
}

static void make_key(const ap_packet *p, ac_key *k)
{
	memset(k, 0, sizeof(*k));
	k->family = p->family;
	int c = memcmp(p->src, p->dst, 16);
	bool src_first = c < 0 || (c == 0 && p->sport <= p->dport);
	memcpy(k->a, src_first ? p->src : p->dst, 16);
	memcpy(k->b, src_first ? p->dst : p->src, 16);
	k->pa = src_first ? p->sport : p->dport;
	k->pb = src_first ? p->dport : p->sport;
}

/* ---- the LRU list ---- */

static void lru_unlink(ac_tracker *t, uint32_t slot)
{
	ac_conn *c = &t->slots[slot - 1];
	if (c->lru_prev)
		t->slots[c->lru_prev - 1].lru_next = c->lru_next;
	else
		t->lru_old = c->lru_next;
	if (c->lru_next)
		t->slots[c->lru_next - 1].lru_prev = c->lru_prev;
	else
		t->lru_new = c->lru_prev;
	c->lru_prev = c->lru_next = 0;
}

static void lru_push(ac_tracker *t, uint32_t slot)
{
	ac_conn *c = &t->slots[slot - 1];
	c->lru_prev = t->lru_new;
	c->lru_next = 0;
	if (t->lru_new)
		t->slots[t->lru_new - 1].lru_next = slot;
	else
		t->lru_old = slot;
	t->lru_new = slot;
}

/* ---- scripts (the messages of connections to re-run) ---- */

static void script_msg(ac_tracker *t, ac_conn *c)
{
	if (c->run_dir < 0 || !c->run_bytes)
		return;
	if (c->script >= 0) {
		ac_script *s = &t->scripts[c->script];
		if (s->n_msgs >= t->o.steps_max || t->script_bytes + c->run_bytes > t->o.rerun_bytes) {
			s->truncated = true;
		} else {
			if (s->n_msgs == s->cap_msgs) {
				s->cap_msgs = s->cap_msgs ? s->cap_msgs * 2 : 16;
				s->msgs = g_realloc_n(s->msgs, s->cap_msgs, sizeof(*s->msgs));
			}
			s->msgs[s->n_msgs++] = (ac_msg){ (uint8_t)c->run_dir, c->run_bytes, c->run_t0, c->run_t1 };
			s->bytes += c->run_bytes;
			t->script_bytes += c->run_bytes;
		}
	}
	c->run_dir = -1;
	c->run_bytes = 0;
}

static void script_start(ac_tracker *t, ac_conn *c)
{
	c->script = -1;
	if (!c->eligible || t->n_scripts >= t->o.rerun_max || t->script_bytes >= t->o.rerun_bytes) {
		if (c->eligible && t->o.rerun_max)
			t->res->rerun_skipped++;
		return;
	}
	if (t->n_scripts == t->cap_scripts) {
		t->cap_scripts = t->cap_scripts ? t->cap_scripts * 2 : 16;
		t->scripts = g_realloc_n(t->scripts, t->cap_scripts, sizeof(*t->scripts));
	}
	ac_script *s = &t->scripts[t->n_scripts];
	memset(s, 0, sizeof(*s));
	s->conn_id = c->id;
	s->frame = c->frame;
	s->closer = -1;
	c->script = (int32_t)t->n_scripts++;
}

/* the script's addresses, handshake times and closes, once the connection ends */
static void script_end(ac_tracker *t, ac_conn *c)
{
	if (c->script < 0)
		return;
	ac_script *s = &t->scripts[c->script];
	s->family = c->family;
	memcpy(s->ip, c->ip, sizeof(s->ip));
	memcpy(s->port, c->port, sizeof(s->port));
	s->t_open = c->syn_seen ? c->t_syn : c->t_first;
	if (c->t_syn && c->t_synack > c->t_syn)
		s->rtt_c = c->t_synack - c->t_syn;
	if (c->t_synack && c->t_ack > c->t_synack)
		s->rtt_s = c->t_ack - c->t_synack;
}

/* ---- connections ---- */

/* the connection closed: its script is complete; its figures are folded when its slot
 * goes (the last ACKs after the FINs still count) */
static void end_conn(ac_tracker *t, ac_conn *c)
{
	if (c->folded)
		return;
	script_msg(t, c);
	script_end(t, c);
	c->folded = true;
}

static void drop_slot(ac_tracker *t, uint32_t slot)
{
	ac_conn *c = &t->slots[slot - 1];
	if (!c->folded)
		t->res->evicted++;
	end_conn(t, c);
	ac_fold(t, c);
	lru_unlink(t, slot);
	g_hash_table_remove(t->index, &t->keys[slot - 1]);
	memset(c, 0, sizeof(*c));
	c->lru_next = t->free_head;
	t->free_head = slot;
	t->n_used--;
}

static uint32_t new_conn(ac_tracker *t, const ac_key *k, const ap_packet *p, uint64_t ts, uint64_t frame)
{
	if (!t->free_head && t->high == t->o.max_open)
		drop_slot(t, t->lru_old);
	uint32_t slot;
	if (t->free_head) {
		slot = t->free_head;
		t->free_head = t->slots[slot - 1].lru_next;
	} else {
		slot = ++t->high;
	}
	ac_conn *c = &t->slots[slot - 1];
	memset(c, 0, sizeof(*c));
	t->keys[slot - 1] = *k;
	g_hash_table_insert(t->index, &t->keys[slot - 1], GUINT_TO_POINTER(slot));
	t->n_used++;
	lru_push(t, slot);
	c->id = ++t->next_id;
	c->frame = frame;
	c->family = p->family;
	c->vlan = p->vlan;
	c->run_dir = -1;
	c->t_first = c->t_last = ts;
	/* the client: the SYN's sender, the SYN-ACK's receiver; without either, the end with
	 * the higher port (a server's port is the well-known or the lower one) */
	bool src_client;
	if (p->flags & AP_SYN) {
		src_client = !(p->flags & AP_ACK);
		c->syn_seen = true;
	} else {
		src_client = p->sport > p->dport || (p->sport == p->dport && memcmp(p->src, p->dst, 16) > 0);
	}
	memcpy(c->ip[0], src_client ? p->src : p->dst, 16);
	memcpy(c->ip[1], src_client ? p->dst : p->src, 16);
	c->port[0] = src_client ? p->sport : p->dport;
	c->port[1] = src_client ? p->dport : p->sport;
	c->eligible = applic_setup_eligible(t->setup, p->family, p->src, p->dst, p->vlan, &c->why);
	script_start(t, c);
	return slot;
}

/* bytes a segment adds to its direction */
static uint64_t new_bytes(ac_tracker *t, ac_conn *c, int dir, const ap_packet *p, uint64_t frame)
{
	if (p->flags & AP_SYN) {
		c->base[dir] = p->seq + 1;
		c->base_set[dir] = true;
		return 0;
	}
	if (!p->payload)
		return 0;
	if (!c->base_set[dir]) {
		c->base[dir] = p->seq;
		c->base_set[dir] = true;
	}
	uint32_t end = p->seq + p->payload - c->base[dir];
	int64_t delta = (int64_t)(int32_t)(end - (uint32_t)c->hi[dir]);
	if (delta <= 0)
		return 0; /* a retransmission, or old bytes arriving late */
	if ((uint64_t)delta > RESYNC_BYTES) {
		t->res->resyncs++;
		ac_note(t->res, frame, "connection %" PRIu32 ": the sequence number jumped %" PRId64 " bytes ahead; taken as new "
		        "bytes from here", c->id, delta);
		c->base[dir] = p->seq - (uint32_t)c->hi[dir];
		delta = p->payload;
	}
	c->hi[dir] += (uint64_t)delta;
	return (uint64_t)delta;
}

static void handshake_times(ac_conn *c, int dir, const ap_packet *p, uint64_t ts)
{
	if ((p->flags & AP_SYN) && !(p->flags & AP_ACK) && !c->t_syn)
		c->t_syn = ts;
	else if ((p->flags & AP_SYN) && (p->flags & AP_ACK) && !c->t_synack)
		c->t_synack = ts;
	else if (dir == 0 && (p->flags & AP_ACK) && c->t_synack && !c->t_ack)
		c->t_ack = ts;
}

static void data(ac_tracker *t, ac_conn *c, int dir, uint64_t n, bool push, uint64_t ts)
{
	if (n) {
		c->any_data = true;
		c->send_now[dir] += n;
		if (c->run_dir == dir && ts - c->run_t1 < t->o.pause_ns) {
			c->run_bytes += n;
			c->run_t1 = ts;
		} else {
			script_msg(t, c);
			c->run_dir = (int8_t)dir;
			c->run_bytes = n;
			c->run_t0 = c->run_t1 = ts;
		}
	}
	if (push && c->send_now[dir]) { /* Linux pushes the last segment of each send */
		c->sizes[dir][applic_size_class(c->send_now[dir])]++;
		c->send_now[dir] = 0;
	}
}

void ac_tracker_packet(ac_tracker *t, const ap_packet *p, uint64_t ts, uint64_t frame)
{
	t->res->tcp_segments++;
	ac_key k;
	make_key(p, &k);
	uint32_t slot = GPOINTER_TO_UINT(g_hash_table_lookup(t->index, &k));
	if (!slot) {
		if (!(p->flags & AP_SYN) && !p->payload) {
			t->res->stray_segments++; /* an ACK, FIN or RST of a connection the capture lacks */
			return;
		}
		slot = new_conn(t, &k, p, ts, frame);
	} else if (t->slots[slot - 1].folded && (p->flags & AP_SYN) && !(p->flags & AP_ACK)) {
		drop_slot(t, slot); /* the same ports again: a new connection */
		slot = new_conn(t, &k, p, ts, frame);
	} else {
		lru_unlink(t, slot);
		lru_push(t, slot);
	}
	ac_conn *c = &t->slots[slot - 1];
	int dir = memcmp(p->src, c->ip[0], 16) == 0 && p->sport == c->port[0] ? 0 : 1;
	if (c->folded) {
		c->segs[dir]++; /* the last ACKs after the close */
		return;
	}
	if (ts > c->t_last)
		c->t_last = ts;
	c->seen[dir] = true;
	c->segs[dir]++;
	handshake_times(c, dir, p, ts);
	data(t, c, dir, new_bytes(t, c, dir, p, frame), p->flags & (AP_PSH | AP_FIN | AP_RST), ts);
	if ((p->flags & (AP_FIN | AP_RST)) && c->script >= 0) {
		ac_script *s = &t->scripts[c->script];
		if (s->closer < 0) {
			s->closer = (int8_t)dir;
			s->reset = p->flags & AP_RST;
		}
		s->closed[dir] = true;
	}
	if (p->flags & AP_FIN)
		c->fin[dir] = true;
	if (p->flags & AP_RST)
		c->rst = true;
	if ((c->fin[0] && c->fin[1]) || c->rst)
		end_conn(t, c);
}

void ac_tracker_finish(ac_tracker *t)
{
	while (t->lru_old) {
		uint32_t slot = t->lru_old;
		ac_conn *c = &t->slots[slot - 1];
		end_conn(t, c); /* open at the end of the capture: not an eviction */
		ac_fold(t, c);
		lru_unlink(t, slot);
		g_hash_table_remove(t->index, &t->keys[slot - 1]);
	}
	ac_dests_finish(t);
}

void ac_tracker_free(ac_tracker *t)
{
	for (size_t i = 0; i < t->n_scripts; i++)
		g_free(t->scripts[i].msgs);
	g_free(t->scripts);
	g_free(t->slots);
	g_free(t->keys);
	g_hash_table_destroy(t->index);
	g_hash_table_destroy(t->dest_index);
	g_free(t->dests);
	memset(t, 0, sizeof(*t));
}
