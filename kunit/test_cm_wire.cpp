// SPDX-License-Identifier: GPL-2.0
// test_cm_wire.cpp - connected-mode wire logic (ipoib_cm_wire.cpp): RFC 4755 §6 private data,
// the capability block, service IDs (§3.5 and Linux), connection MTU (§5.1), crossing-REQ
// arbitration (§3.3). Round trips, every short/malformed buffer, boundaries, symmetry.
#include "ktest.h"
#include "core/cm/ipoib_cm_wire.h"

namespace ktest_cm_wire {

using namespace ipoib::cm;
using ipoib::kHwAddrLen;
using ipoib::encap_parse;
using ipoib::encap_write;
using ipoib::kEncapLen;
using kstd::u16;
using kstd::u8;
using kstd::u32;
using kstd::u64;
using kstd::usize;

KTEST(cm_priv_data, round_trip_and_layout)
{
	u8 b[kPrivDataLen];
	priv_data_encode(b, PrivData{0x123456, 65524});
	const u8 want[kPrivDataLen] = {0x00, 0x12, 0x34, 0x56, 0x00, 0x00, 0xff, 0xf4};
	for (usize i = 0; i < kPrivDataLen; i++)
		EXPECT_EQ(b[i], want[i]);
	PrivData pd;
	ASSERT_EQ(priv_data_parse(b, sizeof(b), pd), PrivDataResult::Ok);
	EXPECT_EQ(pd.ud_qpn, 0x123456u);
	EXPECT_EQ(pd.recv_mtu, 65524u);
	// a QPN wider than 24 bits is masked on send; the reserved octet stays 0
	priv_data_encode(b, PrivData{0xab000102, 2048});
	EXPECT_EQ(b[0], 0u);
	ASSERT_EQ(priv_data_parse(b, sizeof(b), pd), PrivDataResult::Ok);
	EXPECT_EQ(pd.ud_qpn, 0x000102u);
}

KTEST(cm_priv_data, reserved_octet_ignored_on_receive)
{
	const u8 b[kPrivDataLen] = {0xff, 0x00, 0x00, 0x48, 0x00, 0x00, 0x08, 0x04};
	PrivData pd;
	ASSERT_EQ(priv_data_parse(b, sizeof(b), pd), PrivDataResult::Ok);
	EXPECT_EQ(pd.ud_qpn, 0x48u);
	EXPECT_EQ(pd.recv_mtu, 2052u);
}

KTEST(cm_priv_data, short_buffers)
{
	u8 b[kPrivDataLen];
	priv_data_encode(b, PrivData{0x48, 65524});
	PrivData pd{7, 9};
	for (usize len = 0; len < kPrivDataLen; len++)
		EXPECT_EQ(priv_data_parse(b, len, pd), PrivDataResult::Short);
	EXPECT_EQ(priv_data_parse(nullptr, 0, pd), PrivDataResult::Short);
	EXPECT_EQ(priv_data_parse(nullptr, 16, pd), PrivDataResult::Short);
	EXPECT_EQ(pd.ud_qpn, 7u); // untouched on failure
	EXPECT_EQ(pd.recv_mtu, 9u);
	// longer buffers (ib_cm hands the whole zero-filled area) parse the first 8 octets
	u8 big[92] = {};
	priv_data_encode(big, PrivData{0x48, 4096});
	ASSERT_EQ(priv_data_parse(big, sizeof(big), pd), PrivDataResult::Ok);
	EXPECT_EQ(pd.recv_mtu, 4096u);
}

KTEST(cm_priv_data, mtu_bounds)
{
	u8 b[kPrivDataLen];
	PrivData pd;
	const struct { u32 in; PrivDataResult r; u32 out; } cases[] = {
		{0, PrivDataResult::MtuTooSmall, 0},
		{4, PrivDataResult::MtuTooSmall, 0},
		{kMinRecvMtu - 1, PrivDataResult::MtuTooSmall, 0},
		{kMinRecvMtu, PrivDataResult::Ok, kMinRecvMtu},
		{2048, PrivDataResult::Ok, 2048},
		{kMaxRecvMtu, PrivDataResult::Ok, kMaxRecvMtu},
		{kMaxRecvMtu + 1, PrivDataResult::Ok, kMaxRecvMtu},
		{0x80000000u, PrivDataResult::Ok, kMaxRecvMtu},
		{0xffffffffu, PrivDataResult::Ok, kMaxRecvMtu},
	};
	for (const auto &c : cases) {
		priv_data_encode(b, PrivData{0x48, c.in});
		EXPECT_EQ(priv_data_parse(b, sizeof(b), pd), c.r);
		if (c.r == PrivDataResult::Ok)
			EXPECT_EQ(pd.recv_mtu, c.out);
	}
}

KTEST(cm_priv_data, qpn_bounds)
{
	u8 b[kPrivDataLen];
	PrivData pd;
	const u32 bads[] = {0u, 1u, 0xffffffu};
	for (u32 bad : bads) {
		priv_data_encode(b, PrivData{bad, 65524});
		EXPECT_EQ(priv_data_parse(b, sizeof(b), pd), PrivDataResult::BadQpn);
	}
	const u32 goods[] = {2u, 0xfffffeu};
	for (u32 good : goods) {
		priv_data_encode(b, PrivData{good, 65524});
		ASSERT_EQ(priv_data_parse(b, sizeof(b), pd), PrivDataResult::Ok);
		EXPECT_EQ(pd.ud_qpn, good);
	}
	EXPECT_FALSE(is_ud_qpn(0x1000002));
}

KTEST(cm_caps, round_trip)
{
	u8 b[kCmPrivDataLen];
	cm_priv_data_encode(b, PrivData{0x48, 65524}, kCapBidir);
	PrivData pd;
	ASSERT_EQ(priv_data_parse(b, sizeof(b), pd), PrivDataResult::Ok); // RFC part unchanged
	EXPECT_EQ(pd.ud_qpn, 0x48u);
	Caps c = caps_parse(b, sizeof(b));
	EXPECT_TRUE(c.present);
	EXPECT_EQ(c.version, kCapVersion);
	EXPECT_EQ(c.flags, kCapBidir);
	EXPECT_EQ(b[8], 'I');
	EXPECT_EQ(b[11], 'M');
	cm_priv_data_encode(b, PrivData{0x48, 65524}, 0);
	c = caps_parse(b, sizeof(b));
	EXPECT_TRUE(c.present);
	EXPECT_EQ(c.flags, 0u);
}

KTEST(cm_caps, absent_truncated_and_bad)
{
	u8 b[kCmPrivDataLen];
	cm_priv_data_encode(b, PrivData{0x48, 65524}, kCapBidir);
	for (usize len = 0; len < kCmPrivDataLen; len++) {
		Caps c = caps_parse(b, len);
		EXPECT_FALSE(c.present);
		EXPECT_EQ(c.flags, 0u);
	}
	EXPECT_FALSE(caps_parse(nullptr, 64).present);
	u8 linux_req[92] = {}; // Linux: 8 octets, the rest of the area zero
	priv_data_encode(linux_req, PrivData{0x48, 65524});
	EXPECT_FALSE(caps_parse(linux_req, sizeof(linux_req)).present);
	u8 bad[kCmPrivDataLen];
	for (usize i = 8; i < 12; i++) { // any magic octet wrong
		cm_priv_data_encode(bad, PrivData{0x48, 65524}, kCapBidir);
		bad[i] ^= 0x20;
		EXPECT_FALSE(caps_parse(bad, sizeof(bad)).present);
	}
	cm_priv_data_encode(bad, PrivData{0x48, 65524}, kCapBidir);
	bad[12] = 0; // version 0 is not a version
	EXPECT_FALSE(caps_parse(bad, sizeof(bad)).present);
}

KTEST(cm_caps, unknown_versions_and_bits)
{
	u8 b[32] = {};
	cm_priv_data_encode(b, PrivData{0x48, 65524}, 0xffff);
	b[12] = 200;			// a future version
	b[13] = 0x5a;			// reserved octet: ignored
	b[16] = 0xee;			// fields a later version appends
	Caps c = caps_parse(b, sizeof(b));
	EXPECT_TRUE(c.present);
	EXPECT_EQ(c.version, 200u);
	EXPECT_EQ(c.flags, kCapKnown);	// unknown bits dropped
	cm_priv_data_encode(b, PrivData{0x48, 65524}, u16(~kCapKnown));
	c = caps_parse(b, sizeof(b));
	EXPECT_TRUE(c.present);
	EXPECT_EQ(c.flags, 0u);
}

KTEST(cm_caps, bidirectional_needs_both)
{
	Caps none;
	Caps zero{true, 1, 0};
	Caps bidir{true, 1, kCapBidir};
	Caps stale{false, 0, kCapBidir}; // not present: flags do not count
	EXPECT_TRUE(bidirectional_allowed(bidir, bidir));
	EXPECT_FALSE(bidirectional_allowed(bidir, none));
	EXPECT_FALSE(bidirectional_allowed(none, bidir));
	EXPECT_FALSE(bidirectional_allowed(bidir, zero));
	EXPECT_FALSE(bidirectional_allowed(zero, bidir));
	EXPECT_FALSE(bidirectional_allowed(bidir, stale));
	EXPECT_FALSE(bidirectional_allowed(none, none));
}

// kCapCsumFree (docs/connected.md §9b): on the wire, parsed with or without kCapBidir, and
// used only when both blocks are present and both carry it.
KTEST(cm_caps, csum_free_negotiation)
{
	u8 b[kCmPrivDataLen] = {};
	cm_priv_data_encode(b, PrivData{0x48, 65524}, kCapCsumFree);
	EXPECT_EQ(b[14], 0u);
	EXPECT_EQ(b[15], 0x02u);
	Caps c = caps_parse(b, sizeof(b));
	EXPECT_TRUE(c.present);
	EXPECT_EQ(c.flags, kCapCsumFree);
	EXPECT_FALSE(bidirectional_allowed(c, c));
	cm_priv_data_encode(b, PrivData{0x48, 65524}, u16(kCapCsumFree | kCapBidir));
	c = caps_parse(b, sizeof(b));
	EXPECT_EQ(c.flags, u16(kCapCsumFree | kCapBidir));
	// truncated by one octet (a peer whose block ends early): absent, nothing negotiated
	EXPECT_FALSE(caps_parse(b, sizeof(b) - 1).present);
	EXPECT_FALSE(csum_free_allowed(c, caps_parse(b, sizeof(b) - 1)));
	Caps none;
	Caps bidir_only{true, 1, kCapBidir};
	Caps csum{true, 1, kCapCsumFree};
	Caps stale{false, 0, kCapCsumFree};	// not present: flags do not count
	EXPECT_TRUE(csum_free_allowed(csum, csum));
	EXPECT_TRUE(csum_free_allowed(c, csum));
	EXPECT_FALSE(csum_free_allowed(csum, none));	// Linux: no block
	EXPECT_FALSE(csum_free_allowed(none, csum));
	EXPECT_FALSE(csum_free_allowed(csum, bidir_only));	// ours with cm_csum_free=0
	EXPECT_FALSE(csum_free_allowed(bidir_only, csum));
	EXPECT_FALSE(csum_free_allowed(csum, stale));
	// a wrong magic with the bit set: not a block, no negotiation
	b[8] ^= 0x01;
	EXPECT_FALSE(csum_free_allowed(csum, caps_parse(b, sizeof(b))));
}

// The mark in the RFC 4391 §6 reserved octets, and what a receive makes of it: junk in the
// reserved bits (any value but the exact mark) is ignored; the mark from a connection that
// did not negotiate it is counted and the packet verified as any other.
KTEST(cm_csum_mark, write_and_classify)
{
	u8 h[kEncapLen];
	encap_write(h, 0x0800);
	EXPECT_FALSE(encap_csum_marked(h));
	EXPECT_EQ(int(rx_csum(h, true)), int(RxCsum::Verify));
	encap_mark_csum(h);
	EXPECT_EQ(h[0], 0x08u);	// the ethertype is left alone
	EXPECT_EQ(h[1], 0x00u);
	EXPECT_TRUE(encap_csum_marked(h));
	EXPECT_EQ(int(rx_csum(h, true)), int(RxCsum::Restore));
	EXPECT_EQ(int(rx_csum(h, false)), int(RxCsum::UnexpectedMark));
	u16 type = 0;
	EXPECT_TRUE(encap_parse(h, sizeof(h), type));
	EXPECT_EQ(type, 0x0800u);
	// junk: every other value of the reserved field, including the mark's single octets
	const u16 junk[] = {0x0001, 0xffff, 0x4300, 0x0053, 0x4352, 0xc353, 0x8000};
	for (u16 j : junk) {
		h[2] = u8(j >> 8);
		h[3] = u8(j);
		EXPECT_FALSE(encap_csum_marked(h));
		EXPECT_EQ(int(rx_csum(h, true)), int(RxCsum::Verify));
		EXPECT_EQ(int(rx_csum(h, false)), int(RxCsum::Verify));
	}
}

namespace {
// An encapsulated packet's first octets: the encapsulation header (type), then an IPv4
// header of ihl words (protocol proto) or an IPv6 header (next header proto).
struct CsumPkt {
	u8 b[kEncapLen + 60 + 40] = {};
	CsumPkt(u16 type, u8 proto, u32 ihl = 5)
	{
		encap_write(b, type);
		u8 *ip = b + kEncapLen;
		if (type == 0x0800) {
			ip[0] = u8(0x40 | ihl);
			ip[9] = proto;
		} else {
			ip[0] = 0x60;
			ip[6] = proto;
		}
	}
	TxCsum rule(u32 start, u16 off, bool neg = true, u32 headlen = sizeof(b)) const
	{
		return tx_csum(true, start, off, b, headlen, neg);
	}
};
constexpr u32 kV4 = kEncapLen + 20, kV6 = kEncapLen + 40;	// the transport header's start
} // namespace

KTEST(cm_csum_mark, send_rule)
{
	const CsumPkt tcp4(0x0800, 6), udp4(0x0800, 17), tcp6(0x86dd, 6), udp6(0x86dd, 17);
	// not CHECKSUM_PARTIAL: the checksum is in the packet already (or none is wanted)
	EXPECT_EQ(int(tx_csum(false, 0, 0, tcp4.b, sizeof(tcp4.b), true)), int(TxCsum::AsIs));
	EXPECT_EQ(int(tx_csum(false, kV4, kTcpCsumOffset, tcp4.b, sizeof(tcp4.b), false)), int(TxCsum::AsIs));
	// TCP, UDP right after the IP header, towards a negotiated peer: unfilled and marked
	EXPECT_EQ(int(tcp4.rule(kV4, kTcpCsumOffset)), int(TxCsum::Mark));
	EXPECT_EQ(int(udp4.rule(kV4, kUdpCsumOffset)), int(TxCsum::Mark));
	EXPECT_EQ(int(tcp6.rule(kV6, kTcpCsumOffset)), int(TxCsum::Mark));
	EXPECT_EQ(int(udp6.rule(kV6, kUdpCsumOffset)), int(TxCsum::Mark));
	const CsumPkt opts(0x0800, 6, 8);	// IPv4 with 12 octets of options
	EXPECT_EQ(int(opts.rule(kEncapLen + 32, kTcpCsumOffset)), int(TxCsum::Mark));
	// not negotiated: filled
	EXPECT_EQ(int(tcp4.rule(kV4, kTcpCsumOffset, false)), int(TxCsum::Fill));
	EXPECT_EQ(int(udp6.rule(kV6, kUdpCsumOffset, false)), int(TxCsum::Fill));
	// a checksum field the receiver could not restore (SCTP-like, ICMPv6 at 2): filled
	EXPECT_EQ(int(tcp4.rule(kV4, 2)), int(TxCsum::Fill));
	EXPECT_EQ(int(tcp4.rule(kV4, 8)), int(TxCsum::Fill));
	EXPECT_EQ(int(tcp4.rule(kV4, 0)), int(TxCsum::Fill));
	// the offset alone is not enough
	// a tunnel (UDP outer, e.g. VXLAN) whose partial checksum is the inner TCP's: filled
	EXPECT_EQ(int(udp4.rule(kV4 + 8 + 8 + 14 + 20, kTcpCsumOffset)), int(TxCsum::Fill));
	EXPECT_EQ(int(udp4.rule(kV4 + 8 + 8 + 14 + 20, kUdpCsumOffset)), int(TxCsum::Fill));
	// TCP's offset on a UDP header and the other way round, or another protocol: filled
	EXPECT_EQ(int(udp4.rule(kV4, kTcpCsumOffset)), int(TxCsum::Fill));
	EXPECT_EQ(int(tcp6.rule(kV6, kUdpCsumOffset)), int(TxCsum::Fill));
	EXPECT_EQ(int(CsumPkt(0x0800, 132).rule(kV4, kUdpCsumOffset)), int(TxCsum::Fill));
	EXPECT_EQ(int(CsumPkt(0x86dd, 0).rule(kV6, kTcpCsumOffset)), int(TxCsum::Fill));	// hop-by-hop first
	// csum_start not at the transport header (inside the IP header, past it)
	EXPECT_EQ(int(tcp4.rule(kV4 - 4, kTcpCsumOffset)), int(TxCsum::Fill));
	EXPECT_EQ(int(tcp6.rule(kV4, kTcpCsumOffset)), int(TxCsum::Fill));
	// an IPv4 fragment (MF set, or an offset), a bad IHL, the wrong version, not IP
	CsumPkt frag(0x0800, 6);
	frag.b[kEncapLen + 6] = 0x20;
	EXPECT_EQ(int(frag.rule(kV4, kTcpCsumOffset)), int(TxCsum::Fill));
	frag.b[kEncapLen + 6] = 0;
	frag.b[kEncapLen + 7] = 1;
	EXPECT_EQ(int(frag.rule(kV4, kTcpCsumOffset)), int(TxCsum::Fill));
	EXPECT_EQ(int(CsumPkt(0x0800, 6, 4).rule(kEncapLen + 16, kTcpCsumOffset)), int(TxCsum::Fill));
	CsumPkt v6in4(0x0800, 6);
	v6in4.b[kEncapLen] = 0x65;
	EXPECT_EQ(int(v6in4.rule(kV4, kTcpCsumOffset)), int(TxCsum::Fill));
	EXPECT_EQ(int(CsumPkt(0x0806, 6).rule(kV4, kTcpCsumOffset)), int(TxCsum::Fill));
	// a head too short to hold the IP header: filled (never read past it)
	EXPECT_EQ(int(tcp4.rule(kV4, kTcpCsumOffset, true, kV4 - 1)), int(TxCsum::Fill));
	EXPECT_EQ(int(tcp6.rule(kV6, kTcpCsumOffset, true, kV6 - 1)), int(TxCsum::Fill));
	EXPECT_EQ(int(opts.rule(kEncapLen + 32, kTcpCsumOffset, true, kEncapLen + 31)), int(TxCsum::Fill));
}

// RFC 4391 §6: octets 2-3 are zero on send unless we mark; what a sender (a raw socket)
// wrote there does not reach the wire, so it cannot forge the mark.
KTEST(cm_csum_mark, reserved_cleared_unless_marked)
{
	const TxCsum all[] = {TxCsum::AsIs, TxCsum::Fill, TxCsum::Mark};
	for (TxCsum how : all) {
		u8 h[kEncapLen];
		encap_write(h, 0x86dd);
		encap_mark_csum(h);	// forged by the sender
		encap_set_csum(h, how);
		EXPECT_EQ(h[0], 0x86u);	// the ethertype is left alone
		EXPECT_EQ(h[1], 0xddu);
		EXPECT_EQ(encap_csum_marked(h), how == TxCsum::Mark);
		h[2] = 0x12;	// junk
		h[3] = 0x34;
		encap_set_csum(h, how);
		EXPECT_EQ(encap_csum_marked(h), how == TxCsum::Mark);
		if (how != TxCsum::Mark) {
			EXPECT_EQ(h[2], 0u);
			EXPECT_EQ(h[3], 0u);
		}
	}
}

KTEST(cm_service_id, values_and_connect_order)
{
	EXPECT_EQ(service_id(SidKind::Linux, 0x48), 0x1000000000000048ull);
	EXPECT_EQ(service_id(SidKind::Rfc, 0x123456), 0x0100000000123456ull);
	EXPECT_EQ(service_id(SidKind::Rfc, 0xff123456), 0x0100000000123456ull);
	u64 sid = 0;
	ASSERT_TRUE(connect_service_id(0, 0x48, sid));
	EXPECT_EQ(sid, kSidLinux | 0x48);
	ASSERT_TRUE(connect_service_id(1, 0x48, sid));
	EXPECT_EQ(sid, kSidRfc | 0x48);
	sid = 7;
	EXPECT_FALSE(connect_service_id(2, 0x48, sid));
	EXPECT_FALSE(connect_service_id(0, 0, sid));
	EXPECT_FALSE(connect_service_id(0, 0x1000048, sid));
	EXPECT_EQ(sid, 7u);
}

KTEST(cm_service_id, parse)
{
	SidKind k = SidKind::Rfc;
	u32 qpn = 0;
	ASSERT_TRUE(service_id_parse(0x1000000000abcdefull, k, qpn));
	EXPECT_EQ(k, SidKind::Linux);
	EXPECT_EQ(qpn, 0xabcdefu);
	ASSERT_TRUE(service_id_parse(0x0100000000000002ull, k, qpn));
	EXPECT_EQ(k, SidKind::Rfc);
	EXPECT_EQ(qpn, 2u);
	const u32 qpns[] = {2u, 0x48u, 0xfffffeu};
	const SidKind kinds[] = {SidKind::Linux, SidKind::Rfc};
	for (u32 q : qpns)
		for (SidKind kind : kinds) {
			ASSERT_TRUE(service_id_parse(service_id(kind, q), k, qpn));
			EXPECT_EQ(k, kind);
			EXPECT_EQ(qpn, q);
		}
	const u64 bad[] = {
		0, 0x48, 0x1100000000000048ull, 0x0200000000000048ull, 0xffffffffffffffffull,
		0x1000000001000048ull,	// QPN wider than 24 bits
		0x0101000000000048ull,	// Type != 0 (§3.5)
		0x0100000100000048ull,	// reserved bits set
		0x1000000000000000ull, 0x1000000000000001ull, 0x0100000000ffffffull, // QPN 0, 1, mcast
		0x2000000000000048ull, 0x0010000000000048ull,
	};
	for (u64 s : bad) {
		EXPECT_FALSE(service_id_parse(s, k, qpn));
		if (service_id_parse(s, k, qpn))
			ktest_log(kt, "accepted 0x%llx", (unsigned long long)s);
	}
}

KTEST(cm_mtu, connection_mtu)
{
	EXPECT_EQ(connection_mtu(65524, 65524), 65520u);
	EXPECT_EQ(connection_mtu(65524, 2048), 2044u);	// §5.1: the smaller, both ways
	EXPECT_EQ(connection_mtu(2048, 65524), 2044u);
	EXPECT_EQ(connection_mtu(kMinRecvMtu, kMaxRecvMtu), 1280u);
	EXPECT_EQ(connection_mtu(5, 65524), 1u);
	EXPECT_EQ(connection_mtu(4, 65524), 0u);
	EXPECT_EQ(connection_mtu(0, 0), 0u);
	EXPECT_EQ(connection_mtu(0xffffffffu, 0xffffffffu), 0xfffffffbu);
	// The connected-mode netdev cap (Interface::cm_mtu_cap): what our buffers hold, against
	// the largest peer. 16 SGEs hold 3712 + 15 pages = 65152 (docs/connected.md §5); softib's
	// host_recv_sge=8 gives 32384 (e2e ipoib-cm-pmtu).
	EXPECT_EQ(connection_mtu(65152, kMaxRecvMtu), 65148u);
	EXPECT_EQ(connection_mtu(32384, kMaxRecvMtu), 32380u);
	EXPECT_EQ(connection_mtu(kMaxRecvMtu, kMaxRecvMtu), kMaxCmMtu);
}

// IBA 12.6.7.2 reason codes: each one connected mode meets has its own counter, the rest
// (including 0 and codes above the table) share "other".
KTEST(cm_rej_code, by_reason)
{
	EXPECT_EQ(rej_code(1), RejCode::NoQp);
	EXPECT_EQ(rej_code(2), RejCode::NoEec);
	EXPECT_EQ(rej_code(3), RejCode::NoResources);
	EXPECT_EQ(rej_code(5), RejCode::Unsupported);
	EXPECT_EQ(rej_code(8), RejCode::InvalidServiceId);
	EXPECT_EQ(rej_code(26), RejCode::InvalidMtu);
	EXPECT_EQ(rej_code(28), RejCode::Consumer);
	static const u32 others[] = {0, 4, 6, 7, 9, 10, 25, 27, 29, 30, 35, 255, 0x10000 + 1};
	for (u32 r : others)
		EXPECT_EQ(rej_code(r), RejCode::Other);
	// every bucket is reached by exactly one code, Other excepted
	u32 hits[kRejCodeCount] = {};
	for (u32 r = 0; r < 256; r++)
		hits[usize(rej_code(r))]++;
	for (usize i = 0; i + 1 < kRejCodeCount; i++)
		EXPECT_EQ(hits[i], 1u);
	EXPECT_EQ(hits[usize(RejCode::Other)], 256u - (kRejCodeCount - 1));
}

void make_addr(u8 out[kHwAddrLen], u8 flags, u32 qpn, u8 gid_last)
{
	for (usize i = 0; i < kHwAddrLen; i++)
		out[i] = 0;
	out[0] = flags;
	out[1] = u8(qpn >> 16);
	out[2] = u8(qpn >> 8);
	out[3] = u8(qpn);
	out[4] = 0xfe;
	out[5] = 0x80;
	out[19] = gid_last;
}

KTEST(cm_arbitration, smaller_local_accepts)
{
	u8 a[kHwAddrLen], b[kHwAddrLen];
	make_addr(a, 0x80, 0x48, 1);
	make_addr(b, 0x80, 0x48, 2);
	EXPECT_EQ(crossing_req_survivor(a, b), Survivor::Remote);	// local smaller: accept
	EXPECT_EQ(crossing_req_survivor(b, a), Survivor::Local);	// local larger: REJ
	// the QPN octets come before the GID: most significant octet first
	make_addr(a, 0x00, 0x49, 1);
	make_addr(b, 0x00, 0x48, 2);
	EXPECT_EQ(crossing_req_survivor(a, b), Survivor::Local);
	// flags are zeroed: 0x80 vs 0x00 in octet 0 decides nothing
	make_addr(a, 0x80, 0x48, 1);
	make_addr(b, 0x00, 0x48, 2);
	EXPECT_EQ(crossing_req_survivor(a, b), Survivor::Remote);
	make_addr(a, 0x00, 0x48, 1);
	make_addr(b, 0xff, 0x48, 2);
	EXPECT_EQ(crossing_req_survivor(a, b), Survivor::Remote);
	EXPECT_EQ(crossing_req_survivor(b, a), Survivor::Local);
}

// For every pair of distinct addresses, exactly one side's REQ survives: each side keeps its own
// REQ when it is Local on its side, and the other's when Remote; both must name the same REQ.
KTEST(cm_arbitration, exactly_one_survives)
{
	constexpr int n = 12;
	u8 addr[n][kHwAddrLen];
	for (int i = 0; i < n; i++)
		make_addr(addr[i], u8(i & 1 ? 0x80 : 0), u32(0x100 * (i % 3) + 0x48), u8(i * 37));
	addr[n - 1][0] = 0xc0;
	addr[n - 1][10] = 0x01; // differs in the middle of the GID
	int checked = 0;
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++) {
			if (i == j)
				continue;
			bool i_keeps_own = crossing_req_survivor(addr[i], addr[j]) == Survivor::Local;
			bool j_keeps_own = crossing_req_survivor(addr[j], addr[i]) == Survivor::Local;
			EXPECT_NE(i_keeps_own, j_keeps_own); // never both, never neither
			checked++;
		}
	EXPECT_EQ(checked, n * (n - 1));
	// addresses differing only in the flags octet are the same peer
	u8 x[kHwAddrLen], y[kHwAddrLen];
	make_addr(x, 0x80, 0x48, 1);
	make_addr(y, 0x00, 0x48, 1);
	EXPECT_EQ(crossing_req_survivor(x, y), Survivor::Local);
	EXPECT_EQ(crossing_req_survivor(y, x), Survivor::Local);
}

