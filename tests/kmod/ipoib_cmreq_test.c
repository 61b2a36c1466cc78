// SPDX-License-Identifier: GPL-2.0
/*
 * ipoib_cmreq_test - a raw ib_cm peer for the e2e scenarios: sends one connection request
 * with whatever private data and service ID the test asks for, so that a scenario can feed
 * an IPoIB-CM listener malformed or hostile input (RFC 4755 §6 private data, IBA 12.6.5 REQ).
 * It owns no QP: the REQ names a QPN nobody has, which ib_cm does not check. Test tooling,
 * never needed by the driver.
 *
 * Control file /sys/kernel/debug/ipoib_cmreq_test/ctl:
 *
 *   req <src-dev> <dst-lid> <dst-gid> <service-id> <then> [private-data-hex]
 *       sends a REQ from port 1 of the IB device <src-dev> (e.g. softib0) to <dst-lid>/<dst-gid>
 *       (GID as 32 hex digits, no colons) for <service-id> (hex), P_Key `pkey`, with the given
 *       private data (hex, at most 92 octets; none: ib_cm sends zeros). What to do when a REP
 *       comes back, <then>:
 *         rej     answer with a REJ (Consumer Reject, 28)
 *         rtu     send the RTU, then a DREQ after 200 ms, and wait for the DREP
 *         vanish  answer nothing (a peer that died mid-handshake): the id is kept silent
 *                 until the next command or rmmod
 *         mra     answer with an MRA (IBA 12.6.6) for the REP, Service Timeout `mra_timeout`,
 *                 and then nothing (no RTU): ib_cm at the REP's sender then waits that service
 *                 timeout (31: 2.4 h) before it resends or gives up; kept silent as with vanish
 *       The write returns when the outcome is known (REJ, REP handled, error; at most 15 s).
 *
 * The REQ's timers are module parameters, writable at run time under
 * /sys/module/ipoib_cmreq_test/parameters/: cm_timeout (remote and local CM response timeout,
 * default 16), cm_retries (Max CM Retries, default 3), life (the path's packet lifetime,
 * default 14; ib_cm sends lifetime + 1 as the REQ's Local ACK Timeout, or the CA's ACK delay
 * when larger), so a scenario can send the hostile values a peer may choose; pkey (the REQ's
 * P_Key, default 0xffff; ib_cm needs it in the sending port's P_Key table), mra_timeout (the
 * Service Timeout of the MRAs `mra` and `listen` send, IBA time value 0-31, default 31).
 *
 *   forge <src-dev> <dst-lid> <dst-gid> <service-id> <sgid-index> <private-data-hex>
 *       a peer with a real RC QP that claims another port's identity: the REQ's source GID is
 *       GID <sgid-index> of port 1 of <src-dev> (softib's gid_alias= gives a port another
 *       host's GID there; ib_cm finds the sending port by that GID, the first device holding
 *       it), its LID <src-dev>'s own, the private data (RFC 4755 §6, e.g. the victim's UD QPN
 *       and the bidirectional capability) as given. The QP posts 16 receives of 64 KiB, moves
 *       to RTR/RTS on the REP and sends the RTU; it stays until the next command or rmmod,
 *       counting what it receives (forge_rx= in the result line; reposted each time).
 *
 *   flood <src-dev> <dst-lid> <dst-gid> <service-id> <count> <gap-ms> [private-data-tail-hex]
 *       a hostile peer flooding REQs with distinct identities: <count> REQs (at most 4096), one
 *       every <gap-ms> ms, each from its own cm_id and naming its own RC QPN (0x800000 + i: ib_cm
 *       rejects a QPN it saw from the same CA as stale) and UD QPN (0x400000 + i, RFC 4755 §6
 *       private data with Receive MTU 65524, then the tail as given, e.g. a capability block).
 *       No REP is ever answered. The ids stay until `flood_end` or rmmod (their destroy sends
 *       the REJ ib_cm owes), not across other commands. The write returns once all are sent.
 *   flood_end
 *       destroys the flood's ids.
 *
 *   listen <dev> <ud-qpn>
 *       a peer that stretches our handshake: listens on port 1 of <dev> for the IPoIB-CM
 *       service ID of the UD QPN <ud-qpn> (hex; Linux's 0x1000000000000000 | QPN, the one a
 *       REQ tries first), and answers every REQ it receives with an MRA (Service Timeout
 *       `mra_timeout`) and then nothing: no REP, no REJ. A static neighbour whose 20-octet
 *       address has the connected-mode flag, <ud-qpn> and <dev>'s port GID makes our driver
 *       connect to it. The REQs' ids stay until `listen_end` or rmmod (their destroy sends
 *       the REJ ib_cm owes), not across other commands. Replaces an earlier listener.
 *   listen_end
 *       stops listening and destroys the REQs' ids.
 *
 * Reading the file gives the last outcome, one line:
 *   result=rej|rep|req_error|timeout|error reason=<REJ reason> rep_mtu=<Receive MTU in the REP
 *   private data> rep_qpn=<UD QPN in it> rep_len=<its length> close=drep|dreq_error|none
 *   rej_qpn=<UD QPN in a REJ's private data (RFC 4755 §3.2, 0 when none)> rej_mtu=<Receive MTU
 *   in it> mra=sent|failed|none (`mra`: the MRA for the REP)
 * followed, once a flood was sent, by " flood_sent=N flood_rep=N flood_rej=N flood_rej3=N
 * flood_rej_pd=N flood_err=N" (REPs, REJs, of them No Resources and those whose private data
 * names a UD QPN, REQ errors: the sum counts the answers so far), and once a listener was
 * started, by " listen_req=N listen_mra=N listen_rej=N listen_rej_reason=R" (REQs received,
 * MRAs sent for them, REJs received on their ids and the last one's reason: ib_cm's REJ 4,
 * Timeout, when the REQ's sender gives up and destroys its id).
 */
