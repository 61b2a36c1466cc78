// SPDX-License-Identifier: GPL-2.0
// ipoib_ud_qp.cpp - the UD QP's lifetime, transitions and events (ipoib_ud_qp.h).
#include "core/ud/ipoib_ud_qp.h"

namespace ipoib {

Status UdQp::create(kapi_pd *pd, kapi_cq *send_cq, kapi_cq *recv_cq, u32 send_wr, u32 recv_wr)
{
	kapi_qp_init init{};
	init.ctx = ctx();
	init.send_wr = send_wr;
	init.recv_wr = recv_wr;
	init.signal_all = 1;
	qp_ = kapi_ud_qp_create(pd, send_cq, recv_cq, &init);
	if (!qp_)
		return Status::NoMem;
	qpn_ = kapi_qp_num(qp_);
	return Status::Ok;
}

Status UdQp::to_rts(u32 port, u16 pkey_index)
{
	port_ = port;
	pkey_index_ = pkey_index;
	KSTD_TRY(kstd::from_errno(kapi_ud_qp_to_init(qp_, port, pkey_index, qkey())));
	KSTD_TRY(kstd::from_errno(kapi_ud_qp_to_rts(qp_)));
	ready_ = true;
	return Status::Ok;
}

Status UdQp::reset_to_rts()
{
	if (!qp_)
		return Status::NoDevice;
	ready_ = false;
	KSTD_TRY(kstd::from_errno(kapi_qp_to_reset(qp_)));
	KSTD_TRY(kstd::from_errno(kapi_ud_qp_to_init(qp_, port_, pkey_index_, qkey())));
	KSTD_TRY(kstd::from_errno(kapi_ud_qp_to_rts(qp_)));
	ready_ = true;
	return Status::Ok;
}

void UdQp::to_error()
{
	if (qp_)
		kstd::ignore(kstd::from_errno(kapi_qp_to_error(qp_)));
}

void UdQp::destroy()
{
	if (qp_)
		kapi_qp_destroy(kstd::exchange(qp_, static_cast<kapi_qp *>(nullptr)));
	ready_ = false;
}

UdQp::Recovery UdQp::recover()
{
	if (!qp_ || !ready_)
		return Recovery::NotNeeded;
	const int st = kapi_qp_state(qp_);
	Recovery r;
	int err = 0;
	if (st == KAPI_QPS_SQE) {
		err = kapi_ud_qp_sqe_to_rts(qp_);
		r = err ? Recovery::Failed : Recovery::Recovered;
	} else if (st == KAPI_QPS_ERR) {
		return Recovery::InError;	// the owner's repair, which logs it
	} else if (st < 0) {
		err = st;
		r = Recovery::Failed;
	} else {
		return Recovery::NotNeeded;	// the error did not stop the queue (or RTS already)
	}
	u32 missed = 0;
	if (!recover_log_.allow(kapi_now_ms(), missed))
		return r;
	if (r == Recovery::Recovered)
		log_.warn("UD QP 0x%06x: send queue error (SQE), back to RTS (%u more not logged; counted ud_qp_recoveries)",
			  qpn_, missed);
	else
		log_.err("UD QP 0x%06x: cannot recover from a send error: %d (%u more not logged; counted ud_qp_recovery_failures)",
			 qpn_, err, missed);
	return r;
}

// A UD QP has no connection: COMM_EST and LAST_WQE_REACHED do not happen to it. A fatal
// error (IBA 11.6.3.1) leaves it in ERROR; the owner's work repairs it (Interface::
// repair_ud_qp, UdRepair), never this handler (atomic context). Every event is counted per
// kind (ethtool -S qp_event_*, UdQp::events); a fatal one is logged at most LogLimit's rate.
void UdQp::event(kapi_qp_event_kind kind)
{
	events_.count(kind);
	if (kind != KAPI_QPEV_FATAL)
		return;
	u32 missed = 0;
	if (event_log_.allow(kapi_now_ms(), missed))
		log_.err("UD QP 0x%06x: fatal asynchronous error: a repair is requested (%u more not logged)", qpn_, missed);
	if (fatal_fn_)
		fatal_fn_(fatal_owner_);
}

} // namespace ipoib
