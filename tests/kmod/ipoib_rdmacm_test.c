// SPDX-License-Identifier: GPL-2.0
/*
 * ipoib_rdmacm_test - an in-kernel rdma_cm client and echo server for the e2e scenarios
 * (softib has no userspace verbs, so rping cannot run). Test tooling, never needed by the driver.
 *
 * Control file /sys/kernel/debug/ipoib_rdmacm_test/ctl. Each command runs in the network
 * namespace of the process that writes it (ip netns exec A sh -c 'echo ... > ctl'):
 *
 *   listen <ip> <port>                    an RC echo server on ip:port (IPv4 or IPv6)
 *   connect <ip> <port> <count> <size> [hold]
 *                                         rdma_resolve_addr -> rdma_resolve_route ->
 *                                         rdma_connect, then <count> messages of <size>
 *                                         bytes each way (every one verified), disconnect;
 *                                         the write returns when done (or the errno).
 *                                         hold: stay connected until the next connect,
 *                                         stop or rmmod (one held connection at a time)
 *   stop                                  destroy every listener and server connection
 *                                         (the server side disconnects), then close the
 *                                         held client connection
 *
 * Reading the file gives the last client result and the server counters, one line each:
 *   client status=ok|<failure> event=<last rdma_cm event> reason=<REJ reason> messages=N
 *          bytes_sent=N bytes_received=N errors=N held=0|1
 *   server listeners=N accepted=N active=N messages=N bytes=N errors=N disconnected=N
 *
 * Message i from the client carries pattern(i, 0); the server checks it (in order) and
 * answers with pattern(i, 1), which the client checks: both directions are verified.
 * The client announces count and size in the REQ's private data so the server can size its
 * buffers (at most MAX_MSG each).
 */
#include <linux/module.h>
#include <linux/debugfs.h>
#include <linux/slab.h>
#include <linux/inet.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>
#include <net/net_namespace.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#define MAX_MSG (1u << 20)
#define MAX_COUNT 100000u
#define RESOLVE_MS 3000
#define WAIT_JIFFIES (10 * HZ)
#define MAGIC 0x49524354	/* "IRCT" */

struct hello {
	__be32 magic;
	__be32 count;
	__be32 size;
};

static u8 pattern(u32 seq, u32 i, u32 side)
{
	return (u8)(i * 131 + seq * 7 + side * 0x5a + (i >> 8));
}

static void fill(u8 *b, u32 len, u32 seq, u32 side)
{
	u32 i;

	for (i = 0; i < len; i++)
		b[i] = pattern(seq, i, side);
}

static bool check(const u8 *b, u32 len, u32 seq, u32 side)
{
	u32 i;

	for (i = 0; i < len; i++)
		if (b[i] != pattern(seq, i, side))
			return false;
	return true;
}

/* ---- one RC endpoint: PD, CQ, QP on a cm_id, one receive and two send buffers ---- */

struct ep {
	struct rdma_cm_id *id;
	struct ib_pd *pd;
	struct ib_cq *cq;
	bool has_qp;
	u32 size;
	u8 *rbuf, *sbuf[2];
	u64 rdma, sdma[2];
	struct ib_cqe rcqe, scqe[2];
	bool sbusy[2];
};

static void ep_free(struct ep *e)
{
	struct ib_device *dev = e->id ? e->id->device : NULL;
	int i;

	if (e->has_qp) {
		ib_drain_qp(e->id->qp);
		rdma_destroy_qp(e->id);
		e->has_qp = false;
	}
	if (e->cq) {
		ib_free_cq(e->cq);
		e->cq = NULL;
	}
	if (e->rbuf) {
		ib_dma_unmap_single(dev, e->rdma, e->size, DMA_FROM_DEVICE);
		kfree(e->rbuf);
		e->rbuf = NULL;
	}
	for (i = 0; i < 2; i++) {
		if (!e->sbuf[i])
			continue;
		ib_dma_unmap_single(dev, e->sdma[i], e->size, DMA_TO_DEVICE);
		kfree(e->sbuf[i]);
		e->sbuf[i] = NULL;
	}
	if (e->pd) {
		ib_dealloc_pd(e->pd);
		e->pd = NULL;
	}
}