#include <linux/module.h>
#include <linux/debugfs.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/random.h>
#include <rdma/ib_verbs.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_cm.h>

#define REQ_PRIV_MAX 92		/* IB_CM_REQ_PRIVATE_DATA_SIZE */
#define WAIT_JIFFIES (15 * HZ)

enum then { THEN_REJ, THEN_RTU, THEN_VANISH, THEN_MRA, THEN_FORGE, THEN_FLOOD };
#define LISTEN_MAX 16
#define FLOOD_MAX 4096

#define FORGE_RECVS 16
#define FORGE_BUF 65536

/* THEN_FORGE: the forger's RC QP, its CQ and receive buffers */
struct forge {
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct ib_qp *qp;
	struct ib_cqe cqe;
	void *buf[FORGE_RECVS];
	u64 dma[FORGE_RECVS];
	atomic_t rx;		/* receives completed successfully */
	atomic_t rx_err;	/* and in error (flushes included) */
};

struct probe {
	struct ib_device *dev;
	struct ib_cm_id *id;
	enum then then;
	struct completion outcome;	/* REJ, REP handled or an error */
	struct completion closed;	/* DREP or DREQ error (THEN_RTU) */
	char result[16];
	int reason;
	u32 rep_mtu, rep_qpn, rep_len;
	u32 rej_mtu, rej_qpn;
	char close[16];
	const char *mra;
	struct forge *fg;	/* THEN_FORGE */
};

static unsigned int cm_timeout = 16, cm_retries = 3, life = 14;
module_param(cm_timeout, uint, 0644);
MODULE_PARM_DESC(cm_timeout, "REQ remote/local CM response timeout (IBA time value, 0-31)");
module_param(cm_retries, uint, 0644);
MODULE_PARM_DESC(cm_retries, "REQ Max CM Retries (0-15)");
module_param(life, uint, 0644);
MODULE_PARM_DESC(life, "path packet lifetime (IBA time value, 0-30)");
static unsigned int mra_timeout = 31;
module_param(mra_timeout, uint, 0644);
MODULE_PARM_DESC(mra_timeout, "Service Timeout of the MRAs sent (`mra`, `listen`; IBA time value, 0-31)");
static unsigned int pkey = 0xffff;
module_param(pkey, uint, 0644);
MODULE_PARM_DESC(pkey, "the REQ's P_Key (in the sending port's table, e.g. softib pkeys=; default 0xffff)");

