/* The SMC-R layer in the stacks (sim/smc/smc_layer.h), with full stacks over the simulated
 * fabric: TCP with the SMC option, CLC on the TCP stream, the core's link groups over
 * simulated RNICs, fallbacks with Linux's reasons. Each test is a small scenario built
 * by the world (sim/world/world.h); its expectations are checked by the run, the rest through
 * the stacks, layers and cores directly. */
#include <criterion/criterion.h>
#include <string.h>

#include "model/clc.h"
#include "sim/smc/smc_layer.h"
#include "sim/net/tcp.h"
#include "tests/support/scn_world.h"

#define TWO_STACKS(SRV_SMCR, CLI_SMCR)                                                            \
	"end 5s\n"                                                                                \
	"switch SW\n"                                                                             \
	"adapter RA pfid=0010 switch=SW\n"                                                        \
	"adapter RB pfid=0020 switch=SW\n"                                                        \
	"stack A\n  interface eth0 switch=SW ip=10.0.0.1/24\n  smcr pfid=0010\n" CLI_SMCR "end\n" \
	"stack B\n  interface eth0 switch=SW ip=10.0.0.2/24\n  smcr pfid=0020\n" SRV_SMCR "end\n"

static void run_ok(scn_world *t)
{
	unsigned long failed = scn_world_run(t);
	cr_assert_eq(failed, 0, "%lu expectations failed:\n%s", failed, scn_world_output(t));
}

Test(smc_layer, plain_tcp_when_smcr_is_disabled_on_the_server)
{
	scn_world *t = scn_world_new(TWO_STACKS("  smcr enable=no\n", "") "app sink B listen port=5000 kind=sink\n"
	                                                                  "app bulk A connect B:5000 kind=bulk bytes=3M conns=2\n"
	                                                                  "expect mode bulk == FALLBACK reason=PEERNOSMC\n"
	                                                                  "expect mode sink == TCP\n"
	                                                                  "expect delivered bulk == 6M\n"
	                                                                  "expect received sink == sent bulk\n"
	                                                                  "expect linkgroups A B == 0\n",
	                             NULL);
	run_ok(t);
	const tcp_counters *ca = tcp_get_counters(world_stack(t->w, "A"));
	cr_assert_eq(ca->smc_syn_sent, 2, "the client offered SMC in both SYNs");
	cr_assert_eq(ca->smc_negotiated, 0);
	cr_assert_eq(smc_layer_counters_get(world_layer(t->w, "A"))->clc_bytes_out, 0, "no CLC without the option");
	cr_assert_null(world_layer(t->w, "B"), "SMC-R disabled: no layer");
	scn_world_free(t);
}

Test(smc_layer, plain_tcp_when_smcr_is_disabled_on_the_client)
{
	scn_world *t = scn_world_new(TWO_STACKS("", "  smcr enable=no\n") "app echo B listen port=7 kind=echo\n"
	                                                                  "app ping A connect B:7 kind=echo bytes=1M\n"
	                                                                  "expect mode ping == TCP\n"
	                                                                  "expect mode echo == FALLBACK reason=PEERNOSMC\n"
	                                                                  "expect received ping == 1M\n"
	                                                                  "expect delivered ping == 1M\n"
	                                                                  "expect linkgroups B A == 0\n",
	                             NULL);
	run_ok(t);
	cr_assert_eq(tcp_get_counters(world_stack(t->w, "A"))->smc_syn_sent, 0);
	scn_world_free(t);
}

