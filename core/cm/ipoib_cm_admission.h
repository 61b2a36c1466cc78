// SPDX-License-Identifier: GPL-2.0
// ipoib_cm_admission.h - which REQs may cost us a connection (docs/security.md "What a node
// on the partition can do"): the pool of unanswered passive connections and the bound on
// peer entries. Pure logic (atomics only), so KUnit tests it directly; CmTable::on_req
// (ipoib_cm_admission.cpp) applies it.
//
// An accepted REQ holds a QP, its receives and a connection slot until the peer's RTU
// arrives (an RTU normally follows our REP within milliseconds) or the accepting deadline
// (cm::kAcceptDeadlineMs) tears it down. A peer that never answers can send REQs with any
// identity it likes, so such connections live in a pool of their own, bounded by
// cm_req_pool and by half the connection limit: a flood of them neither displaces an
// established connection nor exhausts the limit, and REQs beyond the pool are rejected
// (REJ No Resources, cm_req_pool_full) before anything is allocated.
//
// A peer that does answer (its RTU takes the connection out of the pool) may still claim an
// identity it cannot prove (ipoib_cm_ident.cpp), or announce no kCapBidir and so never be
// asked to: such connections carry nothing of ours, but each holds a QP and a slot of the
// connection limit. Every passive connection counts in a second budget from its REQ until its
// peer proves its identity (the echo) or it is torn down, a failed proof's receive-only one
// included (it still holds its slot); one that never carries ours (one-way) until its first
// packet instead (UnprovenSlot). The budget is half the connection limit; REQs beyond it
// are rejected (REJ No Resources, cm_req_unproven_full) before anything is allocated.
//
// Whether a connection is one-way is the sender's choice (its REQ leaves out kCapBidir), and
// one RC packet then gives its unproven slot back. So every passive connection also holds a
// slot of a third budget from its REQ until its peer proves its identity or it is torn down,
// its first packet notwithstanding: the unreserved budget, the connection limit less a
// reserve of a quarter of it (unreserved_bound). The reserve is what our own (active)
// connections and proven peers' keep whatever the passive ones nobody proved hold: without
// it, one-way connections a node opens and keeps alive with a packet each fill the whole
// limit, our own connects then meet the limit (ConnectOverLimit, UD) and every REQ is
// refused. REQs beyond it are rejected (REJ No Resources, cm_req_unreserved_full) before
// anything is allocated.
#pragma once

#include "kstd/types.h"