static DEFINE_MUTEX(ctl_lock);
static struct probe *silent;	/* THEN_VANISH, THEN_MRA, THEN_FORGE: kept until the next command */
static char last[256] = "result=none\n";
/* the flood's probes (THEN_FLOOD), kept until flood_end or rmmod, and what answered them */
static struct probe **flood;
static unsigned int flood_n;
static atomic_t flood_rep, flood_rej, flood_rej3, flood_rej_pd, flood_err;
static struct dentry *dir;
/* the listener (listen): its id, the ids of the REQs it received, and what happened to them */
static struct ib_cm_id *listener;
static struct ib_device *listen_dev;
static DEFINE_SPINLOCK(listen_lock);
static struct ib_cm_id *listen_ids[LISTEN_MAX];
static unsigned int listen_n;
static bool listen_started;
static atomic_t listen_req, listen_mra, listen_rej, listen_rej_reason;

static void finish(struct probe *p, const char *result)
{
	strscpy(p->result, result, sizeof(p->result));
	complete(&p->outcome);
}

static int forge_post(struct forge *fg, int i)
{
	struct ib_sge sge = { .addr = fg->dma[i], .length = FORGE_BUF, .lkey = fg->pd->local_dma_lkey };
	struct ib_recv_wr wr = { .wr_cqe = &fg->cqe, .sg_list = &sge, .num_sge = 1 };
	const struct ib_recv_wr *bad;

	return ib_post_recv(fg->qp, &wr, &bad);
}

/* every receive is reposted into the next free buffer in turn (they are only counted) */
static void forge_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct forge *fg = container_of(wc->wr_cqe, struct forge, cqe);
	static unsigned int next;

	if (wc->status != IB_WC_SUCCESS) {
		atomic_inc(&fg->rx_err);
		return;
	}
	atomic_inc(&fg->rx);
	forge_post(fg, next++ % FORGE_RECVS);
}

static void forge_free(struct ib_device *dev, struct forge *fg)
{
	int i;

	if (!fg)
		return;
	if (fg->qp)
		ib_destroy_qp(fg->qp);
	if (fg->cq)
		ib_free_cq(fg->cq);
	for (i = 0; i < FORGE_RECVS; i++) {
		if (!fg->buf[i])
			continue;
		ib_dma_unmap_single(dev, fg->dma[i], FORGE_BUF, DMA_FROM_DEVICE);
		kfree(fg->buf[i]);
	}
	if (fg->pd)
		ib_dealloc_pd(fg->pd);
	kfree(fg);
}

static struct forge *forge_create(struct ib_device *dev)
{
	struct ib_qp_init_attr qa = {};
	struct ib_qp_attr a = {};
	struct forge *fg = kzalloc(sizeof(*fg), GFP_KERNEL);
	int i;

	if (!fg)
		return NULL;
	fg->cqe.done = forge_done;
	fg->pd = ib_alloc_pd(dev, 0);
	if (IS_ERR(fg->pd)) {
		fg->pd = NULL;
		goto fail;
	}
	fg->cq = ib_alloc_cq(dev, NULL, 2 * FORGE_RECVS + 8, 0, IB_POLL_SOFTIRQ);
	if (IS_ERR(fg->cq)) {
		fg->cq = NULL;
		goto fail;
	}
	qa.send_cq = fg->cq;
	qa.recv_cq = fg->cq;
	qa.qp_type = IB_QPT_RC;
	qa.cap.max_send_wr = 4;
	qa.cap.max_recv_wr = FORGE_RECVS;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	qa.sq_sig_type = IB_SIGNAL_ALL_WR;
	fg->qp = ib_create_qp(fg->pd, &qa);
	if (IS_ERR(fg->qp)) {
		fg->qp = NULL;
		goto fail;
	}
	a.qp_state = IB_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = 1;
	a.qp_access_flags = 0;
	if (ib_modify_qp(fg->qp, &a, IB_QP_STATE | IB_QP_PKEY_INDEX | IB_QP_PORT | IB_QP_ACCESS_FLAGS))
		goto fail;
	for (i = 0; i < FORGE_RECVS; i++) {
		fg->buf[i] = kmalloc(FORGE_BUF, GFP_KERNEL);
		if (!fg->buf[i])
			goto fail;
		fg->dma[i] = ib_dma_map_single(dev, fg->buf[i], FORGE_BUF, DMA_FROM_DEVICE);
		if (ib_dma_mapping_error(dev, fg->dma[i])) {
			kfree(fg->buf[i]);
			fg->buf[i] = NULL;
			goto fail;
		}
		if (forge_post(fg, i))
			goto fail;
	}
	return fg;
fail:
	forge_free(dev, fg);
	return NULL;
}