Test(smc_layer, smcr_is_established_with_the_option_and_clc)
{
	scn_world *t = scn_world_new(TWO_STACKS("", "") "app sink B listen port=5000 kind=sink\n"
	                                                "app bulk A connect B:5000 kind=bulk bytes=4M close=never\n"
	                                                "expect mode bulk == SMCR\n"
	                                                "expect mode sink == SMCR\n"
	                                                "expect delivered bulk == 4M\n"
	                                                "expect linkgroups A B == 1\n"
	                                                "expect links A B == 1\n",
	                             NULL);
	run_ok(t);
	const tcp_counters *ca = tcp_get_counters(world_stack(t->w, "A"));
	cr_assert_eq(ca->smc_negotiated, 1, "SYN and SYN-ACK carried the option");
	const smc_layer_counters *la = smc_layer_counters_get(world_layer(t->w, "A"));
	const smc_layer_counters *lb = smc_layer_counters_get(world_layer(t->w, "B"));
	cr_assert_eq(la->established, 1);
	cr_assert_eq(lb->established, 1);
	/* Proposal + Confirm from the client, Accept from the server (v2 format, Linux sizes) */
	cr_assert_gt(la->clc_bytes_out, 100);
	cr_assert_eq(la->clc_bytes_out, lb->clc_bytes_in);
	cr_assert_eq(lb->clc_bytes_out, la->clc_bytes_in);
	/* the data went over RDMA: TCP carried little more than the CLC messages, and the
	 * TCP connection is still open (idle) under SMC-R */
	cr_assert_lt(ca->bytes_out, 4096, "TCP carried %llu bytes", (unsigned long long)ca->bytes_out);
	smcr_stats st;
	smcr_ctx_get_stats(smc_layer_ctx(world_layer(t->w, "A")), &st);
	cr_assert_eq(st.tx_bytes, 4u << 20);
	cr_assert_eq(st.clnt_v1_succ, 1);
	cr_assert_geq(tcp_pcb_count(world_stack(t->w, "A")), 1);
	scn_world_free(t);
}

typedef struct lgr_seen {
	int n;
	uint16_t vlan[8];
	uint32_t conns[8];
	uint32_t links[8];
	uint8_t version[8];
} lgr_seen;

static void note_lgr(void *arg, const smcr_lgr_info *li)
{
	lgr_seen *s = arg;
	if (s->n < 8) {
		s->vlan[s->n] = li->vlan_id;
		s->conns[s->n] = li->conns_num;
		s->links[s->n] = li->n_links;
		s->version[s->n] = li->version;
	}
	s->n++;
}

Test(smc_layer, later_connections_reuse_the_link)
{
	scn_world *t = scn_world_new(TWO_STACKS("", "") "app rrsrv B listen port=9000 kind=responder\n"
	                                                "app rr A connect B:9000 kind=rr request=100 response=1K count=20 conns=3 interval=10ms "
	                                                "close=never\n"
	                                                "at 1s expect linkgroups A B == 1\n"
	                                                "at 1s expect links A B == 1\n"
	                                                "at 1s expect conns A B == 3\n"
	                                                "expect mode rr == SMCR\n"
	                                                "expect received rr == 60K\n",
	                             NULL);
	run_ok(t);
	lgr_seen s = { 0 };
	smcr_ctx_foreach_lgr(smc_layer_ctx(world_layer(t->w, "A")), note_lgr, &s);
	cr_assert_eq(s.n, 1);
	cr_assert_eq(s.conns[0], 3);
	cr_assert_eq(s.links[0], 1);
	smcr_stats st;
	smcr_ctx_get_stats(smc_layer_ctx(world_layer(t->w, "B")), &st);
	cr_assert_eq(st.srv_v1_succ, 3);
	scn_world_free(t);
}

