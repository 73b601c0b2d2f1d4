/* smcr_transport_ops on libibverbs (see verbs_transport.h). The only file that includes
 * <infiniband/verbs.h>: verbs types, errnos and NULL returns stop here and become the
 * transport interface's vocabulary and negative SMCR_ERR_* codes. */
#include "sim/rdma/verbs_transport.h"

#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <infiniband/verbs.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/smcr_err.h"
#include "sim/rdma/gid_table.h"

/* Linux SMC-R's CQ size (smc_ib.c), capped by what the device offers. */
#define VERBS_CQ_ENTRIES 32766
#define VERBS_POLL_BATCH 16

static const char create_hint[] =
        "Create a Soft-RoCE device with 'rxe-setup/rxe-host.sh up IFACE' on a Linux host whose "
        "kernel has rdma_rxe, or run the real-hardware tests in a VM with 'make check-hw' "
        "(see docs/real-hw.md).";

struct verbs_transport {
	verbs_sink sink;
	void *user;
	GPtrArray *devs; /* smcr_tp_dev *, in opening order */
	int last_code;
	char last_msg[512];
	bool trace; /* SMCR_VERBS_TRACE set: async events and failed completions to stderr */
};

/* A failed receive completion held back by poll_cq() (see verbs_dev_process()). */
typedef struct held_wc {
	uint64_t wr_id;
	uint32_t qp_num;
	enum ibv_wc_status status;
} held_wc;

struct smcr_tp_dev {
	char name[IBV_SYSFS_NAME_MAX];
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_comp_channel *channel;
	struct ibv_cq *send_cq;
	struct ibv_cq *recv_cq;
	uint8_t port_count;
	GHashTable *qps; /* qp_num → smcr_tp_qp *: completions name their QP by number */
	GPtrArray *mrs;  /* smcr_tp_mr * still registered */
	GArray *held;    /* held_wc: failed receive completions of one verbs_dev_process() pass */
	bool processing; /* in verbs_dev_process(): a nested call holds its own */
	uint64_t send_notifies, recv_notifies;
};

struct smcr_tp_qp {
	struct ibv_qp *qp;
	smcr_tp_dev *dev;
	uint8_t port;
	void *ctx;
	uint32_t max_inline;
};

struct smcr_tp_mr {
	struct ibv_mr *mr;
	smcr_tp_dev *dev;
};

/* Errors ------------------------------------------------------------------------- */

__attribute__((format(printf, 3, 4))) static int fail(verbs_transport *vt, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(vt->last_msg, sizeof vt->last_msg, fmt, ap);
	va_end(ap);
	vt->last_code = code;
	return code;
}

int verbs_map_errno(int errnum, bool queue_op)
{
	switch (errnum) {
	case 0:
		return SMCR_ERR_OK;
	case ENOMEM:
		return queue_op ? SMCR_ERR_AGAIN : SMCR_ERR_NOMEM;
	case EINVAL:
	case EOPNOTSUPP:
		return SMCR_ERR_INVAL;
	case EAGAIN:
	case EBUSY:
		return SMCR_ERR_AGAIN;
	case ENOENT:
	case ENODEV:
	case ENXIO:
	case ENOSYS:
		return SMCR_ERR_NOTFOUND;
	case ENOSPC:
	case EMFILE:
	case ENFILE:
		return SMCR_ERR_LIMIT;
	default:
		return SMCR_ERR_TRANSPORT;
	}
}

const char *verbs_transport_last_error(const verbs_transport *vt, int *code)
{
	if (code)
		*code = vt->last_code;
	return vt->last_msg;
}

/* Translation tables --------------------------------------------------------------- */

smcr_wc_status verbs_map_wc_status(int status)
{
	switch ((enum ibv_wc_status)status) {
	case IBV_WC_SUCCESS:
		return SMCR_WC_SUCCESS;
	case IBV_WC_LOC_LEN_ERR:
		return SMCR_WC_LOC_LEN_ERR;
	case IBV_WC_LOC_QP_OP_ERR:
	case IBV_WC_LOC_EEC_OP_ERR:
	case IBV_WC_INV_EECN_ERR:
	case IBV_WC_INV_EEC_STATE_ERR:
		return SMCR_WC_LOC_QP_OP_ERR;
	case IBV_WC_LOC_PROT_ERR:
	case IBV_WC_LOC_ACCESS_ERR:
	case IBV_WC_LOC_RDD_VIOL_ERR:
	case IBV_WC_MW_BIND_ERR:
		return SMCR_WC_LOC_PROT_ERR;
	case IBV_WC_WR_FLUSH_ERR:
		return SMCR_WC_WR_FLUSH_ERR;
	case IBV_WC_REM_INV_REQ_ERR:
	case IBV_WC_REM_INV_RD_REQ_ERR:
		return SMCR_WC_REM_INV_REQ_ERR;
	case IBV_WC_REM_ACCESS_ERR:
		return SMCR_WC_REM_ACCESS_ERR;
	case IBV_WC_REM_OP_ERR:
	case IBV_WC_REM_ABORT_ERR:
	case IBV_WC_BAD_RESP_ERR:
		return SMCR_WC_REM_OP_ERR;
	case IBV_WC_RETRY_EXC_ERR:
	case IBV_WC_RESP_TIMEOUT_ERR: /* no response in time: the peer is as good as gone */
		return SMCR_WC_RETRY_EXC_ERR;
	case IBV_WC_RNR_RETRY_EXC_ERR:
		return SMCR_WC_RNR_RETRY_EXC_ERR;
	case IBV_WC_FATAL_ERR:
	case IBV_WC_GENERAL_ERR:
	case IBV_WC_TM_ERR:
	case IBV_WC_TM_RNDV_INCOMPLETE:
		return SMCR_WC_GENERAL_ERR;
	}
	return SMCR_WC_GENERAL_ERR; /* a status newer than this code */
}

