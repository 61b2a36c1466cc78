// SPDX-License-Identifier: GPL-2.0
// ipoib_cm_budget.h - the RC send bounds of connected mode as pure logic (docs/connected.md §3
// "Peer isolation", §4; host-compilable, for KUnit): each connection's own (its send ring),
// the interface's (RcSendBudget, what the receive CQ is sized for) and the reserve at the top
// of it that only connections making progress take (rc_slot). CmTable (ipoib_cm_xmit.cpp)
// asks them before every RC post; none of them touches the netdev queue (TxQueueRule).
#pragma once

#include "kstd/base.h"

namespace ipoib {

using kstd::u32;
using kstd::u64;

// Why a slot for a peer's next post was refused: its connection is at its own bound
// (ConnFull: the peer's queue waits for that connection's completions), the interface is
// (IfFull: the peer's queue waits in the backlog for RC completions), or only the reserve
// is left and the connection is not making progress (Reserve: it waits like ConnFull, on
// the connection waiters). None of them stops the netdev queue (TxQueueRule,
// ipoib_tx_queue.h).
enum class CmSlot { Ok, ConnFull, IfFull, Reserve };

// One more RC send for a connection (docs/connected.md §3 "Peer isolation"): conn_room, its
// own send ring has a slot; inflight of limit, the interface bound; reserve, the last part of
// that bound, kept for connections whose peers complete what we send (progressing:
// cm::reserve_eligible over the connection's ring: a young head of line, no more sends since
// its last completion than that batch completed plus cm::kReserveUnacked, its peer not barred
// by a late completion, cm::reserve_bar_after). Connections that are not fill at most limit - reserve together, so a
// healthy peer still finds a slot while stalled ones wait for their watchdog.
inline CmSlot rc_slot(bool conn_room, u32 inflight, u32 limit, u32 reserve, bool progressing)
{
	if (!conn_room)
		return CmSlot::ConnFull;
	if (inflight >= limit)
		return CmSlot::IfFull;
	if (!progressing && inflight + reserve >= limit)
		return CmSlot::Reserve;
	return CmSlot::Ok;
}

// RC sends posted and not yet completed, over all connections of an interface. Each
// connection has its own bound below this one (its send ring, CmSlot::ConnFull); this one is
// kRcBoundConns rings' worth (rc_iface_bound) because the receive CQ is sized for that many
// send completions (§4, CmTable::cq_fixed): a resource bound, not a queue rule. At it, or at
// the reserve for a connection that is not making progress (rc_slot), the packet's peer waits
// on its own pending queue (dropped beyond it, counted) and the netdev queue runs on: UD
// never waits for RC, and no set of connections stops the queue.
// A slot is reserved BEFORE the post (a completion polled on another CPU right after the
// post must find it counted: counted after the post, the completion's decrement would be
// clamped away and the count leak upward until the bound held every peer for good)
// and released when the post fails. Producers: xmit and the queue flushes, all under the
// tx queue's xmit lock (kapi_netdev_xmit_lock: one producer at a time, whatever the qdisc,
// netpoll included); consumer: NAPI. Lock-free: the producer's check
// and increment cannot race another producer, and the consumer only lowers the count.
// The same rule makes a connection's own bound exact: its ring's head moves only under
// that lock and its tail only lowers what is outstanding.
class RcSendBudget : kstd::NonCopyable {
public:
	constexpr explicit RcSendBudget(u64 &underflows) : underflows_(underflows) {}
	// reserve: the part of limit kept for connections making progress (less than limit).
	void set_limit(u32 limit, u32 reserve = 0)
	{
		limit_ = limit;
		reserve_ = reserve < limit ? reserve : 0;
	}
	u32 limit() const { return limit_; }
	u32 reserve_size() const { return reserve_; }
	// One slot for a post of a connection with room in its own ring: Ok (reserved), or
	// IfFull / Reserve (rc_slot; nothing reserved).
	CmSlot take(bool progressing)
	{
		const CmSlot r = rc_slot(true, __atomic_load_n(&n_, __ATOMIC_RELAXED), limit_, reserve_, progressing);
		if (r == CmSlot::Ok)
			__atomic_fetch_add(&n_, 1u, __ATOMIC_SEQ_CST);
		return r;
	}
	// For a connection making progress: false at the bound (nothing reserved).
	bool reserve() { return take(true) == CmSlot::Ok; }
	// The post failed: the slot goes back (never below zero: counted as an underflow).
	void unreserve() { complete(1); }
	// n sends completed (or were freed unposted at teardown). More than are counted is an
	// accounting bug: the count stops at 0 and the excess is counted (debugfs, ethtool).
	void complete(u32 n)
	{
		u32 cur = __atomic_load_n(&n_, __ATOMIC_RELAXED);
		for (;;) {
			const u32 take = n < cur ? n : cur;
			if (__atomic_compare_exchange_n(&n_, &cur, cur - take, false, __ATOMIC_SEQ_CST,
							__ATOMIC_RELAXED)) {
				if (take < n)
					__atomic_fetch_add(&underflows_, u64(n - take), __ATOMIC_RELAXED);
				return;
			}
		}
	}
	void reset() { __atomic_store_n(&n_, 0u, __ATOMIC_RELEASE); }	// interface stop
	u32 inflight() const { return __atomic_load_n(&n_, __ATOMIC_ACQUIRE); }
	bool full() const { return inflight() >= limit_; }
	// Below the reserve: a connection that is not making progress may take a slot again.
	bool shared_room() const { return inflight() + reserve_ < limit_; }
	// A peer that waits in the backlog (IfFull) may go on: any slot is free. No wake mark:
	// nothing is stopped at the bound, and with stalled connections holding most of it the
	// count may never come down to one (the flag that asks for the flush work makes it one
	// kick per stop, not one per completion).
	bool backlog_room() const { return !full(); }
	u64 underflows() const { return __atomic_load_n(&underflows_, __ATOMIC_RELAXED); }

private:
	u32 limit_ = 0;
	u32 reserve_ = 0;
	u32 n_ = 0;
	u64 &underflows_;	// the owner's counter (ethtool -S)
};

// Connections' worth of send rings the interface bound holds (the CQ is sized for it). The
// last ring's worth is the reserve (rc_iface_reserve): however many connections stall, they
// hold at most the first kRcBoundConns - 1 rings' worth together, plus what each took of the
// reserve before its head of line was cm::kReserveHolMs old (cm::kReserveUnacked + 1 per
// prompt completion batch, and nothing while its peer's lateness bar holds, up to
// cm::kSendWatchdogMs after a late completion or a teardown with a late head of line), and
// the connections whose peers complete keep the rest of a ring.
inline constexpr u32 kRcBoundConns = 4;
inline constexpr u32 rc_iface_bound(u32 send_ring) { return send_ring * kRcBoundConns; }
inline constexpr u32 rc_iface_reserve(u32 send_ring) { return send_ring; }

} // namespace ipoib
