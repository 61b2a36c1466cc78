// SPDX-License-Identifier: GPL-2.0
// test_mcast_table.cpp (host only): the multicast group table's decisions - send-only
// groups created on first use with a bounded queue, the restart merge of send-only twins,
// the full-member upgrade, and the order in which the work acts on groups.
#include "fake_rcu.h"
#include "fake_verbs.h"
#include "core/ud/ipoib_mcast_table.h"
#include "core/ud/ipoib_path_cache.h"
#include "ktest.h"

using namespace ipoib;

namespace {

void mgid_of(u8 n, u8 out[kGidLen])
{
	for (u32 i = 0; i < kGidLen; i++)
		out[i] = 0;
	out[0] = 0xff;
	out[15] = n;
}

// Frees every group (and queued skb) left in the table, as the interface does: off the
// list, then freed after a grace period.
void empty(McastTable &t)
{
	while (McGroup *g = t.pop()) {
		SkbQueue q;
		t.take_queue(*g, q);
		kapi_skb *skb;
		while (q.pop(skb))
			kapi_skb_free(skb);
		McastTable::retire(*g);
	}
	fake_rcu_grace();
}

kapi_skb *skb() { return kapi_skb_alloc(nullptr, 64, 0, KAPI_GFP_KERNEL); }

} // namespace

KTEST(mcast_table, first_send_creates_a_sendonly_group)
{
	McastTable t;
	u8 m[kGidLen];
	mgid_of(1, m);
	Ah *ah = nullptr;
	u32 qkey = 0;
	kapi_skb *a = skb();
	ASSERT_NOT_NULL(a);
	EXPECT_EQ(t.for_send(nullptr, m, a, ah, qkey), McastTable::Lookup::NewGroup);
	// further sends queue up to kPendingQueue, then are refused (still the caller's)
	for (u32 i = 1; i < kPendingQueue; i++)
		EXPECT_EQ(t.for_send(nullptr, m, skb(), ah, qkey), McastTable::Lookup::Queued);
	kapi_skb *over = skb();
	EXPECT_EQ(t.for_send(nullptr, m, over, ah, qkey), McastTable::Lookup::QueueFull);
	kapi_skb_free(over);
	EXPECT_FALSE(ah);
	int n = 0;
	t.for_each([&](const McGroup &g) {
		n++;
		EXPECT_TRUE(g.sendonly);
		EXPECT_FALSE(g.wanted);
		EXPECT_EQ(g.queue.size(), kPendingQueue);
	});
	EXPECT_EQ(n, 1);
	empty(t);
	EXPECT_EQ(fake_skbs_live(), 0);
}

KTEST(mcast_table, no_memory_leaves_the_skb_to_the_caller)
{
	McastTable t;
	u8 m[kGidLen];
	mgid_of(2, m);
	Ah *ah = nullptr;
	u32 qkey = 0;
	kapi_skb *a = skb();
	ASSERT_NOT_NULL(a);
	{
		ktest::AllocFailAll fail;
		EXPECT_EQ(t.for_send(nullptr, m, a, ah, qkey), McastTable::Lookup::NoMem);
	}
	kapi_skb_free(a);
	EXPECT_NULL(t.pop());
}

KTEST(mcast_table, restart_merges_the_sendonly_twin)
{
	McastTable t;
	u8 m[kGidLen];
	mgid_of(3, m);
	McGroup *full = new (kstd::Gfp::Kernel) McGroup(nullptr);
	ASSERT_NOT_NULL(full);
	bytes_copy(full->mgid, m, kGidLen);
	kstd::List<McGroup> old;
	t.insert_full(*full, old);
	EXPECT_TRUE(old.empty());
	kstd::List<McGroup> all;
	t.take_all(all);	// restart: off the list
	Ah *ah = nullptr;
	u32 qkey = 0;
	// meanwhile xmit creates a send-only twin with a queued skb
	EXPECT_EQ(t.for_send(nullptr, m, skb(), ah, qkey), McastTable::Lookup::NewGroup);
	kstd::List<McGroup> dups;
	t.put_back(all, dups);
	McGroup *twin = dups.pop_front();
	ASSERT_NOT_NULL(twin);
	EXPECT_TRUE(twin->sendonly);
	EXPECT_EQ(twin->queue.size(), 0u);
	EXPECT_EQ(full->queue.size(), 1u);	// the twin's skb moved to ours
	delete twin;
	int n = 0;
	t.for_each([&](const McGroup &g) { n += &g == full; });
	EXPECT_EQ(n, 1);
	empty(t);
	EXPECT_EQ(fake_skbs_live(), 0);
}

