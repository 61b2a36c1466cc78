// SPDX-License-Identifier: GPL-2.0
// ipoib_cm_send_clock.h - the send watchdog of connected mode as pure logic (host-compilable,
// for KUnit): when a connection with sends outstanding has stopped making progress
// (docs/connected.md §3). RcTxRing keeps the same clock over its own indices.
#pragma once

#include "core/ipoib_addr.h"	// bytes_equal, bytes_copy, kGidLen (GidBars)
#include "kstd/base.h"

namespace ipoib::cm {

using kstd::u8;
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
// Sends left outstanding by the completion of the one at tail, head as the consumer read
// it. The HCA may complete a send before xmit has stored head past it (RcTxRing::complete):
// a head equal to tail is stale and the completion empties the ring (0, not a wrap to
// 0xffffffff that would keep the credit and hide the progress of an emptied ring).
inline u32 send_outstanding_after(u32 head, u32 tail)
{
	return kstd::i32(head - tail) > 0 ? head - tail - 1 : 0;
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
// young). Three conditions, over the connection's outstanding sends and its completions:
//  - head of line: the oldest outstanding send was posted less than kReserveHolMs ago. RC
//    completes in order (IBA 10.8.3), so a peer that holds one send (RNR NAK with its own
//    longer delay, no ACK) ages the whole ring, whatever it completes behind it. Why 50 ms:
//    a healthy peer acknowledges within microseconds on hardware, the RNR NAK delay we ask of
//    peers (cm_min_rnr_timer) is 0.16 ms, and a busy TCG guest completes its sends within a
//    few ms (its round trips beside a TCP stream stayed under 300 ms end to end, §3, with
//    the send completion a small part of that); a peer that answers with IBA's longest RNR
//    delay (655.36 ms, table 45 code 0) is over it at its first NAK: that is the point.
//  - credit per completion batch: the sends posted since the last completion may number at
//    most what the last completion batch completed (completions with no post between them)
//    plus kReserveUnacked when one more takes a reserve slot. A completion grants room for
//    what it completed, not for the rest of the ring: a peer that completes one send
//    promptly and then holds everything gains kReserveUnacked + 1 slots, not a ring. No
//    completion since the 0 -> 1 post (or the last one emptied the ring) is a batch of 0:
//    a ring that fills within a millisecond of the 0 -> 1 post has a young head of line, and
//    a peer that took nothing yet has earned nothing beyond kReserveUnacked + 1.
//  - sticky lateness: a send that completes kReserveHolMs or more after its post bars the
//    peer from the reserve for twice its age, at most kSendWatchdogMs, from that completion
//    (reserve_bar_after; while such a head is outstanding, the first condition refuses it
//    already; its completion is late by definition). A peer that held reserve slots until
//    just before the watchdog and then completed them cannot take them again at once: it
//    is refused for a watchdog period. A barred connection is refused even with nothing
//    outstanding. The bar is the peer's: a ring that ends leaves it to the peer (with an
//    outstanding head of line that old counted late at that moment, reserve_bar_end) and a
//    new connection's ring starts from it (a DREQ and a reconnect do not clear it).
// Nothing outstanding and no bar is always eligible (hol_age_ms is 0 then). What this still
// grants (docs/security.md): kRcBoundConns connections whose peers completed promptly up to a
// moment ago, each growing kReserveUnacked + 1 per prompt batch, can take the reserve
// together and hold it until the watchdog, once per bar.
inline constexpr u32 kReserveHolMs = 50;
inline constexpr u32 kReserveUnacked = 2;
static_assert(kReserveHolMs < kSendWatchdogMs, "the reserve judges a stall before the watchdog ends it");
// The head-of-line age: now less the oldest outstanding send's post time (u32 ms: the
// difference is exact across a wrap; a post stamped after now, by another CPU's clock, is 0).
inline u32 reserve_age_ms(u32 outstanding, u64 now_ms, u32 hol_post_ms)
{
	if (!outstanding)
		return 0;
	const u32 age = u32(now_ms) - hol_post_ms;
	return kstd::i32(age) > 0 ? age : 0;
}
// Sends posted since the last completion (head - the head that completion saw), clamped to
// those outstanding: a completion may have seen a head that lagged its own post.
inline u32 reserve_unacked(u32 head, u32 acked_head, u32 outstanding)
{
	const u32 u = head - acked_head;
	return u < outstanding ? u : outstanding;
}
// The credit after one more completion: the size of the batch it belongs to (1 when a post
// came since the previous completion, one more otherwise), 0 when it emptied the ring (the
// next post is a 0 -> 1).
inline u32 reserve_credit(u32 credit, bool posted_since, u32 outstanding_after)
{
	if (!outstanding_after)
		return 0;
	return posted_since ? 1 : credit + 1;
}
// The bar after one more completion, of a send posted at post_ms: when it is late (age
// kReserveHolMs or more), until now + min(kSendWatchdogMs, 2 * age), else unchanged; never
// lowered. Proportional: a hold just short of the watchdog bars a watchdog period, while
// lateness that may be our own (NAPI latency, one transport retry) or a peer's longest
// RNR NAK delay (655 ms: ~1.3 s) shuts a healthy peer out only briefly.
// lag_ms: the part of the age that was our own receive backlog (poll_backlog_lag), not the
// peer's.
inline u64 reserve_bar_after(u64 bar_until_ms, u64 now_ms, u32 post_ms, u64 lag_ms = 0)
{
	const u64 seen = reserve_age_ms(1, now_ms, post_ms);
	const u64 age = seen > lag_ms ? seen - lag_ms : 0;
	if (age < kReserveHolMs)
		return bar_until_ms;
	const u64 until = now_ms + (2 * age < kSendWatchdogMs ? 2 * age : kSendWatchdogMs);
	return until > bar_until_ms ? until : bar_until_ms;
}
inline bool reserve_barred(u64 now_ms, u64 bar_until_ms) { return now_ms < bar_until_ms; }
// RC send completions share the CQ with every receive, polled under the NAPI budget: a
// receive flood from any node delays every peer's completions behind it. A poll that
// continues one that used its whole budget (our backlog, since the start of the first such
// poll; 0: none) judges a completion's lateness less the time since backlog_since_ms, the
// earliest it can have entered the CQ behind our own receives (PollBacklog::floor_ms: the
// CQ was empty before the backlog began, and it turns over within a CQ's worth of polls).
// A send kReserveHolMs late before that is late still.
inline u64 poll_backlog_lag(u64 now_ms, u64 backlog_since_ms)
{
	return backlog_since_ms && now_ms > backlog_since_ms ? now_ms - backlog_since_ms : 0;
}
// The backlog's start after a poll that began at now_ms and processed done of budget: kept
// (or begun now) when it used the whole budget, none when it emptied the CQ; a poll of no
// budget (netpoll's) changes nothing.
inline u64 poll_backlog_next(u64 backlog_since_ms, u64 now_ms, int done, int budget)
{
	if (budget <= 0)
		return backlog_since_ms;
	if (done < budget)
		return 0;
	return backlog_since_ms ? backlog_since_ms : (now_ms ? now_ms : 1);
}
// How far back our own backlog can have delayed a completion taken by a poll that continues
// it: the CQ never holds more than depth completions (the WRs that can complete on it: its
// size, Interface::poll_rx), and each poll takes its done from the CQ's head, so a
// completion that entered before the start of a poll from which the polls up to this one
// took depth or more would have been taken already: it entered after that start, and only
// its wait since then (and since the backlog's start) can be ours. A peer that holds a send
// longer than the host needs to turn its CQ over is late, flood or not; while fewer polls
// than that were kept, the backlog's start is the bound. NAPI only.
// Every poll kept used its whole budget (a poll that did not ends the backlog), so only the
// polls' starts are kept, numbered from the backlog's first (0), and ceil(depth / the least
// budget of the backlog) polls back took depth or more. Level j keeps the starts of the last
// kPollHistory polls whose number is a multiple of 2^j (level 0: every poll). floor_ms
// takes the poll it needs, rounded down to a multiple of 2^j at the least level that still
// keeps it: an earlier start, so more lenient by fewer than 2^j polls, and level j is needed
// only when the depth takes more than (kPollHistory - 1) x 2^(j - 1) polls: under 1/15 more
// polls than the depth needs (none while it needs kPollHistory or fewer). The levels reach
// (kPollHistory - 1) x 2^(kPollLevels - 1) polls back, 65011712 completions at NAPI's 64: more
// than the largest receive CQ the driver creates (Interface::poll_rx's static_assert). Fixed
// size (2 KiB), nothing allocated in NAPI.
inline constexpr u32 kPollHistory = 32;		// starts kept per level
inline constexpr u32 kPollLevels = 16;
inline constexpr u64 kPollReach = u64(kPollHistory - 1) << (kPollLevels - 1);	// polls back any depth is found
struct PollBacklog {
	u64 since_ms = 0;	// the first full poll's start (0: no backlog, poll_backlog_next)
	u32 polls = 0;		// full polls since the backlog began (kept no further at ~0u)
	u32 budget = 0;		// the least budget of those polls
	u32 start[kPollLevels][kPollHistory] = {};	// ms after since_ms (0 also past 2^32 ms)

	void reset()
	{
		since_ms = 0;
		polls = 0;
		budget = 0;
	}
	// The earliest a completion taken now can have entered the CQ behind the backlog (0: none)
	u64 floor_ms(u32 depth) const
	{
		if (!since_ms)
			return 0;
		u64 n = (u64(depth) + budget - 1) / budget;
		n = n ? n : 1;
		if (n > polls)
			return since_ms;
		const u32 want = polls - u32(n);
		for (u32 j = 0; j < kPollLevels; j++) {
			const u32 at = want >> j, last = (polls - 1) >> j;
			if (last - at < kPollHistory)
				return since_ms + start[j][at & (kPollHistory - 1)];
		}
		return since_ms;
	}
	// After a poll that began at now_ms and took done of budget (poll_backlog_next's rule)
	void after(u64 now_ms, int done_now, int budget_now)
	{
		const u64 next = poll_backlog_next(since_ms, now_ms, done_now, budget_now);
		if (!next) {
			reset();
			return;
		}
		if (budget_now <= 0)
			return;	// netpoll's: took nothing
		since_ms = next;
		if (polls == ~0u)
			return;	// the starts kept stay earlier than the polls since: more lenient
		budget = polls && budget < u32(budget_now) ? budget : u32(budget_now);
		const u64 d = now_ms > since_ms ? now_ms - since_ms : 0;
		const u32 off = d < 0xffffffffu ? u32(d) : 0;
		for (u32 j = 0; j < kPollLevels && !(polls & ((1u << j) - 1)); j++)
			start[j][(polls >> j) & (kPollHistory - 1)] = off;
		polls++;
	}
};
static_assert((kPollHistory & (kPollHistory - 1)) == 0, "a power of two");
// What a post may take of the interface's bound (rc_slot's progressing): the reserve when
// eligible (reserve_eligible), and always for an identity echo (36 octets, at most one per
// connection per ident run). A reconnect after a peer's legitimate restart inherits the
// peer's bar; an echo refused by it waited out the proof's deadline, and each end kept two
// connections, one per direction.
inline bool reserve_may_take(bool echo, bool eligible) { return echo || eligible; }
// The bar a ring leaves when it ends (teardown: the peer's DREQ, an error, the watchdog, a
// flush): an outstanding head of line cm::kReserveHolMs old or more is a late completion
// at that moment. The bar belongs to the peer, not to one connection (CmPeer's
// reserve_bar_until): a peer that held the reserve and then disconnected is refused it on
// its next connection as it would have been on this one (reserve_bar_fold, the new ring
// starts from the peer's bar).
inline u64 reserve_bar_end(u64 bar_until_ms, u64 now_ms, u32 outstanding, u32 hol_post_ms)
{
	return outstanding ? reserve_bar_after(bar_until_ms, now_ms, hol_post_ms) : bar_until_ms;
}
inline u64 reserve_bar_fold(u64 a, u64 b) { return a > b ? a : b; }
// The bar a ring still in use stands for at now_ms, for another connection to the same port
// (CmTable::gid_bar_inherit; a ring's bar reaches its GID only when it ends): its own bar,
// and with sends outstanding and no progress for kReserveHolMs or more (no_progress_ms:
// RcTxRing::no_progress_ms, SendClock::no_progress_ms), that hold counted as a late
// completion now, as reserve_bar_end counts an old head of line. The time since progress
// stands for the head of line's age, which the table cannot read (the ring's producer's):
// it can be longer, for a peer that completes fewer than kSendProgressQuota sends, each
// within kReserveHolMs, while the ring never empties; that bars the other connection (and
// its peer entry) from the reserve only, for twice that time (at most kSendWatchdogMs).
inline u64 reserve_bar_live(u64 bar_until_ms, u64 now_ms, u32 outstanding, u64 no_progress_ms)
{
	if (!outstanding || no_progress_ms > now_ms)
		return bar_until_ms;
	return reserve_bar_after(bar_until_ms, now_ms, u32(now_ms - no_progress_ms));
}
// The reserve's bars by GID alone (CmTable's, under the table lock): CmPeer is keyed by
// the peer's whole address (UD QPN + GID), and a peer that recreates its UD QP and
// announces the new QPN (a gratuitous ARP) gets a new entry. Its bar is kept here when a
// ring's bar is folded into its peer (retire) and read when an entry for that GID is
// created or a connection is filed (connect, file_passive), so a new QPN starts barred.
// A fixed array: nothing allocated, one bar per GID (the later end kept). When it is full
// the bar that ends first goes, the new one included (note() says when a bar in force was
// lost so: the caller counts it).
// 32 bars: the one that ends first goes, so pushing out a bar that ends at T takes 32 other
// ports barred past T (each held late for at least half of that time).
inline constexpr u32 kGidBars = 32;
template <u32 N> struct GidBars {
	struct Entry {
		u8 gid[kGidLen];
		u64 until_ms;	// 0 or <= now: free
	};
	Entry e[N] = {};

	// gid's bar in force at now_ms (0: none)
	u64 bar(const u8 *gid, u64 now_ms) const
	{
		for (const Entry &x : e)
			if (x.until_ms > now_ms && bytes_equal(x.gid, gid, kGidLen))
				return x.until_ms;
		return 0;
	}
	// gid barred until until_ms (never lowered); false when a bar in force was lost for
	// want of room (another GID's, or this one when it ends first)
	bool note(const u8 *gid, u64 until_ms, u64 now_ms)
	{
		if (until_ms <= now_ms)
			return true;
		Entry *victim = nullptr;
		for (Entry &x : e) {
			if (x.until_ms > now_ms && bytes_equal(x.gid, gid, kGidLen)) {
				x.until_ms = until_ms > x.until_ms ? until_ms : x.until_ms;
				return true;
			}
			if (!victim || x.until_ms < victim->until_ms)
				victim = &x;
		}
		const bool lost = victim->until_ms > now_ms;
		if (lost && victim->until_ms >= until_ms)
			return false;	// the new bar ends first: it is the one dropped
		bytes_copy(victim->gid, gid, kGidLen);
		victim->until_ms = until_ms;
		return !lost;
	}
};
inline bool reserve_eligible(u32 outstanding, u32 hol_age_ms, u32 unacked, u32 credit, bool barred)
{
	if (barred)
		return false;
	if (outstanding == 0)
		return true;
	return hol_age_ms < kReserveHolMs && unacked <= credit + kReserveUnacked;
}
// What the completions leave for the producer: the head the last one saw and the credit.
// RcTxRing publishes both in one word (a reader never pairs one completion's head with
// another's credit).
struct ReserveAck {
	u32 acked_head = 0, credit = 0;
	u64 word() const { return u64(credit) << 32 | acked_head; }
	static ReserveAck of(u64 w) { return {u32(w), u32(w >> 32)}; }
};
// One more completion (of the send at tail, the oldest), head as it reads it: the new ack.
inline ReserveAck reserve_acked(ReserveAck a, u32 head, u32 tail)
{
	return {head, reserve_credit(a.credit, head != a.acked_head, send_outstanding_after(head, tail))};
}
// The reserve's eligibility from the ring's state (RcTxRing::reserve_eligible and
// ReserveClock::eligible both read it here).
inline bool reserve_eligible(u64 now_ms, u32 head, u32 tail, u32 hol_post_ms, ReserveAck a, u64 bar_until_ms)
{
	const u32 out = head - tail;
	return reserve_eligible(out, reserve_age_ms(out, now_ms, hol_post_ms), reserve_unacked(head, a.acked_head, out),
				a.credit, reserve_barred(now_ms, bar_until_ms));
}
// The per-connection input of reserve_eligible, as RcTxRing keeps it over its own indices:
// each send's post time (ms, u32: differences are exact across a wrap), the free-running
// head (posts) and tail (completions), what the last completion left (ReserveAck) and the
// lateness bar.
template <u32 Cap> struct ReserveClock {
	static_assert((Cap & (Cap - 1)) == 0, "a power of two, like the ring");
	u32 head = 0, tail = 0;
	ReserveAck ack;
	u64 bar_until_ms = 0;
	u32 post_ms[Cap] = {};

	u32 outstanding() const { return head - tail; }
	void posted(u64 now_ms) { post_ms[head++ & (Cap - 1)] = u32(now_ms); }
	// n in order, one batch (no post between them)
	void completed(u32 n, u64 now_ms)
	{
		for (; n && outstanding(); n--) {
			bar_until_ms = reserve_bar_after(bar_until_ms, now_ms, post_ms[tail & (Cap - 1)]);
			ack = reserve_acked(ack, head, tail);
			tail++;
		}
	}
	u32 hol_age_ms(u64 now_ms) const { return reserve_age_ms(outstanding(), now_ms, post_ms[tail & (Cap - 1)]); }
	u32 unacked() const { return reserve_unacked(head, ack.acked_head, outstanding()); }
	bool barred(u64 now_ms) const { return reserve_barred(now_ms, bar_until_ms); }
	bool eligible(u64 now_ms) const
	{
		return reserve_eligible(now_ms, head, tail, post_ms[tail & (Cap - 1)], ack, bar_until_ms);
	}
	// The ring ends (teardown): the bar it leaves its peer (reserve_bar_end).
	u64 ended(u64 now_ms) const
	{
		return reserve_bar_end(bar_until_ms, now_ms, outstanding(), post_ms[tail & (Cap - 1)]);
	}
	// A new ring of the peer: it starts from the peer's bar.
	void inherit(u64 peer_bar_ms) { bar_until_ms = reserve_bar_fold(bar_until_ms, peer_bar_ms); }
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
	// sends outstanding: how long without progress (0: nothing outstanding; RcTxRing's too)
	u64 no_progress_ms(u64 now_ms) const
	{
		return outstanding && now_ms > last_progress_ms ? now_ms - last_progress_ms : 0;
	}
};
} // namespace ipoib::cm
