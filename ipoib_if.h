// SPDX-License-Identifier: GPL-2.0
// ipoib_if.h - the datagram-mode IPoIB interface (RFC 4391) of one bound IB port: its
// netdev, PD, CQs, UD QP, receive and send rings, multicast groups, neighbour table and
// path cache.
//
// Interface composes the owner types and keeps bring-up, teardown and the flush levels.
// Ownership (each kernel resource has one owner; staged teardown in Interface::teardown:
// unpublish -> quiesce -> free):
//   Interface -> netdev (net_device + NAPI + work)       who may call in: the stack, until unregister
//             -> PdHandle, CqHandle x2, UdQp (ipoib_ud_qp.h)   the provider, until destroy
//             -> RecvRing (skb + DMA mapping per slot), TxRing (skb + DMA mapping per send)
//             -> McastTable (McGroups: SA membership, AhRef, bounded skb queue)
//             -> PathCache (Paths: SA query, AhRef, bounded skb queue, query back-off)
//             -> NeighTable (RCU hash of Neigh by 20-octet address; each Neigh holds a Path ref)
//                + DworkHandle (the GC)
//             -> AhReaper (dead AHs, destroyed in process context)
//             -> EventHandle, DebugfsHandle (+ one tagged DebugFile per file)
//
// Locking order (outer first), each its own lockdep class:
//   netif tx lock (xmit)  ->  McastTable lock (KAPI_LOCK_IF_MCAST, irqsave)
//                         ->  PathCache lock (KAPI_LOCK_IF_PATHS, irqsave)
//                                               ->  NeighTable::lock_ (KAPI_LOCK_IF_NEIGH, irqsave)
//                         ->  CmTable lock (KAPI_LOCK_IF_CM, irqsave)
//                                               ->  Connection::lock_ (KAPI_LOCK_CM_CONN, irqsave)
//   any of them           ->  AhReaper lock (KAPI_LOCK_IF_AH_REAPER, irqsave; innermost)
//   The CmTable lock is never held around the path or neighbour locks (a path record is
//   copied under the path lock alone, ipoib_cm.h); a Connection's lock never around
//   the table's. The ICMP queue's lock (KAPI_LOCK_IF_ICMP) is never held with another driver lock.
//   The multicast and path locks are never held together. The neighbour lock is taken alone
//   (GC) or nested inside the path lock (xmit slow path inserting a Neigh for a live Path,
//   flush unlinking neighbours and paths together, debugfs neigh), never the other way round.
//   xmit's fast paths take no lock in datagram mode (connected mode's peer lookup takes the
//   CmTable lock, one uncontended spinlock per packet): unicast, an RCU lookup of the Neigh, then its Path's
//   published AH (set once per Path; the Path lives while a Neigh refers to it, the Neigh
//   until a grace period after it was unlinked); multicast, an RCU walk of the groups and
//   a joined group's published AH (McGroup::publish; the group freed a grace period after
//   it left the list). Only a group not joined yet takes the McastTable lock. None is held across a call that sleeps or
//   re-enters xmit (requeued skbs go to dev_queue_xmit after unlocking); RCU callbacks
//   (Neigh free -> Path put -> Ah put) take only the reaper's lock.
#pragma once

#include "core/ipoib_addr.h"
#include "core/ud/ipoib_ah.h"
#include "ipoib_cm.h"
#include "core/rings/ipoib_dispatch.h"
#include "core/ipoib_handles.h"
#include "core/ud/ipoib_mcast_table.h"
#include "core/ud/ipoib_path_cache.h"
#include "core/rings/ipoib_recv_ring.h"
#include "core/rings/ipoib_tx_ring.h"
#include "core/ipoib_ctx.h"
#include "core/ud/ipoib_neigh.h"
#include "core/netdev/ipoib_pkey.h"
#include "core/ud/ipoib_ud_qp.h"
#include "core/ud/ipoib_ud_repair.h"
#include "core/ipoib_work.h"
#include "kstd/inflight.h"
#include "kstd/lock.h"
#include "kstd/list.h"
#include "kstd/log.h"
#include "kstd/refcount.h"
#include "kstd/string.h"
#include "kstd/ring.h"
#include "kstd/seqlock.h"
#include "kstd/unique.h"

