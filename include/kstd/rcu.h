// SPDX-License-Identifier: GPL-2.0
// kstd/rcu.h - RCU for C++ objects: a read-side guard, an embeddable rcu_head whose callback
// gets its object back by a static_cast (no offsetof), and RcuList, an intrusive list that
// readers walk under RCU while writers (serialised by their owner's lock) change it.
//
// The rules RcuList keeps (the kernel's list_add_rcu/list_del_rcu): an element is complete
// before the store that links it is visible (release); remove() leaves the element's next
// pointer as it was, so a reader standing on it walks on into the list and reaches the head;
// an element removed from the list is freed only after a grace period (free_after_grace).
// An element may be linked again before that (a reader on it then walks on from its new
// place: it may see some elements twice or miss some, never leave the list). Readers must
// therefore treat a miss as "not sure" and take the owner's lock to decide.
// Host-compilable (kapi_rcu_* are faked there).
#pragma once

#include "kstd/base.h"
#include "kstd/list.h"

namespace kstd {

// rcu_read_lock() for a scope. Not for code that sleeps.
class RcuReadGuard : NonCopyable {
public:
	[[nodiscard]] RcuReadGuard() { kapi_rcu_read_lock(); }
	~RcuReadGuard() { kapi_rcu_read_unlock(); }
};

// Storage for the shim's rcu_head (kapi_rcu.h). T derives from RcuHead once; its callback
// recovers T from the head with rcu_owner<T>(): the storage is RcuHead's first and only
// member, so the head's address is the RcuHead's.
struct RcuHead {
	alignas(KAPI_ALIGNOF_RCU_HEAD) unsigned char rcu_storage_[KAPI_SIZEOF_RCU_HEAD];
	kapi_rcu_head *rcu_head() { return reinterpret_cast<kapi_rcu_head *>(rcu_storage_); }
};

template <typename T> T &rcu_owner(kapi_rcu_head *h)
{
	return static_cast<T &>(*reinterpret_cast<RcuHead *>(h));
}

// fn (a C callback, e.g. one that deletes rcu_owner<T>(h)) runs after a grace period, in
// softirq context.
template <typename T> void free_after_grace(T &obj, kapi_rcu_fn fn)
{
	kapi_call_rcu(static_cast<RcuHead &>(obj).rcu_head(), fn);
}

struct RcuListTag;

// Intrusive RCU list of T (which derives from ListLink<Tag>). Writers: the owner's lock held.
// Readers: find() inside an RcuReadGuard (or with the lock held).
template <typename T, typename Tag = RcuListTag> class RcuList : NonCopyable {
	using Link = ListLink<Tag>;
	static ListNode &node(T &t) { return static_cast<Link &>(t).list_node_; }
	static T &elem(ListNode *n) { return static_cast<T &>(*reinterpret_cast<Link *>(n)); }
	static ListNode *next_of(const ListNode *n) { return __atomic_load_n(&n->next, __ATOMIC_ACQUIRE); }
	static void publish(ListNode *&slot, ListNode *n) { __atomic_store_n(&slot, n, __ATOMIC_RELEASE); }
	// n linked between prev and next: n's own pointers first, then the one readers follow.
	static void link(ListNode &n, ListNode &prev, ListNode &next)
	{
		n.prev = &prev;
		__atomic_store_n(&n.next, &next, __ATOMIC_RELAXED);
		next.prev = &n;
		publish(prev.next, &n);
	}

public:
	using Iter = ListIter<T, Tag>;

	RcuList() = default;
	~RcuList() = default;	// the owner empties the list in its teardown

	// Writers (lock held).
	bool empty() const { return next_of(&head_) == &head_; }
	void push_back(T &t) { link(node(t), *head_.prev, head_); }
	void push_front(T &t) { link(node(t), head_, *head_.next); }
	// Readers standing on t walk on through its unchanged next pointer; prev is poisoned
	// (points at itself) so linked() is false.
	static void remove(T &t)
	{
		ListNode &n = node(t);
		n.next->prev = n.prev;
		publish(n.prev->next, n.next);
		n.prev = &n;
	}
	static bool linked(T &t) { return node(t).prev != &node(t); }
	T *front() { return empty() ? nullptr : &elem(head_.next); }
	T *pop_front()
	{
		T *t = front();
		if (t)
			remove(*t);
		return t;
	}
	// Do not remove the current element while iterating (return right after a remove).
	Iter begin() { return Iter(head_.next); }
	Iter end() { return Iter(&head_); }

	// A reader's end of the walk.
	bool is_head(const ListNode *n) const { return n == &head_; }
	// Readers (RCU read side, or the lock): the first element pred accepts, or nullptr.
	template <typename Pred> T *find(Pred &&pred) const
	{
		for (ListNode *n = next_of(&head_); !is_head(n); n = next_of(n))
			if (pred(static_cast<const T &>(elem(n))))
				return &elem(n);
		return nullptr;
	}

private:
	mutable ListNode head_;
};

} // namespace kstd
