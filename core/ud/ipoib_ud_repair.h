// SPDX-License-Identifier: GPL-2.0
// ipoib_ud_repair.h - when the UD QP in ERROR is repaired. IBA 10.3.1: a QP in the Error
// state (a fatal asynchronous error, IBA 11.6.3.1, or a consumer's move to ERR) flushes every
// outstanding WR and leaves that state only through Reset; nothing but the consumer moves it
// out. Datagram mode, ARP/ND and multicast all ride on that one QP (RFC 4391 §5), so the
// interface's work repairs it in place (Interface::repair_ud_qp: quiesce, RESET -> INIT ->
// RTR -> RTS with the same P_Key index and Q_Key, receives reposted) instead of leaving the
// link dead until the module is reloaded.
//
// This is the decision alone, pure (the caller passes the QP's state and the time):
// host-tested (kunit/test_ud_repair.cpp). request() may come from any context (the QP's
// event handler, NAPI on a flushed receive); the rest is the work's (one caller at a time).
#pragma once

#include "kapi_verbs.h"
#include "kstd/types.h"

namespace ipoib {

class UdRepair : kstd::NonCopyable {
public:
	// A repair that fails is retried kFirstBackoffMs later, doubling (200, 400, 800, 1600 ms),
	// and given up after kMaxAttempts failures in a row (logged, counted): a provider that
	// refuses the transitions is not hammered from the work. Given up, the carrier is held
	// off (carrier_held: the broadcast join does not turn it on) and the repair is rearmed:
	// one more attempt rearm_delay_ms() later (30 s, doubling to 5 min; counted
	// ud_repair_rearms), given up again if it fails, so a provider that recovers brings the
	// link back without ifdown/ifup. ifdown/ifup still starts over at once (reset).
	// A repair that succeeds keeps the back-off running too: an ERROR again within kSettleMs
	// waits for the next doubling (capped at kMaxBackoffMs), so a QP that keeps failing at once
	// is not reset in a loop either. The failures and the doubling are cleared only once the
	// QP stayed in RTS kSettleMs (the first request after that starts a new streak).
	static constexpr kstd::u32 kMaxAttempts = 5;
	static constexpr kstd::u32 kFirstBackoffMs = 200;
	static constexpr kstd::u32 kSettleMs = 10000;
	static constexpr kstd::u32 kMaxBackoffMs = 6400;
	static constexpr kstd::u32 kRearmFirstMs = 30000;
	static constexpr kstd::u32 kRearmMaxMs = 300000;

	// How long after giving up for the rearms-th time (0: the first) the repair is tried
	// again: kRearmFirstMs, doubling, at most kRearmMaxMs.
	static kstd::u32 rearm_delay_ms(kstd::u32 rearms)
	{
		const kstd::u64 d = kstd::u64(kRearmFirstMs) << (rearms < 5 ? rearms : 5);
		return d < kRearmMaxMs ? kstd::u32(d) : kRearmMaxMs;
	}

	// Rearm: as Now, the attempt a give-up rearmed (the caller counts it).
	enum class Step : kstd::u8 { None, Now, Later, GaveUp, Rearm };

	// Any context: the QP was seen in ERROR (its fatal event, or a receive flushed while the
	// interface did not drain it).
	void request() { __atomic_store_n(&wanted_, true, __ATOMIC_RELEASE); }
	bool wanted() const { return __atomic_load_n(&wanted_, __ATOMIC_ACQUIRE); }

