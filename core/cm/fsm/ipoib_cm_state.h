// SPDX-License-Identifier: GPL-2.0
// ipoib_cm_state.h - the per-connection CM/QP state machine of connected mode as pure logic
// (no kernel calls, host-compilable, for KUnit), the classification of received REJ reasons,
// and the CM/transport parameters the driver asks for. The core drives one Conn per RC QP:
// it feeds every local intent, CM event, QP event and drain completion to Conn::on(), and
// executes the returned actions in order. Design and state table: docs/connected.md.
// Built into the driver (nothing calls it yet) and the KUnit module.
#pragma once

#include "core/cm/ipoib_cm_wire.h"	// PrivDataResult, Survivor (header-only use)
#include "core/cm/ipoib_cm_send_clock.h"

namespace ipoib::cm {

// ---- CM and transport parameters (docs/connected.md §3). IBA time values are encoded as
// 4.096 us * 2^n (IBA 12.6.5 REQ "Remote/Local CM Response Timeout", 9.7.6.1.3 local ACK
// timeout); ib_cm converts n to milliseconds as 2^(n-8) (core/cm.c cm_convert_to_ms), i.e.
// 4.096 us * 2^n rounded down to a power of two of ms.
//
// Remote and local CM response timeout: n = 18, 4.096 us * 2^18 = 1.073741824 s (ib_cm: 1024 ms).
// The REQ's MAD is resent after that plus twice the path's packet lifetime (core/cm.c
// ib_send_cm_req: timeout_ms = 2 * life + response), kMaxCmRetries times. Linux asks for
// n = 20 (4.29 s) and 15 retries: 16 * 4.29 s = 68.7 s before a dead peer's REQ fails.
inline constexpr u8 kCmResponseTimeout = 18;
// 4 retries = 5 sends: a REQ to a dead CM fails after 5 * (1.024 s + 2 * life); with a
// packet lifetime of 14 (4.096 us * 2^14 = 67 ms, ib_cm: 64 ms; softib's paths) that is
// 5 * 1.152 s = 5.8 s. The REP we send as passive side is retried as the peer's REQ asks
// (ib_cm copies its Local CM Response Timeout and Max CM Retries): Linux's 20/15.
inline constexpr u8 kMaxCmRetries = 4;
// ---- What a REQ may ask of us (its timers, which ib_cm copies into our cm_id before we see
// the REQ; IBA 12.6.5 REQ fields). Anyone on the partition writes them, and ib_cm then waits
// them out: the REP we send is resent every Local CM Response Timeout, Max CM Retries times,
// and ib_destroy_cm_id (rmmod, ifdown) waits for that REP MAD when the id entered TIMEWAIT
// from REP_SENT (core/cm.c cm_send_rej_locked does not cancel it); TIMEWAIT itself lasts the
// local ACK timeout (core/cm.c cm_enter_timewait: av.timeout = packet lifetime + 1), and the
// passive QP retries sends for that long. A REQ asking for more than these bounds is rejected
// (REJ 5 "Unsupported Request", our private data; counted cm_rej_tx_req_bounds).
//
// CM response timeouts (remote and local, 5 bits): at most 20 = 4.096 us * 2^20 = 4.3 s, what
// the in-tree Linux driver, the largest value any known implementation sends, asks for.
inline constexpr u8 kReqMaxCmResponseTimeout = 20;
// Max CM Retries (4 bits) is not in ib_cm's REQ event, so the bound assumes its largest value,
// 15 (Linux's): the REP's whole retry budget, 16 * cm_time_ms(local), is then at most Linux's own
// 16 * 4096 ms = 65.5 s.
inline constexpr u32 kReqMaxRepRetryMs = 16 * 4096;
static_assert(16 * (1u << (kReqMaxCmResponseTimeout - 8)) <= kReqMaxRepRetryMs);
// The primary path's local ACK timeout (5 bits, 4.096 us * 2^n): at most 21 (8.6 s; ib_cm
// 8192 ms of TIMEWAIT). ib_cm's own REQs send packet lifetime + 1 or the CA's ACK delay, the
// larger (core/cm.c cm_ack_timeout); OpenSM's default subnet lifetime 18 gives 19, and a
// fabric that needs more than 8 s per hop is not one connected mode can serve.
inline constexpr u8 kReqMaxLocalAckTimeout = 21;
struct ReqTimers {
	u8 remote_response = 0;	// Remote CM Response Timeout
	u8 local_response = 0;	// Local CM Response Timeout: ib_cm's REP resend interval
	u8 local_ack = 0;	// Primary Local ACK Timeout: TIMEWAIT, the passive QP's timeout
};
enum class ReqBound : u8 { Ok, CmResponseTimeout, LocalAckTimeout };
ReqBound req_timers_check(const ReqTimers &t);
// What ib_cm copies from a REQ/REP into our RC QP at RTS (IBA 9.7.6.1.3 timeout and
// retry_cnt, 9.7.5.2.8 rnr_retry) is bounded by local policy before ib_modify_qp: a timeout of
// 31 (2.4 h per retry) with 7 retries would hold a send to a dead peer for most of a day, past
// the send watchdog's reach (the watchdog tears down, but the QP's flush still waits for the
// retries), and a peer's rnr_retry 7 would make our finite cm_rnr_retry infinite.
inline constexpr u8 kQpMaxLocalAckTimeout = kReqMaxLocalAckTimeout;
inline constexpr u8 kQpMaxRetryCount = 3;
struct QpRetry {
	u8 timeout = 0;		// local ACK timeout, IBA time value
	u8 retry_cnt = 0;	// transport retries
	u8 rnr_retry = 0;	// RNR retries, 7 = infinite
	bool operator==(const QpRetry &o) const
	{
		return timeout == o.timeout && retry_cnt == o.retry_cnt && rnr_retry == o.rnr_retry;
	}
};
// Each lowered to its bound: timeout to kQpMaxLocalAckTimeout, retry_cnt to kQpMaxRetryCount,
// rnr_retry to rnr_policy (cm_rnr_retry; 7, infinite, is the largest code, so with the
// default 7 the peer's own count stands and below 7 ours is never exceeded).
QpRetry clamp_qp_retry(const QpRetry &peer, u8 rnr_policy);

// Transport retries (IBA 9.7.6.1.3 retry_cnt, 3 bits; 7 is NOT infinite for this counter):
// a send to a dead responder fails with RETRY_EXC after (2 + 1) local ACK timeouts. The
// timeout comes from the path (ib_cm: packet lifetime + 1, raised to the CA's ACK delay,
// core/cm.c cm_ack_timeout); with the packet lifetime above it is 4.096 us * 2^15..2^16 =
// 134..268 ms, so 3 * 0.27 s = 0.8 s; OpenSM's default lifetime n = 18 (-> 2^19 = 2.15 s)
// gives 6.4 s. Linux asks for 0: one lost ACK (a CRC error) kills the connection.
inline constexpr u8 kRetryCount = 2;
// RNR retries (IBA 9.7.5.2.8 RNR NAK, rnr_retry 3 bits, 7 = infinite): cm_rnr_retry's default.
// With infinite RNR retry a receiver that stops refilling would stall the sender forever:
// the send watchdog below is the bound (docs/connected.md §3).
inline constexpr u8 kRnrRetryInfinite = 7;
inline constexpr u8 kRnrRetryDefault = kRnrRetryInfinite;
inline constexpr u8 kRnrRetryMax = 7;
// min_rnr_timer (IBA 9.7.5.2.8, table 45 "RNR NAK timer field encoding", 5 bits): not 4.096 us * 2^n
// but a table, 0 = 655.36 ms, 1 = 0.01 ms ... 31 = 491.52 ms. ib_cm writes 0 at RTR
// (core/cm.c cm_init_qp_rtr_attr); the driver overrides it after ib_cm_init_qp_attr with
// cm_min_rnr_timer. Default 8 = 0.16 ms: about one NAPI refill of an empty ring; a shorter
// delay only adds RNR NAK round trips, a longer one turns each empty-ring instant into
// latency (Linux's 655 ms is a TCP stall).
inline constexpr u8 kMinRnrTimerDefault = 8;
inline constexpr u8 kMinRnrTimerMax = 31;
// The delay (in units of 10 us) a min_rnr_timer code asks the requester to wait.
u32 rnr_timer_10us(u8 code);
// Milliseconds ib_cm waits for a response to a MAD with an IBA time value n (cm_convert_to_ms).
u32 cm_time_ms(u8 n);
// Worst-case time (ms) before a CM request to a dead peer fails: every send of the MAD waits
// 2 * packet lifetime + the response timeout (core/cm.c), and there are retries + 1 sends.
u32 cm_dead_peer_ms(u8 packet_life, u8 response_timeout, u8 retries);
// An IBA time value n exactly: 4.096 us * 2^n, in ns (cm_time_ms is ib_cm's rounded-down ms).
u64 iba_time_ns(u8 n);
// The send watchdog (kSendWatchdogMs, SendClock): ipoib_cm_send_clock.h.
// A passive connection stays accepting (our REP sent, no RTU, no receive) at most this long:
// an RTU follows a REP within milliseconds, and a lost REP is resent after the REQ's Local CM
// Response Timeout (at most 4.3 s, kReqMaxCmResponseTimeout). ib_cm itself would wait the
// REQ's whole retry budget (up to 65.5 s) while the slot, its QP and ring stay ours and a
// REQ nobody answers could hold them; past the deadline the housekeeping work tears it down
// (cm_accept_timeouts) and ib_cm's destroy cancels the REP.
inline constexpr u64 kAcceptDeadlineMs = 10000;
bool accept_overdue(u64 now_ms, u64 since_ms);
// An active connection stays connecting (our REQ sent, no REP, REJ nor REQ error) at most this
// long after the REQ. ib_cm's own bound with our REQ is cm_dead_peer_ms(packet lifetime,
// kCmResponseTimeout, kMaxCmRetries): 5.8 s at softib's lifetime 14. But an MRA from the peer
// restarts ib_cm's wait with the service timeout the MRA names (core/cm.c cm_mra_handler: up to
// 4.096 us * 2^31, 2.4 h) plus the path's ACK timeout, and while the attempt is pending the
// neighbour's packets wait on its queue still charged to their sockets: a sender that blocks
// on its send buffer (ping -s 60000, a TCP write) stalls until ib_cm gives up. Past the
// deadline the housekeeping work tears the attempt down (Ev::ConnectTimeout, counted
// cm_connect_timeouts): Destroy's ib_destroy_cm_id cancels the REQ and sends a REJ, the queue
// goes back to xmit (UD, or ICMP above the UD MTU) and the peer's back-off applies (FallBack).
// The floor; a connection's own deadline is connect_deadline_ms of the REQ it sent.
inline constexpr u64 kConnectDeadlineMs = 10000;
// Added to ib_cm's own bound for an unanswered REQ, so that its REQ_ERROR (a counted
// ReqTimeout, the same fall back) comes first: our clock is read when the step is fed, before
// the work item sends the REQ; ib_cm's timer runs from its MAD's send completion.
inline constexpr u64 kConnectSlackMs = 2000;
// A packet lifetime not known for the REQ: the deadline is kConnectDeadlineMs.
inline constexpr u8 kConnectLifeUnknown = 0xff;
// The deadline (ms after the REQ) of an active connection whose REQ carried these values (the
// path's packet lifetime, the CM response timeout, max CM retries): ib_cm gives the REQ up
// after cm_dead_peer_ms of them; ours is that plus kConnectSlackMs, at least
// kConnectDeadlineMs. 10 s up to lifetime 16; 17.4 s at lifetime 18 (ib_cm: 15.4 s).
u64 connect_deadline_ms(u8 packet_life, u8 response_timeout, u8 retries);
bool connect_overdue(u64 now_ms, u64 since_ms, u64 deadline_ms);
// The receive CQ (docs/connected.md §4) holds everything that can complete on it: `fixed`
// entries (UD receives, the SRQ, the RC send bound) plus, per connection, `per_conn` (its
// own ring at its maximum without an SRQ, and its drain WR). The device bounds the CQ
// (max_cqe); the connections that fit are the bound on connections, at most `want`
// (max_nonsrq_conn_qp, or the SRQ mode bound). 0: not even one fits.
u32 cq_conns_fit(u32 max_cqe, u32 fixed, u32 per_conn, u32 want);
// The receive CQ grows with the connections open (docs/connected.md §4): it has room for `have`
// connections and `need` are counted (the one being set up included), at most `max` (what
// cq_conns_fit allows). Returns the connections to resize it for: have when it holds need
// already (never smaller: the open QPs can still complete), else have doubled (at least
// kCqInitialConns) until it holds need, capped at max; 0 when need is over max.
inline constexpr u32 kCqInitialConns = 16;
u32 cq_conns_grow(u32 have, u32 need, u32 max);
// Reconnects after a "stale" REJ before the neighbour falls back to UD for a back-off.
inline constexpr u8 kMaxStaleRetries = 2;
// RFC 4755 §3.3 crossing REJs (Consumer Reject from a bidirectional peer) in a row whose
// connection from the peer never came (AwaitOther expired each time) before a Consumer Reject
// counts as a refusal: a peer that announces kCapBidir and rejects every REQ with it would
// otherwise hold our queue for it in a connect, REJ, wait loop for ever.
inline constexpr u8 kMaxCrossingWaits = 2;

// ---- REJ reasons, IBA 12.6.7.2 table "REJ reason codes" (the values of ib_cm.h's enum).
namespace rej {
inline constexpr u8 kNoQp = 1;
inline constexpr u8 kNoEec = 2;
inline constexpr u8 kNoResources = 3;
inline constexpr u8 kTimeout = 4;
inline constexpr u8 kUnsupported = 5;
inline constexpr u8 kInvalidCommId = 6;
inline constexpr u8 kInvalidCommInstance = 7;
inline constexpr u8 kInvalidServiceId = 8;
inline constexpr u8 kInvalidTransportType = 9;
inline constexpr u8 kStaleConn = 10;
inline constexpr u8 kRdcNotExist = 11;
inline constexpr u8 kInvalidGid = 12;
inline constexpr u8 kInvalidLid = 13;
inline constexpr u8 kInvalidSl = 14;
inline constexpr u8 kInvalidTrafficClass = 15;
inline constexpr u8 kInvalidHopLimit = 16;
inline constexpr u8 kInvalidPacketRate = 17;
inline constexpr u8 kInvalidAltGid = 18;
inline constexpr u8 kInvalidAltLid = 19;
inline constexpr u8 kInvalidAltSl = 20;
inline constexpr u8 kInvalidAltTrafficClass = 21;
inline constexpr u8 kInvalidAltHopLimit = 22;
inline constexpr u8 kInvalidAltPacketRate = 23;
inline constexpr u8 kPortCmRedirect = 24;
inline constexpr u8 kPortRedirect = 25;
inline constexpr u8 kInvalidMtu = 26;
inline constexpr u8 kInsufficientRespResources = 27;
inline constexpr u8 kConsumer = 28;	// "Consumer Reject": RFC 4755 §3.3 crossing REQs
inline constexpr u8 kInvalidRnrRetry = 29;
inline constexpr u8 kDuplicateLocalCommId = 30;
inline constexpr u8 kInvalidClassVersion = 31;
inline constexpr u8 kInvalidFlowLabel = 32;
inline constexpr u8 kInvalidAltFlowLabel = 33;
inline constexpr u8 kVendorOptionNotSupported = 35;
} // namespace rej

// What a REJ received for our REQ means to the active side.
enum class RejClass : u8 {
	RetryRfcSid,	// the peer does not listen on the Linux service ID: REQ again on the RFC one
	Crossing,	// RFC 4755 §3.3: the peer kept its own crossing REQ; use that connection
	Stale,		// ib_cm state on either side is stale (timewait, reused QPN): retry on a new QP
	FallBack,	// no connection: send over UD, retry CM after a back-off
};
// reason: the IBA code; attempt: the connect attempt the REJ answers (0 = Linux service ID);
// bidir_pair: we and the peer both announce kCapBidir (the peer's block in the REJ's private
// data, or its REQ we saw); crossing_expected: we accepted the peer's crossing REQ (so it
// must reject ours); crossing_refused: we rejected the peer's crossing REQ for another reason
// (over the limit), so its connection will never come and its Consumer Reject is a refusal.
// Consumer Reject means a crossing only between bidirectional peers: from anyone else it is a
// plain refusal (ib_cm sends it without private data when a consumer's REQ handler fails,
// core/cm.c cm_destroy_id).
RejClass classify_rej(u8 reason, usize attempt, bool bidir_pair, bool crossing_expected,
		      bool crossing_refused);

// The reasons we put in the REJs we send (always with our RFC 4755 §6 private data and
// capability block, §3.2). Consumer Reject is kept for §3.3 crossings, so a peer of our kind
// can tell a crossing from a refusal.
u8 rej_reason_for(PrivDataResult bad_private_data);
inline constexpr u8 kRejCrossing = rej::kConsumer;
inline constexpr u8 kRejLimit = rej::kNoQp;		// max_nonsrq_conn_qp reached (as Linux)
inline constexpr u8 kRejNoResources = rej::kNoResources;	// setup failed, or closing
inline constexpr u8 kRejReqBounds = rej::kUnsupported;	// timers beyond ReqBound's bounds
inline constexpr u8 kRejTooLate = rej::kTimeout;	// a REP after we gave up (as ib_cm would)
// IBA 12.6.7.2: a Timeout REJ carries the rejecting CA's GUID as ARI, and the peer's ib_cm finds
// the connection by it (core/cm.c cm_acquire_rejected_id); without it the REJ is dropped and the
// peer resends its REP until REP_ERROR. The shim passes the node GUID when this says so.
inline constexpr bool rej_ari_is_ca_guid(u8 reason) { return reason == rej::kTimeout; }

// ---- the state machine

enum class Dir : u8 { Active, Passive };

// The states, with the name the debugfs `connections` file shows (state_name()).
enum class State : u8 {
	Idle,		// "idle": created, no QP yet (active before connect, passive before its REQ)
	Connecting,	// "connecting": active; QP in INIT with receives posted, REQ sent
	Accepting,	// "accepting": passive; QP in RTS with receives posted, REP sent, no RTU yet
	Established,	// "established": RTS; active, or passive after RTU / COMM_EST
	Draining,	// "draining": QP in error, waiting for the teardown fence
	Closed,		// "closed": destroyed (or never had a QP); the object is about to go
};
inline constexpr usize kStateCount = 6;
const char *state_name(State s);

enum class Ev : u8 {
	// local intents
	Connect,	// active: open (the neighbour wants to send); over_limit
	Close,		// interface down, rmmod, neighbour gone, redundant connection
	IdleTimeout,	// unused for cm_idle_timeout: reap
	SendWatchdog,	// sends outstanding and none completed for kSendWatchdogMs
	AcceptTimeout,	// passive: no RTU (nor a first receive) kAcceptDeadlineMs after the REQ
	ModeDatagram,	// admin mode set to datagram: active ones close, passive ones stop sending
	ModeConnected,	// admin mode set to connected: passive bidirectional ones may send again
	CrossingLost,	// active: we accepted the peer's crossing REQ (§3.3), it will reject ours
	CrossingRefused,	// active: we rejected the peer's crossing REQ we should have accepted
			// (over the limit): its Consumer Reject is then a refusal
	SetupFailed,	// an action the core executed failed (qp_exists says if a QP is left)
	ForceDestroy,	// interface teardown, NAPI off, the CQ destroyed next: no fence
	// CM events (ib_cm_event_type)
	ReqReceived,	// passive: priv, peer_bidir, crossing, over_limit
	RepReceived,	// active: priv, peer_bidir
	RtuReceived,
	UserEstablished,	// IB_CM_USER_ESTABLISHED, after ib_cm_notify(COMM_EST)
	RejReceived,	// rej_reason, peer_bidir (the REJ's capability block)
	MraReceived,
	DreqReceived,
	DrepReceived,
	TimewaitExit,
	ReqError,	// the REQ timed out after kMaxCmRetries
	RepError,	// the REP timed out (no RTU)
	DreqError,	// the DREQ timed out (no DREP)
	// QP events and completions
	CommEst,	// IB_EVENT_COMM_EST: a receive before the RTU
	LastWqeReached,	// IB_EVENT_QP_LAST_WQE_REACHED (SRQ-attached QPs)
	QpFatal,	// IB_EVENT_QP_FATAL / QP_ACCESS_ERR / PATH_MIG_ERR
	WcError,	// a send or receive completed in error (not a flush): wc
	DrainWrDone,	// the drain WR's completion was polled (docs/connected.md §4)
	RxEmpty,	// non-SRQ: the QP's posted-receive count reached 0 (in error: no repost);
			// reported once per QP, possibly before the error event that explains it
	DrainTimeout,	// the fence did not complete in time
	// a local deadline (after the others, whose order the tests and logs number)
	ConnectTimeout,	// active: still connecting at its deadline (connect_deadline_ms) after its REQ
};
inline constexpr usize kEvCount = 31;
// Where each event comes from: QP events, completions and timers arrive in atomic context
// (QP event handler, NAPI, timer); local intents and CM events in process context.
bool from_atomic(Ev e);

enum class Crossing : u8 { None, LocalWins, RemoteWins };
// From crossing_req_survivor(local, remote): which REQ survives at this end.
inline Crossing crossing_from(Survivor s) { return s == Survivor::Local ? Crossing::LocalWins : Crossing::RemoteWins; }

enum class WcCause : u8 { RnrRetryExceeded, RetryExceeded, Other };

// What the peer's REQ (passive) or REP (active) settled besides kCapBidir (Event::peer_bidir),
// computed by the core from the private data; the state machine counts it once per
// connection, when the connection becomes established (docs/connected.md §9).
struct Negotiated {
	bool peer_caps = false;		// the peer sent a capability block (docs/design.md §4 item 5)
	bool csum_free = false;		// both ends announce kCapCsumFree (csum_free_allowed, §9b)
	bool mtu_capped = false;	// the peer's Receive MTU is below ours: RFC 4755 §5.1's min is its
	bool rfc_sid = false;		// passive: the REQ came on the RFC 4755 §3.5 service ID
};

struct Event {
	Ev kind = Ev::Close;
	PrivDataResult priv = PrivDataResult::Ok;	// ReqReceived / RepReceived
	bool peer_bidir = false;	// Req/Rep/RejReceived: the peer's block announces kCapBidir
	Crossing crossing = Crossing::None;	// ReqReceived: our REQ to this peer is outstanding
	ReqBound req_bound = ReqBound::Ok;	// ReqReceived: req_timers_check of its timers
	bool over_limit = false;	// ReqReceived / Connect: max_nonsrq_conn_qp reached
	u8 rej_reason = 0;		// RejReceived
	WcCause wc = WcCause::Other;	// WcError
	bool qp_exists = false;		// SetupFailed
	bool qp_rts = false;		// SetupFailed: the QP reached RTS (its QpToRts ran and succeeded)
	Negotiated neg;			// ReqReceived / RepReceived