/* REP received: RTR, RTS as ib_cm computes them, then the RTU */
static int forge_rep(struct probe *p)
{
	static const enum ib_qp_state to[] = { IB_QPS_RTR, IB_QPS_RTS };
	int i, mask, ret;

	for (i = 0; i < ARRAY_SIZE(to); i++) {
		struct ib_qp_attr a = { .qp_state = to[i] };

		mask = 0;
		ret = ib_cm_init_qp_attr(p->id, &a, &mask);
		if (!ret)
			ret = ib_modify_qp(p->fg->qp, &a, mask);
		if (ret)
			return ret;
	}
	return ib_send_cm_rtu(p->id, NULL, 0);
}

static int handler(struct ib_cm_id *id, const struct ib_cm_event *ev)
{
	struct probe *p = id->context;
	const u8 *pd = ev->private_data;

	if (p->then == THEN_FLOOD) {	/* never answered: only counted */
		if (ev->event == IB_CM_REP_RECEIVED)
			atomic_inc(&flood_rep);
		else if (ev->event == IB_CM_REJ_RECEIVED) {
			atomic_inc(&flood_rej);
			if (ev->param.rej_rcvd.reason == IB_CM_REJ_NO_RESOURCES)
				atomic_inc(&flood_rej3);
			/* RFC 4755 §3.2: the REJ carries the rejecter's private data (its UD QPN) */
			if (pd && (pd[1] | pd[2] | pd[3]))
				atomic_inc(&flood_rej_pd);
		} else if (ev->event == IB_CM_REQ_ERROR)
			atomic_inc(&flood_err);
		return 0;
	}
	switch (ev->event) {
	case IB_CM_REJ_RECEIVED:
		p->reason = ev->param.rej_rcvd.reason;
		if (pd) {	/* RFC 4755 §3.2: the rejecter's UD QPN and Receive MTU, as in a REP */
			p->rej_qpn = (pd[1] << 16) | (pd[2] << 8) | pd[3];
			p->rej_mtu = (pd[4] << 24) | (pd[5] << 16) | (pd[6] << 8) | pd[7];
		}
		finish(p, "rej");
		break;
	case IB_CM_REP_RECEIVED:
		if (pd) {	/* ib_cm always hands the whole, zero-padded field */
			p->rep_qpn = (pd[1] << 16) | (pd[2] << 8) | pd[3];
			p->rep_mtu = (pd[4] << 24) | (pd[5] << 16) | (pd[6] << 8) | pd[7];
			p->rep_len = IB_CM_REP_PRIVATE_DATA_SIZE;
		}
		if (p->then == THEN_REJ) {
			ib_send_cm_rej(id, IB_CM_REJ_CONSUMER_DEFINED, NULL, 0, NULL, 0);
		} else if (p->then == THEN_RTU) {
			if (ib_send_cm_rtu(id, NULL, 0))
				strscpy(p->close, "rtu_failed", sizeof(p->close));
		} else if (p->then == THEN_FORGE) {
			if (forge_rep(p))
				strscpy(p->close, "rtu_failed", sizeof(p->close));
		} else if (p->then == THEN_MRA) {
			/* from REP_RCVD: ib_cm sends it (MRAed: REP) and resends it for a duplicate REP */
			p->mra = ib_send_cm_mra(id, min(mra_timeout, 31u), NULL, 0) ? "failed" : "sent";
		}
		finish(p, "rep");
		break;
	case IB_CM_REQ_ERROR:
		finish(p, "req_error");
		break;
	case IB_CM_DREP_RECEIVED:
		strscpy(p->close, "drep", sizeof(p->close));
		complete(&p->closed);
		break;
	case IB_CM_DREQ_ERROR:
		strscpy(p->close, "dreq_error", sizeof(p->close));
		complete(&p->closed);
		break;
	case IB_CM_DREQ_RECEIVED:
		ib_send_cm_drep(id, NULL, 0);
		strscpy(p->close, "peer_dreq", sizeof(p->close));
		complete(&p->closed);
		break;
	default:
		break;
	}
	return 0;
}

