// SPDX-License-Identifier: GPL-2.0
// ipoib_cm_admission.cpp - a REQ's way in (ib_cm's context; the new id carries the
// listener's context until we return): checked against the listening interface, given a
// slot of the unanswered pool, one of the unproven budget and one of the unreserved budget
// (ipoib_cm_admission.h), and fed to a new passive Connection,
// which decides REP or REJ (ipoib_cm_state.h). What is refused before a Connection exists is
// answered here with our private data (RFC 4755 §3.2), never by the shim.
#include "core/cm/ipoib_cm_req_rules.h"
#include "ipoib_cm.h"
#include "ipoib_if.h"

namespace ipoib {

kapi_ctx *CmTable::refuse(kapi_cm_id *id, u8 reason)
{
	u8 pd[cm::kCmPrivDataLen];
	cm::PrivData mine;
	mine.ud_qpn = ud_qpn();
	mine.recv_mtu = recv_mtu();
	cm::cm_priv_data_encode(pd, mine, u16((bidir() ? cm::kCapBidir : 0) | (csum_free() ? cm::kCapCsumFree : 0)));
	if (kapi_cm_send_rej(id, reason, nullptr, 0, pd, u8(sizeof(pd))) == 0)
		count_rej(true, reason);
	return nullptr;
}

// Each refusal's counter; none for Stopping (the listeners are going).
static u64 *refusal_stat(CmIfStats &s, ReqRefusal r)
{
	switch (r) {
	case ReqRefusal::BadPkey:
		return &s.cm_req_bad_pkey;
	case ReqRefusal::PoolFull:
		return &s.cm_req_pool_full;
	case ReqRefusal::UnprovenFull:
		return &s.cm_req_unproven_full;
	case ReqRefusal::UnreservedFull:
		return &s.cm_req_unreserved_full;
	case ReqRefusal::NoMemory:
		return &s.cm_req_no_memory;
	case ReqRefusal::PeersFull:
		return &s.cm_peers_refused;	// no entry to file it under (cm_max_peers)
	case ReqRefusal::None:
	case ReqRefusal::Stopping:
		break;
	}
	return nullptr;
}

kapi_ctx *CmTable::on_req(kapi_cm_id *id, const kapi_cm_event &ev)
{
	cm::SidKind kind = cm::SidKind::Linux;
	u32 sid_qpn = 0;
	if (!cm::service_id_parse(ev.service_id, kind, sid_qpn) || sid_qpn != ud_qpn())
		count(ifs_.cm_req_bad_service_id);	// ib_cm matched our listen: cannot happen
	// Refused before anything is allocated (ipoib_cm_req_rules.h): another partition's
	// P_Key, or a full pool, unproven budget or unreserved budget (re-checked under the lock
	// below, where the slots are taken).
	const ReqRefusal early = req_early_refusal(ev.req_pkey, ifc_.pkey(), pool_.room(), unproven_.room(),
						   unreserved_.room());
	if (early != ReqRefusal::None) {
		if (u64 *n = refusal_stat(ifs_, early))	// every early refusal has one today
			count(*n);
		return refuse(id, req_rej_code(early));
	}
	cm::PrivData pd;
	const cm::PrivDataResult res = cm::priv_data_parse(ev.priv, ev.priv_len, pd);
	const cm::Caps caps = cm::caps_parse(ev.priv, ev.priv_len);
	const bool peer_bidir = caps.present && (caps.flags & cm::kCapBidir);
	// The peer's 20-octet address: its UD QPN from the private data, its GID from the
	// primary path (docs/design.md §4 item 6); flags zero (the table's key).
	const HwAddr peer = HwAddr::make(0, res == cm::PrivDataResult::Ok ? pd.ud_qpn : 0, ev.dgid);
	const cm::Config cfg = config(cm::Dir::Passive, 0);
	Connection *c = new (Gfp::Kernel) Connection(*this, cm::Dir::Passive, cfg, peer);
	if (!c || !kstd::ok(c->init(Gfp::Kernel))) {
		delete c;
		count(ifs_.cm_req_no_memory);
		return refuse(id, req_rej_code(ReqRefusal::NoMemory));	// ib_cm destroys the id
	}
	const HwAddr me = HwAddr::make(0, ud_qpn(), ifc_.local_addrs().gid);	// the published copy
	const LidCheck lid = peer_bidir && p_.bidir ? lid_check(ev.dgid, ev.req_lid) : LidCheck::Unknown;
	ReqRefusal refused = ReqRefusal::None;
	{
		FeedNotes notes(log());	// printed after the unlock (ipoib_cm_notes.h)
		kstd::SpinIrqSaveGuard g(lock_);
		const bool named = res == cm::PrivDataResult::Ok;
		refused = req_locked_refusal(open_, named, named && find(peer),
					     peers_full(read_stat(ifs_.cm_peers_added), read_stat(ifs_.cm_peers_freed), p_.max_peers));
		if (refused == ReqRefusal::None)
			refused = req_admit_refusal(req_admit(pool_, unproven_, unreserved_));	// takes the slots
		if (refused == ReqRefusal::None) {
			c->hold_pool_slot();	// given back when it leaves accepting (Connection::feed)
			// given back when proven (on_ident_rc), at retire, or (the unproven slot
			// alone) at the first receive of a connection that never carries ours
			// (ipoib_cm_admission.h)
			c->hold_unproven(unproven_returns_at_rx(cfg.local_bidir, peer_bidir, cfg.send_accepted));
			on_req_locked(*c, id, ev, res, pd, caps, peer, me, lid, kind, notes);
		} else if (u64 *n = refusal_stat(ifs_, refused)) {
			count(*n);
		}
	}
	if (refused != ReqRefusal::None) {
		delete c;
		return refuse(id, req_rej_code(refused));
	}
	return c->ctx();
}

void CmTable::on_req_locked(Connection &c, kapi_cm_id *id, const kapi_cm_event &ev, cm::PrivDataResult res,
			    const cm::PrivData &pd, const cm::Caps &caps, const HwAddr &peer, const HwAddr &me,
			    LidCheck lid, cm::SidKind kind, FeedNotes &notes)
{
	const bool peer_bidir = caps.present && (caps.flags & cm::kCapBidir);
	c.adopt(id, ev.remote_qpn, res == cm::PrivDataResult::Ok ? pd.recv_mtu : 0);
	const cm::Negotiated neg = c.negotiated(caps, kind == cm::SidKind::Rfc);
	const bool over = over_limit();
	conns_.push_back(c);
	nconns_++;
	CmPeer *p = res == cm::PrivDataResult::Ok ? find(peer) : nullptr;	// added if accepted only
	// RFC 4755 §3.3: our REQ to this peer is outstanding and both ends are bidirectional.
	cm::Crossing x = cm::Crossing::None;
	if (p && p->active && p->active->state() == cm::State::Connecting && p_.bidir && peer_bidir)
		x = cm::crossing_from(cm::crossing_req_survivor(me.b, peer.b));
	const cm::ReqBound b = cm::req_timers_check({ev.req_remote_response, ev.req_local_response, ev.req_local_ack});
	const cm::Step st = c.feed(cm::Event::req(res, peer_bidir, x, over, neg, b), notes);
	const bool accepted = st.has(cm::Action::SendRep);
	if (accepted && (p || (p = find_or_add(peer, Gfp::Atomic))))
		file_passive(*p, c, lid, kapi_now_ms());	// a bidirectional one is proven first
	if (x == cm::Crossing::RemoteWins && p && p->active)
		p->active->feed(cm::Event::of(accepted ? cm::Ev::CrossingLost : cm::Ev::CrossingRefused), notes);
}

} // namespace ipoib
