// SPDX-License-Identifier: GPL-2.0
// ipoib_if_datapath.cpp - the interface's datapath (ipoib_if.h): the UD send path (RFC 4391
// §6 encapsulation), its completions, the receive path (UD and what RC connections hand up,
// §9.1.1 addresses) and the NAPI poll that drives both.
#include "ipoib_if.h"
#include "core/netdev/ipoib_mode.h"
#include "core/rings/ipoib_tx_queue.h"

namespace ipoib {

// What every stop/wake site of the netdev queue reads (TxQueueRule): the interface's state;
// the UD ring fills in its own fields (TxRing::view), RC's are shown, never decided on.
static TxQueueView queue_view(bool up, bool ud_draining, const CmTable &cm)
{
	TxQueueView v;
	v.up = up;
	v.ud_draining = ud_draining;
	v.rc_inflight = cm.rc_inflight();
	v.rc_limit = cm.rc_limit();
	return v;
}

// ---- send path ----

// xmit only: one writer, the netif tx lock's holder (one TX queue, no LLTX): no locked add.
void Interface::drop(kapi_skb *skb, u64 &counter)
{
	count_local(counter);
	kapi_skb_free(skb);
}

// Any context (an SA callback, a flush in the work, xmit): several writers, an atomic add.
void Interface::drop_shared(kapi_skb *skb, u64 &counter)
{
	count(counter);
	kapi_skb_free(skb);
}

void Interface::drop_rx(kapi_skb *skb, u64 &counter)
{
	count_local(counter);
	kapi_skb_free(skb);
}

void Interface::requeue(SkbQueue &q)
{
	kapi_skb *skb;
	while (q.pop(skb))
		kapi_skb_requeue(skb);
}

int Interface::header_create(kapi_skb *skb, u16 type, const u8 *daddr)
{
	// RFC 4391 §6 header, then the destination (pseudo header) that xmit consumes.
	encap_write(kapi_skb_push(skb, kEncapLen), type);
	HwAddr dst = daddr ? HwAddr::from(daddr) : make_broadcast_addr(pkey_, 2);
	bytes_copy(kapi_skb_push(skb, kPseudoLen), dst.b, kPseudoLen);
	return int(kHardLen);
}

void Interface::xmit(kapi_skb *skb)
{
	if (kapi_skb_len(skb) < kHardLen)
		return drop(skb, stats_.tx_drop_short);
	if (!is_up())
		return drop(skb, stats_.tx_drop_not_up);
	HwAddr dst = HwAddr::from(kapi_skb_data(skb));
	if (dst.is_multicast()) {
		u8 mgid[kGidLen];
		bytes_copy(mgid, dst.gid(), kGidLen);
		// The P_Key of this link, whatever the neighbour layer filled in (RFC 4391 §4).
		mgid_set_pkey(mgid, pkey_);
		send_multicast(skb, mgid);
	} else {
		// Connected mode (RFC 4755): a peer announcing the RC flag is reached over an RC
		// connection once there is one; until then, or after it failed, over UD. ARP, RARP
		// and IPv6 ND always over UD (ud_only, RFC 4755 §7), counted (cm_tx_arp_ud,
		// cm_tx_nd_ud); parsed from the linear head only.
		if (cm_.connected() && (dst.flags() & kFlagRc)) {
			const u32 head = kapi_skb_headlen(skb);
			const UdOnly ud = ud_only(kapi_skb_data(skb) + kPseudoLen, head > kPseudoLen ? head - kPseudoLen : 0);
			if (ud == UdOnly::Arp)
				count(cm_.ifstats().cm_tx_arp_ud);
			else if (ud == UdOnly::Nd)
				count(cm_.ifstats().cm_tx_nd_ud);
			else if (cm_.xmit(skb, dst, kapi_now_ms()) == CmTable::Verdict::Done)
				return;
		}
		send_unicast(skb, dst);
	}
}

// Posts one UD send; skb data starts at the pseudo header, which is stripped here.
void Interface::send(kapi_skb *skb, Ah &ah, u32 qpn, u32 qkey)
{
	// The UD QP is being drained or repaired (ud_draining_, set before the queue stopped and
	// the tx barrier, so read here under the xmit lock): a WR posted after the drain's last
	// look would be discarded by the reset with no completion and hold a ring slot for good.
	if (ud_draining())
		return drop(skb, stats_.tx_drop_ud_repair);
	kapi_skb_pull(skb, kPseudoLen);
	u32 len = kapi_skb_len(skb);
	// One UD message carries at most the link's IB MTU (RFC 4391 §7): header + UD MTU.
	// Checked before the checksum and the linearize: a 64 KiB SG segment of
	// connected mode sent to a peer in UD fallback would otherwise be summed and copied into
	// an order-4 atomic allocation only to be dropped, and a failed copy lost its ICMP (the
	// route's PMTU never came down).
	if (len > mcast_mtu_ + kEncapLen)
		return send_too_big(skb, qpn == kMulticastQpn);
	// UD carries every packet with its checksum: a CHECKSUM_PARTIAL one (connected mode
	// offers checksum offload, docs/connected.md §9b) is filled in here.
	u16 csum_off = 0;
	if (kapi_skb_csum_partial(skb, &csum_off)) {
		if (kapi_skb_checksum_help(skb) != 0)
			return drop(skb, stats_.tx_drop_csum);
		count_local(stats_.tx_csum_filled);
	}
	if (kapi_skb_headlen(skb) != kapi_skb_len(skb) && kapi_skb_linearize(skb) != 0)
		return drop(skb, stats_.tx_drop_linearize);
	// Under the xmit lock, past the up check (xmit) and the drain check above.
	if (tx_.post(skb, len, ah, qpn, qkey, queue_view(true, false, cm_)) != PostResult::Posted)
		kapi_skb_free(skb);	// counted by the ring
}

// Both CQs are this interface's alone (its UD QP's): a completion of any other QP on them is
// a bug, warned about once and counted (wc_foreign_ctx), never given to a ring.
bool Interface::owns_wc(const UdQp &qp, const kapi_wc &wc) const
{
	return &qp == &qp_ && qp_.owns(wc);
}

// Send completions: every one, whatever the budget (they only free resources).
void Interface::poll_tx()
{
	// A UD QP being drained or repaired: its flushed sends wake no queue (repair_ud_qp does;
	// TxQueueRule::wake).
	const TxQueueView at = queue_view(is_up(), ud_draining(), cm_);
	const u64 foreign = read_stat(stats_.wc_foreign_ctx);
	dispatch_cq(
		send_cq_.get(), 1 << 30, stats_.wc_foreign_ctx,
		[this](UdQp &qp, const kapi_wc &wc) {
			if (!owns_wc(qp, wc) || wrid_kind(wc.wr_id) != WrKind::UdSend)
				return false;	// this CQ carries the UD QP's sends only
			tx_.complete(wc);
			return true;
		},
		[](RcQp &, const kapi_wc &) { return false; },	// no RC QP sends on this CQ
		// One netdev queue for UD and RC, stopped only for the UD ring (TxQueueRule;
		// docs/connected.md §4): RC never holds the wake.
		[this, &at](u32 n) { tx_.completed(n, at); });
	warn_foreign(foreign);
	if (tx_.take_qp_error()) {	// the work checks the QP (UdQp::recover)
		__atomic_store_n(&ud_check_, true, __ATOMIC_RELEASE);
		schedule_work(nd(), 0);
	}
}

// After a poll of a private CQ: foreign completions (another QP's, or a context that is no
// live QP) were counted by the dispatcher; the first one also warns.
void Interface::warn_foreign(u64 before)
{
	if (read_stat(stats_.wc_foreign_ctx) == before || __atomic_exchange_n(&foreign_warned_, true, __ATOMIC_RELAXED))
		return;
	KSTD_WARN_ON(true);
	log_.warn("completion of a QP that is not this interface's on its private CQ (counted: wc_foreign_ctx)");
}

void Interface::tx_timeout()
{
	count(stats_.tx_timeouts);
	// The queue stops only for the UD ring (TxQueueRule): a full ring that does not drain
	// (the UD QP or the port stuck). RC sends are shown beside it: they never stop the queue
	// (a full RC bound holds only the packets of its peers, on their own queues).
	const TxQueueView v = tx_.view(queue_view(is_up(), ud_draining(), cm_));
	log_.warn("transmit timeout: %u of %u UD sends outstanding%s, %u RC sends in flight (bound %u)",
		  v.ud_outstanding, v.ud_size, v.ud_draining ? " (UD QP in repair)" : "", v.rc_inflight, v.rc_limit);
	kapi_napi_schedule(nd());
}

// ---- receive path ----

// The largest receive CQ the driver creates (Interface::up, CmTable::cq_room): the UD ring
// (recv_queue_size) and connected mode's cq_entries: the SRQ (recv_queue_size), the RC
// bound, and per connection its non-SRQ ring and a drain WR (nonsrq_max_recv + 1, at most
// max_nonsrq_conn_qp connections) or, with an SRQ, the drain WR alone (kCmMaxSrqConns). The
// device's max_cqe only lowers it (CmTable::fit_cq). cm::PollBacklog reaches that far back.
static_assert(2 * u64(kMaxQueueSize) + rc_iface_bound(kRcSendRingMax) +
			      u64(kMaxNonSrqConnQp) * (kMaxNonSrqRecv + 1) + kCmMaxSrqConns <=
		      cm::kPollReach * 64,
	      "the poll history covers the deepest receive CQ at NAPI's budget");

int Interface::poll_rx(int budget)
{
	const LocalAddrs me = local_addrs();	// one consistent copy per poll
	const u64 now = kapi_now_ms();
	// RC send completions wait behind our own receive backlog in this CQ: not the peer's
	// lateness (cm::poll_backlog_lag), but no more than since the CQ last turned over (the
	// completions it can hold: the UD ring's and connected mode's, cm::PollBacklog, which
	// reaches the deepest CQ: the static_assert above)
	const u64 lag = cm::poll_backlog_lag(now, rx_backlog_.floor_ms(rx_.size() + cm_.cq_entries()));
	const u64 foreign = read_stat(stats_.wc_foreign_ctx);
	const int done = dispatch_cq(
		recv_cq_.get(), budget, stats_.wc_foreign_ctx,
		[this, &me](UdQp &qp, const kapi_wc &wc) {
			if (!owns_wc(qp, wc) || wrid_kind(wc.wr_id) != WrKind::UdRecv)
				return false;	// the UD QP's sends complete on the send CQ
			if (kapi_skb *skb = rx_.complete(wc))
				receive(skb, wc, me);
			return true;
		},
		[this, now, lag](RcQp &qp, const kapi_wc &wc) {
			cm_.on_wc(qp, wc, now, lag);	// every RC QP shares this CQ (docs/connected.md §4)
			return true;
		},
		[this](u32) {
			if (!ud_draining())
				rx_.repost();
		});
	// Buffers a partial post left queued: retried on every poll; none while the UD QP drains
	// (its repair posts them all again, RecvRing::restart).
	if (!ud_draining())
		rx_.repost();
	cm_.after_poll();	// the SRQ's buffers, likewise
	warn_foreign(foreign);
	rx_backlog_.after(now, done, budget);
	return done;
}

// One filled UD receive buffer: GRH area, then the RFC 4391 §6 packet.
// Counters here are NAPI's alone (single writer, no locked add per packet).
void Interface::receive(kapi_skb *skb, const kapi_wc &wc, const LocalAddrs &a)
{
	const RxLocal me{qpn_, a.lid, a.gid, a.bcast_mgid};
	const u32 len = kapi_skb_len(skb);	// wc.byte_len: the ring refused more than its buffer holds
	if (len < kGrhLen + kEncapLen)
		return drop_rx(skb, stats_.rx_drop_short);
	const u8 *grh = kapi_skb_data(skb);
	RxInfo info{wc.src_qp, wc.slid, wc.grh != 0, grh};
	RxKind kind = classify_rx(info, me);
	if (kind == RxKind::Self)
		return drop_rx(skb, stats_.rx_drop_self);
	// Source address for header_ops->parse: QPN always, GID only with a GRH.
	u8 src_gid[kGidLen] = {};
	if (info.has_grh)
		bytes_copy(src_gid, grh + 8, kGidLen);
	HwAddr src = HwAddr::make(0, wc.src_qp, src_gid);
	kapi_skb_pull(skb, kGrhLen);
	u16 type = 0;
	if (!encap_parse(kapi_skb_data(skb), kapi_skb_len(skb), type))
		return drop_rx(skb, stats_.rx_drop_short);
	if (type == cm::kIdentEthertype) {	// connected mode's identity probe: never the stack's
		const u32 head = kapi_skb_headlen(skb);
		if (kind == RxKind::Host)
			cm_.on_ident_ud(wc.src_qp, kapi_skb_data(skb) + kEncapLen, head > kEncapLen ? head - kEncapLen : 0);
		else
			count(cm_.ifstats().cm_id_rx_bad);
		return kapi_skb_consume(skb);
	}
	bytes_copy(kapi_skb_push(skb, kPseudoLen), src.b, kPseudoLen);
	u32 pt = KAPI_PACKET_HOST;
	if (kind == RxKind::Broadcast) {
		pt = KAPI_PACKET_BROADCAST;
		count_local(stats_.rx_broadcast);
	} else if (kind == RxKind::Multicast) {
		pt = KAPI_PACKET_MULTICAST;
		count_local(stats_.rx_multicast);
	}
	count_local(stats_.rx_packets);
	count_local(stats_.rx_bytes, len - kGrhLen);
	kapi_skb_gro_receive(nd(), skb, type, pt, kHardLen);
}

// One RC receive (RFC 4755 §4: the 4-octet encapsulation header, then the packet; no GRH).
// The source address is the connection's peer, with the RC flag its REQ/REP implied.
void Interface::receive_rc(kapi_skb *skb, const HwAddr &peer, RcStats &st, bool csum_free, u32 qpn)
{
	const u32 len = kapi_skb_len(skb);
	u16 type = 0;
	if (len < kEncapLen || !encap_parse(kapi_skb_data(skb), len, type)) {
		count_local(st.rc_rx_drop_short);
		return kapi_skb_free(skb);
	}
	if (type == cm::kIdentEthertype) {	// an identity echo over connection qpn: the table's
		const u32 head = kapi_skb_headlen(skb);
		cm_.on_ident_rc(peer, qpn, kapi_skb_data(skb) + kEncapLen, head > kEncapLen ? head - kEncapLen : 0);
		// An RC message received like any other: the connection's rx matches the sender's
		// tx (which counts the echo), though the stack never sees it.
		count_local(st.rc_rx_packets);
		count_local(st.rc_rx_bytes, len);
		return kapi_skb_consume(skb);
	}
	const cm::RxCsum csum = cm::rx_csum(kapi_skb_data(skb), csum_free);
	if (csum == cm::RxCsum::UnexpectedMark)
		count_local(st.rc_rx_csum_unexpected);	// RFC 4391 §6: ignored, the stack verifies
	HwAddr src = peer;
	src.b[0] = kFlagRc;
	bytes_copy(kapi_skb_push(skb, kPseudoLen), src.b, kPseudoLen);
	if (csum == cm::RxCsum::Restore) {
		// A forwarded packet gets its checksum filled on the way out; a local one is
		// trusted as the RC transport's CRCs checked it (docs/connected.md §9b).
		if (kapi_skb_gro_receive_partial(nd(), skb, type, KAPI_PACKET_HOST, kHardLen) != 0) {
			count_local(st.rc_rx_drop_csum);	// marked, but not TCP/UDP: never ours
			return kapi_skb_free(skb);
		}
		count_local(st.rc_rx_csum_restored);
	} else {
		kapi_skb_gro_receive(nd(), skb, type, KAPI_PACKET_HOST, kHardLen);
	}
	count_local(st.rc_rx_packets);
	count_local(st.rc_rx_bytes, len);
	count_local(stats_.rx_packets);
	count_local(stats_.rx_bytes, len);
}

int Interface::poll(int budget)
{
	poll_tx();
	if (!rx_.filled() && rx_.fill_wanted() && !ud_draining() &&
	    !kstd::ok(rx_.fill(rx_.buf_size())) &&
	    !__atomic_exchange_n(&fill_warned_, true, __ATOMIC_RELAXED))
		log_.err("cannot post %u receive buffers of %u bytes (%u posted): retried on every poll", rx_.size(),
			 rx_.buf_size(), rx_.posted());
	// Always polled: a partly filled ring already has buffers the HCA may complete, and an
	// unpolled CQ with entries makes the REPORT_MISSED_EVENTS re-arm below reschedule forever.
	int done = poll_rx(budget);
	// A flushed UD receive outside a drain: the QP is in ERROR (IBA 10.3.1), with its fatal
	// event still to come or none at all (a move to ERR raises none): the work repairs it.
	if (rx_.stopped() && !ud_draining() && !ud_repair_.gave_up())
		ud_error_seen();
	if (done < budget && kapi_napi_complete_done(nd(), done)) {
		// Re-arm both CQs; a completion that slipped in meanwhile means poll again.
		int a = kapi_cq_arm(recv_cq_.get());
		int b = kapi_cq_arm(send_cq_.get());
		if (a > 0 || b > 0)
			kapi_napi_schedule(nd());
	}
	return done;
}

} // namespace ipoib
