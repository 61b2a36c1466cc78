// SPDX-License-Identifier: GPL-2.0
// ipoib_neigh.cpp - the neighbour table's mechanics (RCU hash, writers under the table's
// lock, deferred free), its garbage collection and the path GC, and the debugfs listing.
// xmit's use of it is in ipoib_path.cpp (send_unicast); the decisions are pure logic in
// ipoib_neigh_policy.cpp.
//
// Ageing follows the in-tree driver's __ipoib_reap_neigh semantically: the GC runs every
// arp_tbl.gc_interval and removes a neighbour idle for two intervals, so
// /proc/sys/net/ipv4/neigh/default/gc_interval tunes both (read at each run). A Path goes
// once no neighbour refers to it and it has been unused as long (never while it holds a
// query back-off). Flushes (port events, ifdown) remove every neighbour and path at once.
#include "ipoib_if.h"

namespace {

// The RCU callback (softirq): the Neigh is unreachable, so drop its Path reference (which
// may free the Path and put its AH, handed to the reaper) and free it.
extern "C" void ipoib_neigh_rcu_free(kapi_rcu_head *head) noexcept
{
	auto *n = reinterpret_cast<ipoib::Neigh *>(head);
	ipoib::Path *p = n->path;
	delete n;
	if (p)
		p->put();
}

// The GC's own delayed work (its context is the interface's tag).
extern "C" void ipoib_neigh_gc_work(kapi_ctx *ctx) noexcept
{
	if (ipoib::Interface *ifc = ipoib::from_ctx<ipoib::Interface>(ctx))
		ifc->gc_work();
}

} // namespace

