// SPDX-License-Identifier: GPL-2.0
// ipoib_if_rings.cpp - ethtool -G: the UD send and receive rings resized, the interface up or
// down. A UD QP's work-queue sizes are fixed when it is created (IBA 11.2.4.2: Modify QP may
// resize them only where the HCA says so), so a new size is a new UD QP, with a new QPN and
// so a new link-layer address (RFC 4391 §9.1.1), which the shim sets as an address change
// (NETDEV_CHANGEADDR). An open interface is stopped and reopened around it, keeping IFF_UP, its
// addresses and routes (as the in-tree driver does): the carrier drops until the broadcast
// group is joined again. Whether to reopen is the kernel's IFF_UP, not whether it was open: an
// up interface that an earlier resize left closed (no UD QP, or a failed reopen) opens again.
// NAPI goes through napi_on/napi_off, which keep its state, so no failure path leaves it
// enabled twice or disabled twice. Connected mode's SRQ and RC rings keep their load-time sizes.
// Also here, as the other path that drains the UD QP: its repair from ERROR in place (same
// QP, same rings; ipoib_ud_repair.h, docs/datagram.md).
#include "ipoib_if.h"
#include "core/ipoib_params.h"

namespace ipoib {

static_assert(kMaxRing == kMaxQueueSize, "ethtool's maximum is the module parameters'");

namespace {
constexpr u32 kDrainMs = 5000;	// the UD QP's flushed receives and sends: as stop()'s bound
constexpr u32 kDrainStepMs = 10;
u32 max_u32(u32 a, u32 b) { return a > b ? a : b; }
} // namespace

// The receive CQ holds the UD receives and connected mode's entries (docs/connected.md §4):
// a new UD share resizes it under the lock connection setup resizes it with. The CQ may stay
// larger than needed (a failed shrink costs memory only), never smaller.
Status CmTable::set_ud_share(u32 ud_entries)
{
	kstd::MutexGuard g(cq_lock_);
	const u32 total = ud_entries + cq_entries();
	if (kapi_cq_resize(cq(), int(total)) != 0)
		return Status::NoMem;
	cq_ud_ = ud_entries;
	return Status::Ok;
}

// The old UD QP to ERROR with NAPI on, so that NAPI reaps every receive and send it flushes
// (IBA 10.3.1: in Error every outstanding WR completes; receives counted in rx_flushed) before
// the QP, and the rings that name those buffers, go: both CQs stay (the receive CQ is shared
// with connected mode), so no completion of the old QP may be left in either for the new
// rings to take. While it drains NAPI posts no receives (a ring not yet filled, the one a -G
// on a down interface built, would be filled into the QP in ERROR behind the wait's back).
void Interface::drain_ud_qp()
{
	if (!qp_.raw())
		return;
	napi_off();	// (off already: stop() ran, or the interface was down)
	__atomic_store_n(&ud_draining_, true, __ATOMIC_RELEASE);
	napi_on();
	qp_.to_error();
	kapi_napi_schedule(nd());
	u32 waited = 0;
	while ((rx_.posted() || tx_.outstanding()) && waited < kDrainMs) {
		kapi_msleep(kDrainStepMs);
		waited += kDrainStepMs;
	}
	if (rx_.posted() || tx_.outstanding()) {
		count(stats_.ring_resize_errors);
		log_.warn("%u receives and %u sends of the old UD QP not completed after %u ms", rx_.posted(),
			  tx_.outstanding(), kDrainMs);
	}
	napi_off();
	__atomic_store_n(&ud_draining_, false, __ATOMIC_RELEASE);
	poll_tx();
	qp_.destroy();
	rx_.release();
	tx_.drain();
}

// ---- the UD QP in ERROR (ipoib_ud_repair.h) ----

void Interface::ud_error_seen()
{
	if (ud_repair_.wanted())
		return;	// the work is on it
	ud_repair_.request();
	if (nd())
		schedule_work(nd(), 0);
}

// The work, interface up. Under rtnl (trylock, as the broadcast join's MTU: ndo_stop holds
// rtnl while it cancels this work), which serialises the repair with open/stop, ring
// resizes and mode changes, and which napi_on/napi_off need.
void Interface::repair_ud()
{
	if (!ud_repair_.wanted())
		return;
	if (!kapi_rtnl_trylock()) {
		schedule_work(nd(), 10);
		return;
	}
	if (!is_up() || !qp_.raw()) {	// open() asks again
		kapi_rtnl_unlock();
		return;
	}
	u32 wait = 0;
	const UdRepair::Step step = ud_repair_.next(kapi_qp_state(qp_.raw()), kapi_now_ms(), wait);
	switch (step) {
	case UdRepair::Step::Later:
		schedule_work(nd(), wait);
		break;
	case UdRepair::Step::Rearm:
	case UdRepair::Step::Now: {
		if (step == UdRepair::Step::Rearm)
			count(stats_.ud_repair_rearms);	// one more attempt after giving up
		const Status st = repair_ud_qp();
		const UdRepair::Step after = ud_repair_.done(kstd::ok(st), kapi_now_ms());
		count(kstd::ok(st) ? stats_.ud_qp_error_recoveries : stats_.ud_qp_error_recovery_failures);
		if (after == UdRepair::Step::Later || after == UdRepair::Step::GaveUp)
			schedule_work(nd(), 0);	// next() says how long the back-off (or the rearm) is
		if (after == UdRepair::Step::GaveUp) {
			// The queue stays stopped (ud_draining_): the carrier goes too and is held off
			// (UdRepair::carrier_held: the broadcast join does not turn it on), so the stack
			// routes around the link and the netdev watchdog does not fire on it. A rearmed
			// attempt that succeeds releases it (the join's work turns it on); ifdown/ifup
			// starts over at once.
			count(stats_.ud_carrier_held);
			if (carrier_) {
				carrier_ = false;
				kapi_netdev_carrier(nd(), 0);
			}
		}
		u32 missed = 0;
		if (!repair_log_.allow(kapi_now_ms(), missed))
			break;
		if (kstd::ok(st))
			log_.warn("UD QP 0x%06x: in ERROR: reset and back to RTS (%u more not logged; counted ud_qp_error_recoveries)",
				  qpn_, missed);
		else if (after == UdRepair::Step::GaveUp)
			log_.err("UD QP 0x%06x: still in ERROR after %u repairs failed (last %d): carrier held off, the repair rearmed in %u ms (%u more not logged; counted ud_carrier_held, ud_repair_rearms)",
				 qpn_, UdRepair::kMaxAttempts, kstd::to_errno(st),
				 UdRepair::rearm_delay_ms(ud_repair_.rearms()), missed);
		else
			log_.err("UD QP 0x%06x: cannot repair it from ERROR: %d, retried after a back-off (%u more not logged; counted ud_qp_error_recovery_failures)",
				 qpn_, kstd::to_errno(st), missed);
		break;
	}
	default:
		break;
	}
	kapi_rtnl_unlock();
}

// rtnl held, interface up, the QP in ERROR (or left half-way by a failed repair).
// 1. Quiesce: ud_draining_ first, then the queue stopped and the tx barrier, so every xmit
// after the barrier sees it and posts no UD send (dropped, tx_drop_ud_repair), and every one
// before it has its WR counted in the ring; nothing wakes the queue meanwhile (every wake
// asks TxQueueRule, which checks the flag; RC never wakes the queue; a wake that raced the
// stop only lets RC sends through). NAPI, on, reaps every WR the Error state flushed (IBA 10.3.1: each
// outstanding WR completes; receives counted rx_flushed, not rx_wc_errors; sends
// tx_wc_errors), reposting no receive. Only then the reset: it discards what the QP still
// holds with no completion, and a completion of the old QP left in a CQ would name a slot
// about to be posted again.
// 2. RESET -> INIT -> RTR -> RTS on the same QP (UdQp::reset_to_rts): same QPN, P_Key index,
// Q_Key; its multicast attachments survive the reset (ipoib_ud_qp.h), so no group is left
// or joined again. 3. The same receive buffers posted again (RecvRing::restart), NAPI on,
// the queue woken. On a failure ud_draining_ stays set and the queue stopped: nothing is
// posted into a QP that is not in RTS until a retry succeeds (repair_ud holds the carrier
// off when it gives up, and rearms the repair; open() clears the flag).
Status Interface::repair_ud_qp()
{
	constexpr u32 kRepairDrainMs = 2000;
	__atomic_store_n(&ud_draining_, true, __ATOMIC_RELEASE);
	kapi_netdev_stop_queue(nd());
	kapi_netdev_tx_barrier(nd());	// orders the flag before every later xmit (the xmit lock)
	// A QP that a failed attempt left stopped may be found in RTS or SQE (UdRepair): to
	// ERROR first, so that whatever it still holds is flushed and polled before the reset.
	const int state = kapi_qp_state(qp_.raw());
	if (state == KAPI_QPS_RTS || state == KAPI_QPS_SQE)
		qp_.to_error();
	napi_on();
	kapi_napi_schedule(nd());
	u32 waited = 0;
	while ((rx_.posted() || tx_.outstanding()) && waited < kRepairDrainMs) {
		kapi_msleep(kDrainStepMs);
		waited += kDrainStepMs;
	}
	napi_off();
	poll_tx();	// completions that arrived after the last poll
	Status st = Status::TimedOut;
	if (!rx_.posted() && !tx_.outstanding())
		st = qp_.reset_to_rts();
	else
		log_.warn("UD QP 0x%06x: %u receives and %u sends not flushed %u ms after ERROR: not reset yet", qpn_,
			  rx_.posted(), tx_.outstanding(), kRepairDrainMs);
	if (kstd::ok(st)) {
		rx_.restart();	// NAPI off: the ring's one consumer here
		__atomic_store_n(&ud_draining_, false, __ATOMIC_RELEASE);
	}
	napi_on();
	if (kstd::ok(st))
		kapi_netdev_wake_queue(nd());
	kapi_napi_schedule(nd());
	return st;
}

// The new UD QP and rings at tx/rx entries (the CQs already hold them); NoMem leaves no QP.
Status Interface::build_ud_qp(u32 tx, u32 rx)
{
	KSTD_TRY(rx_.alloc(rx));
	KSTD_TRY(tx_.alloc(tx));
	KSTD_TRY(qp_.create(pd_.get(), send_cq_.get(), recv_cq_.get(), tx, rx));
	qpn_ = qp_.qpn();
	rx_.bind(nd(), RecvTarget{qp_.raw(), nullptr}, lkey_);
	tx_.bind(nd(), qp_.raw(), lkey_);
	if (!child_)
		return qp_.to_rts(port_, 0);	// with the link's Q_Key as UdQp knows it (0 before a join)
	pkey_ok_ = pkey_check();	// RTS now, or when a P_Key event brings the P_Key
	return Status::Ok;
}

Status Interface::resize_cqs(u32 tx, u32 rx)
{
	if (kapi_cq_resize(send_cq_.get(), int(tx)) != 0)
		return Status::NoMem;
	if (cm_.available())
		return cm_.set_ud_share(rx);
	return kapi_cq_resize(recv_cq_.get(), int(rx)) != 0 ? Status::NoMem : Status::Ok;
}

// rtnl held (ethtool). addr: the link-layer address afterwards (the shim announces a change).
Status Interface::set_rings(u32 tx_req, u32 rx_req, u8 *addr, const char **why)
{
	ParseError err;
	RingSizes r;
	bytes_copy(addr, HwAddr::make(addr_flags(), qpn_, gid_).b, kHwAddrLen);
	if (!kstd::ok(validate_ring_sizes(tx_req, rx_req, r, err))) {
		count(stats_.ring_resize_errors);
		log_.warn("invalid ring sizes rx %u tx %u: %s", rx_req, tx_req, err.what);
		*why = err.what;
		return Status::Invalid;
	}
	if (r.rx_rounded || r.tx_rounded)
		log_.info("ring sizes rx %u tx %u rounded up to rx %u tx %u (powers of two)", rx_req, tx_req, r.rx, r.tx);
	const u32 old_rx = rx_.size(), old_tx = tx_.size();
	if (qp_.raw() && r.rx == old_rx && r.tx == old_tx && (is_up() || !kapi_netdev_admin_up(nd())))
		return Status::Ok;	// (an up interface left closed goes on: it is reopened below)
	if (is_up()) {
		// As ndo_stop, but IFF_UP stays: no xmit may be inside when the QP goes (the
		// queue stopped first, then every xmit that passed the up check finished).
		__atomic_store_n(&up_, false, __ATOMIC_RELEASE);
		kapi_netdev_stop_queue(nd());
		kapi_netdev_tx_barrier(nd());
		stop();
	}
	drain_ud_qp();
	// The CQs grow before the QP (a failure keeps the old sizes), shrink after it.
	u32 tx = r.tx, rx = r.rx;
	Status st = resize_cqs(max_u32(old_tx, tx), max_u32(old_rx, rx));
	if (!kstd::ok(st)) {
		*why = "the completion queues cannot grow to these sizes";
		tx = old_tx;
		rx = old_rx;
	}
	Status built = build_ud_qp(tx, rx);
	if (!kstd::ok(built) && (tx != old_tx || rx != old_rx)) {
		if (kstd::ok(st))
			*why = "no memory for a UD QP of these sizes";
		st = built;
		qp_.destroy();
		tx = old_tx;
		rx = old_rx;
		built = build_ud_qp(tx, rx);
	}
	if (kstd::ok(built)) {
		kstd::ignore(resize_cqs(tx, rx));	// a CQ left larger only costs memory
		bytes_copy(addr, HwAddr::make(addr_flags(), qpn_, gid_).b, kHwAddrLen);
	}
	if (!kstd::ok(built)) {
		// Without a UD QP the interface stays closed (open() refuses) until a later -G
		// builds one and, IFF_UP still set, opens it; NAPI stays off (ndo_stop's napi_off
		// then does nothing).
		count(stats_.ring_resize_errors);
		log_.err("cannot create a UD QP (%d): no traffic until ethtool -G succeeds", kstd::to_errno(built));
		qp_.destroy();
		rx_.release();
		*why = "no memory for a UD QP";
		return built;
	}
	if (!kstd::ok(st)) {
		count(stats_.ring_resize_errors);
		log_.warn("cannot resize the rings to rx %u tx %u (%d): they stay rx %u tx %u", r.rx, r.tx,
			  kstd::to_errno(st), rx, tx);
	} else {
		count(stats_.ring_resizes);
		log_.info("rings rx %u tx %u (were rx %u tx %u): UD QPN 0x%06x", rx, tx, old_rx, old_tx, qpn_);
	}
	if (kapi_netdev_admin_up(nd())) {
		const Status o = open();
		if (!kstd::ok(o)) {
			count(stats_.ring_resize_errors);
			log_.err("cannot reopen after the ring resize (%d): no carrier until the next -G or down/up",
				 kstd::to_errno(o));
			if (kstd::ok(st)) {
				*why = "the interface could not be reopened";
				st = o;
			}
		}
	}
	return st;
}

} // namespace ipoib
