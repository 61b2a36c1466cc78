// SPDX-License-Identifier: GPL-2.0
// ipoib_cm_state.cpp - the connection state machine: its shared transitions, the setup states
// (idle, connecting, accepting) and the dispatch (see ipoib_cm_state.h; the state table is
// docs/connected.md §2). Established and draining are in ipoib_cm_state_live.cpp, the CM
// parameters, REJ classification and names in ipoib_cm_policy.cpp. Pure: no kernel calls.
#include "core/cm/fsm/ipoib_cm_step_rules.h"

namespace ipoib::cm {

// ---- the state machine

bool Conn::may_send() const
{
	// An accepted connection carries our packets only when both ends announced kCapBidir:
	// a Linux peer's passive path would corrupt memory or drop the connection
	// (docs/protocol.md §2.9). The test knob stands in for a third-party RFC peer that sends anyway.
	return mode_connected_ && (dir_ == Dir::Active || bidir() || cfg_.send_accepted);
}

void Conn::enter(State s)
{
	state_ = s;
	switch (s) {
	case State::Idle: break;
	case State::Connecting: ctr_.inc(Ctr::EnteredConnecting); break;
	case State::Accepting: ctr_.inc(Ctr::EnteredAccepting); break;
	case State::Established:
		ctr_.inc(Ctr::EnteredEstablished);
		count_negotiated();
		break;
	case State::Draining: ctr_.inc(Ctr::EnteredDraining); break;
	case State::Closed: ctr_.inc(Ctr::EnteredClosed); break;
	}
}

// Once per connection: Established is entered only from Connecting or Accepting.
void Conn::count_negotiated()
{
	ctr_.inc(bidir() ? Ctr::NegBidir : Ctr::NegOneway);
	if (!neg_.peer_caps)
		ctr_.inc(Ctr::NegNoCaps);
	if (neg_.csum_free)
		ctr_.inc(Ctr::NegCsumFree);
	if (dir_ == Dir::Active ? attempt_ > 0 : neg_.rfc_sid)
		ctr_.inc(Ctr::NegRfcSid);
	if (neg_.mtu_capped)
		ctr_.inc(Ctr::NegMtuCapped);
}

// The fence (docs/connected.md §4). The drain WR covers the send queue and goes only on a QP
// that reached RTS: before RTS nothing was sent, and some firmware never completes a drain WR
// on a QP that did not reach RTS (ipoib_cm.c's note). With an SRQ it waits for
// LAST_WQE_REACHED; a QP that never reached RTS with an SRQ has no CQE at all (nothing is
// received in INIT, nothing sent before the REQ/REP went out), so it needs no fence. Without an
// SRQ the posted-receive count reaching 0 (RxEmpty) covers the receive queue, always.
void Conn::fence(Step &st)
{
	if (rts_ && !drain_posted_ && (!cfg_.srq || last_wqe_)) {
		st.push(Action::PostDrainWr);
		drain_posted_ = true;
	}
	fence_done(st);
}

void Conn::fence_done(Step &st)
{
	if ((!rts_ || drain_done_) && (cfg_.srq || rx_empty_))
		destroy(st);
}

// Non-SRQ, before the teardown began: the ring reports RxEmpty only once it is stopped, and
// only an error completion stops it before our QpToErr, so every receive flushed: the QP
// entered error by itself (IBA 10.3.1, 11.6.3), e.g. its affiliated error (a peer's RDMA with a
// bad R_Key) whose event is still on its way. The ring reports it once: latched here, so the
// fence does not wait for a second one, and the teardown starts now (the event may come late
// or never). False with an SRQ (the SRQ's count is not the QP's) or when already seen.
bool Conn::rx_flushed_early()
{
	if (cfg_.srq || rx_empty_ || !qp_)
		return false;
	rx_empty_ = true;
	return true;
}

void Conn::destroy(Step &st)
{
	st.push(Action::Destroy);
	ctr_.inc(Ctr::Closed);
	enter(State::Closed);
}

void Conn::establish(Step &st)
{
	enter(State::Established);
	publish(st);
}

void Conn::publish(Step &st)
{
	if (!sending_ && may_send()) {
		st.push(Action::StartSending);
		sending_ = true;
	}
}

void Conn::unpublish(Step &st, bool wait_sends)
{
	if (sending_) {
		st.push(Action::StopSending);
		st.push(Action::QuiesceTx);
		if (wait_sends)
			st.push(Action::WaitSends);
		sending_ = false;
	}
}

// Unpublish first and wait out running xmits (no new send may be posted on a QP leaving RTS,
// and one posted after the drain WR would complete after it), tell the peer, move the QP to
// error (every outstanding WR flushes), then the fence: the drain WR at once without an SRQ;
// with an SRQ only after LAST_WQE_REACHED (IBA 10.3.1: until then the QP may still consume
// SRQ WQEs). A graceful teardown (a local decision on a healthy connection: Close, idle, mode
// datagram) first waits, bounded, for the sends already posted: a QP in error flushes them
// (IBA 10.3.1), and a packet the stack handed us before the switch would be lost; then, with
// a DREQ, for the peer's answer, so the peer's sends still in flight (it waits for them before
// its DREP, the DREQ row of on_established) reach a QP still in RTS. After an
// error (WC error, QP fatal, the watchdog, the peer's DREQ/REJ) waiting cannot help: the QP or
// the peer's side is in error already.
void Conn::teardown(Step &st, bool dreq, bool graceful)
{
	unpublish(st, graceful);
	if (dreq) {
		st.push(Action::SendDreq);
		if (graceful)
			st.push(Action::WaitDrep);
	}
	st.push(Action::QpToErr);
	enter(State::Draining);
	fence(st);
}

Step Conn::ignore()
{
	ctr_.inc(Ctr::Ignored);
	Step st;
	st.ignored = true;
	return st;
}


// Established, and ib_cm's own DREQ on our cm_id finished (DREP, DREQ timeout, timewait exit):
// ib_cm sends it when a REQ or REP arrives from the remote QPN of this connection (core/cm.c
// cm_req_handler / cm_rep_handler, stale connection). The peer no longer has this connection.
void Conn::peer_gone(Step &st)
{
	ctr_.inc(Ctr::PeerGone);
	ctr_.inc(Ctr::PeerClosed);
	bool was_sending = sending_;
	teardown(st, false);	// no DREQ: ib_cm sent one already
	if (!was_sending)
		return;
	if (cfg_.stale_retries < kMaxStaleRetries) {
		st.push(Action::Reconnect);
		ctr_.inc(Ctr::Reconnects);
	} else {
		fall_back(st, ctr_);
	}
}

// A local action failed while connecting or accepting: the step stopped at the failed action,
// so the REQ/REP it ended with never went out, the peer cannot have sent, and we posted no send
// (the QP may not even be in RTS): the fence is the receive flushes alone (or nothing with an
// SRQ). Whatever was built is undone; a passive side tells the active one (with our private
// data) instead of leaving its REQ to time out.
Step Conn::fail_setup(const Event &e, u8 rej_reason)
{
	Step st;
	ctr_.inc(Ctr::SetupFailures);
	if (rej_reason)
		reject(st, ctr_, rej_reason, Ctr::RejSentNoResources);
	qp_ = qp_ && e.qp_exists;
	rts_ = false;
	if (qp_) {
		teardown(st, false);
	} else {
		destroy(st);
	}
	if (dir_ == Dir::Active)
		fall_back(st, ctr_);
	return st;
}

Step Conn::on_idle(const Event &e)
{
	Step st;
	switch (e.kind) {
	case Ev::Connect:
		if (dir_ != Dir::Active)
			return ignore();
		if (!mode_connected_) {
			// Made after the switch to datagram (a Reconnect queued before it): left
			// idle it would stay the peer's active connection for good, and xmit
			// would wait for it in connected mode again. No QP: gone at once.
			destroy(st);
			return st;
		}
		if (e.over_limit) {
			// max_nonsrq_conn_qp bounds active QPs too: the CQ is sized for it and
			// an overrun errors every QP on the CQ.
			ctr_.inc(Ctr::ConnectOverLimit);
			destroy(st);
			fall_back(st, ctr_);
			return st;
		}
		// Receives are posted in INIT, before the REQ: the peer may send right after
		// its REP/our RTU (docs/protocol.md §5 item 2).
		st.push(Action::CreateQp);
		st.push(Action::QpToInit);
		st.push(Action::PostRecv);
		st.push(Action::SendReq);
		qp_ = true;
		ctr_.inc(Ctr::Opened);
		enter(State::Connecting);
		return st;
	case Ev::ReqReceived: {
		if (dir_ != Dir::Passive)
			return ignore();
		bool pair = cfg_.local_bidir && e.peer_bidir;
		if (e.priv != PrivDataResult::Ok) {
			reject(st, ctr_, rej_reason_for(e.priv), Ctr::RejSentPrivData);
		} else if (e.req_bound != ReqBound::Ok) {
			reject(st, ctr_, kRejReqBounds, Ctr::RejSentReqBounds);
		} else if (pair && e.crossing == Crossing::LocalWins) {
			// RFC 4755 §3.3: our address is not smaller: reject with Consumer Reject;
			// our own REQ survives and the peer uses it.
			reject(st, ctr_, kRejCrossing, Ctr::RejSentCrossing);
			ctr_.inc(Ctr::CrossingsWon);
		} else if (e.over_limit) {
			reject(st, ctr_, kRejLimit, Ctr::RejSentLimit);
			// a crossing we should have accepted: the core tells our active
			// connection CrossingRefused, so the peer's Consumer Reject is a refusal
			if (pair && e.crossing == Crossing::RemoteWins)
				ctr_.inc(Ctr::CrossingsRefused);
		} else {
			// Accepted. A crossing with a peer that is not bidirectional keeps both
			// one-way connections, as Linux does (docs/protocol.md §5 item 6).
			if (pair && e.crossing == Crossing::RemoteWins)
				ctr_.inc(Ctr::CrossingsLost);
			peer_bidir_ = e.peer_bidir;
			neg_ = e.neg;
			st.push(Action::CreateQp);
			st.push(Action::QpToInit);
			st.push(Action::PostRecv);
			st.push(Action::QpToRtr);
			st.push(Action::QpToRts);	// before the REP, so the drain WR completes
			st.push(Action::SendRep);
			qp_ = true;
			rts_ = true;
			ctr_.inc(Ctr::Accepted);
			enter(State::Accepting);
			return st;
		}
		destroy(st);	// no QP was made: nothing to fence
		return st;
	}
	case Ev::Close:
	case Ev::IdleTimeout:
		destroy(st);
		return st;
	case Ev::ModeDatagram:
		mode_connected_ = false;
		return st;
	case Ev::ModeConnected:
		mode_connected_ = true;
		return st;
	default:
		return ignore();
	}
}

Step Conn::rej_received(const Event &e)
{
	Step st;
	switch (classify_rej(e.rej_reason, attempt_, cfg_.local_bidir && e.peer_bidir, crossing_lost_,
			     crossing_refused_)) {
	case RejClass::RetryRfcSid:
		// Same cm_id (ib_cm resets it to idle on a REJ in REQ_SENT, core/cm.c
		// cm_rej_handler) and same QP: its receives stay posted.
		ctr_.inc(Ctr::RejRxRetryRfc);
		ctr_.inc(Ctr::RfcSidRetries);
		attempt_++;
		st.push(Action::SendReq);
		return st;
	case RejClass::Crossing:
		// Unless we accepted the peer's crossing REQ (its connection exists), a peer whose
		// announced crossings never brought a connection kMaxCrossingWaits times is
		// refusing: fall back (counted cm_rej_rx_fall_back, cm_fall_backs).
		if (crossing_lost_ || cfg_.crossing_waits < kMaxCrossingWaits) {
			ctr_.inc(Ctr::RejRxCrossing);
			teardown(st, false);
			st.push(Action::AwaitOther);
			return st;
		}
		break;
	case RejClass::Stale:
		ctr_.inc(Ctr::RejRxStale);
		teardown(st, false);
		if (cfg_.stale_retries < kMaxStaleRetries) {
			st.push(Action::Reconnect);
			ctr_.inc(Ctr::Reconnects);
		} else {
			fall_back(st, ctr_);
		}
		return st;
	case RejClass::FallBack:
		break;
	}
	ctr_.inc(Ctr::RejRxFallBack);
	teardown(st, false);
	fall_back(st, ctr_);
	return st;
}

Step Conn::on_connecting(const Event &e)
{
	Step st;
	switch (e.kind) {
	case Ev::RepReceived:
		if (e.priv != PrivDataResult::Ok) {
			reject(st, ctr_, rej_reason_for(e.priv), Ctr::RejSentPrivData);
			teardown(st, false);
			fall_back(st, ctr_);
			return st;
		}
		peer_bidir_ = e.peer_bidir;
		neg_ = e.neg;
		if (crossing_lost_ && bidir())
			ctr_.inc(Ctr::CrossingsBoth);
		st.push(Action::QpToRtr);
		st.push(Action::QpToRts);
		st.push(Action::SendRtu);
		rts_ = true;
		establish(st);
		return st;
	case Ev::RejReceived:
		return rej_received(e);
	case Ev::ReqError:
		// No answer at all: ib_cm answers any REQ, even for an unknown service ID, so
		// the RFC service ID would not help; the peer's CM is unreachable.
		ctr_.inc(Ctr::ReqTimeouts);
		teardown(st, false);
		fall_back(st, ctr_);
		return st;
	case Ev::MraReceived:
		ctr_.inc(Ctr::MraReceived);	// ib_cm extends the REQ timeout itself
		return st;
	case Ev::ConnectTimeout:
		// Our own bound on the attempt (kConnectDeadlineMs), whatever ib_cm still waits
		// for: as a REQ error, no connection to this peer for now. Destroy's
		// ib_destroy_cm_id cancels the REQ and rejects (cm_destroy_id).
		teardown(st, false);
		fall_back(st, ctr_);
		return st;
	case Ev::CrossingLost:
		if (!cfg_.local_bidir)
			return ignore();
		crossing_lost_ = true;
		return st;
	case Ev::CrossingRefused:
		if (!cfg_.local_bidir)
			return ignore();
		crossing_refused_ = true;
		return st;
	case Ev::Close:
		teardown(st, false);	// Destroy's ib_destroy_cm_id sends the REJ (cm_destroy_id)
		return st;
	case Ev::IdleTimeout:
		ctr_.inc(Ctr::Reaped);
		teardown(st, false);
		return st;
	case Ev::ModeDatagram:
		mode_connected_ = false;
		teardown(st, false);
		return st;
	case Ev::SetupFailed:
		return fail_setup(e, 0);
	case Ev::QpFatal:
	case Ev::WcError:
		// A QP in INIT completes receives only by a flush, so a WC error here is a
		// provider's fault; counted by its status as in the other states all the same.
		ctr_.inc(e.kind == Ev::WcError ? wc_ctr(e.wc) : Ctr::QpFatal);
		teardown(st, false);
		fall_back(st, ctr_);
		return st;
	case Ev::LastWqeReached:
		if (!cfg_.srq)
			return ignore();
		last_wqe_ = true;	// the QP entered error by itself, as in established
		ctr_.inc(Ctr::QpFatal);
		teardown(st, false);
		fall_back(st, ctr_);
		return st;
	case Ev::RxEmpty:
		if (!rx_flushed_early())
			return ignore();
		ctr_.inc(Ctr::QpFatal);
		teardown(st, false);
		fall_back(st, ctr_);
		return st;
	default:
		return ignore();
	}
}

Step Conn::on_accepting(const Event &e)
{
	Step st;
	switch (e.kind) {
	case Ev::RtuReceived:
	case Ev::UserEstablished:
		establish(st);	// the QP is in RTS since the REP
		return st;
	case Ev::CommEst:
		// A receive before the RTU (the RTU was lost or is late): ib_cm then reports
		// IB_CM_USER_ESTABLISHED, and the QP counts as up (IBA 12.9.7.1).
		ctr_.inc(Ctr::CommEst);
		st.push(Action::CmNotify);
		return st;
	case Ev::RepError:
		ctr_.inc(Ctr::RepTimeouts);
		teardown(st, false);
		return st;
	case Ev::AcceptTimeout:
		// no REJ here: from REP_SENT it would leave ib_cm's REP outstanding in TIMEWAIT;
		// the Destroy's ib_destroy_cm_id cancels it and rejects
		ctr_.inc(Ctr::AcceptTimeouts);
		teardown(st, false);
		return st;
	case Ev::RejReceived:
		ctr_.inc(Ctr::RejRxPeer);
		ctr_.inc(Ctr::PeerClosed);
		teardown(st, false);
		return st;
	case Ev::DreqReceived:
		ctr_.inc(Ctr::DreqReceived);
		ctr_.inc(Ctr::PeerClosed);
		st.push(Action::SendDrep);
		teardown(st, false);
		return st;
	case Ev::MraReceived:
		ctr_.inc(Ctr::MraReceived);
		return st;
	case Ev::Close:
	case Ev::IdleTimeout:
		// No DREQ before establishment, and no REJ either: as at AcceptTimeout, a REJ from
		// REP_SENT leaves the REP outstanding in TIMEWAIT, which ib_destroy_cm_id (ifdown,
		// rmmod) then waits out for the REQ's whole retry budget; the destroy rejects.
		if (e.kind == Ev::IdleTimeout)
			ctr_.inc(Ctr::Reaped);
		teardown(st, false);
		return st;
	case Ev::ModeDatagram:
		mode_connected_ = false;	// passive connections keep receiving in both modes
		return st;
	case Ev::ModeConnected:
		mode_connected_ = true;
		return st;
	case Ev::SetupFailed:
		return fail_setup(e, kRejNoResources);
	case Ev::QpFatal:
	case Ev::WcError:
	case Ev::LastWqeReached:
	case Ev::RxEmpty:
		if (e.kind == Ev::LastWqeReached) {
			if (!cfg_.srq)
				return ignore();
			last_wqe_ = true;
		}
		if (e.kind == Ev::RxEmpty && !rx_flushed_early())
			return ignore();
		// Our REP is outstanding: no REJ of ours, as at Close and AcceptTimeout (a REJ
		// from REP_SENT leaves the REP in TIMEWAIT for ib_destroy_cm_id to wait out);
		// the Destroy's ib_destroy_cm_id cancels it and rejects. Counted as in
		// established: a WC error by its status; LAST_WQE_REACHED and every receive
		// flushed mean the QP entered error by itself, as its fatal event does.
		ctr_.inc(e.kind == Ev::WcError ? wc_ctr(e.wc) : Ctr::QpFatal);
		teardown(st, false);
		return st;
	default:
		return ignore();
	}
}

ActGuard act_guard(Action a, bool qp, bool rts)
{
	if (!qp && (a == Action::QpToErr || a == Action::PostDrainWr))
		return ActGuard::SkipNoQp;
	if (!qp && (a == Action::QpToInit || a == Action::QpToRtr || a == Action::QpToRts))
		return ActGuard::FailNoQp;
	if (a == Action::PostDrainWr && !rts)
		return ActGuard::SkipNoRts;
	return ActGuard::Run;
}

namespace {

// Destroy ends the connection's link to its neighbour (the executor retires it there), so the
// peer-level actions a teardown adds after the fence (FallBack, Reconnect, AwaitOther) must
// run before it: a step whose fence had nothing to wait for (no QP, an SRQ QP that never
// reached RTS) would otherwise lose them and leave the neighbour without back-off or retry.
// Destroy is always the step's last action; the others keep their order.
void destroy_last(Step &st)
{
	const int d = st.index(Action::Destroy);
	if (d < 0)
		return;
	for (u8 i = u8(d); i + 1 < st.n; i++)
		st.act[i] = st.act[i + 1];
	st.act[st.n - 1] = Action::Destroy;
}

} // namespace

Step Conn::on(const Event &e)
{
	Step st = dispatch(e);
	destroy_last(st);
	return st;
}

Step Conn::dispatch(const Event &e)
{
	if (e.kind == Ev::ForceDestroy && state_ != State::Closed) {
		// Interface teardown, NAPI disabled: nothing polls the CQ any more and it is
		// destroyed right after the QPs without dispatching, so a CQE still queued
		// for this QP is never read. ib_destroy_cm_id sends what the CM state needs.
		Step st;
		unpublish(st);
		if (qp_)
			ctr_.inc(Ctr::ForcedDestroys);
		destroy(st);
		return st;
	}
	switch (state_) {
	case State::Idle: return on_idle(e);
	case State::Connecting: return on_connecting(e);
	case State::Accepting: return on_accepting(e);
	case State::Established: return on_established(e);
	case State::Draining: return on_draining(e);
	case State::Closed:
		if (e.kind == Ev::SetupFailed) {
			// As in draining (on_draining): a setup step that failed after the teardown
			// queued behind it had nothing to fence (SRQ, no RTS) and already ends in
			// Destroy; the executor skips its QP actions. Expected, so not "ignored".
			ctr_.inc(Ctr::SetupFailures);
			qp_ = qp_ && e.qp_exists;
			return Step{};
		}
		break;
	}
	return ignore();
}

} // namespace ipoib::cm
