// SPDX-License-Identifier: GPL-2.0
// test_cm_notes.cpp (host only): what Connection::feed has to log under the table lock waits
// for the unlock (ipoib_cm_notes.h: with netconsole on the device a printk
// under our locks re-enters xmit, which takes them). The host's spinlocks count how many are
// held and kapi_vlog counts the lines printed meanwhile (kunit/host/host.c).
#include "core/cm/ipoib_cm_notes.h"
#include "fake_verbs.h"
#include "kstd/lock.h"
#include "ktest.h"

extern "C" int host_vlog_under_spin;
extern "C" long host_vlog_lines;
extern "C" char host_vlog_last[256];

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

bool has_text(const char *s, const char *what)
{
	for (; *s; s++) {
		usize i = 0;
		while (what[i] && s[i] == what[i])
			i++;
		if (!what[i])
			return true;
	}
	return false;
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

// A peer triggers connection events at its rate (REQs, REJs, DREQs, errors it provokes): what
// their notes print is rate-limited (LogLimit, 10 lines per 5 s, all interfaces together), the
// first line after a pause says how many were left out, and every event stays counted.
KTEST(cm_notes, rate_limited_against_a_peer_flood)
{
	kapi_msleep(2 * ipoib::LogLimit::kIntervalMs);	// a fresh interval: earlier cases printed
	const long before = host_vlog_lines;
	for (u32 i = 0; i < 1000; i++) {
		FeedNotes notes(kstd::log);	// one feed per table lock, each with one note
		notes.add(ignored(0x400 + i));
	}
	for (u32 i = 0; i < 1000; i++)	// and the feeds that print themselves (Connection::feed)
		ignored(0x800 + i).print(kstd::log);
	{
		FeedNotes notes(kstd::log);	// a table walk with more than it keeps
		for (u32 i = 0; i < 3 * kFeedNotesMax; i++)
			notes.add(ignored(0xc00 + i));
	}
	EXPECT_LE(host_vlog_lines - before, long(ipoib::LogLimit::kBurst));
	EXPECT_GE(host_vlog_lines - before, 1l);
	// the next interval prints again and names what was left out
	kapi_msleep(ipoib::LogLimit::kIntervalMs);
	ignored(0x123).print(kstd::log);
	EXPECT_LE(host_vlog_lines - before, long(ipoib::LogLimit::kBurst) + 1);
	EXPECT_TRUE(has_text(host_vlog_last, "more connection notes not logged"));
	EXPECT_FALSE(has_text(host_vlog_last, "(0 more"));	// the flood's lines were counted
	kapi_msleep(ipoib::LogLimit::kIntervalMs);	// leave a fresh interval behind
}

// The err lines (a step overflow, a lost step) have a limit of their own: a flood of debug
// notes (ignored events, which any peer can provoke) never hides them.
KTEST(cm_notes, errors_not_hidden_by_debug_notes)
{
	kapi_msleep(2 * ipoib::LogLimit::kIntervalMs);	// a fresh interval: earlier cases printed
	for (u32 i = 0; i < 1000; i++)
		ignored(0x400 + i).print(kstd::log);
	const long before = host_vlog_lines;
	ignored(0x401).print(kstd::log);
	EXPECT_EQ(host_vlog_lines, before);	// the debug notes are at their limit
	FeedNote over = ignored(0x500);
	over.ignored = false;
	over.overflow = true;
	over.print(kstd::log);
	EXPECT_EQ(host_vlog_lines, before + 1);
	EXPECT_TRUE(has_text(host_vlog_last, "CM step overflow"));
	FeedNote lost = over;
	lost.overflow = false;
	lost.lost = true;
	{
		FeedNotes notes(kstd::log);	// kept, and one more past kFeedNotesMax: its count line
		for (u32 i = 0; i < kFeedNotesMax; i++)
			notes.add(lost);
		notes.add(lost);
	}
	EXPECT_EQ(host_vlog_lines, before + 1 + long(kFeedNotesMax) + 1);
	EXPECT_TRUE(has_text(host_vlog_last, "more connection event notes not printed"));
	EXPECT_TRUE(has_text(host_vlog_last, "; 0 more lines not logged"));	// no error was left out
	// The err lines are limited too, by their own limit.
	for (u32 i = 0; i < 1000; i++)
		over.print(kstd::log);
	EXPECT_EQ(host_vlog_lines, before + long(ipoib::LogLimit::kBurst));
	kapi_msleep(ipoib::LogLimit::kIntervalMs);	// leave a fresh interval behind
}

KTEST_SUITE(cm_notes, KTEST_CASE(cm_notes, printed_after_the_unlock), KTEST_CASE(cm_notes, bounded_and_counted),
	    KTEST_CASE(cm_notes, rate_limited_against_a_peer_flood),
	    KTEST_CASE(cm_notes, errors_not_hidden_by_debug_notes));
