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
	// and given up after kMaxAttempts failures in a row (logged, counted; ifdown/ifup starts
	// again): a provider that refuses the transitions is not hammered from the work for ever.
	// A repair that succeeds keeps the back-off running too: an ERROR again within kSettleMs
	// waits for the next doubling (capped at kMaxBackoffMs), so a QP that keeps failing at once
	// is not reset in a loop either. The failures and the doubling are cleared only once the
	// QP stayed in RTS kSettleMs (the first request after that starts a new streak).
	static constexpr kstd::u32 kMaxAttempts = 5;
	static constexpr kstd::u32 kFirstBackoffMs = 200;
	static constexpr kstd::u32 kSettleMs = 10000;
	static constexpr kstd::u32 kMaxBackoffMs = 6400;

	enum class Step : kstd::u8 { None, Now, Later, GaveUp };

	// Any context: the QP was seen in ERROR (its fatal event, or a receive flushed while the
	// interface did not drain it).
	void request() { __atomic_store_n(&wanted_, true, __ATOMIC_RELEASE); }
	bool wanted() const { return __atomic_load_n(&wanted_, __ATOMIC_ACQUIRE); }

	// The work, with the QP's state (kapi_qp_state: KAPI_QPS_*, or -errno when the query
	// failed). Now: repair it (the request is taken; done() says how it went). Later: not
	// before wait_ms. None: nothing to do, including a stale request (the QP is in RTS
	// again, or in SQE, which UdQp::recover serves) and a request after giving up.
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
		}
		if (gave_up_ || qp_state == KAPI_QPS_RTS || qp_state == KAPI_QPS_SQE ||
		    (qp_state == KAPI_QPS_OTHER && !failures_)) {
			// OTHER (RESET, INIT, RTR) with no failed attempt: a QP never brought up (a
			// child waiting for its P_Key); after one, the attempt left it half-way.
			__atomic_store_n(&wanted_, false, __ATOMIC_RELEASE);
			return Step::None;
		}
		if (now_ms < due_ms_) {
			wait_ms = kstd::u32(due_ms_ - now_ms);
			return Step::Later;
		}
		__atomic_store_n(&wanted_, false, __ATOMIC_RELEASE);
		return Step::Now;
	}

	// The work, after a Now: None (repaired), Later (retried after the back-off, asked
	// again here), GaveUp (the last attempt failed).
	Step done(bool ok, kstd::u64 now_ms)
	{
		// No attempt before the back-off of this streak's streak_-th attempt, whatever
		// its outcome (a success's due time binds only an ERROR within kSettleMs).
		const kstd::u64 backoff = kstd::u64(kFirstBackoffMs) << (streak_ < 5 ? streak_ : 5);
		due_ms_ = now_ms + (backoff < kMaxBackoffMs ? backoff : kMaxBackoffMs);
		streak_++;
		if (ok) {
			ok_ms_ = now_ms ? now_ms : 1;	// 0: no success to settle
			return Step::None;
		}
		if (++failures_ >= kMaxAttempts) {
			__atomic_store_n(&gave_up_, true, __ATOMIC_RELAXED);
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
		__atomic_store_n(&gave_up_, false, __ATOMIC_RELAXED);
	}
	kstd::u32 failures() const { return failures_; }
	bool gave_up() const { return __atomic_load_n(&gave_up_, __ATOMIC_RELAXED); }	// any context

private:
	bool wanted_ = false;
	bool gave_up_ = false;	// written by the work, read by NAPI too
	kstd::u32 failures_ = 0;	// attempts failed in a row (since the QP last settled)
	kstd::u32 streak_ = 0;		// attempts since the QP last stayed in RTS kSettleMs
	kstd::u64 due_ms_ = 0;		// no attempt before
	kstd::u64 ok_ms_ = 0;		// the last successful repair, 0: none since it settled
};

} // namespace ipoib