int verbs_map_async_event(int type, smcr_async_event *out)
{
	switch ((enum ibv_event_type)type) {
	/* Linux smc_ib_qp_event_handler takes these down; a QP error is a QP error */
	case IBV_EVENT_QP_FATAL:
	case IBV_EVENT_QP_REQ_ERR:
	case IBV_EVENT_QP_ACCESS_ERR:
		*out = SMCR_EV_QP_FATAL;
		return 1;
	case IBV_EVENT_PORT_ACTIVE:
		*out = SMCR_EV_PORT_ACTIVE;
		return 1;
	case IBV_EVENT_PORT_ERR:
	case IBV_EVENT_DEVICE_FATAL: /* reported as an error on every port */
	case IBV_EVENT_CQ_ERR:       /* a broken shared CQ stops every link on the device */
		*out = SMCR_EV_PORT_ERR;
		return 1;
	case IBV_EVENT_GID_CHANGE:
		*out = SMCR_EV_GID_CHANGE;
		return 1;
	case IBV_EVENT_COMM_EST:
	case IBV_EVENT_SQ_DRAINED:
	case IBV_EVENT_PATH_MIG:
	case IBV_EVENT_PATH_MIG_ERR:
	case IBV_EVENT_LID_CHANGE:
	case IBV_EVENT_PKEY_CHANGE:
	case IBV_EVENT_SM_CHANGE:
	case IBV_EVENT_SRQ_ERR:
	case IBV_EVENT_SRQ_LIMIT_REACHED:
	case IBV_EVENT_QP_LAST_WQE_REACHED:
	case IBV_EVENT_CLIENT_REREGISTER:
	case IBV_EVENT_WQ_FATAL: /* WQs (RSS) are never created here */
		return 0;
	}
	return 0;
}

/* Devices ------------------------------------------------------------------------ */

verbs_transport *verbs_transport_new(const verbs_sink *sink, void *user)
{
	verbs_transport *vt = g_new0(verbs_transport, 1);
	if (sink)
		vt->sink = *sink;
	vt->user = user;
	vt->devs = g_ptr_array_new();
	vt->trace = getenv("SMCR_VERBS_TRACE") != NULL;
	return vt;
}

/* Names of the RDMA devices present, comma-separated ("" if none); returns 0, or a
 * negative SMCR_ERR_* when libibverbs cannot list devices at all. */
static int verbs_list_devices(char *out, size_t outlen)
{
	int n = 0;
	if (outlen > 0)
		out[0] = '\0';
	struct ibv_device **list = ibv_get_device_list(&n);
	if (!list)
		return verbs_map_errno(errno, false);
	size_t used = 0;
	for (int i = 0; i < n && used < outlen; i++) {
		int w = snprintf(out + used, outlen - used, "%s%s", i ? ", " : "", ibv_get_device_name(list[i]));
		if (w < 0)
			break;
		used += (size_t)w;
	}
	ibv_free_device_list(list);
	return 0;
}