namespace ipoib {

using kstd::Gfp;
using kstd::Status;
using kstd::StrView;

class Interface;

// Interface counters; every drop has its own (ethtool -S lists them in this order).
#define IPOIB_STATS(X)                                                                  \
	X(rx_packets) X(rx_bytes) X(tx_packets) X(tx_bytes)                             \
	X(rx_broadcast) X(rx_multicast)                                                 \
	X(rx_drop_self) X(rx_drop_short) X(rx_drop_nomem) X(rx_wc_errors) X(rx_flushed) \
	X(rx_post_errors)                                                               \
	X(tx_drop_short) X(tx_drop_linearize) X(tx_drop_too_big) X(tx_drop_ring_full)   \
	X(tx_drop_dma) X(tx_drop_post) X(tx_drop_not_up)                                \
	X(tx_drop_path_queue_full) X(tx_drop_path_failed) X(tx_drop_path_nomem)         \
	X(tx_drop_mcast_queue_full) X(tx_drop_mcast_failed) X(tx_drop_mcast_nomem)      \
	X(tx_wc_errors) X(tx_timeouts) X(tx_queue_stopped)                              \
	X(path_queries) X(path_query_errors) X(path_ah_errors)                          \
	X(mcast_joins) X(mcast_join_errors) X(mcast_leaves) X(mcast_attach_errors)      \
	X(mcast_ah_errors) X(mcast_resets) X(flush_light) X(flush_normal) X(flush_heavy) \
	X(gid_changes) X(neigh_created) X(neigh_reaped) X(neigh_flushed)               \
	X(neigh_alloc_errors) X(path_reaped) X(tx_drop_path_backoff)                  \
	X(wc_foreign_ctx)                                                                \
	X(tx_icmp_frag_needed) X(tx_icmp_pkt_too_big) X(tx_drop_mcast_too_big)         \
	X(tx_drop_icmp_queue_full) X(mode_changes) X(tx_stop_timeouts)                \
	X(tx_csum_filled) X(tx_drop_csum) X(rx_refused) X(ud_qp_recoveries) X(ud_qp_recovery_failures) \
	X(ring_resizes) X(ring_resize_errors) X(ud_qp_error_recoveries) X(ud_qp_error_recovery_failures) \
	X(tx_drop_ud_repair) X(ud_carrier_held) X(ud_repair_rearms)

struct Stats {
#define IPOIB_STAT_FIELD(n) u64 n = 0;
	IPOIB_STATS(IPOIB_STAT_FIELD)
#undef IPOIB_STAT_FIELD
};

#define IPOIB_STAT_ONE(n) +1
inline constexpr u32 kStatCount = 0 IPOIB_STATS(IPOIB_STAT_ONE);
#undef IPOIB_STAT_ONE
// ethtool -S: the IPOIB_STATS counters in order, then the UD QP's affiliated events per kind
// (qp_event_<kind>, QpEventCounts)
inline constexpr u32 kQpEventStats = KAPI_QPEV_KIND_COUNT;
// ... then connected mode's (CmTable::stat_name).
inline constexpr u32 kCmStats = kCmTableStats;
inline constexpr u32 kEthtoolStats = kStatCount + kQpEventStats + kCmStats;
const char *stat_name(u32 i);

// A counter several contexts write (the work, SA callbacks, timers): an atomic add. One
// written by a single context (NAPI; xmit under the netif tx lock; or only under one lock)
// uses count_local (ipoib_rings.h) instead, and says which context at the call.
inline void count(u64 &c, u64 n = 1) { __atomic_fetch_add(&c, n, __ATOMIC_RELAXED); }
inline u64 read_stat(const u64 &c) { return __atomic_load_n(&c, __ATOMIC_RELAXED); }



// The debugfs files of an interface (ib_ipoib_cm/<ifname>/<name>), each a tagged context.
// SendAccepted is connected mode's test knob, the one writable file (CmTable::store_send_accepted).
enum class DebugView : u8 { Paths, Mcast, Neigh, Connections, SendAccepted, RcSend, CmLimits };
inline constexpr u32 kDebugViews = 7;
struct DebugFile : Tagged<KAPI_CTX_DEBUGFS> {
	Interface *owner = nullptr;
	DebugView view = DebugView::Paths;
};

// The interface's own addresses as NAPI, xmit and rdma_cm lookups see them: a consistent
// copy of what the work last published (the port GID and the broadcast MGID change on
// flushes, RFC 4391 §9.1.1; the LID on LID_CHANGE).
struct LocalAddrs {
	u8 gid[kGidLen];
	u8 bcast_mgid[kGidLen];
	u32 lid;
};

struct IfConfig {
	const char *ifname;
	u32 send_queue_size;
	u32 recv_queue_size;
	u16 pkey = 0;			// 0: the port's own interface (P_Key index 0); else a child's P_Key
	kapi_ctx *owner = nullptr;	// the Port (kept by the shim for create_child/newlink)
	kapi_netdev *parent = nullptr;	// a child's parent netdev
	kapi_netdev *adopt = nullptr;	// the net_device rtnl allocated (ip link add), else allocate
	bool rtnl_held = false;		// the caller holds rtnl: register_netdevice
	CmParams cm;			// connected mode's module parameters
};

class Interface : public Tagged<KAPI_CTX_INTERFACE>, kstd::NonCopyable {
	friend class CmTable;	// connected mode composes the interface's PD, CQ, paths, netdev

public:
	Interface(kapi_ib_device *ib, u32 port)
		: ib_(ib), port_(port)
	{
	}
	~Interface() { KSTD_WARN_ON(bool(netdev_)); }	// teardown() ran (it frees the netdev)