Test(smc_layer, different_vlans_get_different_link_groups)
{
	scn_world *t = scn_world_new("end 5s\n"
	                             "switch SW vlans=10,20\n"
	                             "adapter RA pfid=0010 switch=SW\n"
	                             "adapter RB pfid=0020 switch=SW\n"
	                             "stack A\n"
	                             "  interface v10 switch=SW ip=10.1.10.1/24 vlan=10\n"
	                             "  interface v20 switch=SW ip=10.1.20.1/24 vlan=20\n"
	                             "  smcr pfid=0010\nend\n"
	                             "stack B\n"
	                             "  interface v10 switch=SW ip=10.1.10.2/24 vlan=10\n"
	                             "  interface v20 switch=SW ip=10.1.20.2/24 vlan=20\n"
	                             "  smcr pfid=0020\nend\n"
	                             "app sink B listen port=5000 kind=sink\n"
	                             "app on10 A connect B.v10:5000 kind=bulk bytes=1M close=never\n"
	                             "app on20 A connect B.v20:5000 kind=bulk bytes=1M close=never start=100ms\n"
	                             "expect linkgroups A B == 2\n"
	                             "expect mode on10 == SMCR\n"
	                             "expect mode on20 == SMCR\n"
	                             "expect delivered on10 == 1M\n"
	                             "expect delivered on20 == 1M\n",
	                             NULL);
	run_ok(t);
	lgr_seen s = { 0 };
	smcr_ctx_foreach_lgr(smc_layer_ctx(world_layer(t->w, "A")), note_lgr, &s);
	cr_assert_eq(s.n, 2);
	cr_assert_eq(s.vlan[0], 10);
	cr_assert_eq(s.vlan[1], 20);
	cr_assert_eq(s.conns[0], 1);
	cr_assert_eq(s.conns[1], 1);
	scn_world_free(t);
}

#define ROUTED(V2_CLIENT, V2_SERVER)                                                                                                 \
	"end 5s\n"                                                                                                                   \
	"switch NET1\nswitch NET2\n"                                                                                                 \
	"adapter RA pfid=0001 switch=NET1\nadapter RB pfid=0002 switch=NET2\n"                                                       \
	"stack C\n  interface eth0 switch=NET1 ip=10.1.0.1/24\n  route default via=10.1.0.254\n  smcr pfid=0001\n" V2_CLIENT "end\n" \
	"stack R\n  interface n1 switch=NET1 ip=10.1.0.254/24\n  interface n2 switch=NET2 ip=10.2.0.254/24\n"                        \
	"  forwarding on\n  smcr enable=no\nend\n"                                                                                   \
	"stack S\n  interface eth0 switch=NET2 ip=10.2.0.1/24\n  route default via=10.2.0.254\n  smcr pfid=0002\n" V2_SERVER "end\n" \
	"app rrsrv S listen port=8000 kind=responder\n"                                                                              \
	"app rr C connect S:8000 kind=rr request=128 response=1K count=50 close=never\n"

static void find_client_conn(scn_world *t, const char *stack_name, report_conn *out)
{
	smcr_report r;
	report_init(&r);
	world_fill_report(t->w, &r, scn_find_stack(t->scn, stack_name));
	cr_assert_eq(r.n_conns, 1, "%s has %zu connections", stack_name, r.n_conns);
	*out = r.conns[0];
	report_free(&r);
}

Test(smc_layer, different_subnets_without_v2_fall_back_with_the_linux_reason)
{
	scn_world *t = scn_world_new(ROUTED("  smcr v2=no\n", "  smcr v2=no\n") "expect mode rr == FALLBACK reason=PEERDECL\n"
	                                                                        "expect mode rrsrv == FALLBACK reason=DIFFPREFIX\n"
	                                                                        "expect fallback S == 1 reason=DIFFPREFIX\n"
	                                                                        "expect received rr == 50K\n"
	                                                                        "expect linkgroups C S == 0\n",
	                             NULL);
	run_ok(t);
	report_conn c;
	find_client_conn(t, "C", &c);
	cr_assert_eq(c.mode, REPORT_MODE_TCP);
	cr_assert_eq(c.fallback_reason, SMCR_DECL_PEERDECL);
	cr_assert_eq(c.peer_diagnosis, SMCR_DECL_DIFFPREFIX, "smcss shows the server's decline code");
	scn_world_free(t);
}