static int set_nonblocking(int fd)
{
	int flags = fcntl(fd, F_GETFL);
	return flags < 0 ? -1 : fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

static void free_qp(void *p)
{
	smcr_tp_qp *qp = p;
	ibv_destroy_qp(qp->qp);
	g_free(qp);
}

static void dev_release(smcr_tp_dev *dev)
{
	if (dev->qps)
		g_hash_table_destroy(dev->qps); /* destroys the QPs still there */
	if (dev->mrs) {
		for (guint i = 0; i < dev->mrs->len; i++) {
			smcr_tp_mr *mr = g_ptr_array_index(dev->mrs, i);
			ibv_dereg_mr(mr->mr);
			g_free(mr);
		}
		g_ptr_array_free(dev->mrs, TRUE);
	}
	if (dev->held)
		g_array_free(dev->held, TRUE);
	if (dev->send_cq)
		ibv_destroy_cq(dev->send_cq);
	if (dev->recv_cq)
		ibv_destroy_cq(dev->recv_cq);
	if (dev->channel)
		ibv_destroy_comp_channel(dev->channel);
	if (dev->pd)
		ibv_dealloc_pd(dev->pd);
	if (dev->ctx)
		ibv_close_device(dev->ctx);
	g_free(dev);
}

/* Solicited completions only, as Linux SMC-R arms its receive CQ. */
static int arm_recv_cq(smcr_tp_dev *dev)
{
	return ibv_req_notify_cq(dev->recv_cq, 1);
}

smcr_tp_dev *verbs_dev_open(verbs_transport *vt, const char *name)
{
	int n = 0;
	struct ibv_device **list = ibv_get_device_list(&n);
	if (!list) {
		int e = errno;
		fail(vt, SMCR_ERR_NOTFOUND,
		     "no RDMA device '%s': libibverbs cannot list devices (%s)%s. %s", name, strerror(e),
		     e == ENOSYS ? "; this kernel has no RDMA support (/sys/class/infiniband is missing)" : "",
		     create_hint);
		return NULL;
	}
	struct ibv_device *found = NULL;
	for (int i = 0; i < n && !found; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			found = list[i];
	if (!found) {
		char names[256];
		ibv_free_device_list(list);
		verbs_list_devices(names, sizeof names);
		fail(vt, SMCR_ERR_NOTFOUND, "no RDMA device '%s' (devices present: %s). %s", name,
		     names[0] ? names : "none", create_hint);
		return NULL;
	}

	smcr_tp_dev *dev = g_new0(smcr_tp_dev, 1);
	g_strlcpy(dev->name, name, sizeof dev->name);
	dev->ctx = ibv_open_device(found);
	ibv_free_device_list(list);
	if (!dev->ctx) {
		fail(vt, verbs_map_errno(errno, false), "ibv_open_device(%s): %s", name, strerror(errno));
		goto err;
	}
	struct ibv_device_attr da;
	int rc = ibv_query_device(dev->ctx, &da);
	if (rc) {
		fail(vt, verbs_map_errno(rc, false), "ibv_query_device(%s): %s", name, strerror(rc));
		goto err;
	}
	dev->port_count = da.phys_port_cnt;
	int cqe = da.max_cqe < VERBS_CQ_ENTRIES ? da.max_cqe : VERBS_CQ_ENTRIES;
	if (!(dev->pd = ibv_alloc_pd(dev->ctx))) {
		fail(vt, verbs_map_errno(errno, false), "ibv_alloc_pd(%s): %s", name, strerror(errno));
		goto err;
	}
	if (!(dev->channel = ibv_create_comp_channel(dev->ctx))) {
		fail(vt, verbs_map_errno(errno, false), "ibv_create_comp_channel(%s): %s", name, strerror(errno));
		goto err;
	}
	dev->send_cq = ibv_create_cq(dev->ctx, cqe, dev, dev->channel, 0);
	dev->recv_cq = dev->send_cq ? ibv_create_cq(dev->ctx, cqe, dev, dev->channel, 0) : NULL;
	if (!dev->recv_cq) {
		fail(vt, verbs_map_errno(errno, false), "ibv_create_cq(%s, %d entries): %s", name, cqe, strerror(errno));
		goto err;
	}
	if (set_nonblocking(dev->channel->fd) || set_nonblocking(dev->ctx->async_fd)) {
		fail(vt, SMCR_ERR_TRANSPORT, "fcntl(O_NONBLOCK) on %s's descriptors: %s", name, strerror(errno));
		goto err;
	}
	if ((rc = ibv_req_notify_cq(dev->send_cq, 0)) || (rc = arm_recv_cq(dev))) {
		fail(vt, verbs_map_errno(rc, false), "ibv_req_notify_cq(%s): %s", name, strerror(rc));
		goto err;
	}
	dev->qps = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, free_qp);
	dev->mrs = g_ptr_array_new();
	dev->held = g_array_new(FALSE, FALSE, sizeof(held_wc));
	g_ptr_array_add(vt->devs, dev);
	return dev;
err:
	dev_release(dev);
	return NULL;
}

/* QPs and MRs still on the device are destroyed first. */
static void verbs_dev_close(verbs_transport *vt, smcr_tp_dev *dev)
{
	if (!dev)
		return;
	g_ptr_array_remove(vt->devs, dev);
	dev_release(dev);
}

void verbs_transport_free(verbs_transport *vt)
{
	if (!vt)
		return;
	while (vt->devs->len > 0)
		verbs_dev_close(vt, g_ptr_array_index(vt->devs, vt->devs->len - 1));
	g_ptr_array_free(vt->devs, TRUE);
	g_free(vt);
}

const char *verbs_dev_name(const smcr_tp_dev *dev) { return dev->name; }

/* Small kernel text files (sysfs, /proc); "" when absent. */
static void read_text(const char *path, char *buf, size_t len)
{
	buf[0] = '\0';
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	size_t got = fread(buf, 1, len - 1, f);
	buf[got] = '\0';
	fclose(f);
}

static uint16_t vlan_of_ifindex(uint32_t ifindex, const char *vlan_config, char *ifname)
{
	uint16_t vid = 0;
	ifname[0] = '\0';
	if (ifindex == 0 || !if_indextoname(ifindex, ifname))
		return 0;
	return gid_table_vlan_lookup(vlan_config, ifname, &vid) == 1 ? vid : 0;
}

static int cmp_gid_index(const void *a, const void *b)
{
	const struct ibv_gid_entry *x = a, *y = b;
	return (x->gid_index > y->gid_index) - (x->gid_index < y->gid_index);
}

int verbs_dev_port(verbs_transport *vt, smcr_tp_dev *dev, uint8_t port, smcr_port_desc *out)
{
	if (port == 0 || port > dev->port_count)
		return fail(vt, SMCR_ERR_NOTFOUND, "%s has %u port(s); port %u does not exist", dev->name,
		            dev->port_count, port);
	struct ibv_port_attr pa;
	int rc = ibv_query_port(dev->ctx, port, &pa);
	if (rc)
		return fail(vt, verbs_map_errno(rc, false), "ibv_query_port(%s, %u): %s", dev->name, port, strerror(rc));
	if (pa.link_layer != IBV_LINK_LAYER_ETHERNET)
		return fail(vt, SMCR_ERR_INVAL, "%s port %u is not an Ethernet (RoCE) port; SMC-R needs RoCE",
		            dev->name, port);

	memset(out, 0, sizeof *out);
	out->dev = dev;
	out->port = port;
	g_strlcpy(out->name, dev->name, sizeof out->name);
	out->state = pa.state == IBV_PORT_ACTIVE ? SMCR_PORT_ACTIVE : SMCR_PORT_DOWN;
	out->active_mtu = pa.active_mtu >= IBV_MTU_256 && pa.active_mtu <= IBV_MTU_4096
	                          ? (smcr_mtu)pa.active_mtu
	                          : SMCR_MTU_1024;

	/* All valid entries of the device at once (rdma-core falls back to sysfs itself on
	 * kernels without the ioctl), then this port's RoCE ones in table order. */
	size_t max = (size_t)pa.gid_tbl_len * dev->port_count;
	struct ibv_gid_entry *tab = g_new0(struct ibv_gid_entry, max ? max : 1);
	ssize_t n = ibv_query_gid_table(dev->ctx, tab, max, 0);
	if (n < 0) {
		g_free(tab);
		return fail(vt, verbs_map_errno((int)-n, false), "ibv_query_gid_table(%s): %s", dev->name,
		            strerror((int)-n));
	}
	qsort(tab, (size_t)n, sizeof *tab, cmp_gid_index);
	char vlan_config[8192], ifname[IF_NAMESIZE], path[128], mac[64];
	read_text("/proc/net/vlan/config", vlan_config, sizeof vlan_config);
	for (ssize_t i = 0; i < n && out->n_gids < SMCR_MAX_GIDS; i++) {
		const struct ibv_gid_entry *e = &tab[i];
		if (e->port_num != port)
			continue;
		smcr_gid_type type;
		if (e->gid_type == IBV_GID_TYPE_ROCE_V1)
			type = SMCR_GID_ROCE_V1;
		else if (e->gid_type == IBV_GID_TYPE_ROCE_V2)
			type = SMCR_GID_ROCE_V2;
		else
			continue;
		smcr_gid_entry *g = &out->gids[out->n_gids++];
		memcpy(g->gid, e->gid.raw, 16);
		g->index = (uint16_t)e->gid_index;
		g->type = type;
		g->vlan_id = vlan_of_ifindex(e->ndev_ifindex, vlan_config, ifname);
		/* Linux puts the L2 address of GID index 0's interface into CLC and LLC */
		if (e->gid_index == 0 && ifname[0]) {
			snprintf(path, sizeof path, "/sys/class/net/%s/address", ifname);
			read_text(path, mac, sizeof mac);
			if (gid_table_parse_mac(mac, out->mac) != 0)
				memset(out->mac, 0, sizeof out->mac);
		}
	}
	g_free(tab);
	return 0;
}

size_t verbs_dev_fds(const smcr_tp_dev *dev, int *fds, size_t max)
{
	size_t k = 0;
	if (k < max)
		fds[k++] = dev->channel->fd;
	if (k < max)
		fds[k++] = dev->ctx->async_fd;
	return k;
}

void verbs_dev_notify_counts(const smcr_tp_dev *dev, uint64_t *send_cq, uint64_t *recv_cq)
{
	*send_cq = dev->send_notifies;
	*recv_cq = dev->recv_notifies;
}

/* Processing -------------------------------------------------------------------- */

static bool deliver(verbs_transport *vt, smcr_tp_dev *dev, uint64_t wr_id, uint32_t qp_num,
                    enum ibv_wc_status status, enum ibv_wc_opcode opcode, uint32_t byte_len, bool recv)
{
	/* looked up per completion: an earlier callback may have destroyed the QP */
	smcr_tp_qp *qp = g_hash_table_lookup(dev->qps, GUINT_TO_POINTER(qp_num));
	if (!qp)
		return false;
	smcr_wc wc = {
		.wr_id = wr_id,
		.qp_ctx = qp->ctx,
		.status = verbs_map_wc_status(status),
		.byte_len = byte_len,
		.qp_num = qp_num,
	};
	/* verbs gives the opcode of successful completions only; a failed WR is reported by
	 * the queue it was on */
	if (recv)
		wc.opcode = SMCR_WC_RECV;
	else if (status == IBV_WC_SUCCESS && opcode == IBV_WC_RDMA_WRITE)
		wc.opcode = SMCR_WC_RDMA_WRITE;
	else
		wc.opcode = SMCR_WC_SEND;
	if (vt->trace && status != IBV_WC_SUCCESS)
		fprintf(stderr, "verbs: %s QP %u: %s completion wr_id %llu: %s\n", dev->name, qp_num,
		        recv ? "receive" : "send", (unsigned long long)wr_id, ibv_wc_status_str(status));
	if (vt->sink.completion)
		vt->sink.completion(vt->user, &wc);
	return true;
}

/* Poll a CQ empty. With `held`, failed completions are kept there instead of delivered. */
static int poll_cq(verbs_transport *vt, smcr_tp_dev *dev, struct ibv_cq *cq, bool recv, GArray *held)
{
	struct ibv_wc wcs[VERBS_POLL_BATCH];
	int delivered = 0;
	for (;;) {
		int n = ibv_poll_cq(cq, VERBS_POLL_BATCH, wcs);
		if (n < 0)
			return fail(vt, SMCR_ERR_TRANSPORT, "ibv_poll_cq(%s): failed (%d)", dev->name, n);
		for (int i = 0; i < n; i++) {
			const struct ibv_wc *w = &wcs[i];
			if (held && w->status != IBV_WC_SUCCESS) {
				held_wc h = { .wr_id = w->wr_id, .qp_num = w->qp_num, .status = w->status };
				g_array_append_val(held, h);
				continue;
			}
			if (deliver(vt, dev, w->wr_id, w->qp_num, w->status, w->opcode, w->byte_len, recv))
				delivered++;
		}
		if (n < VERBS_POLL_BATCH)
			return delivered;
	}
}

static int process_async(verbs_transport *vt, smcr_tp_dev *dev)
{
	int delivered = 0;
	struct ibv_async_event ev;
	while (ibv_get_async_event(dev->ctx, &ev) == 0) {
		smcr_async_event what;
		int handled = verbs_map_async_event(ev.event_type, &what);
		uint8_t port = 0;
		void *qp_ctx = NULL;
		bool all_ports = ev.event_type == IBV_EVENT_DEVICE_FATAL || ev.event_type == IBV_EVENT_CQ_ERR;
		if (handled && what == SMCR_EV_QP_FATAL) {
			smcr_tp_qp *qp = g_hash_table_lookup(dev->qps, GUINT_TO_POINTER(ev.element.qp->qp_num));
			handled = qp != NULL;
			if (qp) {
				qp_ctx = qp->ctx;
				port = qp->port;
			}
		} else if (handled && !all_ports) {
			port = (uint8_t)ev.element.port_num;
		}
		if (vt->trace)
			fprintf(stderr, "verbs: %s: async event %s (%d)%s\n", dev->name, ibv_event_type_str(ev.event_type),
			        (int)ev.event_type, handled ? "" : ", ignored");
		/* acknowledge before the callback: destroying a QP waits for its events' acks */
		ibv_ack_async_event(&ev);
		if (!handled || !vt->sink.async_event)
			continue;
		if (all_ports) {
			for (uint8_t p = 1; p <= dev->port_count; p++, delivered++)
				vt->sink.async_event(vt->user, dev, p, what, NULL);
		} else {
			vt->sink.async_event(vt->user, dev, port, what, qp_ctx);
			delivered++;
		}
	}
	return delivered;
}

int verbs_dev_process(verbs_transport *vt, smcr_tp_dev *dev)
{
	unsigned send_events = 0, recv_events = 0;
	struct ibv_cq *cq;
	void *cq_ctx;
	while (ibv_get_cq_event(dev->channel, &cq, &cq_ctx) == 0) {
		if (cq == dev->send_cq)
			send_events++;
		else
			recv_events++;
	}
	/* acknowledge and re-arm before polling, so no completion slips between the last
	 * poll and the next notification */
	if (send_events) {
		dev->send_notifies += send_events;
		ibv_ack_cq_events(dev->send_cq, send_events);
		ibv_req_notify_cq(dev->send_cq, 0);
	}
	if (recv_events) {
		dev->recv_notifies += recv_events;
		ibv_ack_cq_events(dev->recv_cq, recv_events);
		arm_recv_cq(dev);
	}
	/* Successful receives first: a message the QP received (and acknowledged) must reach
	 * the core before an error completion takes the link down and frees it. Linux gets the
	 * same from its separate rx tasklet and from smc_wr_drain_cq() in the link's clearing;
	 * a CDC lost here makes the peer's failover validation abort the connection
	 * (smc_cdc_msg_validate), as one interop run did. Then the sends, whose errors name the
	 * cause (retries exceeded, remote access), then the receives' flush errors. */
	bool nested = dev->processing;
	GArray *held = nested ? g_array_new(FALSE, FALSE, sizeof(held_wc)) : dev->held;
	g_array_set_size(held, 0);
	dev->processing = true;
	int b = poll_cq(vt, dev, dev->recv_cq, true, held);
	int a = b < 0 ? 0 : poll_cq(vt, dev, dev->send_cq, false, NULL);
	if (b >= 0 && a >= 0)
		for (guint i = 0; i < held->len; i++) {
			const held_wc *h = &g_array_index(held, held_wc, i);
			if (deliver(vt, dev, h->wr_id, h->qp_num, h->status, IBV_WC_RECV, 0, true))
				b++;
		}
	if (nested)
		g_array_free(held, TRUE);
	else
		dev->processing = false;
	if (b < 0)
		return b;
	if (a < 0)
		return a;
	return a + b + process_async(vt, dev);
}

/* The operations ----------------------------------------------------------------- */

static int ibv_access(uint32_t access)
{
	int a = 0;
	if (access & SMCR_ACCESS_LOCAL_WRITE)
		a |= IBV_ACCESS_LOCAL_WRITE;
	if (access & SMCR_ACCESS_REMOTE_WRITE)
		a |= IBV_ACCESS_REMOTE_WRITE;
	if (access & SMCR_ACCESS_REMOTE_READ)
		a |= IBV_ACCESS_REMOTE_READ;
	return a;
}

static smcr_tp_mr *op_reg_mr(void *tp, smcr_tp_dev *dev, void *addr, size_t len, uint32_t access,
                             smcr_mr_info *out)
{
	verbs_transport *vt = tp;
	struct ibv_mr *mr = ibv_reg_mr(dev->pd, addr, len, ibv_access(access));
	if (!mr) {
		fail(vt, verbs_map_errno(errno, false), "ibv_reg_mr(%s, %zu bytes): %s", dev->name, len,
		     strerror(errno));
		return NULL;
	}
	smcr_tp_mr *m = g_new0(smcr_tp_mr, 1);
	m->mr = mr;
	m->dev = dev;
	g_ptr_array_add(dev->mrs, m);
	if (out) {
		out->lkey = mr->lkey;
		out->rkey = mr->rkey;
		out->iova = (uint64_t)(uintptr_t)addr; /* ibv_reg_mr: the iova is the address */
	}
	return m;
}

static void op_dereg_mr(void *tp, smcr_tp_mr *mr)
{
	verbs_transport *vt = tp;
	if (!mr)
		return;
	int rc = ibv_dereg_mr(mr->mr);
	if (rc)
		fail(vt, verbs_map_errno(rc, false), "ibv_dereg_mr(%s): %s", mr->dev->name, strerror(rc));
	g_ptr_array_remove(mr->dev->mrs, mr);
	g_free(mr);
}

static smcr_tp_qp *op_create_qp(void *tp, smcr_tp_dev *dev, uint8_t port, const smcr_qp_caps *caps,
                                void *qp_ctx, uint32_t *qpn_out)
{
	verbs_transport *vt = tp;
	/* Linux SMC-R's defaults when the caller has no opinion (smc_ib_create_queue_pair) */
	static const smcr_qp_caps linux_caps = { .max_send_wr = 48, .max_recv_wr = 48, .max_send_sge = 2, .max_recv_sge = 1 };
	if (!caps)
		caps = &linux_caps;
	if (port == 0 || port > dev->port_count) {
		fail(vt, SMCR_ERR_NOTFOUND, "create_qp: %s has no port %u", dev->name, port);
		return NULL;
	}
	struct ibv_qp_init_attr ia = {
		.send_cq = dev->send_cq,
		.recv_cq = dev->recv_cq,
		.cap = {
		        .max_send_wr = caps->max_send_wr,
		        .max_recv_wr = caps->max_recv_wr,
		        .max_send_sge = caps->max_send_sge,
		        .max_recv_sge = caps->max_recv_sge,
		        .max_inline_data = caps->max_inline_data,
		},
		.qp_type = IBV_QPT_RC,
		.sq_sig_all = 0,
	};
	struct ibv_qp *q = ibv_create_qp(dev->pd, &ia);
	if (!q) {
		fail(vt, verbs_map_errno(errno, false), "ibv_create_qp(%s, send %u/recv %u WRs): %s", dev->name,
		     caps->max_send_wr, caps->max_recv_wr, strerror(errno));
		return NULL;
	}
	smcr_tp_qp *qp = g_new0(smcr_tp_qp, 1);
	qp->qp = q;
	qp->dev = dev;
	qp->port = port;
	qp->ctx = qp_ctx;
	qp->max_inline = ia.cap.max_inline_data; /* what the device granted */
	g_hash_table_insert(dev->qps, GUINT_TO_POINTER(q->qp_num), qp);
	if (qpn_out)
		*qpn_out = q->qp_num;
	return qp;
}

static int op_modify_qp(void *tp, smcr_tp_qp *qp, const smcr_qp_attr *a)
{
	verbs_transport *vt = tp;
	struct ibv_qp_attr qa;
	memset(&qa, 0, sizeof qa);
	qa.qp_state = IBV_QPS_UNKNOWN; /* stays so for a state outside the enum */
	int mask = IBV_QP_STATE;
	switch (a->state) {
	case SMCR_QPS_RESET:
		qa.qp_state = IBV_QPS_RESET;
		break;
	case SMCR_QPS_ERR:
		qa.qp_state = IBV_QPS_ERR;
		break;
	case SMCR_QPS_INIT:
		qa.qp_state = IBV_QPS_INIT;
		qa.pkey_index = a->pkey_index;
		qa.port_num = a->port ? a->port : qp->port;
		qa.qp_access_flags = (unsigned)ibv_access(a->access);
		mask |= IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS;
		break;
	case SMCR_QPS_RTR:
		qa.qp_state = IBV_QPS_RTR;
		qa.path_mtu = (enum ibv_mtu)a->path_mtu;
		qa.dest_qp_num = a->dest_qpn & 0xffffffu;
		qa.rq_psn = a->rq_psn & 0xffffffu;
		qa.max_dest_rd_atomic = a->max_dest_rd_atomic;
		qa.min_rnr_timer = a->min_rnr_timer;
		/* RoCE: always a GRH; the kernel resolves the destination MAC from the DGID
		 * itself, so a->ah.dmac is not passed (verbs has no field for it) */
		qa.ah_attr.is_global = 1;
		memcpy(qa.ah_attr.grh.dgid.raw, a->ah.dgid, 16);
		qa.ah_attr.grh.sgid_index = (uint8_t)a->ah.sgid_index;
		qa.ah_attr.grh.hop_limit = a->ah.hop_limit;
		qa.ah_attr.grh.traffic_class = a->ah.traffic_class;
		qa.ah_attr.port_num = qp->port;
		mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
		        IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
		break;
	case SMCR_QPS_RTS:
		qa.qp_state = IBV_QPS_RTS;
		qa.timeout = a->timeout;
		qa.retry_cnt = a->retry_cnt;
		qa.rnr_retry = a->rnr_retry;
		qa.sq_psn = a->sq_psn & 0xffffffu;
		qa.max_rd_atomic = a->max_rd_atomic;
		mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
		        IBV_QP_MAX_QP_RD_ATOMIC;
		break;
	}
	if (qa.qp_state == IBV_QPS_UNKNOWN)
		return fail(vt, SMCR_ERR_INVAL, "modify_qp: no such QP state %d", a->state);
	int rc = ibv_modify_qp(qp->qp, &qa, mask);
	if (rc)
		return fail(vt, verbs_map_errno(rc, false), "ibv_modify_qp(%s QP %u → state %d): %s",
		            qp->dev->name, qp->qp->qp_num, a->state, strerror(rc));
	return 0;
}

static smcr_qp_state op_query_qp_state(void *tp, smcr_tp_qp *qp)
{
	verbs_transport *vt = tp;
	struct ibv_qp_attr qa;
	struct ibv_qp_init_attr ia;
	int rc = ibv_query_qp(qp->qp, &qa, IBV_QP_STATE, &ia);
	if (rc) {
		fail(vt, verbs_map_errno(rc, false), "ibv_query_qp(%s QP %u): %s", qp->dev->name,
		     qp->qp->qp_num, strerror(rc));
		return SMCR_QPS_ERR; /* unknown is unusable */
	}
	switch (qa.qp_state) {
	case IBV_QPS_RESET:
		return SMCR_QPS_RESET;
	case IBV_QPS_INIT:
		return SMCR_QPS_INIT;
	case IBV_QPS_RTR:
		return SMCR_QPS_RTR;
	case IBV_QPS_RTS:
		return SMCR_QPS_RTS;
	case IBV_QPS_SQD:
	case IBV_QPS_SQE:
	case IBV_QPS_ERR:
	case IBV_QPS_UNKNOWN:
		return SMCR_QPS_ERR;
	}
	return SMCR_QPS_ERR;
}

static void op_destroy_qp(void *tp, smcr_tp_qp *qp)
{
	(void)tp;
	if (qp) /* the table's free function destroys it; later completions find no QP */
		g_hash_table_remove(qp->dev->qps, GUINT_TO_POINTER(qp->qp->qp_num));
}

int verbs_dev_qp_to_err(verbs_transport *vt, smcr_tp_dev *dev, uint32_t qpn)
{
	smcr_tp_qp *qp = g_hash_table_lookup(dev->qps, GUINT_TO_POINTER(qpn));
	if (!qp)
		return fail(vt, SMCR_ERR_NOTFOUND, "%s has no QP %u", dev->name, qpn);
	struct ibv_qp_attr qa = { .qp_state = IBV_QPS_ERR };
	int rc = ibv_modify_qp(qp->qp, &qa, IBV_QP_STATE);
	if (rc)
		return fail(vt, verbs_map_errno(rc, false), "ibv_modify_qp(%s QP %u → ERR): %s", dev->name, qpn,
		            strerror(rc));
	return 0;
}

static int copy_sges(struct ibv_sge *dst, const smcr_sge *src, uint32_t n, uint32_t *total)
{
	if (n > SMCR_MAX_SGE)
		return SMCR_ERR_INVAL;
	*total = 0;
	for (uint32_t i = 0; i < n; i++) {
		dst[i].addr = (uint64_t)(uintptr_t)src[i].addr;
		dst[i].length = src[i].length;
		dst[i].lkey = src[i].lkey;
		*total += src[i].length;
	}
	return 0;
}

static int op_post_send(void *tp, smcr_tp_qp *qp, const smcr_send_wr *wr)
{
	verbs_transport *vt = tp;
	struct ibv_sge sg[SMCR_MAX_SGE];
	uint32_t total;
	if (copy_sges(sg, wr->sg_list, wr->num_sge, &total) != 0)
		return fail(vt, SMCR_ERR_INVAL, "post_send: %u SGEs (at most %d)", wr->num_sge, SMCR_MAX_SGE);
	struct ibv_send_wr w = {
		.wr_id = wr->wr_id,
		.sg_list = sg,
		.num_sge = (int)wr->num_sge,
	},
	                   *bad = NULL;
	bool known = false;
	switch (wr->opcode) {
	case SMCR_WR_SEND:
		w.opcode = IBV_WR_SEND;
		known = true;
		break;
	case SMCR_WR_RDMA_WRITE:
		w.opcode = IBV_WR_RDMA_WRITE;
		w.wr.rdma.remote_addr = wr->remote_addr;
		w.wr.rdma.rkey = wr->rkey;
		known = true;
		break;
	}
	if (!known)
		return fail(vt, SMCR_ERR_INVAL, "post_send: no such opcode %d", wr->opcode);
	if (wr->send_flags & SMCR_SEND_SIGNALED)
		w.send_flags |= IBV_SEND_SIGNALED;
	if (wr->send_flags & SMCR_SEND_SOLICITED)
		w.send_flags |= IBV_SEND_SOLICITED;
	/* inline only where the QP can; otherwise the data goes by lkey as usual */
	if ((wr->send_flags & SMCR_SEND_INLINE) && total <= qp->max_inline)
		w.send_flags |= IBV_SEND_INLINE;
	int rc = ibv_post_send(qp->qp, &w, &bad);
	if (rc)
		return fail(vt, verbs_map_errno(rc, true), "ibv_post_send(%s QP %u): %s", qp->dev->name,
		            qp->qp->qp_num, strerror(rc));
	return 0;
}

static int op_post_recv(void *tp, smcr_tp_qp *qp, const smcr_recv_wr *wr)
{
	verbs_transport *vt = tp;
	struct ibv_sge sg[SMCR_MAX_SGE];
	uint32_t total;
	if (copy_sges(sg, wr->sg_list, wr->num_sge, &total) != 0)
		return fail(vt, SMCR_ERR_INVAL, "post_recv: %u SGEs (at most %d)", wr->num_sge, SMCR_MAX_SGE);
	struct ibv_recv_wr w = { .wr_id = wr->wr_id, .sg_list = sg, .num_sge = (int)wr->num_sge }, *bad = NULL;
	int rc = ibv_post_recv(qp->qp, &w, &bad);
	if (rc)
		return fail(vt, verbs_map_errno(rc, true), "ibv_post_recv(%s QP %u): %s", qp->dev->name,
		            qp->qp->qp_num, strerror(rc));
	return 0;
}

static const smcr_transport_ops verbs_ops = {
	.reg_mr = op_reg_mr,
	.dereg_mr = op_dereg_mr,
	.create_qp = op_create_qp,
	.modify_qp = op_modify_qp,
	.query_qp_state = op_query_qp_state,
	.destroy_qp = op_destroy_qp,
	.post_send = op_post_send,
	.post_recv = op_post_recv,
};

const smcr_transport_ops *verbs_transport_ops(void) { return &verbs_ops; }
