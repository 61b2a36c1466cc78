// SPDX-License-Identifier: GPL-2.0
// ipoib_cm.cpp - an interface's connected-mode part (ipoib_cm.h): lifetime
// (start, open; stop and teardown are ipoib_cm_stop.cpp), the peers and NAPI's duties for the RC rings. The REQs are
// admitted in ipoib_cm_admission.cpp, the send path is in ipoib_cm_xmit.cpp, the connections' peer-level actions in
// ipoib_cm_peer_actions.cpp, debugfs, ethtool and the housekeeping work in ipoib_cm_show.cpp.
#include "ipoib_cm.h"
#include "ipoib_if.h"

namespace ipoib {

namespace {

extern "C" void ipoib_cm_house_work(kapi_ctx *c) noexcept
{
	if (Interface *i = from_ctx<Interface>(c))
		i->cm().housekeeping();
}

extern "C" void ipoib_cm_flush_work(kapi_ctx *c) noexcept
{
	if (Interface *i = from_ctx<Interface>(c))
		i->cm().flush_work();
}

} // namespace

CmTable::CmTable(Interface &ifc)
	: ifc_(ifc), lock_(KAPI_LOCK_IF_CM), srq_(ifc.log(), *this),
	  srq_ring_(ifc.ib_, RecvQueue::Srq, {&srq_st_.rc_rx_drop_nomem, &srq_st_.rc_rx_wc_errors, &srq_st_.rc_rx_flushed,
			      &srq_st_.rc_rx_post_errors, &srq_st_.rc_rx_grown, &srq_st_.rc_rx_grow_failed, nullptr,
			      &srq_st_.rc_rx_refused})
{
}

CmTable::~CmTable() { KSTD_WARN_ON(!conns_.empty() || !dead_.empty() || !peers_.empty()); }

kapi_ib_device *CmTable::ib() const { return ifc_.ib_; }
kapi_pd *CmTable::pd() const { return ifc_.pd_.get(); }
kapi_cq *CmTable::cq() const { return ifc_.recv_cq_.get(); }
kapi_netdev *CmTable::netdev() const { return ifc_.nd(); }
u32 CmTable::lkey() const { return ifc_.lkey_; }
u32 CmTable::port() const { return ifc_.port_; }
u16 CmTable::pkey_index() const { return ifc_.pkey_index_; }
u32 CmTable::ud_qpn() const { return ifc_.qpn_; }
kstd::Logger &CmTable::log() { return ifc_.log(); }

// docs/connected.md §4: UD receives are the interface's; connected mode adds the SRQ (or
// every non-SRQ ring at its maximum: recv_queue_size x max_nonsrq_conn_qp, as in-tree's
// non-SRQ CQ), the RC send bound, and one drain WR per connection.
u32 CmTable::cq_entries() const
{
	if (!recv_mtu_)
		return 0;
	return cq_fixed() + __atomic_load_n(&cq_conns_, __ATOMIC_RELAXED) * cq_per_conn();	// NAPI reads it too (poll_rx)
}

// A CQ for the QPs open (docs/connected.md §4), not for every connection the limit allows (at
// the default 33 entries per non-SRQ connection and the budget's limit, softib's ring of
// ib_wc would be ~2.4 MiB per interface from bring-up on). nconns_ counts the connection
// being set up (connect / on_req took its slot), so after this every QP that exists can
// complete on the CQ; a CQ never shrinks below that (cm::cq_conns_grow).
Status CmTable::cq_room()
{
	if (srq_.raw())
		return Status::Ok;
	kstd::MutexGuard g(cq_lock_);
	u32 need;
	{
		kstd::SpinIrqSaveGuard l(lock_);
		need = nconns_;
	}
	// nconns_ also counts connections admitted over the limit (connect / on_req count
	// them before the state machine refuses them), which never create a QP: at most
	// max_conns_ QPs exist, so the CQ never needs more, and cq_conns_grow never returns 0
	// here (a connection set up while another is refused over the limit got a NoMem before).
	if (need > max_conns_)
		need = max_conns_;
	const u32 have = __atomic_load_n(&cq_conns_, __ATOMIC_RELAXED);
	const u32 want = cm::cq_conns_grow(have, need, max_conns_);
	if (want == have)
		return Status::Ok;
	if (kapi_cq_resize(cq(), int(cq_ud_ + cq_fixed() + want * cq_per_conn())) != 0) {
		__atomic_store_n(&cq_resize_failed_, cq_resize_failed_ + 1, __ATOMIC_RELAXED);
		// Each REQ or connect may meet it (a peer's REQs come at its rate): rate-limited.
		u32 missed = 0;
		if (peer_log_.allow(kapi_now_ms(), missed))
			log().warn("cannot grow the receive CQ to %u connections (%u open): connection not set up (%u more not logged; counted cq_resize_failed in debugfs cm_limits)",
				   want, need, missed);
		return Status::NoMem;
	}
	__atomic_store_n(&cq_resizes_, cq_resizes_ + 1, __ATOMIC_RELAXED);
	__atomic_store_n(&cq_conns_, want, __ATOMIC_RELAXED);
	return Status::Ok;
}

u32 CmTable::cq_fixed() const { return (srq_.raw() ? recv_queue_ : 0) + rc_iface_bound(send_ring_); }
u32 CmTable::cq_per_conn() const { return (srq_.raw() ? 0 : p_.nonsrq_max_recv) + 1; }

// The device bounds the CQ (max_cqe): softib's 65536 cannot hold 128 non-SRQ rings of 512.
// As the in-tree driver clamps its queue sizes to the device's, the bound on connections is
// lowered to what fits, with one log line; never a CQ that can overrun (an overrun errors
// every QP on it).
bool CmTable::fit_cq(u32 ud_entries)
{
	const u32 want = srq_.raw() ? kCmMaxSrqConns : p_.max_nonsrq_conn_qp;
	const u32 max_cqe = kapi_cq_max_entries(ib());
	const u32 fixed = ud_entries + cq_fixed();
	max_conns_ = max_cqe ? cm::cq_conns_fit(max_cqe, fixed, cq_per_conn(), want) : want;
	cq_ud_ = ud_entries;
	// SRQ mode: one drain WR per connection, all of them from the start; without an SRQ the
	// CQ starts with room for kCqInitialConns and grows (cq_room).
	cq_conns_ = srq_.raw() || max_conns_ < cm::kCqInitialConns ? max_conns_ : cm::kCqInitialConns;
	if (!max_conns_) {
		log().warn("the device's CQ holds %u entries, below the %u connected mode needs for one connection: CM off",
			   max_cqe, fixed + cq_per_conn());
		return false;
	}
	if (max_conns_ < want)
		log().info("the device's CQ holds %u entries: at most %u connections (%s %u), %u receives each",
			   max_cqe, max_conns_,
			   srq_.raw() ? "SRQ mode" : p_.limit_from_budget ? "nonsrq_mem_mb" : "max_nonsrq_conn_qp", want,
			   srq_.raw() ? 0 : p_.nonsrq_max_recv);
	return true;
}

Status CmTable::start(const CmParams &p, u32 send_queue_size, u32 recv_queue_size)
{
	p_ = p;
	// Each connection's send ring (its own bound: an idle connection pins 33 send WQEs, not
	// send_queue_size + 1, §5), and the interface's RC bound above it (a resource bound
	// for the CQ: no connection stops the netdev queue, docs/connected.md §3 "Peer isolation").
	send_ring_ = rc_send_ring(send_queue_size);
	// The CQ holds the whole bound (cq_fixed); its last ring's worth is kept for connections
	// making progress (rc_slot).
	budget_.set_limit(rc_iface_bound(send_ring_), rc_iface_reserve(send_ring_));
	recv_queue_ = recv_queue_size;
	wq_ = kapi_wq_create("ib_ipoib_cm_cm");
	if (!wq_)
		return Status::NoMem;
	house_ = kapi_dwork_create(ipoib_cm_house_work, ifc_.ctx());
	if (!house_)
		return Status::NoMem;
	flush_ = kapi_dwork_create(ipoib_cm_flush_work, ifc_.ctx());
	if (!flush_)
		return Status::NoMem;
	{
		kstd::SpinIrqSaveGuard g(lock_);
		house_on_ = true;
	}
	kapi_dev_sge sge{};
	kapi_ib_query_sge(ib(), &sge);
	const u32 srq_sge = sge.max_srq_sge < KAPI_RECV_SGE_MAX ? sge.max_srq_sge : KAPI_RECV_SGE_MAX;
	const u32 qp_sge = sge.max_recv_sge < KAPI_RECV_SGE_MAX ? sge.max_recv_sge : KAPI_RECV_SGE_MAX;
	// An skb's head and fragments as separate SGEs, as many as the device gathers.
	rc_send_sge_ = sge.max_send_sge < KAPI_RC_SEND_SGE_MAX ? sge.max_send_sge : KAPI_RC_SEND_SGE_MAX;
	if (rc_send_sge_ == 0)
		rc_send_sge_ = 1;
	// As the in-tree driver: SRQ mode when the device can create one, else a ring per QP.
	const u32 srq_mtu = RecvRing::receive_mtu(cm::kMaxRecvMtu, srq_sge);
	// Created unarmed: the limit is armed at open(), once NAPI can run (an event at
	// bring-up would schedule a NAPI that is not enabled yet).
	if (srq_sge && kstd::ok(srq_.create(pd(), recv_queue_size, RecvRing::sges_for(srq_mtu), 0))) {
		srq_ring_.bind(netdev(), RecvTarget{nullptr, srq_.raw()}, lkey());
		if (kstd::ok(srq_ring_.alloc(recv_queue_size, srq_mtu)) && kstd::ok(srq_ring_.post_initial(recv_queue_size))) {
			recv_mtu_ = srq_mtu;
		} else {
			log().warn("cannot post %u SRQ receives of %u bytes: connected mode without SRQ",
				   recv_queue_size, srq_mtu);
			srq_.destroy();
			srq_ring_.release();
		}
	}
	if (!srq_.raw())
		recv_mtu_ = RecvRing::receive_mtu(cm::kMaxRecvMtu, qp_sge);
	nsge_ = RecvRing::sges_for(recv_mtu_);
	if (recv_mtu_ < cm::kMinRecvMtu) {
		log().warn("receive buffers of %u SGEs hold %u bytes, below the %u connected mode needs: CM off",
			   srq_.raw() ? srq_sge : qp_sge, recv_mtu_, cm::kMinRecvMtu);
		recv_mtu_ = 0;
		return Status::Ok;
	}
	if (!fit_cq(recv_queue_size))	// the UD receives share the CQ
		recv_mtu_ = 0;
	pool_.set_limit(ReqPool::bound(p_.req_pool, max_conns_));
	unproven_.set_limit(ReqPool::unproven_bound(max_conns_));
	unreserved_.set_limit(ReqPool::unreserved_bound(max_conns_));
	rx_budget_.set_limit(u64(p_.nonsrq_grow_mb) << 20);
	return Status::Ok;	// the interface's bring-up line says which (summary())
}

const char *CmTable::summary() const
{
	if (!recv_mtu_)
		return "connected mode unavailable";
	return srq_.raw() ? "connected mode with SRQ" : "connected mode without SRQ";
}

// Both service IDs (RFC 4755 §3.5 and the Linux value), in both admin modes (docs/protocol.md
// §2.12): a peer in connected mode that sees our RC flag connects.
Status CmTable::open()
{
	if (!recv_mtu_)
		return Status::Ok;
	static const cm::SidKind kinds[2] = {cm::SidKind::Linux, cm::SidKind::Rfc};
	for (u32 i = 0; i < 2; i++) {
		listen_[i] = kapi_cm_id_create(ib(), ifc_.ctx());
		int rc = listen_[i] ? kapi_cm_listen(listen_[i], cm::service_id(kinds[i], ud_qpn())) : -KAPI_ENOMEM;
		if (rc) {
			count(ifs_.cm_listen_errors);
			log().warn("cannot listen on service ID 0x%016llx: %d",
				   (unsigned long long)cm::service_id(kinds[i], ud_qpn()), rc);
			if (listen_[i])
				kapi_cm_id_destroy(kstd::exchange(listen_[i], static_cast<kapi_cm_id *>(nullptr)));
		}
	}
	{
		kstd::SpinIrqSaveGuard g(lock_);
		__atomic_store_n(&open_, true, __ATOMIC_RELEASE);
	}
	__atomic_store_n(&waits_cut_, ~0ull, __ATOMIC_RELEASE);
	__atomic_store_n(&srq_rearm_, true, __ATOMIC_RELEASE);	// the housekeeping work arms the limit
	kick_house(0);
	return Status::Ok;
}

// ---- the graceful waits' deadlines (docs/connected.md §4)

void CmTable::resume_due_waits(u64 now)
{
	kstd::SpinIrqSaveGuard g(lock_);
	for (Connection &c : conns_)
		c.resume_if_due(now);
}

u64 CmTable::wait_deadline(u64 until) const
{
	const u64 cut = __atomic_load_n(&waits_cut_, __ATOMIC_ACQUIRE);
	return until < cut ? until : cut;
}

void CmTable::wake_at(u64 when)
{
	const u64 now = kapi_now_ms();
	kick_house(when > now ? u32(when - now) : 0);
}

// ---- peers

CmPeer *CmTable::find_or_add(const HwAddr &a, Gfp gfp)
{
	if (CmPeer *p = find(a))
		return p;
	// Bounded: xmit and accepted REQs add entries, the idle ones go after cm_idle_timeout.
	if (peers_full(read_stat(ifs_.cm_peers_added), read_stat(ifs_.cm_peers_freed), p_.max_peers)) {
		count(ifs_.cm_peers_refused);
		return nullptr;
	}
	CmPeer *p = new (gfp) CmPeer;
	if (!p)
		return nullptr;
	count(ifs_.cm_peers_added);
	p->addr = a;
	p->used_ms = kapi_now_ms();
	gid_bar_inherit(*p, p->used_ms);	// the port's bar under an earlier UD QPN
	peers_.push_back(*p);
	index_.insert(*p);
	return p;
}

// A port's connections under other UD QPNs are other peer entries: the bar goes to them too
// (the scan costs only when a bar is in force, a late peer's retire).
void CmTable::gid_bar_keep(const CmPeer &p, u64 now)
{
	const u64 bar = p.reserve_bar_until;
	if (!gid_bars_.note(p.addr.gid(), bar, now))
		count(ifs_.cm_reserve_bar_evicted);
	if (!cm::reserve_barred(now, bar))
		return;
	for (Connection &o : conns_) {
		CmPeer *q = o.owner;
		if (q && bytes_equal(q->addr.gid(), p.addr.gid(), kGidLen)) {
			q->reserve_bar_until = cm::reserve_bar_fold(q->reserve_bar_until, bar);
			o.tx_reserve_bar_at_least(bar);
		}
	}
}

// Every live connection of the GID, p's own included (the bar of a ring still in use reaches
// the GID only at its retire): a scan of the connections, at an entry's creation and a
// connection's filing.
void CmTable::gid_bar_inherit(CmPeer &p, u64 now)
{
	u64 bar = gid_bars_.bar(p.addr.gid(), now);
	for (Connection &o : conns_) {
		const CmPeer *q = o.owner;
		if (q && bytes_equal(q->addr.gid(), p.addr.gid(), kGidLen))
			bar = cm::reserve_bar_fold(bar, cm::reserve_bar_live(o.tx_reserve_bar(), now, o.tx_inflight(),
									     o.tx_no_progress_ms(now)));
	}
	if (bar > p.reserve_bar_until)
		p.reserve_bar_until = bar;
}

bool CmTable::over_limit() const
{
	return nconns_ >= max_conns_;	// what the CQ holds (fit_cq)
}

cm::Config CmTable::config(cm::Dir, u8 stale_retries, u8 crossing_waits) const
{
	cm::Config c;
	c.srq = srq_.raw() != nullptr;
	c.local_bidir = p_.bidir;
	c.send_accepted = __atomic_load_n(&send_accepted_, __ATOMIC_RELAXED);
	c.connected_mode = connected();
	c.stale_retries = stale_retries;
	c.crossing_waits = crossing_waits;
	return c;
}

Connection *CmTable::connect(CmPeer &p, u64 now, Gfp gfp, FeedNotes &notes)
{
	Connection *c = new (gfp) Connection(*this, cm::Dir::Active, config(cm::Dir::Active, p.stale_retries, p.crossing_waits), p.addr);
	if (!c || !kstd::ok(c->init(gfp))) {
		delete c;
		count(ifs_.cm_tx_nomem_ud);	// xmit sends it over UD; a reconnect waits for the next packet
		return nullptr;
	}
	const bool over = over_limit();
	conns_.push_back(*c);
	nconns_++;
	p.active = c;
	p.await_until = 0;
	p.used_ms = now;
	c->owner = &p;
	gid_bar_inherit(p, now);
	reserve_bar_inherit(p, *c);
	p.conns++;
	c->feed(cm::Event::connect(over), notes);
	return c;
}

// ---- NAPI

void CmTable::on_wc(RcQp &qp, const kapi_wc &wc, u64 now, u64 lag)
{
	// Every RC QP on this interface's CQ is one of its Connections (the CQ is private).
	static_cast<Connection &>(qp).on_wc(wc, now, lag);
}

void CmTable::rx_touched(Connection &c)
{
	if (c.napi_listed)
		return;
	c.napi_listed = true;
	c.napi_next = napi_touched_;
	napi_touched_ = &c;
}

void CmTable::rx_untouch(Connection &c)
{
	if (!c.napi_listed)
		return;
	for (Connection **p = &napi_touched_; *p; p = &(*p)->napi_next) {
		if (*p == &c) {
			*p = c.napi_next;
			break;
		}
	}
	c.napi_next = nullptr;
	c.napi_listed = false;
}

void CmTable::rx_stop_request(Connection &c)
{
	{
		kstd::SpinIrqSaveGuard g(lock_);
		if (!c.stop_listed) {
			c.stop_listed = true;
			c.stop_next = rx_stops_;
			__atomic_store_n(&rx_stops_, &c, __ATOMIC_RELEASE);	// after_poll's hint
		}
	}
	kapi_napi_schedule(netdev());	// not running (interface down): the next open's NAPI
}

// NAPI, after each poll: the receive rings' batch duties (ipoib_recv_ring.h). Every
// connection listed completed a receive in this poll, or needed a retry in the last one, and
// has not reported RxEmpty since (rx_untouch), so its non-SRQ fence has not completed and it
// is alive. A ring that could post nothing (needs_retry) stays listed: no completion will
// list it again, and a QP that can receive must not keep zero receives posted; the
// housekeeping work brings NAPI back for it. Then the stops QpToErr requested: under the
// table lock, so a connection that reported RxEmpty meanwhile cannot be retired (retire
// unlinks it) and freed while we look at it.
void CmTable::after_poll()
{
	if (srq_.raw())
		srq_ring_.repost();
	bool retry = false;
	Connection *again = nullptr;
	while (Connection *c = napi_touched_) {
		napi_touched_ = c->napi_next;
		c->napi_next = nullptr;
		c->napi_listed = false;
		if (c->rx_batch()) {
			retry = true;
			c->napi_next = again;
			again = c;
		}
	}
	for (Connection *c = again; c;) {
		Connection *next = c->napi_next;
		c->napi_next = nullptr;
		rx_touched(*c);
		c = next;
	}
	if (__atomic_load_n(&rx_stops_, __ATOMIC_ACQUIRE)) {	// rarely: teardowns only
		kstd::SpinIrqSaveGuard g(lock_);
		while (Connection *c = rx_stops_) {
			rx_stops_ = c->stop_next;
			c->stop_next = nullptr;
			c->stop_listed = false;
			c->rx_stop_now();
		}
	}
	if (srq_.raw() && srq_ring_.needs_retry())
		retry = true;
	if (retry && !__atomic_exchange_n(&rx_retry_, true, __ATOMIC_ACQ_REL))
		kick_house(10);
}

// SRQ_LIMIT_REACHED (atomic context): the backstop after failed reposts (docs/connected.md §5).
// NAPI reposts what the ring has queued; the limit is one-shot and re-armed by the
// housekeeping work (ib_modify_srq may sleep).
void CmTable::srq_event(kapi_qp_event_kind kind)
{
	if (kind != KAPI_QPEV_SRQ_LIMIT_REACHED)
		return;
	count(ifs_.cm_srq_limit_events);
	__atomic_store_n(&srq_rearm_, true, __ATOMIC_RELEASE);
	if (!ifc_.is_up())
		return;	// NAPI is not running: open() re-arms
	kapi_napi_schedule(netdev());
	kick_house(0);
}

} // namespace ipoib
