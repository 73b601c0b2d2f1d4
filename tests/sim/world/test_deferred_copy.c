/* Speed contract 1 (sim/fabric/speed_contracts.h) kept by a whole world: with the frame
 * pool checking every deferred copy, the SMC-R layer and the core tell the adapter before
 * they write memory a WRITE may still be sent from. (The mechanism:
 * tests/sim/fabric/test_deferred_copy.c; the adapter: tests/sim/rdma/test_deferred_copy.c.) */
#include <criterion/criterion.h>

#include "sim/fabric/fabric.h"
#include "sim/fabric/frame.h"
#include "sim/world/world.h"
#include "tests/support/scn_world.h"

/* Many connections streaming over one link, every deferred copy checked. */
Test(deferred_copy, the_layer_and_the_core_say_every_write_first)
{
	scn_world *t = scn_world_new("end 2s\n"
	                             "switch SW\n"
	                             "adapter RA pfid=0010 switch=SW\n"
	                             "adapter RB pfid=0020 switch=SW\n"
	                             "stack A\n  interface eth0 switch=SW ip=10.0.0.1/24\n  smcr pfid=0010\nend\n"
	                             "stack B\n  interface eth0 switch=SW ip=10.0.0.2/24\n  smcr pfid=0020\nend\n"
	                             "app sink B listen port=5000 kind=sink\n"
	                             "app bulk A connect B:5000 kind=bulk bytes=4M conns=4\n"
	                             "expect mode bulk == SMCR\n"
	                             "expect delivered bulk == 16M\n",
	                             NULL);
	sim_frame_pool *pool = sim_fabric_frames(world_fabric(t->w));
	sim_frame_pool_check_contracts(pool, true);
	unsigned long failed = scn_world_run(t);
	cr_assert_eq(failed, 0, "%lu expectations failed:\n%s", failed, scn_world_output(t));
	sim_frame_pool_stats st;
	sim_frame_pool_stats_get(pool, &st);
	cr_assert_gt(st.deferred, 1000, "payloads were left in the send buffers (%lu)", (unsigned long)st.deferred);
	scn_world_free(t);
}