Test(smc_layer, smcr_v2_crosses_subnets_over_routed_rocev2_with_a_common_ueid)
{
	scn_world *t = scn_world_new(ROUTED("  smcr v2=yes ueid=SIM.V2\n", "  smcr v2=yes ueid=OTHER,SIM.V2\n") "expect mode rr == SMCR\n"
	                                                                                                        "expect received rr == 50K\n"
	                                                                                                        "expect linkgroups C S == 1\n",
	                             NULL);
	run_ok(t);
	lgr_seen s = { 0 };
	smcr_ctx_foreach_lgr(smc_layer_ctx(world_layer(t->w, "C")), note_lgr, &s);
	cr_assert_eq(s.n, 1);
	cr_assert_eq(s.version[0], 2);
	/* the router forwarded RoCE v2 to the stacks' interfaces; the layers handed them on */
	cr_assert_gt(smc_layer_counters_get(world_layer(t->w, "C"))->steered_frames, 0);
	cr_assert_gt(smc_layer_counters_get(world_layer(t->w, "S"))->steered_frames, 0);
	cr_assert_gt(world_stack(t->w, "R")->ip.forwarded, 100);
	scn_world_free(t);
}

Test(smc_layer, smcr_v2_without_a_common_ueid_falls_back)
{
	scn_world *t = scn_world_new(ROUTED("  smcr v2=yes ueid=SIM.ONE\n", "  smcr v2=yes ueid=SIM.TWO\n") "expect mode rr == FALLBACK\n"
	                                                                                                    "expect received rr == 50K\n"
	                                                                                                    "expect linkgroups C S == 0\n",
	                             NULL);
	run_ok(t);
	scn_world_free(t);
}

typedef struct port_id {
	uint8_t mac[6];
	uint8_t gid[16];
} port_id;

Test(smc_layer, a_fourth_stack_sharing_a_physical_adapter_gets_its_own_vmac_and_gid)
{
	scn_world *t = scn_world_new("end 3s\n"
	                             "switch SW\n"
	                             "adapter SHR pfid=0050 switch=SW\n"
	                             "stack L1 personality=zos\n  interface o switch=SW ip=172.16.1.1/24\n  smcr pfid=0050\nend\n"
	                             "stack L2 personality=zos\n  interface o switch=SW ip=172.16.1.2/24\n  smcr pfid=0050\nend\n"
	                             "stack L3 personality=zos\n  interface o switch=SW ip=172.16.1.3/24\n  smcr pfid=0050\nend\n"
	                             "stack L4 personality=zos\n  interface o switch=SW ip=172.16.1.4/24\n  smcr pfid=0050\nend\n"
	                             "app srv L4 listen port=446 kind=responder\n"
	                             "app c1 L1 connect L4:446 kind=rr request=300 response=2K count=100\n"
	                             "app c3 L3 connect L4:446 kind=rr request=300 response=2K count=100\n"
	                             "expect mode c1 == SMCR\n"
	                             "expect mode c3 == SMCR\n"
	                             "expect received c1 == 200K\n"
	                             "expect received c3 == 200K\n"
	                             "expect linkgroups L4 L1 == 1\n"
	                             "expect linkgroups L4 L3 == 1\n",
	                             NULL);
	run_ok(t);
	const char *names[4] = { "L1", "L2", "L3", "L4" };
	port_id ids[4];
	for (int i = 0; i < 4; i++) {
		smc_layer *l = world_layer(t->w, names[i]);
		cr_assert_eq(smc_layer_n_ports(l), 1);
		const smc_layer_port *p = smc_layer_port_get(l, 0);
		cr_assert_eq(rnic_pfid(p->adapter), 0x0050);
		const smcr_port_desc *d = smcr_ctx_port(smc_layer_ctx(l), p->port_index);
		cr_assert_str_eq(d->name, "EZARIUT10050", "z/OS names the RNIC interface by port and PFID");
		memcpy(ids[i].mac, d->mac, 6);
		cr_assert_eq(d->gids[0].type, SMCR_GID_ROCE_V1);
		memcpy(ids[i].gid, d->gids[0].gid, 16);
		cr_assert_eq(d->mac[0] & 0x02, 0x02, "a locally administered VMAC");
	}
	for (int i = 0; i < 4; i++)
		for (int k = i + 1; k < 4; k++) {
			cr_assert_neq(memcmp(ids[i].mac, ids[k].mac, 6), 0, "%s and %s share a VMAC", names[i], names[k]);
			cr_assert_neq(memcmp(ids[i].gid, ids[k].gid, 16), 0, "%s and %s share a GID", names[i], names[k]);
		}
	/* the system ids (derived from the first VMAC) differ too: peers tell them apart */
	cr_assert_neq(memcmp(smcr_ctx_system_id(smc_layer_ctx(world_layer(t->w, "L1"))),
	                     smcr_ctx_system_id(smc_layer_ctx(world_layer(t->w, "L3"))), 8),
	              0);
	scn_world_free(t);
}