	Status start(const IfConfig &cfg);
	void teardown(bool rtnl_held = false);

	// net_device_ops / header_ops / ethtool / sysfs (entry points in ipoib_if.cpp)
	Status open();
	void stop();
	void xmit(kapi_skb *skb);
	void tx_timeout();
	void rx_mode() { schedule_work(nd(), 0); }
	// admin mode, MTU, offloads (ipoib_if_mode.cpp)
	Status change_mtu(u32 mtu);
	u32 fix_features(u32 features) const;
	// The admin mode (sysfs mode, IFLA_IPOIB_MODE); any context.
	bool connected_mode() const { return __atomic_load_n(&connected_, __ATOMIC_ACQUIRE); }
	// The one place a mode change takes effect (rtnl held): MTU, max MTU, offloads.
	void apply_mode(bool connected);
	int store_mode(StrView v);	// rtnl held
	// attributes (ipoib_if_attrs.cpp): sysfs umcast, rtnl changelink, ethtool -S
	int store_umcast(StrView v);
	int changelink(LinkArgs l);
	void stats64(kapi_stats64 &out) const;
	void stat_values(u64 (&out)[kEthtoolStats]) const;	// ethtool -S, in stat_name() order
	const char *mode_name() const;
	u16 mode() const;
	int poll(int budget);
	void work();
	int header_create(kapi_skb *skb, u16 type, const u8 *daddr);
	Stats &stats() { return stats_; }
	u32 send_size() const { return tx_.size(); }
	u32 recv_size() const { return rx_.size(); }
	u32 speed_mbps();
	void get_coalesce(u32 &usecs, u32 &frames) const { usecs = coal_usecs_; frames = coal_frames_; }
	Status set_coalesce(u32 usecs, u32 frames);
	// ethtool -G (rtnl held; ipoib_if_rings.cpp): Ok, or why not (*why says it to ethtool,
	// counted ring_resize_errors); addr gets the link-layer address afterwards (a new UD QP
	// has a new QPN).
	Status set_rings(u32 tx, u32 rx, u8 *addr, const char **why);
	u16 pkey() const { return pkey_; }
	LocalAddrs local_addrs() const;	// any context
	kapi_netdev *netdev() const { return netdev_.get(); }
	bool umcast() const { return __atomic_load_n(&umcast_, __ATOMIC_RELAXED); }
	void set_umcast(bool on) { __atomic_store_n(&umcast_, on, __ATOMIC_RELAXED); }
	const char *name() const { return kapi_netdev_name(nd()); }
	bool is_up() const { return __atomic_load_n(&up_, __ATOMIC_ACQUIRE); }
	// The UD QP is drained or repaired, or a repair failed and is retried: no UD post (xmit
	// drops, counted tx_drop_ud_repair) and no waker of the netdev queue (ipoib_if_rings.cpp).
	bool ud_draining() const { return __atomic_load_n(&ud_draining_, __ATOMIC_ACQUIRE); }
	kstd::Logger &log() { return log_; }
	// NETDEV_CHANGENAME (rtnl held): the debugfs directory and the log prefix take the new name.
	void renamed();

