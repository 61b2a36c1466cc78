// SPDX-License-Identifier: GPL-2.0
// ipoib_mcast_table.h - the multicast groups of an interface (RFC 4391 §5, §10) and the one
// lock that guards them: lookup for xmit (creating a send-only group on first use), the
// broadcast group, the netdev-list bookkeeping of full members, and the restart/merge steps
// of a flush. Every operation takes the lock itself and returns what the caller must do
// outside it (join, leave, requeue, free); memberships (SA joins, attach) are ipoib_mcast.cpp's.
//
// Owner: Interface (a member); owns every McGroup on its list (allocated by the table or
// handed in; once off the list the caller's, who leaves it and hands it to retire()). Who may
// still hold a group: xmit, inside its RCU read section (for_send's lockless lookup), until a
// grace period after the group left the list - hence retire() instead of delete; the SA,
// whose join callback gets the group's tagged context until kapi_sa_leave returns (leave()
// runs before retire()).
// Lock: KAPI_LOCK_IF_MCAST (irqsave), inside the netif tx lock, never with the path lock.
// xmit's fast path takes no lock: an RCU walk of the list and the group's published AH
// (McGroup::published_ah, release/acquire), which is set only while the group is Joined.
#pragma once

#include "core/ipoib_addr.h"
#include "core/ud/ipoib_ah.h"
#include "core/ipoib_ctx.h"
#include "core/ipoib_handles.h"
#include "core/ud/ipoib_neigh_policy.h"
#include "kstd/list.h"
#include "kstd/new.h"
#include "kstd/lock.h"
#include "kstd/rcu.h"
#include "kstd/ring.h"

namespace ipoib {

class Interface;
using AhRef = kstd::Ref<Ah>;
using SkbQueue = SkbFifo<kPendingQueue>;	// kPendingQueue: ipoib_neigh_policy.h

// A multicast group; its tagged context is the SA join's (ipoib_core_join_done). Linked on
// the table (RCU list, its own link) and, while the work handles it, on private lists (the
// default link), so moving it between private lists never rewrites what readers follow.
struct McGroup : Tagged<KAPI_CTX_MCAST>, kstd::ListLink<>, kstd::ListLink<kstd::RcuListTag>, kstd::RcuHead,
		 kstd::NonCopyable {
	enum class State { Idle, Joining, Joined, Failed };
	explicit McGroup(Interface *o) : owner(o) {}
	Interface *owner;
	u8 mgid[kGidLen] = {};
	kapi_mcast *mc = nullptr;
	State state = State::Idle;
	bool broadcast = false;
	bool sendonly = false;	// joined because we send to it, not in the netdev's list
	bool wanted = true;	// still in the netdev's multicast list (full members)
	bool attached = false;
	u16 mlid = 0;
	u32 qkey = 0;		// written under the lock before publish(); xmit reads it after
	u32 backoff_ms = 0;
	u64 retry_at = 0;
	AhRef ah;
	SkbQueue queue;

	// The table's lock held, after state or ah changed: what xmit's lockless lookup sees.
	// Non-null exactly while the group is Joined with an AH. The release store orders the
	// AH and qkey before it; unpublish() comes before the AH is put (leave), so an xmit that
	// still read the old pointer holds the tx lock the AH reaper's barrier waits for.
	void publish() { __atomic_store_n(&send_ah_, state == State::Joined ? ah.get() : nullptr, __ATOMIC_RELEASE); }
	void unpublish() { __atomic_store_n(&send_ah_, static_cast<Ah *>(nullptr), __ATOMIC_RELEASE); }
	// xmit (RCU read side): the AH to send with, or nullptr (not joined: take the lock).
	Ah *published_ah() const { return __atomic_load_n(&send_ah_, __ATOMIC_ACQUIRE); }
	u32 published_qkey() const { return __atomic_load_n(&qkey, __ATOMIC_RELAXED); }

private:
	Ah *send_ah_ = nullptr;
};

// Moves q's skbs to the end of to; what does not fit is freed. Returns the number freed.
u32 move_queue(SkbQueue &q, SkbQueue &to);

class McastTable : kstd::NonCopyable {
public:
	McastTable() : lock_(KAPI_LOCK_IF_MCAST) {}
	~McastTable() { KSTD_WARN_ON(!groups_.empty()); }

	kstd::SpinLock &lock() { return lock_; }

	// xmit (tx lock held): a joined group's AH and Q_Key (Send; no reference taken, the
	// last-send rule of ipoib_ah.h keeps it alive), or the skb queued on a group not joined
	// yet (Queued; NewGroup: a send-only group was created for it, the work must join it),
	// or neither (QueueFull, NoMem: the skb is still the caller's). A joined group is found
	// under RCU without the lock; anything else is decided again under the lock, after a
	// control socket's skb gave its send buffer back (ipoib_hold.h: it may wait for the join).
	enum class Lookup { Send, Queued, NewGroup, QueueFull, NoMem };
	Lookup for_send(Interface *owner, const u8 *mgid, kapi_skb *skb, Ah *&ah, u32 &qkey);

	void add_broadcast(McGroup &b);
	McGroup *broadcast();
	McGroup::State state(const McGroup &g);
	void set_state(McGroup &g, McGroup::State s);
	// The fields the work's decisions read, copied under the lock (the SA callback writes
	// them concurrently).
	struct Snapshot {
		McGroup::State state;
		u64 retry_at;
		u32 backoff_ms;
	};
	Snapshot snapshot(const McGroup &g);
	// leave(): xmit must no longer find g's AH (before the AH is put).
	void unpublish(McGroup &g);
	// A group off the list (and left): freed after a grace period, when no xmit that may
	// have found it under RCU is still looking at it. Any context.
	static void retire(McGroup &g);

	// Flush: unlinks the broadcast pointer, then hands back groups one by one.
	void forget_broadcast();
	McGroup *pop();
	// Restart: every group off the list, then back (with the send-only twins xmit created
	// meanwhile moved to dups, their queues merged into ours).
	void take_all(kstd::List<McGroup> &out);
	void put_back(kstd::List<McGroup> &back, kstd::List<McGroup> &dups);
	// Takes g's queued skbs (the lock held only for that).
	void take_queue(McGroup &g, SkbQueue &out);

	// The netdev's list: every full member unmarked, then each listed MGID marked; a new one
	// inserted (replacing a send-only twin, which goes to old with its queue merged).
	void unmark_full_members();
	bool mark_wanted(const u8 *mgid);	// true: a full member exists (now marked)
	void insert_full(McGroup &fresh, kstd::List<McGroup> &old);

	// The next group the work must act on: one to leave (no longer wanted; unlinked and
	// returned with leave = true) or one to join (marked Joining). next_retry: the earliest
	// retry of a failed group not yet due.
	McGroup *next_action(u64 now, bool &leave, u64 &next_retry);

	// f(const McGroup &) for each, lock held (debugfs).
	template <typename F> void for_each(F &&f)
	{
		kstd::SpinIrqSaveGuard l(lock_);
		for (McGroup &g : groups_)
			f(static_cast<const McGroup &>(g));
	}

private:
	McGroup *find(const u8 *mgid);	// lock held, or RCU read side
	void unlink(McGroup &g);	// lock held: off the list, unpublished

	kstd::SpinLock lock_;
	kstd::RcuList<McGroup> groups_;
	McGroup *bcast_ = nullptr;
};

} // namespace ipoib