static int map_buf(struct ib_device *dev, u8 **buf, u64 *dma, u32 size, enum dma_data_direction dir)
{
	*buf = kzalloc(size, GFP_KERNEL);
	if (!*buf)
		return -ENOMEM;
	*dma = ib_dma_map_single(dev, *buf, size, dir);
	if (ib_dma_mapping_error(dev, *dma)) {
		kfree(*buf);
		*buf = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* Everything but the cm_id; on failure ep_free undoes what was done. */
static int ep_setup(struct ep *e, u32 size, void (*recv_done)(struct ib_cq *, struct ib_wc *),
		    void (*send_done)(struct ib_cq *, struct ib_wc *))
{
	struct ib_device *dev = e->id->device;
	struct ib_qp_init_attr qa = {
		.cap = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1, .max_recv_sge = 1 },
		.sq_sig_type = IB_SIGNAL_ALL_WR,
		.qp_type = IB_QPT_RC,
	};
	int i, ret;

	e->size = size;
	e->rcqe.done = recv_done;
	e->scqe[0].done = e->scqe[1].done = send_done;
	e->pd = ib_alloc_pd(dev, 0);
	if (IS_ERR(e->pd)) {
		ret = PTR_ERR(e->pd);
		e->pd = NULL;
		return ret;
	}
	/* 4 + 4 WRs, plus one drain WR per queue (ib_drain_qp) */
	e->cq = ib_alloc_cq(dev, e, 10, 0, IB_POLL_WORKQUEUE);
	if (IS_ERR(e->cq)) {
		ret = PTR_ERR(e->cq);
		e->cq = NULL;
		return ret;
	}
	ret = map_buf(dev, &e->rbuf, &e->rdma, size, DMA_FROM_DEVICE);
	for (i = 0; i < 2 && !ret; i++)
		ret = map_buf(dev, &e->sbuf[i], &e->sdma[i], size, DMA_TO_DEVICE);
	if (ret)
		return ret;
	qa.send_cq = qa.recv_cq = e->cq;
	ret = rdma_create_qp(e->id, e->pd, &qa);
	if (ret)
		return ret;
	e->has_qp = true;
	return 0;
}

static int ep_post_recv(struct ep *e)
{
	struct ib_sge sge = { .addr = e->rdma, .length = e->size, .lkey = e->pd->local_dma_lkey };
	struct ib_recv_wr wr = { .wr_cqe = &e->rcqe, .sg_list = &sge, .num_sge = 1 };

	return ib_post_recv(e->id->qp, &wr, NULL);
}

/* Sends pattern(seq, side) from send buffer seq & 1, which must be free. */
static int ep_post_send(struct ep *e, u32 seq, u32 side)
{
	u32 slot = seq & 1;
	struct ib_sge sge = { .addr = e->sdma[slot], .length = e->size, .lkey = e->pd->local_dma_lkey };
	struct ib_send_wr wr = {
		.wr_cqe = &e->scqe[slot], .sg_list = &sge, .num_sge = 1,
		.opcode = IB_WR_SEND, .send_flags = IB_SEND_SIGNALED,
	};
	int ret;

	if (READ_ONCE(e->sbusy[slot]))
		return -EBUSY;
	fill(e->sbuf[slot], e->size, seq, side);
	ib_dma_sync_single_for_device(e->id->device, e->sdma[slot], e->size, DMA_TO_DEVICE);
	WRITE_ONCE(e->sbusy[slot], true);
	ret = ib_post_send(e->id->qp, &wr, NULL);
	if (ret)
		WRITE_ONCE(e->sbusy[slot], false);
	return ret;
}

static void ep_send_slot_done(struct ep *e, struct ib_wc *wc)
{
	u32 slot = wc->wr_cqe == &e->scqe[1];

	WRITE_ONCE(e->sbusy[slot], false);
}

/* ---- server ---- */

enum obj_kind { OBJ_LISTENER = 1, OBJ_SCONN };

struct listener {
	enum obj_kind kind;
	struct list_head node;
	struct rdma_cm_id *id;
};

struct sconn {
	enum obj_kind kind;
	struct list_head node;
	struct ep ep;
	u32 expect;		/* next sequence number from the client */
	u32 count;
	bool claimed;		/* someone is tearing it down */
	struct work_struct free_work;
};

static DEFINE_MUTEX(ctl_lock);		/* commands, the listener list */
static LIST_HEAD(listeners);
static DEFINE_SPINLOCK(srv_lock);	/* server connection list, claim flags */
static LIST_HEAD(sconns);
static struct workqueue_struct *wq;
static atomic64_t srv_accepted, srv_messages, srv_bytes, srv_errors, srv_disconnected;
static atomic_t srv_active;

static void sconn_teardown(struct sconn *c)
{
	rdma_disconnect(c->ep.id);
	ep_free(&c->ep);
	rdma_destroy_id(c->ep.id);
	atomic_dec(&srv_active);
	kfree(c);
}

static void sconn_free_work(struct work_struct *w)
{
	sconn_teardown(container_of(w, struct sconn, free_work));
}

/* True for the one caller that gets to tear c down. */
static bool sconn_claim(struct sconn *c)
{
	bool mine;

	spin_lock(&srv_lock);
	mine = !c->claimed;
	if (mine) {
		c->claimed = true;
		list_del(&c->node);
	}
	spin_unlock(&srv_lock);
	return mine;
}

static void srv_error(struct sconn *c, const char *what, int err)
{
	atomic64_inc(&srv_errors);
	pr_warn("ipoib_rdmacm_test: server: %s (%d) at message %u\n", what, err, c->expect);
	if (sconn_claim(c))
		queue_work(wq, &c->free_work);
}

static void srv_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct sconn *c = container_of(cq->cq_context, struct sconn, ep);
	u32 seq = c->expect;
	int ret;

	if (wc->status != IB_WC_SUCCESS) {
		if (wc->status != IB_WC_WR_FLUSH_ERR)
			srv_error(c, "receive completion error", wc->status);
		return;
	}
	ib_dma_sync_single_for_cpu(cq->device, c->ep.rdma, c->ep.size, DMA_FROM_DEVICE);
	if (wc->byte_len != c->ep.size || !check(c->ep.rbuf, c->ep.size, seq, 0)) {
		srv_error(c, "message content or length mismatch", wc->byte_len);
		return;
	}
	c->expect++;
	atomic64_inc(&srv_messages);
	atomic64_add(wc->byte_len, &srv_bytes);
	/* repost first: the client sends the next message once it has our answer */
	ret = c->expect < c->count ? ep_post_recv(&c->ep) : 0;
	if (!ret)
		ret = ep_post_send(&c->ep, seq, 1);
	if (ret)
		srv_error(c, "post failed", ret);
}