	// SA callbacks
	int join_done(McGroup &g, kapi_mcast *mc, int status);
	void path_done(Path &p, int status, kapi_path *rec, u16 dlid);

	// AH reaper
	void reap_later(Ah *ah);
	void reap_ahs();

	// IB port events (any context): the work item runs the flush the event calls for.
	void port_event(kapi_ib_event_kind kind, u32 port);

	// neighbour and path GC (ipoib_neigh.cpp), from its own delayed work
	void gc_work();

	// debugfs ib_ipoib_cm/<ifname>/{paths,mcast,neigh}
	void show(DebugView which, kapi_seq *s);
	// an asynchronous event of the UD QP
	void qp_event(kapi_qp_event_kind kind) { qp_.event(kind); }
	// Any context: the UD QP was seen in ERROR (its fatal event, a flushed receive): the work
	// repairs it (repair_ud).
	void ud_error_seen();
	const UdQp &qp() const { return qp_; }

	// connected mode (RFC 4755; ipoib_cm.h)
	CmTable &cm() { return cm_; }
	// NAPI: one RC receive (skb at the encapsulation header) from peer up the stack.
	// csum_free: the connection negotiated kCapCsumFree (cm::rx_csum decides per packet).
	void receive_rc(kapi_skb *skb, const HwAddr &peer, RcStats &st, bool csum_free, u32 qpn);
	// Any context: the path to dst's GID is resolved (the REQ has its path record).
	bool path_resolved(const HwAddr &dst);
	// xmit: an RC connection's packet (at the encapsulation header) above its MTU
	// (RFC 4755 §5.1): the sender is told that MTU as for the UD path (ipoib_oversize.h), or
	// it is dropped; counted either way (tx_icmp_*, tx_drop_too_big).
	void send_too_big_rc(kapi_skb *skb, u32 conn_mtu);

private:
	// datapath
	// xmit only (netif tx lock held): ah must be reachable when read (ipoib_ah.h)
	void send(kapi_skb *skb, Ah &ah, u32 qpn, u32 qkey);
	void send_unicast(kapi_skb *skb, const HwAddr &dst);
	void send_unicast_slow(kapi_skb *skb, const HwAddr &dst, u64 now);
	void send_multicast(kapi_skb *skb, const u8 *mgid);
	// RFC 4755 §3.1: the RC flag says we accept connections (the listener runs in both modes).
	u8 addr_flags() const { return cm_.available() ? kFlagRc : 0; }
	void send_too_big(kapi_skb *skb, bool multicast);	// ipoib_if_mode.cpp
	u32 cm_mtu_cap() const;			// connected mode's MTU bound by the receive SGEs
	u32 mode_max_mtu(bool connected) const;	// mode::max_mtu with that bound
	void queue_too_big(kapi_skb *skb, bool multicast, u32 mtu, u32 icmp_mtu);
	void send_icmps();	// the work: the ICMPs send_too_big queued
	void drop_icmps();	// stop/teardown: the queue freed
	void join_mtu();	// the work, rtnl held: the broadcast group's MTU (ipoib_if_mode.cpp)
	u32 ud_mtu_limit() const { return mcast_mtu_ ? mcast_mtu_ : max_ud_mtu_; }
	void poll_tx();
	int poll_rx(int budget);
	bool owns_wc(const UdQp &qp, const kapi_wc &wc) const;
	void warn_foreign(u64 before);			// NAPI
	void receive(kapi_skb *skb, const kapi_wc &wc, const LocalAddrs &a);
	void drop(kapi_skb *skb, u64 &counter);		// xmit only (single writer)
	void drop_shared(kapi_skb *skb, u64 &counter);	// any context (atomic)
	void drop_rx(kapi_skb *skb, u64 &counter);	// NAPI only
	static void requeue(SkbQueue &q);
	// multicast (ipoib_mcast.cpp)
	void mcast_work();
	void join(McGroup &g);
	void leave(McGroup &g);
	void mcast_flush();
	void mcast_sync_list();
	void mcast_restart(bool keep_carrier);
	bool flush(u32 pending);
	Status add_broadcast_group();
	void add_debugfs();
	void refresh_gid();
	void publish_addrs();	// the work (or start): after gid_, bcast_mgid_ or lid_ changed
	void update_dev_addr();
	// paths (ipoib_path.cpp)
	void path_flush();
	// a child's P_Key in the port's table (ipoib_child.cpp)
	bool pkey_check();
	// NAPI on and off, rtnl held (open, stop, ring resize): idempotent, so that a path that
	// failed half-way never enables an enabled NAPI or disables a disabled one.
	void napi_on();
	void napi_off();
	// ring resize (ipoib_if_rings.cpp)
	void drain_ud_qp();
	Status build_ud_qp(u32 tx, u32 rx);
	// the UD QP in ERROR (ipoib_ud_repair.h): the work's step, and the repair (rtnl held)
	void repair_ud();
	Status repair_ud_qp();
	Status resize_cqs(u32 tx, u32 rx);
	// neighbours (ipoib_neigh.cpp)
	Status neigh_start();
	void neigh_stop();
	void neigh_destroy();
	Neigh *neigh_attach(const HwAddr &dst, Path &p, u64 now, Neigh *&retired);
	void neigh_gc(u64 now, u64 stale_ms);
	void path_gc(u64 now, u64 stale_ms);
	void show_neigh(kapi_seq *s);

