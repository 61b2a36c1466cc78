// SPDX-License-Identifier: GPL-2.0
// ipoib_cm_policy.cpp - connected mode's CM rules outside the state machine (ipoib_cm_state.h):
// the CM and transport timing parameters, REJ classification, the names of states, actions
// and counters, and which events and actions may run where. Pure: no kernel calls; the one
// global is the log rate limit of connection event notes.
#include "core/cm/ipoib_cm_notes.h"

namespace ipoib {
// The rate limits of connection event notes (ipoib_cm_notes.h): here, in the state machine's
// rules, so the driver and both test builds (which have no connection code) link them.
constinit NoteLimits g_cm_note_limits;
} // namespace ipoib

namespace ipoib::cm {

// ---- parameters

u32 rnr_timer_10us(u8 code)
{
	// IBA 9.7.5.2.8, "Encoding of RNR NAK timer field", in units of 10 us (0 is the largest).
	static constexpr u32 kTable[32] = {
		65536, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192,
		256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192, 12288, 16384, 24576, 32768, 49152,
	};
	return kTable[code & 31];
}

u32 cm_time_ms(u8 n)
{
	u8 t = n & 31;	// a 5-bit field
	return t > 8 ? 1u << (t - 8) : 1;	// core/cm.c cm_convert_to_ms: 1 << max(t - 8, 0)
}

u32 cm_dead_peer_ms(u8 packet_life, u8 response_timeout, u8 retries)
{
	return (u32(retries) + 1) * (2 * cm_time_ms(packet_life) + cm_time_ms(response_timeout));
}

ReqBound req_timers_check(const ReqTimers &t)
{
	if (t.remote_response > kReqMaxCmResponseTimeout || t.local_response > kReqMaxCmResponseTimeout)
		return ReqBound::CmResponseTimeout;
	if (t.local_ack > kReqMaxLocalAckTimeout)
		return ReqBound::LocalAckTimeout;
	return ReqBound::Ok;
}

bool accept_overdue(u64 now_ms, u64 since_ms)
{
	return kstd::i64(now_ms - since_ms) >= kstd::i64(kAcceptDeadlineMs);
}

u64 connect_deadline_ms(u8 packet_life, u8 response_timeout, u8 retries)
{
	if (packet_life == kConnectLifeUnknown)
		return kConnectDeadlineMs;
	const u64 cm = u64(cm_dead_peer_ms(packet_life, response_timeout, retries)) + kConnectSlackMs;
	return cm > kConnectDeadlineMs ? cm : kConnectDeadlineMs;
}

bool connect_overdue(u64 now_ms, u64 since_ms, u64 deadline_ms)
{
	return kstd::i64(now_ms - since_ms) >= kstd::i64(deadline_ms);
}

u64 iba_time_ns(u8 n)
{
	return u64(4096) << (n & 31);	// 4.096 us * 2^n, a 5-bit field
}

bool send_stalled(u32 outstanding, u64 now_ms, u64 last_progress_ms)
{
	return outstanding > 0 && kstd::i64(now_ms - last_progress_ms) > kstd::i64(kSendWatchdogMs);
}

u32 cq_conns_fit(u32 max_cqe, u32 fixed, u32 per_conn, u32 want)
{
	if (max_cqe <= fixed || !per_conn)
		return 0;
	const u32 fit = (max_cqe - fixed) / per_conn;
	return fit < want ? fit : want;
}

u32 cq_conns_grow(u32 have, u32 need, u32 max)
{
	if (need > max)
		return 0;
	if (need <= have)
		return have;
	kstd::u64 n = have < kCqInitialConns ? kCqInitialConns : have;
	while (n < need)
		n *= 2;
	return n < max ? u32(n) : max;
}

// ---- REJ classification

RejClass classify_rej(u8 reason, usize attempt, bool bidir_pair, bool crossing_expected,
		      bool crossing_refused)
{
	switch (reason) {
	case rej::kInvalidServiceId:
		// ib_cm answers a REQ for a service ID nobody listens on with this reason
		// (core/cm.c cm_req_handler): the peer may be an RFC (illumos-style) listener.
		return attempt + 1 < kConnectAttempts ? RejClass::RetryRfcSid : RejClass::FallBack;
	case rej::kConsumer:
		// We refused the peer's crossing REQ: its connection will not come, whatever
		// its REJ says (waiting for it would only end at the AwaitOther deadline).
		if (crossing_refused)
			return RejClass::FallBack;
		return bidir_pair || crossing_expected ? RejClass::Crossing : RejClass::FallBack;
	case rej::kStaleConn:		// the peer's ib_cm still has our old QPN in timewait
	case rej::kTimeout:		// the peer destroyed its side mid-setup (cm_destroy_id)
	case rej::kInvalidCommId:	// the peer's ib_cm lost the communication ID
	case rej::kInvalidCommInstance:
	case rej::kDuplicateLocalCommId:
		return RejClass::Stale;
	default:
		// No QP / resources (the peer's limit), unsupported path parameters, MTU, RNR,
		// redirects (not supported): no connection to this peer for now.
		return RejClass::FallBack;
	}
}

u8 rej_reason_for(PrivDataResult bad)
{
	return bad == PrivDataResult::MtuTooSmall ? rej::kInvalidMtu : rej::kUnsupported;
}

// ---- names

namespace {

constexpr const char *kStateNames[kStateCount] = {
	"idle", "connecting", "accepting", "established", "draining", "closed",
};

constexpr const char *kActionNames[kActionCount] = {
	"create_qp", "qp_init", "post_recv", "qp_rtr", "qp_rts", "send_req", "send_rep",
	"send_rtu", "send_rej", "cm_notify", "send_dreq", "send_drep", "stop_sending", "quiesce_tx", "qp_err",
	"post_drain_wr", "start_sending", "destroy", "fall_back", "reconnect", "await_other",
	"wait_sends", "wait_drep",
};

constexpr const char *kCtrNames[kCtrCount] = {
	"cm_entered_connecting", "cm_entered_accepting", "cm_entered_established",
	"cm_entered_draining", "cm_entered_closed",
	"cm_opened", "cm_rfc_sid_retries", "cm_accepted", "cm_closed", "cm_reaped",
	"cm_watchdog_teardowns",
	"cm_rej_tx_crossing", "cm_rej_tx_priv_data", "cm_rej_tx_limit", "cm_rej_tx_no_resources",
	"cm_rej_tx_too_late", "cm_rej_tx_req_bounds", "cm_accept_timeouts",
	"cm_rej_rx_retry_rfc", "cm_rej_rx_crossing", "cm_rej_rx_stale", "cm_rej_rx_fall_back",
	"cm_rej_rx_peer",
	"cm_crossings_won", "cm_crossings_lost", "cm_crossings_both",
	"cm_req_timeouts", "cm_rep_timeouts", "cm_dreq_timeouts",
	"cm_mra_rx", "cm_comm_est", "cm_dreq_rx", "cm_peer_closed",
	"cm_rnr_retry_exceeded", "cm_retry_exceeded", "cm_wc_errors", "cm_qp_fatal",
	"cm_setup_failures", "cm_fall_backs", "cm_reconnects", "cm_drain_timeouts",
	"cm_peer_gone", "cm_connect_over_limit", "cm_crossings_refused", "cm_forced_destroys",
	"cm_neg_bidir", "cm_neg_oneway", "cm_neg_no_caps", "cm_neg_csum_free", "cm_neg_rfc_sid",
	"cm_neg_mtu_capped", "cm_qp_retry_clamped",
	"cm_ignored_events",
};

static_assert(usize(State::Closed) + 1 == kStateCount);
static_assert(usize(Ev::ConnectTimeout) + 1 == kEvCount);
static_assert(usize(Action::WaitDrep) + 1 == kActionCount);
static_assert(usize(Ctr::Ignored) + 1 == kCtrCount);

} // namespace

QpRetry clamp_qp_retry(const QpRetry &peer, u8 rnr_policy)
{
	QpRetry r = peer;
	if (r.timeout > kQpMaxLocalAckTimeout)
		r.timeout = kQpMaxLocalAckTimeout;
	if (r.retry_cnt > kQpMaxRetryCount)
		r.retry_cnt = kQpMaxRetryCount;
	if (r.rnr_retry > rnr_policy)
		r.rnr_retry = rnr_policy;
	return r;
}

const char *state_name(State s) { return usize(s) < kStateCount ? kStateNames[usize(s)] : "?"; }
const char *action_name(Action a) { return usize(a) < kActionCount ? kActionNames[usize(a)] : "?"; }
const char *ctr_name(Ctr c) { return usize(c) < kCtrCount ? kCtrNames[usize(c)] : "?"; }

bool from_atomic(Ev e)
{
	switch (e) {
	case Ev::CommEst:		// QP event handler (the provider's EQ, interrupt context)
	case Ev::LastWqeReached:
	case Ev::QpFatal:
	case Ev::WcError:		// NAPI (softirq)
	case Ev::DrainWrDone:
	case Ev::RxEmpty:
	case Ev::DrainTimeout:		// a timer
		return true;
	default:
		return false;
	}
}

bool may_sleep(Action a)
{
	switch (a) {
	case Action::CreateQp:
	case Action::QpToInit:
	case Action::PostRecv:		// allocates the ring's buffers with GFP_KERNEL
	case Action::QpToRtr:
	case Action::QpToRts:
	case Action::QpToErr:		// ib_modify_qp: mlx5_ib_modify_qp takes qp->mutex
	case Action::QuiesceTx:
	case Action::WaitSends:		// parked in the work item (a step resumed later): never
	case Action::WaitDrep:		// in the atomic context an event may arrive in
	case Action::Destroy:		// ib_destroy_cm_id, ib_destroy_qp
		return true;
	default:
		return false;
	}
}

} // namespace ipoib::cm
