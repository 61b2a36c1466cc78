// SPDX-License-Identifier: GPL-2.0
// test_tx_queue.cpp - the one stop/wake rule of the interface's netdev queue (ipoib_tx_queue.h,
// docs/connected.md §4): it stops only when the UD send ring is full, whatever RC holds; a
// stopped queue wakes at half the UD ring, whatever RC holds, and never while the interface
// is down or its UD QP is drained or repaired (Interface::repair_ud_qp wakes it then).
#include "ktest.h"
#include "ipoib_tx_queue.h"

namespace ktest_tx_queue {

using namespace ipoib;

TxQueueView view(u32 ud_out, u32 ud_size, u32 rc_in, u32 rc_limit, bool up = true, bool draining = false)
{
	TxQueueView v;
	v.ud_outstanding = ud_out;
	v.ud_size = ud_size;
	v.up = up;
	v.ud_draining = draining;
	v.rc_inflight = rc_in;
	v.rc_limit = rc_limit;
	return v;
}

// The UD ring is the one resource every datagram needs: full, the queue stops; one slot
// free, it runs.
KTEST(tx_queue, stops_only_at_a_full_ud_ring)
{
	EXPECT_TRUE(TxQueueRule::stop(view(64, 64, 0, 128)));
	EXPECT_FALSE(TxQueueRule::stop(view(63, 64, 0, 128)));
	EXPECT_FALSE(TxQueueRule::stop(view(0, 64, 0, 128)));
	EXPECT_TRUE(TxQueueRule::stop(view(1, 1, 0, 4)));	// a ring of one
}

// Stalled connections holding the whole RC bound stop nothing: their peers' packets wait on
// their own queues, UD (ARP/ND, multicast, datagram peers) and the other RC peers go on.
// (The old rule stopped the queue at the RC bound: this case fails on it.)
KTEST(tx_queue, a_full_rc_bound_never_stops_the_queue)
{
	EXPECT_FALSE(TxQueueRule::stop(view(0, 64, 128, 128)));
	EXPECT_FALSE(TxQueueRule::stop(view(63, 64, 128, 128)));
	EXPECT_FALSE(TxQueueRule::stop(view(0, 64, 200, 128)));	// whatever the count reads
}

// A queue stopped for the UD ring wakes at half of it; RC in flight does not hold the wake
// (the old rule waited for RC to come down to half of its bound too: this case fails on it).
KTEST(tx_queue, wakes_at_half_the_ud_ring_whatever_rc_holds)
{
	EXPECT_TRUE(TxQueueRule::wake(view(32, 64, 0, 128)));
	EXPECT_FALSE(TxQueueRule::wake(view(33, 64, 0, 128)));	// hysteresis: not per completion
	EXPECT_TRUE(TxQueueRule::wake(view(0, 64, 0, 128)));
	EXPECT_TRUE(TxQueueRule::wake(view(32, 64, 128, 128)));	// RC at its bound
	EXPECT_TRUE(TxQueueRule::wake(view(0, 64, 127, 128)));
	EXPECT_TRUE(TxQueueRule::wake(view(0, 1, 4, 4)));	// a ring of one, emptied
	EXPECT_FALSE(TxQueueRule::wake(view(1, 1, 0, 4)));
}

// The UD QP's drain or repair (ud_draining_ set before the queue stopped): no completion
// wakes the queue, flushed ones included; the repair wakes it once the QP is back in RTS.
// Nor does anything wake the queue of an interface that is down.
KTEST(tx_queue, no_wake_while_the_ud_qp_is_repaired_or_down)
{
	EXPECT_FALSE(TxQueueRule::wake(view(0, 64, 0, 128, true, true)));
	EXPECT_FALSE(TxQueueRule::wake(view(0, 64, 0, 128, false, false)));
	EXPECT_FALSE(TxQueueRule::wake(view(0, 64, 0, 128, false, true)));
}

// The post's re-check after its stop uses the same rule: a completion between the check and
// the stop that left the ring above half leaves the queue stopped, and one still to come
// (there are more than half outstanding) wakes it; one that left it at half or below means
// the poster wakes it itself.
KTEST(tx_queue, stop_then_recheck_never_strands_the_queue)
{
	for (u32 size = 1; size <= 64; size *= 2) {
		for (u32 out = 0; out <= size; out++) {
			const TxQueueView v = view(out, size, 0, 4 * size);
			// stopped and not woken: a completion is still owed to wake it
			if (!TxQueueRule::wake(v))
				EXPECT_GT(out, 0u);
			// not stopped at a ring with room
			if (out < size)
				EXPECT_FALSE(TxQueueRule::stop(v));
		}
	}
}

KTEST_SUITE(tx_queue, KTEST_CASE(tx_queue, stops_only_at_a_full_ud_ring),
	    KTEST_CASE(tx_queue, a_full_rc_bound_never_stops_the_queue),
	    KTEST_CASE(tx_queue, wakes_at_half_the_ud_ring_whatever_rc_holds),
	    KTEST_CASE(tx_queue, no_wake_while_the_ud_qp_is_repaired_or_down),
	    KTEST_CASE(tx_queue, stop_then_recheck_never_strands_the_queue));

} // namespace ktest_tx_queue