static void probe_free(struct probe *p)
{
	if (!p)
		return;
	if (p->id)
		ib_destroy_cm_id(p->id);	/* sends what the CM state still owes (REJ/DREQ) */
	forge_free(p->dev, p->fg);
	ib_device_put(p->dev);
	kfree(p);
}

static int parse_hex(const char *s, u8 *out, size_t max, size_t *len)
{
	size_t n = strlen(s);

	if (n % 2 || n / 2 > max)
		return -EINVAL;
	*len = n / 2;
	return hex2bin(out, s, *len);
}

/* the REQ's primary path: from port 1 of dev (source GID sgid_index) to dlid/gidhex */
static int fill_path(struct ib_device *dev, u32 dlid, const char *gidhex, int sgid_index, struct sa_path_rec *path)
{
	struct ib_port_attr attr;
	size_t gidlen;
	int ret;

	if (parse_hex(gidhex, path->dgid.raw, sizeof(path->dgid.raw), &gidlen) || gidlen != 16)
		return -EINVAL;
	ret = ib_query_port(dev, 1, &attr);
	if (ret)
		return ret;
	ret = rdma_query_gid(dev, 1, sgid_index, &path->sgid);
	if (ret)
		return ret;
	path->rec_type = SA_PATH_REC_TYPE_IB;
	sa_path_set_dlid(path, dlid);
	sa_path_set_slid(path, attr.lid);
	path->pkey = cpu_to_be16(pkey);
	path->mtu = attr.active_mtu;
	path->rate = IB_RATE_10_GBPS;
	path->packet_life_time = min(life, 30u);
	path->hop_limit = 0;
	path->reversible = 1;
	path->numb_path = 1;
	return 0;
}

/* a new cm_id for p, and its REQ sent */
static int send_req(struct probe *p, struct sa_path_rec *path, u64 sid, u32 qpn, const u8 *priv, size_t privlen)
{
	struct ib_cm_req_param req = {};

	p->id = ib_create_cm_id(p->dev, handler, p);
	if (IS_ERR(p->id)) {
		int ret = PTR_ERR(p->id);

		p->id = NULL;
		return ret;
	}
	req.primary_path = path;
	req.service_id = cpu_to_be64(sid);
	req.qp_num = qpn;
	req.qp_type = IB_QPT_RC;
	req.starting_psn = get_random_u32() & 0xffffff;
	req.private_data = privlen ? priv : NULL;
	req.private_data_len = privlen;
	req.remote_cm_response_timeout = min(cm_timeout, 31u);
	req.local_cm_response_timeout = min(cm_timeout, 31u);
	req.retry_count = 0;
	req.rnr_retry_count = 0;
	req.max_cm_retries = min(cm_retries, 15u);
	return ib_send_cm_req(p->id, &req);
}

static struct probe *probe_new(const char *devname, enum then then)
{
	struct probe *p = kzalloc(sizeof(*p), GFP_KERNEL);

	if (!p)
		return NULL;
	init_completion(&p->outcome);
	init_completion(&p->closed);
	strscpy(p->close, "none", sizeof(p->close));
	strscpy(p->result, "timeout", sizeof(p->result));
	p->mra = "none";
	p->then = then;
	p->dev = ib_device_get_by_name(devname, RDMA_DRIVER_UNKNOWN);
	if (!p->dev) {
		kfree(p);
		return NULL;
	}
	return p;
}

static void flood_free(void)
{
	unsigned int i;

	for (i = 0; i < flood_n; i++)
		probe_free(flood[i]);
	kfree(flood);
	flood = NULL;
	flood_n = 0;
}

