// SPDX-License-Identifier: GPL-2.0
// ipoib_cm_req_rules.h - what a peer's REQ can make us do, as pure rules (docs/security.md
// "What a node on the partition can do"): whether it is refused before a connection exists,
// and why (CmTable::on_req, ipoib_cm_admission.cpp), and which of our connections to that
// peer a proven REQ retires (CmTable::retire_replaced, ipoib_cm_ident.cpp). No kernel header
// and no lock: the callers pass what they read, KUnit tests every refusal and the retire
// decision directly (kunit/test_cm_req_rules.cpp). And how many echoes a peer's probes may
// stage for one of our connections at once (CmTable::ident_run).
#pragma once

#include "core/cm/ipoib_cm_admission.h"	// ReqAdmit
#include "core/cm/fsm/ipoib_cm_state.h"	// cm::rej (header-only use)
#include "core/cm/ipoib_cm_wire.h"	// cm::Survivor (header-only use)

namespace ipoib {

// Why a REQ was refused before a Connection took it; None: admitted. Each has its counter
// (CmTable::on_req), Stopping aside (the listeners are going).
enum class ReqRefusal : kstd::u8 {
	None,
	BadPkey,	// cm_req_bad_pkey: another partition's P_Key (IBA 12.6.5, 10.9.1)
	PoolFull,	// cm_req_pool_full: the unanswered pool is full
	UnprovenFull,	// cm_req_unproven_full: the unproven budget is full
	UnreservedFull,	// cm_req_unreserved_full: the rest of the limit is the reserve
	NoMemory,	// cm_req_no_memory: no Connection could be allocated
	Stopping,	// the interface is stopping
	PeersFull,	// cm_peers_refused: a new peer entry would exceed cm_max_peers
};

// The REJ reason a refusal answers with (IBA 12.6.7.2): another partition's REQ is the
// consumer's refusal (RFC 4755 gives none of its own); every other is No Resources (3), which
// a peer of ours and the in-tree driver read as "try UD / later".
inline kstd::u8 req_rej_code(ReqRefusal r)
{
	return r == ReqRefusal::BadPkey ? cm::rej::kConsumer : cm::rej::kNoResources;
}

// Before anything is allocated (no lock: the room checks are hints, checked again by
// req_admit under the table lock). req_pkey: the REQ's P_Key; our_pkey: the listening
// interface's. The membership bit (0x8000) aside, they must name one partition: a child's
// or the parent's REQ never reaches the other through its service ID. Then the budgets, in
// req_admit's order, so each refusal is counted where req_admit would count it.
inline ReqRefusal req_early_refusal(kstd::u16 req_pkey, kstd::u16 our_pkey, bool pool_room, bool unproven_room,
				    bool unreserved_room)
{
	if ((req_pkey & 0x7fff) != (our_pkey & 0x7fff))
		return ReqRefusal::BadPkey;
	if (!pool_room)
		return ReqRefusal::PoolFull;
	if (!unproven_room)
		return ReqRefusal::UnprovenFull;
	if (!unreserved_room)
		return ReqRefusal::UnreservedFull;
	return ReqRefusal::None;
}

// Under the table lock, the Connection allocated: open, the interface is not stopping;
// named_peer, the REQ's private data named the peer's UD QPN (only such a REQ is filed under
// a peer entry); known_peer, an entry for that address exists; peers_at_max, peers_full()
// of the live entries. A new peer entry is the only thing a REQ costs beyond the budgets, so
// only a REQ that would add one is refused at the bound. admit: req_admit's verdict, asked
// only when the rest lets the REQ in (it takes the slots).
inline ReqRefusal req_locked_refusal(bool open, bool named_peer, bool known_peer, bool peers_at_max)
{
	if (!open)
		return ReqRefusal::Stopping;
	if (named_peer && !known_peer && peers_at_max)
		return ReqRefusal::PeersFull;
	return ReqRefusal::None;
}
inline ReqRefusal req_admit_refusal(ReqAdmit a)
{
	switch (a) {
	case ReqAdmit::PoolFull:
		return ReqRefusal::PoolFull;
	case ReqAdmit::UnprovenFull:
		return ReqRefusal::UnprovenFull;
	case ReqAdmit::UnreservedFull:
		return ReqRefusal::UnreservedFull;
	case ReqAdmit::Ok:
		break;
	}
	return ReqRefusal::None;
}

// A peer's proven REQ (its echo came over the new passive connection c): RFC 4755 §3.3 keeps
// one connection per pair, and a peer of ours connects only when it holds none to us, so the
// connections we still hold to that address are dead (the peer restarted). Which to close at
// once, rather than letting them stay the send path until their sends time out:
// other_passive_live, the peer's filed passive connection is another than c and may still
// carry; active_established, ours to the peer is established; survivor, whose REQ §3.3 lets
// survive a crossing of ours and the peer's (crossing_req_survivor(ours, peer's)). Our active
// one only when the peer's REQ would survive: where ours would, the REQ crossed ours and our
// connection is the one the peer keeps. restart: cm_peer_restarts counts it.
struct RestartRetire {
	bool close_passive = false;
	bool close_active = false;
	bool restart() const { return close_passive || close_active; }
};
inline RestartRetire restart_retire(bool other_passive_live, bool active_established, cm::Survivor survivor)
{
	RestartRetire r;
	r.close_passive = other_passive_live;
	r.close_active = active_established && survivor == cm::Survivor::Remote;
	return r;
}

// An echo the probe of a peer asked for (CmTable::ident_run, under the xmit lock), staged to
// go out over our connection after the table lock is dropped: conn_room, the connection's
// send ring has a free slot now (Connection::tx_room); staged_on_conn, echoes already staged
// for that connection in this run. The posts come after the staging loop, so the room seen
// does not shrink as echoes are staged: at most one per connection per run keeps the posts
// within the room seen. The rest wait for the next run (their probe is resent, its echo slot
// kept), never posted into a full ring to fail there.
inline bool echo_may_stage(bool conn_room, kstd::u32 staged_on_conn)
{
	return conn_room && !staged_on_conn;
}

} // namespace ipoib