Test(smc_layer, tcp_under_loss_still_delivers_every_byte_once)
{
	/* time enough: under 2 % loss TCP waits out many 200 ms retransmission timeouts, and
	 * how many depends on which frames the seed loses (10 to 20 s for these 8 MB) */
	scn_world *t = scn_world_new("end 60s\n"
	                             "switch SW\n"
	                             "stack A\n  interface eth0 switch=SW ip=10.0.0.1/24 loss=1/50 dup=1/200 reorder=1/100\n"
	                             "end\n"
	                             "stack B\n  interface eth0 switch=SW ip=10.0.0.2/24 loss=1/50\nend\n"
	                             "app sink B listen port=5000 kind=sink\n"
	                             "app bulk A connect B:5000 kind=bulk bytes=4M conns=2 smc=no\n"
	                             "expect mode bulk == TCP\n"
	                             "expect sent bulk == 8M\n"
	                             "expect delivered bulk == 8M\n"
	                             "expect received sink == 8M\n"
	                             "expect aborted == 0\n",
	                             NULL);
	run_ok(t);
	const tcp_counters *ca = tcp_get_counters(world_stack(t->w, "A"));
	cr_assert_gt(ca->retransmits, 10, "the loss was real: %llu retransmissions", (unsigned long long)ca->retransmits);
	scn_world_free(t);
}

Test(smc_layer, the_fixed_memory_cap_makes_new_connections_fall_back)
{
	scn_world *t = scn_world_new(TWO_STACKS("  smcr fixedmemory=200K rmbsize=64K sndbufsize=64K\n", "") "app rrsrv B listen port=9000 kind=responder\n"
	                                                                                                    "app rr A connect B:9000 kind=rr request=64 response=64 count=10 conns=3 interval=50ms "
	                                                                                                    "close=never\n"
	                                                                                                    "expect mode rr.1 == SMCR\n"
	                                                                                                    "expect mode rr.2 == FALLBACK reason=PEERDECL\n"
	                                                                                                    "expect mode rr.3 == FALLBACK reason=PEERDECL\n"
	                                                                                                    "expect fallback B == 2 reason=MEM\n"
	                                                                                                    "expect received rr == 1920\n",
	                             NULL);
	run_ok(t);
	cr_assert_geq(smc_layer_counters_get(world_layer(t->w, "B"))->mem_refused, 2);
	scn_world_free(t);
}

Test(smc_layer, an_excluded_port_never_uses_smcr)
{
	scn_world *t = scn_world_new(TWO_STACKS("", "") "app s1 B listen port=5000 kind=sink\n"
	                                                "app s2 B listen port=5001 kind=sink\n"
	                                                "app to1 A connect B:5000 kind=bulk bytes=1M start=10ms\n"
	                                                "app to2 A connect B:5001 kind=bulk bytes=1M start=10ms\n"
	                                                "expect mode to1 == FALLBACK reason=PEERNOSMC\n"
	                                                "expect mode to2 == SMCR\n"
	                                                "expect delivered to1 == 1M\n"
	                                                "expect delivered to2 == 1M\n",
	                             NULL);
	/* z/OS PORT 5000 TCP ... NOSMCR: the listener answers without the SMC option */
	cr_assert_eq(smcr_config_exclude_port(stack_smcr(world_stack(t->w, "B")), 5000), 0);
	run_ok(t);
	scn_world_free(t);
}