/* THEN_FLOOD: count REQs, each with its own identity, gap_ms apart; never answered */
static int run_flood(const char *devname, u32 dlid, const char *gidhex, u64 sid, unsigned int count,
		     unsigned int gap_ms, const char *tailhex)
{
	struct sa_path_rec path = {};
	u8 priv[REQ_PRIV_MAX] = {};
	size_t tail = 0;
	unsigned int i;
	int ret = 0;

	if (!count || count > FLOOD_MAX || (tailhex && parse_hex(tailhex, priv + 8, sizeof(priv) - 8, &tail)))
		return -EINVAL;
	flood_free();
	atomic_set(&flood_rep, 0);
	atomic_set(&flood_rej, 0);
	atomic_set(&flood_rej3, 0);
	atomic_set(&flood_rej_pd, 0);
	atomic_set(&flood_err, 0);
	flood = kcalloc(count, sizeof(*flood), GFP_KERNEL);
	if (!flood)
		return -ENOMEM;
	for (i = 0; i < count; i++) {
		struct probe *p = probe_new(devname, THEN_FLOOD);
		u32 udqpn = 0x400000 + i;

		if (!p) {
			ret = -ENOMEM;
			break;
		}
		flood[flood_n++] = p;
		if (!i) {
			ret = fill_path(p->dev, dlid, gidhex, 0, &path);
			if (ret)
				break;
		}
		/* RFC 4755 §6: reserved octet, UD QPN, Receive MTU 65524 */
		priv[1] = udqpn >> 16;
		priv[2] = udqpn >> 8;
		priv[3] = udqpn;
		priv[4] = 0;
		priv[5] = 0;
		priv[6] = 0xff;
		priv[7] = 0xf4;
		ret = send_req(p, &path, sid, 0x800000 + i, priv, 8 + tail);
		if (ret)
			break;
		if (gap_ms)
			msleep(gap_ms);
	}
	snprintf(last, sizeof(last),
		 "result=flood reason=%d rep_mtu=0 rep_qpn=0x0 rep_len=0 close=none rej_qpn=0x0 rej_mtu=0 mra=none\n", ret);
	return ret;
}

/* listen: a REQ for the listener's service ID (on a new id) or an event on one of those ids */
static int listen_handler(struct ib_cm_id *id, const struct ib_cm_event *ev)
{
	unsigned long flags;

	switch (ev->event) {
	case IB_CM_REQ_RECEIVED:
		atomic_inc(&listen_req);
		spin_lock_irqsave(&listen_lock, flags);
		if (listen_n >= LISTEN_MAX) {
			spin_unlock_irqrestore(&listen_lock, flags);
			return -ENOMEM;	/* ib_cm destroys the id */
		}
		listen_ids[listen_n++] = id;
		spin_unlock_irqrestore(&listen_lock, flags);
		/* from REQ_RCVD (MRAed: REQ); then nothing, until the sender gives up */
		if (!ib_send_cm_mra(id, min(mra_timeout, 31u), NULL, 0))
			atomic_inc(&listen_mra);
		return 0;
	case IB_CM_REJ_RECEIVED:
		atomic_set(&listen_rej_reason, ev->param.rej_rcvd.reason);
		atomic_inc(&listen_rej);
		return 0;
	default:
		return 0;
	}
}

static void listen_free(void)
{
	struct ib_cm_id *ids[LISTEN_MAX];
	unsigned long flags;
	unsigned int i, n;

	if (listener)
		ib_destroy_cm_id(listener);	/* no new REQ reaches us after this */
	listener = NULL;
	spin_lock_irqsave(&listen_lock, flags);
	n = listen_n;
	memcpy(ids, listen_ids, n * sizeof(*ids));
	listen_n = 0;
	spin_unlock_irqrestore(&listen_lock, flags);
	for (i = 0; i < n; i++)
		ib_destroy_cm_id(ids[i]);	/* sends the REJ its state still owes */
	if (listen_dev)
		ib_device_put(listen_dev);
	listen_dev = NULL;
}

