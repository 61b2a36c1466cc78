// SPDX-License-Identifier: GPL-2.0
// ipoib_cm_send_clock.h - the send watchdog of connected mode as pure logic (host-compilable,
// for KUnit): when a connection with sends outstanding has stopped making progress
// (docs/connected.md §3). RcTxRing keeps the same clock over its own indices.
#pragma once

#include "kstd/base.h"

namespace ipoib::cm {

using kstd::u32;
using kstd::u64;

// The send watchdog: a connection with sends outstanding and no send progress for this long
// is torn down (counted). A backstop, not ordered after RETRY_EXC: the nominal transport-retry
// failure with OpenSM's default lifetime is 6.4 s (kRetryCount, ipoib_cm_state.h), but the
// real local ACK timeout also depends on the peer's ACK delay (ib_cm takes the larger of it and lifetime + 1, core/cm.c
// cm_ack_timeout, at the REP) and HCAs may let the timer run longer than the encoded value, so
// RETRY_EXC can come after the watchdog. Either way the connection goes and the neighbour falls
// back; the watchdog also catches what retries cannot: a live responder that keeps answering
// RNR NAK under infinite RNR retry.
inline constexpr u64 kSendWatchdogMs = 10000;
bool send_stalled(u32 outstanding, u64 now_ms, u64 last_progress_ms);
// The watchdog judges progress, not the last completion: with sends outstanding throughout,
// fewer than kSendProgressQuota completions in kSendWatchdogMs (0.8 a second) is a stall, as
// none is. A peer that accepts one message every few seconds (an RNR NAK on all the others)
// would otherwise keep a connection alive that carries almost nothing. A healthy peer
// completes thousands a second; one whose RNR timer is Linux's 655 ms still ~15 per window.
// Progress is a completion that is the kSendProgressQuota-th since the last progress, or one
// that leaves nothing outstanding (the sender went quiet: nothing is owed).
inline constexpr u32 kSendProgressQuota = 8;
inline bool send_progressed(u32 done_since_progress, u32 outstanding_after)
{
	return outstanding_after == 0 || done_since_progress >= kSendProgressQuota;
}
// A completion is delivery (the peer's back-off may reset, docs/connected.md §3) when it
// succeeded and is progress (send_progressed): a connection that completes single sends of
// a trickle and is torn down by the watchdog for it, or whose ring its teardown flushes,
// delivered nothing, and its peer's back-off keeps doubling.
inline bool send_delivered(bool ok, bool progressed) { return ok && progressed; }
// The RC bound's reserve (ipoib_cm_budget.h rc_slot, docs/connected.md §3): who may take its
// slots is judged by what the peer has done with the sends we posted, not by how recently
// something completed (a peer that completes a few sends per interval and RNR NAKs the rest
// would always look alive, and a ring that filled in one burst after a 0 -> 1 post would look
// young). Two conditions, both over the connection's outstanding sends:
//  - head of line: the oldest outstanding send was posted less than kReserveHolMs ago. RC
//    completes in order (IBA 10.8.3), so a peer that holds one send (RNR NAK with its own
//    longer delay, no ACK) ages the whole ring, whatever it completes behind it. Why 50 ms:
//    a healthy peer acknowledges within microseconds on hardware, the RNR NAK delay we ask of
//    peers (cm_min_rnr_timer) is 0.16 ms, and a busy TCG guest completes its sends within a
//    few ms (its round trips beside a TCP stream stayed under 300 ms end to end, §3, with
//    the send completion a small part of that); a peer that answers with IBA's longest RNR
//    delay (655.36 ms, table 45 code 0) is over it at its first NAK: that is the point.
//  - no credit before a first completion: a connection that went from idle to sending
//    (the 0 -> 1 post) and has had no completion since may hold at most kReserveUnacked + 1
//    sends when it takes a reserve slot. A peer that took nothing yet has earned nothing: a
//    ring that fills within a millisecond of the 0 -> 1 post has a young head of line.
//    posted_since_completion == outstanding says so (the last completion emptied the ring,
//    or there was none).
// Nothing outstanding is always eligible (hol_age_ms is 0 then). What this still grants: a
// connection whose peer completed promptly up to a moment ago, with its ring never empty,
// takes reserve slots for kReserveHolMs after its peer stops (docs/security.md). Refusing
// every send beyond kReserveUnacked since the last completion would close that too, but it
// paces a healthy connection at the reserve to kReserveUnacked + 1 sends per completion
// batch (a third of a 2-a-millisecond stream whose sends complete in 5 ms).
inline constexpr u32 kReserveHolMs = 50;
inline constexpr u32 kReserveUnacked = 2;
inline bool reserve_eligible(u32 outstanding, u32 hol_age_ms, u32 posted_since_completion)
{
	if (outstanding == 0)
		return true;
	const bool unproven = posted_since_completion >= outstanding && outstanding > kReserveUnacked;
	return hol_age_ms < kReserveHolMs && !unproven;
}
static_assert(kReserveHolMs < kSendWatchdogMs, "the reserve judges a stall before the watchdog ends it");
// The per-connection input of reserve_eligible, as RcTxRing keeps it over its own indices:
// each send's post time (ms, u32: differences are exact across a wrap), the free-running
// head (posts) and tail (completions), and the head as the last completion saw it.
template <u32 Cap> struct ReserveClock {
	static_assert((Cap & (Cap - 1)) == 0, "a power of two, like the ring");
	u32 head = 0, tail = 0, acked_head = 0;
	u32 post_ms[Cap] = {};

	u32 outstanding() const { return head - tail; }
	void posted(u64 now_ms) { post_ms[head++ & (Cap - 1)] = u32(now_ms); }
	void completed(u32 n)
	{
		tail += n < outstanding() ? n : outstanding();
		acked_head = head;
	}
	u32 hol_age_ms(u64 now_ms) const
	{
		if (!outstanding())
			return 0;
		const u32 age = u32(now_ms) - post_ms[tail & (Cap - 1)];
		return kstd::i32(age) > 0 ? age : 0;
	}
	// clamped: a completion may have seen a head that lagged its own post
	u32 unacked() const
	{
		const u32 u = head - acked_head;
		return u < outstanding() ? u : outstanding();
	}
	bool eligible(u64 now_ms) const { return reserve_eligible(outstanding(), hol_age_ms(now_ms), unacked()); }
};
// The per-connection input of send_stalled. last_progress is reset when the outstanding count
// goes 0 -> 1: otherwise the first send after an idle minute would look stalled at once; a
// completion moves it only when it is progress (send_progressed).
struct SendClock {
	u32 outstanding = 0;
	u32 done = 0;	// completions since last_progress_ms
	u64 last_progress_ms = 0;
	bool delivered = false;	// a completion was delivery (send_delivered)

	void posted(u32 n, u64 now_ms)
	{
		if (outstanding == 0 && n) {
			last_progress_ms = now_ms;
			done = 0;
		}
		outstanding += n;
	}
	void completed(u32 n, u64 now_ms, bool ok = true)
	{
		outstanding -= n < outstanding ? n : outstanding;
		done += n;
		const bool progressed = send_progressed(done, outstanding);
		if (progressed) {
			last_progress_ms = now_ms;
			done = 0;
		}
		delivered = delivered || send_delivered(ok, progressed);
	}
	bool stalled(u64 now_ms) const { return send_stalled(outstanding, now_ms, last_progress_ms); }
};
} // namespace ipoib::cm
