// SPDX-License-Identifier: GPL-2.0
// ipoib_cm_notes.h - what a Connection's feed() has to log, kept until no lock of ours is
// held (with netconsole on this device a printk sends over it), and printed at a bounded rate.
// Pure but for the log: host-tested
// (kunit/host/test_cm_notes.cpp).
#pragma once

#include "core/cm/fsm/ipoib_cm_state.h"
#include "core/ipoib_log_limit.h"
#include "kstd/log.h"

namespace ipoib {

// A peer makes connection events at its own rate (REQs, REJs, DREQs, the errors it provokes),
// so the notes they leave are printed at LogLimit's rate, one limit for every interface, as
// printk_ratelimit is one for the kernel; each line printed after a gap says how many were left
// out, and every event behind a note is counted in ethtool -S anyway. The err lines (a step
// overflow, a lost step) have a limit of their own: the debug notes of ignored events, which
// any peer can provoke at will, never use up theirs. Defined in ipoib_cm_policy.cpp.
struct NoteLimits {
	LogLimit debug;	// ignored events
	LogLimit err;	// step overflows, lost steps
};
extern NoteLimits g_cm_note_limits;

// What one feed() has to say in the log: it is printed only where no lock
// of ours is held. With netconsole on this device a printk sends over it, and xmit takes the
// table lock and a connection's lock (may_send reads its state): a printk under either could
// spin on a lock its own CPU holds.
struct FeedNote {
	u32 qpn = 0;
	u8 event = 0;		// cm::Ev
	u8 state = 0;		// cm::State after the event
	bool overflow = false;	// the state machine's step overflowed (a state-machine bug)
	bool ignored = false;	// the event was ignored in that state (counted cm_ignored_events)
	bool lost = false;	// the step queue was full: the step was lost (cm_step_overflows)
	bool any() const { return overflow || ignored || lost; }
	bool error() const { return overflow || lost; }
	void print(const kstd::Logger &log, NoteLimits &limits = g_cm_note_limits) const;
};

// The notes of the feeds a caller makes under the table lock (housekeeping, interface stop,
// the mode switch, connect, REQs): declared before that lock's guard, it is destroyed after
// the unlock and prints them then, as housekeeping prints its own warnings. Past
// kFeedNotesMax the rest are counted in one line (each is counted in ethtool -S as well).
inline constexpr u32 kFeedNotesMax = 8;
class FeedNotes : kstd::NonCopyable {
public:
	explicit FeedNotes(const kstd::Logger &log, NoteLimits &limits = g_cm_note_limits) : log_(log), limits_(limits) {}
	~FeedNotes();
	void add(const FeedNote &n);
	u32 kept() const { return n_; }
	u32 more() const { return more_; }
	bool more_errors() const { return more_err_; }

private:
	const kstd::Logger &log_;
	NoteLimits &limits_;
	FeedNote v_[kFeedNotesMax];
	u32 n_ = 0;
	u32 more_ = 0;		// not kept
	bool more_err_ = false;	// and one of those was an error
};

inline void FeedNote::print(const kstd::Logger &log, NoteLimits &limits) const
{
	u32 missed = 0;
	if (overflow && limits.err.allow(kapi_now_ms(), missed))
		log.err("CM step overflow on event %u (a state-machine bug; %u more connection notes not logged)",
			unsigned(event), missed);
	if (ignored && limits.debug.allow(kapi_now_ms(), missed))
		log.debug("QPN 0x%06x: event %u ignored in state %s (%u more connection notes not logged; counted cm_ignored_events)",
			  qpn, unsigned(event), cm::state_name(cm::State(state)), missed);
	if (lost && limits.err.allow(kapi_now_ms(), missed))
		log.err("connection step queue full: step of event %u lost (%u more connection notes not logged; counted cm_step_overflows)",
			unsigned(event), missed);
}

inline void FeedNotes::add(const FeedNote &n)
{
	if (!n.any())
		return;
	if (n_ < kFeedNotesMax) {
		v_[n_++] = n;
		return;
	}
	more_++;
	more_err_ |= n.error();
}

inline FeedNotes::~FeedNotes()
{
	for (u32 i = 0; i < n_; i++)
		v_[i].print(log_, limits_);
	u32 missed = 0;
	if (!more_ || !(more_err_ ? limits_.err : limits_.debug).allow(kapi_now_ms(), missed))
		return;
	if (more_err_)
		log_.err("%u more connection event notes not printed (lost steps are counted in cm_step_overflows, ignored events in cm_ignored_events; %u more lines not logged)",
			 more_, missed);
	else
		log_.debug("%u more ignored connection events not printed (counted: cm_ignored_events; %u more lines not logged)",
			   more_, missed);
}

} // namespace ipoib
