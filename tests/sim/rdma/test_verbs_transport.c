/* The verbs backend's edge, on any host: the translation tables from the libibverbs ABI
 * (enum values of <infiniband/verbs.h>, which this file deliberately does not include)
 * and the immediate, explanatory failure when a device does not exist. The operations
 * themselves run on a real device in the VM (tests/hw/verbs_selftest.c, make check-hw). */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "model/smcr_err.h"
#include "sim/rdma/verbs_transport.h"

/* enum ibv_wc_status: 0 SUCCESS … 23 TM_RNDV_INCOMPLETE (kernel uapi ib_user_verbs.h) */
Test(verbs_transport, every_verbs_completion_status_maps_and_only_success_succeeds)
{
	cr_assert_eq(verbs_map_wc_status(0), SMCR_WC_SUCCESS);
	for (int s = 1; s <= 23; s++)
		cr_assert_neq(verbs_map_wc_status(s), SMCR_WC_SUCCESS, "status %d", s);
	cr_assert_eq(verbs_map_wc_status(1), SMCR_WC_LOC_LEN_ERR);
	cr_assert_eq(verbs_map_wc_status(4), SMCR_WC_LOC_PROT_ERR);
	cr_assert_eq(verbs_map_wc_status(5), SMCR_WC_WR_FLUSH_ERR);
	cr_assert_eq(verbs_map_wc_status(8), SMCR_WC_LOC_PROT_ERR, "LOC_ACCESS_ERR");
	cr_assert_eq(verbs_map_wc_status(10), SMCR_WC_REM_ACCESS_ERR);
	cr_assert_eq(verbs_map_wc_status(11), SMCR_WC_REM_OP_ERR);
	cr_assert_eq(verbs_map_wc_status(12), SMCR_WC_RETRY_EXC_ERR);
	cr_assert_eq(verbs_map_wc_status(13), SMCR_WC_RNR_RETRY_EXC_ERR);
	cr_assert_eq(verbs_map_wc_status(20), SMCR_WC_RETRY_EXC_ERR, "RESP_TIMEOUT_ERR");
	cr_assert_eq(verbs_map_wc_status(21), SMCR_WC_GENERAL_ERR);
	cr_assert_eq(verbs_map_wc_status(999), SMCR_WC_GENERAL_ERR, "a status from a newer rdma-core");
}

/* enum ibv_event_type: 0 CQ_ERR, 1 QP_FATAL, 2 QP_REQ_ERR, 3 QP_ACCESS_ERR, 4 COMM_EST,
 * 8 DEVICE_FATAL, 9 PORT_ACTIVE, 10 PORT_ERR, 18 GID_CHANGE */
Test(verbs_transport, async_events_map_to_what_takes_a_link_down)
{
	smcr_async_event ev;
	cr_assert_eq(verbs_map_async_event(1, &ev), 1);
	cr_assert_eq(ev, SMCR_EV_QP_FATAL);
	cr_assert_eq(verbs_map_async_event(3, &ev), 1);
	cr_assert_eq(ev, SMCR_EV_QP_FATAL);
	cr_assert_eq(verbs_map_async_event(9, &ev), 1);
	cr_assert_eq(ev, SMCR_EV_PORT_ACTIVE);
	cr_assert_eq(verbs_map_async_event(10, &ev), 1);
	cr_assert_eq(ev, SMCR_EV_PORT_ERR);
	cr_assert_eq(verbs_map_async_event(8, &ev), 1);
	cr_assert_eq(ev, SMCR_EV_PORT_ERR);
	cr_assert_eq(verbs_map_async_event(18, &ev), 1);
	cr_assert_eq(ev, SMCR_EV_GID_CHANGE);
	cr_assert_eq(verbs_map_async_event(4, &ev), 0, "COMM_EST needs no action");
	cr_assert_eq(verbs_map_async_event(999, &ev), 0);
}

Test(verbs_transport, errnos_become_negative_smcr_codes)
{
	cr_assert_eq(verbs_map_errno(0, false), SMCR_ERR_OK);
	cr_assert_eq(verbs_map_errno(ENOMEM, true), SMCR_ERR_AGAIN, "a full send queue");
	cr_assert_eq(verbs_map_errno(ENOMEM, false), SMCR_ERR_NOMEM);
	cr_assert_eq(verbs_map_errno(EINVAL, false), SMCR_ERR_INVAL);
	cr_assert_eq(verbs_map_errno(ENODEV, false), SMCR_ERR_NOTFOUND);
	cr_assert_eq(verbs_map_errno(EIO, false), SMCR_ERR_TRANSPORT);
	for (int e = 1; e < 140; e++)
		cr_assert_lt(verbs_map_errno(e, false), 0, "errno %d", e);
}

Test(verbs_transport, a_missing_device_fails_at_once_and_says_how_to_create_one)
{
	verbs_transport *vt = verbs_transport_new(NULL, NULL);
	cr_assert_null(verbs_dev_open(vt, "smcr-no-such-dev"));
	int code = 0;
	const char *msg = verbs_transport_last_error(vt, &code);
	cr_assert_eq(code, SMCR_ERR_NOTFOUND);
	cr_assert(strstr(msg, "'smcr-no-such-dev'"), "names what it looked for: %s", msg);
	cr_assert(strstr(msg, "rxe-setup/rxe-host.sh"), "says how to create one: %s", msg);
	cr_assert(strstr(msg, "make check-hw"), "%s", msg);
	verbs_transport_free(vt);
}