static void count_conn(void *arg, const smc_layer_conn *c)
{
	(void)c;
	(*(int *)arg)++;
}

Test(smc_layer, closing_the_smc_connection_closes_its_tcp_connection)
{
	scn_world *t = scn_world_new(TWO_STACKS("", "") "app sink B listen port=5000 kind=sink\n"
	                                                "app bulk A connect B:5000 kind=bulk bytes=1M\n"
	                                                "expect mode bulk == SMCR\n"
	                                                "expect delivered bulk == 1M\n",
	                             NULL);
	world_run_until(t->w, 200 * SIM_MS);
	stack *a = world_stack(t->w, "A"), *b = world_stack(t->w, "B");
	/* done and closed: both TCP connections went through FIN (TIME_WAIT on the side that
	 * closed first), the layers hold nothing */
	const tcp_counters *ca = tcp_get_counters(a);
	cr_assert_eq(ca->rst_out + tcp_get_counters(b)->rst_out, 0, "an orderly close, no reset");
	int held = 0;
	smc_layer_foreach_conn(world_layer(t->w, "A"), count_conn, &held);
	smc_layer_foreach_conn(world_layer(t->w, "B"), count_conn, &held);
	cr_assert_eq(held, 0, "the layers still track %d connections", held);
	cr_assert_eq(world_finish(t->w), 0, "%s", scn_world_output(t));
	/* TIME_WAIT is over after 2 MSL (60 s on Linux); the run ended at 5 s */
	cr_assert_leq(tcp_pcb_count(a) + tcp_pcb_count(b), 2);
	scn_world_free(t);
}

/* Two adapter pairs on two networks, SMC-Rv2; PREFIX is both interfaces' prefix length. */
#define V2_TWO_NETWORKS(PREFIX)                                                                \
	"end 2s\n"                                                                             \
	"switch SWA\nswitch SWB\n"                                                             \
	"adapter R1A pfid=0011 switch=SWA roce=v2\nadapter R1B pfid=0012 switch=SWB roce=v2\n" \
	"adapter R2A pfid=0021 switch=SWA roce=v2\nadapter R2B pfid=0022 switch=SWB roce=v2\n" \
	"stack A personality=linux\n  interface eth0 switch=SWA ip=10.9.1.1/" PREFIX "\n"      \
	"  interface eth1 switch=SWB ip=10.9.2.1/" PREFIX "\n"                                 \
	"  smcr pfid=0011\n  smcr pfid=0012\n  smcr v2=yes ueid=SMCSIM.TWO.NETS\nend\n"        \
	"stack B personality=linux\n  interface eth0 switch=SWA ip=10.9.1.2/" PREFIX "\n"      \
	"  interface eth1 switch=SWB ip=10.9.2.2/" PREFIX "\n"                                 \
	"  smcr pfid=0021\n  smcr pfid=0022\n  smcr v2=yes ueid=SMCSIM.TWO.NETS\nend\n"        \
	"app sink B listen port=5000 kind=sink\n"                                              \
	"app bulk A connect B.eth0:5000 kind=bulk bytes=1M conns=2 close=never\n"              \
	"expect mode bulk == SMCR\n"                                                           \
	"expect delivered bulk == 2M\n"

typedef struct one_lgr {
	unsigned n;
	smcr_lgr_info info;
} one_lgr;

static void keep_one_lgr(void *arg, const smcr_lgr_info *i)
{
	one_lgr *s = arg;
	s->n++;
	s->info = *i;
}