KTEST(mcast_table, full_member_upgrades_a_sendonly_group)
{
	McastTable t;
	u8 m[kGidLen];
	mgid_of(4, m);
	Ah *ah = nullptr;
	u32 qkey = 0;
	EXPECT_EQ(t.for_send(nullptr, m, skb(), ah, qkey), McastTable::Lookup::NewGroup);
	EXPECT_FALSE(t.mark_wanted(m));	// send-only: not a full member
	McGroup *fresh = new (kstd::Gfp::Kernel) McGroup(nullptr);
	ASSERT_NOT_NULL(fresh);
	bytes_copy(fresh->mgid, m, kGidLen);
	kstd::List<McGroup> old;
	t.insert_full(*fresh, old);
	McGroup *so = old.pop_front();
	ASSERT_NOT_NULL(so);
	EXPECT_TRUE(so->sendonly);
	delete so;
	EXPECT_EQ(fresh->queue.size(), 1u);
	EXPECT_TRUE(t.mark_wanted(m));
	empty(t);
}

KTEST(mcast_table, work_leaves_unwanted_then_joins_due)
{
	McastTable t;
	u8 m1[kGidLen], m2[kGidLen], m3[kGidLen];
	mgid_of(5, m1);
	mgid_of(6, m2);
	mgid_of(7, m3);
	McGroup *b = new (kstd::Gfp::Kernel) McGroup(nullptr);
	McGroup *g1 = new (kstd::Gfp::Kernel) McGroup(nullptr);
	McGroup *g2 = new (kstd::Gfp::Kernel) McGroup(nullptr);
	ASSERT_TRUE(b && g1 && g2);
	b->broadcast = true;
	b->state = McGroup::State::Joined;
	t.add_broadcast(*b);
	bytes_copy(g1->mgid, m1, kGidLen);
	bytes_copy(g2->mgid, m2, kGidLen);
	kstd::List<McGroup> old;
	t.insert_full(*g1, old);
	t.insert_full(*g2, old);
	g2->state = McGroup::State::Failed;
	g2->retry_at = 500;
	t.unmark_full_members();
	EXPECT_TRUE(t.mark_wanted(m2));	// g1 left the netdev's list
	EXPECT_FALSE(t.mark_wanted(m3));
	bool leave = false;
	u64 next = 0;
	EXPECT_EQ(t.next_action(100, leave, next), g1);
	EXPECT_TRUE(leave);
	delete g1;
	EXPECT_NULL(t.next_action(100, leave, next));	// g2 not due before 500
	EXPECT_EQ(next, 500u);
	next = 0;
	EXPECT_EQ(t.next_action(600, leave, next), g2);
	EXPECT_FALSE(leave);
	EXPECT_EQ(t.state(*g2), McGroup::State::Joining);
	EXPECT_EQ(t.broadcast(), b);
	t.forget_broadcast();
	EXPECT_NULL(t.broadcast());
	empty(t);
}