	static Event of(Ev k) { Event e; e.kind = k; return e; }
	static Event connect(bool over_limit)
	{
		Event e = of(Ev::Connect);
		e.over_limit = over_limit;
		return e;
	}
	static Event req(PrivDataResult p, bool bidir, Crossing c = Crossing::None, bool over_limit = false,
			 const Negotiated &n = {}, ReqBound b = ReqBound::Ok)
	{
		Event e = of(Ev::ReqReceived);
		e.req_bound = b;
		e.priv = p;
		e.peer_bidir = bidir;
		e.crossing = c;
		e.over_limit = over_limit;
		e.neg = n;
		return e;
	}
	static Event rep(PrivDataResult p, bool bidir, const Negotiated &n = {})
	{
		Event e = of(Ev::RepReceived);
		e.priv = p;
		e.peer_bidir = bidir;
		e.neg = n;
		return e;
	}
	static Event rej(u8 reason, bool bidir = false)
	{
		Event e = of(Ev::RejReceived);
		e.rej_reason = reason;
		e.peer_bidir = bidir;
		return e;
	}
	static Event wc_error(WcCause c) { Event e = of(Ev::WcError); e.wc = c; return e; }
	static Event setup_failed(bool qp_exists, bool qp_rts = false)
	{
		Event e = of(Ev::SetupFailed);
		e.qp_exists = qp_exists;
		e.qp_rts = qp_exists && qp_rts;
		return e;
	}
};

// What the core does, in the order a Step lists them.
enum class Action : u8 {
	CreateQp,	// RC QP: send CQ = receive CQ (docs/connected.md §4); SRQ-attached in SRQ mode;
			// non-SRQ: max_recv_wr = recv_queue_size (an RQ cannot be resized)
	QpToInit,
	PostRecv,	// non-SRQ: post nonsrq_min_recv buffers; SRQ: the SRQ holds receives. Always
			// before the REQ/REP goes out (docs/design.md §4 item 2)
	QpToRtr,	// ib_cm_init_qp_attr(RTR), then min_rnr_timer = cm_min_rnr_timer
	QpToRts,	// ib_cm_init_qp_attr(RTS); passive: before the REP (a drain WR on a QP
			// that never reached RTS may never complete, ipoib_cm.c's firmware note)
	SendReq,	// on connect_service_id(attempt()); retry_count, rnr_retry, timeouts above
	SendRep,	// rnr_retry = cm_rnr_retry (not the REQ's echo)
	SendRtu,
	SendRej,	// Step::rej_reason, with our private data
	CmNotify,	// ib_cm_notify(cm_id, IB_EVENT_COMM_EST)
	SendDreq,
	SendDrep,
	StopSending,	// unpublish as a send path (before the QP leaves RTS)
	QuiesceTx,	// wait until no xmit that found the connection before StopSending still
			// runs (netif_tx_lock/unlock, or synchronize_net for an RCU lookup):
			// always right after StopSending, so a send cannot follow the drain WR
	QpToErr,
	PostDrainWr,	// the fence's drain WR on the QP's send queue (completes on the shared CQ);
			// only on a QP that reached RTS
	StartSending,	// publish as the neighbour's send path, send its queued packets in order
	Destroy,	// destroy cm_id, QP, ring; only after the fence (or when no QP exists); always
			// the last action of its step (the peer-level ones before it)
	FallBack,	// the neighbour sends over UD and retries CM after a back-off
	Reconnect,	// the neighbour opens a new connection now (stale state)
	AwaitOther,	// §3.3 crossing: the neighbour keeps its queue for the peer's connection
	WaitSends,	// a graceful teardown (Close, idle, mode datagram), right after QuiesceTx:
			// wait, bounded (kWaitSendsMs, counted when it expires), until the sends
			// already posted have completed, so QpToErr flushes none (docs/connected.md §4)
	WaitDrep,	// right after SendDreq of a graceful teardown: keep the QP in RTS, bounded
			// (kWaitDrepMs, counted), until the peer's DREP (or its DREQ, REJ, a DREQ
			// timeout): the peer waited for its own sends before it (DREQ row), so sends
			// in flight in both directions complete before either QP enters error
			// Both waits park the step (the rest of the connection's FIFO behind it),
			// never sleep in the interface's shared work (docs/connected.md §4)
};
inline constexpr usize kActionCount = 23;
// The bound of WaitSends: a live peer ACKs in microseconds; a dead one fails the sends with
// RETRY_EXC (0.8 s at softib's lifetime, §3) or is the send watchdog's, which does not wait.
inline constexpr u32 kWaitSendsMs = 1000;
// The bound of WaitDrep, longer than the peer's WaitSends by design: a peer of
// our kind sends its DREP only after its own WaitSends (up to kWaitSendsMs) and the steps its
// connection had queued before the DREQ; with equal bounds a slow peer's sends always made
// ours expire first and our QP entered error under them, the loss the wait is there to
// prevent. 1 s of margin over the peer's wait; a dead peer costs this connection 2 s, and
// nothing else (the waits are parked, not slept in the shared work).
inline constexpr u32 kWaitDrepMs = 2 * kWaitSendsMs;
static_assert(kWaitDrepMs > kWaitSendsMs, "our DREP wait must outlast the peer's WaitSends");
const char *action_name(Action a);
// What the executor does with an action given the QP it has (qp: CreateQp succeeded; rts: its
// QpToRts succeeded). Steps are computed when their event arrives and run later, so a teardown
// step can run behind a setup step that failed: without a QP, QpToErr and PostDrainWr have
// nothing to do (SkipNoQp) and a QP transition must not run on a NULL QP (FailNoQp: fed back
// as SetupFailed); a drain WR on a QP that never reached RTS may never complete on some
// firmware (SkipNoRts; the fence does not wait for it, Conn::fence). Run otherwise.
enum class ActGuard : u8 { Run, SkipNoQp, FailNoQp, SkipNoRts };
ActGuard act_guard(Action a, bool qp, bool rts);
// Actions that sleep (ib_modify_qp takes a mutex in mlx5, ib_destroy_* and synchronize_net
// sleep): never run in the atomic context an event may arrive in.
bool may_sleep(Action a);

inline constexpr usize kMaxActions = 8;
struct Step {
	Action act[kMaxActions] = {};
	u8 n = 0;
	u8 rej_reason = 0;	// for SendRej
	bool rej_ari_ca_guid = false;	// for SendRej: ARI = our CA (node) GUID (rej_ari_is_ca_guid)
	bool ignored = false;	// the event is not legal in this state: nothing done, counted
	bool overflow = false;	// more than kMaxActions pushed (a bug the tests look for)