static void srv_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct sconn *c = container_of(cq->cq_context, struct sconn, ep);

	ep_send_slot_done(&c->ep, wc);
	if (wc->status == IB_WC_SUCCESS)
		atomic64_add(c->ep.size, &srv_bytes);
	else if (wc->status != IB_WC_WR_FLUSH_ERR)
		srv_error(c, "send completion error", wc->status);
}

/* CONNECT_REQUEST on a new cm_id: nonzero makes rdma_cm reject and destroy it. */
static int srv_connect_request(struct rdma_cm_id *id, const struct rdma_cm_event *ev)
{
	const struct hello *h = ev->param.conn.private_data;
	struct rdma_conn_param cp = { .rnr_retry_count = 7 };
	struct sconn *c;
	u32 size, count;
	int ret;

	if (!h || ev->param.conn.private_data_len < sizeof(*h) || be32_to_cpu(h->magic) != MAGIC)
		return -EPROTO;
	size = be32_to_cpu(h->size);
	count = be32_to_cpu(h->count);
	if (!size || size > MAX_MSG || !count || count > MAX_COUNT)
		return -EINVAL;
	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	c->kind = OBJ_SCONN;
	c->count = count;
	c->ep.id = id;
	INIT_WORK(&c->free_work, sconn_free_work);
	ret = ep_setup(&c->ep, size, srv_recv_done, srv_send_done);
	if (!ret)
		ret = ep_post_recv(&c->ep);
	if (!ret) {
		id->context = c;
		ret = rdma_accept(id, &cp);
	}
	if (ret) {
		pr_warn("ipoib_rdmacm_test: server: cannot accept: %d\n", ret);
		atomic64_inc(&srv_errors);
		ep_free(&c->ep);
		kfree(c);
		return ret;
	}
	atomic_inc(&srv_active);
	spin_lock(&srv_lock);
	list_add_tail(&c->node, &sconns);
	spin_unlock(&srv_lock);
	return 0;
}

