// SPDX-License-Identifier: GPL-2.0
// ipoib_srq.h - a shared receive queue (IBA 10.2.9) and its asynchronous events. Connected
// mode posts its receive buffers here (one SRQ per interface serves every RC QP); datagram
// mode creates none, so until then only the events path is exercised (kunit test_rings).
//
// Owner: the interface's connected-mode part (next). Who may still hold ctx(): the provider,
// in SRQ events and in the completions of RC QPs attached to it, until destroy() returns.
#pragma once

#include "core/ud/ipoib_ud_qp.h"

namespace ipoib {

class Srq : public Tagged<KAPI_CTX_SRQ>, kstd::NonCopyable {
public:
	explicit Srq(kstd::Logger &log) : log_(log) {}
	~Srq() { destroy(); }

	// limit: arm SRQ_LIMIT_REACHED for when fewer than limit buffers remain (0: not armed).
	// max_sge: RecvRing::sges_for() of its buffers.
	Status create(kapi_pd *pd, u32 max_wr, u32 max_sge, u32 limit)
	{
		srq_ = kapi_srq_create(pd, max_wr, max_sge, limit, ctx());
		return srq_ ? Status::Ok : Status::NoMem;
	}
	Status arm_limit(u32 limit) { return kstd::from_errno(kapi_srq_arm_limit(srq_, limit)); }
	void destroy()
	{
		if (srq_)
			kapi_srq_destroy(kstd::exchange(srq_, static_cast<kapi_srq *>(nullptr)));
	}
	kapi_srq *raw() const { return srq_; }

	// From the provider's event handler (atomic context). SRQ_LIMIT_REACHED disarms the
	// limit (IBA 11.6.3.2): the owner re-arms it after refilling; counted either way.
	void event(kapi_qp_event_kind kind)
	{
		events_.count(kind);
		if (kind == KAPI_QPEV_SRQ_ERR)
			log_.err("SRQ error: its receives are lost until the interface restarts");
	}
	const QpEventCounts &events() const { return events_; }

private:
	kstd::Logger &log_;
	kapi_srq *srq_ = nullptr;
	QpEventCounts events_;
};

// The asynchronous-event entry points' dispatch (ipoib_entry.cpp): by the context's tag, to
// the QP or SRQ it names; anything else warns (from_ctx) and is dropped.
inline void deliver_qp_event(kapi_ctx *c, kapi_qp_event_kind kind)
{
	if (UdQp *qp = from_ctx<UdQp>(c))
		qp->event(kind);
}
inline void deliver_srq_event(kapi_ctx *c, kapi_qp_event_kind kind)
{
	if (Srq *s = from_ctx<Srq>(c))
		s->event(kind);
}

} // namespace ipoib
