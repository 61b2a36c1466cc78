// SPDX-License-Identifier: GPL-2.0
// ipoib_cm_show.cpp - what connected mode shows and what its periodic work does: the debugfs
// `connections` file, the ethtool -S counters (cm::Counters summed over
// live and destroyed connections, the RC datapath counters, the interface's own), the admin
// mode switch, and the housekeeping work (idle reaping, the send watchdog, peers nobody
// uses, freeing destroyed connections).
#include "ipoib_cm.h"
#include "ipoib_if.h"

namespace ipoib {

namespace {

const char *const g_rc_stat_names[] = {
#define IPOIB_RC_STAT_NAME(n) #n,
	IPOIB_RC_STATS(IPOIB_RC_STAT_NAME)
#undef IPOIB_RC_STAT_NAME
};
static_assert(sizeof(g_rc_stat_names) / sizeof(g_rc_stat_names[0]) == kRcStatCount);

const char *const g_if_stat_names[] = {
#define IPOIB_CM_IF_STAT_NAME(n) #n,
	IPOIB_CM_IF_STATS(IPOIB_CM_IF_STAT_NAME)
#undef IPOIB_CM_IF_STAT_NAME
};
static_assert(sizeof(g_if_stat_names) / sizeof(g_if_stat_names[0]) == kCmIfStatCount);
static_assert(sizeof(CmIfStats) == kCmIfStatCount * sizeof(u64));

// As /sys/class/net/*/address shows it: 20 octets, lowercase hex, colon-separated.
void format_addr(const HwAddr &a, char (&out)[3 * kHwAddrLen])
{
	static const char hex[] = "0123456789abcdef";
	for (u32 i = 0; i < kHwAddrLen; i++) {
		out[3 * i] = hex[a.b[i] >> 4];
		out[3 * i + 1] = hex[a.b[i] & 15];
		out[3 * i + 2] = i + 1 < kHwAddrLen ? ':' : '\0';
	}
}

// In cm::RejCode order: the IBA 12.6.7.2 code and its name, then everything else.
#define IPOIB_REJ_NAMES(d)                                                                      \
	"cm_rej_" d "_1_no_qp", "cm_rej_" d "_2_no_eec", "cm_rej_" d "_3_no_resources",          \
	"cm_rej_" d "_5_unsupported", "cm_rej_" d "_8_invalid_service_id",                       \
	"cm_rej_" d "_26_invalid_mtu", "cm_rej_" d "_28_consumer", "cm_rej_" d "_other"
const char *const g_rej_names[] = {IPOIB_REJ_NAMES("tx"), IPOIB_REJ_NAMES("rx")};
#undef IPOIB_REJ_NAMES
static_assert(sizeof(g_rej_names) / sizeof(g_rej_names[0]) == 2 * cm::kRejCodeCount);
static_assert(usize(cm::RejCode::Other) + 1 == cm::kRejCodeCount);

u64 rc_stat(const RcStats &s, u32 i) { return read_stat((&s.rc_rx_packets)[i]); }

const char *const g_mem_stat_names[] = {
#define IPOIB_CM_MEM_STAT_NAME(n) #n,
	IPOIB_CM_MEM_STATS(IPOIB_CM_MEM_STAT_NAME)
#undef IPOIB_CM_MEM_STAT_NAME
};
static_assert(sizeof(g_mem_stat_names) / sizeof(g_mem_stat_names[0]) == kCmMemStatCount);

// Bytes shown in KiB: rounded up, so that a ring holding anything never shows 0.
u64 kib(u64 bytes) { return (bytes + 1023) / 1024; }

} // namespace

// One line: the non-SRQ connection limit in force and where it comes from (nonsrq_mem_mb or max_nonsrq_conn_qp),
// the per-connection estimate the budget was divided by, what the receive CQ holds, and the
// pool of unanswered passive connections: req_pool_used= slots held (connections still
// accepting), req_pool= its capacity (ReqPool::bound; a REQ that finds it full is refused);
// the unproven budget likewise: unproven_used= slots held (passive connections not proven,
// a one-way one until its first receive), unproven= its capacity (ReqPool::unproven_bound);
// the unreserved budget likewise: unreserved_used= (passive connections not proven, one-way
// ones past their first receive included), unreserved= its capacity (the limit less the
// reserve, ReqPool::unreserved_bound).
void CmTable::show_limits(kapi_seq *s)
{
	kapi_seq_printf(s, "mode=%s max_nonsrq_conn_qp=%u source=%s nonsrq_mem_mb=%u conn_kib=%u nonsrq_max_recv=%u nonsrq_min_recv=%u cq_conns=%u cq_now=%u cq_resizes=%llu cq_resize_failed=%llu req_pool_used=%u req_pool=%u unproven_used=%u unproven=%u unreserved_used=%u unreserved=%u\n",
			srq_.raw() ? "srq" : "nonsrq", p_.max_nonsrq_conn_qp,
			p_.limit_from_budget ? "nonsrq_mem_mb" : "max_nonsrq_conn_qp", p_.nonsrq_mem_mb, p_.nonsrq_conn_kib,
			p_.nonsrq_max_recv, p_.nonsrq_min_recv, max_conns_, __atomic_load_n(&cq_conns_, __ATOMIC_RELAXED),
			(unsigned long long)__atomic_load_n(&cq_resizes_, __ATOMIC_RELAXED),
			(unsigned long long)__atomic_load_n(&cq_resize_failed_, __ATOMIC_RELAXED), pool_.used(),
			pool_.limit(), unproven_.used(), unproven_.limit(), unreserved_.used(), unreserved_.limit());
}

// One line per RC QP: dir= peer= qpn= rqpn= state= mtu= bidir= rx_posted= rx_size= rx_grown=
// rx_shrunk= rx= tx= idle= rx_kib= tx_kib= rx_left_empty= tx_inflight= stalled= [wait=]
// (docs/connected.md §9; stalled= the ms without send progress while sends are outstanding,
// 0 below kStallShownMs: the send watchdog's view, §3; rx_kib=/tx_kib= are
// what its own receive ring (0 on the SRQ) and its send ring hold, KiB rounded up, §5.1;
// state= is cm::state_name; rx_posted=
// and rx_size= (buffers held: posted or queued) count the SRQ's receives for an SRQ-attached QP;
// rx_grown=/rx_shrunk= are the non-SRQ ring's buffers added by growth / retired after idle;
// wait=sends / wait=drep while a graceful wait is parked); then one per peer in UD fallback:
// dir=none peer= state=fallback fallback= backoff= idle=.
// A second without send progress is far beyond any healthy completion time: worth showing.
inline constexpr u64 kStallShownMs = 1000;

void CmTable::show(kapi_seq *s)
{
	const u64 now = kapi_now_ms();
	kstd::SpinIrqSaveGuard g(lock_);
	for (Connection &c : conns_) {
		HwAddr peer = c.peer();
		peer.b[0] = kFlagRc;	// a CM peer: the address it announces carries the RC flag
		char addr[3 * kHwAddrLen];
		format_addr(peer, addr);
		const char *wait = c.wait_name();
		const u64 stall = c.tx_no_progress_ms(now);
		kapi_seq_printf(s, "dir=%s peer=%s qpn=0x%06x rqpn=0x%06x state=%s mtu=%u bidir=%u rx_posted=%u rx_size=%u rx_grown=%llu rx_shrunk=%llu rx=%llu tx=%llu idle=%llu rx_kib=%llu tx_kib=%llu rx_left_empty=%llu tx_inflight=%u stalled=%llu%s%s\n",
				c.dir() == cm::Dir::Active ? "active" : "passive", addr, c.qpn(), c.remote_qpn(),
				cm::state_name(c.state()), c.mtu(), c.bidir() ? 1u : 0u, c.rx_posted(),
				c.rx_ring().active(), (unsigned long long)c.rx_ring().grows(),
				(unsigned long long)c.rx_ring().shrinks(),
				(unsigned long long)read_stat(c.stats().rc_rx_packets),
				(unsigned long long)read_stat(c.stats().rc_tx_packets),
				(unsigned long long)(c.idle_ms(now) / 1000), (unsigned long long)kib(c.rx_bytes()),
				(unsigned long long)kib(c.tx_bytes()),
				(unsigned long long)read_stat(c.stats().rc_rx_left_empty), c.tx_inflight(),
				(unsigned long long)(stall >= kStallShownMs ? stall : 0),
				wait ? " wait=" : "", wait ? wait : "");
	}
	// Peers in UD fallback (docs/design.md §4 item 8): no RC path and the back-off still running, so xmit
	// sends to them over UD. fallback= the seconds until the next try (rounded up; the next
	// packet after it connects again), backoff= the current back-off in ms.
	for (CmPeer &p : peers_) {
		if (p.send || !p.fallback_until || now >= p.fallback_until)
			continue;
		HwAddr peer = p.addr;
		peer.b[0] = kFlagRc;
		char addr[3 * kHwAddrLen];
		format_addr(peer, addr);
		kapi_seq_printf(s, "dir=none peer=%s state=fallback fallback=%llu backoff=%u idle=%llu\n", addr,
				(unsigned long long)((p.fallback_until - now + 999) / 1000), p.backoff_ms,
				(unsigned long long)(kstd::ms_since(now, p.used_ms) / 1000));
	}
}

void CmTable::show_rc_send(kapi_seq *s)
{
	kapi_seq_printf(s, "inflight=%u limit=%u underflows=%llu\n", budget_.inflight(), budget_.limit(),
			(unsigned long long)budget_.underflows());
	// Each connection's own bound; the peers whose queue waits for the interface bound
	// (backlog) and for their own connection's or the reserve (conn_waiting); the part of the
	// bound kept for connections making progress (reserve) and the packets refused it
	// (reserve_held, the ethtool counter cm_tx_reserve_held), so a run shows the reserve held;
	// last, those of them refused while a late completion barred their connection
	// (reserve_held_late, cm_tx_reserve_held_late; cm::reserve_barred).
	kapi_seq_printf(s, "conn_limit=%u backlog=%u conn_waiting=%u reserve=%u reserve_held=%llu reserve_held_late=%llu\n",
			send_ring_, backlogged_.waiting(), conn_waiters_.waiting(), budget_.reserve_size(),
			(unsigned long long)read_stat(ifs_.cm_tx_reserve_held),
			(unsigned long long)read_stat(ifs_.cm_tx_reserve_held_late));
}

void CmTable::show_send_accepted(kapi_seq *s)
{
	kapi_seq_printf(s, "%u\n", __atomic_load_n(&send_accepted_, __ATOMIC_RELAXED) ? 1u : 0u);
}

int CmTable::store_send_accepted(StrView v, usize total)
{
	StrView d = v;
	if (!d.empty() && d[d.size() - 1] == '\n')
		d = d.substr(0, d.size() - 1);	// echo's newline
	u32 on = 0;
	if (total != v.size() || !kstd::parse_u32(d, 1, on)) {
		log().warn("send_accepted: invalid value \"%.*s\"%s (0 or 1)", int(d.size()), d.data(),
			   total != v.size() ? "..." : "");
		return -KAPI_EINVAL;
	}
	__atomic_store_n(&send_accepted_, on != 0, __ATOMIC_RELAXED);
	log().info("send_accepted %u: connections created from now on %s over accepted connections", on,
		   on ? "send" : "do not send");
	return 0;
}

void CmTable::count_rej(bool sent, u32 reason)
{
	count((sent ? rej_tx_ : rej_rx_)[usize(cm::rej_code(reason))]);
}

const char *CmTable::stat_name(u32 i)
{
	if (i < cm::kCtrCount)
		return cm::ctr_name(cm::Ctr(i));
	i -= cm::kCtrCount;
	if (i < kRcStatCount)
		return g_rc_stat_names[i];
	i -= kRcStatCount;
	if (i < kCmIfStatCount)
		return g_if_stat_names[i];
	i -= kCmIfStatCount;
	if (i < 2 * cm::kRejCodeCount)
		return g_rej_names[i];
	i -= 2 * cm::kRejCodeCount;
	return i < kCmMemStatCount ? g_mem_stat_names[i] : "";
}

// One snapshot under lock_ (not one walk per value, each connection's Counters copied under
// its lock once per counter): the connections are walked once, and
// every per-connection sum (cm::Counters, the RC datapath's, the memory levels) is taken in
// that walk, so a dump's values are consistent with each other (rc_pinned_kib is
// rc_rx + rc_tx of the same instant). out has kCmTableStats entries, in stat_name() order.
void CmTable::stat_values(u64 *out) const
{
	u64 *const ctr = out;
	u64 *const rc = ctr + cm::kCtrCount;
	u64 *const ifv = rc + kRcStatCount;
	u64 *const rej_tx = ifv + kCmIfStatCount;
	u64 *const rej_rx = rej_tx + cm::kRejCodeCount;
	u64 *const mem = rej_rx + cm::kRejCodeCount;
	static_assert(cm::kCtrCount + kRcStatCount + kCmIfStatCount + 2 * cm::kRejCodeCount + kCmMemStatCount ==
		      kCmTableStats);
	static_assert(kCmMemStatCount == 4);
	auto &self = const_cast<CmTable &>(*this);
	kstd::SpinIrqSaveGuard g(self.lock_);
	cm::Counters sum = retired_;
	for (u32 i = 0; i < kRcStatCount; i++)
		rc[i] = rc_stat(retired_st_, i) + rc_stat(srq_st_, i);
	// The memory levels: live connections only, a retired one holds nothing the table
	// still counts.
	u64 rx = 0, tx = 0;
	for (Connection &c : self.conns_) {
		sum.add(c.counters());
		for (u32 i = 0; i < kRcStatCount; i++)
			rc[i] += rc_stat(c.stats(), i);
		rx += c.rx_bytes();
		tx += c.tx_bytes();
	}
	for (u32 i = 0; i < cm::kCtrCount; i++)
		ctr[i] = sum[cm::Ctr(i)];
	for (u32 i = 0; i < kCmIfStatCount; i++)
		ifv[i] = read_stat((&ifs_.cm_tx_queued)[i]);
	for (u32 i = 0; i < cm::kRejCodeCount; i++) {
		rej_tx[i] = read_stat(rej_tx_[i]);
		rej_rx[i] = read_stat(rej_rx_[i]);
	}
	// IPOIB_CM_MEM_STATS order
	mem[0] = kib(rx);
	mem[1] = kib(tx);
	mem[2] = kib(rx + tx);
	mem[3] = kib(srq_ring_.bytes());
}

// rtnl held. Datagram: active connections close, passive ones stop sending (they keep
// receiving, in both modes); connected: passive bidirectional ones may send again.
// To datagram: the packets waiting for a connection go back to xmit, which now sends them over
// UD: a connection still connecting closes without StartSending (and without FallBack), so
// nothing else would ever send them. xmit checks the mode again under lock_, so none is queued
// after the switch. Drained under the xmit lock, so that no flush runs meanwhile (a flush
// after it sees datagram mode and stops), and requeued after both locks are
// dropped (xmit takes them), one queue's worth at a time.
void CmTable::mode_changed(bool connected)
{
	{
		FeedNotes notes(log());	// printed after the unlock (ipoib_cm_notes.h)
		kstd::SpinIrqSaveGuard g(lock_);
		__atomic_store_n(&connected_, connected, __ATOMIC_RELEASE);
		for (Connection &c : conns_)
			c.feed(cm::Event::of(connected ? cm::Ev::ModeConnected : cm::Ev::ModeDatagram), notes);
	}
	for (bool more = !connected; more;) {
		CmPending q;
		more = false;
		kapi_netdev_xmit_lock(netdev());
		{
			kstd::SpinIrqSaveGuard g(lock_);
			for (CmPeer &p : peers_) {
				if (!cm_take_pending(p, q)) {	// q is full: requeue it, then go on
					more = true;
					break;
				}
			}
		}
		kapi_netdev_xmit_unlock(netdev());
		kapi_skb *skb;
		while (q.pop(skb))
			kapi_skb_requeue(skb);
	}
}

// The housekeeping work, unless teardown has cancelled it for good. mod_delayed_work sets the
// timer to the last request: one that is due later than the pending one is dropped, so a
// parked wait's deadline (wake_at) is never postponed by the period's reschedule.
void CmTable::kick_house(u32 ms)
{
	if (!house_)
		return;
	const u64 due = kapi_now_ms() + ms;
	kstd::SpinIrqSaveGuard g(lock_);
	if (!house_on_)
		return;
	if (house_due_ != ~0ull && house_due_ <= due)
		return;	// due sooner already (or overdue, not run yet)
	house_due_ = due;
	kapi_dwork_schedule(house_, ms);
}

void CmTable::housekeeping()
{
	{
		kstd::SpinIrqSaveGuard g(lock_);
		house_due_ = ~0ull;	// running: any kick_house schedules the next run
	}
	free_dead();
	if (__atomic_exchange_n(&rx_retry_, false, __ATOMIC_ACQ_REL))
		kapi_napi_schedule(netdev());	// a ring's refused posts: NAPI retries them
	if (open_ && __atomic_exchange_n(&srq_rearm_, false, __ATOMIC_ACQ_REL) && srq_.raw()) {
		const u32 limit = recv_queue_ / kCmSrqLimitDiv ? recv_queue_ / kCmSrqLimitDiv : 1;
		if (!kstd::ok(srq_.arm_limit(limit)))
			log().warn("cannot re-arm the SRQ limit (%u)", limit);
	}
	const u64 now = kapi_now_ms();
	const u64 idle_ms = u64(p_.idle_timeout_s) * 1000;
	kstd::List<CmPeer> gone;
	u64 next = now + kCmHousekeepMs;
	// Logged after lock_ is dropped (with netconsole on this device a printk
	// re-enters xmit, which takes lock_). Each event comes once per connection (it tears it
	// down); past the array the rest are counted only (cm_drain_timeouts, cm_watchdog_teardowns).
	constexpr u32 kLogMax = 8;
	u32 late_fence[kLogMax], stalled[kLogMax], nfence = 0, nstalled = 0;
	{
		FeedNotes notes(log());	// the feeds' own notes, printed after the unlock too
		kstd::SpinIrqSaveGuard g(lock_);
		if (!open_)
			return;
		for (Connection &c : conns_) {
			c.resume_if_due(now);	// a parked graceful wait at its deadline
			const u64 due = c.wait_due();
			if (due > now && due < next)
				next = due;
			if (c.drain_overdue(now, kCmDrainTimeoutMs)) {
				if (nfence < kLogMax)
					late_fence[nfence++] = c.qpn();
				c.feed(cm::Event::of(cm::Ev::DrainTimeout), notes);
				continue;
			}
			if (c.state() == cm::State::Accepting && c.accept_overdue(now)) {
				// our REP unanswered: the slot is not the peer's to hold (cm_accept_timeouts)
				c.feed(cm::Event::of(cm::Ev::AcceptTimeout), notes);
				continue;
			}
			if (c.state() == cm::State::Connecting && c.connect_overdue(now)) {
				// our REQ unanswered: its queue is not to wait on ib_cm (cm_connect_timeouts)
				if (!c.feed(cm::Event::of(cm::Ev::ConnectTimeout), notes).ignored)
					count(ifs_.cm_connect_timeouts);
				continue;
			}
			if (c.state() != cm::State::Established)
				continue;
			if (c.idle_ms(now) >= idle_ms)	// stale reaping (docs/design.md §4 item 9)
				c.feed(cm::Event::of(cm::Ev::IdleTimeout), notes);
			else if (c.send_stalled(now)) {	// §3: sends outstanding, no progress
				// once per connection: the event tears it down (cm_watchdog_teardowns)
				if (nstalled < kLogMax)
					stalled[nstalled++] = c.qpn();
				c.feed(cm::Event::of(cm::Ev::SendWatchdog), notes);
			}
		}
	}
	// A peer decides both (a receiver that NAKs forever, a QP it errs): at peer_log's rate.
	u32 missed = 0;
	for (u32 i = 0; i < nfence; i++)
		if (peer_log_.allow(now, missed))
			log().warn("QPN 0x%06x: teardown fence not complete after %u ms (counted: cm_drain_timeouts; %u more not logged)",
				   late_fence[i], kCmDrainTimeoutMs, missed);
	for (u32 i = 0; i < nstalled; i++)
		if (peer_log_.allow(now, missed))
			log().warn("connection QPN 0x%06x: no send completion for %u ms, tearing down (counted: cm_watchdog_teardowns; %u more not logged)",
				   stalled[i], (unsigned)cm::kSendWatchdogMs, missed);
	// The first probe of an identity proof (docs/security.md) for an established connection
	// under proof that has not had one. It normally goes at the connection's StartSending
	// (start_sending), but a bidirectional passive connection established while the
	// interface is in datagram mode gets no StartSending until the switch back, and its
	// proof's deadline (kCmProofMs from the REQ) runs all the same: a proof that expired
	// unprobed left the connection receive-only for good, we then connected ourselves, and
	// each end kept two connections, one per direction. The probe goes over UD and the echo
	// comes over the connection under proof: neither needs connected mode, and a connection
	// proven in datagram mode becomes the send path at the switch back (its StartSending).
	struct Probe {
		HwAddr to;
		u32 qpn;
		u64 nonce;
	};
	Probe probes[kLogMax];	// more wait for the next run, a second later
	u32 nprobes = 0;
	{
		kstd::SpinIrqSaveGuard g(lock_);
		for (CmPeer &p : peers_) {
			Connection *c = p.proving;
			if (!open_ || !proofs_open_ || nprobes == kLogMax)
				break;
			if (!c || !p.proof.open() || p.proof.nonce || p.proof.expired(now) ||
			    c->state() != cm::State::Established || !may_send(c))
				continue;	// not one whose teardown began, as start_sending
			p.proof.probe(now, kapi_cm_random_u64());
			probes[nprobes++] = {p.addr, c->qpn(), p.proof.nonce};
		}
	}
	for (u32 i = 0; i < nprobes; i++)
		send_probe(probes[i].to, probes[i].qpn, probes[i].nonce);	// dev_queue_xmit: no lock held
	flush_backlogs(now);	// a backlog whose kick was lost or refused
	// Peers nobody uses: no connection, nothing queued, idle, not in a back-off nor barred
	// from the reserve (CmPeer::reserve_bar_until). Unlinked
	// under the tx queue's xmit lock too: xmit finds peers without the table lock
	// (CmPeerIndex), holding that lock whatever the qdisc (noqueue too). Freed after it.
	// Under the same lock, every send ring is its producer: the gather chunks of those
	// quiet for kTxGatherIdleMs go back (RcTxRing::trim; not in the send path).
	kapi_netdev_xmit_lock(netdev());
	{
		kstd::SpinIrqSaveGuard g(lock_);
		for (Connection &c : conns_)
			c.trim_tx(now);
		kstd::List<CmPeer> keep;
		while (CmPeer *p = peers_.pop_front()) {
			const bool idle = !p->conns && !p->pending.size() &&
					  kstd::ms_since(now, p->used_ms) >= idle_ms && now >= p->fallback_until &&
					  now >= p->reserve_bar_until;
			if (idle) {
				index_.remove(*p);
				backlogged_.remove(*p);	// its queue was taken (FallBack, retire)
				conn_waiters_.remove(*p);
			}
			(idle ? gone : keep).push_back(*p);
		}
		while (CmPeer *p = keep.pop_front())
			peers_.push_back(*p);
	}
	kapi_netdev_xmit_unlock(netdev());
	while (CmPeer *p = gone.pop_front()) {
		count(ifs_.cm_peers_freed);
		delete p;
	}
	kick_house(u32(next - now));	// the period, or sooner for a parked wait's deadline
}

} // namespace ipoib
