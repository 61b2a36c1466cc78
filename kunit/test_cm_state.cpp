// SPDX-License-Identifier: GPL-2.0
// test_cm_state.cpp - the connection state machine (ipoib_cm_state.cpp): every transition of
// both directions with its exact action order, illegal events in every state, RFC 4755 §3.3
// crossing REQs simulated end to end on both sides of the comparison, REJ classification
// (IBA 12.6.7.2), timeouts, the teardown fence, and the CM parameter arithmetic.
#include "ktest.h"
#include "core/cm/fsm/ipoib_cm_state.h"

namespace ktest_cm_state {

using namespace ipoib::cm;
using ipoib::kHwAddrLen;
using kstd::u8;
using kstd::u32;
using kstd::u64;
using kstd::usize;

// ---- helpers

// The step's actions must be exactly `want`, in order.
template <usize N>
void expect_actions(ktest_ctx *kt, int line, const Step &st, const Action (&want)[N])
{
	bool same = st.n == N && !st.overflow && !st.ignored;
	for (usize i = 0; same && i < N; i++)
		same = st.act[i] == want[i];
	if (same)
		return;
	char got[200] = {}, exp[200] = {};
	int g = 0, x = 0;
	for (u8 i = 0; i < st.n && g < 180; i++)
		g += ktest_snprintf(got + g, sizeof(got) - usize(g), "%s ", action_name(st.act[i]));
	for (usize i = 0; i < N && x < 180; i++)
		x += ktest_snprintf(exp + x, sizeof(exp) - usize(x), "%s ", action_name(want[i]));
	char msg[460];
	ktest_snprintf(msg, sizeof(msg), "line %d: actions [%s] (ignored %d), want [%s]", line, got,
		       int(st.ignored), exp);
	KTEST_FAIL(msg);
}
#define EXPECT_ACTIONS(step, ...)                                                       \
	do {                                                                            \
		const Action want_[] = {__VA_ARGS__};                                   \
		expect_actions(kt, __LINE__, step, want_);                              \
	} while (0)

// No action and not ignored: a legal event that only counts.
#define EXPECT_QUIET(step)                                                              \
	do {                                                                            \
		const Step s_ = (step);                                                 \
		EXPECT_EQ(s_.n, 0u);                                                    \
		EXPECT_FALSE(s_.ignored);                                               \
	} while (0)

Config cfg(bool srq, bool bidir = true)
{
	Config c;
	c.srq = srq;
	c.local_bidir = bidir;
	return c;
}

Event ev(Ev k) { return Event::of(k); }

// An active connection brought to Established (REP announcing bidir as asked).
Conn active_established(const Config &c, bool peer_bidir = true)
{
	Conn a(Dir::Active, c);
	(void)a.on(ev(Ev::Connect));
	(void)a.on(Event::rep(PrivDataResult::Ok, peer_bidir));
	return a;
}

Conn passive_accepting(const Config &c, bool peer_bidir = true)
{
	Conn p(Dir::Passive, c);
	(void)p.on(Event::req(PrivDataResult::Ok, peer_bidir));
	return p;
}

Conn passive_established(const Config &c, bool peer_bidir = true)
{
	Conn p = passive_accepting(c, peer_bidir);
	(void)p.on(ev(Ev::RtuReceived));
	return p;
}

// ================================================================= parameters

KTEST(cm_params, rnr_timer_table)
{
	// IBA 9.7.5.2.8: code 0 is the longest delay, then 0.01 ms rising to 491.52 ms
	EXPECT_EQ(rnr_timer_10us(0), 65536u);	// 655.36 ms: what ib_cm leaves at RTR
	EXPECT_EQ(rnr_timer_10us(1), 1u);
	EXPECT_EQ(rnr_timer_10us(8), 16u);
	EXPECT_EQ(rnr_timer_10us(12), 64u);
	EXPECT_EQ(rnr_timer_10us(14), 128u);	// 1.28 ms (ib_verbs.h IB_RNR_TIMER_001_28)
	EXPECT_EQ(rnr_timer_10us(18), 512u);
	EXPECT_EQ(rnr_timer_10us(31), 49152u);	// 491.52 ms
	for (u8 c = 2; c <= kMinRnrTimerMax; c++)
		EXPECT_GT(rnr_timer_10us(c), rnr_timer_10us(u8(c - 1)));
	// the default is "well under 1 ms" and not the 655 ms of code 0
	EXPECT_NE(kMinRnrTimerDefault, 0u);
	EXPECT_LT(rnr_timer_10us(kMinRnrTimerDefault), 100u);
	EXPECT_LE(kMinRnrTimerDefault, kMinRnrTimerMax);
}

KTEST(cm_params, cm_times)
{
	// ib_cm's 4.096 us * 2^n -> 2^(n-8) ms (core/cm.c cm_convert_to_ms)
	EXPECT_EQ(cm_time_ms(0), 1u);
	EXPECT_EQ(cm_time_ms(8), 1u);
	EXPECT_EQ(cm_time_ms(9), 2u);
	EXPECT_EQ(cm_time_ms(14), 64u);
	EXPECT_EQ(cm_time_ms(18), 1024u);
	EXPECT_EQ(cm_time_ms(20), 4096u);
	EXPECT_EQ(cm_time_ms(31), 1u << 23);
	EXPECT_EQ(cm_time_ms(32 + 18), 1024u);	// a 5-bit field
	// a REQ to a dead peer: (retries + 1) * (2 * life + response)
	EXPECT_EQ(cm_dead_peer_ms(14, 18, 4), 5u * (128 + 1024));
	EXPECT_EQ(cm_dead_peer_ms(14, 20, 15), 16u * (128 + 4096));	// Linux: 67.6 s
	// ours: noticed in seconds, with a typical and with OpenSM's default (18) lifetime
	EXPECT_LT(cm_dead_peer_ms(14, kCmResponseTimeout, kMaxCmRetries), 7000u);
	EXPECT_LT(cm_dead_peer_ms(18, kCmResponseTimeout, kMaxCmRetries), 16000u);
	EXPECT_GE(kMaxCmRetries, 1u);	// one lost MAD is not a failure
	EXPECT_LE(kMaxCmRetries, 15u);	// 4-bit field (IBA 12.6.5)
	EXPECT_LE(kCmResponseTimeout, 31u);
}

KTEST(cm_params, transport_retries_and_watchdog)
{
	EXPECT_LE(kRetryCount, 7u);	// 3-bit field; 7 is not infinite for retry_cnt
	EXPECT_GE(kRetryCount, 1u);	// Linux's 0: one lost ACK kills the connection
	EXPECT_EQ(kRnrRetryDefault, 7u);	// infinite (docs/design.md §4 item 3)
	EXPECT_LE(kRnrRetryMax, 7u);
	// The exact IBA time, and ib_cm's ms rounding below it
	EXPECT_EQ(iba_time_ns(0), 4096u);
	EXPECT_EQ(iba_time_ns(19), 2147483648u);	// 2.15 s: OpenSM's lifetime 18, + 1
	EXPECT_EQ(iba_time_ns(32 + 19), 2147483648u);	// a 5-bit field
	for (u8 n = 0; n < 32; n++)
		EXPECT_LE(u64(cm_time_ms(n)) * 1000000u, iba_time_ns(n) + (n < 8 ? 1000000u : 0u));
	// The nominal RETRY_EXC at OpenSM's lifetime, in exact time: 3 * 2.15 s = 6.44 s. The
	// watchdog is a backstop, not ordered after it (the peer's ACK delay and the HCA's
	// timer can make RETRY_EXC later): only "seconds, and not below the nominal" is asserted.
	u64 nominal_retry_exc_ms = u64(kRetryCount + 1) * iba_time_ns(19) / 1000000u;
	EXPECT_EQ(nominal_retry_exc_ms, 6442u);
	EXPECT_GT(kSendWatchdogMs, nominal_retry_exc_ms);
	EXPECT_LE(kSendWatchdogMs, 30000u);	// "in seconds"
	// send_stalled: outstanding sends and no progress for longer than the watchdog
	EXPECT_FALSE(send_stalled(0, 1000000, 0));
	EXPECT_FALSE(send_stalled(3, 5000 + kSendWatchdogMs, 5000));
	EXPECT_TRUE(send_stalled(3, 5001 + kSendWatchdogMs, 5000));
	EXPECT_FALSE(send_stalled(1, 100, 200));	// progress after "now": not stalled
	const u64 wrap = ~u64(0) - 10;
	EXPECT_TRUE(send_stalled(1, wrap + kSendWatchdogMs + 20, wrap));	// wrap-safe
	EXPECT_FALSE(send_stalled(1, wrap + 20, wrap));
}

KTEST(cm_params, qp_retry_clamp)
{
	// within policy: unchanged (the default cm_rnr_retry 7 leaves the peer's RNR count)
	const QpRetry fine{19, 2, 7};
	EXPECT_TRUE(clamp_qp_retry(fine, kRnrRetryDefault) == fine);
	const QpRetry low{14, 0, 0};
	EXPECT_TRUE(clamp_qp_retry(low, kRnrRetryDefault) == low);
	// a REQ/REP asking a 2.4 h ACK timeout, 7 transport retries and infinite RNR retry
	// against cm_rnr_retry 3: each lowered to local policy
	const QpRetry hostile{31, 7, 7};
	const QpRetry r = clamp_qp_retry(hostile, 3);
	EXPECT_EQ(r.timeout, kQpMaxLocalAckTimeout);
	EXPECT_EQ(r.retry_cnt, kQpMaxRetryCount);
	EXPECT_EQ(r.rnr_retry, 3u);
	EXPECT_FALSE(r == hostile);
	// cm_rnr_retry below 7 is honoured for every count the peer asks above it, never raised
	for (u8 pol = 0; pol <= kRnrRetryMax; pol++)
		for (u8 peer = 0; peer <= 7; peer++) {
			const QpRetry c = clamp_qp_retry(QpRetry{1, 1, peer}, pol);
			EXPECT_EQ(c.rnr_retry, peer < pol ? peer : pol);
			EXPECT_EQ(c.timeout, 1u);
			EXPECT_EQ(c.retry_cnt, 1u);
		}
	// the bounds themselves: 5-bit and 3-bit fields
	EXPECT_LE(kQpMaxLocalAckTimeout, 31u);
	EXPECT_LE(kQpMaxRetryCount, 7u);
	EXPECT_STREQ(ctr_name(Ctr::QpRetryClamped), "cm_qp_retry_clamped");
}

KTEST(cm_params, send_clock_resets_on_first_send)
{
	// an hour idle, then one send: not stalled at once, only a watchdog period later
	SendClock c;
	c.posted(2, 1000);
	c.completed(2, 2000);
	EXPECT_FALSE(c.stalled(3600000));	// nothing outstanding
	c.posted(1, 3600000);
	EXPECT_FALSE(c.stalled(3600000));
	EXPECT_FALSE(c.stalled(3600000 + kSendWatchdogMs));
	EXPECT_TRUE(c.stalled(3600001 + kSendWatchdogMs));
	// a second send while one is outstanding does not move the clock
	SendClock d;
	d.posted(1, 100);
	d.posted(1, 100 + kSendWatchdogMs);
	EXPECT_TRUE(d.stalled(101 + kSendWatchdogMs));
	// a completion that empties the ring does, and the count never wraps below zero
	d.completed(1, 150 + kSendWatchdogMs);
	EXPECT_TRUE(d.stalled(151 + kSendWatchdogMs));	// one of two: not progress yet
	d.completed(5, 200 + kSendWatchdogMs);
	EXPECT_EQ(d.outstanding, 0u);
	EXPECT_FALSE(d.stalled(201 + 10 * kSendWatchdogMs));
}

// A trickle: one send accepted every 3 s (RNR NAKs for the rest), the sender keeping the
// ring full, until the watchdog would tear it down; returns the last completion's time.
u64 trickle(SendClock &t)
{
	t.posted(32, 0);
	u64 now = 0;
	for (int i = 0; i < 10 && !t.stalled(now + 1000); i++) {
		now += 3000;
		t.completed(1, now, true);
		t.posted(1, now);
	}
	return now;
}

// A trickle (one completion every 3 s with sends always outstanding) is a stall; the quota
// of completions within the window is not.
KTEST(cm_params, send_clock_judges_progress)
{
	SendClock t;
	const u64 now = trickle(t);
	EXPECT_TRUE(t.stalled(now + 1000));
	EXPECT_LE(now, 3 * 3000u + kSendWatchdogMs);	// within one window after the last progress
	// one completion a second (10 a window, above the quota): never a stall
	SendClock q;
	q.posted(32, 0);
	for (u64 ms = 1000; ms <= 100000; ms += 1000) {
		q.completed(1, ms);
		q.posted(1, ms);
		EXPECT_FALSE(q.stalled(ms));
	}
	// one short of the quota per window: a stall
	SendClock r;
	r.posted(32, 0);
	const u64 gap = kSendWatchdogMs / (kSendProgressQuota - 1) + 1;
	bool stalled = false;
	for (u64 ms = gap; ms <= 10 * kSendWatchdogMs && !stalled; ms += gap) {
		r.completed(1, ms);
		r.posted(1, ms);
		stalled = r.stalled(ms);
	}
	EXPECT_TRUE(stalled);
	EXPECT_TRUE(send_progressed(kSendProgressQuota, 5));
	EXPECT_FALSE(send_progressed(kSendProgressQuota - 1, 5));
	EXPECT_TRUE(send_progressed(1, 0));
}

// The back-off of a peer resets only after a connection delivered (SendClock::delivered): a
// successful completion that is progress. A trickle the watchdog tears down, and the flush of
// its ring, are none, though single sends of it completed.
KTEST(cm_params, send_clock_delivered_needs_progress)
{
	SendClock t;
	const u64 now = trickle(t);
	EXPECT_TRUE(t.stalled(now + 1000));
	EXPECT_FALSE(t.delivered);
	t.completed(t.outstanding, now + 1000, false);	// the teardown flushes the ring
	EXPECT_EQ(t.outstanding, 0u);
	EXPECT_FALSE(t.delivered);
	// the quota of accepted sends with more outstanding, or an emptied ring, is delivery
	SendClock q;
	q.posted(32, 0);
	q.completed(kSendProgressQuota, 10, true);
	EXPECT_TRUE(q.delivered);
	SendClock one;
	one.posted(1, 0);
	one.completed(1, 5, true);
	EXPECT_TRUE(one.delivered);
	EXPECT_FALSE(send_delivered(false, true));
	EXPECT_FALSE(send_delivered(true, false));
	EXPECT_TRUE(send_delivered(true, true));
}

KTEST(cm_params, names)
{
	EXPECT_STREQ(state_name(State::Connecting), "connecting");
	EXPECT_STREQ(state_name(State::Established), "established");
	EXPECT_STREQ(state_name(State::Draining), "draining");
	EXPECT_STREQ(state_name(State(kStateCount)), "?");
	EXPECT_STREQ(action_name(Action::AwaitOther), "await_other");
	EXPECT_STREQ(ctr_name(Ctr::Ignored), "cm_ignored_events");
	// every counter has a distinct, non-empty name (ethtool -S strings)
	for (usize i = 0; i < kCtrCount; i++) {
		const char *a = ctr_name(Ctr(i));
		EXPECT_GT(kstd::StrView(a).size(), 3u);
		for (usize j = 0; j < i; j++)
			EXPECT_FALSE(kstd::StrView(a) == kstd::StrView(ctr_name(Ctr(j))));
	}
}

// ================================================================= REJ classification

KTEST(cm_rej_class, service_id_retry)
{
	EXPECT_EQ(classify_rej(rej::kInvalidServiceId, 0, false, false, false), RejClass::RetryRfcSid);
	EXPECT_EQ(classify_rej(rej::kInvalidServiceId, 0, true, false, false), RejClass::RetryRfcSid);
	// already on the RFC value (last attempt): nobody listens -> UD
	EXPECT_EQ(classify_rej(rej::kInvalidServiceId, 1, false, false, false), RejClass::FallBack);
	EXPECT_EQ(classify_rej(rej::kInvalidServiceId, kConnectAttempts, true, true, false), RejClass::FallBack);
}

KTEST(cm_rej_class, consumer_reject_means_crossing_only_between_bidir_peers)
{
	EXPECT_EQ(classify_rej(rej::kConsumer, 0, true, false, false), RejClass::Crossing);
	EXPECT_EQ(classify_rej(rej::kConsumer, 0, false, true, false), RejClass::Crossing);
	EXPECT_EQ(classify_rej(rej::kConsumer, 1, true, true, false), RejClass::Crossing);
	// from Linux (ib_cm's REJ after a failed handler, no private data): a refusal
	EXPECT_EQ(classify_rej(rej::kConsumer, 0, false, false, false), RejClass::FallBack);
	EXPECT_EQ(classify_rej(rej::kConsumer, 1, false, false, false), RejClass::FallBack);
	// we refused the peer's crossing REQ (over the limit): its connection never comes
	EXPECT_EQ(classify_rej(rej::kConsumer, 0, true, false, true), RejClass::FallBack);
	EXPECT_EQ(classify_rej(rej::kConsumer, 0, true, true, true), RejClass::FallBack);
	EXPECT_EQ(classify_rej(rej::kStaleConn, 0, true, false, true), RejClass::Stale);
}

KTEST(cm_rej_class, every_reason)
{
	// A literal table, written from IBA 12.6.7.2 and what ib_cm sends (not derived from
	// classify_rej's switch): R = RFC service-ID retry on the first attempt, S = stale
	// (new QP), C = crossing between bidirectional peers, F = no connection (UD).
	//                        0         1         2         3
	//                        0123456789012345678901234567890123456
	static const char kTable[] = "FFFFSFSSRFSFFFFFFFFFFFFFFFFFCFSFFFFF";
	static_assert(sizeof(kTable) - 1 == 36);
	for (u32 r = 0; r < 64; r++) {
		char t = r < 36 ? kTable[r] : 'F';
		for (usize att = 0; att < 2; att++) {
			for (int f = 0; f < 4; f++) {
				bool pair = f & 1, crossing = f & 2;
				RejClass want = RejClass::FallBack;
				if (t == 'S')
					want = RejClass::Stale;
				else if (t == 'R' && att == 0)
					want = RejClass::RetryRfcSid;
				else if (t == 'C' && (pair || crossing))
					want = RejClass::Crossing;
				RejClass got = classify_rej(u8(r), att, pair, crossing, false);
				if (got != want) {
					char msg[96];
					ktest_snprintf(msg, sizeof(msg), "reason %u attempt %u pair %d crossing %d: %d, want %d",
						       unsigned(r), unsigned(att), int(pair), int(crossing), int(got),
						       int(want));
					KTEST_FAIL(msg);
				}
			}
		}
	}
	// spot checks by name
	EXPECT_EQ(classify_rej(rej::kNoQp, 0, true, true, false), RejClass::FallBack);
	EXPECT_EQ(classify_rej(rej::kInvalidMtu, 0, true, false, false), RejClass::FallBack);
	EXPECT_EQ(classify_rej(rej::kPortCmRedirect, 0, true, false, false), RejClass::FallBack);
	EXPECT_EQ(classify_rej(rej::kStaleConn, 1, false, false, false), RejClass::Stale);
	EXPECT_EQ(classify_rej(rej::kDuplicateLocalCommId, 0, true, true, false), RejClass::Stale);
}

KTEST(cm_rej_class, codes_and_reasons_we_send)
{
	// IBA 12.6.7.2 values (= ib_cm.h enum ib_cm_rej_reason)
	EXPECT_EQ(rej::kNoQp, 1u);
	EXPECT_EQ(rej::kTimeout, 4u);
	EXPECT_EQ(rej::kInvalidServiceId, 8u);
	EXPECT_EQ(rej::kStaleConn, 10u);
	EXPECT_EQ(rej::kInvalidMtu, 26u);
	EXPECT_EQ(rej::kConsumer, 28u);
	EXPECT_EQ(rej::kVendorOptionNotSupported, 35u);
	EXPECT_EQ(rej_reason_for(PrivDataResult::MtuTooSmall), rej::kInvalidMtu);
	EXPECT_EQ(rej_reason_for(PrivDataResult::Short), rej::kUnsupported);
	EXPECT_EQ(rej_reason_for(PrivDataResult::BadQpn), rej::kUnsupported);
	// only a crossing REJ uses Consumer Reject: the others must not read as one to a peer
	EXPECT_EQ(kRejCrossing, rej::kConsumer);
	const u8 others[] = {kRejLimit, kRejNoResources, kRejTooLate,
			     rej_reason_for(PrivDataResult::Short), rej_reason_for(PrivDataResult::MtuTooSmall)};
	for (u8 r : others) {
		EXPECT_NE(r, rej::kConsumer);
		EXPECT_NE(classify_rej(r, 0, true, false, false), RejClass::Crossing);
		EXPECT_NE(classify_rej(r, 0, true, false, false), RejClass::RetryRfcSid);
	}
}

// ================================================================= active side

KTEST(cm_state_active, open_and_establish)
{
	for (int srq = 0; srq < 2; srq++) {
		Conn a(Dir::Active, cfg(srq));
		EXPECT_EQ(a.state(), State::Idle);
		EXPECT_FALSE(a.qp_exists());
		EXPECT_ACTIONS(a.on(ev(Ev::Connect)), Action::CreateQp, Action::QpToInit, Action::PostRecv,
			       Action::SendReq);
		EXPECT_EQ(a.state(), State::Connecting);
		EXPECT_EQ(a.attempt(), 0u);
		EXPECT_TRUE(a.qp_exists());
		EXPECT_QUIET(a.on(ev(Ev::MraReceived)));	// ib_cm extends the timeout
		EXPECT_EQ(a.state(), State::Connecting);
		EXPECT_ACTIONS(a.on(Event::rep(PrivDataResult::Ok, true)), Action::QpToRtr, Action::QpToRts,
			       Action::SendRtu, Action::StartSending);
		EXPECT_EQ(a.state(), State::Established);
		EXPECT_TRUE(a.sending());
		EXPECT_TRUE(a.bidir());
		const Counters &c = a.counters();
		EXPECT_EQ(c[Ctr::Opened], 1u);
		EXPECT_EQ(c[Ctr::EnteredConnecting], 1u);
		EXPECT_EQ(c[Ctr::EnteredEstablished], 1u);
		EXPECT_EQ(c[Ctr::MraReceived], 1u);
		EXPECT_EQ(c[Ctr::Ignored], 0u);
	}
	// a Linux peer (no capability block): one-way, still sending on our own connection
	Conn a = active_established(cfg(true), false);
	EXPECT_EQ(a.state(), State::Established);
	EXPECT_TRUE(a.sending());
	EXPECT_FALSE(a.bidir());
	// cm_bidir=0 here: never bidirectional even if the peer announces it
	Conn b = active_established(cfg(true, false), true);
	EXPECT_FALSE(b.bidir());
	EXPECT_TRUE(b.sending());
}

KTEST(cm_state_active, rfc_service_id_retry)
{
	Conn a(Dir::Active, cfg(false));
	(void)a.on(ev(Ev::Connect));
	// Linux-ID REJ "invalid service ID": REQ again on the same QP (receives stay posted)
	EXPECT_ACTIONS(a.on(Event::rej(rej::kInvalidServiceId)), Action::SendReq);
	EXPECT_EQ(a.state(), State::Connecting);
	EXPECT_EQ(a.attempt(), 1u);
	u64 sid = 0;
	EXPECT_TRUE(connect_service_id(a.attempt(), 0x48, sid));
	EXPECT_EQ(sid, kSidRfc | 0x48);
	EXPECT_EQ(a.counters()[Ctr::RfcSidRetries], 1u);
	// the RFC ID is refused too: UD. The QP never left INIT: no drain WR (nothing was
	// sent, and it might never complete), the receive flushes are the fence
	EXPECT_ACTIONS(a.on(Event::rej(rej::kInvalidServiceId)), Action::QpToErr, Action::FallBack);
	EXPECT_EQ(a.state(), State::Draining);
	EXPECT_EQ(a.counters()[Ctr::RejRxFallBack], 1u);
	EXPECT_EQ(a.counters()[Ctr::FallBacks], 1u);
	// success on the RFC ID
	Conn b(Dir::Active, cfg(true));
	(void)b.on(ev(Ev::Connect));
	(void)b.on(Event::rej(rej::kInvalidServiceId));
	EXPECT_ACTIONS(b.on(Event::rep(PrivDataResult::Ok, false)), Action::QpToRtr, Action::QpToRts,
		       Action::SendRtu, Action::StartSending);
	EXPECT_EQ(b.attempt(), 1u);
}

KTEST(cm_state_active, rej_outcomes)
{
	// stale -> reconnect on a new QP, until kMaxStaleRetries, then UD
	Config c = cfg(false);
	Conn a(Dir::Active, c);
	(void)a.on(ev(Ev::Connect));
	EXPECT_ACTIONS(a.on(Event::rej(rej::kStaleConn)), Action::QpToErr, Action::Reconnect);
	EXPECT_EQ(a.counters()[Ctr::RejRxStale], 1u);
	c.stale_retries = kMaxStaleRetries;
	Conn b(Dir::Active, c);
	(void)b.on(ev(Ev::Connect));
	EXPECT_ACTIONS(b.on(Event::rej(rej::kTimeout)), Action::QpToErr, Action::FallBack);
}

KTEST(cm_state_active, rej_outcomes_fall_back_and_crossing)
{
	// resources / limit -> UD (SRQ, QP never left INIT: no CQE can exist, destroyed at once)
	Conn d(Dir::Active, cfg(true));
	(void)d.on(ev(Ev::Connect));
	EXPECT_ACTIONS(d.on(Event::rej(rej::kNoQp, true)), Action::QpToErr, Action::FallBack, Action::Destroy);
	// Consumer Reject from a bidirectional peer -> its own REQ survives: wait for it
	Conn e(Dir::Active, cfg(true));
	(void)e.on(ev(Ev::Connect));
	EXPECT_ACTIONS(e.on(Event::rej(rej::kConsumer, true)), Action::QpToErr, Action::AwaitOther, Action::Destroy);
	EXPECT_EQ(e.counters()[Ctr::RejRxCrossing], 1u);
	EXPECT_EQ(e.counters()[Ctr::FallBacks], 0u);
	// Consumer Reject from Linux -> UD
	Conn f(Dir::Active, cfg(true));
	(void)f.on(ev(Ev::Connect));
	EXPECT_ACTIONS(f.on(Event::rej(rej::kConsumer, false)), Action::QpToErr, Action::FallBack, Action::Destroy);
	// A bidirectional peer whose Consumer Rejects never brought its connection
	// (kMaxCrossingWaits AwaitOther in a row): refusing, so UD, not a connect/REJ/wait loop
	for (u8 waits = 0; waits <= kMaxCrossingWaits + 1; waits++) {
		Config c = cfg(false);
		c.crossing_waits = waits;
		Conn g(Dir::Active, c);
		(void)g.on(ev(Ev::Connect));
		const Step st = g.on(Event::rej(rej::kConsumer, true));
		const bool refused = waits >= kMaxCrossingWaits;
		EXPECT_EQ(st.has(Action::AwaitOther), !refused);
		EXPECT_EQ(st.has(Action::FallBack), refused);
		EXPECT_EQ(g.counters()[Ctr::RejRxFallBack], u64(refused));
		EXPECT_EQ(g.counters()[Ctr::RejRxCrossing], u64(!refused));
		// we accepted its crossing REQ: its connection exists, wait for it whatever the count
		Conn h(Dir::Active, c);
		(void)h.on(ev(Ev::Connect));
		EXPECT_QUIET(h.on(ev(Ev::CrossingLost)));
		EXPECT_TRUE(h.on(Event::rej(rej::kConsumer, true)).has(Action::AwaitOther));
	}
}

KTEST(cm_state_active, bad_rep_and_timeouts)
{
	const PrivDataResult bads[] = {PrivDataResult::Short, PrivDataResult::BadQpn, PrivDataResult::MtuTooSmall};
	for (PrivDataResult bad : bads) {
		Conn a(Dir::Active, cfg(false));
		(void)a.on(ev(Ev::Connect));
		Step st = a.on(Event::rep(bad, true));
		EXPECT_ACTIONS(st, Action::SendRej, Action::QpToErr, Action::FallBack);
		EXPECT_EQ(st.rej_reason, rej_reason_for(bad));
		EXPECT_FALSE(st.rej_ari_ca_guid);
		EXPECT_EQ(a.counters()[Ctr::RejSentPrivData], 1u);
		EXPECT_FALSE(a.sending());
	}
	// the REQ timed out after its retries: the peer's CM is unreachable, no RFC retry
	Conn t(Dir::Active, cfg(false));
	(void)t.on(ev(Ev::Connect));
	EXPECT_ACTIONS(t.on(ev(Ev::ReqError)), Action::QpToErr, Action::FallBack);
	EXPECT_EQ(t.counters()[Ctr::ReqTimeouts], 1u);
	// A REP that arrives after we gave up gets a REJ, as ib_cm itself would send. Only after
	// a local Close: REQ_ERROR has reset the cm_id to idle, where ib_cm drops a REP
	// (core/cm.c cm_rep_handler), but after Close the id is in REQ_SENT until Destroy.
	Conn l(Dir::Active, cfg(false));
	(void)l.on(ev(Ev::Connect));
	EXPECT_ACTIONS(l.on(ev(Ev::Close)), Action::QpToErr);	// waits for the receive flushes
	Step late = l.on(Event::rep(PrivDataResult::Ok, true));
	EXPECT_ACTIONS(late, Action::SendRej);
	EXPECT_EQ(late.rej_reason, kRejTooLate);
	// reason 4: the peer's ib_cm finds the connection by the ARI, our CA GUID
	EXPECT_TRUE(late.rej_ari_ca_guid);
	EXPECT_EQ(l.state(), State::Draining);
	EXPECT_EQ(l.counters()[Ctr::RejSentTooLate], 1u);
	EXPECT_ACTIONS(l.on(ev(Ev::RxEmpty)), Action::Destroy);
}

KTEST(cm_state_active, local_intents)
{
	// before connect: nothing to fence
	Conn i(Dir::Active, cfg(true));
	EXPECT_ACTIONS(i.on(ev(Ev::Close)), Action::Destroy);
	EXPECT_EQ(i.state(), State::Closed);
	// closing while connecting: no DREQ (the CM is not established), fence (the receive
	// flushes only: the QP is in INIT), no fall back
	Conn c(Dir::Active, cfg(false));
	(void)c.on(ev(Ev::Connect));
	EXPECT_ACTIONS(c.on(ev(Ev::Close)), Action::QpToErr);
	EXPECT_TRUE(c.on(ev(Ev::DrainWrDone)).ignored);	// none was posted
	EXPECT_ACTIONS(c.on(ev(Ev::RxEmpty)), Action::Destroy);
	// over max_nonsrq_conn_qp: no QP, UD (the CQ is sized for the limit)
	Conn o(Dir::Active, cfg(false));
	EXPECT_ACTIONS(o.on(Event::connect(true)), Action::FallBack, Action::Destroy);
	EXPECT_EQ(o.state(), State::Closed);
	EXPECT_FALSE(o.qp_exists());
	EXPECT_EQ(o.counters()[Ctr::ConnectOverLimit], 1u);
	EXPECT_EQ(o.counters()[Ctr::Opened], 0u);
	// established: unpublish, DREQ, error, fence
	Conn e = active_established(cfg(false));
	EXPECT_ACTIONS(e.on(ev(Ev::Close)), Action::StopSending, Action::QuiesceTx, Action::WaitSends, Action::SendDreq, Action::WaitDrep, Action::QpToErr,
		       Action::PostDrainWr);
	EXPECT_FALSE(e.sending());
}

KTEST(cm_state_active, reap_and_watchdog)
{
	// idle reaping
	Conn r = active_established(cfg(true));
	EXPECT_ACTIONS(r.on(ev(Ev::IdleTimeout)), Action::StopSending, Action::QuiesceTx, Action::WaitSends, Action::SendDreq, Action::WaitDrep, Action::QpToErr);
	EXPECT_EQ(r.counters()[Ctr::Reaped], 1u);
	// send watchdog: torn down and UD for a back-off
	Conn w = active_established(cfg(false));
	EXPECT_ACTIONS(w.on(ev(Ev::SendWatchdog)), Action::StopSending, Action::QuiesceTx, Action::SendDreq, Action::QpToErr,
		       Action::PostDrainWr, Action::FallBack);
	EXPECT_EQ(w.counters()[Ctr::WatchdogTeardowns], 1u);
}

KTEST(cm_state_active, mode_changes)
{
	// mode -> datagram closes active connections (Linux flushes its paths)
	Conn m = active_established(cfg(true));
	EXPECT_ACTIONS(m.on(ev(Ev::ModeDatagram)), Action::StopSending, Action::QuiesceTx, Action::WaitSends, Action::SendDreq, Action::WaitDrep, Action::QpToErr);
	Conn mc(Dir::Active, cfg(true));
	(void)mc.on(ev(Ev::Connect));
	EXPECT_ACTIONS(mc.on(ev(Ev::ModeDatagram)), Action::QpToErr, Action::Destroy);	// SRQ, INIT
	// no connect in datagram mode: a connection made then (a Reconnect queued before the
	// switch) goes at once; left idle, xmit would wait for it in connected mode for good
	for (int srq = 0; srq < 2; srq++) {
		Config dg = cfg(srq);
		dg.connected_mode = false;
		Conn d(Dir::Active, dg);
		EXPECT_ACTIONS(d.on(ev(Ev::Connect)), Action::Destroy);
		EXPECT_EQ(d.state(), State::Closed);
		EXPECT_FALSE(d.qp_exists());
		EXPECT_EQ(d.counters()[Ctr::Opened], 0u);
		EXPECT_EQ(d.counters()[Ctr::Ignored], 0u);
		// the same when the switch reached it before its Connect
		Conn l(Dir::Active, cfg(srq));
		EXPECT_QUIET(l.on(ev(Ev::ModeDatagram)));
		EXPECT_ACTIONS(l.on(ev(Ev::Connect)), Action::Destroy);
		EXPECT_EQ(l.state(), State::Closed);
	}
}

KTEST(cm_state_active, peer_events)
{
	Conn a = active_established(cfg(false));
	EXPECT_ACTIONS(a.on(ev(Ev::DreqReceived)), Action::StopSending, Action::QuiesceTx, Action::WaitSends, Action::SendDrep, Action::QpToErr,
		       Action::PostDrainWr);
	EXPECT_EQ(a.counters()[Ctr::PeerClosed], 1u);
	Conn r = active_established(cfg(false));
	EXPECT_ACTIONS(r.on(Event::rej(rej::kTimeout)), Action::StopSending, Action::QuiesceTx, Action::QpToErr, Action::PostDrainWr);
	EXPECT_EQ(r.counters()[Ctr::RejRxPeer], 1u);
	// COMM_EST after the RTU raced it: nothing to do
	Conn ce = active_established(cfg(true));
	EXPECT_QUIET(ce.on(ev(Ev::CommEst)));
}

KTEST(cm_state_active, ib_cm_dreq_on_a_stale_peer)
{
	// A REQ or REP from the remote QPN of an established connection makes ib_cm send a
	// DREQ on our cm_id itself (core/cm.c cm_req_handler/cm_rep_handler, stale connection).
	// Its end (DREP, DREQ timeout, timewait exit) reaches us in established: the peer is
	// gone. Torn down without a DREQ of ours, and the send path replaced.
	const Ev ends[] = {Ev::DrepReceived, Ev::DreqError, Ev::TimewaitExit};
	for (Ev end : ends) {
		Conn a = active_established(cfg(false));
		EXPECT_ACTIONS(a.on(ev(end)), Action::StopSending, Action::QuiesceTx, Action::QpToErr,
			       Action::PostDrainWr, Action::Reconnect);
		EXPECT_EQ(a.state(), State::Draining);
		EXPECT_FALSE(a.sending());
		EXPECT_EQ(a.counters()[Ctr::PeerGone], 1u);
		EXPECT_EQ(a.counters()[Ctr::Reconnects], 1u);
		// after the stale retries: UD
		Config c = cfg(true);
		c.stale_retries = kMaxStaleRetries;
		Conn b = active_established(c);
		EXPECT_ACTIONS(b.on(ev(end)), Action::StopSending, Action::QuiesceTx, Action::QpToErr, Action::FallBack);
		// a passive one-way connection was no send path: just torn down
		Conn p = passive_established(cfg(false), false);
		EXPECT_ACTIONS(p.on(ev(end)), Action::QpToErr, Action::PostDrainWr);
		EXPECT_EQ(p.counters()[Ctr::PeerGone], 1u);
	}
}

KTEST(cm_state_active, qp_events)
{
	struct { WcCause w; Ctr c; } wcs[] = {{WcCause::RnrRetryExceeded, Ctr::RnrRetryExceeded},
					      {WcCause::RetryExceeded, Ctr::RetryExceeded},
					      {WcCause::Other, Ctr::WcErrors}};
	for (auto &x : wcs) {
		Conn w = active_established(cfg(false));
		EXPECT_ACTIONS(w.on(Event::wc_error(x.w)), Action::StopSending, Action::QuiesceTx, Action::SendDreq, Action::QpToErr,
			       Action::PostDrainWr, Action::FallBack);
		EXPECT_EQ(w.counters()[x.c], 1u);
	}
	Conn f = active_established(cfg(true));
	EXPECT_ACTIONS(f.on(ev(Ev::QpFatal)), Action::StopSending, Action::QuiesceTx, Action::SendDreq, Action::QpToErr,
		       Action::FallBack);
	// SRQ QP that entered error by itself: LAST_WQE_REACHED first -> the fence goes at once
	Conn l = active_established(cfg(true));
	EXPECT_ACTIONS(l.on(ev(Ev::LastWqeReached)), Action::StopSending, Action::QuiesceTx, Action::SendDreq, Action::QpToErr,
		       Action::PostDrainWr, Action::FallBack);
}

KTEST(cm_state_active, setup_failures)
{
	// CreateQp failed: no QP, just destroy and UD
	Conn a(Dir::Active, cfg(false));
	(void)a.on(ev(Ev::Connect));
	EXPECT_ACTIONS(a.on(Event::setup_failed(false)), Action::FallBack, Action::Destroy);
	EXPECT_EQ(a.state(), State::Closed);
	EXPECT_FALSE(a.qp_exists());
	// PostRecv or SendReq failed: the QP exists, so it is fenced
	Conn b(Dir::Active, cfg(false));
	(void)b.on(ev(Ev::Connect));
	EXPECT_ACTIONS(b.on(Event::setup_failed(true)), Action::QpToErr, Action::FallBack);
	EXPECT_EQ(b.counters()[Ctr::SetupFailures], 1u);
	// RTU failed after the REP (the QP in RTS): a REJ to the passive peer, fence, UD
	Conn c = active_established(cfg(false));
	Step st = c.on(Event::setup_failed(true, true));
	EXPECT_ACTIONS(st, Action::SendRej, Action::StopSending, Action::QuiesceTx, Action::QpToErr, Action::PostDrainWr,
		       Action::FallBack);
	EXPECT_EQ(st.rej_reason, kRejNoResources);
	// RTR or RTS failed: the same without the drain WR, the receive
	// flushes are the fence
	Conn c2 = active_established(cfg(false));
	EXPECT_ACTIONS(c2.on(Event::setup_failed(true, false)), Action::SendRej, Action::StopSending,
		       Action::QuiesceTx, Action::QpToErr, Action::FallBack);
	EXPECT_FALSE(c2.qp_reached_rts());
}

// ================================================================= passive side

KTEST(cm_state_passive, accept_and_establish)
{
	for (int srq = 0; srq < 2; srq++) {
		Conn p(Dir::Passive, cfg(srq));
		// receives posted before the REP goes out; RTR before REP, RTS at RTU
		// and RTS before the REP too (a drain WR on a QP that never reached RTS may
		// never complete: ipoib_cm.c's firmware note)
		EXPECT_ACTIONS(p.on(Event::req(PrivDataResult::Ok, true)), Action::CreateQp, Action::QpToInit,
			       Action::PostRecv, Action::QpToRtr, Action::QpToRts, Action::SendRep);
		EXPECT_EQ(p.state(), State::Accepting);
		EXPECT_TRUE(p.qp_reached_rts());
		EXPECT_QUIET(p.on(ev(Ev::MraReceived)));
		EXPECT_ACTIONS(p.on(ev(Ev::RtuReceived)), Action::StartSending);
		EXPECT_EQ(p.state(), State::Established);
		EXPECT_TRUE(p.sending());
		EXPECT_EQ(p.counters()[Ctr::Accepted], 1u);
		EXPECT_EQ(p.counters()[Ctr::EnteredAccepting], 1u);
		EXPECT_EQ(p.counters()[Ctr::EnteredEstablished], 1u);
	}
}

KTEST(cm_state_passive, comm_est_before_rtu)
{
	Conn p = passive_accepting(cfg(true), false);
	// a receive before the RTU: hand COMM_EST to ib_cm, which reports USER_ESTABLISHED
	EXPECT_ACTIONS(p.on(ev(Ev::CommEst)), Action::CmNotify);
	EXPECT_EQ(p.state(), State::Accepting);
	EXPECT_QUIET(p.on(ev(Ev::UserEstablished)));	// Linux peer: never send on it
	EXPECT_EQ(p.state(), State::Established);
	EXPECT_FALSE(p.sending());
	EXPECT_EQ(p.counters()[Ctr::CommEst], 1u);
	// the RTU is not delivered after USER_ESTABLISHED (core/cm.c cm_rtu_handler)
	EXPECT_TRUE(p.on(ev(Ev::RtuReceived)).ignored);
}

KTEST(cm_state_passive, who_may_send_back)
{
	struct { bool local, peer, knob, mode, want; } cases[] = {
		{true, true, false, true, true},	// both announce: one connection both ways
		{true, false, false, true, false},	// Linux peer: never (docs/protocol.md §2.9)
		{false, true, false, true, false},	// cm_bidir=0
		{false, false, true, true, true},	// the test knob stands in for an RFC peer
		{true, false, true, true, true},
		{true, true, false, false, false},	// datagram mode: receive only
	};
	for (auto &c : cases) {
		Config k = cfg(true, c.local);
		k.send_accepted = c.knob;
		k.connected_mode = c.mode;
		Conn p = passive_established(k, c.peer);
		EXPECT_EQ(p.state(), State::Established);
		EXPECT_EQ(p.sending(), c.want);
		EXPECT_EQ(p.bidir(), c.local && c.peer);
	}
	// mode switches move a bidirectional passive connection in and out of the send path
	Conn p = passive_established(cfg(false));
	EXPECT_ACTIONS(p.on(ev(Ev::ModeDatagram)), Action::StopSending, Action::QuiesceTx);
	EXPECT_EQ(p.state(), State::Established);	// still receives (the listener runs in both modes)
	EXPECT_QUIET(p.on(ev(Ev::ModeDatagram)));
	EXPECT_ACTIONS(p.on(ev(Ev::ModeConnected)), Action::StartSending);
	EXPECT_QUIET(p.on(ev(Ev::ModeConnected)));
	// a one-way passive connection never joins the send path
	Conn o = passive_established(cfg(false), false);
	EXPECT_QUIET(o.on(ev(Ev::ModeConnected)));
	EXPECT_FALSE(o.sending());
	// datagram mode while accepting: established without sending
	Conn q = passive_accepting(cfg(true));
	EXPECT_QUIET(q.on(ev(Ev::ModeDatagram)));
	EXPECT_QUIET(q.on(ev(Ev::RtuReceived)));
	EXPECT_EQ(q.state(), State::Established);
}

KTEST(cm_state_passive, rejects)
{
	struct { Event e; u8 reason; Ctr c; } cases[] = {
		{Event::req(PrivDataResult::Short, true), rej::kUnsupported, Ctr::RejSentPrivData},
		{Event::req(PrivDataResult::BadQpn, false), rej::kUnsupported, Ctr::RejSentPrivData},
		{Event::req(PrivDataResult::MtuTooSmall, true), rej::kInvalidMtu, Ctr::RejSentPrivData},
		{Event::req(PrivDataResult::Ok, false, Crossing::None, true), kRejLimit, Ctr::RejSentLimit},
		{Event::req(PrivDataResult::Ok, true, Crossing::LocalWins), kRejCrossing, Ctr::RejSentCrossing},
		// bad private data wins over a crossing: the peer's address is unknown
		{Event::req(PrivDataResult::Short, true, Crossing::LocalWins), rej::kUnsupported,
		 Ctr::RejSentPrivData},
	};
	for (auto &c : cases) {
		Conn p(Dir::Passive, cfg(false));
		Step st = p.on(c.e);
		EXPECT_ACTIONS(st, Action::SendRej, Action::Destroy);	// no QP made: no fence
		EXPECT_EQ(st.rej_reason, c.reason);
		EXPECT_EQ(p.counters()[c.c], 1u);
		EXPECT_EQ(p.state(), State::Closed);
		EXPECT_FALSE(p.qp_exists());
	}
	// setup failure while accepting: REJ with our data, fence what exists
	Conn f = passive_accepting(cfg(false));
	Step st = f.on(Event::setup_failed(true));
	// the REP never went out: the peer cannot have sent, we did not, the QP may not be in
	// RTS: no drain WR, the receive flushes alone
	EXPECT_ACTIONS(st, Action::SendRej, Action::QpToErr);
	EXPECT_EQ(st.rej_reason, kRejNoResources);
	EXPECT_ACTIONS(f.on(ev(Ev::RxEmpty)), Action::Destroy);
	Conn g = passive_accepting(cfg(false));
	EXPECT_ACTIONS(g.on(Event::setup_failed(false)), Action::SendRej, Action::Destroy);
}

KTEST(cm_state_passive, req_bounds)
{
	// Linux's REQ (20/20, 15 retries, OpenSM's lifetime 18 -> local ACK 19) and ours pass
	EXPECT_EQ(req_timers_check({20, 20, 19}), ReqBound::Ok);
	EXPECT_EQ(req_timers_check({kCmResponseTimeout, kCmResponseTimeout, 15}), ReqBound::Ok);
	EXPECT_EQ(req_timers_check({kReqMaxCmResponseTimeout, kReqMaxCmResponseTimeout, kReqMaxLocalAckTimeout}), ReqBound::Ok);
	// the forged REQ that made rmmod wait hours: timeouts 31
	EXPECT_EQ(req_timers_check({31, 31, 31}), ReqBound::CmResponseTimeout);
	EXPECT_EQ(req_timers_check({20, 21, 19}), ReqBound::CmResponseTimeout);
	EXPECT_EQ(req_timers_check({21, 20, 19}), ReqBound::CmResponseTimeout);
	EXPECT_EQ(req_timers_check({20, 20, 22}), ReqBound::LocalAckTimeout);
	EXPECT_EQ(req_timers_check({20, 20, 31}), ReqBound::LocalAckTimeout);
	// the REP's retry budget at the bound, with Max CM Retries 15 (not in ib_cm's event)
	EXPECT_TRUE((15u + 1) * cm_time_ms(kReqMaxCmResponseTimeout) <= kReqMaxRepRetryMs);
	EXPECT_TRUE(kQpMaxLocalAckTimeout <= 31 && kQpMaxRetryCount <= 7);
	// a REQ beyond a bound: REJ with our private data, no QP, counted
	const ReqBound bad[] = {ReqBound::CmResponseTimeout, ReqBound::LocalAckTimeout};
	for (ReqBound b : bad) {
		Conn p(Dir::Passive, cfg(true));
		Event e = Event::req(PrivDataResult::Ok, true);
		e.req_bound = b;
		Step st = p.on(e);
		EXPECT_ACTIONS(st, Action::SendRej, Action::Destroy);
		EXPECT_EQ(st.rej_reason, kRejReqBounds);
		EXPECT_EQ(p.counters()[Ctr::RejSentReqBounds], 1u);
		EXPECT_EQ(p.counters()[Ctr::Accepted], 0u);
		EXPECT_FALSE(p.qp_exists());
	}
	// and one within the bounds is accepted
	Conn ok(Dir::Passive, cfg(true));
	EXPECT_TRUE(ok.on(Event::req(PrivDataResult::Ok, true)).has(Action::SendRep));
	EXPECT_EQ(ok.counters()[Ctr::RejSentReqBounds], 0u);
}

KTEST(cm_state_passive, accept_deadline)
{
	// seconds: past a few of a peer's REP retries' worth of delay (our REP is resent every
	// CM response timeout, at most 4.3 s by the REQ bounds), far past an RTU's milliseconds
	EXPECT_GE(kAcceptDeadlineMs, 2 * u64(cm_time_ms(kCmResponseTimeout)));
	EXPECT_LE(kAcceptDeadlineMs, 15000u);
	EXPECT_FALSE(accept_overdue(1000 + kAcceptDeadlineMs - 1, 1000));
	EXPECT_TRUE(accept_overdue(1000 + kAcceptDeadlineMs, 1000));
	EXPECT_FALSE(accept_overdue(500, 1000));	// a clock read before the REQ's: not overdue
	// an unanswered REP: the deadline tears the connection down without a REJ of ours (ib_cm's
	// destroy in REP_SENT cancels the REP, then rejects), counted
	Conn a = passive_accepting(cfg(false));	// non-SRQ: the drain WR fences
	Step st = a.on(ev(Ev::AcceptTimeout));
	EXPECT_ACTIONS(st, Action::QpToErr, Action::PostDrainWr);
	EXPECT_EQ(a.counters()[Ctr::AcceptTimeouts], 1u);
	EXPECT_EQ(a.state(), State::Draining);
	EXPECT_FALSE(a.sending());
	// once established it means nothing (ignored, counted as such)
	Conn e = passive_established(cfg(true), true);
	EXPECT_TRUE(e.on(ev(Ev::AcceptTimeout)).ignored);
	EXPECT_EQ(e.state(), State::Established);
}

KTEST(cm_state_active, connect_deadline)
{
	// Past ib_cm's own bound for our REQ to a dead CM at softib's packet lifetime (5.8 s: its
	// REQ_ERROR comes first there), well below minutes: a peer's MRA makes ib_cm wait up to
	// 2^23 ms more per MRA, and the neighbour's queue (charged to its senders' sockets) waits
	// with it.
	EXPECT_GT(kConnectDeadlineMs, u64(cm_dead_peer_ms(14, kCmResponseTimeout, kMaxCmRetries)));
	EXPECT_LE(kConnectDeadlineMs, 15000u);
	const u64 d14 = connect_deadline_ms(14, kCmResponseTimeout, kMaxCmRetries);
	EXPECT_EQ(d14, kConnectDeadlineMs);
	EXPECT_FALSE(connect_overdue(1000 + kConnectDeadlineMs - 1, 1000, d14));
	EXPECT_TRUE(connect_overdue(1000 + kConnectDeadlineMs, 1000, d14));
	EXPECT_FALSE(connect_overdue(500, 1000, d14));	// a clock read before the REQ's: not overdue
	// unknown lifetime: the floor
	EXPECT_EQ(connect_deadline_ms(kConnectLifeUnknown, kCmResponseTimeout, kMaxCmRetries), kConnectDeadlineMs);
	for (int srq = 0; srq < 2; srq++) {
		// no REP within the deadline: torn down as at a REQ error, no REJ of ours (the
		// Destroy's ib_destroy_cm_id cancels the REQ and rejects), the neighbour falls back
		Conn a(Dir::Active, cfg(srq));
		(void)a.on(ev(Ev::Connect));
		ASSERT_EQ(a.state(), State::Connecting);
		Step st = a.on(ev(Ev::ConnectTimeout));
		if (srq)	// never in RTS, SRQ: nothing to fence
			EXPECT_ACTIONS(st, Action::QpToErr, Action::FallBack, Action::Destroy);
		else		// the receive flushes fence it
			EXPECT_ACTIONS(st, Action::QpToErr, Action::FallBack);
		EXPECT_FALSE(st.has(Action::SendRej));
		EXPECT_EQ(a.counters()[Ctr::FallBacks], 1u);
		EXPECT_EQ(a.counters()[Ctr::ReqTimeouts], 0u);	// ib_cm's REQ_ERROR did not come
		EXPECT_FALSE(a.sending());
		EXPECT_EQ(a.state(), srq ? State::Closed : State::Draining);
		// ib_cm's own REQ_ERROR after it, and a REP after we gave up, as after Close
		if (!srq) {
			EXPECT_EQ(a.on(ev(Ev::ReqError)).n, 0u);
			EXPECT_ACTIONS(a.on(Event::rep(PrivDataResult::Ok, true)), Action::SendRej);
		}
	}
	// once established, or on the passive side, it means nothing (ignored, counted as such)
	Conn e = active_established(cfg(true));
	EXPECT_TRUE(e.on(ev(Ev::ConnectTimeout)).ignored);
	EXPECT_EQ(e.state(), State::Established);
	Conn p = passive_accepting(cfg(true));
	EXPECT_TRUE(p.on(ev(Ev::ConnectTimeout)).ignored);
	EXPECT_EQ(p.state(), State::Accepting);
}

KTEST(cm_state_active, connect_deadline_long_lifetime)
{
	// OpenSM's default packet lifetime 18: ib_cm resends our unanswered REQ for
	// 5 * (2 * 1024 + 1024) ms = 15.36 s before its REQ_ERROR; our deadline must not cut
	// those resends short.
	const u64 cm = cm_dead_peer_ms(18, kCmResponseTimeout, kMaxCmRetries);
	EXPECT_EQ(cm, 15360u);
	const u64 d = connect_deadline_ms(18, kCmResponseTimeout, kMaxCmRetries);
	EXPECT_EQ(d, cm + kConnectSlackMs);
	EXPECT_GE(kConnectSlackMs, 1000u);	// ib_cm's REQ_ERROR first, with room
	const u64 req = 5000;
	EXPECT_FALSE(connect_overdue(req + 12000, req, d));	// still Connecting at 12 s: kept
	EXPECT_FALSE(connect_overdue(req + cm, req, d));	// ib_cm's own bound: still kept
	EXPECT_FALSE(connect_overdue(req + d - 1, req, d));
	EXPECT_TRUE(connect_overdue(req + d, req, d));		// at bound + slack: torn down
	// the floor holds up to lifetime 16; from 17, ib_cm's bound + slack
	EXPECT_EQ(connect_deadline_ms(16, kCmResponseTimeout, kMaxCmRetries), kConnectDeadlineMs);
	EXPECT_EQ(connect_deadline_ms(17, kCmResponseTimeout, kMaxCmRetries), 5u * (1024 + 1024) + kConnectSlackMs);
	// Linux's own REQ values: 16 * (2 * 1024 + 4096) ms
	EXPECT_EQ(connect_deadline_ms(18, 20, 15), 16u * (2048 + 4096) + kConnectSlackMs);
}

KTEST(cm_state_passive, teardown_paths)
{
	Conn t = passive_accepting(cfg(false));
	EXPECT_ACTIONS(t.on(ev(Ev::RepError)), Action::QpToErr, Action::PostDrainWr);
	EXPECT_EQ(t.counters()[Ctr::RepTimeouts], 1u);
	Conn d = passive_accepting(cfg(true));
	EXPECT_ACTIONS(d.on(ev(Ev::DreqReceived)), Action::SendDrep, Action::QpToErr);
	Conn r = passive_accepting(cfg(true));
	EXPECT_ACTIONS(r.on(Event::rej(rej::kConsumer)), Action::QpToErr);
}

KTEST(cm_state_passive, close_while_accepting)
{
	Conn c = passive_accepting(cfg(false));
	// No DREQ before establishment, no REJ from REP_SENT (ib_destroy_cm_id would wait out the
	// REP it leaves outstanding): Destroy's ib_destroy_cm_id rejects.
	Step st = c.on(ev(Ev::Close));
	EXPECT_ACTIONS(st, Action::QpToErr, Action::PostDrainWr);
}

// An error while our REP is outstanding (QP fatal, a WC error, LAST_WQE_REACHED, or every
// receive flushed before the error event): torn down as Close does, without a REJ of ours. A
// REJ from REP_SENT would leave ib_cm's REP in TIMEWAIT for ib_destroy_cm_id (ifdown, rmmod) to
// wait out, up to the REQ's whole retry budget; the Destroy's ib_destroy_cm_id cancels the REP
// and rejects. Counted as the error it is, not as a REJ sent.
KTEST(cm_state_passive, error_while_accepting_sends_no_rej)
{
	for (int srq = 0; srq < 2; srq++) {
		const Event errors[] = {ev(Ev::QpFatal), Event::wc_error(WcCause::Other),
					Event::wc_error(WcCause::RetryExceeded), ev(Ev::LastWqeReached), ev(Ev::RxEmpty)};
		for (const Event &e : errors) {
			Conn c = passive_accepting(cfg(srq != 0));
			const Step st = c.on(e);
			if (srq ? e.kind == Ev::RxEmpty : e.kind == Ev::LastWqeReached) {
				EXPECT_TRUE(st.ignored);	// not an event of this kind of QP
				continue;
			}
			if (srq && e.kind != Ev::LastWqeReached)
				EXPECT_ACTIONS(st, Action::QpToErr);	// SRQ: the drain WR after LAST_WQE
			else
				EXPECT_ACTIONS(st, Action::QpToErr, Action::PostDrainWr);
			EXPECT_FALSE(st.has(Action::SendRej));
			EXPECT_EQ(c.counters()[Ctr::RejSentNoResources], 0u);
			EXPECT_EQ(c.counters()[Ctr::WcErrors] + c.counters()[Ctr::QpFatal] +
					  c.counters()[Ctr::RetryExceeded],
				  1u);
			EXPECT_NE(c.state(), State::Accepting);
		}
	}
	// The setup step that failed never sent its REP: that one still rejects (with our data).
	Conn f = passive_accepting(cfg(false));
	EXPECT_TRUE(f.on(Event::setup_failed(true, true)).has(Action::SendRej));
}

KTEST(cm_state_passive, established_teardown)
{
	// established one-way (Linux peer): no StopSending, no fall back on errors
	Conn o = passive_established(cfg(false), false);
	// (nothing of ours to wait for; the peer's sends still reach a QP in RTS until its DREP)
	EXPECT_ACTIONS(o.on(ev(Ev::IdleTimeout)), Action::SendDreq, Action::WaitDrep, Action::QpToErr, Action::PostDrainWr);
	Conn e = passive_established(cfg(false), false);
	EXPECT_ACTIONS(e.on(Event::wc_error(WcCause::Other)), Action::SendDreq, Action::QpToErr, Action::PostDrainWr);
	// established bidirectional: the passive one was a send path, so errors fall back
	Conn b = passive_established(cfg(false), true);
	EXPECT_ACTIONS(b.on(Event::wc_error(WcCause::RetryExceeded)), Action::StopSending, Action::QuiesceTx, Action::SendDreq,
		       Action::QpToErr, Action::PostDrainWr, Action::FallBack);
}

KTEST(cm_state_passive, one_way_has_no_watchdog)
{
	// a passive connection that was never a send path has no watchdog
	Conn w = passive_established(cfg(false), false);
	EXPECT_TRUE(w.on(ev(Ev::SendWatchdog)).ignored);
	Conn s = passive_established(cfg(false), false);
	EXPECT_ACTIONS(s.on(Event::setup_failed(true, true)), Action::SendDreq, Action::QpToErr, Action::PostDrainWr);
}

// ================================================================= crossing REQs, both ends

// Two hosts, each with an outstanding REQ to the other. Messages are delivered by hand in the
// order a test picks; each end runs the core's part: compare addresses (ipoib_cm_wire) when a
// REQ arrives while its own is outstanding, and tell its active connection CrossingLost.
struct Host {
	u8 addr[kHwAddrLen] = {};
	Conn act;
	Conn pas;
	int start_sending = 0, fall_back = 0, await_other = 0;
	Host(const Config &c) : act(Dir::Active, c), pas(Dir::Passive, c) {}
	void tally(const Step &st)
	{
		start_sending += st.has(Action::StartSending);
		fall_back += st.has(Action::FallBack);
		await_other += st.has(Action::AwaitOther);
	}
};

void make_addr(u8 a[kHwAddrLen], u8 flags, u8 guid_last)
{
	for (usize i = 0; i < kHwAddrLen; i++)
		a[i] = 0;
	a[0] = flags;
	a[3] = 0x48;	// QPN
	a[4] = 0xfe;
	a[5] = 0x80;	// fe80:: subnet prefix
	a[kHwAddrLen - 1] = guid_last;
}

// `self` receives the peer's REQ; rej = the REJ reason sent (0: accepted).
void deliver_req(ktest_ctx *kt, Host &self, const Host &peer, bool peer_bidir, u8 &rej)
{
	rej = 0;
	Crossing cr = Crossing::None;
	if (self.act.state() == State::Connecting)
		cr = crossing_from(crossing_req_survivor(self.addr, peer.addr));
	Step st = self.pas.on(Event::req(PrivDataResult::Ok, peer_bidir, cr));
	self.tally(st);
	EXPECT_FALSE(st.ignored);
	if (st.has(Action::SendRej)) {
		rej = st.rej_reason;
		return;
	}
	if (cr == Crossing::RemoteWins)
		self.tally(self.act.on(ev(Ev::CrossingLost)));
}

struct CrossResult {
	int established_pairs;	// connections established at both ends
	int sending_a, sending_b, fallbacks;
};

// order: 0 = both REQs arrive, then the answers; 1 = the smaller side's REJ... each variant
// delivers the REJ for the losing REQ before or after the other REQ reaches its loser.
CrossResult run_crossing(ktest_ctx *kt, Host &a, Host &b, bool a_bidir, bool b_bidir, int order)
{
	a.tally(a.act.on(ev(Ev::Connect)));
	b.tally(b.act.on(ev(Ev::Connect)));
	u8 rej_at_b = 0, rej_at_a = 0;	// the REJ each side sent (for the other's REQ)
	if (order == 0) {
		deliver_req(kt, b, a, a_bidir, rej_at_b);	// A's REQ reaches B
		deliver_req(kt, a, b, b_bidir, rej_at_a);	// B's REQ reaches A
	} else {
		// A's REQ reaches B and B's answer reaches A before B's REQ reaches A
		deliver_req(kt, b, a, a_bidir, rej_at_b);
		if (rej_at_b)
			a.tally(a.act.on(Event::rej(rej_at_b, b_bidir)));
		deliver_req(kt, a, b, b_bidir, rej_at_a);
	}
	// answers: REP for accepted REQs, REJ for the rest, then RTU
	if (!rej_at_b) {
		a.tally(a.act.on(Event::rep(PrivDataResult::Ok, b_bidir)));
		if (a.act.state() == State::Established)
			b.tally(b.pas.on(ev(Ev::RtuReceived)));
	} else if (order == 0) {
		a.tally(a.act.on(Event::rej(rej_at_b, b_bidir)));
	}
	if (!rej_at_a) {
		b.tally(b.act.on(Event::rep(PrivDataResult::Ok, a_bidir)));
		if (b.act.state() == State::Established)
			a.tally(a.pas.on(ev(Ev::RtuReceived)));
	} else {
		b.tally(b.act.on(Event::rej(rej_at_a, a_bidir)));
	}
	CrossResult r{};
	r.established_pairs = (a.act.state() == State::Established && b.pas.state() == State::Established) +
			      (b.act.state() == State::Established && a.pas.state() == State::Established);
	r.sending_a = a.act.sending() + a.pas.sending();
	r.sending_b = b.act.sending() + b.pas.sending();
	r.fallbacks = a.fall_back + b.fall_back;
	return r;
}

KTEST(cm_state_crossing, bidir_peers_one_connection_both_orders_both_sides)
{
	for (int order = 0; order < 2; order++) {
		for (int swap = 0; swap < 2; swap++) {	// A smaller, then A larger
			Host a(cfg(true)), b(cfg(true));
			make_addr(a.addr, 0x80, swap ? 0x20 : 0x10);
			make_addr(b.addr, 0x80, swap ? 0x10 : 0x20);
			CrossResult r = run_crossing(kt, a, b, true, true, order);
			EXPECT_EQ(r.established_pairs, 1);	// §3.3: "only one more connection"
			EXPECT_EQ(r.sending_a, 1);		// each end sends over it...
			EXPECT_EQ(r.sending_b, 1);
			EXPECT_EQ(a.start_sending, 1);	// ...and published it once: queue flushed once
			EXPECT_EQ(b.start_sending, 1);
			EXPECT_EQ(r.fallbacks, 0);	// no packet sent to UD or dropped meanwhile
			Host &small = swap ? b : a, &large = swap ? a : b;
			// the smaller end accepted the larger's REQ and waits for its own REJ
			EXPECT_EQ(small.pas.state(), State::Established);
			// (SRQ, never left INIT: no fence needed, destroyed at once)
			EXPECT_EQ(small.act.state(), State::Closed);
			EXPECT_EQ(small.await_other, 1);
			// (when A's REJ reached the smaller A before B's REQ did, A's REQ was already
			// gone: nothing left to arbitrate, a plain accept)
			EXPECT_EQ(small.pas.counters()[Ctr::CrossingsLost], order == 1 && !swap ? 0u : 1u);
			EXPECT_EQ(small.act.counters()[Ctr::RejRxCrossing], 1u);
			// the larger end rejected with Consumer Reject and kept its own REQ
			EXPECT_EQ(large.act.state(), State::Established);
			EXPECT_EQ(large.pas.state(), State::Closed);
			EXPECT_FALSE(large.pas.qp_exists());
			EXPECT_EQ(large.pas.counters()[Ctr::CrossingsWon], 1u);
			EXPECT_EQ(large.pas.counters()[Ctr::RejSentCrossing], 1u);
			EXPECT_EQ(large.await_other, 0);
		}
	}
}

KTEST(cm_state_crossing, flags_octet_not_compared)
{
	// same GIDs/QPNs differing only in the flags octet would be one peer; different GUIDs
	// with the flags set differently still give exactly one winner. The flag order is made
	// to disagree with the GUID order (A: flags 0xc0, smaller GUID; B: 0x00, larger GUID),
	// so a comparison that includes octet 0 picks the wrong end and fails here.
	for (int order = 0; order < 2; order++) {
		Host a(cfg(false)), b(cfg(false));
		make_addr(a.addr, 0xc0, 0x10);
		make_addr(b.addr, 0x00, 0x20);
		CrossResult r = run_crossing(kt, a, b, true, true, order);
		EXPECT_EQ(r.established_pairs, 1);
		EXPECT_EQ(a.pas.state(), State::Established);	// A is smaller despite its flags
		EXPECT_EQ(a.act.state(), State::Draining);
		EXPECT_EQ(b.act.state(), State::Established);
		EXPECT_EQ(b.pas.state(), State::Closed);
		EXPECT_EQ(r.fallbacks, 0);
	}
}

KTEST(cm_state_crossing, with_a_linux_peer_both_one_way)
{
	// B does not announce the capability (Linux, or cm_bidir=0): no arbitration, two one-way
	// connections, and ours never sends over the one it accepted
	for (int swap = 0; swap < 2; swap++) {
		Host a(cfg(true)), b(cfg(true, false));
		make_addr(a.addr, 0x80, swap ? 0x20 : 0x10);
		make_addr(b.addr, 0x80, swap ? 0x10 : 0x20);
		CrossResult r = run_crossing(kt, a, b, true, false, 0);
		EXPECT_EQ(r.established_pairs, 2);
		EXPECT_TRUE(a.act.sending());
		EXPECT_FALSE(a.pas.sending());
		EXPECT_TRUE(b.act.sending());
		EXPECT_FALSE(b.pas.sending());
		EXPECT_EQ(r.fallbacks, 0);
		EXPECT_EQ(a.pas.counters()[Ctr::CrossingsLost] + a.pas.counters()[Ctr::CrossingsWon], 0u);
	}
}

KTEST(cm_state_crossing, both_accepted_race)
{
	// the peer accepted our REQ although we accepted its crossing one (its REQ went out
	// after it had answered ours): both connections come up, counted, nothing lost
	Conn a(Dir::Active, cfg(true));
	(void)a.on(ev(Ev::Connect));
	EXPECT_QUIET(a.on(ev(Ev::CrossingLost)));
	EXPECT_ACTIONS(a.on(Event::rep(PrivDataResult::Ok, true)), Action::QpToRtr, Action::QpToRts,
		       Action::SendRtu, Action::StartSending);
	EXPECT_EQ(a.counters()[Ctr::CrossingsBoth], 1u);
	// CrossingLost means nothing without cm_bidir or outside connecting
	Conn n(Dir::Active, cfg(true, false));
	(void)n.on(ev(Ev::Connect));
	EXPECT_TRUE(n.on(ev(Ev::CrossingLost)).ignored);
	EXPECT_ACTIONS(n.on(Event::rej(rej::kConsumer, true)), Action::QpToErr, Action::FallBack, Action::Destroy);
}

KTEST(cm_state_crossing, refused_crossing_req_is_no_crossing)
{
	// A is smaller (the peer's REQ should survive at A) but over max_nonsrq_conn_qp: A
	// rejects B's REQ with No QP and tells its own active connection CrossingRefused. B
	// (larger) rejects A's REQ with Consumer Reject and its capability block; at A that is
	// not "use the other connection" (it was refused): UD, no AwaitOther.
	u8 a_addr[kHwAddrLen], b_addr[kHwAddrLen];
	make_addr(a_addr, 0x80, 0x10);
	make_addr(b_addr, 0x80, 0x20);
	Conn a_act(Dir::Active, cfg(false));
	(void)a_act.on(ev(Ev::Connect));
	// B's REQ reaches A while A's is outstanding
	Crossing cr = crossing_from(crossing_req_survivor(a_addr, b_addr));
	EXPECT_EQ(cr, Crossing::RemoteWins);
	{
		Conn a_pas(Dir::Passive, cfg(false));
		Step sa = a_pas.on(Event::req(PrivDataResult::Ok, true, cr, true));
		EXPECT_ACTIONS(sa, Action::SendRej, Action::Destroy);
		EXPECT_EQ(sa.rej_reason, kRejLimit);
		EXPECT_EQ(a_pas.counters()[Ctr::CrossingsRefused], 1u);
	}
	EXPECT_QUIET(a_act.on(ev(Ev::CrossingRefused)));
	// A's REQ reaches B while B's is outstanding: B keeps its own, Consumer Reject
	u8 rej_at_b = 0;
	{
		Conn b_pas(Dir::Passive, cfg(false));
		Crossing at_b = crossing_from(crossing_req_survivor(b_addr, a_addr));
		EXPECT_EQ(at_b, Crossing::LocalWins);
		rej_at_b = b_pas.on(Event::req(PrivDataResult::Ok, true, at_b)).rej_reason;
	}
	EXPECT_EQ(rej_at_b, kRejCrossing);
	Step ra = a_act.on(Event::rej(rej_at_b, true));
	EXPECT_TRUE(ra.has(Action::FallBack));
	EXPECT_FALSE(ra.has(Action::AwaitOther));
	EXPECT_EQ(a_act.counters()[Ctr::RejRxFallBack], 1u);
	EXPECT_EQ(a_act.counters()[Ctr::RejRxCrossing], 0u);
}

KTEST(cm_state_crossing, crossing_refused_needs_cm_bidir)
{
	// CrossingRefused means nothing without cm_bidir or outside connecting
	Conn n(Dir::Active, cfg(false, false));
	(void)n.on(ev(Ev::Connect));
	EXPECT_TRUE(n.on(ev(Ev::CrossingRefused)).ignored);
	Conn e = active_established(cfg(false));
	EXPECT_TRUE(e.on(ev(Ev::CrossingRefused)).ignored);
}

// ================================================================= illegal events

// Brings a connection to a given state through legal events; false if not reachable.
bool drive_to(Conn &c, State s)
{
	if (s == State::Idle)
		return true;
	if (c.dir() == Dir::Active) {
		if (s == State::Accepting)
			return false;
		(void)c.on(ev(Ev::Connect));
		if (s == State::Connecting)
			return true;
		(void)c.on(Event::rep(PrivDataResult::Ok, true));
	} else {
		if (s == State::Connecting)
			return false;
		(void)c.on(Event::req(PrivDataResult::Ok, true));
		if (s == State::Accepting)
			return true;
		(void)c.on(ev(Ev::RtuReceived));
	}
	if (s == State::Established)
		return true;
	(void)c.on(ev(Ev::Close));
	if (s == State::Draining)
		return true;
	(void)c.on(ev(Ev::LastWqeReached));
	(void)c.on(ev(Ev::DrainWrDone));
	(void)c.on(ev(Ev::RxEmpty));
	return true;
}

// The events with a meaning in each state (the rest must be ignored and counted), as a
// literal table read against docs/connected.md §2, not derived from the code. Columns:
// active idle, connecting, established, draining; passive idle, accepting, established,
// draining (reached as drive_to does: bidirectional peer, Close from established). x = legal,
// s = legal with an SRQ only, n = without an SRQ only, . = ignored. Closed ignores everything
// but SetupFailed (a setup step that ran after the teardown queued behind it).
struct LegalRow {
	Ev e;
	const char *cols;
};
constexpr LegalRow kLegal[] = {
	{Ev::Connect,		"x......."},
	{Ev::Close,		"xxx.xxx."},
	{Ev::IdleTimeout,	"xxx.xxx."},
	{Ev::SendWatchdog,	"..x...x."},
	{Ev::AcceptTimeout,	".....x.."},
	{Ev::ModeDatagram,	"xxx.xxx."},
	{Ev::ModeConnected,	"x.x.xxx."},
	{Ev::CrossingLost,	".x......"},
	{Ev::CrossingRefused,	".x......"},
	{Ev::SetupFailed,	".xxx.xxx"},	// draining/closed: a deferred setup step
	{Ev::ForceDestroy,	"xxxxxxxx"},
	{Ev::ReqReceived,	"....x..."},
	{Ev::RepReceived,	".x.x...x"},
	{Ev::RtuReceived,	".....x.."},
	{Ev::UserEstablished,	".....x.."},
	{Ev::RejReceived,	".xxx.xxx"},
	{Ev::MraReceived,	".xxx.xxx"},
	{Ev::DreqReceived,	"..xx.xxx"},
	{Ev::DrepReceived,	"..xx..xx"},	// established: ib_cm's own DREQ finished
	{Ev::TimewaitExit,	"..xx..xx"},
	{Ev::ReqError,		".x.x...x"},
	{Ev::RepError,		"...x.x.x"},
	{Ev::DreqError,		"..xx..xx"},
	{Ev::CommEst,		"..x..xx."},
	{Ev::LastWqeReached,	".sss.sss"},
	{Ev::QpFatal,		".xx..xx."},
	{Ev::WcError,		".xxx.xxx"},
	{Ev::DrainWrDone,	"...n...n"},	// SRQ: no drain WR before LAST_WQE_REACHED
	{Ev::RxEmpty,		".nnn.nnn"},	// before the error event too (RxEmpty row)
	{Ev::DrainTimeout,	"...x...x"},
	{Ev::ConnectTimeout,	".x......"},
};
static_assert(sizeof(kLegal) / sizeof(kLegal[0]) == kEvCount);

bool legal(Dir d, bool srq, State s, Ev e)
{
	int col = -1;
	switch (s) {
	case State::Idle: col = 0; break;
	case State::Connecting: case State::Accepting: col = 1; break;
	case State::Established: col = 2; break;
	case State::Draining: col = 3; break;
	case State::Closed: return e == Ev::SetupFailed;
	}
	if (d == Dir::Passive)
		col += 4;
	char c = kLegal[usize(e)].cols[col];
	return c == 'x' || (c == 's' && srq) || (c == 'n' && !srq);
}

KTEST(cm_state_illegal, every_event_in_every_state)
{
	int checked = 0, ignored = 0;
	for (int srq = 0; srq < 2; srq++) {
		for (int dir = 0; dir < 2; dir++) {
			Dir d = dir ? Dir::Passive : Dir::Active;
			for (usize s = 0; s < kStateCount; s++) {
				for (usize e = 0; e < kEvCount; e++) {
					Conn c(d, cfg(srq));
					if (!drive_to(c, State(s)))
						continue;
					ASSERT_EQ(c.state(), State(s));
					ASSERT_EQ(kLegal[e].e, Ev(e));
					bool want = legal(d, srq, State(s), Ev(e));
					u64 before = c.counters()[Ctr::Ignored];
					Event in = Event::of(Ev(e));
					Step st = c.on(in);
					checked++;
					EXPECT_FALSE(st.overflow);
					if (st.ignored != !want) {
						char msg[160];
						ktest_snprintf(msg, sizeof(msg), "%s %s srq=%d event %u: ignored=%d",
							       d == Dir::Active ? "active" : "passive",
							       state_name(State(s)), srq, unsigned(e), int(st.ignored));
						KTEST_FAIL(msg);
					}
					if (st.ignored) {
						ignored++;
						EXPECT_EQ(st.n, 0u);
						EXPECT_EQ(c.state(), State(s));
						EXPECT_EQ(c.counters()[Ctr::Ignored], before + 1);
					} else {
						EXPECT_EQ(c.counters()[Ctr::Ignored], before);
					}
				}
			}
		}
	}
	EXPECT_EQ(checked, 2 * (5 + 5) * int(kEvCount));	// 5 reachable states per direction
	EXPECT_GT(ignored, checked / 3);
}

KTEST(cm_state_illegal, closed_is_final)
{
	Conn c(Dir::Passive, cfg(false));
	(void)c.on(Event::req(PrivDataResult::Short, true));
	ASSERT_EQ(c.state(), State::Closed);
	for (usize e = 0; e < kEvCount; e++) {
		Step st = c.on(Event::of(Ev(e)));
		EXPECT_EQ(st.ignored, Ev(e) != Ev::SetupFailed);	// a deferred setup step: expected there, counted
		EXPECT_EQ(st.n, 0u);
	}
	EXPECT_EQ(c.counters()[Ctr::Ignored], u64(kEvCount - 1));
	EXPECT_EQ(c.counters()[Ctr::Closed], 1u);	// destroyed exactly once
}

// ================================================================= teardown fence

KTEST(cm_state_teardown, srq_waits_for_last_wqe)
{
	Conn c = active_established(cfg(true));
	EXPECT_ACTIONS(c.on(ev(Ev::Close)), Action::StopSending, Action::QuiesceTx, Action::WaitSends, Action::SendDreq, Action::WaitDrep, Action::QpToErr);
	EXPECT_EQ(c.state(), State::Draining);
	// a drain completion before the fence is posted proves nothing: no destroy
	EXPECT_TRUE(c.on(ev(Ev::DrainWrDone)).ignored);
	EXPECT_TRUE(c.on(ev(Ev::RxEmpty)).ignored);	// the SRQ's count is not the QP's
	EXPECT_QUIET(c.on(ev(Ev::DrepReceived)));
	EXPECT_QUIET(c.on(ev(Ev::TimewaitExit)));	// the CM side finishing does not free the QP
	EXPECT_EQ(c.state(), State::Draining);
	EXPECT_ACTIONS(c.on(ev(Ev::LastWqeReached)), Action::PostDrainWr);
	EXPECT_TRUE(c.on(ev(Ev::LastWqeReached)).ignored);	// once
	EXPECT_QUIET(c.on(ev(Ev::DrainTimeout)));	// keeps waiting, counted
	EXPECT_EQ(c.counters()[Ctr::DrainTimeouts], 1u);
	EXPECT_EQ(c.state(), State::Draining);
	EXPECT_ACTIONS(c.on(ev(Ev::DrainWrDone)), Action::Destroy);
	EXPECT_EQ(c.state(), State::Closed);
	EXPECT_EQ(c.counters()[Ctr::Closed], 1u);
	// a connecting SRQ QP never left INIT: it received and sent nothing, no CQE exists
	Conn i(Dir::Active, cfg(true));
	(void)i.on(ev(Ev::Connect));
	EXPECT_ACTIONS(i.on(ev(Ev::Close)), Action::QpToErr, Action::Destroy);
	EXPECT_EQ(i.state(), State::Closed);
}

KTEST(cm_state_teardown, nonsrq_fences_at_once)
{
	Conn c = passive_established(cfg(false));
	EXPECT_ACTIONS(c.on(ev(Ev::Close)), Action::StopSending, Action::QuiesceTx, Action::WaitSends, Action::SendDreq, Action::WaitDrep, Action::QpToErr,
		       Action::PostDrainWr);
	EXPECT_TRUE(c.on(ev(Ev::LastWqeReached)).ignored);	// never raised without an SRQ
	EXPECT_ACTIONS(c.on(ev(Ev::DreqReceived)), Action::SendDrep);	// crossing DREQs
	EXPECT_QUIET(c.on(ev(Ev::DreqError)));
	EXPECT_EQ(c.counters()[Ctr::DreqTimeouts], 1u);
	// the drain WR alone covers the send queue only: receive flushes may still be queued
	EXPECT_QUIET(c.on(ev(Ev::DrainWrDone)));
	EXPECT_EQ(c.state(), State::Draining);
	EXPECT_TRUE(c.on(ev(Ev::DrainWrDone)).ignored);	// once
	EXPECT_ACTIONS(c.on(ev(Ev::RxEmpty)), Action::Destroy);
	EXPECT_EQ(c.state(), State::Closed);
	// the other order: receive count first, then the drain WR
	Conn d = active_established(cfg(false));
	(void)d.on(ev(Ev::Close));
	EXPECT_QUIET(d.on(ev(Ev::RxEmpty)));
	EXPECT_TRUE(d.on(ev(Ev::RxEmpty)).ignored);
	EXPECT_EQ(d.state(), State::Draining);
	EXPECT_ACTIONS(d.on(ev(Ev::DrainWrDone)), Action::Destroy);
}

// Without an SRQ the ring reports RxEmpty once, when every receive completed after it stopped,
// and an error completion stops it: when a QP enters error by itself (an affiliated error such
// as a peer's RDMA with a bad R_Key, IBA 11.6.3) every receive may flush, and RxEmpty reach the
// state machine, before the QP's error event does. Each order of RxEmpty, the error (or a
// teardown for another reason) and the drain WR's completion, in every state with a QP, must
// end destroyed exactly once; and RxEmpty alone (the event late or never) must too.
struct FenceWalk {
	Conn c;
	bool posted = false, drain_done = false;
	int destroys = 0;
	void feed(const Event &e)
	{
		const Step st = c.on(e);
		posted = posted || st.has(Action::PostDrainWr);
		destroys += st.has(Action::Destroy);
	}
	void drain_completes()
	{
		if (posted && !drain_done) {
			drain_done = true;
			feed(ev(Ev::DrainWrDone));
		}
	}
};

KTEST(cm_state_teardown, rx_empty_before_the_error_event_every_state)
{
	const Event errors[] = {ev(Ev::QpFatal), Event::wc_error(WcCause::Other), ev(Ev::Close),
				ev(Ev::DreqReceived), Event::rej(rej::kNoResources), ev(Ev::SendWatchdog),
				ev(Ev::IdleTimeout), ev(Ev::ModeDatagram), ev(Ev::AcceptTimeout),
				ev(Ev::RepError), ev(Ev::ReqError)};
	int runs = 0, early = 0;
	for (int dir = 0; dir < 2; dir++) {
		const Dir d = dir ? Dir::Passive : Dir::Active;
		const State states[] = {d == Dir::Active ? State::Connecting : State::Accepting, State::Established};
		for (State s : states) {
			for (const Event &err : errors) {
				// 0: RxEmpty, error, drain; 1: error, RxEmpty, drain; 2: error, drain,
				// RxEmpty; 3: RxEmpty alone (the error event never comes)
				for (int order = 0; order < 4; order++) {
					FenceWalk w{Conn(d, cfg(false))};
					ASSERT_TRUE(drive_to(w.c, s));
					const State before = w.c.state();
					const bool legal_err = [&] {
						Conn probe = w.c;
						return !probe.on(err).ignored;
					}();
					if (!legal_err && order != 3)
						continue;	// not an event of this state
					if (order == 0 || order == 3) {
						const Step st = Conn(w.c).on(ev(Ev::RxEmpty));
						EXPECT_FALSE(st.ignored);	// the QP is in error: teardown
						w.feed(ev(Ev::RxEmpty));
						EXPECT_NE(w.c.state(), before);
						early++;
						if (order == 0)
							w.feed(err);
						w.drain_completes();
					} else {
						w.feed(err);
						if (order == 1)
							w.feed(ev(Ev::RxEmpty));
						w.drain_completes();
						if (order == 2)
							w.feed(ev(Ev::RxEmpty));
						w.drain_completes();
					}
					runs++;
					if (w.c.state() != State::Closed || w.destroys != 1) {
						char msg[200];
						ktest_snprintf(msg, sizeof(msg), "%s from %s, event %u, order %d: state %s, %d destroys",
							       dir ? "passive" : "active", state_name(before),
							       unsigned(err.kind), order, state_name(w.c.state()), w.destroys);
						KTEST_FAIL(msg);
					}
					// the teardown counted as the QP's error, once
					if (order == 3)
						EXPECT_EQ(w.c.counters()[Ctr::QpFatal], 1u);
				}
			}
		}
	}
	EXPECT_GT(runs, 40);
	EXPECT_GT(early, 20);
	// With an SRQ the SRQ's count says nothing about one QP: ignored outside draining.
	Conn q = active_established(cfg(true));
	EXPECT_TRUE(q.on(ev(Ev::RxEmpty)).ignored);
	EXPECT_EQ(q.state(), State::Established);
	// Established, sending: the RxEmpty teardown is the error one (DREQ, drain WR, fall back)
	Conn e = active_established(cfg(false));
	EXPECT_ACTIONS(e.on(ev(Ev::RxEmpty)), Action::StopSending, Action::QuiesceTx, Action::SendDreq, Action::QpToErr,
		       Action::PostDrainWr, Action::FallBack);
	EXPECT_TRUE(e.on(ev(Ev::RxEmpty)).ignored);	// once
	EXPECT_TRUE(e.on(ev(Ev::QpFatal)).ignored);	// the late event: nothing left to do
	EXPECT_ACTIONS(e.on(ev(Ev::DrainWrDone)), Action::Destroy);
}

KTEST(cm_state_teardown, force_destroy_at_interface_stop)
{
	// SRQ without LAST_WQE_REACHED (rxe never raises it): the fence never completes and
	// DrainTimeout only counts; at interface stop, NAPI off, ForceDestroy frees it
	Conn c = passive_established(cfg(true));
	(void)c.on(ev(Ev::Close));
	EXPECT_QUIET(c.on(ev(Ev::DrainTimeout)));
	EXPECT_EQ(c.state(), State::Draining);
	EXPECT_ACTIONS(c.on(ev(Ev::ForceDestroy)), Action::Destroy);
	EXPECT_EQ(c.state(), State::Closed);
	EXPECT_EQ(c.counters()[Ctr::ForcedDestroys], 1u);
	EXPECT_EQ(c.counters()[Ctr::Closed], 1u);
	EXPECT_TRUE(c.on(ev(Ev::ForceDestroy)).ignored);	// once
	// anything still up: unpublished (and xmits waited out) first
	Conn e = active_established(cfg(false));
	EXPECT_ACTIONS(e.on(ev(Ev::ForceDestroy)), Action::StopSending, Action::QuiesceTx, Action::Destroy);
	EXPECT_FALSE(e.sending());
	Conn a = passive_accepting(cfg(false));
	EXPECT_ACTIONS(a.on(ev(Ev::ForceDestroy)), Action::Destroy);
	Conn i(Dir::Active, cfg(false));
	EXPECT_ACTIONS(i.on(ev(Ev::ForceDestroy)), Action::Destroy);
	EXPECT_EQ(i.counters()[Ctr::ForcedDestroys], 0u);	// no QP: nothing forced
}

KTEST(cm_state_teardown, actions_run_where_they_may)
{
	// literal: what sleeps (ib_modify_qp takes a mutex in mlx5, destroy and
	// synchronize_net sleep, the ring allocates with GFP_KERNEL)
	const bool kSleeps[kActionCount] = {
		true,	// CreateQp
		true,	// QpToInit
		true,	// PostRecv
		true,	// QpToRtr
		true,	// QpToRts
		false,	// SendReq
		false,	// SendRep
		false,	// SendRtu
		false,	// SendRej
		false,	// CmNotify
		false,	// SendDreq
		false,	// SendDrep
		false,	// StopSending
		true,	// QuiesceTx
		true,	// QpToErr
		false,	// PostDrainWr
		false,	// StartSending
		true,	// Destroy
		false,	// FallBack
		false,	// Reconnect
		false,	// AwaitOther
		true,	// WaitSends
		true,	// WaitDrep
	};
	for (usize i = 0; i < kActionCount; i++)
		EXPECT_EQ(may_sleep(Action(i)), kSleeps[i]);
	// literal: events from atomic context (QP event handler, NAPI, timer)
	const Ev atomic[] = {Ev::CommEst, Ev::LastWqeReached, Ev::QpFatal, Ev::WcError,
			     Ev::DrainWrDone, Ev::RxEmpty, Ev::DrainTimeout};
	usize n_atomic = 0;
	for (usize e = 0; e < kEvCount; e++)
		n_atomic += from_atomic(Ev(e));
	EXPECT_EQ(n_atomic, sizeof(atomic) / sizeof(atomic[0]));
	for (Ev e : atomic)
		EXPECT_TRUE(from_atomic(e));
	{
		// a WC error from NAPI: QpToErr sleeps, so the step goes to the work item
		Conn w = active_established(cfg(false));
		Step st = w.on(Event::wc_error(WcCause::RetryExceeded));
		EXPECT_TRUE(st.has(Action::QpToErr));
		EXPECT_FALSE(st.inline_ok());
	}
	// the drain completion from NAPI: Destroy, deferred
	Conn d = active_established(cfg(false));
	(void)d.on(ev(Ev::Close));
	(void)d.on(ev(Ev::RxEmpty));
	Step dd = d.on(ev(Ev::DrainWrDone));
	EXPECT_TRUE(dd.has(Action::Destroy));
	EXPECT_FALSE(dd.inline_ok());
	{
		// COMM_EST from the QP event handler: ib_cm_notify runs there at once
		Conn p = passive_accepting(cfg(true));
		Step ce = p.on(ev(Ev::CommEst));
		EXPECT_TRUE(ce.has(Action::CmNotify));
		EXPECT_TRUE(ce.inline_ok());
	}
	// counters only: inline
	EXPECT_TRUE(d.on(ev(Ev::DrainTimeout)).inline_ok());
	// even a step without a sleeping action is deferred (order behind queued steps)
	Conn m = passive_established(cfg(false));
	Step ms = m.on(ev(Ev::ModeConnected));
	EXPECT_TRUE(ms.inline_ok());	// nothing to do: already sending
	Step md = m.on(ev(Ev::ModeDatagram));
	EXPECT_FALSE(md.inline_ok());
}

// A deterministic pseudo-random walk over every event, checking the ordering invariants on
// every step: Destroy at most once, last in its step, and only after the fence (or with no QP,
// or forced); the
// drain WR only on a QP that reached RTS, with an SRQ only after LAST_WQE_REACHED; without an
// SRQ Destroy only after RxEmpty; receives posted before REQ/REP; unpublished and xmits
// quiesced before the QP leaves RTS; published only while established; steps with a sleeping
// action never inline; each state entry counted.
KTEST(cm_state_teardown, random_walks_keep_the_invariants)
{
	u32 seed = 12345;
	auto rnd = [&seed](u32 n) {
		seed = seed * 1103515245u + 12345u;
		return (seed >> 16) % n;
	};
	int destroys = 0, fenced_destroys = 0, waits = 0;
	for (int run = 0; run < 3000; run++) {
		Config c = cfg(run & 1, (run >> 1) & 1);
		c.send_accepted = (run % 7) == 0;
		Conn k(run & 2 ? Dir::Passive : Dir::Active, c);
		bool last_wqe = false, destroyed = false, published = false, qp = false, rts = false;
		bool drain_posted = false, drain_done = false, rx_empty = false, unquiesced = false;
		u64 entries[kStateCount] = {};
		for (int i = 0; i < 40; i++) {
			// ForceDestroy only rarely, so the walks reach the fence
			Ev kind = Ev(rnd(kEvCount));
			if (kind == Ev::ForceDestroy && rnd(8) != 0)
				kind = Ev::DrainTimeout;
			Event e = Event::of(kind);
			e.priv = rnd(6) == 0 ? PrivDataResult::MtuTooSmall : PrivDataResult::Ok;
			e.peer_bidir = rnd(2);
			e.crossing = Crossing(rnd(3));
			e.over_limit = rnd(8) == 0;
			e.rej_reason = u8(rnd(36));
			e.wc = WcCause(rnd(3));
			e.qp_exists = rnd(2);
			e.qp_rts = e.qp_exists && rnd(2);
			State before = k.state();
			Step st = k.on(e);
			ASSERT_FALSE(st.overflow);
			if (st.ignored) {
				ASSERT_EQ(st.n, 0u);
				ASSERT_EQ(k.state(), before);
			} else {
				if (e.kind == Ev::LastWqeReached)
					last_wqe = true;
				if (e.kind == Ev::DrainWrDone)
					drain_done = true;
				if (e.kind == Ev::RxEmpty)
					rx_empty = true;
				// qp_exists speaks for a failed setup; once established the QP is there.
				// A failed setup step sent nothing: no RTS traffic to fence.
				if (e.kind == Ev::SetupFailed &&
				    (before == State::Connecting || before == State::Accepting)) {
					rts = false;
					if (!e.qp_exists)
						qp = false;
				}
				// A deferred setup step whose CreateQp failed after a teardown was
				// queued behind it: no QP, nothing was sent.
				if (e.kind == Ev::SetupFailed && !e.qp_exists &&
				    (before == State::Draining || before == State::Closed)) {
					rts = false;
					qp = false;
				}
				// ... or whose QpToRtr/QpToRts failed: the QP is
				// there, never in RTS, and gets no drain WR.
				if (e.kind == Ev::SetupFailed && !e.qp_rts)
					rts = false;
			}
			if (e.kind == Ev::DrainWrDone && !st.ignored)
				ASSERT_TRUE(drain_posted);
			int recv = st.index(Action::PostRecv);
			bool sleeps = false;
			for (u8 j = 0; j < st.n; j++) {
				Action a = st.act[j];
				sleeps = sleeps || may_sleep(a);
				if (a == Action::CreateQp)
					qp = true;
				if (a == Action::QpToRts)
					rts = true;
				if (a == Action::SendReq || a == Action::SendRep)
					ASSERT_TRUE(recv >= 0 || a == Action::SendReq);	// retry: same QP, posted
				if (a == Action::SendRep) {
					ASSERT_TRUE(recv >= 0 && recv < j);
					ASSERT_TRUE(rts);	// passive: RTS before the REP
				}
				if (a == Action::PostDrainWr) {
					ASSERT_TRUE(qp);
					ASSERT_TRUE(rts);	// never on a QP that did not reach RTS
					ASSERT_FALSE(unquiesced);
					if (c.srq)
						ASSERT_TRUE(last_wqe);
					drain_posted = true;
				}
				if (a == Action::Destroy) {
					// the last action: the executor's peer link ends there, so a
					// FallBack/Reconnect/AwaitOther after it would do nothing
					ASSERT_EQ(usize(j) + 1, usize(st.n));
					ASSERT_FALSE(destroyed);
					bool fence = (!rts || drain_done) && (c.srq || rx_empty);
					ASSERT_TRUE(fence || !qp || e.kind == Ev::ForceDestroy);
					ASSERT_FALSE(unquiesced);
					if (qp && e.kind != Ev::ForceDestroy)
						fenced_destroys++;
					destroyed = true;
					destroys++;
				}
				if (a == Action::StartSending) {
					ASSERT_FALSE(published);
					published = true;
				}
				if (a == Action::StopSending) {
					ASSERT_TRUE(published);
					published = false;
					unquiesced = true;
				}
				if (a == Action::QuiesceTx) {
					ASSERT_TRUE(unquiesced);
					unquiesced = false;
				}
				if (a == Action::WaitSends) {
					// right after QuiesceTx (no producer left), before QpToErr, and
					// only for a local decision on a healthy connection
					ASSERT_TRUE(j > 0 && st.act[j - 1] == Action::QuiesceTx);
					ASSERT_TRUE(st.index(Action::QpToErr) > j);
					ASSERT_TRUE(e.kind == Ev::Close || e.kind == Ev::IdleTimeout ||
						    e.kind == Ev::ModeDatagram || e.kind == Ev::DreqReceived);
					waits++;
				}
				if (a == Action::WaitDrep) {
					// the QP stays in RTS until the peer answered our DREQ
					ASSERT_TRUE(j > 0 && st.act[j - 1] == Action::SendDreq);
					ASSERT_TRUE(st.index(Action::QpToErr) > j);
				}
				if (a == Action::QpToErr) {
					ASSERT_FALSE(published);	// StopSending came first
					ASSERT_FALSE(unquiesced);	// and the xmits were waited out
					// a graceful teardown of a send path waits for its sends first
					if (st.has(Action::StopSending) &&
					    (e.kind == Ev::Close || e.kind == Ev::IdleTimeout || e.kind == Ev::ModeDatagram ||
					     (e.kind == Ev::DreqReceived && before == State::Established)))
						ASSERT_TRUE(st.has(Action::WaitSends));
					if (st.has(Action::SendDreq) && st.has(Action::WaitSends))
						ASSERT_TRUE(st.has(Action::WaitDrep));
					if (st.has(Action::WaitDrep))
						ASSERT_TRUE(e.kind == Ev::Close || e.kind == Ev::IdleTimeout ||
							    e.kind == Ev::ModeDatagram);
				}
			}
			ASSERT_FALSE(unquiesced);	// QuiesceTx in the same step
			if (sleeps)
				ASSERT_FALSE(st.inline_ok());
			ASSERT_EQ(published, k.sending());
			if (published)
				ASSERT_EQ(k.state(), State::Established);
			if (k.state() != before) {
				// through draining in one step: a teardown whose fence had nothing to wait for
				if (k.state() == State::Closed && before != State::Draining && st.has(Action::QpToErr))
					entries[usize(State::Draining)]++;
				entries[usize(k.state())]++;
			}
			if (destroyed)
				ASSERT_EQ(k.state(), State::Closed);
		}
		const Counters &n = k.counters();
		ASSERT_EQ(n[Ctr::EnteredConnecting], entries[usize(State::Connecting)]);
		ASSERT_EQ(n[Ctr::EnteredAccepting], entries[usize(State::Accepting)]);
		ASSERT_EQ(n[Ctr::EnteredEstablished], entries[usize(State::Established)]);
		// what it negotiated: once per established connection, in one of the two
		ASSERT_EQ(n[Ctr::NegBidir] + n[Ctr::NegOneway], n[Ctr::EnteredEstablished]);
		ASSERT_LE(n[Ctr::NegNoCaps], n[Ctr::EnteredEstablished]);
		ASSERT_EQ(n[Ctr::EnteredDraining], entries[usize(State::Draining)]);
		ASSERT_EQ(n[Ctr::EnteredClosed], entries[usize(State::Closed)]);
		ASSERT_EQ(n[Ctr::Closed], u64(destroyed));
	}
	EXPECT_GT(destroys, 300);	// the walks do reach the end
	EXPECT_GT(fenced_destroys, 100);	// ...through the fence, not only forced
	EXPECT_GT(waits, 5);		// graceful teardowns of send paths were reached (and waited)
}

// A teardown on the QP's own error is counted by its cause, the same in every state with a
// QP: QP fatal, LAST_WQE_REACHED (SRQ) and every receive flushed (non-SRQ, RxEmpty before our
// QpToErr) all mean the QP entered error by itself (IBA 10.3.1, 11.6.3): cm_qp_fatal; a WC
// error by its status (cm_rnr_retry_exceeded, cm_retry_exceeded, cm_wc_errors). Exactly one
// counter moves.
KTEST(cm_state_teardown, qp_errors_counted_by_cause_in_every_state)
{
	struct Case {
		Event e;
		Ctr ctr;
	};
	const Case cases[] = {{ev(Ev::QpFatal), Ctr::QpFatal},
			      {ev(Ev::LastWqeReached), Ctr::QpFatal},
			      {ev(Ev::RxEmpty), Ctr::QpFatal},
			      {Event::wc_error(WcCause::Other), Ctr::WcErrors},
			      {Event::wc_error(WcCause::RetryExceeded), Ctr::RetryExceeded},
			      {Event::wc_error(WcCause::RnrRetryExceeded), Ctr::RnrRetryExceeded}};
	const Ctr all[] = {Ctr::QpFatal, Ctr::WcErrors, Ctr::RetryExceeded, Ctr::RnrRetryExceeded};
	int runs = 0;
	for (int srq = 0; srq < 2; srq++) {
		for (int dir = 0; dir < 2; dir++) {
			const Dir d = dir ? Dir::Passive : Dir::Active;
			const State states[] = {d == Dir::Active ? State::Connecting : State::Accepting, State::Established};
			for (State s : states) {
				for (const Case &k : cases) {
					Conn c(d, cfg(srq != 0));
					ASSERT_TRUE(drive_to(c, s));
					const Step st = c.on(k.e);
					if (st.ignored)
						continue;	// not an event of this QP kind or state
					runs++;
					for (Ctr x : all) {
						if (c.counters()[x] == (x == k.ctr ? 1u : 0u))
							continue;
						char msg[200];
						ktest_snprintf(msg, sizeof(msg), "%s %s srq=%d, event %u: %s is %llu",
							       dir ? "passive" : "active", state_name(s), srq,
							       unsigned(k.e.kind), ctr_name(x),
							       (unsigned long long)c.counters()[x]);
						KTEST_FAIL(msg);
					}
				}
			}
		}
	}
	EXPECT_GE(runs, 16);
}

// A WC error while our REQ is outstanding (a QP in INIT completes receives only by a flush,
// so a provider's fault) is the QP's own error as in accepting and established: counted by its
// status, and the connection torn down and fallen back to UD as at a QP fatal event there,
// never left waiting for the REP.
KTEST(cm_state_teardown, wc_error_while_connecting)
{
	struct Case {
		WcCause w;
		Ctr ctr;
	};
	const Case cases[] = {{WcCause::Other, Ctr::WcErrors},
			      {WcCause::RetryExceeded, Ctr::RetryExceeded},
			      {WcCause::RnrRetryExceeded, Ctr::RnrRetryExceeded}};
	for (int srq = 0; srq < 2; srq++) {
		for (const Case &k : cases) {
			Conn f(Dir::Active, cfg(srq != 0));
			(void)f.on(ev(Ev::Connect));
			const Step want = f.on(ev(Ev::QpFatal));
			Conn c(Dir::Active, cfg(srq != 0));
			(void)c.on(ev(Ev::Connect));
			ASSERT_TRUE(c.state() == State::Connecting);
			const Step st = c.on(Event::wc_error(k.w));
			EXPECT_FALSE(st.ignored);
			EXPECT_EQ(c.counters()[k.ctr], 1u);
			EXPECT_EQ(c.counters()[Ctr::QpFatal], 0u);
			EXPECT_EQ(c.counters()[Ctr::Ignored], 0u);
			EXPECT_TRUE(c.state() == f.state());
			ASSERT_EQ(st.n, want.n);
			for (u8 i = 0; i < st.n; i++)
				EXPECT_TRUE(st.act[i] == want.act[i]);
			EXPECT_TRUE(st.has(Action::FallBack));
		}
	}
}

KTEST(cm_state_teardown, counters_sum)
{
	Counters total;
	Conn a = active_established(cfg(false));
	(void)a.on(ev(Ev::IdleTimeout));
	(void)a.on(ev(Ev::DrainWrDone));
	(void)a.on(ev(Ev::RxEmpty));
	Conn b = passive_established(cfg(false));
	(void)b.on(ev(Ev::Close));
	(void)b.on(ev(Ev::RxEmpty));
	(void)b.on(ev(Ev::DrainWrDone));
	total.add(a.counters());
	total.add(b.counters());
	EXPECT_EQ(total[Ctr::Closed], 2u);
	EXPECT_EQ(total[Ctr::Opened], 1u);
	EXPECT_EQ(total[Ctr::Accepted], 1u);
	EXPECT_EQ(total[Ctr::Reaped], 1u);
	EXPECT_EQ(total[Ctr::EnteredEstablished], 2u);
}

// A teardown step queued behind a setup step whose CreateQp then fails. SetupFailed without a
// QP must end in Destroy (in the queued step or its own), not be ignored: ignored, the non-SRQ
// connection would never be destroyed.
KTEST(cm_state_teardown, setup_failure_after_queued_teardown)
{
	for (int srq = 0; srq < 2; srq++) {
		Conn a(Dir::Active, cfg(srq));
		Step s1 = a.on(ev(Ev::Connect));
		EXPECT_TRUE(s1.has(Action::CreateQp));
		Step s2 = a.on(ev(Ev::ModeDatagram));
		EXPECT_TRUE(s2.has(Action::QpToErr));
		Step s3 = a.on(Event::setup_failed(false));
		EXPECT_FALSE(s3.ignored);
		EXPECT_TRUE(s3.has(Action::Destroy) || s2.has(Action::Destroy));
	}
}

// A passive setup step [CreateQp .. QpToRtr QpToRts SendRep] still queued when
// Close's teardown is computed; QpToRtr (or QpToRts) then fails: SetupFailed with the QP
// left, not in RTS. A drain WR on a QP that never reached RTS may never complete (Conn::fence's
// rule, ipoib_cm.c's firmware note), so the connection must not wait for one: with an SRQ it
// is destroyed at once (QpToErr Destroy, nothing was received or sent), without one it waits
// for the receive flushes alone (the queued QpToErr; the executor skips the queued drain WR,
// counted cm_drain_wr_skipped). The same for the active side's REP step behind a Close.
KTEST(cm_state_teardown, setup_failure_before_rts_behind_a_queued_close)
{
	for (int srq = 0; srq < 2; srq++) {
		Conn p = passive_accepting(cfg(srq));
		const Step s2 = p.on(ev(Ev::Close));
		EXPECT_EQ(p.state(), State::Draining);
		const Step s3 = p.on(Event::setup_failed(true, false));
		EXPECT_FALSE(s3.ignored);
		EXPECT_FALSE(p.qp_reached_rts());
		EXPECT_FALSE(s3.has(Action::PostDrainWr));
		if (srq) {
			// no LAST_WQE is waited for: QpToErr then Destroy, now
			EXPECT_TRUE(s3.has(Action::QpToErr) && s3.has(Action::Destroy));
			EXPECT_LT(s3.index(Action::QpToErr), s3.index(Action::Destroy));
			EXPECT_EQ(p.state(), State::Closed);
		} else {
			// the queued QpToErr flushes the receives; RxEmpty alone completes the fence
			EXPECT_FALSE(s3.has(Action::Destroy));
			EXPECT_TRUE(s2.has(Action::QpToErr));
			const Step s4 = p.on(ev(Ev::RxEmpty));
			EXPECT_TRUE(s4.has(Action::Destroy));
			EXPECT_EQ(p.state(), State::Closed);
		}
	}
	// The active side: REP's [QpToRtr QpToRts SendRtu StartSending] queued, then Close.
	for (int srq = 0; srq < 2; srq++) {
		Conn a(Dir::Active, cfg(srq));
		(void)a.on(Event::connect(false));
		(void)a.on(Event::rep(PrivDataResult::Ok, true));
		(void)a.on(ev(Ev::Close));
		EXPECT_EQ(a.state(), State::Draining);
		const Step s = a.on(Event::setup_failed(true, false));
		EXPECT_FALSE(a.qp_reached_rts());
		EXPECT_FALSE(s.has(Action::PostDrainWr));
		if (srq) {
			EXPECT_TRUE(s.has(Action::Destroy));
		} else {
			EXPECT_TRUE(a.on(ev(Ev::RxEmpty)).has(Action::Destroy));
		}
		EXPECT_EQ(a.state(), State::Closed);
	}
	// Established, a QpToRts that failed there (the active REP step ran, QpToRts refused):
	// the teardown of the SetupFailed row itself posts no drain WR.
	for (int srq = 0; srq < 2; srq++) {
		Conn a(Dir::Active, cfg(srq));
		(void)a.on(Event::connect(false));
		(void)a.on(Event::rep(PrivDataResult::Ok, true));
		EXPECT_EQ(a.state(), State::Established);
		Step s = a.on(Event::setup_failed(true, false));
		EXPECT_FALSE(a.qp_reached_rts());
		EXPECT_FALSE(s.has(Action::PostDrainWr));
		if (srq)
			s = a.on(ev(Ev::LastWqeReached));
		EXPECT_FALSE(s.has(Action::PostDrainWr));
	}
}

// The walk above checks each step as if it ran at once. The driver runs steps
// later, in order, from the work item (docs/connected.md §1), and SetupFailed comes from what
// actually ran. This walk models that executor: events queue steps, the FIFO runs at random
// points, CreateQp fails at random (SetupFailed with qp_exists as executed, its step run at
// once as Connection::execute does), and QP events and completions come only when the modelled
// QP can produce them. Invariants: no QP action without a QP but QpToErr/PostDrainWr, which the
// executor skips (cm_no_qp_actions), and only after a CreateQp failed; Destroy once, last in its
// step, after QpToErr and the fence's completions when a QP exists; after Close and every
// completion the connection always ends destroyed (none stuck in draining).
KTEST(cm_state_teardown, deferred_executor_walks_end_destroyed)
{
	u32 seed = 777;
	auto rnd = [&seed](u32 n) {
		seed = seed * 1103515245u + 12345u;
		return (seed >> 16) % n;
	};
	static const Ev kEvents[] = {Ev::Close, Ev::IdleTimeout, Ev::ModeDatagram, Ev::ModeConnected,
				     Ev::SendWatchdog, Ev::DrainTimeout, Ev::RepReceived, Ev::RtuReceived,
				     Ev::RejReceived, Ev::DreqReceived, Ev::DrepReceived, Ev::ReqError,
				     Ev::RepError, Ev::TimewaitExit, Ev::QpFatal, Ev::WcError};
	constexpr usize kCmFrom = 6;	// CM events: only after our REQ/REP went out
	constexpr usize kQpFrom = 14;	// QP events: only with a QP
	int skipped = 0, failed_creates = 0, destroys = 0, queued_teardowns = 0;
	int failed_rtr_rts = 0, skipped_no_rts = 0;
	for (int run = 0; run < 3000; run++) {
		const bool srq = run & 1;
		Conn k(run & 2 ? Dir::Passive : Dir::Active, cfg(srq));
		static Step fifo[40];	// static: the kernel's frame limit; 1 + 30 + 1 + 3 steps at most
		usize head = 0, tail = 0;
		bool fifo_full = false;
		bool qp = false, create_failed = false, recv_posted = false, in_error = false, cm_sent = false;
		bool rts = false;	// the modelled QP reached RTS (QpToRts succeeded)
		bool drain_posted = false, rx_empty = false, last_wqe = false, drain_done = false, destroyed = false;
		auto feed = [&](const Event &e) {
			Step st = k.on(e);
			if (st.inline_ok())
				return;
			if (tail < sizeof(fifo) / sizeof(fifo[0]))
				fifo[tail++] = st;
			else
				fifo_full = true;
		};
		// The work item running the step at the head; nullptr, or what broke.
		auto run_one = [&]() -> const char * {
			Step st = fifo[head++];
			for (int i = 0; i < st.n; i++) {
				const Action a = st.act[i];
				bool ok = true;
				switch (a) {
				case Action::CreateQp:
					if (qp)
						return "CreateQp twice";
					ok = rnd(3) != 0;
					qp = ok;
					if (!ok) {
						failed_creates++;
						create_failed = true;
						if (k.state() == State::Draining || k.state() == State::Closed)
							queued_teardowns++;
					}
					break;
				case Action::QpToInit:
					if (act_guard(a, qp, rts) == ActGuard::FailNoQp)
						return "QP transition without a QP";
					break;
				case Action::QpToRtr:
				case Action::QpToRts:
					// ib_cm_init_qp_attr refuses once the cm_id left
					// REQ_RCVD/REP_RCVD (a REJ or our Close came first)
					if (act_guard(a, qp, rts) == ActGuard::FailNoQp)
						return "QP transition without a QP";
					ok = rnd(6) != 0;
					if (!ok)
						failed_rtr_rts++;
					else if (a == Action::QpToRts)
						rts = true;
					break;
				case Action::PostRecv:
					if (!qp)
						return "PostRecv without a QP";
					recv_posted = true;
					break;
				case Action::SendReq:
				case Action::SendRep:
					cm_sent = true;
					break;
				case Action::QpToErr:
				case Action::PostDrainWr: {
					// the executor's own guard (Connection::act)
					const ActGuard g = act_guard(a, qp, rts);
					if (g == ActGuard::SkipNoQp) {
						if (!create_failed)
							return "QpToErr/PostDrainWr without a QP, and no CreateQp failed";
						skipped++;	// cm_no_qp_actions
						break;
					}
					if (a == Action::QpToErr)
						in_error = true;
					else if (!in_error)
						return "drain WR before QpToErr";
					else if (g == ActGuard::SkipNoRts)
						skipped_no_rts++;	// cm_drain_wr_skipped
					else if (g == ActGuard::Run)
						drain_posted = true;
					else
						return "unexpected guard for a drain WR";
					break;
				}
				case Action::Destroy:
					if (destroyed)
						return "Destroy twice";
					if (i + 1 != st.n)
						return "Destroy not last";
					if (qp && !in_error)
						return "Destroy of a QP never moved to error";
					if (qp && !srq && recv_posted && !rx_empty)
						return "non-SRQ Destroy before RxEmpty";
					if (drain_posted && !drain_done)
						return "Destroy before the drain WR completed";
					destroyed = true;
					destroys++;
					return nullptr;	// retired: the rest of the FIFO never runs
				default:
					break;
				}
				if (!ok) {	// the rest of the step is skipped, SetupFailed's runs now
					st = k.on(Event::setup_failed(qp, rts));
					i = -1;
				}
			}
			return nullptr;
		};
		// A completion or QP event the modelled QP can produce now.
		auto completion = [&]() -> bool {
			if (!qp || !in_error)
				return false;
			if (!srq && recv_posted && !rx_empty) {
				rx_empty = true;
				feed(ev(Ev::RxEmpty));
			} else if (srq && !last_wqe) {
				last_wqe = true;
				feed(ev(Ev::LastWqeReached));
			} else if (drain_posted && !drain_done) {
				drain_done = true;
				feed(ev(Ev::DrainWrDone));
			} else {
				return false;
			}
			return true;
		};
		if (run & 2)
			feed(Event::req(PrivDataResult::Ok, true));
		else
			feed(Event::connect(false));
		const char *bad = nullptr;
		for (int i = 0; i < 30 && !bad && !destroyed; i++) {
			const u32 r = rnd(4);
			if (r == 0 && head < tail) {
				bad = run_one();
			} else if (r == 1) {
				(void)completion();
			} else {
				const usize n = qp ? sizeof(kEvents) / sizeof(kEvents[0]) : cm_sent ? kQpFrom : kCmFrom;
				Event e = ev(kEvents[rnd(u32(n))]);
				e.peer_bidir = true;
				e.rej_reason = u8(rnd(36));
				e.wc = WcCause(rnd(3));
				feed(e);
			}
		}
		if (!bad && !destroyed)
			feed(ev(Ev::Close));
		for (int i = 0; i < 100 && !bad && !destroyed; i++) {
			if (head < tail)
				bad = run_one();
			else if (!completion())
				break;
		}
		if (fifo_full)
			bad = "the modelled step FIFO overflowed (a test bug)";
		else if (!bad && !destroyed)
			bad = "not destroyed after Close and every completion (stuck)";
		if (bad) {
			char msg[200];
			ktest_snprintf(msg, sizeof(msg), "run %d (%s, srq=%d): %s; state %s", run,
				       run & 2 ? "passive" : "active", int(srq), bad, state_name(k.state()));
			KTEST_FAIL(msg);
			return;
		}
		ASSERT_EQ(k.state(), State::Closed);
	}
	EXPECT_GT(queued_teardowns, 50);	// the walks do reach a teardown queued behind a failed CreateQp
	EXPECT_GT(skipped, 20);
	EXPECT_GT(failed_creates, 300);
	EXPECT_GT(failed_rtr_rts, 100);
	EXPECT_GT(skipped_no_rts, 5);	// the walks do reach a failed QpToRtr/QpToRts behind a teardown
	EXPECT_EQ(destroys, 3000);
}

// The executor's guard (act_guard, used by Connection::act and by the walk above), literally.
KTEST(cm_state_teardown, executor_guard)
{
	for (usize i = 0; i < kActionCount; i++) {
		const Action a = Action(i);
		const bool transition = a == Action::QpToInit || a == Action::QpToRtr || a == Action::QpToRts;
		const bool fence = a == Action::QpToErr || a == Action::PostDrainWr;
		EXPECT_EQ(act_guard(a, false, false), transition ? ActGuard::FailNoQp :
						   fence ? ActGuard::SkipNoQp : ActGuard::Run);
		EXPECT_EQ(act_guard(a, true, false), a == Action::PostDrainWr ? ActGuard::SkipNoRts : ActGuard::Run);
		EXPECT_EQ(act_guard(a, true, true), ActGuard::Run);
	}
}

// The receive CQ bounds the connections (docs/connected.md §4): softib's
// max_cqe 65536 without an SRQ, recv_queue_size 512 (UD ring 512, RC send bound 128): 128
// rings of 512 + 512 + 128 + 128 drain WRs = 66304 do not fit; 126 connections do.
KTEST(cm_params, cq_bounds_connections)
{
	const u32 fixed = 512 + 128, per = 512 + 1;
	EXPECT_EQ(cq_conns_fit(65536, fixed, per, 128), 126u);
	EXPECT_LE(fixed + 126 * per, 65536u);
	EXPECT_GT(fixed + 127 * per, 65536u);	// one more would overrun
	EXPECT_EQ(cq_conns_fit(65536, 256 + 128, 256 + 1, 128), 128u);	// the default sizes fit
	EXPECT_EQ(cq_conns_fit(1 << 22, fixed, per, 128), 128u);	// never above the parameter
	// SRQ mode: the SRQ is fixed, a connection adds its drain WR
	EXPECT_EQ(cq_conns_fit(4096, 512 + 512 + 128, 1, 1024), 1024u);
	EXPECT_EQ(cq_conns_fit(2048, 512 + 512 + 128, 1, 1024), 896u);
	// nothing fits: connected mode off
	EXPECT_EQ(cq_conns_fit(640, fixed, per, 128), 0u);
	EXPECT_EQ(cq_conns_fit(1000, fixed, per, 128), 0u);
	EXPECT_EQ(cq_conns_fit(fixed + per, fixed, per, 128), 1u);
}

// ================================================================= negotiation counters

// What the REQ/REP settled (Event::neg, bidir), counted once when the connection becomes
// established (docs/connected.md §9): not at the REQ/REP, not again later, not for a connection that
// never got there.
u64 neg_total(const Counters &c)
{
	return c[Ctr::NegBidir] + c[Ctr::NegOneway] + c[Ctr::NegNoCaps] + c[Ctr::NegCsumFree] +
	       c[Ctr::NegRfcSid] + c[Ctr::NegMtuCapped];
}

// The six counters, in the order bidir, oneway, no_caps, csum_free, rfc_sid, mtu_capped.
void expect_neg(ktest_ctx *kt, const Counters &c, const u64 (&want)[6])
{
	const Ctr k[6] = {Ctr::NegBidir, Ctr::NegOneway, Ctr::NegNoCaps, Ctr::NegCsumFree, Ctr::NegRfcSid,
			  Ctr::NegMtuCapped};
	for (usize i = 0; i < 6; i++)
		if (c[k[i]] != want[i]) {
			char msg[120];
			ktest_snprintf(msg, sizeof(msg), "%s: %llu, want %llu", ctr_name(k[i]),
				       (unsigned long long)c[k[i]], (unsigned long long)want[i]);
			KTEST_FAIL(msg);
		}
}

Negotiated neg(bool caps, bool csum, bool mtu, bool rfc)
{
	Negotiated n;
	n.peer_caps = caps;
	n.csum_free = csum;
	n.mtu_capped = mtu;
	n.rfc_sid = rfc;
	return n;
}

KTEST(cm_state_negotiated, active_counts_at_established_once)
{
	Conn a(Dir::Active, cfg(true));
	(void)a.on(ev(Ev::Connect));
	EXPECT_EQ(neg_total(a.counters()), 0u);
	(void)a.on(Event::rep(PrivDataResult::Ok, true, neg(true, true, true, false)));
	EXPECT_EQ(a.state(), State::Established);
	expect_neg(kt, a.counters(), {1, 0, 0, 1, 0, 1});	// rfc_sid 0: the first attempt, the Linux ID
	// later events do not count it again
	(void)a.on(ev(Ev::CommEst));
	(void)a.on(ev(Ev::Close));
	EXPECT_EQ(neg_total(a.counters()), 3u);
	// a Linux peer: no block, one way, nothing else
	Conn b(Dir::Active, cfg(false));
	(void)b.on(ev(Ev::Connect));
	(void)b.on(Event::rep(PrivDataResult::Ok, false, neg(false, false, false, false)));
	expect_neg(kt, b.counters(), {0, 1, 1, 0, 0, 0});
	// cm_bidir=0: one way even when the peer announces bidir
	Conn d(Dir::Active, cfg(true, false));
	(void)d.on(ev(Ev::Connect));
	(void)d.on(Event::rep(PrivDataResult::Ok, true, neg(true, false, false, false)));
	expect_neg(kt, d.counters(), {0, 1, 0, 0, 0, 0});
}

KTEST(cm_state_negotiated, active_rfc_service_id)
{
	Conn a(Dir::Active, cfg(true));
	(void)a.on(ev(Ev::Connect));
	(void)a.on(Event::rej(rej::kInvalidServiceId));	// the Linux ID refused: REQ on the RFC one
	EXPECT_EQ(neg_total(a.counters()), 0u);
	// the event's rfc_sid is the passive side's: the active side knows its own attempt
	(void)a.on(Event::rep(PrivDataResult::Ok, false, neg(false, false, false, false)));
	expect_neg(kt, a.counters(), {0, 1, 1, 0, 1, 0});
}

KTEST(cm_state_negotiated, passive_counts_at_rtu_or_comm_est)
{
	for (int via_comm_est = 0; via_comm_est < 2; via_comm_est++) {
		Conn p(Dir::Passive, cfg(false));
		(void)p.on(Event::req(PrivDataResult::Ok, true, Crossing::None, false, neg(true, true, false, true)));
		EXPECT_EQ(p.state(), State::Accepting);
		EXPECT_EQ(neg_total(p.counters()), 0u);	// not before it is established
		if (via_comm_est) {
			(void)p.on(ev(Ev::CommEst));
			(void)p.on(ev(Ev::UserEstablished));
		} else {
			(void)p.on(ev(Ev::RtuReceived));
		}
		EXPECT_EQ(p.state(), State::Established);
		expect_neg(kt, p.counters(), {1, 0, 0, 1, 1, 0});
	}
}

KTEST(cm_state_negotiated, never_established_counts_nothing)
{
	// rejected over the limit, rejected as the crossing's loser, closed while accepting
	Conn p(Dir::Passive, cfg(true));
	(void)p.on(Event::req(PrivDataResult::Ok, true, Crossing::None, true, neg(true, true, true, true)));
	EXPECT_EQ(neg_total(p.counters()), 0u);
	Conn q(Dir::Passive, cfg(true));
	(void)q.on(Event::req(PrivDataResult::Ok, true, Crossing::LocalWins, false, neg(true, true, true, true)));
	EXPECT_EQ(neg_total(q.counters()), 0u);
	Conn r(Dir::Passive, cfg(false));
	(void)r.on(Event::req(PrivDataResult::Ok, true, Crossing::None, false, neg(true, true, true, true)));
	(void)r.on(ev(Ev::Close));
	(void)r.on(ev(Ev::RxEmpty));
	(void)r.on(ev(Ev::DrainWrDone));
	EXPECT_EQ(r.state(), State::Closed);
	EXPECT_EQ(neg_total(r.counters()), 0u);
	// an active one whose REQ timed out
	Conn a(Dir::Active, cfg(true));
	(void)a.on(ev(Ev::Connect));
	(void)a.on(ev(Ev::ReqError));
	EXPECT_EQ(neg_total(a.counters()), 0u);
}

KTEST(cm_params, negotiation_counter_names)
{
	EXPECT_STREQ(ctr_name(Ctr::NegBidir), "cm_neg_bidir");
	EXPECT_STREQ(ctr_name(Ctr::NegOneway), "cm_neg_oneway");
	EXPECT_STREQ(ctr_name(Ctr::NegNoCaps), "cm_neg_no_caps");
	EXPECT_STREQ(ctr_name(Ctr::NegCsumFree), "cm_neg_csum_free");
	EXPECT_STREQ(ctr_name(Ctr::NegRfcSid), "cm_neg_rfc_sid");
	EXPECT_STREQ(ctr_name(Ctr::NegMtuCapped), "cm_neg_mtu_capped");
	EXPECT_STREQ(ctr_name(Ctr::Ignored), "cm_ignored_events");
}

// The receive CQ grows with the connections counted, doubling from
// kCqInitialConns, capped at what the device allows, never below what is open.
KTEST(cm_params, cq_grows_with_the_connections)
{
	EXPECT_EQ(kCqInitialConns, 16u);
	EXPECT_EQ(cq_conns_grow(16, 1, 1101), 16u);	// room already: no resize (1101: any limit)
	EXPECT_EQ(cq_conns_grow(16, 16, 1101), 16u);
	EXPECT_EQ(cq_conns_grow(16, 17, 1101), 32u);	// the 17th connection doubles it
	EXPECT_EQ(cq_conns_grow(32, 64, 1101), 64u);
	EXPECT_EQ(cq_conns_grow(32, 65, 1101), 128u);
	EXPECT_EQ(cq_conns_grow(1024, 1025, 1101), 1101u);	// capped at the limit
	EXPECT_EQ(cq_conns_grow(1101, 1101, 1101), 1101u);
	EXPECT_EQ(cq_conns_grow(1101, 1102, 1101), 0u);	// over the limit: refused, no resize
	EXPECT_EQ(cq_conns_grow(0, 1, 8), 8u);		// a limit below the initial size
	EXPECT_EQ(cq_conns_grow(5, 3, 8), 5u);		// never smaller than it is
	// whatever the sequence of opens, the CQ holds every connection counted
	u32 have = 16, resizes = 0;
	for (u32 need = 1; need <= 1101; need++) {
		const u32 next = cq_conns_grow(have, need, 1101);
		resizes += next != have;
		have = next;
		EXPECT_GE(have, need);
	}
	EXPECT_EQ(resizes, 7u);	// 32 64 128 256 512 1024 1101
	EXPECT_EQ(have, 1101u);
}

KTEST_SUITE(cm_params, KTEST_CASE(cm_params, rnr_timer_table), KTEST_CASE(cm_params, cm_times),
	    KTEST_CASE(cm_params, transport_retries_and_watchdog), KTEST_CASE(cm_params, qp_retry_clamp),
	    KTEST_CASE(cm_params, send_clock_resets_on_first_send), KTEST_CASE(cm_params, send_clock_judges_progress),
	    KTEST_CASE(cm_params, send_clock_delivered_needs_progress), KTEST_CASE(cm_params, names),
	    KTEST_CASE(cm_params, cq_bounds_connections), KTEST_CASE(cm_params, negotiation_counter_names),
	    KTEST_CASE(cm_params, cq_grows_with_the_connections));
KTEST_SUITE(cm_rej_class, KTEST_CASE(cm_rej_class, service_id_retry),
	    KTEST_CASE(cm_rej_class, consumer_reject_means_crossing_only_between_bidir_peers),
	    KTEST_CASE(cm_rej_class, every_reason), KTEST_CASE(cm_rej_class, codes_and_reasons_we_send));
KTEST_SUITE(cm_state_active, KTEST_CASE(cm_state_active, open_and_establish),
	    KTEST_CASE(cm_state_active, rfc_service_id_retry), KTEST_CASE(cm_state_active, rej_outcomes),
	    KTEST_CASE(cm_state_active, rej_outcomes_fall_back_and_crossing),
	    KTEST_CASE(cm_state_active, bad_rep_and_timeouts), KTEST_CASE(cm_state_active, local_intents),
	    KTEST_CASE(cm_state_active, reap_and_watchdog), KTEST_CASE(cm_state_active, mode_changes),
	    KTEST_CASE(cm_state_active, peer_events), KTEST_CASE(cm_state_active, ib_cm_dreq_on_a_stale_peer),
	    KTEST_CASE(cm_state_active, qp_events), KTEST_CASE(cm_state_active, setup_failures),
	    KTEST_CASE(cm_state_active, connect_deadline),
	    KTEST_CASE(cm_state_active, connect_deadline_long_lifetime));
KTEST_SUITE(cm_state_passive, KTEST_CASE(cm_state_passive, accept_and_establish),
	    KTEST_CASE(cm_state_passive, comm_est_before_rtu), KTEST_CASE(cm_state_passive, who_may_send_back),
	    KTEST_CASE(cm_state_passive, rejects), KTEST_CASE(cm_state_passive, req_bounds),
	    KTEST_CASE(cm_state_passive, accept_deadline),
	    KTEST_CASE(cm_state_passive, teardown_paths),
	    KTEST_CASE(cm_state_passive, close_while_accepting),
	    KTEST_CASE(cm_state_passive, error_while_accepting_sends_no_rej), KTEST_CASE(cm_state_passive, established_teardown),
	    KTEST_CASE(cm_state_passive, one_way_has_no_watchdog));
KTEST_SUITE(cm_state_crossing, KTEST_CASE(cm_state_crossing, bidir_peers_one_connection_both_orders_both_sides),
	    KTEST_CASE(cm_state_crossing, flags_octet_not_compared),
	    KTEST_CASE(cm_state_crossing, with_a_linux_peer_both_one_way),
	    KTEST_CASE(cm_state_crossing, both_accepted_race),
	    KTEST_CASE(cm_state_crossing, refused_crossing_req_is_no_crossing),
	    KTEST_CASE(cm_state_crossing, crossing_refused_needs_cm_bidir));
KTEST_SUITE(cm_state_illegal, KTEST_CASE(cm_state_illegal, every_event_in_every_state),
	    KTEST_CASE(cm_state_illegal, closed_is_final));
KTEST_SUITE(cm_state_teardown, KTEST_CASE(cm_state_teardown, srq_waits_for_last_wqe),
	    KTEST_CASE(cm_state_teardown, rx_empty_before_the_error_event_every_state),
	    KTEST_CASE(cm_state_teardown, nonsrq_fences_at_once),
	    KTEST_CASE(cm_state_teardown, force_destroy_at_interface_stop),
	    KTEST_CASE(cm_state_teardown, actions_run_where_they_may),
	    KTEST_CASE(cm_state_teardown, random_walks_keep_the_invariants),
	    KTEST_CASE(cm_state_teardown, counters_sum),
	    KTEST_CASE(cm_state_teardown, qp_errors_counted_by_cause_in_every_state),
	    KTEST_CASE(cm_state_teardown, wc_error_while_connecting),
	    KTEST_CASE(cm_state_teardown, setup_failure_after_queued_teardown),
	    KTEST_CASE(cm_state_teardown, setup_failure_before_rts_behind_a_queued_close),
	    KTEST_CASE(cm_state_teardown, deferred_executor_walks_end_destroyed),
	    KTEST_CASE(cm_state_teardown, executor_guard));
KTEST_SUITE(cm_state_negotiated, KTEST_CASE(cm_state_negotiated, active_counts_at_established_once),
	    KTEST_CASE(cm_state_negotiated, active_rfc_service_id),
	    KTEST_CASE(cm_state_negotiated, passive_counts_at_rtu_or_comm_est),
	    KTEST_CASE(cm_state_negotiated, never_established_counts_nothing));

} // namespace ktest_cm_state