namespace ipoib {

using kstd::u32;
using kstd::u64;

class ReqPool {
public:
	// The pool's size: cm_req_pool, at most half of max_conns (the connection limit in
	// force), at least 1 (a single-connection limit still accepts one REQ at a time).
	static u32 bound(u32 param, u32 max_conns)
	{
		const u32 half = max_conns / 2;
		const u32 n = param < half ? param : half;
		return n ? n : 1;
	}
	// The unproven budget's size: half the connection limit, at least 1.
	static u32 unproven_bound(u32 max_conns)
	{
		const u32 half = max_conns / 2;
		return half ? half : 1;
	}
	// The unreserved budget's size: the connection limit less a reserve of a quarter of it,
	// rounded up, at least 1 (a single-connection limit still accepts one REQ). A quarter:
	// peers that can never prove (the in-tree driver) may hold three quarters of the limit
	// once their first packet has left the unproven budget; the reserve is what a node that
	// opens one-way connections of its own cannot take from our own connections.
	static u32 unreserved_bound(u32 max_conns)
	{
		const u32 n = max_conns - (max_conns + 3) / 4;
		return n ? n : 1;
	}
	void set_limit(u32 n) { __atomic_store_n(&limit_, n, __ATOMIC_RELAXED); }
	u32 limit() const { return __atomic_load_n(&limit_, __ATOMIC_RELAXED); }
	u32 used() const { return __atomic_load_n(&used_, __ATOMIC_ACQUIRE); }
	bool room() const { return used() < limit(); }	// a hint (no lock): on_req's early refusal
	// One slot, or false when the pool is full. Callers serialise takes (the table lock);
	// put() may run concurrently from any context.
	bool take()
	{
		if (!room())
			return false;
		__atomic_add_fetch(&used_, 1u, __ATOMIC_ACQ_REL);
		return true;
	}
	// A slot back (its connection left accepting: RTU, rejected, torn down). Never below 0:
	// an unmatched put is counted by the caller's flag, not here.
	void put()
	{
		u32 v = __atomic_load_n(&used_, __ATOMIC_RELAXED);
		while (v && !__atomic_compare_exchange_n(&used_, &v, v - 1, false, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
		}
	}

private:
	u32 limit_ = 0;
	u32 used_ = 0;
};

// A REQ's three slots, all or none (callers serialise, as for ReqPool::take): one of the
// unanswered pool, one of the unproven budget, one of the unreserved budget. In that order,
// so a flood of unanswered REQs is told apart (cm_req_pool_full) from connections that
// answered and never proved (cm_req_unproven_full) and from one-way connections that sent
// their first packet (cm_req_unreserved_full), though each counts in the later ones too.
enum class ReqAdmit { Ok, PoolFull, UnprovenFull, UnreservedFull };
inline ReqAdmit req_admit(ReqPool &pool, ReqPool &unproven, ReqPool &unreserved)
{
	if (!pool.take())
		return ReqAdmit::PoolFull;
	if (!unproven.take()) {
		pool.put();
		return ReqAdmit::UnprovenFull;
	}
	if (!unreserved.take()) {
		unproven.put();
		pool.put();
		return ReqAdmit::UnreservedFull;
	}
	return ReqAdmit::Ok;
}

// A passive connection's slot of the unproven budget (ReqPool above), given back exactly once:
// at its peer's proof (the echo), at its retirement, or, for a connection that never carries
// our packets, at its first successful receive. Such a peer (the in-tree driver, ours with
// cm_bidir=0) can never prove, and would otherwise hold the slot until reaped: with more of
// them than half the connection limit the rest would be refused, and the in-tree driver does
// not fall back to UD on a REJ. Its first packet shows an RC QP at the far end that reached
// ours; the identity it claims gains it nothing, since the connection never carries ours. A
// forger that never sends keeps the slot. Since that packet is all it takes, the unreserved
// budget bounds such connections (req_admit): the same type holds a connection's slot of it,
// with hold(false), given back at the proof or the retirement only. hold() runs before the
// connection is visible; release() and on_rx() may race (the work item, the table, NAPI):
// the exchange on held_ makes one of them the one that gives the slot back.
class UnprovenSlot {
public:
	// At the REQ's admission (table lock), the slot taken (req_admit); one_way:
	// unproven_returns_at_rx.
	void hold(bool one_way)
	{
		__atomic_store_n(&at_rx_, one_way, __ATOMIC_RELAXED);
		__atomic_store_n(&held_, true, __ATOMIC_RELEASE);
	}
	bool held() const { return __atomic_load_n(&held_, __ATOMIC_ACQUIRE); }
	// The proof or the retirement: true when this call gave the slot back.
	bool release(ReqPool &budget)
	{
		if (!held() || !__atomic_exchange_n(&held_, false, __ATOMIC_ACQ_REL))
			return false;
		budget.put();
		return true;
	}
	// A successful receive (NAPI): true when this call gave the slot back (the caller counts
	// it). One relaxed load per receive otherwise.
	bool on_rx(ReqPool &budget)
	{
		if (!__atomic_load_n(&at_rx_, __ATOMIC_RELAXED))
			return false;
		__atomic_store_n(&at_rx_, false, __ATOMIC_RELAXED);
		return release(budget);	// exactly once even if receives raced: the exchange
	}

private:
	bool held_ = false;	// atomic: the slot is ours
	bool at_rx_ = false;	// atomic: given back at the first receive (one-way)
};

// Whether a passive connection's unproven slot goes back at its first receive: it can never
// carry our packets. local_bidir: cm_bidir; peer_bidir: its REQ announced kCapBidir;
// send_accepted: the test knob that sends over one-way passive connections anyway
// (cm::Conn::may_send).
inline bool unproven_returns_at_rx(bool local_bidir, bool peer_bidir, bool send_accepted)
{
	return !(local_bidir && peer_bidir) && !send_accepted;
}

// Peer entries live: those added less those freed (the housekeeping work counts a free after
// unlinking the entry, so this never reads below the real number). At max, no new entry.
inline bool peers_full(u64 added, u64 freed, u32 max) { return added - freed >= u64(max); }

} // namespace ipoib