	// The work, with the QP's state (kapi_qp_state: KAPI_QPS_*, or -errno when the query
	// failed). Now: repair it (the request is taken; done() says how it went). Later: not
	// before wait_ms (a back-off, or the rearm after giving up). Rearm: as Now, the rearmed
	// attempt. None: nothing to do, including a stale request (the QP is in RTS again, or
	// in SQE, which UdQp::recover serves), unless the last attempt failed (stopped_): then
	// the QP is repaired whatever its state, since that attempt left the datapath stopped
	// (receives not reposted, the queue stopped, UD sends dropped) and only a repair that
	// succeeds restarts it.
	Step next(int qp_state, kstd::u64 now_ms, kstd::u32 &wait_ms)
	{
		if (!wanted())
			return Step::None;
		if (!gave_up_ && ok_ms_ && now_ms - ok_ms_ >= kSettleMs) {
			// Every ERROR asks (its event or a flushed receive): none for kSettleMs
			// after the last repair means the QP stayed in RTS that long.
			failures_ = 0;
			streak_ = 0;
			due_ms_ = 0;
			ok_ms_ = 0;
			rearms_ = 0;
		}
		bool rearm = false;
		if (gave_up_) {
			if (now_ms < rearm_due_ms_) {
				wait_ms = kstd::u32(rearm_due_ms_ - now_ms);
				return Step::Later;
			}
			// One more attempt (the failures stay: a QP a failed attempt left half-way
			// is still repaired); failing, it gives up again with a longer rearm.
			__atomic_store_n(&gave_up_, false, __ATOMIC_RELAXED);
			failures_ = kMaxAttempts - 1;
			due_ms_ = 0;
			rearms_++;
			rearm = true;
		}
		if (!stopped_ &&
		    (qp_state == KAPI_QPS_RTS || qp_state == KAPI_QPS_SQE || (qp_state == KAPI_QPS_OTHER && !failures_))) {
			// OTHER (RESET, INIT, RTR) with no failed attempt: a QP never brought up (a
			// child waiting for its P_Key); after one, the attempt left it half-way.
			// The carrier a give-up holds is released by a repair's success (done), not
			// by the state seen here.
			__atomic_store_n(&wanted_, false, __ATOMIC_RELEASE);
			return Step::None;
		}
		if (now_ms < due_ms_) {
			wait_ms = kstd::u32(due_ms_ - now_ms);
			return Step::Later;
		}
		__atomic_store_n(&wanted_, false, __ATOMIC_RELEASE);
		return rearm ? Step::Rearm : Step::Now;
	}

	// The work, after a Now or a Rearm: None (repaired: the carrier is no longer held),
	// Later (retried after the back-off, asked again here), GaveUp (the last attempt failed:
	// the carrier is held off, and the repair asked again here, next() saying when).
	Step done(bool ok, kstd::u64 now_ms)
	{
		// No attempt before the back-off of this streak's streak_-th attempt, whatever
		// its outcome (a success's due time binds only an ERROR within kSettleMs).
		const kstd::u64 backoff = kstd::u64(kFirstBackoffMs) << (streak_ < 5 ? streak_ : 5);
		due_ms_ = now_ms + (backoff < kMaxBackoffMs ? backoff : kMaxBackoffMs);
		streak_++;
		if (ok) {
			ok_ms_ = now_ms ? now_ms : 1;	// 0: no success to settle
			stopped_ = false;
			__atomic_store_n(&carrier_held_, false, __ATOMIC_RELAXED);
			return Step::None;
		}
		stopped_ = true;
		// The QP did not stay in RTS: the last success settles nothing any more, and the
		// failures from here count until one succeeds and the QP stays up kSettleMs.
		ok_ms_ = 0;
		if (++failures_ >= kMaxAttempts) {
			rearm_due_ms_ = now_ms + rearm_delay_ms(rearms_);
			__atomic_store_n(&gave_up_, true, __ATOMIC_RELAXED);
			__atomic_store_n(&carrier_held_, true, __ATOMIC_RELAXED);
			request();
			return Step::GaveUp;
		}
		request();
		return Step::Later;
	}

	// open(): a new start (after giving up, ifdown/ifup tries again).
	void reset()
	{
		failures_ = 0;
		streak_ = 0;
		due_ms_ = 0;
		ok_ms_ = 0;
		rearms_ = 0;
		rearm_due_ms_ = 0;
		stopped_ = false;	// open() restarts the datapath itself
		__atomic_store_n(&gave_up_, false, __ATOMIC_RELAXED);
		__atomic_store_n(&carrier_held_, false, __ATOMIC_RELAXED);
	}
	kstd::u32 failures() const { return failures_; }
	bool gave_up() const { return __atomic_load_n(&gave_up_, __ATOMIC_RELAXED); }	// any context
	// Given up and not repaired since: the carrier stays off (the work, any context).
	bool carrier_held() const { return __atomic_load_n(&carrier_held_, __ATOMIC_RELAXED); }
	kstd::u32 rearms() const { return rearms_; }

private:
	bool wanted_ = false;
	bool gave_up_ = false;	// written by the work, read by NAPI too
	bool carrier_held_ = false;	// given up, not repaired since
	bool stopped_ = false;		// the last attempt failed: the datapath stays stopped until one succeeds
	kstd::u32 failures_ = 0;	// attempts failed in a row (since the QP last settled)
	kstd::u32 streak_ = 0;		// attempts since the QP last stayed in RTS kSettleMs
	kstd::u64 due_ms_ = 0;		// no attempt before
	kstd::u64 ok_ms_ = 0;		// the last successful repair, 0: none since it settled or an attempt failed
	kstd::u32 rearms_ = 0;		// rearms since the QP last settled (rearm_delay_ms)
	kstd::u64 rearm_due_ms_ = 0;	// given up: the rearmed attempt not before
};

} // namespace ipoib
