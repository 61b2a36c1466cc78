// SPDX-License-Identifier: GPL-2.0
// ipoib_ud_qp.h - the interface's UD QP (RFC 4391 §5: one UD QP carries every datagram,
// unicast and multicast): its creation with a tagged context, the state transitions
// (IBA 10.3: RESET -> INIT -> RTR -> RTS, and to ERROR for teardown), the Q_Key, multicast
// attach/detach, and its affiliated asynchronous events.
//
// Owner: Interface (a member). Who may still hold a reference to ctx(): the provider, in
// every completion of this QP and in its event handler, until destroy() has returned
// (ib_destroy_qp flushes both). Interface::teardown moves the QP to ERROR and destroys it
// only after NAPI is disabled and the netdev unregistered.
#pragma once

#include "core/ipoib_ctx.h"
#include "core/ipoib_log_limit.h"
#include "kstd/log.h"
#include "kstd/status.h"

namespace ipoib {

using kstd::Status;
using kstd::u16;
using kstd::u32;
using kstd::u64;
using kstd::u8;

// Affiliated events (IBA 11.6.3) the QP and, next, the SRQ and RC QPs report; counted per kind.
struct QpEventCounts {
	u64 n[KAPI_QPEV_KIND_COUNT] = {};
	void count(kapi_qp_event_kind k)
	{
		u32 i = u32(k) < KAPI_QPEV_KIND_COUNT ? u32(k) : u32(KAPI_QPEV_OTHER);
		__atomic_fetch_add(&n[i], 1, __ATOMIC_RELAXED);
	}
	u64 get(kapi_qp_event_kind k) const { return __atomic_load_n(&n[k], __ATOMIC_RELAXED); }
};

class UdQp : public Tagged<KAPI_CTX_UD_QP>, kstd::NonCopyable {
public:
	explicit UdQp(kstd::Logger &log) : log_(log) {}
	~UdQp() { destroy(); }

	// Every send signalled: the send ring frees a slot per completion (TxRing), and an
	// unsignalled UD send would hold its skb and AH until a later one completes.
	Status create(kapi_pd *pd, kapi_cq *send_cq, kapi_cq *recv_cq, u32 send_wr, u32 recv_wr);
	// RESET -> INIT (P_Key index, qkey(): 0 before the first broadcast join, RFC 4391 §5;
	// a QP rebuilt later, ethtool -G, comes up with the link's Q_Key already known) -> RTS.
	Status to_rts(u32 port, u16 pkey_index);
	bool ready() const { return ready_; }
	// The link's Q_Key (RFC 4391 §5: the broadcast group's): this object is its one owner.
	// set_qkey() (the broadcast join, the work) records it and sets it in the QP; qkey() is
	// what every UD send names (xmit, any context) and what a repair brings the QP back with.
	// Recorded even when the QP refuses it: sends still name the group's Q_Key. 0 before the
	// first join. Kept across destroy()/create(): to_rts() brings a new QP up with it.
	Status set_qkey(u32 qkey)
	{
		__atomic_store_n(&qkey_, qkey, __ATOMIC_RELAXED);
		return kstd::from_errno(kapi_qp_set_qkey(qp_, qkey));
	}
	u32 qkey() const { return __atomic_load_n(&qkey_, __ATOMIC_RELAXED); }
	Status attach(const u8 *mgid, u16 mlid) { return kstd::from_errno(kapi_qp_attach_mcast(qp_, mgid, mlid)); }
	Status detach(const u8 *mgid, u16 mlid) { return kstd::from_errno(kapi_qp_detach_mcast(qp_, mgid, mlid)); }
	// The QP in ERROR brought back (Interface::repair_ud_qp, after every flushed WR was
	// polled): IBA 10.3.1 lets a QP leave ERROR only through RESET, so RESET -> INIT (the
	// port and P_Key index to_rts() last had, and qkey()) -> RTR -> RTS.
	// The QPN stays, and with it the link-layer address (RFC 4391 §9.1.1) peers hold; its
	// multicast attachments stay too (ib_attach_mcast binds the QP, not a state: rxe, rdmavt
	// and softib drop them only on detach or destroy). Failure leaves the QP wherever the
	// refused transition found it (ready() false until a later call succeeds).
	Status reset_to_rts();
	// Teardown step 2 (quiesce): every posted request completes with a flush error.
	void to_error();
	void destroy();

	kapi_qp *raw() const { return qp_; }
	u32 qpn() const { return qpn_; }
	bool owns(const kapi_wc &wc) const { return wc.qp_ctx == static_cast<const kapi_ctx *>(this); }

	// The work, after a send completed in error (TxRing::take_qp_error): IBA 10.3.1 moves a
	// UD QP to SQE on a send error; its send queue stops (later sends are flushed) while
	// receives go on. SQE is moved back to RTS (Recovered); ERROR (InError) is the
	// interface's repair (reset_to_rts, UdRepair). Logged at most LogLimit's rate.
	enum class Recovery : u8 { NotNeeded, Recovered, Failed, InError };
	Recovery recover();

	// From the provider's event handler (atomic context): counted; a fatal error (the QP is
	// in ERROR) is handed to the owner's hook, which asks its work for the repair.
	void event(kapi_qp_event_kind kind);
	using FatalHook = void (*)(void *owner);
	void on_fatal(FatalHook fn, void *owner)
	{
		fatal_fn_ = fn;
		fatal_owner_ = owner;
	}
	const QpEventCounts &events() const { return events_; }

private:
	kstd::Logger &log_;
	kapi_qp *qp_ = nullptr;
	u32 qpn_ = 0;
	bool ready_ = false;
	u32 port_ = 0;		// what to_rts() last brought the QP up with (reset_to_rts)
	u16 pkey_index_ = 0;
	u32 qkey_ = 0;		// atomic: qkey()
	QpEventCounts events_;
	LogLimit recover_log_;
	LogLimit event_log_;
	FatalHook fatal_fn_ = nullptr;	// set before create(): no event can race it
	void *fatal_owner_ = nullptr;
};

} // namespace ipoib