static int srv_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	enum obj_kind *kind = id->context;
	struct sconn *c;

	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST)
		return srv_connect_request(id, ev);
	if (*kind == OBJ_LISTENER)
		return 0;	/* DEVICE_REMOVAL etc.: the listener is destroyed by stop/rmmod */
	c = container_of(kind, struct sconn, kind);
	switch (ev->event) {
	case RDMA_CM_EVENT_ESTABLISHED:
		atomic64_inc(&srv_accepted);
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
		atomic64_inc(&srv_disconnected);
		fallthrough;
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_REJECTED:
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		/* rdma_destroy_id must not run in its own handler: a work item does it */
		if (sconn_claim(c))
			queue_work(wq, &c->free_work);
		break;
	default:
		break;
	}
	return 0;
}

static int cmd_listen(struct net *net, struct sockaddr_storage *ss)
{
	struct listener *l = kzalloc(sizeof(*l), GFP_KERNEL);
	int ret;

	if (!l)
		return -ENOMEM;
	l->kind = OBJ_LISTENER;
	l->id = rdma_create_id(net, srv_handler, l, RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(l->id)) {
		ret = PTR_ERR(l->id);
		kfree(l);
		return ret;
	}
	ret = rdma_bind_addr(l->id, (struct sockaddr *)ss);
	if (!ret)
		ret = rdma_listen(l->id, 8);
	if (ret) {
		rdma_destroy_id(l->id);
		kfree(l);
		return ret;
	}
	list_add_tail(&l->node, &listeners);
	return 0;
}

static void release_held(void);

/* ctl_lock held */
static void cmd_stop(void)
{
	struct listener *l, *t;
	struct sconn *c;

	/* no new connections after this */
	list_for_each_entry_safe(l, t, &listeners, node) {
		list_del(&l->node);
		rdma_destroy_id(l->id);
		kfree(l);
	}
	for (;;) {
		spin_lock(&srv_lock);
		c = list_first_entry_or_null(&sconns, struct sconn, node);
		if (c) {
			c->claimed = true;
			list_del(&c->node);
		}
		spin_unlock(&srv_lock);
		if (!c)
			break;
		sconn_teardown(c);
	}
	flush_workqueue(wq);	/* teardowns claimed by the handlers */
	/* last, so that a held client connection sees the server's DREQ above */
	release_held();
}

/* ---- client ---- */

struct client {
	struct ep ep;
	wait_queue_head_t wait;
	enum rdma_cm_event_type ev;	/* last event */
	int ev_status;
	bool ev_new;
	bool disconnected;
	int recv_status, send_status;	/* -1 pending, else the wc status */
	u32 recv_len;
};

struct client_result {
	char status[64];
	enum rdma_cm_event_type ev;
	int reason;
	u32 messages;
	u64 sent, received, errors;
	bool valid, held;
};

static struct client_result last;	/* under ctl_lock */
static struct client *held;		/* kept open by "connect ... hold"; under ctl_lock */

static int cli_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct client *c = id->context;

	if (ev->event == RDMA_CM_EVENT_DISCONNECTED) {
		WRITE_ONCE(c->disconnected, true);
	} else {
		c->ev = ev->event;
		c->ev_status = ev->status;
		/* pairs with the wait_event in cli_wait_event */
		smp_store_release(&c->ev_new, true);
	}
	wake_up(&c->wait);
	return 0;	/* the client thread destroys the id */
}

