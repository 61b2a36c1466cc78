// SPDX-License-Identifier: GPL-2.0
// ipoib_cm_conn.cpp - one connected-mode connection (ipoib_cm_conn.h): events in, cm::Step
// actions out, executed inline or from the connection's work item (docs/connected.md §1).
#include "ipoib_cm_table.h"
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
		       &st_.rc_rx_grown, &st_.rc_rx_grow_failed, &st_.rc_rx_shrunk}),
	  tx_(t.ib(), {&st_.rc_tx_packets, &st_.rc_tx_bytes, &st_.rc_tx_wc_errors, &st_.rc_tx_drop_ring_full,
		       &st_.rc_tx_drop_dma, &st_.rc_tx_drop_post, &st_.rc_tx_csum_skipped, &st_.rc_tx_csum_filled,
		       &st_.rc_tx_drop_csum, &st_.rc_tx_linearized, &st_.rc_tx_drop_linearize,
		       &st_.rc_tx_gathered})
{
	peer_.b[0] = 0;
	used_ms_ = kapi_now_ms();
}

Connection::~Connection()
{
	KSTD_WARN_ON(qp_ || id_);
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
	__atomic_store_n(&mtu_, cm::connection_mtu(t_.recv_mtu(), peer_recv_mtu), __ATOMIC_RELAXED);
}

cm::State Connection::state() const
{
	kstd::SpinIrqSaveGuard g(lock_);
	return conn_.state();
}

