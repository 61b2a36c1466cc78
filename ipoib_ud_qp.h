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

#include "ipoib_ctx.h"
#include "ipoib_log_limit.h"
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
	// RESET -> INIT (P_Key index, Q_Key 0 until the broadcast join says, RFC 4391 §5) -> RTS.
	Status to_rts(u32 port, u16 pkey_index);
	bool ready() const { return ready_; }
	Status set_qkey(u32 qkey) { return kstd::from_errno(kapi_qp_set_qkey(qp_, qkey)); }
	Status attach(const u8 *mgid, u16 mlid) { return kstd::from_errno(kapi_qp_attach_mcast(qp_, mgid, mlid)); }
	Status detach(const u8 *mgid, u16 mlid) { return kstd::from_errno(kapi_qp_detach_mcast(qp_, mgid, mlid)); }
	// Teardown step 2 (quiesce): every posted request completes with a flush error.
	void to_error();
	void destroy();

	kapi_qp *raw() const { return qp_; }
	u32 qpn() const { return qpn_; }
	bool owns(const kapi_wc &wc) const { return wc.qp_ctx == static_cast<const kapi_ctx *>(this); }

	// The work, after a send completed in error (TxRing::take_qp_error): IBA 10.3.1 moves a
	// UD QP to SQE on a send error; its send queue stops (later sends are flushed) while
	// receives go on. SQE is moved back to RTS (Recovered); ERROR is not repaired here (the
	// recv ring stopped on its flush: see event()). Logged at most LogLimit's rate.
	enum class Recovery : u8 { NotNeeded, Recovered, Failed, InError };
	Recovery recover();

	// From the provider's event handler (atomic context).
	void event(kapi_qp_event_kind kind);
	const QpEventCounts &events() const { return events_; }

private:
	kstd::Logger &log_;
	kapi_qp *qp_ = nullptr;
	u32 qpn_ = 0;
	bool ready_ = false;
	QpEventCounts events_;
	LogLimit recover_log_;
};

} // namespace ipoib
