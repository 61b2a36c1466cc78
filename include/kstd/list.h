// SPDX-License-Identifier: GPL-2.0
// kstd/list.h - intrusive doubly linked list (like list_head) that never allocates.
// An element derives from ListLink<Tag> once per list it can be on; the Tag tells the
// links apart, and the element is recovered by a static_cast (no offsetof tricks).
// Not thread-safe: the owner's lock protects it. Pure: host-compilable.
#pragma once

#include "kstd/types.h"

namespace kstd {

struct ListNode {
	ListNode *next = this;
	ListNode *prev = this;

	bool linked() const { return next != this; }
	void unlink()
	{
		prev->next = next;
		next->prev = prev;
		next = prev = this;
	}
	void insert_before(ListNode &pos)
	{
		next = &pos;
		prev = pos.prev;
		pos.prev->next = this;
		pos.prev = this;
	}
};

struct DefaultListTag;

template <typename Tag = DefaultListTag> struct ListLink {
	ListNode list_node_;
};

// Walks the elements after a node, following next (the owner's lock held).
template <typename T, typename Tag> class ListIter {
public:
	explicit ListIter(ListNode *n) : n_(n) {}
	// Link is the first and only member of ListLink, so the node is the link.
	T &operator*() const { return static_cast<T &>(*reinterpret_cast<ListLink<Tag> *>(n_)); }
	T *operator->() const { return &**this; }
	ListIter &operator++()
	{
		n_ = n_->next;
		return *this;
	}
	bool operator!=(const ListIter &o) const { return n_ != o.n_; }

private:
	ListNode *n_;
};

template <typename T, typename Tag = DefaultListTag> class List : NonCopyable {
	using Link = ListLink<Tag>;

	static ListNode &node(T &t) { return static_cast<Link &>(t).list_node_; }
	static T &elem(ListNode *n)
	{
		// Link is the first and only member of ListLink, so the node is the link.
		return static_cast<T &>(*reinterpret_cast<Link *>(n));
	}

public:
	using Iter = ListIter<T, Tag>;

	List() = default;
	~List() = default; // the owner empties the list in its teardown

	bool empty() const { return !head_.linked(); }
	void push_back(T &t) { node(t).insert_before(head_); }
	void push_front(T &t) { node(t).insert_before(*head_.next); }
	static void remove(T &t) { node(t).unlink(); }
	static bool linked(T &t) { return node(t).linked(); }
	T *front() { return empty() ? nullptr : &elem(head_.next); }
	T *back() { return empty() ? nullptr : &elem(head_.prev); }
	// Unlink and return the first element (nullptr when empty): the teardown idiom.
	T *pop_front()
	{
		T *t = front();
		if (t)
			remove(*t);
		return t;
	}
	usize size() const
	{
		usize n = 0;
		for (const ListNode *p = head_.next; p != &head_; p = p->next)
			n++;
		return n;
	}
	// Do not unlink the current element while iterating; use pop_front() loops instead.
	Iter begin() { return Iter(head_.next); }
	Iter end() { return Iter(&head_); }

private:
	ListNode head_;
};

} // namespace kstd