namespace ipoib {

// ---- the table ----

NeighTable::~NeighTable()
{
	KSTD_WARN_ON(count_ != 0);
	delete[] buckets_;
}

Status NeighTable::init(u32 buckets)
{
	buckets_ = new (Gfp::Kernel) Neigh *[buckets];
	if (!buckets_)
		return Status::NoMem;
	for (u32 i = 0; i < buckets; i++)
		buckets_[i] = nullptr;
	mask_ = buckets - 1;
	return Status::Ok;
}

Neigh *NeighTable::lookup(const HwAddr &a) const
{
	for (Neigh *n = load(&buckets_[neigh_bucket(a.b, mask_ + 1)]); n; n = load(&n->next))
		if (bytes_equal(n->addr.b, a.b, kHwAddrLen))
			return n;
	return nullptr;
}

void NeighTable::insert(Neigh &n)
{
	Neigh **slot = &buckets_[neigh_bucket(n.addr.b, mask_ + 1)];
	n.next = *slot;
	publish(slot, &n);	// n is complete before a reader can see it
	__atomic_store_n(&count_, count_ + 1, __ATOMIC_RELAXED);
}

void NeighTable::unlink(Neigh &n)
{
	for (Neigh **slot = &buckets_[neigh_bucket(n.addr.b, mask_ + 1)]; *slot; slot = &(*slot)->next) {
		if (*slot == &n) {
			publish(slot, n.next);
			__atomic_store_n(&count_, count_ - 1, __ATOMIC_RELAXED);
			return;
		}
	}
	KSTD_WARN_ON(true);	// not in its bucket: the table is corrupt
}

u32 NeighTable::retire(Neigh *list)
{
	u32 n = 0;
	while (list) {
		Neigh *next = list->retire_next;
		kapi_call_rcu(reinterpret_cast<kapi_rcu_head *>(list->rcu), ipoib_neigh_rcu_free);
		list = next;
		n++;
	}
	return n;
}

// ---- Interface: lifetime ----

Status Interface::neigh_start()
{
	KSTD_TRY(neighs_.init(neigh_bucket_count(kapi_arp_gc_thresh3())));
	gc_.reset(kapi_dwork_create(ipoib_neigh_gc_work, this));
	return gc_ ? Status::Ok : Status::NoMem;
}

// From stop(): no GC run after this returns (the work re-arms itself; cancel stops that).
void Interface::neigh_stop()
{
	if (gc_)
		kapi_dwork_cancel(gc_.get());
}

// Teardown: whatever is left (nothing after stop()) goes, every callback has run, the
// work item is freed.
void Interface::neigh_destroy()
{
	neigh_stop();
	Neigh *left;
	{
		kstd::SpinIrqSaveGuard l(paths_.lock());
		kstd::SpinIrqSaveGuard nl(neighs_.lock());
		left = neighs_.unlink_if([](Neigh &) { return true; });
	}
	count(stats_.neigh_flushed, NeighTable::retire(left));
	kapi_rcu_barrier();
	gc_.reset();
}

// The path cache lock held: the Neigh for dst pointing at p, created if missing. An entry that
// points at another Path (a flushed one) is unlinked onto `retired` and replaced.
Neigh *Interface::neigh_attach(const HwAddr &dst, Path &p, u64 now, Neigh *&retired)
{
	kstd::SpinIrqSaveGuard nl(neighs_.lock());
	Neigh *n = neighs_.lookup(dst);
	if (n && n->path == &p)
		return n;
	if (n) {
		neighs_.unlink(*n);
		n->retire_next = retired;
		retired = n;
	}
	n = new (Gfp::Atomic) Neigh(dst, &p, now);
	if (!n) {
		// Sending still works through the Path; the next packet tries again.
		count_local(stats_.neigh_alloc_errors);	// written only under the path lock
		return nullptr;
	}
	p.get();
	neighs_.insert(*n);
	count_local(stats_.neigh_created);	// written only under the path lock
	return n;
}

// ---- garbage collection ----

void Interface::gc_work()
{
	if (!is_up())
		return;
	const u64 interval = kapi_arp_gc_interval_ms();
	const u64 now = kapi_now_ms();
	neigh_gc(now, gc_stale_ms(interval));
	path_gc(now, gc_stale_ms(interval));
	kapi_dwork_schedule(gc_.get(), unsigned(gc_period_ms(interval)));
}

void Interface::neigh_gc(u64 now, u64 stale_ms)
{
	Neigh *stale;
	{
		kstd::SpinIrqSaveGuard nl(neighs_.lock());
		stale = neighs_.unlink_if([&](Neigh &n) { return is_stale(now, n.last_used(), stale_ms); });
	}
	count(stats_.neigh_reaped, NeighTable::retire(stale));
}

// A Path's references come from the table, queries and neighbours, all taken under
// the path cache lock, so refs == 1 seen under it stays true until the Path is unlinked.
void Interface::path_gc(u64 now, u64 stale_ms)
{
	kstd::List<Path> doomed;
	{
		kstd::SpinIrqSaveGuard l(paths_.lock());
		paths_.unlink_if(
			[&](const Path &p) {
				PathAge age{p.ref.read(), __atomic_load_n(&p.used_ms, __ATOMIC_RELAXED), p.retry_at};
				return path_reapable(age, now, stale_ms);
			},
			doomed);
	}
	// Outside the lock: the last put frees the Path and puts its AH (-> reap_later).
	while (Path *p = doomed.pop_front()) {
		count(stats_.path_reaped);
		p->put();
	}
}

// ---- debugfs ib_ipoib_cm/<ifname>/neigh ----

void Interface::show_neigh(kapi_seq *s)
{
	const u64 now = kapi_now_ms();
	kstd::SpinIrqSaveGuard l(paths_.lock());
	kstd::SpinIrqSaveGuard nl(neighs_.lock());
	kapi_seq_printf(s, "# %u neighbours, gc_interval %llu ms\n", neighs_.size(),
			(unsigned long long)kapi_arp_gc_interval_ms());
	neighs_.for_each([&](Neigh &n) {
		const Path &p = *n.path;
		kapi_seq_printf(s, "addr %*phC qpn 0x%06x gid %pI6 path %s dlid 0x%04x age %llu ms idle %llu ms\n",
				int(kHwAddrLen), n.addr.b, n.addr.qpn(), n.addr.gid(),
				p.ah ? "resolved" : (p.querying ? "querying" : "unresolved"), p.dlid,
				(unsigned long long)kstd::ms_since(now, n.created_ms),
				(unsigned long long)kstd::ms_since(now, n.last_used()));
	});
}

} // namespace ipoib
