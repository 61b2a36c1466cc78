// SPDX-License-Identifier: GPL-2.0
// ipoib_cm_ident.cpp - who may carry our traffic (docs/security.md): a bidirectional passive
// connection is filed under the GID and UD QPN its REQ claims, and anyone on the partition
// can claim any. It becomes the peer's send path only after the peer proved it receives at
// that address: we send a probe with a random nonce over UD to the claimed address (through
// our own SA path record for the GID, so it reaches the real owner's port), and the genuine
// peer echoes the nonce over its connection whose remote QPN the probe names, i.e. over the
// connection under proof. Until then xmit uses our own connection (or UD), as for a peer
// that never announced kCapBidir. The prover's side answers probes only for a connection it
// opened itself (its active one) to the probe's sender.
#include "core/cm/ipoib_cm_req_rules.h"
#include "ipoib_cm.h"
#include "ipoib_if.h"

namespace ipoib {

// The REQ's primary path names the requester's LID (IBA 12.6.5 Primary Local Port LID), which
// its sender writes as it likes; our path record for the claimed GID comes from the SA. A
// mismatch means the REQ did not come from the port that owns the GID (or from another LID
// of it, LMC > 0): such a connection is never proven. A match proves nothing by itself.
CmTable::LidCheck CmTable::lid_check(const u8 *gid, u32 req_lid)
{
	kstd::SpinIrqSaveGuard l(ifc_.paths_.lock());
	Path *p = ifc_.paths_.find(gid);
	if (!p || !p->cm_rec || !p->dlid)
		return LidCheck::Unknown;	// not resolved yet: the probe goes after the query
	return p->dlid == req_lid ? LidCheck::Match : LidCheck::Mismatch;
}

void CmTable::file_passive(CmPeer &p, Connection &c, LidCheck lid, u64 now)
{
	c.owner = &p;
	gid_bar_inherit(p, now);
	reserve_bar_inherit(p, c);
	p.conns++;
	p.used_ms = now;
	if (!c.bidir()) {
		// One-way: it carries the peer's packets only. It does not take the place of a
		// bidirectional one that may still carry (a REQ never silently replaces that).
		if (!(may_carry(p.passive) && p.passive->bidir()))
			p.passive = &c;
		return;
	}
	if (lid == LidCheck::Mismatch) {
		count(ifs_.cm_id_lid_mismatch);	// never proven: it stays a receive-only connection
		return;
	}
	if (p.proving)
		count(ifs_.cm_id_superseded);	// the older one stays receive-only
	else
		proofs_open_++;
	p.proving = &c;
	// A running proof keeps its deadline and hold; the new connection gets its own probe.
	const ProofStart st = cm_proof_start(p.proof, p.proof_hold_next, now);
	p.proof.begin(st);
	p.proof_hold_next = st.hold_next;
	count(ifs_.cm_id_proofs);
}

// A peer of ours keeps one connection per pair (RFC 4755 §3.3) and connects only when it has
// none to us: a proven REQ from an address we still hold connections to means the peer lost
// them (it restarted). They are dead: closed now rather than staying the send path until their
// sends time out (the rule: restart_retire, ipoib_cm_req_rules.h).
void CmTable::retire_replaced(CmPeer &p, Connection &c, FeedNotes &notes)
{
	const HwAddr me = HwAddr::make(0, ud_qpn(), ifc_.local_addrs().gid);
	const RestartRetire r =
		restart_retire(p.passive && p.passive != &c && may_carry(p.passive),
			       p.active && p.active->state() == cm::State::Established, cm::crossing_req_survivor(me.b, p.addr.b));
	if (r.close_passive)
		p.passive->feed(cm::Event::of(cm::Ev::Close), notes);
	if (r.close_active)
		p.active->feed(cm::Event::of(cm::Ev::Close), notes);
	if (r.restart())
		count(ifs_.cm_peer_restarts);
}

void CmTable::ident_clear()
{
	proofs_open_ = 0;
	for (CmEcho &e : echoes_)
		e.until = 0;
}

bool CmTable::proof_holds(const CmPeer &p, u64 now) const
{
	return cm_proof_holds(may_carry(p.proving), p.proof, now);
}

// Over UD, as any unicast datagram: no RC flag in the destination, so Interface::xmit takes
// the UD path, whose address handle comes from our path record for the GID (queried first
// when there is none).
void CmTable::send_probe(const HwAddr &to, u32 qpn, u64 nonce)
{
	constexpr u32 len = u32(kHardLen + cm::kIdentLen);
	kapi_skb *skb = kapi_skb_alloc(netdev(), len, 0, unsigned(Gfp::Atomic));
	if (!skb) {
		count(ifs_.cm_id_nomem);	// the next probe (or the deadline) follows
		return;
	}
	u8 *d = kapi_skb_put(skb, len);
	HwAddr dst = to;
	dst.b[0] = 0;
	bytes_copy(d, dst.b, kPseudoLen);
	encap_write(d + kPseudoLen, cm::kIdentEthertype);
	cm::IdentMsg m;
	m.type = cm::IdentType::Probe;
	m.nonce = nonce;
	m.qpn = qpn;
	const LocalAddrs me = ifc_.local_addrs();
	bytes_copy(m.gid, me.gid, kGidLen);
	cm::ident_encode(d + kHardLen, m);
	count(ifs_.cm_id_probes_sent);
	kapi_skb_requeue(skb);
}

// The prover: a probe from src_qp names one of the sender's QPs; we echo it only over our
// own connection to that sender whose remote QPN it is. Anything else is counted and dropped
// (no answer: a probe cannot make us send to a third party or over another connection).
void CmTable::on_ident_ud(u32 src_qp, const u8 *msg, u32 len)
{
	cm::IdentMsg m;
	if (!cm::ident_parse(msg, len, m) || m.type != cm::IdentType::Probe) {
		count(ifs_.cm_id_rx_bad);
		return;
	}
	count(ifs_.cm_id_probes_rx);
	const HwAddr from = HwAddr::make(0, src_qp, m.gid);
	const u64 now = kapi_now_ms();
	bool queued = false;
	{
		kstd::SpinIrqSaveGuard g(lock_);
		if (!open_) {	// stopping: we answer nothing
			count(ifs_.cm_id_probes_unmatched);
			return;
		}
		CmPeer *p = find(from);
		Connection *c = p ? p->active : nullptr;
		if (!c || c->remote_qpn() != m.qpn || !may_send(c)) {
			count(ifs_.cm_id_probes_unmatched);
			return;
		}
		CmEcho *slot = nullptr;
		for (CmEcho &e : echoes_) {
			if (e.until && e.qpn == m.qpn && bytes_equal(e.peer.b, from.b, kHwAddrLen)) {
				slot = &e;	// a resent probe: its nonce is the same
				break;
			}
			if (!e.until && !slot)
				slot = &e;
		}
		if (slot) {
			slot->peer = from;
			slot->qpn = m.qpn;
			slot->nonce = m.nonce;
			slot->until = now + kCmEchoMs;
			queued = true;
		} else {
			count(ifs_.cm_id_echoes_dropped);	// the verifier probes again
		}
	}
	if (queued) {
		__atomic_store_n(&ident_due_, true, __ATOMIC_RELEASE);
		kick_flush();
	}
}

// The verifier: an echo over the RC connection local_qpn of peer. It proves the connection
// only when it is that peer's connection under proof, the nonce is the probe's, and neither
// the connection nor the interface is stopping (cm_echo_verdict); anything else is counted.
void CmTable::on_ident_rc(const HwAddr &peer, u32 local_qpn, const u8 *msg, u32 len)
{
	cm::IdentMsg m;
	if (!cm::ident_parse(msg, len, m) || m.type != cm::IdentType::Echo) {
		count(ifs_.cm_id_rx_bad);
		return;
	}
	HwAddr key = peer;
	key.b[0] = 0;
	bool proven = false;
	{
		FeedNotes notes(log());	// the restart's Close, printed after the unlock
		kstd::SpinIrqSaveGuard g(lock_);
		CmPeer *p = find(key);
		Connection *c = p ? p->proving : nullptr;
		const bool under_proof = c && c->qpn() == local_qpn && m.qpn == local_qpn;
		const IdProof::Echo e = under_proof ? p->proof.echo(m.nonce) : IdProof::Echo::NoProbe;
		switch (cm_echo_verdict(open_, under_proof && may_send(c), under_proof, e)) {
		case EchoVerdict::Stopping:
			count(ifs_.cm_id_echo_stopping);	// its connection or the interface is going
			return;
		case EchoVerdict::Unexpected:
			count(ifs_.cm_id_echo_unexpected);
			return;
		case EchoVerdict::Mismatch:
			count(ifs_.cm_id_echo_mismatch);	// not a failure: only the deadline fails it
			return;
		case EchoVerdict::Proves:
			break;
		}
		p->proving = nullptr;
		p->proof.close();
		// Proven: the next proof (a restart, a mode flip) may hold xmit again. Only a genuine
		// echo gets here, so the once-per-30-s bound still holds against forgers.
		p->proof_hold_next = 0;
		proofs_open_--;
		c->leave_unproven();
		retire_replaced(*p, *c, notes);
		p->passive = c;
		p->publish_due = true;
		count(ifs_.cm_id_verified);
		proven = true;
	}
	if (proven) {
		__atomic_store_n(&ident_due_, true, __ATOMIC_RELEASE);
		kick_flush();
	}
}

// Housekeeping (each run): a proof past its deadline fails: the connection stays, receive-only
// (what a one-way peer's is: the peer may keep sending to us over it), never our send path;
// the queue that waited for it goes back to xmit, which connects (or takes UD) as for a
// peer without kCapBidir. Probes still unanswered are resent.
void CmTable::ident_tick(u64 now)
{
	struct Probe {
		HwAddr to;
		u32 qpn;
		u64 nonce;
	};
	constexpr u32 kMax = 8;	// more wait for the next run (probes are resent at most every second)
	Probe probes[kMax];
	u32 n = 0;
	CmPending q;	// what fits; a later packet to a peer whose rest still waits takes it along
	{
		kstd::SpinIrqSaveGuard g(lock_);
		if (!open_ || !proofs_open_)
			return;
		for (CmPeer &p : peers_) {
			if (!p.proving)
				continue;
			if (p.proof.expired(now)) {
				count(ifs_.cm_id_proof_timeouts);
				p.proving = nullptr;
				p.proof.close();
				proofs_open_--;
				const bool passive_will_send = may_carry(p.passive) && p.passive->bidir();
				if (!p.send && !may_carry(p.active) && !passive_will_send && !p.await_until)
					(void)cm_take_pending(p, q);
				continue;
			}
			if (n < kMax && p.proof.probe_due(now)) {
				p.proof.probed(now);
				probes[n++] = {p.addr, p.proving->qpn(), p.proof.nonce};
			}
		}
	}
	for (u32 i = 0; i < n; i++)
		send_probe(probes[i].to, probes[i].qpn, probes[i].nonce);
	kapi_skb *skb;
	while (q.pop(skb))
		kapi_skb_requeue(skb);
}

// Under the xmit lock: proven connections become their peer's send path (and send the queue
// that waited), and the echoes queued by on_ident_ud go out over their connection. A
// connection that offered (StartSending ran, StopSending not yet) lives while we hold the
// xmit lock: its QuiesceTx waits for it.
void CmTable::ident_run(u64 now)
{
	if (!__atomic_exchange_n(&ident_due_, false, __ATOMIC_ACQ_REL))
		return;
	constexpr u32 kMaxPub = 8;
	CmPeer *pub[kMaxPub];
	u32 npub = 0;
	struct Out {
		Connection *c;
		kapi_skb *skb;
	} out[kCmEchoes];
	u32 nout = 0;
	bool again = false;
	kapi_netdev_xmit_lock(netdev());
	{
		kstd::SpinIrqSaveGuard g(lock_);
		if (open_) {
			for (CmPeer &p : peers_) {
				if (!p.publish_due)
					continue;
				if (npub == kMaxPub) {
					again = true;
					break;
				}
				p.publish_due = false;
				Connection *c = p.passive;
				if (!p.send && c && c->offered && may_send(c)) {
					publish(p, *c);
					pub[npub++] = &p;
				}
			}
		}
		for (CmEcho &e : echoes_) {
			if (!e.until)
				continue;
			CmPeer *p = open_ ? find(e.peer) : nullptr;
			Connection *c = p ? p->active : nullptr;
			if (!c || c->remote_qpn() != e.qpn || !may_send(c) || now >= e.until) {
				count(ifs_.cm_id_echoes_dropped);
				e.until = 0;
				continue;
			}
			if (!c->offered) {	// its StartSending has not run yet: the next run
				again = true;
				continue;
			}
			u32 staged = 0;	// echoes staged for c in this run (kCmEchoes at most)
			for (u32 i = 0; i < nout; i++)
				staged += out[i].c == c;
			// At most one per connection per run: its ring's room does not shrink until the
			// posts after the loop (echo_may_stage); the rest wait for the next run.
			if (!echo_may_stage(c->tx_room(), staged)) {
				again = true;
				continue;
			}
			constexpr u32 len = u32(kHardLen + cm::kIdentLen);
			kapi_skb *skb = kapi_skb_alloc(netdev(), len, 0, unsigned(Gfp::Atomic));
			if (!skb) {
				count(ifs_.cm_id_nomem);
				e.until = 0;
				continue;
			}
			if (rc_reserve_echo(*c) != CmSlot::Ok) {	// a bound is full: the next run
				kapi_skb_free(skb);
				again = true;
				continue;
			}
			u8 *d = kapi_skb_put(skb, len);
			bytes_copy(d, e.peer.b, kPseudoLen);
			encap_write(d + kPseudoLen, cm::kIdentEthertype);
			cm::IdentMsg m;
			m.type = cm::IdentType::Echo;
			m.nonce = e.nonce;
			m.qpn = e.qpn;
			cm::ident_encode(d + kHardLen, m);
			out[nout++] = {c, skb};
			e.until = 0;
		}
	}
	for (u32 i = 0; i < nout; i++) {
		post_rc(*out[i].c, out[i].skb, now);
		count(ifs_.cm_id_echoes_sent);
	}
	for (u32 i = 0; i < npub; i++)
		flush(*pub[i], now);
	kapi_netdev_xmit_unlock(netdev());
	if (again)
		__atomic_store_n(&ident_due_, true, __ATOMIC_RELEASE);	// the housekeeping run retries
}

} // namespace ipoib
