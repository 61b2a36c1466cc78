// SPDX-License-Identifier: GPL-2.0
// ipoib_params.h - validation of the module parameters (ports=, ifname=, debug_level, and the
// connected-mode ones: cm_rnr_retry, cm_min_rnr_timer, cm_idle_timeout, nonsrq_min_recv,
// max_nonsrq_conn_qp, cm_bidir, cm_csum_free, cm_req_pool, cm_max_peers, nonsrq_grow_mb).
// Pure logic: no kernel calls and no logging (the caller logs the one error line), so
// KUnit and host tests can call it directly. Depends only on kapi_consts.h and pure kstd.
#pragma once

#include "kapi_consts.h"
#include "kstd/status.h"
#include "kstd/string.h"

namespace ipoib {

// The test variant of the module (Kbuild IPOIB_TEST_KNOBS=1, what the e2e suite loads) has the
// test knobs (debugfs send_accepted); the product build has none.
#ifdef IPOIB_TEST_KNOBS
inline constexpr bool kTestKnobs = true;
#else
inline constexpr bool kTestKnobs = false;
#endif

using kstd::Status;
using kstd::StrView;
using kstd::u32;
using kstd::usize;

// Why a value was rejected: a static message and the byte offset where it went wrong.
struct ParseError {
	const char *what = nullptr;
	usize pos = 0;
};

// One ports= entry: a device name and a port number, 0 meaning every port of the device.
struct PortSelector {
	char dev[KAPI_IB_DEVICE_NAME_MAX] = {};
	u32 port = 0;
};

// The parsed ports= value. Empty means "every InfiniBand port".
class PortSelection {
public:
	static constexpr usize kMaxEntries = 16;
	static constexpr u32 kMaxPort = 65535;

	bool selects_all() const { return count_ == 0; }
	usize size() const { return count_; }
	const PortSelector &operator[](usize i) const { return entries_[i]; }
	bool matches(StrView dev, u32 port) const;