KTEST_SUITE(cm_priv_data, KTEST_CASE(cm_priv_data, round_trip_and_layout),
	    KTEST_CASE(cm_priv_data, reserved_octet_ignored_on_receive),
	    KTEST_CASE(cm_priv_data, short_buffers), KTEST_CASE(cm_priv_data, mtu_bounds),
	    KTEST_CASE(cm_priv_data, qpn_bounds));
KTEST_SUITE(cm_caps, KTEST_CASE(cm_caps, round_trip), KTEST_CASE(cm_caps, absent_truncated_and_bad),
	    KTEST_CASE(cm_caps, unknown_versions_and_bits), KTEST_CASE(cm_caps, bidirectional_needs_both),
	    KTEST_CASE(cm_caps, csum_free_negotiation));
KTEST_SUITE(cm_csum_mark, KTEST_CASE(cm_csum_mark, write_and_classify), KTEST_CASE(cm_csum_mark, send_rule),
	    KTEST_CASE(cm_csum_mark, reserved_cleared_unless_marked));
KTEST_SUITE(cm_service_id, KTEST_CASE(cm_service_id, values_and_connect_order),
	    KTEST_CASE(cm_service_id, parse));
KTEST_SUITE(cm_mtu, KTEST_CASE(cm_mtu, connection_mtu));
KTEST_SUITE(cm_rej_code, KTEST_CASE(cm_rej_code, by_reason));
KTEST_SUITE(cm_arbitration, KTEST_CASE(cm_arbitration, smaller_local_accepts),
	    KTEST_CASE(cm_arbitration, exactly_one_survives));

} // namespace ktest_cm_wire
