// SPDX-License-Identifier: GPL-2.0
// ipoib_cm_state_live.cpp - the connection state machine's established and draining states
// (ipoib_cm_state.h; docs/connected.md §2): traffic, the peer's DREQ, errors, the watchdog,
// and the teardown fence's events. Pure: no kernel calls.
#include "core/cm/fsm/ipoib_cm_step_rules.h"

namespace ipoib::cm {

Step Conn::on_established(const Event &e)
{
	Step st;
	switch (e.kind) {
	case Ev::Close:
		teardown(st, true, true);
		return st;
	case Ev::IdleTimeout:
		ctr_.inc(Ctr::Reaped);
		teardown(st, true, true);
		return st;
	case Ev::SendWatchdog:
		if (!sending_)
			return ignore();
		ctr_.inc(Ctr::WatchdogTeardowns);
		teardown(st, true);
		fall_back(st, ctr_);
		return st;
	case Ev::ModeDatagram:
		mode_connected_ = false;
		if (dir_ == Dir::Active) {
			teardown(st, true, true);	// as Linux's flush of paths on a mode change
		} else {
			unpublish(st);
		}
		return st;
	case Ev::ModeConnected:
		mode_connected_ = true;
		publish(st);
		return st;
	case Ev::DreqReceived:
		// The peer closes: our sends already posted complete first (its QP stays in RTS
		// until our DREP when it is of our kind, WaitDrep), then the DREP.
		ctr_.inc(Ctr::DreqReceived);
		ctr_.inc(Ctr::PeerClosed);
		unpublish(st, true);
		st.push(Action::SendDrep);
		teardown(st, false);
		return st;
	case Ev::RejReceived:
		ctr_.inc(Ctr::RejRxPeer);
		ctr_.inc(Ctr::PeerClosed);
		teardown(st, false);
		return st;
	case Ev::CommEst:
		ctr_.inc(Ctr::CommEst);	// the QP event raced the RTU: nothing left to do
		return st;
	case Ev::MraReceived:
		ctr_.inc(Ctr::MraReceived);
		return st;
	case Ev::SetupFailed:
		// QpToRts, SendRtu or StartSending failed. A REJ if the CM is not established
		// yet, a DREQ if it is; whichever the CM state refuses, Destroy's
		// ib_destroy_cm_id sends what that state needs (core/cm.c cm_destroy_id).
		ctr_.inc(Ctr::SetupFailures);
		if (!e.qp_rts)	// QpToRtr/QpToRts failed: no drain WR on it (fence)
			rts_ = false;
		if (dir_ == Dir::Active)
			reject(st, ctr_, kRejNoResources, Ctr::RejSentNoResources);
		teardown(st, dir_ == Dir::Passive);
		if (dir_ == Dir::Active)
			fall_back(st, ctr_);
		return st;
	case Ev::QpFatal:
	case Ev::WcError:
	case Ev::LastWqeReached:
	case Ev::RxEmpty: {
		if (e.kind == Ev::LastWqeReached) {
			if (!cfg_.srq)
				return ignore();
			last_wqe_ = true;	// the QP entered error by itself
			ctr_.inc(Ctr::QpFatal);
		} else if (e.kind == Ev::RxEmpty) {
			if (!rx_flushed_early())
				return ignore();
			ctr_.inc(Ctr::QpFatal);	// every receive flushed: the QP is in error
		} else if (e.kind == Ev::QpFatal) {
			ctr_.inc(Ctr::QpFatal);
		} else {
			ctr_.inc(wc_ctr(e.wc));
		}
		bool was_sending = sending_;
		teardown(st, true);
		if (was_sending)
			fall_back(st, ctr_);	// the peer is unreachable over RC for now
		return st;
	}
	case Ev::DrepReceived:
	case Ev::DreqError:
	case Ev::TimewaitExit:
		peer_gone(st);
		return st;
	default:
		return ignore();
	}
}

Step Conn::on_draining(const Event &e)
{
	Step st;
	switch (e.kind) {
	case Ev::LastWqeReached:
		if (!cfg_.srq || last_wqe_)
			return ignore();
		last_wqe_ = true;
		fence(st);
		return st;
	case Ev::DrainWrDone:
		if (!drain_posted_ || drain_done_)
			return ignore();	// no drain WR yet: never destroy on it
		drain_done_ = true;
		fence_done(st);
		return st;
	case Ev::RxEmpty:
		if (cfg_.srq || rx_empty_)
			return ignore();
		rx_empty_ = true;
		fence_done(st);
		return st;
	case Ev::DrainTimeout:
		// Keep waiting: freeing a QP whose completions may still be in the CQ is a
		// use-after-free; a stuck entry is visible (debugfs, counter) and harmless
		// until interface teardown (ForceDestroy, with NAPI off and the CQ going).
		ctr_.inc(Ctr::DrainTimeouts);
		return st;
	case Ev::DreqReceived:
		ctr_.inc(Ctr::DreqReceived);	// crossing DREQs, or the peer's after our REJ
		st.push(Action::SendDrep);
		return st;
	case Ev::RepReceived:
		reject(st, ctr_, kRejTooLate, Ctr::RejSentTooLate);
		return st;
	case Ev::ReqError:
		ctr_.inc(Ctr::ReqTimeouts);
		return st;
	case Ev::RepError:
		ctr_.inc(Ctr::RepTimeouts);
		return st;
	case Ev::DreqError:
		ctr_.inc(Ctr::DreqTimeouts);	// Destroy needs no DREP
		return st;
	case Ev::RejReceived:
	case Ev::DrepReceived:
	case Ev::TimewaitExit:
		return st;	// the CM side finishing; the fence alone decides Destroy
	case Ev::MraReceived:
		ctr_.inc(Ctr::MraReceived);
		return st;
	case Ev::WcError:
		// A send that failed before the QP entered error (flushes are not reported).
		ctr_.inc(wc_ctr(e.wc));
		return st;
	case Ev::SetupFailed:
		// Steps are computed when their event arrives and run later, in order: a setup
		// step (Connect's, a REQ's) whose CreateQp then failed can be followed by the
		// teardown step queued behind it (Close, ModeDatagram, REJ). Without a QP there
		// is nothing to fence: no receive was posted, nothing was sent. The
		// executor skips the queued QP actions (cm_no_qp_actions); without this Destroy a
		// non-SRQ connection would wait for an RxEmpty that never comes. A QP that does
		// exist is still in the queued teardown's hands — unless it never reached RTS
		// (QpToRtr/QpToRts of the setup step failed): then the queued
		// teardown's drain WR would go on a QP some firmware never completes it on
		// (fence). With an SRQ such a QP has no CQE at all (nothing sent, the peer never
		// got our REP/RTU... nor our QPN from a REP), so QpToErr Destroy now, as a failed
		// setup in accepting; without one the receive flushes (the queued QpToErr) are
		// the fence alone, and the executor skips the queued drain WR (counted).
		ctr_.inc(Ctr::SetupFailures);
		qp_ = qp_ && e.qp_exists;
		if (!qp_) {
			rts_ = false;
			destroy(st);
		} else if (rts_ && !e.qp_rts) {
			rts_ = false;
			if (cfg_.srq) {
				st.push(Action::QpToErr);
				destroy(st);
			} else {
				fence_done(st);
			}
		}
		return st;
	default:
		return ignore();
	}
}


} // namespace ipoib::cm