	// Replaces the contents; on failure the selection is left empty and err says why.
	// Syntax: "" | entry ("," entry)*, entry = name [":" port], name = [A-Za-z0-9_.-]{1,63},
	// port = decimal 1..65535 without leading zeros.
	Status parse(StrView spec, ParseError &err);

private:
	PortSelector entries_[kMaxEntries];
	usize count_ = 0;
};

// ifname= template: 1..IFNAMSIZ-1 bytes, exactly one "%d" and no other '%', none of the
// characters the kernel refuses in netdev names ('/', ':', whitespace), not "." or "..".
Status validate_ifname(StrView tmpl, ParseError &err);

inline constexpr int kMaxDebugLevel = 3;
Status validate_debug_level(int level, ParseError &err);
// A run-time write of /sys/module/ib_ipoib_cm/parameters/debug_level: one decimal 0..3
// without sign or leading zeros, one trailing newline allowed (echo's).
Status parse_debug_level(StrView v, int &level, ParseError &err);

// ethtool -G: the UD ring sizes, in the module parameters' bounds (the in-tree driver's):
// receive 2..8192, send 128..8192 (two polls' worth of send completions, 2 x 64). A size
// inside the bounds that is not a power of two is rounded up (the rings index by mask), as
// the module parameters are; out is written only on Ok.
inline constexpr u32 kMinRecvRing = 2, kMinSendRing = 128, kMaxRing = 8192;
struct RingSizes {
	u32 tx = 0, rx = 0;
	bool tx_rounded = false, rx_rounded = false;
};
Status validate_ring_sizes(u32 tx, u32 rx, RingSizes &out, ParseError &err);

// ---- connected mode (docs/connected.md §3, §5)
// The validated values the interfaces use.
struct CmParams {
	u32 rnr_retry = 7;		// IBA 9.7.5.2.8: 3 bits, 7 = infinite
	u32 min_rnr_timer = 8;		// IBA table 45 code, 5 bits
	u32 idle_timeout_s = 300;
	u32 nonsrq_min_recv = 1;
	u32 nonsrq_max_recv = 32;	// a non-SRQ RC QP's max_recv_wr: its ring's size (§5)
	u32 nonsrq_mem_mb = 128;
	u32 max_nonsrq_conn_qp = 0;	// the limit in force (from the budget unless set)
	u32 nonsrq_conn_kib = 0;	// the per-connection estimate the budget was divided by
	bool limit_from_budget = true;
	bool bidir = true;
	bool csum_free = true;		// cm_csum_free: announce kCapCsumFree (docs/connected.md §9b)
	u32 req_pool = 64;		// cm_req_pool: unanswered passive connections (docs/security.md)
	u32 max_peers = 4096;		// cm_max_peers: peer entries per interface
	u32 nonsrq_grow_mb = 512;	// what the rings may grow by together (RecvGrowBudget)
	u32 nonsrq_grow_cap = 32;	// buffers one connection's ring may grow to (nonsrq_grow_cap())
};
inline constexpr int kMaxRnrRetry = 7;
inline constexpr int kMaxMinRnrTimer = 31;
inline constexpr int kMaxIdleTimeoutS = 86400;	// one day; small values are for tests
inline constexpr int kMaxNonSrqConnQp = 4096;	// as the in-tree driver's IPOIB_CM_MAX_CONN_QP
inline constexpr int kMaxNonSrqRecv = 8192;	// as the queue sizes' bound
inline constexpr int kMaxNonSrqMemMb = 1 << 20;	// 1 TiB
inline constexpr int kMaxReqPool = 4096;
inline constexpr int kMinPeers = 16;
inline constexpr int kMaxPeers = 65536;

// What one connection may have in flight, and so its RC send ring and its QP's send queue
// (max_send_wr, + 1 for the drain WR): 32 sends of at most 64 KiB each, 2 MiB in flight.
// The interface's RC bound (RcSendBudget) is four such rings, so no single connection can
// stop the netdev queue: a send at its connection's bound waits on that peer's own queue. At send_queue_size + 1 = 129 WQEs of 18 SGEs the
// send queue would be what an idle connection pins most after its receive buffer (64 KiB per
// end; 33 WQEs take 16 KiB, 65 would take 32: docs/connected.md §5.1). ipoib-cm-bidir sees at
// most 33 (6.1) and 47 (6.12) sends in flight with 128 allowed (docs/connected.md §10.4), so
// a stream may wait at the bound at 32 more often.
inline constexpr u32 kRcSendRingMax = 32;
inline u32 rc_send_ring(u32 send_queue_size) { return send_queue_size < kRcSendRingMax ? send_queue_size : kRcSendRingMax; }

// What one idle non-SRQ connection pins at one end (one QP), from the parameters: its
// posted buffers, its share of the receive CQ (max_recv_wr + 1 entries: the CQ grows with
// the connections, CmTable::cq_room), its QP's receive queue at max_recv_wr (allocated at creation, posted or
// not: an RQ cannot grow, §5) and its send queue at rc_send_ring() + 1 WQEs of
// KAPI_RC_SEND_SGE_MAX SGEs (a real HCA pins the same WQE arrays; the sizes are softib's,
// close to an mlx5 WQE), each array as the allocator takes it (a power of two: 9 and 11.6
// KiB are 16 KiB each, kmalloc_large), and its fixed part. Fitted to the measured figure at
// the largest N (219-221 KiB per idle pair over 300 connections, both ends;
// docs/connected.md §5.1): the itemised parts are 100.3 KiB per end, so the fixed
// part is the other ≈ 10 KiB — the objects (Connection, QP, cm_id, ring tables, send ring:
// the bench's slab lines read ≈ 11 KiB per end). The estimate is 111 KiB per end at the
// defaults (a figure at small N overstates the fixed part: the ping processes' partial slabs
// and the measure's noise weigh ≈ 20 KiB per pair there).
// 16 pages, the head skb's truesize on 6.1 (a 256-byte head: kmalloc-1k data + the sk_buff,
// 1280), RxBuf + page array (RecvRing::bytes: 66 KiB)
inline constexpr u32 kRecvBufBytes = 16 * 4096 + 1280 + 512;
inline constexpr u32 kRecvWqeBytes = 16 + 17 * 16;	// a WQE with 17 SGEs
inline constexpr u32 kSendWqeBytes = 72 + 18 * 16;	// a WQE with KAPI_RC_SEND_SGE_MAX (18) SGEs
inline constexpr u32 kCqeBytes = 80;	// one receive-CQ entry (struct ib_wc in softib's ring)
inline constexpr u32 kConnFixedBytes = 10 * 1024;	// the objects (the rest of the measure at N = 300)
u32 nonsrq_conn_kib(u32 min_recv, u32 max_recv, u32 send_queue_size);
// Connections a budget of mem_mb MiB holds at kib KiB each, within [1, kMaxNonSrqConnQp].
u32 nonsrq_conns_for_budget(u32 mem_mb, u32 kib);
// What one connection's ring may grow to (docs/connected.md §5): nonsrq_max_recv, but at most
// an eighth of the growth budget grow_mb at kRecvBufBytes a buffer, never below min_recv.
u32 nonsrq_grow_cap(u32 grow_mb, u32 min_recv, u32 max_recv);
// The raw module parameters, as loaded.
struct CmParamsRaw {
	int rnr_retry, min_rnr_timer, idle_timeout_s, nonsrq_min_recv, max_nonsrq_conn_qp, bidir, csum_free;
	int nonsrq_max_recv, nonsrq_mem_mb;
	int req_pool = 64, max_peers = 4096;
	int nonsrq_grow_mb = 512;
};
// What validate_cm_params found: the parameter a rejection or an adjustment is about.
struct CmParamsReport {
	const char *bad = nullptr;	// the rejected parameter (with err.what), or nullptr
	int value = 0;			// its value
	bool nonsrq_min_recv_clamped = false;	// above nonsrq_max_recv: lowered to it
};
// Out-of-range values of the fixed-range parameters are rejected (Status::Invalid, the
// parameter in report.bad, the reason in err.what); nonsrq_min_recv above nonsrq_max_recv
// is lowered to it and reported, as the queue sizes are. max_nonsrq_conn_qp 0 (the default):
// the limit is what nonsrq_mem_mb holds at nonsrq_conn_kib() each (send_queue_size: the
// clamped UD/RC send ring size).
Status validate_cm_params(const CmParamsRaw &in, u32 send_queue_size, CmParams &out, CmParamsReport &report,
			  ParseError &err);

} // namespace ipoib