static int cli_wait_event(struct client *c, enum rdma_cm_event_type want)
{
	if (!wait_event_timeout(c->wait, smp_load_acquire(&c->ev_new), WAIT_JIFFIES)) {
		scnprintf(last.status, sizeof(last.status), "timeout waiting for %s", rdma_event_msg(want));
		return -ETIMEDOUT;
	}
	WRITE_ONCE(c->ev_new, false);
	last.ev = c->ev;
	if (c->ev == want)
		return 0;
	switch (c->ev) {
	case RDMA_CM_EVENT_REJECTED:
		last.reason = c->ev_status;
		scnprintf(last.status, sizeof(last.status), "rejected");
		return -ECONNREFUSED;
	case RDMA_CM_EVENT_ADDR_ERROR:
		scnprintf(last.status, sizeof(last.status), "addr_error(%d)", c->ev_status);
		return -EHOSTUNREACH;
	case RDMA_CM_EVENT_ROUTE_ERROR:
		scnprintf(last.status, sizeof(last.status), "route_error(%d)", c->ev_status);
		return -ENETUNREACH;
	case RDMA_CM_EVENT_UNREACHABLE:
		scnprintf(last.status, sizeof(last.status), "unreachable(%d)", c->ev_status);
		return -EHOSTUNREACH;
	default:
		scnprintf(last.status, sizeof(last.status), "unexpected_event(%d)", c->ev_status);
		return -EIO;
	}
}

static void cli_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct client *c = container_of(cq->cq_context, struct client, ep);

	c->recv_len = wc->byte_len;
	smp_store_release(&c->recv_status, wc->status);
	wake_up(&c->wait);
}

static void cli_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct client *c = container_of(cq->cq_context, struct client, ep);

	ep_send_slot_done(&c->ep, wc);
	smp_store_release(&c->send_status, wc->status);
	wake_up(&c->wait);
}

/* One message each way; the failure goes into last.status. */
static int cli_exchange(struct client *c, u32 seq)
{
	struct ep *e = &c->ep;
	int ret;

	c->recv_status = c->send_status = -1;
	ret = ep_post_recv(e);
	if (!ret)
		ret = ep_post_send(e, seq, 0);
	if (ret) {
		scnprintf(last.status, sizeof(last.status), "post_failed(%d)", ret);
		return ret;
	}
	if (!wait_event_timeout(c->wait, smp_load_acquire(&c->send_status) >= 0 &&
				smp_load_acquire(&c->recv_status) >= 0, WAIT_JIFFIES)) {
		scnprintf(last.status, sizeof(last.status), "timeout(send %d recv %d)",
			  c->send_status, c->recv_status);
		return -ETIMEDOUT;
	}
	if (c->send_status != IB_WC_SUCCESS || c->recv_status != IB_WC_SUCCESS) {
		scnprintf(last.status, sizeof(last.status), "wc_error(send %s recv %s)",
			  ib_wc_status_msg(c->send_status), ib_wc_status_msg(c->recv_status));
		return -EIO;
	}
	last.sent += e->size;
	ib_dma_sync_single_for_cpu(e->id->device, e->rdma, e->size, DMA_FROM_DEVICE);
	if (c->recv_len != e->size || !check(e->rbuf, e->size, seq, 1)) {
		last.errors++;
		scnprintf(last.status, sizeof(last.status), "data_mismatch(message %u, %u bytes)",
			  seq, c->recv_len);
		return -EBADMSG;
	}
	last.received += c->recv_len;
	last.messages++;
	return 0;
}

/* Disconnects (if still connected) and frees a client connection. */
static void client_close(struct client *c, bool established)
{
	if (established) {
		rdma_disconnect(c->ep.id);
		wait_event_timeout(c->wait, READ_ONCE(c->disconnected), WAIT_JIFFIES);
	}
	ep_free(&c->ep);
	rdma_destroy_id(c->ep.id);
	kfree(c);
}

/* ctl_lock held */
static void release_held(void)
{
	if (!held)
		return;
	pr_info("ipoib_rdmacm_test: closing the held client connection (%s)\n",
		READ_ONCE(held->disconnected) ? "the peer disconnected it" : "still connected");
	client_close(held, true);
	held = NULL;
	last.held = false;
}

