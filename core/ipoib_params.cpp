// SPDX-License-Identifier: GPL-2.0
// ipoib_params.cpp - see ipoib_params.h. Every rejection names its reason and offset so the
// one log line the loader prints is enough to fix the command line.
#include "core/ipoib_params.h"
#include "kstd/bits.h"

namespace ipoib {

namespace {

// The messages below spell these limits out.
static_assert(PortSelection::kMaxEntries == 16 && PortSelection::kMaxPort == 65535);
static_assert(kMaxDebugLevel == 3 && KAPI_IFNAMSIZ == 16);

constexpr bool is_dev_name_char(char c) { return kstd::is_alnum(c) || c == '_' || c == '-' || c == '.'; }

Status fail(ParseError &err, const char *what, usize pos)
{
	err.what = what;
	err.pos = pos;
	return Status::Invalid;
}

// One "name[:port]" entry starting at offset base of the whole value.
Status parse_entry(StrView entry, usize base, PortSelector &out, ParseError &err)
{
	if (entry.empty())
		return fail(err, "empty entry", base);
	usize colon = entry.find(':');
	StrView name = entry.substr(0, colon);
	if (name.empty())
		return fail(err, "missing device name", base);
	if (name.size() >= KAPI_IB_DEVICE_NAME_MAX)
		return fail(err, "device name too long", base);
	for (usize i = 0; i < name.size(); i++)
		if (!is_dev_name_char(name[i]))
			return fail(err, "invalid character in device name", base + i);
	if (!name.copy_to(out.dev, sizeof(out.dev)))
		return fail(err, "device name too long", base);
	out.port = 0;
	if (colon == StrView::npos)
		return Status::Ok;
	StrView port = entry.substr(colon + 1);
	if (!kstd::parse_u32(port, PortSelection::kMaxPort, out.port) || out.port == 0)
		return fail(err, "port must be a number from 1 to 65535", base + colon + 1);
	return Status::Ok;
}

} // namespace

bool PortSelection::matches(StrView dev, u32 port) const
{
	if (selects_all())
		return true;
	for (usize i = 0; i < count_; i++)
		if (StrView(entries_[i].dev) == dev && (entries_[i].port == 0 || entries_[i].port == port))
			return true;
	return false;
}

Status PortSelection::parse(StrView spec, ParseError &err)
{
	count_ = 0;
	usize start = 0;
	while (!spec.empty()) {
		usize comma = spec.find(',', start);
		usize end = comma == StrView::npos ? spec.size() : comma;
		if (count_ == kMaxEntries) {
			count_ = 0;
			return fail(err, "too many entries (at most 16)", start);
		}
		Status s = parse_entry(spec.substr(start, end - start), start, entries_[count_], err);
		if (!kstd::ok(s)) {
			count_ = 0;
			return s;
		}
		count_++;
		if (comma == StrView::npos)
			break;
		start = comma + 1;
	}
	return Status::Ok;
}

Status validate_ifname(StrView tmpl, ParseError &err)
{
	if (tmpl.empty())
		return fail(err, "empty name template", 0);
	if (tmpl.size() >= KAPI_IFNAMSIZ)
		return fail(err, "longer than 15 characters", KAPI_IFNAMSIZ - 1);
	if (tmpl == StrView(".") || tmpl == StrView(".."))
		return fail(err, "\".\" and \"..\" are not device names", 0);
	usize units = 0;
	for (usize i = 0; i < tmpl.size(); i++) {
		char c = tmpl[i];
		if (c == '/' || c == ':' || c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' ||
		    c == '\f')
			return fail(err, "'/', ':' and whitespace are not allowed", i);
		if (c != '%')
			continue;
		if (i + 1 >= tmpl.size() || tmpl[i + 1] != 'd')
			return fail(err, "'%' must be followed by 'd'", i);
		if (++units > 1)
			return fail(err, "more than one %d", i);
		i++;
	}
	if (units == 0)
		return fail(err, "missing %d", 0);
	return Status::Ok;
}

Status validate_debug_level(int level, ParseError &err)
{
	if (level < 0 || level > kMaxDebugLevel)
		return fail(err, "must be from 0 to 3", 0);
	return Status::Ok;
}

Status validate_ring_sizes(u32 tx, u32 rx, RingSizes &out, ParseError &err)
{
	if (rx < kMinRecvRing || rx > kMaxRing)
		return fail(err, "rx must be from 2 to 8192", 0);
	if (tx < kMinSendRing || tx > kMaxRing)
		return fail(err, "tx must be from 128 to 8192", 0);
	RingSizes r;
	r.rx = u32(kstd::round_up_pow2(rx));	// <= kMaxRing, itself a power of two
	r.tx = u32(kstd::round_up_pow2(tx));
	r.rx_rounded = r.rx != rx;
	r.tx_rounded = r.tx != tx;
	out = r;
	return Status::Ok;
}

Status parse_debug_level(StrView v, int &level, ParseError &err)
{
	if (!v.empty() && v[v.size() - 1] == '\n')
		v = v.substr(0, v.size() - 1);
	u32 l = 0;
	if (!kstd::parse_u32(v, u32(kMaxDebugLevel), l))
		return fail(err, "must be from 0 to 3", 0);
	level = int(l);
	return Status::Ok;
}

namespace {

// Each message spells its limits out.
static_assert(kMaxRnrRetry == 7 && kMaxMinRnrTimer == 31 && kMaxIdleTimeoutS == 86400 && kMaxNonSrqConnQp == 4096);

bool in_range(int v, int lo, int hi) { return v >= lo && v <= hi; }

} // namespace

// The WQE arrays count as the allocator takes them (kstd::round_up_pow2): kmalloc's size
// classes and kmalloc_large's page orders are powers of two (the small 96/192 classes do not
// matter at these sizes).
u32 nonsrq_conn_kib(u32 min_recv, u32 max_recv, u32 send_queue_size)
{
	const kstd::u64 b = kstd::u64(min_recv) * kRecvBufBytes + kstd::round_up_pow2(kstd::u64(max_recv) * kRecvWqeBytes) +
		      kstd::u64(max_recv + 1) * kCqeBytes +
		      kstd::round_up_pow2(kstd::u64(rc_send_ring(send_queue_size) + 1) * kSendWqeBytes) + kConnFixedBytes;
	return u32((b + 1023) / 1024);
}

u32 nonsrq_conns_for_budget(u32 mem_mb, u32 kib)
{
	const kstd::u64 n = kib ? kstd::u64(mem_mb) * 1024 / kib : kstd::u64(kMaxNonSrqConnQp);
	return n < 1 ? 1 : n > kstd::u64(kMaxNonSrqConnQp) ? u32(kMaxNonSrqConnQp) : u32(n);
}

u32 nonsrq_grow_cap(u32 grow_mb, u32 min_recv, u32 max_recv)
{
	const kstd::u64 eighth = kstd::u64(grow_mb) * 1024 * 1024 / 8 / kRecvBufBytes;
	const kstd::u64 cap = eighth < max_recv ? eighth : max_recv;
	return cap < min_recv ? min_recv : u32(cap);
}

Status validate_cm_params(const CmParamsRaw &in, u32 send_queue_size, CmParams &out, CmParamsReport &report,
			  ParseError &err)
{
	report = CmParamsReport{};
	struct Check {
		const char *name;
		int v, lo, hi;
		const char *what;
	};
	const Check checks[] = {
		{"cm_rnr_retry", in.rnr_retry, 0, kMaxRnrRetry, "must be from 0 to 7"},
		{"cm_min_rnr_timer", in.min_rnr_timer, 0, kMaxMinRnrTimer, "must be from 0 to 31"},
		{"cm_idle_timeout", in.idle_timeout_s, 1, kMaxIdleTimeoutS, "must be from 1 to 86400 seconds"},
		{"nonsrq_min_recv", in.nonsrq_min_recv, 1, __INT_MAX__, "must be at least 1"},
		{"max_nonsrq_conn_qp", in.max_nonsrq_conn_qp, 0, kMaxNonSrqConnQp, "must be from 0 (from nonsrq_mem_mb) to 4096"},
		{"nonsrq_max_recv", in.nonsrq_max_recv, 1, kMaxNonSrqRecv, "must be from 1 to 8192"},
		{"nonsrq_mem_mb", in.nonsrq_mem_mb, 1, kMaxNonSrqMemMb, "must be from 1 to 1048576 MiB"},
		{"cm_bidir", in.bidir, 0, 1, "must be 0 or 1"},
		{"cm_csum_free", in.csum_free, 0, 1, "must be 0 or 1"},
		{"cm_req_pool", in.req_pool, 1, kMaxReqPool, "must be from 1 to 4096"},
		{"cm_max_peers", in.max_peers, kMinPeers, kMaxPeers, "must be from 16 to 65536"},
		{"nonsrq_grow_mb", in.nonsrq_grow_mb, 1, kMaxNonSrqMemMb, "must be from 1 to 1048576 MiB"},
	};
	for (const Check &c : checks) {
		if (!in_range(c.v, c.lo, c.hi)) {
			report.bad = c.name;
			report.value = c.v;
			return fail(err, c.what, 0);
		}
	}
	out.rnr_retry = u32(in.rnr_retry);
	out.min_rnr_timer = u32(in.min_rnr_timer);
	out.idle_timeout_s = u32(in.idle_timeout_s);
	out.nonsrq_max_recv = u32(in.nonsrq_max_recv);
	out.nonsrq_min_recv = u32(in.nonsrq_min_recv);
	if (out.nonsrq_min_recv > out.nonsrq_max_recv) {
		out.nonsrq_min_recv = out.nonsrq_max_recv;
		report.nonsrq_min_recv_clamped = true;
	}
	out.nonsrq_mem_mb = u32(in.nonsrq_mem_mb);
	out.nonsrq_conn_kib = nonsrq_conn_kib(out.nonsrq_min_recv, out.nonsrq_max_recv, send_queue_size);
	out.limit_from_budget = in.max_nonsrq_conn_qp == 0;
	out.max_nonsrq_conn_qp = out.limit_from_budget ? nonsrq_conns_for_budget(out.nonsrq_mem_mb, out.nonsrq_conn_kib)
						       : u32(in.max_nonsrq_conn_qp);
	out.bidir = in.bidir != 0;
	out.csum_free = in.csum_free != 0;
	out.req_pool = u32(in.req_pool);
	out.max_peers = u32(in.max_peers);
	out.nonsrq_grow_mb = u32(in.nonsrq_grow_mb);
	out.nonsrq_grow_cap = nonsrq_grow_cap(out.nonsrq_grow_mb, out.nonsrq_min_recv, out.nonsrq_max_recv);
	return Status::Ok;
}

} // namespace ipoib