static void v2_gid_of_port(const smc_layer *l, size_t i, uint32_t *addr, size_t *n_v2)
{
	const smc_layer_port *p = smc_layer_port_get(l, i);
	cr_assert_not_null(p);
	smcr_port_desc d;
	rnic_vf_port_desc(p->vf, p->port, &d);
	*n_v2 = 0;
	for (uint32_t k = 0; k < d.n_gids; k++) {
		if (d.gids[k].type != SMCR_GID_ROCE_V2)
			continue;
		(*n_v2)++;
		*addr = (uint32_t)d.gids[k].gid[12] << 24 | (uint32_t)d.gids[k].gid[13] << 16 |
		        (uint32_t)d.gids[k].gid[14] << 8 | d.gids[k].gid[15];
	}
}

Test(smc_layer, a_port_has_v2_gids_only_for_the_interfaces_on_its_network)
{
	scn_world *t = scn_world_new(V2_TWO_NETWORKS("16"), NULL);
	const smc_layer *l = world_layer(t->w, "A");
	cr_assert_eq(smc_layer_n_ports(l), 2);
	uint32_t a0 = 0, a1 = 0;
	size_t n0, n1;
	v2_gid_of_port(l, 0, &a0, &n0);
	v2_gid_of_port(l, 1, &a1, &n1);
	cr_assert_eq(n0, 1, "one v2 GID per port, not one per interface of the stack");
	cr_assert_eq(n1, 1);
	cr_assert_eq(a0, 0x0A090101u, "R1A (SWA): eth0's address");
	cr_assert_eq(a1, 0x0A090201u, "R1B (SWB): eth1's address");
	scn_world_free(t);
}

Test(smc_layer, v2_ports_on_two_networks_in_one_subnet_form_a_symmetric_link_group)
{
	scn_world *t = scn_world_new(V2_TWO_NETWORKS("16") "expect links A B == 2\n", NULL);
	run_ok(t);
	for (int side = 0; side < 2; side++) {
		one_lgr s = { 0 };
		smcr_ctx_foreach_lgr(smc_layer_ctx(world_layer(t->w, side ? "B" : "A")), keep_one_lgr, &s);
		cr_assert_eq(s.n, 1);
		cr_assert_eq(s.info.version, 2);
		cr_assert_eq(s.info.type, SMCR_LGR_SYMMETRIC, "side %d: type %d, not asymmetric", side, s.info.type);
		cr_assert_eq(s.info.n_links, 2);
		smcr_link_info l1, l2;
		const smcr_ctx *ctx = smc_layer_ctx(world_layer(t->w, side ? "B" : "A"));
		cr_assert_eq(smcr_ctx_link_info(ctx, s.info.link_ids[0], &l1), 0);
		cr_assert_eq(smcr_ctx_link_info(ctx, s.info.link_ids[1], &l2), 0);
		cr_assert_neq(memcmp(l1.local_gid, l2.local_gid, 16), 0, "each link has its own port's GID");
		cr_assert_neq(memcmp(l1.peer_gid, l2.peer_gid, 16), 0);
		cr_assert_neq(l1.port_index, l2.port_index);
	}
	scn_world_free(t);
}

/* Linux (smc_llc_srv_add_link / smc_fill_gid_list -> smc_pnet_find_alt_roce with the
 * lgr's source address -> smc_ib_determine_gid_rcu) takes no alternate port whose netdev
 * has no address in that subnet; the client rejects an ADD_LINK it cannot serve. */
Test(smc_layer, v2_ports_on_two_networks_in_two_subnets_keep_one_link)
{
	scn_world *t = scn_world_new(V2_TWO_NETWORKS("24") "expect links A B == 1\n", NULL);
	run_ok(t);
	one_lgr s = { 0 };
	smcr_ctx_foreach_lgr(smc_layer_ctx(world_layer(t->w, "A")), keep_one_lgr, &s);
	cr_assert_eq(s.n, 1);
	cr_assert_eq(s.info.type, SMCR_LGR_SINGLE);
	scn_world_free(t);
}
