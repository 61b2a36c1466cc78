// SPDX-License-Identifier: GPL-2.0
// test_params.cpp - the module-parameter parsers (ipoib_params.cpp): ports=, ifname=,
// debug_level, the ethtool -G ring sizes. Valid values, malformed ones, and the edges (empty, trailing comma, port 0,
// huge numbers, too-long names, too many entries); every rejection names its offset.
#include "ktest.h"
#include "core/ipoib_params.h"

namespace ktest_params {

using ipoib::ParseError;
using ipoib::PortSelection;
using kstd::Status;
using kstd::StrView;

// Expect spec to be rejected at offset pos, with the selection left empty.
void expect_bad_ports(ktest_ctx *kt, const char *spec, kstd::usize pos)
{
	PortSelection sel;
	ParseError err;
	// a previous good value must not survive a failed parse
	ASSERT_OK(sel.parse("seed", err));
	ASSERT_EQ(sel.size(), 1u);
	EXPECT_EQ(sel.parse(spec, err), Status::Invalid);
	EXPECT_NOT_NULL(err.what);
	EXPECT_EQ(err.pos, pos);
	EXPECT_EQ(sel.size(), 0u);
	if (err.pos != pos)
		ktest_log(kt, "spec \"%s\": %s at %lu", spec, err.what ? err.what : "?", (unsigned long)err.pos);
}

constinit char g_long[200] = {};
const char *repeat(char c, int n, const char *tail = "")
{
	int i = 0;
	for (; i < n && i < 150; i++)
		g_long[i] = c;
	for (int j = 0; tail[j] && i < 199; j++)
		g_long[i++] = tail[j];
	g_long[i] = '\0';
	return g_long;
}

KTEST(params_ports, empty_selects_all)
{
	PortSelection sel;
	ParseError err;
	ASSERT_OK(sel.parse("", err));
	EXPECT_TRUE(sel.selects_all());
	EXPECT_EQ(sel.size(), 0u);
	EXPECT_TRUE(sel.matches("anything", 1));
	EXPECT_TRUE(sel.matches("mlx5_3", 65535));
	ASSERT_OK(sel.parse(nullptr, err)); // an unset charp
	EXPECT_TRUE(sel.selects_all());
}

KTEST(params_ports, device_only_means_every_port)
{
	PortSelection sel;
	ParseError err;
	ASSERT_OK(sel.parse("mlx5_0", err));
	ASSERT_EQ(sel.size(), 1u);
	EXPECT_STREQ(sel[0].dev, "mlx5_0");
	EXPECT_EQ(sel[0].port, 0u);
	EXPECT_TRUE(sel.matches("mlx5_0", 1));
	EXPECT_TRUE(sel.matches("mlx5_0", 2));
	EXPECT_FALSE(sel.matches("mlx5_1", 1));
	EXPECT_FALSE(sel.matches("mlx5_", 1));
	EXPECT_FALSE(sel.matches("mlx5_00", 1));
}

KTEST(params_ports, device_and_port)
{
	PortSelection sel;
	ParseError err;
	ASSERT_OK(sel.parse("softib1:2", err));
	ASSERT_EQ(sel.size(), 1u);
	EXPECT_STREQ(sel[0].dev, "softib1");
	EXPECT_EQ(sel[0].port, 2u);
	EXPECT_TRUE(sel.matches("softib1", 2));
	EXPECT_FALSE(sel.matches("softib1", 1));
	ASSERT_OK(sel.parse("a:65535", err));
	EXPECT_EQ(sel[0].port, 65535u);
}

KTEST(params_ports, several_entries)
{
	PortSelection sel;
	ParseError err;
	ASSERT_OK(sel.parse("mlx5_0:1,softib0,hfi1-x.y:3", err));
	ASSERT_EQ(sel.size(), 3u);
	EXPECT_STREQ(sel[0].dev, "mlx5_0");
	EXPECT_EQ(sel[0].port, 1u);
	EXPECT_STREQ(sel[1].dev, "softib0");
	EXPECT_EQ(sel[1].port, 0u);
	EXPECT_STREQ(sel[2].dev, "hfi1-x.y");
	EXPECT_EQ(sel[2].port, 3u);
	EXPECT_TRUE(sel.matches("softib0", 9));
	EXPECT_TRUE(sel.matches("hfi1-x.y", 3));
	EXPECT_FALSE(sel.matches("mlx5_0", 2));
	// a second parse replaces the first
	ASSERT_OK(sel.parse("x", err));
	EXPECT_EQ(sel.size(), 1u);
	EXPECT_FALSE(sel.matches("softib0", 1));
}

KTEST(params_ports, empty_entries)
{
	expect_bad_ports(kt, "a,", 2);  // trailing comma
	expect_bad_ports(kt, ",a", 0);  // leading comma
	expect_bad_ports(kt, "a,,b", 2);
	expect_bad_ports(kt, ",", 0);
}

KTEST(params_ports, bad_port_numbers)
{
	expect_bad_ports(kt, "a:0", 2);
	expect_bad_ports(kt, "a:", 2);
	expect_bad_ports(kt, "a:01", 2);
	expect_bad_ports(kt, "a:65536", 2);
	expect_bad_ports(kt, "a:4294967297", 2);
	expect_bad_ports(kt, "a:99999999999999999999999999", 2);
	expect_bad_ports(kt, "a:-1", 2);
	expect_bad_ports(kt, "a:+1", 2);
	expect_bad_ports(kt, "a:1x", 2);
	expect_bad_ports(kt, "a:1:2", 2);
	expect_bad_ports(kt, "ok:1,b:0", 7);
}

KTEST(params_ports, bad_names)
{
	expect_bad_ports(kt, ":1", 0);
	expect_bad_ports(kt, "mlx5 0", 4);
	expect_bad_ports(kt, "a/b", 1);
	expect_bad_ports(kt, "x,dev%d", 5);
	expect_bad_ports(kt, "a\n", 1);
	expect_bad_ports(kt, " a", 0);
}

KTEST(params_ports, name_length_limit)
{
	PortSelection sel;
	ParseError err;
	// IB_DEVICE_NAME_MAX (64) includes the NUL: 63 characters is the longest name.
	ASSERT_OK(sel.parse(repeat('d', KAPI_IB_DEVICE_NAME_MAX - 1, ":1"), err));
	EXPECT_EQ(StrView(sel[0].dev).size(), kstd::usize(KAPI_IB_DEVICE_NAME_MAX - 1));
	EXPECT_EQ(sel[0].port, 1u);
	expect_bad_ports(kt, repeat('d', KAPI_IB_DEVICE_NAME_MAX), 0);
	expect_bad_ports(kt, repeat('d', 150, ":1"), 0);
}

KTEST(params_ports, entry_count_limit)
{
	// 16 one-letter entries: "a,a,...,a" (31 chars) is the most; the 17th is rejected at its offset.
	char spec[64];
	int n = 0;
	for (int i = 0; i < 17; i++) {
		if (i)
			spec[n++] = ',';
		spec[n++] = char('a' + i);
	}
	spec[n] = '\0';
	PortSelection sel;
	ParseError err;
	EXPECT_EQ(sel.parse(spec, err), Status::Invalid);
	EXPECT_EQ(err.pos, 32u);
	EXPECT_EQ(sel.size(), 0u);
	spec[31] = '\0';
	ASSERT_OK(sel.parse(spec, err));
	EXPECT_EQ(sel.size(), PortSelection::kMaxEntries);
	EXPECT_TRUE(sel.matches("p", 1));
	EXPECT_FALSE(sel.matches("q", 1));
}

KTEST_SUITE(params_ports, KTEST_CASE(params_ports, empty_selects_all),
	    KTEST_CASE(params_ports, device_only_means_every_port), KTEST_CASE(params_ports, device_and_port),
	    KTEST_CASE(params_ports, several_entries), KTEST_CASE(params_ports, empty_entries),
	    KTEST_CASE(params_ports, bad_port_numbers), KTEST_CASE(params_ports, bad_names),
	    KTEST_CASE(params_ports, name_length_limit), KTEST_CASE(params_ports, entry_count_limit));

// ---------------------------------------------------------------- ifname=
void expect_bad_ifname(ktest_ctx *kt, const char *tmpl, kstd::usize pos)
{
	ParseError err;
	EXPECT_EQ(ipoib::validate_ifname(tmpl, err), Status::Invalid);
	EXPECT_NOT_NULL(err.what);
	EXPECT_EQ(err.pos, pos);
	if (err.pos != pos)
		ktest_log(kt, "ifname \"%s\": %s at %lu", tmpl, err.what ? err.what : "?", (unsigned long)err.pos);
}

KTEST(params_ifname, valid)
{
	ParseError err;
	EXPECT_OK(ipoib::validate_ifname("ib%d", err));
	EXPECT_OK(ipoib::validate_ifname("%d", err));
	EXPECT_OK(ipoib::validate_ifname("ibcm%d.x", err));
	EXPECT_OK(ipoib::validate_ifname(repeat('i', KAPI_IFNAMSIZ - 3, "%d"), err)); // 15 chars
}

KTEST(params_ifname, length)
{
	expect_bad_ifname(kt, "", 0);
	expect_bad_ifname(kt, nullptr, 0);
	expect_bad_ifname(kt, repeat('i', KAPI_IFNAMSIZ - 2, "%d"), KAPI_IFNAMSIZ - 1); // 16 chars
	expect_bad_ifname(kt, repeat('i', 150, "%d"), KAPI_IFNAMSIZ - 1);
}

KTEST(params_ifname, percent_d_exactly_once)
{
	expect_bad_ifname(kt, "ib0", 0);
	expect_bad_ifname(kt, "ib%d%d", 4);
	expect_bad_ifname(kt, "ib%s", 2);
	expect_bad_ifname(kt, "ib%", 2);
	expect_bad_ifname(kt, "ib%%d", 2);
	expect_bad_ifname(kt, "%dib%x", 4);
}

KTEST(params_ifname, forbidden_characters)
{
	expect_bad_ifname(kt, "ib/%d", 2);
	expect_bad_ifname(kt, "ib:%d", 2);
	expect_bad_ifname(kt, "ib %d", 2);
	expect_bad_ifname(kt, "ib\t%d", 2);
	expect_bad_ifname(kt, "%d\n", 2);
	expect_bad_ifname(kt, ".", 0);
	expect_bad_ifname(kt, "..", 0);
}

KTEST_SUITE(params_ifname, KTEST_CASE(params_ifname, valid), KTEST_CASE(params_ifname, length),
	    KTEST_CASE(params_ifname, percent_d_exactly_once), KTEST_CASE(params_ifname, forbidden_characters));

// ---------------------------------------------------------------- debug_level
KTEST(params_debug_level, range)
{
	ParseError err;
	for (int l = 0; l <= ipoib::kMaxDebugLevel; l++)
		EXPECT_OK(ipoib::validate_debug_level(l, err));
	EXPECT_EQ(ipoib::validate_debug_level(-1, err), Status::Invalid);
	EXPECT_EQ(ipoib::validate_debug_level(ipoib::kMaxDebugLevel + 1, err), Status::Invalid);
	EXPECT_EQ(ipoib::validate_debug_level(__INT_MAX__, err), Status::Invalid);
	EXPECT_EQ(ipoib::validate_debug_level(-__INT_MAX__ - 1, err), Status::Invalid);
	EXPECT_NOT_NULL(err.what);
}

// A run-time write of the parameter (sysfs): "0".."3", one trailing newline allowed.
KTEST(params_debug_level, write)
{
	ParseError err;
	int l = -1;
	EXPECT_OK(ipoib::parse_debug_level(StrView("0"), l, err));
	EXPECT_EQ(l, 0);
	EXPECT_OK(ipoib::parse_debug_level(StrView("3\n"), l, err));
	EXPECT_EQ(l, 3);
	const char *const bad[] = {"", "\n", "4", "-1", "+1", "01", "1\n\n", " 1", "1 ", "abc", "1a", "99999999999"};
	for (const char *b : bad) {
		l = 7;
		EXPECT_EQ(ipoib::parse_debug_level(StrView(b), l, err), Status::Invalid);
		EXPECT_EQ(l, 7);	// left alone on failure
	}
	EXPECT_NOT_NULL(err.what);
}

KTEST_SUITE(params_debug_level, KTEST_CASE(params_debug_level, range), KTEST_CASE(params_debug_level, write));

// ---------------------------------------------------------------- ethtool -G ring sizes
KTEST(params_rings, bounds)
{
	ParseError err;
	ipoib::RingSizes r;
	EXPECT_OK(ipoib::validate_ring_sizes(128, 2, r, err));
	EXPECT_EQ(r.tx, 128u);
	EXPECT_EQ(r.rx, 2u);
	EXPECT_FALSE(r.tx_rounded || r.rx_rounded);
	EXPECT_OK(ipoib::validate_ring_sizes(8192, 8192, r, err));
	EXPECT_EQ(r.tx, 8192u);
	EXPECT_EQ(r.rx, 8192u);
	// each bad pair: refused with a reason, and what the caller had is left alone
	const kstd::u32 bad[][2] = {{128, 1}, {128, 0}, {127, 256}, {64, 256}, {0, 256}, {128, 8193}, {8193, 256},
				    {128, 0xffffffffu}, {0xffffffffu, 256}, {0x80000000u, 0x80000000u}};
	for (auto &b : bad) {
		r.tx = 11;
		r.rx = 12;
		err.what = nullptr;
		EXPECT_EQ(ipoib::validate_ring_sizes(b[0], b[1], r, err), Status::Invalid);
		EXPECT_NOT_NULL(err.what);
		EXPECT_EQ(r.tx, 11u);
		EXPECT_EQ(r.rx, 12u);
	}
}

// Inside the bounds, not a power of two: rounded up (as the module parameters), and said so.
KTEST(params_rings, rounding)
{
	ParseError err;
	ipoib::RingSizes r;
	EXPECT_OK(ipoib::validate_ring_sizes(129, 3, r, err));
	EXPECT_EQ(r.tx, 256u);
	EXPECT_EQ(r.rx, 4u);
	EXPECT_TRUE(r.tx_rounded && r.rx_rounded);
	EXPECT_OK(ipoib::validate_ring_sizes(1024, 1000, r, err));
	EXPECT_EQ(r.tx, 1024u);
	EXPECT_EQ(r.rx, 1024u);
	EXPECT_FALSE(r.tx_rounded);
	EXPECT_TRUE(r.rx_rounded);
	EXPECT_OK(ipoib::validate_ring_sizes(8191, 4097, r, err));
	EXPECT_EQ(r.tx, 8192u);
	EXPECT_EQ(r.rx, 8192u);
}

KTEST_SUITE(params_rings, KTEST_CASE(params_rings, bounds), KTEST_CASE(params_rings, rounding));

// ---------------------------------------------------------------- connected-mode parameters
namespace {

// As kapi/module.c loads them: nonsrq_min_recv 1, max_nonsrq_conn_qp 0 (from the budget),
// cm_bidir 1, cm_csum_free 1, nonsrq_max_recv 32, nonsrq_mem_mb 128.
constexpr ipoib::CmParamsRaw kDefaults{7, 8, 300, 1, 0, 1, 1, 32, 128};

// Expect raw to be rejected, naming param.
bool rejects(const ipoib::CmParamsRaw &raw, const char *param)
{
	ipoib::CmParams out;
	ipoib::CmParamsReport rep;
	ParseError err;
	return ipoib::validate_cm_params(raw, 256, out, rep, err) == Status::Invalid && rep.bad &&
	       StrView(rep.bad) == StrView(param) && err.what;
}

} // namespace

KTEST(params_cm, defaults)
{
	ipoib::CmParams out;
	ipoib::CmParamsReport rep;
	ParseError err;
	EXPECT_OK(ipoib::validate_cm_params(kDefaults, 256, out, rep, err));
	EXPECT_EQ(out.rnr_retry, 7u);
	EXPECT_EQ(out.min_rnr_timer, 8u);
	EXPECT_EQ(out.idle_timeout_s, 300u);
	EXPECT_EQ(out.nonsrq_min_recv, 1u);
	EXPECT_EQ(out.nonsrq_max_recv, 32u);
	EXPECT_TRUE(out.limit_from_budget);
	// 67328 B buffer (a 256-byte head; 70400 with a page-sized one) + 32 x
	// 288 B RQ (9216 -> 16384 as allocated) + 33 x 80 B CQ + 33 x 360 B SQ (the ring is
	// kRcSendRingMax, not send_queue_size 256; 11880 -> 16384) + 10 KiB = 112976 B -> 111 KiB
	// (measured: 219-221 per pair at N = 300); 128 MiB / 111 KiB
	EXPECT_EQ(out.nonsrq_conn_kib, 111u);
	EXPECT_EQ(out.max_nonsrq_conn_qp, 1180u);
	EXPECT_EQ(ipoib::rc_send_ring(256), 32u);
	EXPECT_EQ(ipoib::rc_send_ring(16), 16u);
	EXPECT_TRUE(out.bidir);
	EXPECT_TRUE(out.csum_free);
	EXPECT_NULL(rep.bad);
	EXPECT_FALSE(rep.nonsrq_min_recv_clamped);
}

// One connection's growth cap: nonsrq_max_recv, at most an eighth of the budget in buffers,
// never below nonsrq_min_recv.
KTEST(params_cm, grow_cap)
{
	EXPECT_EQ(ipoib::nonsrq_grow_cap(512, 1, 32), 32u);	// the defaults: nonsrq_max_recv
	EXPECT_EQ(ipoib::nonsrq_grow_cap(2, 1, 32), 3u);	// 2 MiB / 8 at kRecvBufBytes
	EXPECT_EQ(ipoib::nonsrq_grow_cap(1, 1, 32), 1u);
	EXPECT_EQ(ipoib::nonsrq_grow_cap(1, 4, 32), 4u);	// never below the floor
	EXPECT_EQ(ipoib::nonsrq_grow_cap(1 << 20, 1, 8192), 8192u);
	ipoib::CmParams out;
	ipoib::CmParamsReport rep;
	ParseError err;
	EXPECT_OK(ipoib::validate_cm_params(kDefaults, 256, out, rep, err));
	EXPECT_EQ(out.nonsrq_grow_mb, 512u);
	EXPECT_EQ(out.nonsrq_grow_cap, 32u);
	EXPECT_EQ(out.req_pool, 64u);
	EXPECT_EQ(out.max_peers, 4096u);
}

KTEST(params_cm, ranges)
{
	// Each parameter at its edges (accepted) and one past them (rejected, named).
	struct Edge {
		int ipoib::CmParamsRaw::*field;
		const char *name;
		int lo, hi;
	};
	const Edge edges[] = {
		{&ipoib::CmParamsRaw::rnr_retry, "cm_rnr_retry", 0, 7},
		{&ipoib::CmParamsRaw::min_rnr_timer, "cm_min_rnr_timer", 0, 31},
		{&ipoib::CmParamsRaw::idle_timeout_s, "cm_idle_timeout", 1, 86400},
		{&ipoib::CmParamsRaw::max_nonsrq_conn_qp, "max_nonsrq_conn_qp", 0, 4096},
		{&ipoib::CmParamsRaw::nonsrq_max_recv, "nonsrq_max_recv", 1, 8192},
		{&ipoib::CmParamsRaw::nonsrq_mem_mb, "nonsrq_mem_mb", 1, 1 << 20},
		{&ipoib::CmParamsRaw::bidir, "cm_bidir", 0, 1},
		{&ipoib::CmParamsRaw::csum_free, "cm_csum_free", 0, 1},
		{&ipoib::CmParamsRaw::req_pool, "cm_req_pool", 1, 4096},
		{&ipoib::CmParamsRaw::max_peers, "cm_max_peers", 16, 65536},
		{&ipoib::CmParamsRaw::nonsrq_grow_mb, "nonsrq_grow_mb", 1, 1 << 20},
	};
	for (const Edge &e : edges) {
		ipoib::CmParamsRaw r = kDefaults;
		ipoib::CmParams out;
		ipoib::CmParamsReport rep;
		ParseError err;
		r.*e.field = e.lo;
		EXPECT_OK(ipoib::validate_cm_params(r, 256, out, rep, err));
		r.*e.field = e.hi;
		EXPECT_OK(ipoib::validate_cm_params(r, 256, out, rep, err));
		r.*e.field = e.lo - 1;
		EXPECT_TRUE(rejects(r, e.name));
		r.*e.field = e.hi + 1;
		EXPECT_TRUE(rejects(r, e.name));
		r.*e.field = -__INT_MAX__ - 1;
		EXPECT_TRUE(rejects(r, e.name));
	}
	ipoib::CmParamsRaw r = kDefaults;
	r.nonsrq_min_recv = 0;
	EXPECT_TRUE(rejects(r, "nonsrq_min_recv"));
	r.nonsrq_min_recv = -1;
	EXPECT_TRUE(rejects(r, "nonsrq_min_recv"));
}

// One validate_cm_params call on the defaults with some fields changed.
struct CmCase {
	ipoib::CmParamsRaw r = kDefaults;
	ipoib::CmParams out;
	ipoib::CmParamsReport rep;
	ParseError err;
	Status run() { return ipoib::validate_cm_params(r, 256, out, rep, err); }
};

KTEST(params_cm, nonsrq_min_recv_clamped_to_nonsrq_max_recv)
{
	CmCase c;
	c.r.nonsrq_max_recv = 2;
	c.r.nonsrq_min_recv = 1;
	EXPECT_OK(c.run());
	EXPECT_EQ(c.out.nonsrq_min_recv, 1u);
	EXPECT_FALSE(c.rep.nonsrq_min_recv_clamped);
	c.r.nonsrq_min_recv = 2;
	EXPECT_OK(c.run());
	EXPECT_EQ(c.out.nonsrq_min_recv, 2u);
	EXPECT_FALSE(c.rep.nonsrq_min_recv_clamped);
	c.r.nonsrq_min_recv = 3;
	EXPECT_OK(c.run());
	EXPECT_EQ(c.out.nonsrq_min_recv, 2u);
	EXPECT_TRUE(c.rep.nonsrq_min_recv_clamped);
	c.r.nonsrq_max_recv = 8192;
	c.r.nonsrq_min_recv = __INT_MAX__;
	EXPECT_OK(c.run());
	EXPECT_EQ(c.out.nonsrq_min_recv, 8192u);
	EXPECT_TRUE(c.rep.nonsrq_min_recv_clamped);
	c.r.bidir = 0;
	EXPECT_OK(c.run());
	EXPECT_FALSE(c.out.bidir);
}

// The default limit follows nonsrq_mem_mb; max_nonsrq_conn_qp, when set,
// overrides it. At the defaults a 1 GiB budget holds at least 4096 (the estimate, capped at
// the in-tree driver's 4096).
KTEST(params_cm, budget_sets_the_default_limit)
{
	CmCase c;
	c.r.nonsrq_mem_mb = 1024;
	EXPECT_OK(c.run());
	EXPECT_TRUE(c.out.limit_from_budget);
	EXPECT_EQ(c.out.max_nonsrq_conn_qp, 4096u);	// 1048576 / 111 = 9446, capped
	EXPECT_EQ(ipoib::nonsrq_conns_for_budget(1024, 256), 4096u);	// the 256 KiB goal
	EXPECT_EQ(ipoib::nonsrq_conns_for_budget(1024, 257), 4080u);
	EXPECT_EQ(ipoib::nonsrq_conns_for_budget(1, 2000), 1u);	// never 0
	c.r.nonsrq_mem_mb = 1;
	EXPECT_OK(c.run());
	EXPECT_EQ(c.out.max_nonsrq_conn_qp, 9u);	// 1024 / 111
	// the old defaults (4 buffers, a 256-entry RQ) cost more per connection
	// (4 x 67328 + 256 x 288 (73728 -> 131072) + 257 x 80 + 33 x 360 (-> 16384) + 10240) B
	// = 447568 B -> 438 KiB
	EXPECT_EQ(ipoib::nonsrq_conn_kib(4, 256, 256), 438u);
	// nonsrq_max_recv = 28: the RQ array, 28 x 288 = 8064 B, fits the 8 KiB class
	EXPECT_EQ(ipoib::nonsrq_conn_kib(1, 28, 256), (67328u + 8192 + 29 * 80 + 16384 + 10240 + 1023) / 1024);
	c.r.max_nonsrq_conn_qp = 128;	// set: overrides the budget
	EXPECT_OK(c.run());
	EXPECT_FALSE(c.out.limit_from_budget);
	EXPECT_EQ(c.out.max_nonsrq_conn_qp, 128u);
}

KTEST_SUITE(params_cm, KTEST_CASE(params_cm, defaults), KTEST_CASE(params_cm, ranges), KTEST_CASE(params_cm, grow_cap),
	    KTEST_CASE(params_cm, nonsrq_min_recv_clamped_to_nonsrq_max_recv),
	    KTEST_CASE(params_cm, budget_sets_the_default_limit));

} // namespace ktest_params
