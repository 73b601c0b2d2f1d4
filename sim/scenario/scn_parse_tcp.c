/* The `tcp` statement of a stack block: the stack's default TCP socket buffers (z/OS
 * TCPCONFIG TCPSENDBFRSIZE / TCPRCVBUFRSIZE; Linux net.ipv4.tcp_wmem / tcp_rmem, whose
 * receive side Linux grows by itself up to tcp_rmem[2] while a connection streams: give
 * the size it grows to). */
#include "sim/scenario/scn_attrs.h"

static const scn_attr_spec tcp_specs[] = {
	{ "sndbuf", SCN_V_SIZE, 4096, 64ULL << 20, NULL, NULL, NULL, false },
	{ "rcvbuf", SCN_V_SIZE, 4096, 64ULL << 20, NULL, NULL, NULL, false },
};

void scn_stmt_tcp(scn_parser *P, const scn_stmt *st)
{
	size_t np = scn_attr_positionals(P, st, "tcp [sndbuf=SIZE] [rcvbuf=SIZE]");
	if (np == SIZE_MAX)
		return;
	if (np != 1) {
		scn_error(P->d, st->tok[1].loc, "unexpected word '%s'; expected key=value attributes after tcp",
		          scn_echo(P->d, st->tok[1].value));
		return;
	}
	scn_stack *s = P->block == SCN_NONE ? NULL : &P->scn->stacks[P->block];
	if (s && s->tcp_loc.line) {
		scn_error(P->d, st->loc, "repeated tcp statement (first at %u:%u); expected one per stack", s->tcp_loc.line,
		          s->tcp_loc.col);
		return;
	}
	scn_attrs a = { 0 };
	if (!scn_attr_collect(P, st, 1, tcp_specs, N_SPECS(tcp_specs), "tcp", &a))
		return;
	scn_val v;
	bool given;
	uint64_t snd = 0, rcv = 0;
	if (!scn_attr_get(P, &a, "sndbuf", NULL, SCN_PERS_LINUX, &v, &given))
		return;
	if (given)
		snd = v.u;
	if (!scn_attr_get(P, &a, "rcvbuf", NULL, SCN_PERS_LINUX, &v, &given))
		return;
	if (given)
		rcv = v.u;
	if (s) {
		s->tcp_sndbuf = snd;
		s->tcp_rcvbuf = rcv;
		s->tcp_loc = st->loc;
	}
}
