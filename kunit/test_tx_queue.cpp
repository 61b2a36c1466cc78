// SPDX-License-Identifier: GPL-2.0
// test_tx_queue.cpp - the one stop/wake rule of the interface's netdev queue (ipoib_tx_queue.h,
// docs/connected.md §4): it stops only when the UD send ring is full, whatever RC holds; a
// stopped queue wakes at half the UD ring, whatever RC holds, and never while the interface
// is down or its UD QP is drained or repaired (Interface::repair_ud_qp wakes it then).
#include "ktest.h"
#include "core/rings/ipoib_tx_queue.h"

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

// Stop and wake never hold on the same view, and between them lie at least half the ring's
// completions: a post that stops the queue cannot wake it on its own re-check unless
// completions came between, and the queue does not flap once per post and completion. RC
// values, at and beyond their bound, change nothing (they are shown, not decided on).
KTEST(tx_queue, a_stop_is_not_undone_without_completions)
{
	for (u32 size = 1; size <= 256; size *= 2) {
		for (u32 out = 0; out <= size; out++) {
			for (u32 rc = 0; rc <= 2; rc++) {
				const TxQueueView v = view(out, size, rc * 64, 128);
				EXPECT_FALSE(TxQueueRule::stop(v) && TxQueueRule::wake(v));
				// the queue stops exactly at a full ring, wakes only at half or below
				EXPECT_EQ(TxQueueRule::stop(v), out == size);
				if (TxQueueRule::wake(v))
					EXPECT_GE(size - out, size - size / 2);
			}
		}
	}
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

// The stop/complete race of TxRing::post and TxRing::completed (ipoib_tx_ring.cpp), as a model
// of their shared-memory steps, each atomic and, with the fences between them, sequentially
// consistent. The post, having published its head: P1 reads the ring and asks stop (done if
// not), P2 stops the queue, P3 re-reads the ring and wakes it if wake says so. A completion of
// n sends: C1 publishes the tail, C2 reads the stop flag, C3 (if it read stopped) reads the
// ring and wakes if wake says so. Every interleaving of the two must leave a queue that is
// running, or stopped with more than half the ring outstanding (a completion is still owed,
// and it wakes the queue): never stopped with half or less, where no completion may follow.
namespace race {

struct Outcome {
	bool stopped;
	u32 out;
};

// One interleaving: bit i of order says whether step i (of 6) is the poster's (1) or the
// completer's (0). Steps of a side whose guard failed are no-ops.
Outcome run(u32 size, u32 before, u32 n, u32 order, bool recheck)
{
	u32 head = before + 1, tail = 0;	// the post's head already published
	bool stopped = false;
	u32 p = 0, c = 0;	// next step of each side
	bool p_live = true, c_saw_stopped = false;
	for (u32 i = 0; i < 6; i++) {
		if (order & (1u << i)) {
			switch (p++) {
			case 0: p_live = TxQueueRule::stop(view(head - tail, size, 0, 4 * size)); break;
			case 1: if (p_live) stopped = true; break;
			case 2:
				if (p_live && recheck && TxQueueRule::wake(view(head - tail, size, 0, 4 * size)))
					stopped = false;
				break;
			}
		} else {
			switch (c++) {
			case 0: tail += n; break;
			case 1: c_saw_stopped = stopped; break;
			case 2:
				if (c_saw_stopped && TxQueueRule::wake(view(head - tail, size, 0, 4 * size)))
					stopped = false;
				break;
			}
		}
	}
	return {stopped, head - tail};
}

// How many interleavings of all (ring size, outstanding before the post, completed n) leave
// the queue stranded.
// Set bits of x (not __builtin_popcount: without -mpopcnt it is a libgcc call, which the
// kernel does not link).
u32 bits_set(u32 x)
{
	u32 n = 0;
	for (; x; x &= x - 1)
		n++;
	return n;
}

u32 stranded(bool recheck, u32 &runs)
{
	u32 bad = 0;
	runs = 0;
	for (u32 size = 1; size <= 64; size *= 2)
		for (u32 before = 0; before < size; before++)
			for (u32 n = 1; n <= before + 1; n++)
				for (u32 order = 0; order < 64; order++) {
					if (bits_set(order) != 3)
						continue;	// three steps each
					const Outcome o = run(size, before, n, order, recheck);
					runs++;
					if (o.stopped && o.out <= size / 2)
						bad++;
				}
	return bad;
}

} // namespace race

KTEST(tx_queue, the_stop_complete_race_never_strands_the_queue)
{
	u32 runs = 0;
	EXPECT_EQ(race::stranded(true, runs), 0u);
	EXPECT_GT(runs, 0u);
}

// The model sees the race it guards: without the post's re-check, a completion that published
// the tail after the post's check and read the flag before its stop strands the queue.
KTEST(tx_queue, without_the_recheck_the_race_strands_the_queue)
{
	u32 runs = 0;
	EXPECT_GT(race::stranded(false, runs), 0u);
}

KTEST_SUITE(tx_queue, KTEST_CASE(tx_queue, stops_only_at_a_full_ud_ring),
	    KTEST_CASE(tx_queue, a_stop_is_not_undone_without_completions),
	    KTEST_CASE(tx_queue, wakes_at_half_the_ud_ring_whatever_rc_holds),
	    KTEST_CASE(tx_queue, no_wake_while_the_ud_qp_is_repaired_or_down),
	    KTEST_CASE(tx_queue, the_stop_complete_race_never_strands_the_queue),
	    KTEST_CASE(tx_queue, without_the_recheck_the_race_strands_the_queue));

} // namespace ktest_tx_queue
