// SPDX-License-Identifier: GPL-2.0
// ipoib_tx_queue.h - the one rule for the interface's one netdev queue (docs/connected.md §4
// "One netdev queue, one rule"; host-compilable, pure, for KUnit): when a site stops it and
// when a stopped queue may wake. Every site that stops or wakes the queue in the datapath asks
// TxQueueRule over a TxQueueView of the same inputs: the UD send ring's post (stop when it
// filled, and the re-check after the stop) and its completions (wake). Outside the datapath
// the queue is stopped and started by the interface's own life (open, stop, ethtool -G) and
// by the UD QP's repair (Interface::repair_ud_qp: ud_draining_ set, the queue stopped, woken
// only when the repair succeeded).
#pragma once

#include "kstd/base.h"

namespace ipoib {

using kstd::u32;

// What a site knows when it decides. The RC fields are not inputs of the rule: RC sends have
// their own bounds (each connection's send ring, the interface's RcSendBudget) and what does
// not fit waits on its peer's own queue, so no set of connections stops the queue, and a
// stopped queue never waits for RC to wake (UD never waits on RC). They are in the view for
// the transmit timeout's line, which shows both sides.
struct TxQueueView {
	u32 ud_outstanding = 0;	// UD sends posted and not completed
	u32 ud_size = 0;	// the UD send ring's slots
	bool up = false;	// the interface is open (Interface::is_up)
	bool ud_draining = false;	// the UD QP is drained or repaired: only the repair wakes
	u32 rc_inflight = 0;	// RC sends in flight, all connections (shown, not decided on)
	u32 rc_limit = 0;	// the interface's RC bound (shown, not decided on)
};

struct TxQueueRule {
	// The queue stops only when the interface as a whole is out of send resources: the UD
	// ring (the one every datagram, ARP/ND and multicast included, needs) is full.
	static bool stop(const TxQueueView &v) { return v.ud_outstanding >= v.ud_size; }
	// A stopped queue wakes when the UD ring is down to half (hysteresis: not one wake per
	// completion), the interface is up, and the UD QP is not being drained or repaired (a
	// post then would be dropped, and the repair wakes the queue itself once the QP is back
	// in RTS, Interface::repair_ud_qp).
	static bool wake(const TxQueueView &v)
	{
		return v.up && !v.ud_draining && v.ud_outstanding <= v.ud_size / 2;
	}
};

} // namespace ipoib