// SkbQueue owns what it holds: a full queue leaves the skb to the caller, pop hands one
// back, and whatever is left when the queue goes is freed with it.
KTEST(mcast_table, queued_skbs_belong_to_the_queue)
{
	const long live = fake_skbs_live();
	kapi_skb *over = skb();
	ASSERT_NOT_NULL(over);
	{
		SkbQueue q;
		for (u32 i = 0; i < kPendingQueue; i++)
			EXPECT_TRUE(q.push(skb()));
		EXPECT_FALSE(q.push(over));	// full: still ours
		EXPECT_EQ(q.size(), kPendingQueue);
		kapi_skb *first = nullptr;
		EXPECT_TRUE(q.pop(first));
		ASSERT_NOT_NULL(first);
		kapi_skb_free(first);
		EXPECT_EQ(fake_skbs_live(), live + long(kPendingQueue));	// kPendingQueue - 1 queued + over
	}
	EXPECT_EQ(fake_skbs_live(), live + 1);	// the queue freed its own; `over` is ours
	kapi_skb_free(over);
}

// A packet that waits for its group's join: a kernel control socket's (an ICMP reply, an MLD
// report) gives its socket's shared send buffer back (held, it pinned that buffer, and the
// CPU's later replies failed), and stays this host's own; a user socket's keeps its charge
// (it paces the sender while the join runs).
KTEST(mcast_table, join_queue_uncharges_control_packets_only)
{
	McastTable t;
	u8 m[kGidLen];
	mgid_of(5, m);
	Ah *ah = nullptr;
	u32 qkey = 0;
	kapi_skb *ctl = skb(), *user = skb();
	ASSERT_NOT_NULL(ctl);
	ASSERT_NOT_NULL(user);
	fake_skb_set_sock(ctl, KAPI_SKB_SOCK_FULL | KAPI_SKB_SOCK_KERN | KAPI_SKB_SOCK_RAW);
	fake_skb_set_sock(user, KAPI_SKB_SOCK_FULL);
	EXPECT_EQ(t.for_send(nullptr, m, ctl, ah, qkey), McastTable::Lookup::NewGroup);
	EXPECT_EQ(t.for_send(nullptr, m, user, ah, qkey), McastTable::Lookup::Queued);
	EXPECT_FALSE(fake_skb_charged(ctl));
	EXPECT_TRUE(kapi_icmp_skb_local(ctl));
	EXPECT_TRUE(fake_skb_charged(user));
	empty(t);
	EXPECT_EQ(fake_skbs_live(), 0);
}

KTEST_SUITE(mcast_table, KTEST_CASE(mcast_table, first_send_creates_a_sendonly_group),
	    KTEST_CASE(mcast_table, no_memory_leaves_the_skb_to_the_caller),
	    KTEST_CASE(mcast_table, restart_merges_the_sendonly_twin),
	    KTEST_CASE(mcast_table, full_member_upgrades_a_sendonly_group),
	    KTEST_CASE(mcast_table, work_leaves_unwanted_then_joins_due),
	    KTEST_CASE(mcast_table, queued_skbs_belong_to_the_queue),
	    KTEST_CASE(mcast_table, join_queue_uncharges_control_packets_only));

// ---- path_cache ----
// A Path keeps a reference to its Interface, which these cases never touch: any storage
// will do (the Interface type is incomplete here).
alignas(64) static unsigned char g_no_interface[64];
#define NO_INTERFACE (*reinterpret_cast<Interface *>(g_no_interface))
KTEST(path_cache, one_path_per_gid_and_unlinked_paths_are_dead)
{
	PathCache c;
	u8 g1[kGidLen], g2[kGidLen];
	mgid_of(1, g1);
	mgid_of(2, g2);
	kstd::List<Path> out;
	{
		kstd::SpinIrqSaveGuard l(c.lock());
		Path *a = c.find_or_add(NO_INTERFACE, g1);
		ASSERT_NOT_NULL(a);
		EXPECT_EQ(c.find_or_add(NO_INTERFACE, g1), a);
		Path *b = c.find_or_add(NO_INTERFACE, g2);
		ASSERT_NOT_NULL(b);
		EXPECT_NE(a, b);
		b->get();	// a neighbour's reference: the GC keeps it
		c.unlink_if([](const Path &p) { return p.ref.read() == 1; }, out);
		EXPECT_EQ(c.find(g1), nullptr);
		EXPECT_EQ(c.find(g2), b);
		EXPECT_TRUE(a->live_ah() == nullptr);
		EXPECT_TRUE(__atomic_load_n(&a->dead, __ATOMIC_RELAXED));
		EXPECT_FALSE(__atomic_load_n(&b->dead, __ATOMIC_RELAXED));
		c.unlink_all(out);
		EXPECT_NULL(c.find(g2));
		EXPECT_TRUE(__atomic_load_n(&b->dead, __ATOMIC_RELAXED));
	}
	int n = 0;
	while (Path *p = out.pop_front()) {
		if (p->ref.read() == 2)
			p->put();	// the neighbour's
		p->put();		// the table's: frees it
		n++;
	}
	EXPECT_EQ(n, 2);
}