static int cmd_connect(struct net *net, struct sockaddr_storage *dst, u32 count, u32 size,
		       bool hold)
{
	struct hello h = { cpu_to_be32(MAGIC), cpu_to_be32(count), cpu_to_be32(size) };
	struct rdma_conn_param cp = {
		.private_data = &h, .private_data_len = sizeof(h),
		.retry_count = 7, .rnr_retry_count = 7,
	};
	struct client *c;
	u32 seq;
	int ret;

	release_held();
	memset(&last, 0, sizeof(last));
	last.valid = true;
	scnprintf(last.status, sizeof(last.status), "running");
	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	init_waitqueue_head(&c->wait);
	c->ep.id = rdma_create_id(net, cli_handler, c, RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(c->ep.id)) {
		ret = PTR_ERR(c->ep.id);
		scnprintf(last.status, sizeof(last.status), "create_id(%d)", ret);
		kfree(c);
		return ret;
	}
	ret = rdma_resolve_addr(c->ep.id, NULL, (struct sockaddr *)dst, RESOLVE_MS);
	if (ret)
		scnprintf(last.status, sizeof(last.status), "resolve_addr(%d)", ret);
	else
		ret = cli_wait_event(c, RDMA_CM_EVENT_ADDR_RESOLVED);
	if (!ret) {
		ret = rdma_resolve_route(c->ep.id, RESOLVE_MS);
		if (ret)
			scnprintf(last.status, sizeof(last.status), "resolve_route(%d)", ret);
		else
			ret = cli_wait_event(c, RDMA_CM_EVENT_ROUTE_RESOLVED);
	}
	if (!ret) {
		ret = ep_setup(&c->ep, size, cli_recv_done, cli_send_done);
		if (ret)
			scnprintf(last.status, sizeof(last.status), "setup(%d)", ret);
	}
	if (!ret) {
		ret = rdma_connect(c->ep.id, &cp);
		if (ret)
			scnprintf(last.status, sizeof(last.status), "connect(%d)", ret);
		else
			ret = cli_wait_event(c, RDMA_CM_EVENT_ESTABLISHED);
	}
	for (seq = 0; !ret && seq < count; seq++)
		ret = cli_exchange(c, seq);
	if (!ret && hold) {
		/* released by the next connect, stop or rmmod */
		held = c;
		last.held = true;
		scnprintf(last.status, sizeof(last.status), "ok");
		pr_info("ipoib_rdmacm_test: client %pISpc: ok, %u messages of %u bytes, connection held\n",
			dst, last.messages, size);
		return 0;
	}
	if (last.ev == RDMA_CM_EVENT_ESTABLISHED) {
		rdma_disconnect(c->ep.id);
		/* the DISCONNECTED event: the server saw our DREQ (or its DREP timed out) */
		if (!wait_event_timeout(c->wait, READ_ONCE(c->disconnected), WAIT_JIFFIES) && !ret) {
			scnprintf(last.status, sizeof(last.status), "no DISCONNECTED event");
			ret = -ETIMEDOUT;
		}
	}
	if (!ret)
		scnprintf(last.status, sizeof(last.status), "ok");
	pr_info("ipoib_rdmacm_test: client %pISpc: %s, last event %s%s%s, %u messages of %u bytes\n",
		dst, last.status, rdma_event_msg(last.ev),
		last.ev == RDMA_CM_EVENT_REJECTED ? ", " : "",
		last.ev == RDMA_CM_EVENT_REJECTED ? rdma_reject_msg(c->ep.id, last.reason) : "",
		last.messages, size);
	client_close(c, false);
	return ret;
}

/* ---- the control file ---- */

static int parse_addr(const char *ip, const char *port, struct sockaddr_storage *ss)
{
	struct sockaddr_in *in = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;
	u16 p;

	if (kstrtou16(port, 0, &p) || !p)
		return -EINVAL;
	memset(ss, 0, sizeof(*ss));
	if (in4_pton(ip, -1, (u8 *)&in->sin_addr.s_addr, '\0', NULL)) {
		in->sin_family = AF_INET;
		in->sin_port = htons(p);
		return 0;
	}
	if (in6_pton(ip, -1, in6->sin6_addr.s6_addr, '\0', NULL)) {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons(p);
		return 0;
	}
	return -EINVAL;
}