/* listen: the IPoIB-CM service ID (Linux's) of ud_qpn on port 1 of devname; every REQ MRAed */
static int run_listen(const char *devname, u32 ud_qpn)
{
	struct ib_device *dev;
	struct ib_cm_id *id;
	int ret;

	listen_free();
	/* before the listen: a REQ handled right after it must stay counted */
	atomic_set(&listen_req, 0);
	atomic_set(&listen_mra, 0);
	atomic_set(&listen_rej, 0);
	atomic_set(&listen_rej_reason, 0);
	dev = ib_device_get_by_name(devname, RDMA_DRIVER_UNKNOWN);
	if (!dev)
		return -ENODEV;
	id = ib_create_cm_id(dev, listen_handler, NULL);
	if (IS_ERR(id)) {
		ib_device_put(dev);
		return PTR_ERR(id);
	}
	ret = ib_cm_listen(id, cpu_to_be64(0x1000000000000000ULL | (ud_qpn & 0xffffff)));
	if (ret) {
		ib_destroy_cm_id(id);
		ib_device_put(dev);
		return ret;
	}
	listener = id;
	listen_dev = dev;
	listen_started = true;
	return 0;
}

static int run_req(const char *devname, u32 dlid, const char *gidhex, u64 sid,
		   enum then then, const char *privhex, int sgid_index)
{
	struct sa_path_rec path = {};
	u8 priv[REQ_PRIV_MAX];
	size_t privlen = 0;
	struct probe *p;
	int ret;

	if (privhex && parse_hex(privhex, priv, sizeof(priv), &privlen))
		return -EINVAL;
	p = probe_new(devname, then);
	if (!p)
		return -ENODEV;
	ret = fill_path(p->dev, dlid, gidhex, sgid_index, &path);
	if (ret)
		goto out;
	if (then == THEN_FORGE) {
		p->fg = forge_create(p->dev);
		ret = -ENOMEM;
		if (!p->fg)
			goto out;
	}
	/* else nobody's QP */
	ret = send_req(p, &path, sid, p->fg ? p->fg->qp->qp_num : 0xabcde0 | (get_random_u32() & 0xf),
		       priv, privlen);
	if (ret)
		goto out;
	if (!wait_for_completion_timeout(&p->outcome, WAIT_JIFFIES))
		strscpy(p->result, "timeout", sizeof(p->result));
	if (then == THEN_RTU && !strcmp(p->result, "rep") && !strcmp(p->close, "none")) {
		msleep(200);
		if (ib_send_cm_dreq(p->id, NULL, 0))
			strscpy(p->close, "dreq_failed", sizeof(p->close));
		else if (!wait_for_completion_timeout(&p->closed, WAIT_JIFFIES))
			strscpy(p->close, "dreq_timeout", sizeof(p->close));
	}
	snprintf(last, sizeof(last),
		 "result=%s reason=%d rep_mtu=%u rep_qpn=0x%x rep_len=%u close=%s rej_qpn=0x%x rej_mtu=%u mra=%s\n",
		 p->result, p->reason, p->rep_mtu, p->rep_qpn, p->rep_len, p->close, p->rej_qpn, p->rej_mtu, p->mra);
	if ((then == THEN_VANISH || then == THEN_MRA || then == THEN_FORGE) && !strcmp(p->result, "rep")) {
		silent = p;	/* keep the id silent: no RTU, no REJ, until the next command */
		return 0;
	}
	ret = 0;
out:
	probe_free(p);
	return ret;
}