KTEST(path_cache, no_memory)
{
	PathCache c;
	u8 g[kGidLen];
	mgid_of(3, g);
	kstd::SpinIrqSaveGuard l(c.lock());
	ktest::AllocFailAll fail;
	EXPECT_NULL(c.find_or_add(NO_INTERFACE, g));
	EXPECT_NULL(c.find(g));
}
KTEST_SUITE(path_cache, KTEST_CASE(path_cache, one_path_per_gid_and_unlinked_paths_are_dead), KTEST_CASE(path_cache, no_memory));

// ---- ah_reaper: the last-send rule ----
KTEST(ah_reaper, waits_for_the_last_send_then_frees)
{
	AhReaper r;
	Ah *used = new (kstd::Gfp::Kernel) Ah(NO_INTERFACE, nullptr);
	Ah *unused = new (kstd::Gfp::Kernel) Ah(NO_INTERFACE, nullptr);
	ASSERT_TRUE(used && unused);
	used->note_send(5);	// the ring's sixth send used it
	r.add(*used);
	r.add(*unused);
	int barriers = 0;
	const long live = ktest_alloc_live();
	// sends 0..4 completed: the one with sequence 5 is still out
	EXPECT_EQ(r.reap([&] { barriers++; }, [] { return AhReaper::Progress{5, 6}; }), 1u);
	EXPECT_EQ(barriers, 1);
	EXPECT_EQ(ktest_alloc_live(), live - 1);	// the unused one went at once
	EXPECT_FALSE(r.empty());
	EXPECT_EQ(r.reap([&] { barriers++; }, [] { return AhReaper::Progress{6, 7}; }), 0u);
	EXPECT_TRUE(r.empty());
	EXPECT_EQ(barriers, 2);
	// nothing listed: no barrier taken
	EXPECT_EQ(r.reap([&] { barriers++; }, [] { return AhReaper::Progress{6, 7}; }), 0u);
	EXPECT_EQ(barriers, 2);
}

KTEST(ah_reaper, a_drained_ring_frees_everything)
{
	AhReaper r;
	Ah *a = new (kstd::Gfp::Kernel) Ah(NO_INTERFACE, nullptr);
	ASSERT_NOT_NULL(a);
	a->note_send(0xfffffffeu);	// wraps: completed 2 is past it
	r.add(*a);
	EXPECT_EQ(r.reap([] {}, [] { return AhReaper::Progress{0xfffffffeu, 1}; }), 1u);
	EXPECT_EQ(r.reap([] {}, [] { return AhReaper::Progress{2, 3}; }), 0u);
	Ah *b = new (kstd::Gfp::Kernel) Ah(NO_INTERFACE, nullptr);
	ASSERT_NOT_NULL(b);
	b->note_send(7);	// its post failed: no completion will pass it
	r.add(*b);
	EXPECT_EQ(r.reap([] {}, [] { return AhReaper::Progress{7, 7}; }), 0u);
	EXPECT_TRUE(r.empty());
}
// An AH whose last send is more than 2^31 sends behind the ring is long idle, not in flight.
KTEST(ah_reaper, a_send_far_behind_is_idle)
{
	AhReaper r;
	Ah *a = new (kstd::Gfp::Kernel) Ah(NO_INTERFACE, nullptr);
	ASSERT_NOT_NULL(a);
	a->note_send(5);
	r.add(*a);
	const u32 tail = 5u + 0x80000000u + 10u;	// completions since then
	EXPECT_EQ(r.reap([] {}, [tail] { return AhReaper::Progress{tail, tail + 3}; }), 0u);
	EXPECT_TRUE(r.empty());
}

