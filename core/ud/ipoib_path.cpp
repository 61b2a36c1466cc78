// SPDX-License-Identifier: GPL-2.0
// ipoib_path.cpp - unicast resolution: the destination GID of a 20-octet address needs an
// SA PathRecord (LID, SL, rate: RFC 4391 §9.1.2) before a UD send can go out. One Path per
// GID with its AH; packets wait in a bounded queue while the query runs (drops counted).
// AHs are counted, so one replaced or flushed here lives until its last send completed.
// xmit first looks the 20-octet address up in the RCU neighbour table (ipoib_neigh.cpp):
// a hit with a resolved Path sends without a lock or an allocation; everything else takes
// the slow path here. A failed query puts the Path into back-off (ipoib_neigh_policy.h):
// packets to it are dropped, counted, without a new query until the back-off has passed.
#include "core/ipoib_hold.h"
#include "ipoib_if.h"

namespace ipoib {

namespace {

constexpr unsigned kPathQueryTimeoutMs = 1000;

} // namespace

void Interface::send_unicast(kapi_skb *skb, const HwAddr &dst)
{
	const u64 now = kapi_now_ms();
	Ah *a = nullptr;
	kapi_rcu_read_lock();
	if (Neigh *n = neighs_.lookup(dst)) {
		n->touch(now);
		// The Path outlives the Neigh's grace period and holds its AH: a get is safe.
		Path *p = n->path;
		a = p->live_ah();
		if (a)
			p->touch(now);
	}
	kapi_rcu_read_unlock();
	// No reference: xmit holds the tx lock, so the AH outlives this send (ipoib_ah.h).
	if (a)
		return send(skb, *a, dst.qpn(), qp_.qkey());
	send_unicast_slow(skb, dst, now);
}

// No neighbour, or its Path is not resolved: find or create the Path (and the Neigh
// pointing at it), then send, queue, drop during back-off, or start the query.
void Interface::send_unicast_slow(kapi_skb *skb, const HwAddr &dst, u64 now)
{
	// It may wait for the query: a control socket's packet gives its socket's shared send
	// buffer back first (before the path lock), or it would pin it meanwhile (ipoib_hold.h;
	// kPendingQueue bounds what waits).
	hold_uncharge(skb);
	Ah *ah = nullptr;	// read under the lock; lives on by the last-send rule (ipoib_ah.h)
	Path *query = nullptr;
	u64 *dropped = nullptr;
	Neigh *retired = nullptr;
	{
		kstd::SpinIrqSaveGuard l(paths_.lock());
		Path *p = paths_.find_or_add(*this, dst.gid());
		if (p) {
			p->touch(now);
			neigh_attach(dst, *p, now, retired);
		}
		if (!p) {
			dropped = &stats_.tx_drop_path_nomem;
		} else if (p->ah) {
			ah = p->ah.get();
		} else if (p->querying) {
			if (!p->queue.push(skb))
				dropped = &stats_.tx_drop_path_queue_full;
		} else if (path_in_backoff(now, p->retry_at)) {
			dropped = &stats_.tx_drop_path_backoff;
		} else if (!p->queue.push(skb)) {
			dropped = &stats_.tx_drop_path_queue_full;
		} else {
			p->querying = true;
			p->get();	// the query's reference
			p->get();	// ours, until the query id is stored: a flush + a fast answer
					// could otherwise drop the last one while we are still here
			queries_.begin();
			query = p;
		}
	}
	NeighTable::retire(retired);
	if (dropped)
		return drop(skb, *dropped);
	if (ah)
		return send(skb, *ah, dst.qpn(), qp_.qkey());
	if (!query)
		return;
	count_local(stats_.path_queries);	// xmit only (tx lock)
	void *q = nullptr;
	const LocalAddrs me = local_addrs();	// xmit context: the published copy
	int id = kapi_sa_path_query(ib_, port_, query->gid, me.gid, pkey_, kPathQueryTimeoutMs, query, &q);
	if (id < 0) {
		path_done(*query, id, nullptr, 0);
	} else {
		bool cancel = false;
		{
			kstd::SpinIrqSaveGuard l(paths_.lock());
			if (query->querying) {
				query->query_id = id;
				query->query = q;
				// flushed before the id was known, so path_flush could not cancel it
				cancel = query->dead;
			}
		}
		if (cancel)
			kapi_sa_cancel(id, q);
	}
	query->put();	// outside the lock: it may be the last reference
}

void Interface::path_done(Path &p, int status, kapi_path *rec, u16 dlid)
{
	AhRef ah;
	kapi_cm_path *cm_rec = nullptr;	// connected mode's REQ needs the record itself
	if (status == 0 && rec) {
		cm_rec = kapi_cm_path_save(rec);
		kapi_ah *kah = kapi_ah_create_path(pd_.get(), port_, rec);
		Ah *a = kah ? new (Gfp::Kernel) Ah(*this, kah) : nullptr;
		if (kah && !a)
			kapi_ah_destroy(kah);
		if (a)
			ah = AhRef::adopt(a);
		else
			count(stats_.path_ah_errors);
	} else {
		count(stats_.path_query_errors);
	}
	SkbQueue pending;
	bool resolved = false;
	{
		kstd::SpinIrqSaveGuard l(paths_.lock());
		p.querying = false;
		p.query = nullptr;
		p.query_id = -1;
		if (!p.dead && ah) {
			p.ah = kstd::move(ah);
			__atomic_store_n(&p.ah_live, p.ah.get(), __ATOMIC_RELEASE);
			p.dlid = dlid;
			cm_rec = kstd::exchange(p.cm_rec, cm_rec);	// the old one is freed below
			p.backoff_ms = 0;
			p.retry_at = 0;
			resolved = true;
		} else if (!p.dead) {
			p.backoff_ms = path_backoff_next(p.backoff_ms);
			p.retry_at = kapi_now_ms() + p.backoff_ms;
			u32 missed = 0;
			if (path_log_.allow(kapi_now_ms(), missed))
				log_.debug("path to %pI6 not resolved (%d); no new query for %u ms (%u more not logged)",
					   p.gid, status, p.backoff_ms, missed);
		}
		kapi_skb *skb;
		while (p.queue.pop(skb))
			if (!pending.push(skb))
				kapi_skb_free(skb);
	}
	if (resolved) {
		requeue(pending);
	} else {
		kapi_skb *skb;
		while (pending.pop(skb))
			drop_shared(skb, stats_.tx_drop_path_failed);
	}
	ah.reset();
	if (cm_rec)
		kapi_cm_path_free(cm_rec);
	p.put();
	queries_.end();
}

// Port events and ifdown: every neighbour and every path goes, together under both locks
// so no neighbour ever points at a flushed path; back-offs are forgotten with the paths.
void Interface::path_flush()
{
	kstd::List<Path> doomed;
	Neigh *neighs;
	{
		kstd::SpinIrqSaveGuard l(paths_.lock());
		{
			kstd::SpinIrqSaveGuard nl(neighs_.lock());
			neighs = neighs_.unlink_if([](Neigh &) { return true; });
		}
		paths_.unlink_all(doomed);
	}
	count(stats_.neigh_flushed, NeighTable::retire(neighs));
	for (;;) {
		Path *p;
		int id = -1;
		void *q = nullptr;
		SkbQueue pending;
		{
			kstd::SpinIrqSaveGuard l(paths_.lock());
			p = doomed.pop_front();
			if (!p)
				break;
			if (p->querying) {
				id = p->query_id;
				q = p->query;
			}
			kapi_skb *skb;
			while (p->queue.pop(skb))
				if (!pending.push(skb))
					kapi_skb_free(skb);
		}
		if (q)
			kapi_sa_cancel(id, q);
		kapi_skb *skb;
		while (pending.pop(skb))
			drop_shared(skb, stats_.tx_drop_path_failed);
		p->put();
	}
}

// RCU: the neighbour of dst points at a Path with an AH (and so a saved record).
bool Interface::path_resolved(const HwAddr &dst)
{
	kapi_rcu_read_lock();
	Neigh *n = neighs_.lookup(dst);
	const bool ok = n && n->path->live_ah();
	kapi_rcu_read_unlock();
	if (ok)
		return true;
	// RC traffic does not touch the neighbour, so the GC collects it while its Path (AH and
	// record) stays: a new connection to that peer must not send its first packets over UD,
	// where one above the UD MTU gets frag-needed with 2044 and lowers the route's PMTU for
	// 10 minutes (e2e ipoib-cm-storm, round 3). Called under the CM table's lock: the path
	// lock nests inside it (nothing takes them the other way round).
	kstd::SpinIrqSaveGuard l(paths_.lock());
	const Path *p = paths_.find(dst.gid());
	return p && p->live_ah() && p->cm_rec;
}

void Interface::show(DebugView which, kapi_seq *s)
{
	if (which == DebugView::Neigh)
		return show_neigh(s);
	if (which == DebugView::Connections)
		return cm_.show(s);
	if (which == DebugView::SendAccepted)
		return cm_.show_send_accepted(s);
	if (which == DebugView::RcSend)
		return cm_.show_rc_send(s);
	if (which == DebugView::CmLimits)
		return cm_.show_limits(s);
	if (which == DebugView::Paths) {
		const u64 now = kapi_now_ms();
		kstd::SpinIrqSaveGuard l(paths_.lock());
		paths_.for_each([&](const Path &p) {
			const bool backoff = !p.ah && !p.querying && path_in_backoff(now, p.retry_at);
			// refs: the table's + one per neighbour + one while a query runs
			kapi_seq_printf(s, "gid %pI6 dlid 0x%04x %s queued %u refs %u idle %llu ms", p.gid, p.dlid,
					p.ah ? "resolved" : (p.querying ? "querying" : (backoff ? "backoff" : "unresolved")),
					p.queue.size(), p.ref.read(), (unsigned long long)kstd::ms_since(now, p.used_ms));
			if (backoff)
				kapi_seq_printf(s, " retry in %llu ms (back-off %u ms)",
						(unsigned long long)(p.retry_at - now), p.backoff_ms);
			kapi_seq_printf(s, "\n");
		});
		return;
	}
	static const char *const states[] = {"idle", "joining", "joined", "failed"};
	mcast_.for_each([s](const McGroup &g) {
		kapi_seq_printf(s, "mgid %pI6 mlid 0x%04x %s %s%s queued %u\n", g.mgid, g.mlid, states[int(g.state)],
				g.broadcast ? "broadcast" : (g.sendonly ? "sendonly" : "full"), g.attached ? " attached" : "",
				g.queue.size());
	});
}

} // namespace ipoib
