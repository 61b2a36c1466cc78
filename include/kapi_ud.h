/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kapi_ud.h - the datagram-mode part of the boundary: netdev, NAPI, skb, verbs (PD, CQ,
 * UD QP, AH, DMA), SA joins and path queries. Same rules as kapi.h: opaque types, plain C,
 * one kernel thing per function, no policy. Included by kapi.h.
 */
#ifndef KAPI_UD_H
#define KAPI_UD_H

#ifdef __cplusplus
extern "C" {
#endif

struct kapi_netdev;	/* struct net_device (its priv area belongs to the shim) */
struct kapi_skb;	/* struct sk_buff */
struct kapi_pd;		/* struct ib_pd */
struct kapi_cq;		/* struct ib_cq */
struct kapi_qp;		/* struct ib_qp */
struct kapi_ah;		/* struct ib_ah */
struct kapi_mcast;	/* struct ib_sa_multicast */
struct kapi_path;	/* struct sa_path_rec, valid only during the path callback */

/* ---- port queries ---- */
struct kapi_port_attr {
	kapi_u32 state;		/* enum ib_port_state; 4 = ACTIVE */
	kapi_u32 lid;
	kapi_u32 sm_lid;
	kapi_u32 max_mtu;	/* enum ib_mtu (1 = 256 ... 5 = 4096) */
	kapi_u32 active_mtu;
	kapi_u32 active_speed;	/* enum ib_port_speed (1 SDR, 2 DDR, 4 QDR, 8 FDR10, 16 FDR, ...) */
	kapi_u32 active_width;	/* enum ib_port_width (1 = 1x, 2 = 4x, 4 = 8x, 8 = 12x, 16 = 2x) */
};
int kapi_ib_query_port(struct kapi_ib_device *dev, kapi_u32 port, struct kapi_port_attr *out) KAPI_NOEXCEPT;
int kapi_ib_query_pkey(struct kapi_ib_device *dev, kapi_u32 port, kapi_u16 index, kapi_u16 *pkey) KAPI_NOEXCEPT;
int kapi_ib_find_pkey(struct kapi_ib_device *dev, kapi_u32 port, kapi_u16 pkey, kapi_u16 *index) KAPI_NOEXCEPT;
int kapi_ib_query_gid(struct kapi_ib_device *dev, kapi_u32 port, int index, kapi_u8 gid[16]) KAPI_NOEXCEPT;

/* Asynchronous IB events of one device: ipoib_core_if_event(ctx, kind, port) for port
 * events (kind below); NULL on allocation failure. */
enum kapi_ib_event_kind {
	KAPI_EV_OTHER, KAPI_EV_PORT_ACTIVE, KAPI_EV_PORT_ERR, KAPI_EV_LID_CHANGE, KAPI_EV_PKEY_CHANGE,
	KAPI_EV_SM_CHANGE, KAPI_EV_CLIENT_REREGISTER, KAPI_EV_GID_CHANGE,
};
struct kapi_event_handler;
struct kapi_event_handler *kapi_ib_event_register(struct kapi_ib_device *dev, void *ctx) KAPI_NOEXCEPT;
void kapi_ib_event_unregister(struct kapi_event_handler *h) KAPI_NOEXCEPT;

/* ---- debugfs: <root>/ib_ipoib_cm/<name>/{paths,mcast,neigh}; reads call ipoib_core_if_show ---- */
struct kapi_seq;	/* struct seq_file */
struct kapi_debugfs;
int kapi_debugfs_init(void) KAPI_NOEXCEPT;	/* the module's root directory */
void kapi_debugfs_exit(void) KAPI_NOEXCEPT;
struct kapi_debugfs *kapi_debugfs_add(const char *name, void *core) KAPI_NOEXCEPT;	/* NULL if unavailable */
void kapi_debugfs_remove(struct kapi_debugfs *d) KAPI_NOEXCEPT;
void kapi_seq_printf(struct kapi_seq *s, const char *fmt, ...) KAPI_NOEXCEPT KAPI_PRINTF(2, 3);
enum kapi_debugfs_file { KAPI_DEBUGFS_PATHS, KAPI_DEBUGFS_MCAST, KAPI_DEBUGFS_NEIGH };

/* ---- netdev ---- */
/* Values the core decides; the shim copies them into the net_device. */
struct kapi_netdev_setup {
	const char *name;		/* template with %d */
	kapi_u32 dev_port;
	kapi_u32 mtu;
	kapi_u32 max_mtu;
	kapi_u32 tx_queue_len;
	kapi_u16 hard_header_len;	/* pseudo header + encapsulation header */
	kapi_u8 addr_len;
	kapi_u8 dev_addr[32];
	kapi_u8 broadcast[32];
	void *owner;			/* the core's Port: sysfs create/delete_child, rtnl links */
	struct kapi_netdev *parent;	/* a P_Key child's parent netdev; NULL for a port's own */
	struct kapi_netdev *adopt;	/* the net_device rtnl allocated for newlink, else NULL */
};
/* alloc_netdev + ARPHRD_INFINIBAND + ops tables; parent = the ib_device's parent device. */
struct kapi_netdev *kapi_netdev_alloc(const struct kapi_netdev_setup *setup, struct kapi_ib_device *ib,
				      void *core) KAPI_NOEXCEPT;
void kapi_netdev_free(struct kapi_netdev *nd) KAPI_NOEXCEPT;
int kapi_netdev_register(struct kapi_netdev *nd) KAPI_NOEXCEPT;
void kapi_netdev_unregister(struct kapi_netdev *nd) KAPI_NOEXCEPT;
/* The same with rtnl already held by the caller (sysfs create/delete_child, newlink, dellink). */
int kapi_netdev_register_locked(struct kapi_netdev *nd) KAPI_NOEXCEPT;
void kapi_netdev_unregister_locked(struct kapi_netdev *nd) KAPI_NOEXCEPT;
const char *kapi_netdev_name(const struct kapi_netdev *nd) KAPI_NOEXCEPT;
void kapi_netdev_set_dev_addr(struct kapi_netdev *nd, const kapi_u8 *addr) KAPI_NOEXCEPT;	/* takes rtnl */
/* For the work item (ndo_stop cancels it under rtnl): -EAGAIN when rtnl is busy. */
int kapi_netdev_set_dev_addr_trylock(struct kapi_netdev *nd, const kapi_u8 *addr) KAPI_NOEXCEPT;
void kapi_netdev_set_broadcast(struct kapi_netdev *nd, const kapi_u8 *addr) KAPI_NOEXCEPT;
/* dev_set_mtu under rtnl_trylock: -EAGAIN when rtnl is busy (the caller retries later). */
int kapi_netdev_set_mtu_trylock(struct kapi_netdev *nd, kapi_u32 mtu) KAPI_NOEXCEPT;
kapi_u32 kapi_netdev_mtu(const struct kapi_netdev *nd) KAPI_NOEXCEPT;
void kapi_netdev_set_max_mtu(struct kapi_netdev *nd, kapi_u32 mtu) KAPI_NOEXCEPT;
void kapi_netdev_carrier(struct kapi_netdev *nd, int on) KAPI_NOEXCEPT;
void kapi_netdev_start_queue(struct kapi_netdev *nd) KAPI_NOEXCEPT;
void kapi_netdev_stop_queue(struct kapi_netdev *nd) KAPI_NOEXCEPT;
void kapi_netdev_wake_queue(struct kapi_netdev *nd) KAPI_NOEXCEPT;
int kapi_netdev_queue_stopped(struct kapi_netdev *nd) KAPI_NOEXCEPT;
int kapi_netdev_is_up(struct kapi_netdev *nd) KAPI_NOEXCEPT;
void kapi_netdev_tx_lock_bh(struct kapi_netdev *nd) KAPI_NOEXCEPT;
void kapi_netdev_tx_unlock_bh(struct kapi_netdev *nd) KAPI_NOEXCEPT;
/* Copies up to max multicast hw addresses (addr_len bytes each) of the netdev; returns the count. */
int kapi_netdev_mc_list(struct kapi_netdev *nd, kapi_u8 *out, int max, int addr_len) KAPI_NOEXCEPT;
int kapi_netdev_allmulti(struct kapi_netdev *nd) KAPI_NOEXCEPT;

/* The one work item of a netdev: runs ipoib_core_if_work(core) in process context. */
void kapi_netdev_schedule_work(struct kapi_netdev *nd, unsigned int delay_ms) KAPI_NOEXCEPT;
void kapi_netdev_cancel_work(struct kapi_netdev *nd) KAPI_NOEXCEPT;	/* _sync */

/* NAPI (one per netdev) */
void kapi_napi_enable(struct kapi_netdev *nd) KAPI_NOEXCEPT;
void kapi_napi_disable(struct kapi_netdev *nd) KAPI_NOEXCEPT;
void kapi_napi_schedule(struct kapi_netdev *nd) KAPI_NOEXCEPT;
/* napi_complete_done; returns 0 if the poll must not re-arm the CQs */
int kapi_napi_complete_done(struct kapi_netdev *nd, int done) KAPI_NOEXCEPT;

void kapi_msleep(unsigned int ms) KAPI_NOEXCEPT;
kapi_u64 kapi_now_ms(void) KAPI_NOEXCEPT;	/* jiffies in ms, monotonic */

/* ---- skb ---- */
enum kapi_pkt_type { KAPI_PACKET_HOST = 0, KAPI_PACKET_BROADCAST = 1, KAPI_PACKET_MULTICAST = 2 };
struct kapi_skb *kapi_skb_alloc(struct kapi_netdev *nd, kapi_u32 size, kapi_u32 headroom, unsigned int gfp) KAPI_NOEXCEPT;
void kapi_skb_free(struct kapi_skb *skb) KAPI_NOEXCEPT;		/* dev_kfree_skb_any: a drop */
void kapi_skb_consume(struct kapi_skb *skb) KAPI_NOEXCEPT;	/* dev_consume_skb_any: sent */
kapi_u8 *kapi_skb_data(struct kapi_skb *skb) KAPI_NOEXCEPT;
kapi_u32 kapi_skb_len(const struct kapi_skb *skb) KAPI_NOEXCEPT;
kapi_u32 kapi_skb_headlen(const struct kapi_skb *skb) KAPI_NOEXCEPT;
kapi_u32 kapi_skb_headroom(const struct kapi_skb *skb) KAPI_NOEXCEPT;
kapi_u8 *kapi_skb_put(struct kapi_skb *skb, kapi_u32 len) KAPI_NOEXCEPT;
kapi_u8 *kapi_skb_push(struct kapi_skb *skb, kapi_u32 len) KAPI_NOEXCEPT;
kapi_u8 *kapi_skb_pull(struct kapi_skb *skb, kapi_u32 len) KAPI_NOEXCEPT;
int kapi_skb_linearize(struct kapi_skb *skb) KAPI_NOEXCEPT;
/* Sets protocol (ethertype, host order), pkt_type, dev, mac header = data, pulls mac_len, GRO. */
void kapi_skb_gro_receive(struct kapi_netdev *nd, struct kapi_skb *skb, kapi_u16 proto,
			  enum kapi_pkt_type type, kapi_u32 mac_len) KAPI_NOEXCEPT;
/* dev_queue_xmit (the skb's data must start at its hard header again) */
void kapi_skb_requeue(struct kapi_skb *skb) KAPI_NOEXCEPT;

/* ---- verbs ---- */
struct kapi_pd *kapi_pd_alloc(struct kapi_ib_device *ib) KAPI_NOEXCEPT;	/* NULL on failure */
void kapi_pd_free(struct kapi_pd *pd) KAPI_NOEXCEPT;
kapi_u32 kapi_pd_lkey(const struct kapi_pd *pd) KAPI_NOEXCEPT;
/* A CQ whose completion event schedules nd's NAPI. */
struct kapi_cq *kapi_cq_create_napi(struct kapi_ib_device *ib, struct kapi_netdev *nd, int entries) KAPI_NOEXCEPT;
void kapi_cq_destroy(struct kapi_cq *cq) KAPI_NOEXCEPT;
/* rdma_set_cq_moderation */
int kapi_cq_moderate(struct kapi_cq *cq, kapi_u16 count, kapi_u16 usecs) KAPI_NOEXCEPT;
/* ib_req_notify_cq(NEXT_COMP | REPORT_MISSED_EVENTS): > 0 means poll again */
int kapi_cq_arm(struct kapi_cq *cq) KAPI_NOEXCEPT;

struct kapi_wc {
	kapi_u64 wr_id;
	kapi_u32 status;	/* 0 = success; KAPI_WC_WR_FLUSH_ERR on flush */
	kapi_u32 byte_len;
	kapi_u32 src_qp;
	kapi_u32 slid;
	kapi_u32 vendor_err;
	kapi_u8 grh;		/* IB_WC_GRH */
	kapi_u8 is_recv;
	kapi_u8 pad[2];
};
#define KAPI_WC_WR_FLUSH_ERR 5
/* ib_poll_cq into a kapi_wc array; returns the count (< 0 on error). */
int kapi_cq_poll(struct kapi_cq *cq, struct kapi_wc *wc, int n) KAPI_NOEXCEPT;

struct kapi_qp *kapi_ud_qp_create(struct kapi_pd *pd, struct kapi_cq *send_cq, struct kapi_cq *recv_cq,
				  kapi_u32 send_wr, kapi_u32 recv_wr) KAPI_NOEXCEPT;	/* NULL or ERR-free */
void kapi_qp_destroy(struct kapi_qp *qp) KAPI_NOEXCEPT;
kapi_u32 kapi_qp_num(const struct kapi_qp *qp) KAPI_NOEXCEPT;
int kapi_ud_qp_to_init(struct kapi_qp *qp, kapi_u32 port, kapi_u16 pkey_index, kapi_u32 qkey) KAPI_NOEXCEPT;
int kapi_ud_qp_to_rts(struct kapi_qp *qp) KAPI_NOEXCEPT;	/* RTR then RTS, sq_psn 0 */
int kapi_qp_set_qkey(struct kapi_qp *qp, kapi_u32 qkey) KAPI_NOEXCEPT;
int kapi_qp_to_error(struct kapi_qp *qp) KAPI_NOEXCEPT;
int kapi_qp_attach_mcast(struct kapi_qp *qp, const kapi_u8 mgid[16], kapi_u16 mlid) KAPI_NOEXCEPT;
int kapi_qp_detach_mcast(struct kapi_qp *qp, const kapi_u8 mgid[16], kapi_u16 mlid) KAPI_NOEXCEPT;

struct kapi_recv {
	kapi_u64 wr_id;
	kapi_u64 addr;
	kapi_u32 len;
};
/* Posts n receives as one chain (lkey = pd's local_dma_lkey); returns 0 or -errno. */
int kapi_post_recv(struct kapi_qp *qp, kapi_u32 lkey, const struct kapi_recv *r, int n) KAPI_NOEXCEPT;
struct kapi_ud_send {
	kapi_u64 wr_id;
	kapi_u64 addr;
	kapi_u32 len;
	kapi_u32 remote_qpn;
	kapi_u32 remote_qkey;
	struct kapi_ah *ah;
};
int kapi_post_send_ud(struct kapi_qp *qp, kapi_u32 lkey, const struct kapi_ud_send *s, int n) KAPI_NOEXCEPT;

/* AHs: from a joined group's record, or from a path record (only inside the path callback). */
struct kapi_ah *kapi_ah_create_mcast(struct kapi_pd *pd, kapi_u32 port, struct kapi_mcast *mc) KAPI_NOEXCEPT;
struct kapi_ah *kapi_ah_create_path(struct kapi_pd *pd, kapi_u32 port, struct kapi_path *path) KAPI_NOEXCEPT;
void kapi_ah_destroy(struct kapi_ah *ah) KAPI_NOEXCEPT;	/* sleepable */

/* DMA (ib_dma_*) */
enum kapi_dma_dir { KAPI_DMA_TO_DEVICE = 1, KAPI_DMA_FROM_DEVICE = 2 };
int kapi_dma_map(struct kapi_ib_device *ib, void *cpu, kapi_u32 len, enum kapi_dma_dir dir, kapi_u64 *out) KAPI_NOEXCEPT;
void kapi_dma_unmap(struct kapi_ib_device *ib, kapi_u64 addr, kapi_u32 len, enum kapi_dma_dir dir) KAPI_NOEXCEPT;

/* ---- SA ---- */
int kapi_sa_register(void) KAPI_NOEXCEPT;
void kapi_sa_unregister(void) KAPI_NOEXCEPT;

struct kapi_mcmember {
	kapi_u8 mgid[16];
	kapi_u8 port_gid[16];
	kapi_u32 qkey;
	kapi_u16 mlid;
	kapi_u16 pkey;
	kapi_u8 mtu;		/* enum ib_mtu */
	kapi_u8 mtu_selector;
	kapi_u8 rate;
	kapi_u8 rate_selector;
	kapi_u8 sl;
	kapi_u8 hop_limit;
	kapi_u8 traffic_class;
	kapi_u8 join_state;	/* bit 0 full, 1 non, 2 send-only non, 3 send-only full */
	kapi_u32 flow_label;
};
/* Join: copy_params != 0 sends Q_Key, MTU, rate, SL, ... from req too (non-broadcast groups).
 * The callback ipoib_core_join_done(ctx, mc, status) can run before this returns and again
 * later (errors such as -ENETRESET); never free the handle from the callback. */
struct kapi_mcast *kapi_sa_join(struct kapi_ib_device *ib, kapi_u32 port, const struct kapi_mcmember *req,
				int copy_params, void *ctx) KAPI_NOEXCEPT;	/* NULL on failure */
void kapi_sa_leave(struct kapi_mcast *mc) KAPI_NOEXCEPT;	/* ib_sa_free_multicast; sleeps */
/* ib_sa_get_mcmember_rec: 0 when some SA client on this port is already a member. */
int kapi_sa_mcmember_known(struct kapi_ib_device *ib, kapi_u32 port, const kapi_u8 mgid[16]) KAPI_NOEXCEPT;
void kapi_mcast_rec(const struct kapi_mcast *mc, struct kapi_mcmember *out) KAPI_NOEXCEPT;

/* Path query: DGID/SGID/P_Key, NUMB_PATH 1, TRAFFIC_CLASS 0. Completion: ipoib_core_path_done.
 * Returns the query id (>= 0) or -errno. */
int kapi_sa_path_query(struct kapi_ib_device *ib, kapi_u32 port, const kapi_u8 dgid[16], const kapi_u8 sgid[16],
		       kapi_u16 pkey, unsigned int timeout_ms, void *ctx, void **query) KAPI_NOEXCEPT;
void kapi_sa_cancel(int id, void *query) KAPI_NOEXCEPT;

/* ---- entry points of the datagram core (called only from the shim) ---- */
int ipoib_core_if_open(void *core) KAPI_NOEXCEPT;
int ipoib_core_if_stop(void *core) KAPI_NOEXCEPT;
int ipoib_core_if_xmit(void *core, struct kapi_skb *skb) KAPI_NOEXCEPT;	/* always consumes the skb */
void ipoib_core_if_tx_timeout(void *core) KAPI_NOEXCEPT;
void ipoib_core_if_rx_mode(void *core) KAPI_NOEXCEPT;	/* atomic context */
int ipoib_core_if_change_mtu(void *core, kapi_u32 mtu) KAPI_NOEXCEPT;
int ipoib_core_if_poll(void *core, int budget) KAPI_NOEXCEPT;
void ipoib_core_if_work(void *core) KAPI_NOEXCEPT;
int ipoib_core_if_header_create(void *core, struct kapi_skb *skb, kapi_u16 type, const kapi_u8 *daddr) KAPI_NOEXCEPT;
struct kapi_stats64 {
	kapi_u64 rx_packets, tx_packets, rx_bytes, tx_bytes, rx_errors, tx_errors, rx_dropped, tx_dropped, multicast;
};
void ipoib_core_if_stats(void *core, struct kapi_stats64 *out) KAPI_NOEXCEPT;
/* ethtool -S */
int ipoib_core_if_stat_count(void *core) KAPI_NOEXCEPT;
const char *ipoib_core_if_stat_name(void *core, int i) KAPI_NOEXCEPT;
kapi_u64 ipoib_core_if_stat_value(void *core, int i) KAPI_NOEXCEPT;
void ipoib_core_if_ring_sizes(void *core, kapi_u32 *tx, kapi_u32 *rx, kapi_u32 *max) KAPI_NOEXCEPT;
kapi_u32 ipoib_core_if_speed(void *core) KAPI_NOEXCEPT;	/* Mb/s, 0 = unknown */
/* ethtool -c/-C (receive CQ moderation) */
void ipoib_core_if_get_coalesce(void *core, kapi_u32 *usecs, kapi_u32 *frames) KAPI_NOEXCEPT;
int ipoib_core_if_set_coalesce(void *core, kapi_u32 usecs, kapi_u32 frames) KAPI_NOEXCEPT;	/* Mb/s, 0 = unknown */
int ipoib_core_join_done(void *ctx, struct kapi_mcast *mc, int status) KAPI_NOEXCEPT;
void ipoib_core_path_done(void *ctx, int status, struct kapi_path *path, kapi_u16 dlid) KAPI_NOEXCEPT;
void ipoib_core_if_event(void *core, enum kapi_ib_event_kind kind, kapi_u32 port) KAPI_NOEXCEPT;
void ipoib_core_if_show(void *core, enum kapi_debugfs_file which, struct kapi_seq *s) KAPI_NOEXCEPT;
/* sysfs */
int ipoib_core_if_mode_store(void *core, const char *buf, kapi_size_t len) KAPI_NOEXCEPT;
int ipoib_core_if_umcast(void *core) KAPI_NOEXCEPT;
int ipoib_core_if_umcast_store(void *core, const char *buf, kapi_size_t len) KAPI_NOEXCEPT;
kapi_u16 ipoib_core_if_pkey(void *core) KAPI_NOEXCEPT;

/* ---- P_Key children (kapi/link.c): the rtnl kind "ipoib" and sysfs create/delete_child ---- */
/* rtnl_link_register(); -EEXIST when another module (the in-tree ib_ipoib) holds the kind. */
int kapi_link_register(void) KAPI_NOEXCEPT;
void kapi_link_unregister(void) KAPI_NOEXCEPT;
/* What the shim read from an RTM_NEWLINK/CHANGELINK (IFLA_LINK, IFLA_IPOIB_*). */
struct kapi_link_args {
	kapi_u8 has_link, has_pkey, has_mode, has_umcast;
	kapi_u16 pkey, mode, umcast;
};
/* Entry points, all called with rtnl held. owner is the Port of the parent netdev. */
int ipoib_core_child_sysfs(void *owner, int create, const char *buf, kapi_size_t len) KAPI_NOEXCEPT;
/* parent: the IFLA_LINK device, NULL if missing or not ours; parent_owner NULL then too. */
int ipoib_core_child_newlink(void *parent_owner, struct kapi_netdev *parent, int parent_is_child,
			     struct kapi_netdev *dev, const struct kapi_link_args *a) KAPI_NOEXCEPT;
void ipoib_core_child_dellink(void *owner, void *core) KAPI_NOEXCEPT;
int ipoib_core_if_changelink(void *core, const struct kapi_link_args *a) KAPI_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif /* KAPI_UD_H */