KTEST_SUITE(ah_reaper, KTEST_CASE(ah_reaper, waits_for_the_last_send_then_frees),
	    KTEST_CASE(ah_reaper, a_drained_ring_frees_everything), KTEST_CASE(ah_reaper, a_send_far_behind_is_idle));

// ---- mcast_rcu: xmit's lockless lookup and the deferred free ----
namespace {

// A group on the table joined as join_done leaves it (under the lock: AH, Q_Key, Joined,
// published).
McGroup *joined_group(McastTable &t, u8 n, u32 qkey)
{
	McGroup *g = new (kstd::Gfp::Kernel) McGroup(nullptr);
	Ah *a = new (kstd::Gfp::Kernel) Ah(NO_INTERFACE, nullptr);
	if (!g || !a) {
		delete g;
		delete a;
		return nullptr;
	}
	mgid_of(n, g->mgid);
	kstd::List<McGroup> old;
	t.insert_full(*g, old);
	kstd::SpinIrqSaveGuard l(t.lock());
	g->ah = AhRef::adopt(a);
	__atomic_store_n(&g->qkey, qkey, __ATOMIC_RELAXED);
	g->state = McGroup::State::Joined;
	g->publish();
	return g;
}

// leave() as the interface does it: unpublished before the AH is put.
void leave_and_retire(McastTable &t, McGroup &g)
{
	t.unpublish(g);
	g.ah.reset();
	McastTable::retire(g);
}

} // namespace

KTEST(mcast_rcu, a_joined_group_sends_without_the_lock)
{
	fake_rcu_reset();
	McastTable t;
	McGroup *g = joined_group(t, 1, 0x1234);
	ASSERT_NOT_NULL(g);
	Ah *ah = nullptr;
	u32 qkey = 0;
	kapi_skb *s = skb();
	ASSERT_NOT_NULL(s);
	{
		// The table's lock held by "another CPU": the host lock fails the case on a
		// recursive acquisition, so this passes only if for_send took no lock.
		kstd::SpinIrqSaveGuard l(t.lock());
		EXPECT_EQ(t.for_send(nullptr, g->mgid, s, ah, qkey), McastTable::Lookup::Send);
	}
	EXPECT_EQ(ah, g->ah.get());
	EXPECT_EQ(qkey, 0x1234u);
	EXPECT_EQ(fake_rcu_reads(), 1);
	EXPECT_EQ(fake_rcu_depth(), 0);
	kapi_skb_free(s);
	McGroup *p = t.pop();
	EXPECT_EQ(p, g);
	leave_and_retire(t, *g);
	EXPECT_EQ(fake_rcu_grace(), 1);
}

// Only a Joined group with an AH is visible to the lockless path; any other state (a
// re-join after a reset, a failure) sends xmit to the lock, which queues.
KTEST(mcast_rcu, only_joined_is_published)
{
	fake_rcu_reset();
	McastTable t;
	McGroup *g = joined_group(t, 2, 7);
	ASSERT_NOT_NULL(g);
	EXPECT_NOT_NULL(g->published_ah());
	t.set_state(*g, McGroup::State::Idle);	// join_done(-ENETRESET)
	EXPECT_NULL(g->published_ah());
	Ah *ah = nullptr;
	u32 qkey = 0;
	EXPECT_EQ(t.for_send(nullptr, g->mgid, skb(), ah, qkey), McastTable::Lookup::Queued);
	EXPECT_NULL(ah);
	t.set_state(*g, McGroup::State::Joining);
	EXPECT_NULL(g->published_ah());
	t.set_state(*g, McGroup::State::Joined);	// the AH is still there: published again
	EXPECT_EQ(g->published_ah(), g->ah.get());
	t.set_state(*g, McGroup::State::Failed);
	EXPECT_NULL(g->published_ah());
	empty(t);	// takes the queued skb; unlinking also unpublishes
	EXPECT_EQ(fake_skbs_live(), 0);
}