	void push(Action a)
	{
		if (n < kMaxActions)
			act[n++] = a;
		else
			overflow = true;
	}
	int index(Action a) const
	{
		for (u8 i = 0; i < n; i++)
			if (act[i] == a)
				return i;
		return -1;
	}
	bool has(Action a) const { return index(a) >= 0; }
	// Where the core runs the step: inline in the context the event arrived in only when it
	// is CmNotify alone or nothing (counters); every other step goes to the connection's
	// work item, in order behind the steps already queued there (docs/connected.md §1).
	bool inline_ok() const
	{
		for (u8 i = 0; i < n; i++)
			if (act[i] != Action::CmNotify)
				return false;
		return true;
	}
};

// Counters: one set per connection, summed by the interface (live + retired) for ethtool -S
// under the names ctr_name() gives.
enum class Ctr : u8 {
	EnteredConnecting, EnteredAccepting, EnteredEstablished, EnteredDraining, EnteredClosed,
	Opened,			// REQs sent on the first attempt
	RfcSidRetries,		// REQs resent on the RFC service ID
	Accepted,		// REPs sent
	Closed,			// Destroy
	Reaped,			// idle timeout
	WatchdogTeardowns,
	RejSentCrossing, RejSentPrivData, RejSentLimit, RejSentNoResources, RejSentTooLate,
	RejSentReqBounds,	// a REQ whose timers exceed the ReqBound bounds
	AcceptTimeouts,		// accepting past kAcceptDeadlineMs: torn down
	RejRxRetryRfc, RejRxCrossing, RejRxStale, RejRxFallBack, RejRxPeer,	// Peer: after RTU/REP
	CrossingsWon,		// we rejected the peer's crossing REQ; ours survives
	CrossingsLost,		// we accepted the peer's crossing REQ; ours is rejected
	CrossingsBoth,		// both REQs of a crossing were accepted (a peer-side race)
	ReqTimeouts, RepTimeouts, DreqTimeouts,
	MraReceived, CommEst, DreqReceived, PeerClosed,
	RnrRetryExceeded, RetryExceeded, WcErrors, QpFatal,
	SetupFailures, FallBacks, Reconnects, DrainTimeouts,
	PeerGone,		// established: ib_cm's own DREQ finished (stale REQ/REP from the peer)
	ConnectOverLimit,	// Connect refused locally: max_nonsrq_conn_qp reached
	CrossingsRefused,	// the peer's crossing REQ rejected over the limit
	ForcedDestroys,		// ForceDestroy before the fence completed
	// What each connection negotiated, counted once when it becomes established (Negotiated;
	// NegBidir + NegOneway = EnteredEstablished)
	NegBidir,		// both ends announced kCapBidir: one connection carries both directions
	NegOneway,		// not both: it carries our sends (active) or the peer's (passive) only
	NegNoCaps,		// the peer sent no capability block (another implementation)
	NegCsumFree,		// both announced kCapCsumFree: no L4 checksum over it (§9b)
	NegRfcSid,		// on the RFC 4755 §3.5 service ID (active: after the Linux one's REJ)
	NegMtuCapped,		// the peer's Receive MTU set the connection MTU (below ours)
	QpRetryClamped,		// a REQ/REP asked retry attributes above local policy (clamp_qp_retry)
	Ignored,		// events not legal in the state they arrived in
};
inline constexpr usize kCtrCount = 53;
const char *ctr_name(Ctr c);

struct Counters {
	u64 v[kCtrCount] = {};
	u64 operator[](Ctr c) const { return v[usize(c)]; }
	void inc(Ctr c) { v[usize(c)]++; }
	void add(const Counters &o)
	{
		for (usize i = 0; i < kCtrCount; i++)
			v[i] += o.v[i];
	}
};

struct Config {
	bool srq = true;		// the QP is attached to the interface's SRQ
	bool local_bidir = true;	// cm_bidir: we announce kCapBidir
	bool send_accepted = false;	// test knob: send over accepted connections without it
	bool connected_mode = true;	// the interface's admin mode
	u8 stale_retries = 0;		// reconnects the neighbour already made after Stale
	u8 crossing_waits = 0;		// AwaitOther in a row whose connection never came
};

class Conn {
public:
	Conn(Dir d, const Config &c) : dir_(d), cfg_(c), mode_connected_(c.connected_mode) {}