static ssize_t ctl_write(struct file *f, const char __user *ubuf, size_t len, loff_t *ppos)
{
	char buf[160], *argv[6], *s;
	struct sockaddr_storage ss;
	struct net *net;
	u32 count = 0, size = 0;
	int argc = 0, ret;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	s = strim(buf);
	while (s && *s && argc < ARRAY_SIZE(argv))
		argv[argc++] = strsep(&s, " \t");
	if (!argc)
		return -EINVAL;
	net = get_net(current->nsproxy->net_ns);
	mutex_lock(&ctl_lock);
	if (!strcmp(argv[0], "listen") && argc == 3) {
		ret = parse_addr(argv[1], argv[2], &ss);
		if (!ret)
			ret = cmd_listen(net, &ss);
	} else if (!strcmp(argv[0], "connect") && (argc == 5 || (argc == 6 && !strcmp(argv[5], "hold")))) {
		ret = parse_addr(argv[1], argv[2], &ss);
		if (!ret && (kstrtou32(argv[3], 0, &count) || kstrtou32(argv[4], 0, &size) ||
			     !count || count > MAX_COUNT || !size || size > MAX_MSG))
			ret = -EINVAL;
		if (!ret)
			ret = cmd_connect(net, &ss, count, size, argc == 6);
	} else if (!strcmp(argv[0], "stop") && argc == 1) {
		cmd_stop();
		ret = 0;
	} else {
		ret = -EINVAL;
	}
	mutex_unlock(&ctl_lock);
	put_net(net);
	return ret ? ret : len;
}

static ssize_t ctl_read(struct file *f, char __user *ubuf, size_t len, loff_t *ppos)
{
	char *buf;
	int n, nl = 0;
	struct listener *l;
	ssize_t ret;

	buf = kmalloc(PAGE_SIZE, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	mutex_lock(&ctl_lock);
	list_for_each_entry(l, &listeners, node)
		nl++;
	if (last.valid)
		n = scnprintf(buf, PAGE_SIZE,
			      "client status=%s event=%s reason=%d messages=%u bytes_sent=%llu bytes_received=%llu errors=%llu held=%d\n",
			      last.status, rdma_event_msg(last.ev), last.reason, last.messages,
			      last.sent, last.received, last.errors, last.held);
	else
		n = scnprintf(buf, PAGE_SIZE, "client status=none\n");
	n += scnprintf(buf + n, PAGE_SIZE - n,
		       "server listeners=%d accepted=%lld active=%d messages=%lld bytes=%lld errors=%lld disconnected=%lld\n",
		       nl, atomic64_read(&srv_accepted), atomic_read(&srv_active),
		       atomic64_read(&srv_messages), atomic64_read(&srv_bytes),
		       atomic64_read(&srv_errors), atomic64_read(&srv_disconnected));
	mutex_unlock(&ctl_lock);
	ret = simple_read_from_buffer(ubuf, len, ppos, buf, n);
	kfree(buf);
	return ret;
}

static const struct file_operations ctl_fops = {
	.owner = THIS_MODULE,
	.read = ctl_read,
	.write = ctl_write,
	.llseek = default_llseek,
};

static struct dentry *dir;

static int __init rdmacm_test_init(void)
{
	wq = alloc_workqueue("ipoib_rdmacm_test", 0, 0);
	if (!wq)
		return -ENOMEM;
	dir = debugfs_create_dir("ipoib_rdmacm_test", NULL);
	debugfs_create_file("ctl", 0600, dir, NULL, &ctl_fops);
	return 0;
}

static void __exit rdmacm_test_exit(void)
{
	/* waits for a running command (debugfs removal drains its users) */
	debugfs_remove(dir);
	mutex_lock(&ctl_lock);
	cmd_stop();
	mutex_unlock(&ctl_lock);
	destroy_workqueue(wq);
}

module_init(rdmacm_test_init);
module_exit(rdmacm_test_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("in-kernel rdma_cm RC client/echo server for ib_ipoib_cm's e2e tests");