// Off the list a group is unpublished at once (xmit can no longer send on it) but freed only
// after a grace period: a reader that found it before may still be reading it.
KTEST(mcast_rcu, unlinked_groups_are_unpublished_and_freed_after_a_grace_period)
{
	fake_rcu_reset();
	McastTable t;
	McGroup *g = joined_group(t, 3, 7);
	McGroup *h = joined_group(t, 4, 7);
	ASSERT_TRUE(g && h);
	kstd::List<McGroup> all;
	t.take_all(all);	// restart: every group off the list
	EXPECT_NULL(g->published_ah());
	EXPECT_NULL(h->published_ah());
	const long live = ktest_alloc_live();
	while (McGroup *x = all.pop_front())
		leave_and_retire(t, *x);
	EXPECT_EQ(ktest_alloc_live(), live - 2);	// the AHs went; the groups wait
	EXPECT_EQ(fake_rcu_pending(), 2);
	EXPECT_EQ(fake_rcu_grace(), 2);
	EXPECT_EQ(ktest_alloc_live(), live - 4);
	EXPECT_NULL(t.pop());
}

// RcuList: a reader standing on an element that is removed walks on to the head; one on an
// element moved to the front walks the list again; neither ever leaves the list.
namespace {
struct Item : kstd::ListLink<kstd::RcuListTag> {
	int v = 0;
};
int walk_from(Item &start, kstd::RcuList<Item> &l, int limit)
{
	// What a reader does from start on: follow next pointers until the head.
	int seen = 0;
	for (const kstd::ListNode *n = start.list_node_.next; !l.is_head(n) && seen < limit; n = n->next)
		seen++;
	return seen;
}
} // namespace

KTEST(mcast_rcu, rcu_list_readers_never_leave_the_list)
{
	kstd::RcuList<Item> l;
	Item a, b, c;
	a.v = 1;
	b.v = 2;
	c.v = 3;
	l.push_back(a);
	l.push_back(b);
	l.push_back(c);
	EXPECT_EQ(l.find([](const Item &i) { return i.v == 2; }), &b);
	kstd::RcuList<Item>::remove(b);
	EXPECT_FALSE(kstd::RcuList<Item>::linked(b));
	EXPECT_TRUE(kstd::RcuList<Item>::linked(a));
	EXPECT_NULL(l.find([](const Item &i) { return i.v == 2; }));
	EXPECT_EQ(walk_from(b, l, 10), 1);	// b -> c -> head
	l.push_front(b);			// linked again before a grace period
	EXPECT_EQ(walk_from(b, l, 10), 2);	// b -> a -> c -> head
	EXPECT_EQ(l.pop_front(), &b);
	EXPECT_EQ(l.pop_front(), &a);
	EXPECT_EQ(l.pop_front(), &c);
	EXPECT_TRUE(l.empty());
	EXPECT_EQ(walk_from(c, l, 10), 0);	// the last one removed points at the head
}

KTEST_SUITE(mcast_rcu, KTEST_CASE(mcast_rcu, a_joined_group_sends_without_the_lock),
	    KTEST_CASE(mcast_rcu, only_joined_is_published),
	    KTEST_CASE(mcast_rcu, unlinked_groups_are_unpublished_and_freed_after_a_grace_period),
	    KTEST_CASE(mcast_rcu, rcu_list_readers_never_leave_the_list));
