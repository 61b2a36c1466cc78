// SPDX-License-Identifier: GPL-2.0
// test_cm_req_rules.cpp - what a peer's REQ can make us do (ipoib_cm_req_rules.h): every
// reason a REQ is refused before a connection exists, the REJ reason each answers with, and
// which of our connections to a restarted peer its proven REQ retires.
#include "ktest.h"
#include "core/cm/ipoib_cm_req_rules.h"

namespace ktest_cm_req_rules {

using ipoib::req_admit;
using ipoib::req_admit_refusal;
using ipoib::req_early_refusal;
using ipoib::req_locked_refusal;
using ipoib::req_rej_code;
using ipoib::ReqAdmit;
using ipoib::ReqPool;
using ipoib::ReqRefusal;
using ipoib::restart_retire;
using ipoib::RestartRetire;
using ipoib::cm::Survivor;

KTEST(cm_req_refusal, pkey_of_another_partition)
{
	// The membership bit aside, the REQ's P_Key must be the listener's.
	EXPECT_TRUE(req_early_refusal(0xffff, 0xffff, true, true, true) == ReqRefusal::None);
	EXPECT_TRUE(req_early_refusal(0x7fff, 0xffff, true, true, true) == ReqRefusal::None);	// limited member
	EXPECT_TRUE(req_early_refusal(0x8001, 0x0001, true, true, true) == ReqRefusal::None);
	EXPECT_TRUE(req_early_refusal(0x8001, 0xffff, true, true, true) == ReqRefusal::BadPkey);	// a child's
	EXPECT_TRUE(req_early_refusal(0xffff, 0x8001, true, true, true) == ReqRefusal::BadPkey);	// the parent's
	// Checked before the budgets: another partition's REQ is never counted as a full pool.
	EXPECT_TRUE(req_early_refusal(0x8002, 0x8001, false, false, false) == ReqRefusal::BadPkey);
	EXPECT_EQ(req_rej_code(ReqRefusal::BadPkey), ipoib::cm::rej::kConsumer);
}

KTEST(cm_req_refusal, budgets_in_admission_order)
{
	EXPECT_TRUE(req_early_refusal(0xffff, 0xffff, false, true, true) == ReqRefusal::PoolFull);
	EXPECT_TRUE(req_early_refusal(0xffff, 0xffff, false, false, false) == ReqRefusal::PoolFull);
	EXPECT_TRUE(req_early_refusal(0xffff, 0xffff, true, false, true) == ReqRefusal::UnprovenFull);
	EXPECT_TRUE(req_early_refusal(0xffff, 0xffff, true, false, false) == ReqRefusal::UnprovenFull);
	EXPECT_TRUE(req_early_refusal(0xffff, 0xffff, true, true, false) == ReqRefusal::UnreservedFull);
	// req_admit's verdicts (under the lock) name the same refusals.
	EXPECT_TRUE(req_admit_refusal(ReqAdmit::Ok) == ReqRefusal::None);
	EXPECT_TRUE(req_admit_refusal(ReqAdmit::PoolFull) == ReqRefusal::PoolFull);
	EXPECT_TRUE(req_admit_refusal(ReqAdmit::UnprovenFull) == ReqRefusal::UnprovenFull);
	EXPECT_TRUE(req_admit_refusal(ReqAdmit::UnreservedFull) == ReqRefusal::UnreservedFull);
	// Over real budgets: the second REQ of a one-slot pool is refused there.
	ReqPool pool, unproven, open;
	pool.set_limit(1);
	unproven.set_limit(4);
	open.set_limit(4);
	EXPECT_TRUE(req_admit_refusal(req_admit(pool, unproven, open)) == ReqRefusal::None);
	EXPECT_TRUE(req_admit_refusal(req_admit(pool, unproven, open)) == ReqRefusal::PoolFull);
	EXPECT_EQ(unproven.used(), 1u);	// nothing of the refused REQ stays taken
	EXPECT_EQ(open.used(), 1u);
}

KTEST(cm_req_refusal, under_the_lock)
{
	// Stopping refuses whatever the rest says.
	EXPECT_TRUE(req_locked_refusal(false, true, true, false) == ReqRefusal::Stopping);
	EXPECT_TRUE(req_locked_refusal(false, false, false, true) == ReqRefusal::Stopping);
	// At the peer bound, only a REQ that would add an entry is refused.
	EXPECT_TRUE(req_locked_refusal(true, true, false, true) == ReqRefusal::PeersFull);
	EXPECT_TRUE(req_locked_refusal(true, true, true, true) == ReqRefusal::None);	// its entry exists
	EXPECT_TRUE(req_locked_refusal(true, false, false, true) == ReqRefusal::None);	// filed under none
	EXPECT_TRUE(req_locked_refusal(true, true, false, false) == ReqRefusal::None);
}

KTEST(cm_req_refusal, rej_reasons)
{
	// Everything but another partition's REQ is No Resources (IBA 12.6.7.2 REJ 3).
	const ReqRefusal nores[] = {ReqRefusal::PoolFull, ReqRefusal::UnprovenFull, ReqRefusal::UnreservedFull,
				    ReqRefusal::NoMemory, ReqRefusal::Stopping, ReqRefusal::PeersFull};
	for (ReqRefusal r : nores)
		EXPECT_EQ(req_rej_code(r), ipoib::cm::rej::kNoResources);
	EXPECT_EQ(ipoib::cm::rej::kNoResources, 3);
}

KTEST(cm_restart_retire, passive_closed_active_by_crossing_rule)
{
	// A live passive connection other than the proven one is dead: closed.
	RestartRetire r = restart_retire(true, false, Survivor::Local);
	EXPECT_TRUE(r.close_passive);
	EXPECT_FALSE(r.close_active);
	EXPECT_TRUE(r.restart());
	// Our established one only where the peer's REQ survives a crossing.
	r = restart_retire(false, true, Survivor::Remote);
	EXPECT_FALSE(r.close_passive);
	EXPECT_TRUE(r.close_active);
	EXPECT_TRUE(r.restart());
	r = restart_retire(false, true, Survivor::Local);	// the REQ crossed ours: ours is kept
	EXPECT_FALSE(r.close_active);
	EXPECT_FALSE(r.restart());
	r = restart_retire(true, true, Survivor::Remote);	// both dead, one restart
	EXPECT_TRUE(r.close_passive);
	EXPECT_TRUE(r.close_active);
	EXPECT_TRUE(r.restart());
}

KTEST(cm_restart_retire, nothing_to_retire)
{
	// The first connection of a peer (or only not-established/dead ones): no restart counted.
	const RestartRetire r = restart_retire(false, false, Survivor::Remote);
	EXPECT_FALSE(r.close_passive);
	EXPECT_FALSE(r.close_active);
	EXPECT_FALSE(r.restart());
}

// A run of CmTable::ident_run over a connection whose send ring has `free` slots: echoes
// for it are staged while echo_may_stage says so (the ring's room read once per echo, as
// the posts come after the loop), and the staged ones are posted in the end. Returns how
// many posts the ring refused.
kstd::u32 post_failures(kstd::u32 size, kstd::u32 outstanding, kstd::u32 echoes)
{
	kstd::u32 staged = 0;
	for (kstd::u32 i = 0; i < echoes; i++)
		if (ipoib::echo_may_stage(outstanding < size, staged))
			staged++;
	kstd::u32 failed = 0;
	for (kstd::u32 i = 0; i < staged; i++) {
		if (outstanding < size)
			outstanding++;
		else
			failed++;
	}
	return failed;
}

KTEST(cm_echo_stage, never_more_than_the_ring_holds)
{
	// One free slot, two echoes for the connection in one run: one staged, the other waits.
	EXPECT_EQ(post_failures(4, 3, 2), 0u);
	EXPECT_EQ(post_failures(4, 3, 8), 0u);
	EXPECT_EQ(post_failures(1, 0, 2), 0u);
	EXPECT_EQ(post_failures(4, 4, 1), 0u);	// full: nothing staged
	EXPECT_TRUE(ipoib::echo_may_stage(true, 0));
	EXPECT_FALSE(ipoib::echo_may_stage(true, 1));
	EXPECT_FALSE(ipoib::echo_may_stage(false, 0));
}

KTEST_SUITE(cm_echo_stage, KTEST_CASE(cm_echo_stage, never_more_than_the_ring_holds));
KTEST_SUITE(cm_req_refusal, KTEST_CASE(cm_req_refusal, pkey_of_another_partition),
	    KTEST_CASE(cm_req_refusal, budgets_in_admission_order), KTEST_CASE(cm_req_refusal, under_the_lock),
	    KTEST_CASE(cm_req_refusal, rej_reasons));
KTEST_SUITE(cm_restart_retire, KTEST_CASE(cm_restart_retire, passive_closed_active_by_crossing_rule),
	    KTEST_CASE(cm_restart_retire, nothing_to_retire));

} // namespace ktest_cm_req_rules