void Connection::set_peer_caps(const cm::Caps &peer)
{
	cm::Caps local;
	local.present = true;
	local.flags = t_.csum_free() ? cm::kCapCsumFree : 0;
	__atomic_store_n(&csum_free_, cm::csum_free_allowed(local, peer), __ATOMIC_RELEASE);
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
	if (drain_reported_ || conn_.state() != cm::State::Draining || !draining_since_ || now - draining_since_ < ms)
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
	kstd::SpinIrqSaveGuard g(lock_);
	cm::Step st = conn_.on(e);
	if (conn_.state() == cm::State::Draining && !draining_since_)
		draining_since_ = kapi_now_ms();
	if (st.overflow)
		t_.log().err("CM step overflow on event %u (a state-machine bug)", unsigned(e.kind));
	if (st.ignored)	// counted by cm::Conn (cm_ignored_events)
		t_.log().debug("QPN 0x%06x: event %u ignored in state %s", qpn_, unsigned(e.kind),
			       cm::state_name(conn_.state()));
	if (st.inline_ok()) {
		// CmNotify alone: ib_cm_notify takes only spinlocks and COMM_EST must reach ib_cm
		// promptly (docs/connected.md §1).
		if (st.has(cm::Action::CmNotify) && id_)
			kapi_cm_notify_comm_est(id_);
		return st;
	}
	if (!steps_.push(st)) {
		count(t_.ifstats().cm_step_overflows);
		t_.log().err("connection step queue full: step of event %u lost", unsigned(e.kind));
		return st;
	}
	// Counted before xmit can see the teardown (the state changed under this lock): the
	// executor's action takes it back, or a failure skips it (execute).
	note_peer_actions(st, 0, 1);
	// Queued under the lock: the table frees a retired connection only after taking this
	// lock once and cancelling the work item, so no queue_work can follow the free.
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
		if (r == cm::PrivDataResult::Ok) {
			__atomic_store_n(&remote_qpn_, ev.remote_qpn, __ATOMIC_RELAXED);
			peer_recv_mtu_ = pd.recv_mtu;
			__atomic_store_n(&mtu_, cm::connection_mtu(t_.recv_mtu(), pd.recv_mtu), __ATOMIC_RELAXED);
			set_peer_caps(cm::caps_parse(ev.priv, ev.priv_len));
		}
		feed(cm::Event::rep(r, peer_announces_bidir(ev.priv, ev.priv_len)));
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

void Connection::on_wc(const kapi_wc &wc, u64 now)
{
	switch (wrid_kind(wc.wr_id)) {
	case WrKind::RcRecv:
		receive(wc, now);
		return;
	case WrKind::RcSend: {
		const bool ok = tx_.complete(wc, now);
		t_.rc_sent(1);
		if (!ok)
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
	if (ok && skb) {	// !skb: no replacement buffer, dropped and counted by the ring
		touch(now);
		t_.ifc().receive_rc(skb, peer_, st_, csum_free());
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
	touch(now);
	if (tx_.post(skb, now, csum_free()) != RcPost::Posted)
		return drop_unposted(skb);	// counted by the ring
}

void Connection::drop_unposted(kapi_skb *skb)
{
	t_.rc_unreserve();
	kapi_skb_free(skb);
}

// ---- the work item

void Connection::run()
{
	for (;;) {
		cm::Step st;
		u8 from = 0;
		if (__atomic_load_n(&wait_, __ATOMIC_SEQ_CST) != kNoWait) {
			if (!resume_parked(st, from))
				return;	// still waiting: the FIFO stays behind it
		} else {
			kstd::SpinIrqSaveGuard g(lock_);
			if (!steps_.pop(st))
				return;
		}
		execute(st, from);
		if (destroyed_)
			return;	// retired: the table frees it
	}
}

void Connection::execute(cm::Step st, u8 from)
{
	for (u8 i = from; i < st.n; i++) {
		const cm::Action a = st.act[i];
		if (a == cm::Action::WaitSends || a == cm::Action::WaitDrep) {
			if (park(st, u8(i + 1), a == cm::Action::WaitSends ? kWaitSends : kWaitDrep))
				return;	// run() resumes it at i + 1
			continue;
		}
		const Status s = act(a, st);
		if (a == cm::Action::Destroy) {
			// retired: nothing of the step may touch the neighbour after it (the state
			// machine puts Destroy last, cm::Conn::on)
			KSTD_WARN_ON(i + 1 < st.n);
			return;
		}
		if (kstd::ok(s))
			continue;
		if (a == cm::Action::SendRej || a == cm::Action::SendDreq || a == cm::Action::SendDrep)
			continue;	// ib_destroy_cm_id at Destroy sends what the CM state needs
		t_.log().debug("connection %s: %s failed (%d)", dir_ == cm::Dir::Active ? "active" : "passive",
			       cm::action_name(a), kstd::to_errno(s));
		// The rest of the step is not executed (so a failed setup never sent its REQ/REP).
		note_peer_actions(st, u8(i + 1), -1);
		cm::Step next;
		{
			kstd::SpinIrqSaveGuard g(lock_);
			next = conn_.on(cm::Event::setup_failed(qp_ != nullptr, rts_done_));
			note_peer_actions(next, 0, 1);
		}
		return execute(next);
	}
}

// ---- the graceful waits (docs/connected.md §4): parked steps, never a sleep in the work

bool Connection::wait_holds(u8 w) const
{
	// WaitSends: after QuiesceTx nothing posts any more and NAPI completes what was posted.
	// WaitDrep: the QP stays in RTS until the peer is done with it.
	if (w == kWaitSends)
		return tx_.outstanding() == 0;
	return __atomic_load_n(&peer_closing_, __ATOMIC_SEQ_CST);
}

// True when the step is parked (the caller returns); false when the wait is already over
// (its condition holds, or interface stop cut the waits short) and the step goes on.
bool Connection::park(const cm::Step &st, u8 next, u8 w)
{
	if (wait_holds(w))
		return false;
	const u64 now = kapi_now_ms();
	const u64 until = t_.wait_deadline(now + (w == kWaitSends ? cm::kWaitSendsMs : cm::kWaitDrepMs));
	if (now >= until) {
		wait_expired(w);
		return false;
	}
	parked_ = st;
	parked_next_ = next;
	__atomic_store_n(&wait_until_, until, __ATOMIC_RELAXED);
	// Published before the condition is read again, as the triggers publish the condition
	// before they read wait_ (kick): of a completion racing the park, one sees the other.
	__atomic_store_n(&wait_, w, __ATOMIC_SEQ_CST);
	if (wait_holds(w)) {
		__atomic_store_n(&wait_, u8(kNoWait), __ATOMIC_SEQ_CST);
		return false;
	}
	t_.wake_at(until);	// the housekeeping work resumes it at the deadline
	return true;
}

// The work item with a step parked: when the wait is over, st and from are the rest of it.
bool Connection::resume_parked(cm::Step &st, u8 &from)
{
	const u8 w = __atomic_load_n(&wait_, __ATOMIC_SEQ_CST);
	if (!wait_holds(w)) {
		// interface stop may have moved the deadline closer since the park
		const u64 until = t_.wait_deadline(__atomic_load_n(&wait_until_, __ATOMIC_RELAXED));
		if (kapi_now_ms() < until)
			return false;
		wait_expired(w);
	}
	st = parked_;
	from = parked_next_;
	__atomic_store_n(&wait_, u8(kNoWait), __ATOMIC_SEQ_CST);
	return true;
}

void Connection::wait_expired(u8 w)
{
	if (w == kWaitSends) {
		// QpToErr flushes the rest (counted: the peer is slow or gone; the send watchdog
		// and RETRY_EXC deal with it).
		count_local(st_.rc_tx_wait_expired);
		t_.log().debug("QPN 0x%06x: %u send(s) still outstanding after the wait: flushed", qpn(),
			       tx_.outstanding());
	} else {
		count_local(st_.rc_drep_wait_expired);
		t_.log().debug("QPN 0x%06x: no DREP within the wait", qpn());
	}
}

void Connection::kick()
{
	if (__atomic_load_n(&wait_, __ATOMIC_SEQ_CST) == kNoWait)
		return;
	// Under the lock, as feed() queues: the table frees a retired connection only after
	// taking it once and cancelling the work item.
	kstd::SpinIrqSaveGuard g(lock_);
	kapi_work_queue(work_);
}

void Connection::resume_if_due(u64 now)
{
	if (__atomic_load_n(&wait_, __ATOMIC_SEQ_CST) == kNoWait)
		return;
	if (now >= t_.wait_deadline(__atomic_load_n(&wait_until_, __ATOMIC_RELAXED)))
		kick();
}

u64 Connection::wait_due() const
{
	if (__atomic_load_n(&wait_, __ATOMIC_SEQ_CST) == kNoWait)
		return 0;
	return __atomic_load_n(&wait_until_, __ATOMIC_RELAXED);
}

const char *Connection::wait_name() const
{
	switch (__atomic_load_n(&wait_, __ATOMIC_RELAXED)) {
	case kWaitSends: return "sends";
	case kWaitDrep: return "drep";
	default: return nullptr;
	}
}

Status Connection::act(cm::Action a, const cm::Step &st)
{
	using cm::Action;
	if (!qp_ && (a == Action::QpToErr || a == Action::PostDrainWr)) {
		// A teardown step queued behind a setup step whose CreateQp failed (review-s5 F2):
		// no QP, nothing to move to error or fence; SetupFailed already decided Destroy.
		count(t_.ifstats().cm_no_qp_actions);
		return Status::Ok;
	}
	if (!qp_ && (a == Action::QpToInit || a == Action::QpToRtr || a == Action::QpToRts)) {
		count(t_.ifstats().cm_no_qp_actions);
		return Status::Invalid;	// never on a NULL QP: fed back as SetupFailed
	}
	switch (a) {
	case Action::CreateQp: return create_qp();
	case Action::QpToInit:
		if (dir_ == cm::Dir::Active)	// its cm_id is idle until the REQ: ib_cm cannot help
			return kstd::from_errno(kapi_rc_qp_to_init(qp_, t_.port(), t_.pkey_index()));
		return kstd::from_errno(kapi_cm_modify_qp(id_, qp_, KAPI_CM_QPS_INIT, 0));
	case Action::PostRecv:
		if (srq_)	// the SRQ holds the receives; it must hold some
			return t_.srq_ring().posted() ? Status::Ok : Status::NoMem;
		return rx_.post_initial(t_.params().nonsrq_min_recv);
	case Action::QpToRtr:
		return kstd::from_errno(kapi_cm_modify_qp(id_, qp_, KAPI_CM_QPS_RTR, u8(t_.params().min_rnr_timer)));
	case Action::QpToRts: {
		const int rc = kapi_cm_modify_qp(id_, qp_, KAPI_CM_QPS_RTS, 0);
		rts_done_ = rc == 0;
		return kstd::from_errno(rc);
	}
	case Action::SendReq: return send_req();
	case Action::SendRep: return send_rep();
	case Action::SendRtu: return kstd::from_errno(kapi_cm_send_rtu(id_));
	case Action::SendRej: return send_rej(st);
	case Action::CmNotify: return kstd::from_errno(kapi_cm_notify_comm_est(id_));
	case Action::SendDreq:
		if (const int rc = kapi_cm_send_dreq(id_)) {
			__atomic_store_n(&peer_closing_, true, __ATOMIC_RELEASE);	// no DREP will come
			return kstd::from_errno(rc);
		}
		return Status::Ok;
	case Action::SendDrep: return kstd::from_errno(kapi_cm_send_drep(id_));
	case Action::StopSending: t_.stop_sending(*this); return Status::Ok;
	case Action::QuiesceTx: kapi_netdev_tx_barrier(t_.netdev()); return Status::Ok;
	case Action::QpToErr: {
		const int rc = kapi_qp_to_error(qp_);
		// The ring is NAPI's: NAPI stops it (never a repost onto a QP in error) and
		// reports RxEmpty at once if nothing is posted (docs/connected.md §5).
		if (!srq_)
			t_.rx_stop_request(*this);
		return kstd::from_errno(rc);
	}
	case Action::PostDrainWr:
		if (!rts_done_) {
			// A teardown step computed before the setup step ahead of it failed at
			// QpToRtr/QpToRts (review2-s5 R4): SetupFailed took the drain WR out of
			// the fence (some firmware never completes one on a QP not in RTS).
			count(t_.ifstats().cm_drain_wr_skipped);
			return Status::Ok;
		}
		// A refused drain WR leaves the fence open: the connection stays in draining
		// until ForceDestroy (counted, never a destroy without the fence).
		if (kapi_post_drain_wr(qp_, wrid(WrKind::Drain, 0)) != 0)
			count_local(st_.rc_drain_wr_errors);
		return Status::Ok;
	case Action::StartSending: t_.start_sending(*this); return Status::Ok;
	case Action::Destroy: destroy(); return Status::Ok;
	case Action::FallBack:
		t_.fall_back(*this);
		__atomic_sub_fetch(&peer_actions_, 1u, __ATOMIC_RELEASE);
		return Status::Ok;
	case Action::Reconnect:
		t_.reconnect(*this);
		__atomic_sub_fetch(&peer_actions_, 1u, __ATOMIC_RELEASE);
		return Status::Ok;
	case Action::AwaitOther:
		t_.await_other(*this);
		__atomic_sub_fetch(&peer_actions_, 1u, __ATOMIC_RELEASE);
		return Status::Ok;
	case Action::WaitSends:
	case Action::WaitDrep:
		return Status::Ok;	// parked by execute(), never run here
	}
	return Status::Invalid;
}

Status Connection::create_qp()
{
	if (dir_ == cm::Dir::Active) {
		id_ = kapi_cm_id_create(t_.ib(), ctx());
		if (!id_)
			return Status::NoMem;
		path_ = kapi_cm_path_alloc();
		if (!path_)
			return Status::NoMem;
		if (!t_.path_copy(peer_, path_))
			return Status::Invalid;	// the path was flushed meanwhile: fall back
	}
	KSTD_TRY(tx_.alloc(t_.send_ring_size(), t_.rc_send_sge()));
	if (!srq_)
		KSTD_TRY(rx_.alloc(t_.params().nonsrq_max_recv, t_.buf_size()));
	kapi_qp_init init{};
	init.ctx = ctx();
	init.send_wr = t_.send_ring_size() + 1;	// + the drain WR
	init.recv_wr = srq_ ? 0 : t_.params().nonsrq_max_recv;	// an RQ cannot grow: its maximum now (§5)
	init.recv_sge = srq_ ? 0 : rx_.nsge();
	init.send_sge = tx_.sge();	// the device's, or 1 if the ring could not get its table
	qp_ = kapi_rc_qp_create(t_.pd(), t_.cq(), srq_ ? t_.srq() : nullptr, &init);
	if (!qp_)
		return Status::NoMem;
	__atomic_store_n(&qpn_, kapi_qp_num(qp_), __ATOMIC_RELAXED);
	psn_ = kapi_cm_random_psn();
	tx_.bind(qp_, t_.lkey());
	if (!srq_)
		rx_.bind(t_.netdev(), RecvTarget{qp_, nullptr}, t_.lkey());
	return Status::Ok;
}

// RFC 4755 §6 private data + the capability block (design.md §4 item 5), in REQ, REP, REJ.
void Connection::priv_data(u8 *out) const
{
	cm::PrivData pd;
	pd.ud_qpn = t_.ud_qpn();
	pd.recv_mtu = t_.recv_mtu();
	cm::cm_priv_data_encode(out, pd, u16((t_.bidir() ? cm::kCapBidir : 0) | (t_.csum_free() ? cm::kCapCsumFree : 0)));
}

Status Connection::send_req()
{
	usize attempt;
	{
		kstd::SpinIrqSaveGuard g(lock_);
		attempt = conn_.attempt();
	}
	u64 sid = 0;
	if (!cm::connect_service_id(attempt, peer_.qpn(), sid))
		return Status::Invalid;
	u8 pd[cm::kCmPrivDataLen];
	priv_data(pd);
	kapi_cm_req_args a{};
	a.path = path_;
	a.service_id = sid;
	a.qpn = qpn_;
	a.psn = psn_;
	a.priv = pd;
	a.priv_len = u8(sizeof(pd));
	a.response_timeout = cm::kCmResponseTimeout;
	a.max_cm_retries = cm::kMaxCmRetries;
	a.retry_count = cm::kRetryCount;
	a.rnr_retry_count = u8(t_.params().rnr_retry);
	a.srq = srq_;
	return kstd::from_errno(kapi_cm_send_req(id_, &a));
}

Status Connection::send_rep()
{
	u8 pd[cm::kCmPrivDataLen];
	priv_data(pd);
	kapi_cm_rep_args a{};
	a.qpn = qpn_;
	a.psn = psn_;
	a.priv = pd;
	a.priv_len = u8(sizeof(pd));
	a.rnr_retry_count = u8(t_.params().rnr_retry);	// ours, not the REQ's echo (§3)
	a.srq = srq_;
	return kstd::from_errno(kapi_cm_send_rep(id_, &a));
}

Status Connection::send_rej(const cm::Step &st)
{
	u8 pd[cm::kCmPrivDataLen];
	priv_data(pd);
	u8 guid[8];
	const bool ari = st.rej_ari_ca_guid;	// IBA 12.6.7.2: Timeout carries our CA GUID
	if (ari)
		kapi_cm_node_guid(t_.ib(), guid);
	const int rc = kapi_cm_send_rej(id_, st.rej_reason, ari ? guid : nullptr, ari ? 8 : 0, pd, u8(sizeof(pd)));
	if (!rc)
		t_.count_rej(true, st.rej_reason);
	return kstd::from_errno(rc);
}

void Connection::destroy()
{
	// ib_destroy_cm_id waits for this id's running callbacks and sends what its CM state
	// still needs (REJ/DREQ/DREP); never called from a callback (we are the work item).
	if (id_)
		kapi_cm_id_destroy(kstd::exchange(id_, static_cast<kapi_cm_id *>(nullptr)));
	if (qp_)
		kapi_qp_destroy(kstd::exchange(qp_, static_cast<kapi_qp *>(nullptr)));
	rx_.release();
	if (const u32 n = tx_.drain())	// ForceDestroy: sends NAPI will never complete
		t_.rc_sent(n);
	destroyed_ = true;
	t_.retire(*this);
}

} // namespace ipoib
