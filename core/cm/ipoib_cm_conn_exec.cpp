// SPDX-License-Identifier: GPL-2.0
// ipoib_cm_conn_exec.cpp - a Connection's work item (ipoib_cm_conn.h): the step FIFO's executor,
// the graceful waits as parked steps (docs/connected.md §4), and the actions that touch the
// QP and the CM (create the QP, REQ, REP, REJ, destroy).
#include "ipoib_cm.h"
#include "ipoib_if.h"

namespace ipoib {

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
		// Shown by acting(): a work item stuck inside a kernel call names it at stop/teardown.
		__atomic_store_n(&acting_since_, kapi_now_ms(), __ATOMIC_RELAXED);
		__atomic_store_n(&acting_, u8(a), __ATOMIC_RELEASE);
		const Status s = act(a, st);
		__atomic_store_n(&acting_, kNoAct, __ATOMIC_RELEASE);
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
		u32 missed = 0;	// a peer's REQs and REPs come at its rate: rate-limited
		if (t_.peer_log().allow(kapi_now_ms(), missed))
			t_.log().debug("connection %s: %s failed (%d; %u more not logged, counted cm_setup_failures)",
				       dir_ == cm::Dir::Active ? "active" : "passive", cm::action_name(a), kstd::to_errno(s),
				       missed);
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
	// QpToErr flushes what is still outstanding (counted: the peer is slow or gone; the send
	// watchdog and RETRY_EXC deal with it).
	if (w == kWaitSends)
		count_local(st_.rc_tx_wait_expired);
	else
		count_local(st_.rc_drep_wait_expired);
	// The peer decides both (it does not ACK, or sends no DREP): rate-limited.
	u32 missed = 0;
	if (!t_.peer_log().allow(kapi_now_ms(), missed))
		return;
	if (w == kWaitSends)
		t_.log().debug("QPN 0x%06x: %u send(s) still outstanding after the wait: flushed (%u more not logged)", qpn(),
			       tx_.outstanding(), missed);
	else
		t_.log().debug("QPN 0x%06x: no DREP within the wait (%u more not logged)", qpn(), missed);
}

void Connection::kick()
{
	if (__atomic_load_n(&wait_, __ATOMIC_SEQ_CST) == kNoWait)
		return;
	// Under the lock, as feed() queues: the table frees a retired connection only after
	// taking it once and cancelling the work item.
	kstd::SpinIrqSaveGuard g(lock_);
	if (!reaped_)
		kapi_work_queue(work_);
}

const char *Connection::acting(u64 now, u64 &ms) const
{
	const u8 a = __atomic_load_n(&acting_, __ATOMIC_ACQUIRE);
	if (a == kNoAct)
		return nullptr;
	ms = kstd::ms_since(now, __atomic_load_n(&acting_since_, __ATOMIC_RELAXED));
	return cm::action_name(cm::Action(a));
}

void Connection::log_stuck(const char *when, u64 now)
{
	cm::State s;
	u32 queued;
	u8 fence;
	{
		kstd::SpinIrqSaveGuard g(lock_);
		s = conn_.state();
		queued = steps_.size();
		fence = conn_.fence_seen();
	}
	u64 ms = 0;
	const char *act = acting(now, ms);
	const char *wait = wait_name();
	t_.log().warn("%s: QPN 0x%06x (%s) %s, wait=%s, %u step(s) queued, work item inside %s for %llu ms; fence seen: last_wqe=%u drain_wr=%u drain_done=%u rx_empty=%u; %u send(s) outstanding",
		      when, qpn(), dir_ == cm::Dir::Active ? "active" : "passive", cm::state_name(s),
		      wait ? wait : "none", queued, act ? act : "no action", (unsigned long long)ms,
		      !!(fence & cm::Conn::kFenceLastWqe), !!(fence & cm::Conn::kFenceDrainPosted),
		      !!(fence & cm::Conn::kFenceDrainDone), !!(fence & cm::Conn::kFenceRxEmpty), tx_.outstanding());
}