	// The netdev's name as the log lines and the debugfs directory carry it, under names_lock_
	// (a rename's notifier holds rtnl, then this; start() and teardown() may not hold rtnl).
	// Readers (every log line) take no lock: the last byte stays NUL, a line printed during
	// a rename may show a mix of the two names.
	kstd::Mutex names_lock_{KAPI_LOCK_IF_NAMES};
	char log_prefix_[KAPI_IFNAMSIZ] = {};
	kstd::Logger log_{log_prefix_};
	kapi_ib_device *ib_;
	u32 port_;
	// The net_device: allocated in start(), freed last in teardown() (after unregister and
	// quiesce). Declared before the members that hold a copy of its pointer (rings), so the
	// backstop destructor also frees it after them.
	NetdevHandle netdev_;
	kapi_netdev *nd() const { return netdev_.get(); }
	PdHandle pd_;
	CqHandle send_cq_;
	CqHandle recv_cq_;
	UdQp qp_{log_};
	u32 lkey_ = 0;
	u32 qpn_ = 0;
	u16 pkey_ = 0xffff;
	u16 pkey_index_ = 0;
	bool child_ = false;	// a P_Key child: its P_Key may be missing from the table
	bool pkey_ok_ = true;	// the P_Key is in the table (children re-check on port events)
	u32 lid_ = 0;
	u8 gid_[kGidLen] = {};		// the work's copy; other contexts read addrs_
	u8 bcast_mgid_[kGidLen] = {};	// the work's copy; other contexts read addrs_
	kstd::SeqWords<5> addrs_;	// gid, broadcast MGID, LID (LocalAddrs)
	kapi_mcmember bcast_rec_{};	// the broadcast group's parameters, copied into other joins
	u32 max_ud_mtu_ = 0;
	u32 mcast_mtu_ = 0;	// UD MTU of the broadcast group, 0 before the join
	bool up_ = false;
	bool napi_on_ = false;	// kapi_napi_enable'd and not disabled since; rtnl held (napi_on/off)
	bool ud_draining_ = false;	// drain_ud_qp, repair_ud_qp (until one succeeds): no UD post, no queue wake
	UdRepair ud_repair_;		// request(): any context; the rest under rtnl (open, the work)
	LogLimit repair_log_;
	bool umcast_ = false;
	bool connected_ = false;	// admin mode; written under rtnl (apply_mode)
	bool mcast_big_warned_ = false;	// an oversized multicast packet was logged (once)
	// Packets whose sender gets an ICMP from the work, not from xmit: a reply of the kernel's
	// own ICMP socket reaches xmit with that socket locked, and icmp(v6)_send's trylock of it
	// would fail there (in-tree defers the same way, ipoib_cm_skb_too_long).
	kstd::SpinLock icmp_lock_{KAPI_LOCK_IF_ICMP};
	struct IcmpItem {
		kapi_skb *skb = nullptr;
		u32 mtu = 0;	// a connection's MTU; 0: the UD path's, read again at send time
	};
	kstd::Ring<IcmpItem, 16> icmp_q_;
	bool carrier_ = false;
	bool mtu_pending_ = false;
	bool addr_pending_ = false;	// work: the port GID changed, dev_addr not updated yet
	bool ud_check_ = false;		// NAPI -> work: a UD send failed, the QP may be in SQE
	bool registered_ = false;
	bool foreign_warned_ = false;	// a foreign completion was warned about (once)
	cm::PollBacklog rx_backlog_;	// NAPI: the receive CQ's backlog and its polls' starts (2 KiB)
	bool fill_warned_ = false;	// NAPI: a failed receive fill was logged (once)
	u32 flush_pending_ = 0;	// bit per Flush level, set by port_event(), taken by work()
	u32 coal_usecs_ = 0;
	u32 coal_frames_ = 0;
	EventHandle events_;
	DebugfsHandle debugfs_;
	DebugFile debug_files_[kDebugViews];

	Stats stats_;
	RecvRing rx_{ib_, RecvQueue::Ud, {&stats_.rx_drop_nomem, &stats_.rx_wc_errors, &stats_.rx_flushed, &stats_.rx_post_errors,
					  nullptr, nullptr, nullptr, &stats_.rx_refused}};
	TxRing tx_{ib_,
		   {&stats_.tx_packets, &stats_.tx_bytes, &stats_.tx_wc_errors, &stats_.tx_drop_ring_full,
		    &stats_.tx_drop_dma, &stats_.tx_drop_post, &stats_.tx_queue_stopped},
		   log_};

	McastTable mcast_;
	PathCache paths_;
	AhReaper reaper_;
	kstd::InFlight queries_;	// PathRecord queries whose callback has not run
	LogLimit path_log_;	// unresolved paths: peers name any GID they like (ARP, ND, CM)
	NeighTable neighs_;
	DworkHandle gc_;

	CmTable cm_{*this};	// last: its connections use everything above

};

} // namespace ipoib