	// Feeds one event; the returned actions are to be executed in order. Never fails: an
	// event that is not legal in the current state is ignored (Step::ignored) and counted.
	Step on(const Event &e);

	State state() const { return state_; }
	Dir dir() const { return dir_; }
	bool srq() const { return cfg_.srq; }
	// Both ends announce kCapBidir: one connection carries both directions (§3.3).
	bool bidir() const { return cfg_.local_bidir && peer_bidir_; }
	// The neighbour may send over it now (published by StartSending, not yet unpublished).
	bool sending() const { return sending_; }
	usize attempt() const { return attempt_; }	// for connect_service_id()
	bool qp_exists() const { return qp_; }
	bool qp_reached_rts() const { return rts_; }
	// What the teardown fence has seen (docs/connected.md §4), for the logs of a connection
	// still draining at interface stop or teardown: kFence* bits.
	u8 fence_seen() const
	{
		return u8((last_wqe_ ? kFenceLastWqe : 0) | (drain_posted_ ? kFenceDrainPosted : 0) |
			  (drain_done_ ? kFenceDrainDone : 0) | (rx_empty_ ? kFenceRxEmpty : 0));
	}
	static constexpr u8 kFenceLastWqe = 1, kFenceDrainPosted = 2, kFenceDrainDone = 4, kFenceRxEmpty = 8;
	const Counters &counters() const { return ctr_; }
	// A fact the executor found outside the event flow (QpRetryClamped).
	void count(Ctr c) { ctr_.inc(c); }

private:
	Step dispatch(const Event &e);	// on() without the final ordering (destroy_last)
	bool may_send() const;
	void enter(State s);
	void count_negotiated();
	void teardown(Step &st, bool dreq, bool graceful = false);
	void fence(Step &st);
	void fence_done(Step &st);
	bool rx_flushed_early();
	void peer_gone(Step &st);
	void destroy(Step &st);
	void establish(Step &st);
	void publish(Step &st);
	void unpublish(Step &st, bool wait_sends = false);
	Step on_idle(const Event &e);
	Step on_connecting(const Event &e);
	Step on_accepting(const Event &e);
	Step on_established(const Event &e);
	Step on_draining(const Event &e);
	Step fail_setup(const Event &e, u8 rej_reason);
	Step rej_received(const Event &e);
	Step ignore();

	Dir dir_;
	Config cfg_;
	State state_ = State::Idle;
	u8 attempt_ = 0;
	bool mode_connected_;
	bool peer_bidir_ = false;
	bool qp_ = false;		// a QP exists (CreateQp emitted and not failed)
	bool sending_ = false;
	bool rts_ = false;		// QpToRts emitted: sends possible, the drain WR completes
	bool crossing_lost_ = false;	// Ev::CrossingLost seen while connecting
	bool crossing_refused_ = false;	// Ev::CrossingRefused seen while connecting
	bool last_wqe_ = false;		// LAST_WQE_REACHED seen (SRQ)
	bool drain_posted_ = false;	// PostDrainWr emitted
	bool drain_done_ = false;	// DrainWrDone seen
	bool rx_empty_ = false;		// RxEmpty seen (non-SRQ)
	Negotiated neg_;		// from the REQ / REP, counted at Established
	Counters ctr_;
};

} // namespace ipoib::cm