static ssize_t ctl_write(struct file *f, const char __user *ubuf, size_t len, loff_t *off)
{
	char buf[320], dev[32], gid[40], then[8], priv[2 * REQ_PRIV_MAX + 2] = "";
	unsigned long long sid;
	unsigned int dlid;
	int sgid_index = 0;
	enum then t;
	int n, ret;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = 0;
	if (!strncmp(buf, "flood_end", 9)) {
		mutex_lock(&ctl_lock);
		flood_free();
		mutex_unlock(&ctl_lock);
		return len;
	}
	if (!strncmp(buf, "listen_end", 10)) {
		mutex_lock(&ctl_lock);
		listen_free();
		mutex_unlock(&ctl_lock);
		return len;
	}
	if (!strncmp(buf, "listen ", 7)) {
		unsigned int ud_qpn;

		if (sscanf(buf, "listen %31s %x", dev, &ud_qpn) != 2 || !ud_qpn || ud_qpn > 0xffffff)
			return -EINVAL;
		mutex_lock(&ctl_lock);
		ret = run_listen(dev, ud_qpn);
		mutex_unlock(&ctl_lock);
		return ret ? ret : len;
	}
	if (!strncmp(buf, "flood ", 6)) {
		unsigned int count, gap;

		n = sscanf(buf, "flood %31s %u %39s %llx %u %u %186s", dev, &dlid, gid, &sid, &count, &gap, priv);
		if (n < 6)
			return -EINVAL;
		mutex_lock(&ctl_lock);
		ret = run_flood(dev, dlid, gid, sid, count, gap, n == 7 ? priv : NULL);
		mutex_unlock(&ctl_lock);
		return ret ? ret : len;
	}
	if (!strncmp(buf, "forge ", 6)) {
		n = sscanf(buf, "forge %31s %u %39s %llx %d %186s", dev, &dlid, gid, &sid, &sgid_index, priv);
		if (n != 6 || sgid_index < 0)
			return -EINVAL;
		strscpy(then, "forge", sizeof(then));
	} else {
		n = sscanf(buf, "req %31s %u %39s %llx %7s %186s", dev, &dlid, gid, &sid, then, priv);
		if (n < 5)
			return -EINVAL;
	}
	if (!strcmp(then, "forge"))
		t = THEN_FORGE;
	else if (!strcmp(then, "rej"))
		t = THEN_REJ;
	else if (!strcmp(then, "rtu"))
		t = THEN_RTU;
	else if (!strcmp(then, "vanish"))
		t = THEN_VANISH;
	else if (!strcmp(then, "mra"))
		t = THEN_MRA;
	else
		return -EINVAL;
	mutex_lock(&ctl_lock);
	probe_free(silent);
	silent = NULL;
	ret = run_req(dev, dlid, gid, sid, t, n == 6 ? priv : NULL, sgid_index);
	mutex_unlock(&ctl_lock);
	return ret ? ret : len;
}

static ssize_t ctl_read(struct file *f, char __user *ubuf, size_t len, loff_t *off)
{
	ssize_t r;

	char line[sizeof(last) + 256];

	mutex_lock(&ctl_lock);
	if (silent && silent->fg)
		snprintf(line, sizeof(line), "%.*s forge_rx=%d forge_rx_err=%d\n", (int)strcspn(last, "\n"), last,
			 atomic_read(&silent->fg->rx), atomic_read(&silent->fg->rx_err));
	else
		strscpy(line, last, sizeof(line));
	if (flood_n)
		snprintf(line + strcspn(line, "\n"), sizeof(line) - strcspn(line, "\n"),
			 " flood_sent=%u flood_rep=%d flood_rej=%d flood_rej3=%d flood_rej_pd=%d flood_err=%d\n",
			 flood_n, atomic_read(&flood_rep), atomic_read(&flood_rej), atomic_read(&flood_rej3),
			 atomic_read(&flood_rej_pd), atomic_read(&flood_err));
	if (listen_started)
		snprintf(line + strcspn(line, "\n"), sizeof(line) - strcspn(line, "\n"),
			 " listen_req=%d listen_mra=%d listen_rej=%d listen_rej_reason=%d\n", atomic_read(&listen_req),
			 atomic_read(&listen_mra), atomic_read(&listen_rej), atomic_read(&listen_rej_reason));
	r = simple_read_from_buffer(ubuf, len, off, line, strlen(line));
	mutex_unlock(&ctl_lock);
	return r;
}

static const struct file_operations ctl_fops = {
	.owner = THIS_MODULE,
	.read = ctl_read,
	.write = ctl_write,
	.llseek = default_llseek,
};

static int __init cmreq_init(void)
{
	dir = debugfs_create_dir("ipoib_cmreq_test", NULL);
	debugfs_create_file("ctl", 0600, dir, NULL, &ctl_fops);
	return 0;
}

static void __exit cmreq_exit(void)
{
	debugfs_remove_recursive(dir);
	mutex_lock(&ctl_lock);
	probe_free(silent);
	silent = NULL;
	flood_free();
	listen_free();
	mutex_unlock(&ctl_lock);
}

module_init(cmreq_init);
module_exit(cmreq_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("raw ib_cm REQ sender for the ib_ipoib_cm e2e scenarios (test only)");
