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
// The RC bound's reserve (ipoib_cm_send.h rc_slot, docs/connected.md §3): a connection with
// sends outstanding and no progress (send_progressed) for kReserveStallMs is not making
// progress and may not take the reserve's slots; nothing outstanding is never a stall. Why
// 500 ms: far above what a live connection goes between progress events (kSendProgressQuota
// completions take microseconds on hardware, and the RNR NAK delay we ask of our peers,
// cm_min_rnr_timer, is 0.16 ms); above the round trips a busy TCG guest showed beside a TCP
// stream (under 300 ms, §3); and 1/20 of the watchdog, so what a connection that begins to
// stall takes of the reserve is what the stack hands it in half a second (at most its ring).
// A peer that asks IBA's longest RNR NAK delay (655.36 ms, table 45 code 0, as the in-tree
// driver does) is judged so for the rest of each such delay: no loss, its posted sends wait
// behind the NAKed one anyway (RC completes in order) and its next ones on its own queue.
inline constexpr u64 kReserveStallMs = 500;
inline bool send_progressing(u64 no_progress_ms) { return no_progress_ms < kReserveStallMs; }
static_assert(kReserveStallMs < kSendWatchdogMs, "the reserve judges a stall before the watchdog ends it");
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
