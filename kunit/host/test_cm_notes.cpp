// SPDX-License-Identifier: GPL-2.0
// test_cm_notes.cpp (host only): what Connection::feed has to log under the table lock waits
// for the unlock (ipoib_cm_notes.h: with netconsole on the device a printk
// under our locks re-enters xmit, which takes them). The host's spinlocks count how many are
// held and kapi_vlog counts the lines printed meanwhile (kunit/host/host.c).
#include "ipoib_cm_notes.h"
#include "kstd/lock.h"
#include "ktest.h"

extern "C" int host_vlog_under_spin;

using namespace ipoib;

namespace {

FeedNote ignored(u32 qpn)
{
	FeedNote n;
	n.qpn = qpn;
	n.event = u8(cm::Ev::Close);
	n.state = u8(cm::State::Closed);
	n.ignored = true;
	return n;
}

} // namespace

// Declared before the table lock's guard, as the table does: every note prints, and none
// while the lock is held.
KTEST(cm_notes, printed_after_the_unlock)
{
	const int before = host_vlog_under_spin;
	kstd::SpinLock lock(KAPI_LOCK_IF_CM);
	{
		FeedNotes notes(kstd::log);
		kstd::SpinIrqSaveGuard g(lock);
		for (u32 i = 0; i < 3; i++)
			notes.add(ignored(0x100 + i));
		FeedNote quiet;	// nothing to say: not kept
		notes.add(quiet);
		FeedNote lost = ignored(0x200);
		lost.ignored = false;
		lost.lost = true;
		notes.add(lost);
		EXPECT_EQ(notes.kept(), 4u);
	}
	EXPECT_EQ(host_vlog_under_spin, before);
}

// Past kFeedNotesMax the rest are counted in one line; an error among them is not lost in a
// debug line.
KTEST(cm_notes, bounded_and_counted)
{
	const int before = host_vlog_under_spin;
	kstd::SpinLock lock(KAPI_LOCK_IF_CM);
	{
		FeedNotes notes(kstd::log);
		kstd::SpinIrqSaveGuard g(lock);
		for (u32 i = 0; i < kFeedNotesMax + 5; i++)
			notes.add(ignored(i));
		EXPECT_EQ(notes.kept(), kFeedNotesMax);
		EXPECT_EQ(notes.more(), 5u);
		EXPECT_FALSE(notes.more_errors());
		FeedNote over = ignored(0x300);
		over.overflow = true;
		notes.add(over);
		EXPECT_EQ(notes.more(), 6u);
		EXPECT_TRUE(notes.more_errors());
	}
	EXPECT_EQ(host_vlog_under_spin, before);
}

KTEST_SUITE(cm_notes, KTEST_CASE(cm_notes, printed_after_the_unlock), KTEST_CASE(cm_notes, bounded_and_counted));