Connection::Reap Connection::reap()
{
	{
		kstd::SpinIrqSaveGuard g(lock_);
		reaped_ = true;	// feed() and kick() queue nothing from here on
	}
	if (__atomic_load_n(&acting_, __ATOMIC_ACQUIRE) != kNoAct)
		return Reap::Busy;
	// Neither pending nor running once this returns (a run that began since the look above
	// is waited for: it executes steps, and ends in its Destroy or parks or returns).
	kapi_work_cancel(work_);
	if (destroyed_)
		return Reap::Destroyed;
	// ForceDestroy's own Destroy: NAPI is off and the CQ goes next, unpolled (§4); the steps
	// still queued or parked are moot (ib_destroy_cm_id sends what the CM state needs, and
	// retire unpublishes a connection whose StopSending never ran).
	if (__atomic_exchange_n(&wait_, u8(kNoWait), __ATOMIC_SEQ_CST) != kNoWait)
		note_peer_actions(parked_, parked_next_, -1);
	{
		kstd::SpinIrqSaveGuard g(lock_);
		cm::Step st;
		while (steps_.pop(st))
			note_peer_actions(st, 0, -1);
	}
	destroy();
	return Reap::Reaped;
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

// Our QP's retry behaviour is ours: what the REQ/REP asked, bounded by local policy
// (cm::clamp_qp_retry, docs/connected.md §3); clamped says whether any was lowered.
static int qp_to_rts(kapi_cm_id *id, kapi_qp *qp, u8 rnr_policy, bool &clamped)
{
	kapi_cm_qp_retry k{};
	if (const int rc = kapi_cm_rts_retry(id, &k))
		return rc;
	const cm::QpRetry peer{k.timeout, k.retry_cnt, k.rnr_retry};
	const cm::QpRetry r = cm::clamp_qp_retry(peer, rnr_policy);
	clamped = !(r == peer);
	const kapi_cm_qp_retry set{r.timeout, r.retry_cnt, r.rnr_retry};
	return kapi_cm_modify_qp(id, qp, KAPI_CM_QPS_RTS, 0, &set);
}

Status Connection::act(cm::Action a, const cm::Step &st)
{
	using cm::Action;
	switch (cm::act_guard(a, qp_ != nullptr, rts_done_)) {
	case cm::ActGuard::Run:
		break;
	case cm::ActGuard::SkipNoQp:
		// A teardown step queued behind a setup step whose CreateQp failed:
		// no QP, nothing to move to error or fence; SetupFailed already decided Destroy.
		count(t_.ifstats().cm_no_qp_actions);
		return Status::Ok;
	case cm::ActGuard::FailNoQp:
		count(t_.ifstats().cm_no_qp_actions);
		return Status::Invalid;	// never on a NULL QP: fed back as SetupFailed
	case cm::ActGuard::SkipNoRts:
		// A teardown step computed before the setup step ahead of it failed at
		// QpToRtr/QpToRts: SetupFailed took the drain WR out of
		// the fence (some firmware never completes one on a QP not in RTS).
		count(t_.ifstats().cm_drain_wr_skipped);
		return Status::Ok;
	}
	switch (a) {
	case Action::CreateQp: return create_qp();
	case Action::QpToInit:
		if (dir_ == cm::Dir::Active)	// its cm_id is idle until the REQ: ib_cm cannot help
			return kstd::from_errno(kapi_rc_qp_to_init(qp_, t_.port(), t_.pkey_index()));
		return kstd::from_errno(kapi_cm_modify_qp(id_, qp_, KAPI_CM_QPS_INIT, 0, nullptr));
	case Action::PostRecv:
		if (srq_)	// the SRQ holds the receives; it must hold some
			return t_.srq_ring().posted() ? Status::Ok : Status::NoMem;
		return rx_.post_initial(t_.params().nonsrq_min_recv);
	case Action::QpToRtr:
		return kstd::from_errno(kapi_cm_modify_qp(id_, qp_, KAPI_CM_QPS_RTR, u8(t_.params().min_rnr_timer), nullptr));
	case Action::QpToRts: {
		bool clamped = false;
		const int rc = qp_to_rts(id_, qp_, u8(t_.params().rnr_retry), clamped);
		if (clamped) {
			kstd::SpinIrqSaveGuard g(lock_);
			conn_.count(cm::Ctr::QpRetryClamped);
		}
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
	if (!srq_) {
		KSTD_TRY(rx_.alloc(t_.params().nonsrq_max_recv, t_.buf_size()));
		// The peer sends into this ring with our cm_rnr_retry (our REQ or REP sets it, §3)
		rx_.rnr_retry_finite(t_.params().rnr_retry != cm::kRnrRetryInfinite);
		KSTD_TRY(t_.cq_room());	// the CQ holds this QP's completions before it exists
	}
	kapi_qp_init init{};
	init.ctx = ctx();
	init.send_wr = t_.send_ring_size() + 1;	// + the drain WR
	init.recv_wr = srq_ ? 0 : t_.params().nonsrq_max_recv;	// an RQ cannot grow: its maximum now (§5)
	init.recv_sge = srq_ ? 0 : rx_.nsge();
	init.send_sge = tx_.sge();	// the device's (the ring's gather rows come on first use)
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

// RFC 4755 §6 private data + the capability block (docs/design.md §4 item 5), in REQ, REP, REJ.
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
	const Status st = kstd::from_errno(kapi_cm_send_req(id_, &a));
	// ib_cm retries the REQ for as long as these values and the path's lifetime say:
	// connecting's deadline is never shorter (cm::connect_deadline_ms)
	if (st == Status::Ok)
		req_sent(kapi_cm_path_packet_life(path_));
	return st;
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
	if (const u32 n = tx_.drain(kapi_now_ms()))	// ForceDestroy: sends NAPI will never complete
		t_.rc_destroyed(n);	// dropped: counted (cm_tx_drop_teardown)
	destroyed_ = true;
	t_.retire(*this);
}

} // namespace ipoib
