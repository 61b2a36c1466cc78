// SPDX-License-Identifier: GPL-2.0
// ipoib_cm_conn.cpp - one connected-mode connection (ipoib_cm_conn.h): its lifetime, events in
// (CM, QP, completions) as cm::Step actions out, its receives and its sends (docs/connected.md
// §1). The work item that executes the steps is ipoib_cm_conn_exec.cpp.
#include "ipoib_cm.h"
#include "ipoib_if.h"

namespace ipoib {

static_assert(sizeof(RcStats) == kRcStatCount * sizeof(u64));

void RcStats::add(const RcStats &o)
{
	u64 *d = &rc_rx_packets;
	const u64 *s = &o.rc_rx_packets;
	for (u32 i = 0; i < kRcStatCount; i++)
		d[i] += read_stat(s[i]);
}

namespace {

extern "C" void ipoib_cm_conn_work(kapi_ctx *c) noexcept
{
	if (Connection *x = from_ctx<Connection>(c))
		x->run();
}

// IBA 11.4.2.1 / ib_wc_status: the two transport errors the state machine tells apart.
cm::WcCause wc_cause(u32 status)
{
	if (status == KAPI_WC_RNR_RETRY_EXC_ERR)
		return cm::WcCause::RnrRetryExceeded;
	if (status == KAPI_WC_RETRY_EXC_ERR)
		return cm::WcCause::RetryExceeded;
	return cm::WcCause::Other;
}

// The peer-level decisions of a teardown step (the table's may_carry waits for them).
bool peer_action(cm::Action a)
{
	return a == cm::Action::FallBack || a == cm::Action::Reconnect || a == cm::Action::AwaitOther;
}

bool peer_announces_bidir(const u8 *priv, u32 len)
{
	const cm::Caps c = cm::caps_parse(priv, len);
	return c.present && (c.flags & cm::kCapBidir);
}

} // namespace

Connection::Connection(CmTable &t, cm::Dir dir, const cm::Config &cfg, const HwAddr &peer)
	: t_(t), dir_(dir), srq_(cfg.srq), peer_(peer), lock_(KAPI_LOCK_CM_CONN), conn_(dir, cfg),
	  rx_(t.ib(), RecvQueue::RcQp, {&st_.rc_rx_drop_nomem, &st_.rc_rx_wc_errors, &st_.rc_rx_flushed, &st_.rc_rx_post_errors,
		       &st_.rc_rx_grown, &st_.rc_rx_grow_failed, &st_.rc_rx_shrunk, &st_.rc_rx_refused,
		       &st_.rc_rx_left_empty, &st_.rc_rx_grow_refused}),
	  tx_(t.ib(), {&st_.rc_tx_packets, &st_.rc_tx_bytes, &st_.rc_tx_wc_errors, &st_.rc_tx_drop_ring_full,
		       &st_.rc_tx_drop_dma, &st_.rc_tx_drop_post, &st_.rc_tx_csum_skipped, &st_.rc_tx_csum_filled,
		       &st_.rc_tx_drop_csum, &st_.rc_tx_linearized, &st_.rc_tx_drop_linearize,
		       &st_.rc_tx_gathered, &st_.rc_tx_refused, &st_.rc_tx_gather_alloc, &st_.rc_tx_gather_freed})
{
	peer_.b[0] = 0;
	used_ms_ = kapi_now_ms();
	if (!srq_)	// the interface's growth budget and one connection's share (docs/connected.md §5)
		rx_.set_growth_bounds(&t.rx_budget(), t.params().nonsrq_grow_cap);
}

Connection::~Connection()
{
	KSTD_WARN_ON(qp_ || id_);
	leave_pool();	// a REQ refused under the table lock after its slot was taken
	leave_unproven();
	if (work_)
		kapi_work_free(work_);
	if (path_)
		kapi_cm_path_free(path_);
}

Status Connection::init(Gfp gfp)
{
	work_ = kapi_work_create(t_.wq(), ipoib_cm_conn_work, ctx(), unsigned(gfp));
	return work_ ? Status::Ok : Status::NoMem;
}

void Connection::adopt(kapi_cm_id *id, u32 remote_qpn, u32 peer_recv_mtu)
{
	id_ = id;
	__atomic_store_n(&remote_qpn_, remote_qpn, __ATOMIC_RELAXED);
	peer_recv_mtu_ = peer_recv_mtu;
	req_ms_ = kapi_now_ms();	// accepting's deadline runs from here (cm::kAcceptDeadlineMs)
	__atomic_store_n(&mtu_, cm::connection_mtu(t_.recv_mtu(), peer_recv_mtu), __ATOMIC_RELAXED);
}

cm::State Connection::state() const
{
	kstd::SpinIrqSaveGuard g(lock_);
	return conn_.state();
}

cm::Negotiated Connection::negotiated(const cm::Caps &peer, bool rfc_sid)
{
	cm::Caps local;
	local.present = true;
	local.flags = t_.csum_free() ? cm::kCapCsumFree : 0;
	cm::Negotiated n;
	n.peer_caps = peer.present;
	n.csum_free = cm::csum_free_allowed(local, peer);
	n.mtu_capped = peer_recv_mtu_ < t_.recv_mtu();
	n.rfc_sid = rfc_sid;
	__atomic_store_n(&csum_free_, n.csum_free, __ATOMIC_RELEASE);
	return n;
}

bool Connection::bidir() const
{
	kstd::SpinIrqSaveGuard g(lock_);
	return conn_.bidir();
}

cm::Counters Connection::counters() const
{
	kstd::SpinIrqSaveGuard g(lock_);
	return conn_.counters();
}

bool Connection::drain_overdue(u64 now, u64 ms)
{
	kstd::SpinIrqSaveGuard g(lock_);
	if (drain_reported_ || conn_.state() != cm::State::Draining || !draining_since_ || kstd::ms_since(now, draining_since_) < ms)
		return false;
	drain_reported_ = true;
	return true;
}

u32 Connection::rx_posted() const { return srq_ ? t_.srq_ring().posted() : rx_.posted(); }
const RecvRing &Connection::rx_ring() const { return srq_ ? t_.srq_ring() : rx_; }

void Connection::touch(u64 now)
{
	if (__atomic_load_n(&used_ms_, __ATOMIC_RELAXED) != now)
		__atomic_store_n(&used_ms_, now, __ATOMIC_RELAXED);
}

void Connection::leave_pool()
{
	if (__atomic_load_n(&pooled_, __ATOMIC_ACQUIRE) && __atomic_exchange_n(&pooled_, false, __ATOMIC_ACQ_REL))
		t_.req_pool().put();
}

void Connection::leave_unproven()
{
	(void)unproven_.release(t_.unproven_budget());
	(void)unreserved_.release(t_.unreserved_budget());
}

void Connection::quiesce()
{
	{
		kstd::SpinIrqSaveGuard g(lock_);
	}
	kapi_work_cancel(work_);
}

// ---- events in

cm::Step Connection::feed(const cm::Event &e)
{
	// The table's logger, taken before feed_note: once it unlocks and queues the work item,
	// the step may retire and free this connection, so nothing after it reads this.
	kstd::Logger &log = t_.log();
	FeedNote note;
	const cm::Step st = feed_note(e, note);
	if (note.any())
		note.print(log);	// after our lock (ipoib_cm_notes.h)
	return st;
}

void Connection::req_sent(u8 packet_life)
{
	const u64 ms = cm::connect_deadline_ms(packet_life, cm::kCmResponseTimeout, cm::kMaxCmRetries);
	__atomic_store_n(&connect_deadline_ms_, ms, __ATOMIC_RELAXED);
}

cm::Step Connection::feed(const cm::Event &e, FeedNotes &notes)
{
	FeedNote note;
	const cm::Step st = feed_note(e, note);
	notes.add(note);
	return st;
}

cm::Step Connection::feed_note(const cm::Event &e, FeedNote &note)
{
	kstd::SpinIrqSaveGuard g(lock_);
	cm::Step st = conn_.on(e);
	// Active: connecting's deadline runs from each REQ: cm::kConnectDeadlineMs until req_sent
	// knows the REQ's values.
	if (st.has(cm::Action::SendReq)) {
		__atomic_store_n(&connect_deadline_ms_, cm::kConnectDeadlineMs, __ATOMIC_RELAXED);
		__atomic_store_n(&req_ms_, kapi_now_ms(), __ATOMIC_RELAXED);
	}
	// An RTU (or the first receive), a refusal or a teardown: no longer unanswered.
	if (conn_.state() != cm::State::Accepting)
		leave_pool();
	if (conn_.state() == cm::State::Draining && !draining_since_)
		draining_since_ = kapi_now_ms();
	note.qpn = qpn_;
	note.event = u8(e.kind);
	note.state = u8(conn_.state());
	note.overflow = st.overflow;
	note.ignored = st.ignored;	// counted by cm::Conn (cm_ignored_events)
	if (st.inline_ok()) {
		// CmNotify alone: ib_cm_notify takes only spinlocks and COMM_EST must reach ib_cm
		// promptly (docs/connected.md §1).
		if (st.has(cm::Action::CmNotify) && id_)
			kapi_cm_notify_comm_est(id_);
		return st;
	}
	if (!steps_.push(st)) {
		count(t_.ifstats().cm_step_overflows);
		note.lost = true;
		return st;
	}
	// Counted before xmit can see the teardown (the state changed under this lock): the
	// executor's action takes it back, or a failure skips it (execute).
	note_peer_actions(st, 0, 1);
	// Queued under the lock: the table frees a retired connection only after taking this
	// lock once and cancelling the work item, so no queue_work can follow the free. Not
	// once teardown took it over (reap): its Destroy runs there.
	if (!reaped_)
		kapi_work_queue(work_);
	return st;
}

void Connection::note_peer_actions(const cm::Step &st, u8 from, int delta)
{
	for (u8 i = from; i < st.n; i++)
		if (peer_action(st.act[i]))
			__atomic_add_fetch(&peer_actions_, u32(delta), __ATOMIC_RELEASE);
}

void Connection::cm_event(const kapi_cm_event &ev)
{
	// What WaitDrep waits for: the peer is done with the connection (its answer to our DREQ,
	// its own DREQ crossing ours, a REJ) or ib_cm gave up on the DREQ. A parked WaitDrep
	// resumes now (the event's own step, if any, is queued behind it).
	if (ev.kind == KAPI_CM_EV_DREP || ev.kind == KAPI_CM_EV_DREQ || ev.kind == KAPI_CM_EV_REJ ||
	    ev.kind == KAPI_CM_EV_DREQ_ERROR || ev.kind == KAPI_CM_EV_TIMEWAIT_EXIT) {
		__atomic_store_n(&peer_closing_, true, __ATOMIC_SEQ_CST);
		kick();
	}
	switch (ev.kind) {
	case KAPI_CM_EV_REP: {
		cm::PrivData pd;
		const cm::PrivDataResult r = cm::priv_data_parse(ev.priv, ev.priv_len, pd);
		cm::Negotiated n;
		if (r == cm::PrivDataResult::Ok) {
			__atomic_store_n(&remote_qpn_, ev.remote_qpn, __ATOMIC_RELAXED);
			peer_recv_mtu_ = pd.recv_mtu;
			__atomic_store_n(&mtu_, cm::connection_mtu(t_.recv_mtu(), pd.recv_mtu), __ATOMIC_RELAXED);
			n = negotiated(cm::caps_parse(ev.priv, ev.priv_len), false);
		}
		feed(cm::Event::rep(r, peer_announces_bidir(ev.priv, ev.priv_len), n));
		return;
	}
	case KAPI_CM_EV_REJ:
		t_.count_rej(false, ev.rej_reason);
		feed(cm::Event::rej(u8(ev.rej_reason), peer_announces_bidir(ev.priv, ev.priv_len)));
		return;
	case KAPI_CM_EV_RTU: feed(cm::Event::of(cm::Ev::RtuReceived)); return;
	case KAPI_CM_EV_USER_ESTABLISHED: feed(cm::Event::of(cm::Ev::UserEstablished)); return;
	case KAPI_CM_EV_MRA: feed(cm::Event::of(cm::Ev::MraReceived)); return;
	case KAPI_CM_EV_DREQ: feed(cm::Event::of(cm::Ev::DreqReceived)); return;
	case KAPI_CM_EV_DREP: feed(cm::Event::of(cm::Ev::DrepReceived)); return;
	case KAPI_CM_EV_TIMEWAIT_EXIT: feed(cm::Event::of(cm::Ev::TimewaitExit)); return;
	case KAPI_CM_EV_REQ_ERROR: feed(cm::Event::of(cm::Ev::ReqError)); return;
	case KAPI_CM_EV_REP_ERROR: feed(cm::Event::of(cm::Ev::RepError)); return;
	case KAPI_CM_EV_DREQ_ERROR: feed(cm::Event::of(cm::Ev::DreqError)); return;
	default:
		// LAP/APR/SIDR: not used by IPoIB-CM (no alternate paths); a REQ never comes here.
		count(t_.ifstats().cm_other_events);
		return;
	}
}

void Connection::qp_event(kapi_qp_event_kind kind)
{
	switch (kind) {
	case KAPI_QPEV_COMM_EST: feed(cm::Event::of(cm::Ev::CommEst)); return;
	case KAPI_QPEV_LAST_WQE_REACHED: feed(cm::Event::of(cm::Ev::LastWqeReached)); return;
	case KAPI_QPEV_FATAL: feed(cm::Event::of(cm::Ev::QpFatal)); return;
	default: count(t_.ifstats().cm_other_events); return;
	}
}

// ---- NAPI

void Connection::on_wc(const kapi_wc &wc, u64 now, u64 lag)
{
	switch (wrid_kind(wc.wr_id)) {
	case WrKind::RcRecv:
		receive(wc, now);
		return;
	case WrKind::RcSend: {
		const RcWc done = tx_.complete(wc, now, lag);
		if (done == RcWc::Refused)
			return;	// not a send of ours (counted, warned once): no slot to give back
		t_.rc_sent(1);
		if (done == RcWc::Error)
			feed(cm::Event::wc_error(wc_cause(wc.status)));
		if (!tx_.outstanding()) {	// the last one: a parked WaitSends resumes
			__atomic_thread_fence(__ATOMIC_SEQ_CST);
			kick();
		}
		return;
	}
	case WrKind::Drain:
		// Flushed at once on a QP in error (docs/connected.md §4): its completion proves
		// every completion of the QP's send queue before it was polled.
		feed(cm::Event::of(cm::Ev::DrainWrDone));
		return;
	default:
		return;	// the dispatcher hands RC kinds only
	}
}

void Connection::receive(const kapi_wc &wc, u64 now)
{
	RecvRing &r = srq_ ? t_.srq_ring() : rx_;
	kapi_skb *skb = r.complete(wc);
	const bool ok = wc.status == KAPI_WC_SUCCESS;
	if (!ok && wc.status != KAPI_WC_WR_FLUSH_ERR)
		feed(cm::Event::wc_error(wc_cause(wc.status)));
	// A one-way passive connection's unproven slot goes back at its first packet (UnprovenSlot).
	if (ok && unproven_.on_rx(t_.unproven_budget()))
		count(t_.ifstats().cm_unproven_released_rx);
	if (ok && skb) {	// !skb: no replacement buffer, dropped and counted by the ring
		touch(now);
		t_.ifc().receive_rc(skb, peer_, st_, csum_free(), qpn());
	}
	if (srq_)
		return;
	// Non-SRQ: an error completion is never reposted and stops the ring, and so does the
	// stop QpToErr requested (rx_stop_now), so the count only falls; at 0 no receive
	// completion of this QP can still come (docs/connected.md §4, §5). Checked after a
	// success too: a receive completed before QpToErr may be the last one posted.
	if (r.empty())
		return report_rx_empty();
	if (ok)
		t_.rx_touched(*this);	// adapt + repost once per poll (rx_batch)
}

// The fence may now complete and the work item destroy us: off the poll's list first
// (RxEmpty is what a non-SRQ Destroy waits for; ForceDestroy runs with NAPI off), and
// nothing of *this is touched after the feed.
void Connection::report_rx_empty()
{
	if (rx_empty_reported_)
		return;
	rx_empty_reported_ = true;
	t_.rx_untouch(*this);
	feed(cm::Event::of(cm::Ev::RxEmpty));
}

void Connection::rx_stop_now()
{
	if (rx_empty_reported_)
		return;
	rx_.stop();
	if (rx_.empty())
		report_rx_empty();
}

bool Connection::rx_batch()
{
	rx_.adapt(kapi_now_ms());
	rx_.repost();
	return rx_.needs_retry();
}

// ---- xmit (netif tx lock held)

// The caller reserved one slot of the table's RC send bound (CmTable::rc_reserve): a send
// that is not posted gives it back.
void Connection::send(kapi_skb *skb, u64 now)
{
	kapi_skb_pull(skb, kPseudoLen);	// a fragmented skb is gathered (RcTxRing::post)
	// RFC 4755 §5.1: the connection carries at most min(both Receive MTUs), header included;
	// a larger packet's sender is told that MTU (ICMP, counted by the interface).
	if (kapi_skb_len(skb) > mtu() + u32(kEncapLen)) {
		count_local(st_.rc_tx_too_big);
		t_.rc_unreserve();	// not posted: its send slot goes back
		return t_.ifc().send_too_big_rc(skb, mtu());
	}
	// The skb leaves its socket before the post, as the in-tree driver does (ipoib_cm.c
	// ipoib_cm_send): an RC send completes only after the peer's ACK, and while the skb is
	// charged to the socket, TCP Small Queues holds the stream to a few skbs in flight per
	// completion round trip (measured, docs/connected.md §10.4). The bound on what is in
	// flight is ours (RcSendBudget, send_queue_size). Not before the MTU check: the ICMP
	// above needs the skb's route (icmp_send looks it up from the dst this drops).
	kapi_skb_orphan(skb);
	kapi_skb_dst_drop(skb);
	touch(now);
	if (tx_.post(skb, now, csum_free()) != RcPost::Posted)
		return drop_unposted(skb);	// counted by the ring
}

void Connection::drop_unposted(kapi_skb *skb)
{
	t_.rc_unreserve();
	kapi_skb_free(skb);
}

} // namespace ipoib
