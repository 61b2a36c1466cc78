// SPDX-License-Identifier: GPL-2.0
// test_addr.cpp - datagram-mode wire logic (ipoib_addr.cpp): the 20-octet link-layer address
// (RFC 4391 §9.1.1, flags octet per RFC 4755 §3.1), broadcast and multicast GIDs with the
// P_Key (RFC 4391 §4, checked against concrete values and against Linux's ip_ib_mc_map /
// ipv6_ib_mc_map / ipoib_mcast_addr_is_valid), the encapsulation header (§6), MTU enums (§7),
// queue-size clamping (against ipoib_init_module's rule), ethtool link speed, receive
// classification, and the byte helpers.
#include "ktest.h"
#include "core/ipoib_addr.h"
#include "kstd/new.h"

namespace ktest_addr {

using namespace ipoib;

// First differing octet of two buffers, reported with the caller's line.
void expect_bytes_(ktest_ctx *kt, const char *file, int line, const char *what, const u8 *got,
		   const u8 *want, usize n)
{
	for (usize i = 0; i < n; i++) {
		if (got[i] != want[i]) {
			char msg[160];
			ktest_snprintf(msg, sizeof(msg), "%s: octet %lu is 0x%02x, want 0x%02x", what,
				       (unsigned long)i, got[i], want[i]);
			ktest_fail(kt, file, line, msg);
			return;
		}
	}
}
#define EXPECT_BYTES(got, want, n) expect_bytes_(kt, __FILE__, __LINE__, #got, (got), (want), (n))

constexpr u8 kGid[kGidLen] = {0xfe, 0x80, 0, 0, 0, 0, 0, 0,
			      0x00, 0x11, 0x22, 0xff, 0xfe, 0x33, 0x44, 0x55};

// ------------------------------------------------------------------ HwAddr

KTEST(addr_hwaddr, make_layout_and_accessors)
{
	HwAddr a = HwAddr::make(0, 0x123456, kGid);
	const u8 want[kHwAddrLen] = {0x00, 0x12, 0x34, 0x56, 0xfe, 0x80, 0, 0, 0, 0, 0, 0,
				     0x00, 0x11, 0x22, 0xff, 0xfe, 0x33, 0x44, 0x55};
	EXPECT_BYTES(a.b, want, kHwAddrLen);
	EXPECT_EQ(a.flags(), 0u);
	EXPECT_EQ(a.qpn(), 0x123456u);
	EXPECT_EQ(a.gid(), a.b + 4);
	EXPECT_BYTES(a.gid(), kGid, kGidLen);
	EXPECT_FALSE(a.is_multicast());
	static_assert(sizeof(HwAddr) == kHwAddrLen);
	static_assert(kHardLen == 24 && kEncapLen == 4 && kGrhLen == 40);
	// a default-constructed address is all zero
	HwAddr z;
	const u8 zero[kHwAddrLen] = {};
	EXPECT_BYTES(z.b, zero, kHwAddrLen);
}

KTEST(addr_hwaddr, qpn_is_24_bit_big_endian)
{
	const struct { u32 in; u32 out; u8 o1, o2, o3; } cases[] = {
		{0, 0, 0, 0, 0},
		{1, 1, 0, 0, 1},
		{0x48, 0x48, 0, 0, 0x48},
		{0x010203, 0x010203, 1, 2, 3},
		{0xfffffe, 0xfffffe, 0xff, 0xff, 0xfe},
		{kMulticastQpn, kMulticastQpn, 0xff, 0xff, 0xff},
		{0x01abcdef, 0xabcdef, 0xab, 0xcd, 0xef},	// bits above 24 are dropped
		{0xff000000u, 0, 0, 0, 0},
	};
	for (const auto &c : cases) {
		HwAddr a = HwAddr::make(kFlagRc, c.in, kGid);
		EXPECT_EQ(a.qpn(), c.out);
		EXPECT_EQ(a.b[1], c.o1);
		EXPECT_EQ(a.b[2], c.o2);
		EXPECT_EQ(a.b[3], c.o3);
		EXPECT_EQ(a.flags(), kFlagRc);	// the QPN never spills into the flags octet
		EXPECT_BYTES(a.gid(), kGid, kGidLen);
	}
}

KTEST(addr_hwaddr, flags_octet)
{
	// RFC 4755 §3.1: bit 0 (MSB) = RC, bit 1 = UC; Linux IPOIB_FLAGS_RC 0x80, _UC 0x40.
	EXPECT_EQ(kFlagRc, 0x80u);
	EXPECT_EQ(kFlagUc, 0x40u);
	const u8 flags[] = {0, kFlagRc, kFlagUc, u8(kFlagRc | kFlagUc), 0xff, 0x01};
	for (u8 f : flags) {
		HwAddr a = HwAddr::make(f, 0x000102, kGid);
		EXPECT_EQ(a.flags(), f);
		EXPECT_EQ(a.b[0], f);
		EXPECT_EQ(a.qpn(), 0x000102u);	// flags never read into the QPN
	}
	// an address parsed from the wire keeps the peer's flags as they were
	u8 raw[kHwAddrLen] = {0x80, 0x00, 0x00, 0x48};
	bytes_copy(raw + 4, kGid, kGidLen);
	HwAddr a = HwAddr::from(raw);
	EXPECT_EQ(a.flags() & kFlagRc, kFlagRc);
	EXPECT_EQ(a.qpn(), 0x48u);
}

KTEST(addr_hwaddr, from_copies_20_octets_at_any_offset)
{
	// The pseudo header sits at arbitrary offsets in skb data: parse from an odd offset of a
	// larger buffer, and nothing beyond the 20 octets is read or kept.
	u8 buf[kHwAddrLen + 7];
	for (usize i = 0; i < sizeof(buf); i++)
		buf[i] = u8(0xa0 + i);
	for (usize off = 0; off <= 7; off++) {
		HwAddr a = HwAddr::from(buf + off);
		EXPECT_BYTES(a.b, buf + off, kHwAddrLen);
		EXPECT_EQ(a.flags(), u8(0xa0 + off));
		EXPECT_EQ(a.qpn(), (u32(0xa1 + off) << 16) | (u32(0xa2 + off) << 8) | u32(0xa3 + off));
		EXPECT_EQ(a.gid()[0], u8(0xa4 + off));
	}
	// an independent copy: changing the source afterwards changes nothing
	HwAddr a = HwAddr::from(buf);
	buf[0] = 0;
	buf[5] = 0;
	EXPECT_EQ(a.b[0], 0xa0u);
	EXPECT_EQ(a.b[5], 0xa5u);
	// make() then from() round-trips
	HwAddr m = HwAddr::make(kFlagRc, 0xabcdef, kGid);
	HwAddr r = HwAddr::from(m.b);
	EXPECT_BYTES(r.b, m.b, kHwAddrLen);
}

KTEST(addr_hwaddr, is_multicast)
{
	u8 gid[kGidLen] = {};
	gid[0] = 0xff;
	EXPECT_TRUE(HwAddr::make(0, kMulticastQpn, gid).is_multicast());
	EXPECT_TRUE(HwAddr::make(0, 0x48, gid).is_multicast());	// by the GID only
	const u8 not_mc[] = {0x00, 0xfe, 0x7f, 0xf0, 0xef};
	for (u8 o : not_mc) {
		gid[0] = o;
		EXPECT_FALSE(HwAddr::make(0, kMulticastQpn, gid).is_multicast());
	}
	EXPECT_FALSE(HwAddr::make(0xff, 0xffffff, kGid).is_multicast());	// flags/QPN 0xff don't count
	EXPECT_TRUE(make_broadcast_addr(0xffff, 2).is_multicast());
}

KTEST_SUITE(addr_hwaddr, KTEST_CASE(addr_hwaddr, make_layout_and_accessors),
	    KTEST_CASE(addr_hwaddr, qpn_is_24_bit_big_endian), KTEST_CASE(addr_hwaddr, flags_octet),
	    KTEST_CASE(addr_hwaddr, from_copies_20_octets_at_any_offset),
	    KTEST_CASE(addr_hwaddr, is_multicast));

// ------------------------------------------------------------------ MGIDs

KTEST(addr_mgid, broadcast_mgid)
{
	u8 m[kGidLen];
	// FF12:401B:FFFF:0000:0000:0000:FFFF:FFFF (RFC 4391 §4, default P_Key, link-local)
	const u8 want[kGidLen] = {0xff, 0x12, 0x40, 0x1b, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff};
	make_broadcast_mgid(0xffff, 2, m);
	EXPECT_BYTES(m, want, kGidLen);
	// the full-member bit is forced: 0x7fff (limited member) -> 0xffff
	make_broadcast_mgid(0x7fff, 2, m);
	EXPECT_BYTES(m, want, kGidLen);
	// every octet is written (no stale content survives)
	for (usize i = 0; i < kGidLen; i++)
		m[i] = 0x5a;
	make_broadcast_mgid(0x8001, 5, m);
	const u8 want2[kGidLen] = {0xff, 0x15, 0x40, 0x1b, 0x80, 0x01, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff};
	EXPECT_BYTES(m, want2, kGidLen);
	// P_Key 0 -> 0x8000; the scope argument keeps only its low nibble, T flag always set
	make_broadcast_mgid(0, 0xfe, m);
	EXPECT_EQ(m[1], 0x1eu);
	EXPECT_EQ(m[4], 0x80u);
	EXPECT_EQ(m[5], 0x00u);
	EXPECT_TRUE(mgid_is_ipoib(m));
}

KTEST(addr_mgid, broadcast_addr)
{
	// Linux ipv4_bcast_addr with the P_Key filled in: 00:ff:ff:ff:ff:12:40:1b:PP:PP:0..0:ff:ff:ff:ff
	HwAddr a = make_broadcast_addr(0x7fff, 2);
	const u8 want[kHwAddrLen] = {0x00, 0xff, 0xff, 0xff, 0xff, 0x12, 0x40, 0x1b, 0xff, 0xff,
				     0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff};
	EXPECT_BYTES(a.b, want, kHwAddrLen);
	EXPECT_EQ(a.flags(), 0u);
	EXPECT_EQ(a.qpn(), kMulticastQpn);
	u8 m[kGidLen];
	make_broadcast_mgid(0x1234, 8, m);
	HwAddr b = make_broadcast_addr(0x1234, 8);
	EXPECT_BYTES(b.gid(), m, kGidLen);
	EXPECT_EQ(b.b[8], 0x92u);
	EXPECT_EQ(b.b[9], 0x34u);
	EXPECT_EQ(b.b[5], 0x18u);
}

KTEST(addr_mgid, set_pkey_full_member_bit)
{
	const struct { u16 in; u8 hi, lo; } cases[] = {
		{0xffff, 0xff, 0xff}, {0x7fff, 0xff, 0xff}, {0x0000, 0x80, 0x00},
		{0x8000, 0x80, 0x00}, {0x0001, 0x80, 0x01}, {0x1234, 0x92, 0x34},
	};
	for (const auto &c : cases) {
		u8 m[kGidLen];
		for (usize i = 0; i < kGidLen; i++)
			m[i] = u8(i);
		mgid_set_pkey(m, c.in);
		EXPECT_EQ(m[4], c.hi);
		EXPECT_EQ(m[5], c.lo);
		for (usize i = 0; i < kGidLen; i++)	// nothing else is touched
			if (i != 4 && i != 5)
				EXPECT_EQ(m[i], u8(i));
	}
}

KTEST(addr_mgid, is_ipoib)
{
	u8 m[kGidLen];
	make_broadcast_mgid(0xffff, 2, m);
	EXPECT_TRUE(mgid_is_ipoib(m));
	m[2] = 0x60;	// IPv6 signature
	EXPECT_TRUE(mgid_is_ipoib(m));
	const struct { usize i; u8 v; bool ok; } muts[] = {
		{0, 0xfe, false},	// not a multicast GID
		{1, 0x02, false},	// flags nibble 0 (T flag clear)
		{1, 0x32, false},	// flags nibble 3
		{1, 0x1f, true},	// any scope
		{1, 0x10, true},
		{2, 0x50, false},	// signature 501b
		{2, 0x41, false},
		{3, 0x1c, false},	// signature 401c
		{4, 0x00, true},	// P_Key, group ID: not part of the signature
		{15, 0x00, true},
	};
	for (const auto &mu : muts) {
		make_broadcast_mgid(0xffff, 2, m);
		m[mu.i] = mu.v;
		EXPECT_EQ(mgid_is_ipoib(m), mu.ok);
	}
	// a plain IPv6 multicast address used as a GID is not an IPoIB MGID
	const u8 v6[kGidLen] = {0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
	EXPECT_FALSE(mgid_is_ipoib(v6));
	EXPECT_FALSE(mgid_is_ipoib(kGid));
}

KTEST(addr_mgid, from_ipv4_known_values)
{
	u8 m[kGidLen];
	// 224.0.0.1, P_Key 0xffff -> ff12:401b:ffff::1
	const u8 all_hosts[kGidLen] = {0xff, 0x12, 0x40, 0x1b, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
	mgid_from_ipv4(0xe0000001, 0xffff, 2, m);
	EXPECT_BYTES(m, all_hosts, kGidLen);
	// RFC 4391 §4 example: all-routers with P_Key 0x8000 -> FF12:401B:8000::2
	const u8 all_routers[kGidLen] = {0xff, 0x12, 0x40, 0x1b, 0x80, 0x00, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2};
	mgid_from_ipv4(0xe0000002, 0x8000, 2, m);
	EXPECT_BYTES(m, all_routers, kGidLen);
	mgid_from_ipv4(0xe0000002, 0x0000, 2, m);	// full-member bit forced
	EXPECT_BYTES(m, all_routers, kGidLen);
	// low 28 bits only: 239.255.255.250 -> ...:0f:ff:ff:fa; 224.x and 239.x differ only in 0..27
	mgid_from_ipv4(0xeffffffa, 0xffff, 2, m);
	const u8 ssdp[kGidLen] = {0xff, 0x12, 0x40, 0x1b, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0x0f, 0xff, 0xff, 0xfa};
	EXPECT_BYTES(m, ssdp, kGidLen);
	u8 m2[kGidLen];
	mgid_from_ipv4(0x1ffffffa, 0xffff, 2, m2);	// same low 28 bits, other top nibble
	EXPECT_BYTES(m2, ssdp, kGidLen);
	// 255.255.255.255 does not give the broadcast GID (48 zero bits + 32 one bits): 0x0fffffff
	mgid_from_ipv4(0xffffffff, 0xffff, 2, m);
	EXPECT_EQ(m[12], 0x0fu);
	// the scope argument, as for the broadcast GID (all MGIDs use its scope)
	mgid_from_ipv4(0xe0000001, 0xffff, 5, m);
	EXPECT_EQ(m[1], 0x15u);
	EXPECT_TRUE(mgid_is_ipoib(m));
	// stale output content is overwritten
	for (usize i = 0; i < kGidLen; i++)
		m[i] = 0xaa;
	mgid_from_ipv4(0xe0000001, 0xffff, 2, m);
	EXPECT_BYTES(m, all_hosts, kGidLen);
}

KTEST(addr_mgid, from_ipv6_known_values)
{
	u8 m[kGidLen];
	// ff02::1, P_Key 0xffff -> ff12:601b:ffff::1
	const u8 g1[16] = {0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
	const u8 w1[kGidLen] = {0xff, 0x12, 0x60, 0x1b, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
	mgid_from_ipv6(g1, 0xffff, 2, m);
	EXPECT_BYTES(m, w1, kGidLen);
	// RFC 4391 §4 example: ff02::2, P_Key 0x8000 -> FF12:601B:8000::2
	const u8 g2[16] = {0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2};
	const u8 w2[kGidLen] = {0xff, 0x12, 0x60, 0x1b, 0x80, 0x00, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2};
	mgid_from_ipv6(g2, 0x8000, 2, m);
	EXPECT_BYTES(m, w2, kGidLen);
	// solicited-node ff02::1:ff12:3456 -> ff12:601b:ffff::1:ff12:3456
	const u8 sn[16] = {0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0xff, 0x12, 0x34, 0x56};
	const u8 wsn[kGidLen] = {0xff, 0x12, 0x60, 0x1b, 0xff, 0xff, 0, 0, 0, 0, 0, 1, 0xff, 0x12, 0x34, 0x56};
	mgid_from_ipv6(sn, 0x7fff, 2, m);
	EXPECT_BYTES(m, wsn, kGidLen);
	// the low 80 bits are copied whatever they are; octets 2..5 of the group are dropped and
	// the group's own scope does not matter (ff05:: with broadcast scope 2 -> ff12)
	const u8 g3[16] = {0xff, 0x05, 0xaa, 0xbb, 0xcc, 0xdd, 0x01, 0x02, 0x03, 0x04,
			   0x05, 0x06, 0x07, 0x08, 0x09, 0x0a};
	const u8 w3[kGidLen] = {0xff, 0x12, 0x60, 0x1b, 0x92, 0x34, 0x01, 0x02, 0x03, 0x04,
				0x05, 0x06, 0x07, 0x08, 0x09, 0x0a};
	for (usize i = 0; i < kGidLen; i++)
		m[i] = 0xaa;
	mgid_from_ipv6(g3, 0x1234, 2, m);
	EXPECT_BYTES(m, w3, kGidLen);
	mgid_from_ipv6(g1, 0xffff, 8, m);
	EXPECT_EQ(m[1], 0x18u);
}

KTEST(addr_mgid, hw_addr_matches_linux_mc_map)
{
	// Linux's ip_ib_mc_map/ipv6_ib_mc_map build the 20-octet address from the broadcast
	// address: 00:ff:ff:ff | ff:1<scope>:40|60:1b:<broadcast P_Key>:<group>. Same result.
	HwAddr bc = make_broadcast_addr(0x8001, 5);
	u8 m[kGidLen];
	mgid_from_ipv4(0xe00000fb, 0x8001, 5, m);	// 224.0.0.251 (mDNS)
	HwAddr a = HwAddr::make(0, kMulticastQpn, m);
	const u8 want4[kHwAddrLen] = {0x00, 0xff, 0xff, 0xff, 0xff, 0x15, 0x40, 0x1b, 0x80, 0x01,
				      0, 0, 0, 0, 0, 0, 0x00, 0x00, 0x00, 0xfb};
	EXPECT_BYTES(a.b, want4, kHwAddrLen);
	EXPECT_TRUE(mcast_addr_valid(a.b, bc.b));
	const u8 g6[16] = {0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xfb};
	mgid_from_ipv6(g6, 0x8001, 5, m);
	a = HwAddr::make(0, kMulticastQpn, m);
	const u8 want6[kHwAddrLen] = {0x00, 0xff, 0xff, 0xff, 0xff, 0x15, 0x60, 0x1b, 0x80, 0x01,
				      0, 0, 0, 0, 0, 0, 0, 0, 0, 0xfb};
	EXPECT_BYTES(a.b, want6, kHwAddrLen);
	EXPECT_TRUE(mcast_addr_valid(a.b, bc.b));
}

KTEST_SUITE(addr_mgid, KTEST_CASE(addr_mgid, broadcast_mgid), KTEST_CASE(addr_mgid, broadcast_addr),
	    KTEST_CASE(addr_mgid, set_pkey_full_member_bit), KTEST_CASE(addr_mgid, is_ipoib),
	    KTEST_CASE(addr_mgid, from_ipv4_known_values), KTEST_CASE(addr_mgid, from_ipv6_known_values),
	    KTEST_CASE(addr_mgid, hw_addr_matches_linux_mc_map));

// ------------------------------------------------------------------ mcast_addr_valid

KTEST(addr_mcast_valid, accepts_this_links_groups)
{
	HwAddr bc = make_broadcast_addr(0xffff, 2);
	EXPECT_TRUE(mcast_addr_valid(bc.b, bc.b));	// the broadcast address itself
	u8 m[kGidLen];
	mgid_from_ipv4(0xe0000001, 0xffff, 2, m);
	EXPECT_TRUE(mcast_addr_valid(HwAddr::make(0, kMulticastQpn, m).b, bc.b));
	const u8 g6[16] = {0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0xff, 0x12, 0x34, 0x56};
	mgid_from_ipv6(g6, 0xffff, 2, m);
	EXPECT_TRUE(mcast_addr_valid(HwAddr::make(0, kMulticastQpn, m).b, bc.b));
	// the group ID part (octets 6..15 of the MGID) is free
	mgid_from_ipv4(0xe0000001, 0xffff, 2, m);
	m[6] = 0x12;
	m[15] = 0x34;
	EXPECT_TRUE(mcast_addr_valid(HwAddr::make(0, kMulticastQpn, m).b, bc.b));
}

KTEST(addr_mcast_valid, rejects_other_links_and_non_ipoib)
{
	HwAddr bc = make_broadcast_addr(0x8001, 2);
	u8 m[kGidLen];
	mgid_from_ipv4(0xe0000001, 0x8001, 2, m);
	HwAddr good = HwAddr::make(0, kMulticastQpn, m);
	ASSERT_TRUE(mcast_addr_valid(good.b, bc.b));
	// each octet that Linux's ipoib_mcast_addr_is_valid compares (QPN, MGID prefix, scope,
	// signature, P_Key), changed one at a time
	const struct { usize i; u8 v; } muts[] = {
		{1, 0x00}, {2, 0xfe}, {3, 0x00},	// QPN not 0xFFFFFF
		{4, 0xfe},				// not an MGID
		{5, 0x15}, {5, 0x02}, {5, 0x32},	// other scope / flags nibble
		{6, 0x50},				// signature 501b
		{7, 0x1c},				// signature 401c
		{8, 0xff}, {9, 0x02}, {8, 0x00},	// other P_Key (0x0001 limited member too)
	};
	for (const auto &mu : muts) {
		HwAddr a = good;
		a.b[mu.i] = mu.v;
		EXPECT_FALSE(mcast_addr_valid(a.b, bc.b));
	}
	// a link with scope 5 and another P_Key rejects this link's groups
	HwAddr bc5 = make_broadcast_addr(0x8001, 5);
	EXPECT_FALSE(mcast_addr_valid(good.b, bc5.b));
	HwAddr bcp = make_broadcast_addr(0x8002, 2);
	EXPECT_FALSE(mcast_addr_valid(good.b, bcp.b));
	// a unicast address
	EXPECT_FALSE(mcast_addr_valid(HwAddr::make(0, 0x48, kGid).b, bc.b));
}

KTEST(addr_mcast_valid, flags_octet_ignored)
{
	// Octet 0 is reserved in a multicast address (RFC 4755 §3.1: ignored on receive). Unlike
	// Linux's memcmp(addr, broadcast, 6), which also requires it equal, it is not checked.
	HwAddr bc = make_broadcast_addr(0xffff, 2);
	HwAddr a = bc;
	a.b[0] = kFlagRc;
	EXPECT_TRUE(mcast_addr_valid(a.b, bc.b));
	a.b[0] = 0xff;
	EXPECT_TRUE(mcast_addr_valid(a.b, bc.b));
}

KTEST_SUITE(addr_mcast_valid, KTEST_CASE(addr_mcast_valid, accepts_this_links_groups),
	    KTEST_CASE(addr_mcast_valid, rejects_other_links_and_non_ipoib),
	    KTEST_CASE(addr_mcast_valid, flags_octet_ignored));

// ------------------------------------------------------------------ encapsulation header

KTEST(addr_encap, write_layout)
{
	const struct { u16 type; u8 hi, lo; } cases[] = {
		{kEthIpv4, 0x08, 0x00}, {kEthArp, 0x08, 0x06}, {kEthIpv6, 0x86, 0xdd},
		{0x8035, 0x80, 0x35}, {0x0000, 0, 0}, {0xffff, 0xff, 0xff},
	};
	for (const auto &c : cases) {
		u8 h[kEncapLen + 2] = {0xaa, 0xaa, 0xaa, 0xaa, 0x5a, 0x5a};
		encap_write(h, c.type);
		EXPECT_EQ(h[0], c.hi);
		EXPECT_EQ(h[1], c.lo);
		EXPECT_EQ(h[2], 0u);	// reserved: 0 on send
		EXPECT_EQ(h[3], 0u);
		EXPECT_EQ(h[4], 0x5au);	// exactly 4 octets written
		EXPECT_EQ(h[5], 0x5au);
		u16 t = 0x1234;
		ASSERT_TRUE(encap_parse(h, kEncapLen, t));
		EXPECT_EQ(t, c.type);
	}
}

KTEST(addr_encap, parse_ignores_reserved)
{
	const u8 h[] = {0x86, 0xdd, 0xff, 0xff, 0x60, 0x00};
	u16 t = 0;
	ASSERT_TRUE(encap_parse(h, sizeof(h), t));
	EXPECT_EQ(t, kEthIpv6);
	const u8 h2[kEncapLen] = {0x08, 0x06, 0x12, 0x34};
	ASSERT_TRUE(encap_parse(h2, sizeof(h2), t));
	EXPECT_EQ(t, kEthArp);
}

KTEST(addr_encap, parse_short_buffers)
{
	u8 h[kEncapLen];
	encap_write(h, kEthIpv4);
	for (usize len = 0; len < kEncapLen; len++) {
		u16 t = 0x4242;
		EXPECT_FALSE(encap_parse(h, len, t));
		EXPECT_EQ(t, 0x4242u);	// untouched on failure
	}
	u16 t = 0x4242;
	EXPECT_FALSE(encap_parse(nullptr, 0, t));
	EXPECT_EQ(t, 0x4242u);
	// a heap buffer of exactly 3 octets: nothing past it is read (ASan/KASAN would tell)
	u8 *p = new (kstd::Gfp::Kernel) u8[3];
	ASSERT_NOT_NULL(p);
	p[0] = 0x08;
	p[1] = 0x00;
	p[2] = 0x00;
	EXPECT_FALSE(encap_parse(p, 3, t));
	delete[] p;
	// exactly 4 is enough
	p = new (kstd::Gfp::Kernel) u8[kEncapLen];
	ASSERT_NOT_NULL(p);
	encap_write(p, kEthArp);
	EXPECT_TRUE(encap_parse(p, kEncapLen, t));
	EXPECT_EQ(t, kEthArp);
	delete[] p;
}

// Connected mode sends ARP and RARP over UD, everything else that is not ND may ride RC
// (an ARP reply held for the replier's CM setup makes the asker's neighbour fail when many
// setups run at once, docs/connected.md §10.3a); the reserved bits do not
// matter.
KTEST(addr_encap, ud_only_arp)
{
	const struct { u16 type; UdOnly ud; } cases[] = {
		{kEthIpv4, UdOnly::No}, {kEthArp, UdOnly::Arp}, {kEthRarp, UdOnly::Arp},
		{0x0000, UdOnly::No}, {0x0805, UdOnly::No}, {0x0807, UdOnly::No}, {0x8034, UdOnly::No}, {0xffff, UdOnly::No},
	};
	for (const auto &c : cases) {
		u8 h[kEncapLen];
		encap_write(h, c.type);
		EXPECT_EQ(int(ud_only(h, kEncapLen)), int(c.ud));
		h[2] = 0xff;
		h[3] = 0xff;
		EXPECT_EQ(int(ud_only(h, kEncapLen)), int(c.ud));
	}
	// a head too short for the encapsulation header is not parsed: the normal path
	u8 h[kEncapLen];
	encap_write(h, kEthArp);
	for (usize len = 0; len < kEncapLen; len++)
		EXPECT_EQ(int(ud_only(h, len)), int(UdOnly::No));
}

// An encapsulated IPv6 packet: the header (version 6, next header nh) and 8 octets of the
// next one (ICMPv6: type first); kNdLen is exactly what ud_only needs to see the type.
constexpr usize kNdLen = kEncapLen + kIpv6HdrLen + 1;
constexpr usize kV6Len = kEncapLen + kIpv6HdrLen + 8;
static void v6_packet(u8 (&p)[kV6Len], u8 nh, u8 type)
{
	for (u8 &b : p)
		b = 0;
	encap_write(p, kEthIpv6);
	p[kEncapLen] = 0x60;
	p[kEncapLen + 6] = nh;
	p[kEncapLen + 7] = 255;	// hop limit of ND
	p[kEncapLen + kIpv6HdrLen] = type;
}

// RFC 4755 §7: ND (ICMPv6 133-137: RS, RA, NS, NA, Redirect) over UD, any other ICMPv6 and
// any other next header may ride RC (the in-tree driver's L8 sends ND over RC).
KTEST(addr_encap, ud_only_nd)
{
	u8 p[kV6Len];
	for (u32 type = 0; type < 256; type++) {
		v6_packet(p, kIpProtoIcmpv6, u8(type));
		const UdOnly want = type >= 133 && type <= 137 ? UdOnly::Nd : UdOnly::No;
		EXPECT_EQ(int(ud_only(p, kV6Len)), int(want));
		EXPECT_EQ(int(ud_only(p, kNdLen)), int(want));	// exactly enough
	}
	v6_packet(p, kIpProtoIcmpv6, 135);	// NS
	EXPECT_EQ(int(ud_only(p, kV6Len)), int(UdOnly::Nd));
	v6_packet(p, kIpProtoIcmpv6, 136);	// NA
	EXPECT_EQ(int(ud_only(p, kV6Len)), int(UdOnly::Nd));
	v6_packet(p, kIpProtoIcmpv6, 128);	// echo request
	EXPECT_EQ(int(ud_only(p, kV6Len)), int(UdOnly::No));
	v6_packet(p, kIpProtoIcmpv6, 129);	// echo reply
	EXPECT_EQ(int(ud_only(p, kV6Len)), int(UdOnly::No));
	v6_packet(p, kIpProtoIcmpv6, 2);	// packet too big
	EXPECT_EQ(int(ud_only(p, kV6Len)), int(UdOnly::No));
	// next header not 58: TCP, UDP, hop-by-hop (an extension header: normal path), ICMPv4's 1;
	// an octet 135 where the ICMPv6 type would be does not matter
	const u8 other[] = {6, 17, 0, 1, 43, 60, 59};
	for (u8 nh : other) {
		v6_packet(p, nh, 135);
		EXPECT_EQ(int(ud_only(p, kV6Len)), int(UdOnly::No));
	}
	// not version 6 behind the IPv6 ethertype
	v6_packet(p, kIpProtoIcmpv6, 135);
	p[kEncapLen] = 0x40;
	EXPECT_EQ(int(ud_only(p, kV6Len)), int(UdOnly::No));
	// the same type under another ethertype is not ND
	v6_packet(p, kIpProtoIcmpv6, 135);
	encap_write(p, kEthIpv4);
	EXPECT_EQ(int(ud_only(p, kV6Len)), int(UdOnly::No));
}

// A linear head shorter than the ICMPv6 type is "not ND" at every boundary (encap, inside
// the IPv6 header, just before the type), and nothing past len is read: each head is an
// exact-size heap copy (ASan/KASAN would tell).
KTEST(addr_encap, ud_only_nd_short_heads)
{
	u8 p[kV6Len];
	v6_packet(p, kIpProtoIcmpv6, 136);
	for (usize len = 0; len <= kNdLen; len++) {
		u8 *h = new (kstd::Gfp::Kernel) u8[len ? len : 1];
		ASSERT_NOT_NULL(h);
		for (usize i = 0; i < len; i++)
			h[i] = p[i];
		EXPECT_EQ(int(ud_only(h, len)), int(len == kNdLen ? UdOnly::Nd : UdOnly::No));
		delete[] h;
	}
}

KTEST_SUITE(addr_encap, KTEST_CASE(addr_encap, write_layout), KTEST_CASE(addr_encap, parse_ignores_reserved),
	    KTEST_CASE(addr_encap, parse_short_buffers), KTEST_CASE(addr_encap, ud_only_arp),
	    KTEST_CASE(addr_encap, ud_only_nd), KTEST_CASE(addr_encap, ud_only_nd_short_heads));

// ------------------------------------------------------------------ MTU

KTEST(addr_mtu, ib_mtu_enum_to_bytes)
{
	// enum ib_mtu: IB_MTU_256 = 1 .. IB_MTU_4096 = 5 (ib_mtu_enum_to_int)
	const struct { u32 e; u32 bytes; u32 ud; } cases[] = {
		{1, 256, 252}, {2, 512, 508}, {3, 1024, 1020}, {4, 2048, 2044}, {5, 4096, 4092},
	};
	for (const auto &c : cases) {
		EXPECT_EQ(ib_mtu_bytes(c.e), c.bytes);
		EXPECT_EQ(ud_mtu(c.e), c.ud);
		EXPECT_EQ(ud_mtu(c.e), ib_mtu_bytes(c.e) - u32(kEncapLen));
	}
	// RFC 4391 §7: every implementation supports 2044 (2048 - 4)
	EXPECT_EQ(ud_mtu(4), 2044u);
}

KTEST(addr_mtu, invalid_enums)
{
	const u32 bad[] = {0, 6, 7, 31, 32, 0x80000001u, 0xffffffffu};
	for (u32 e : bad) {
		EXPECT_EQ(ib_mtu_bytes(e), 0u);
		EXPECT_EQ(ud_mtu(e), 0u);	// not 0 - 4
	}
}

KTEST_SUITE(addr_mtu, KTEST_CASE(addr_mtu, ib_mtu_enum_to_bytes), KTEST_CASE(addr_mtu, invalid_enums));

// ------------------------------------------------------------------ queue sizes

// ipoib_init_module (6.1): roundup_pow_of_two, then min(IPOIB_MAX_QUEUE_SIZE = 8192), then max
// with the minimum (recv: 2; send: max3(.., 2 * MAX_SEND_CQE = 128, 2)). For 1 <= req <= 2^30,
// where that arithmetic is well defined.
u32 linux_rule(int req, u32 min_size)
{
	u32 p = 1;
	while (p < u32(req))
		p <<= 1;
	if (p > 8192)
		p = 8192;
	return p < min_size ? min_size : p;
}

KTEST(addr_queue_size, rounds_up_and_clamps)
{
	const struct { int req; u32 min; u32 out; bool changed; } cases[] = {
		{128, 128, 128, false}, {256, 2, 256, false}, {2, 2, 2, false},
		{8192, 2, 8192, false}, {8192, 128, 8192, false},
		{129, 128, 256, true}, {255, 2, 256, true}, {3, 2, 4, true},
		{1, 2, 2, true}, {1, 128, 128, true}, {64, 128, 128, true},
		{100, 2, 128, true}, {4097, 2, 8192, true}, {8191, 2, 8192, true},
		{8193, 2, 8192, true}, {16384, 128, 8192, true}, {1000000, 2, 8192, true},
		{0x7fffffff, 2, 8192, true}, {0x7fffffff, 128, 8192, true},
		// zero and negative: treated as 1, then the minimum
		{0, 2, 2, true}, {0, 128, 128, true}, {-1, 2, 2, true}, {-2, 2, 2, true},
		{-128, 128, 128, true}, {-0x7fffffff - 1, 2, 2, true},
		// a minimum that is not a power of two is taken as is (max applied last, as in-tree)
		{2, 3, 3, true}, {4, 3, 4, false},
	};
	for (const auto &c : cases) {
		bool changed = !c.changed;
		EXPECT_EQ(clamp_queue_size(c.req, c.min, changed), c.out);
		EXPECT_EQ(changed, c.changed);
	}
}

KTEST(addr_queue_size, results_are_powers_of_two_in_range)
{
	// For every request -3..9000: a power of two in [min, 8192], never below the request
	// unless clamped to 8192, and `changed` exactly when the result differs from the request.
	const u32 mins[] = {2u, 128u};
	for (u32 min : mins) {
		for (int req = -3; req <= 9000; req++) {
			bool changed;
			u32 q = clamp_queue_size(req, min, changed);
			bool pow2 = q != 0 && (q & (q - 1)) == 0;
			bool in_range = q >= min && q <= kMaxQueueSize;
			bool covers = req <= 0 || u32(req) <= q || q == kMaxQueueSize;
			bool flag_ok = changed == (req < 0 || u32(req) != q);
			if (!pow2 || !in_range || !covers || !flag_ok) {
				char msg[120];
				ktest_snprintf(msg, sizeof(msg), "req %d min %u -> %u changed %d", req, min, q,
					       changed);
				KTEST_FAIL(msg);
				return;
			}
		}
	}
}

KTEST(addr_queue_size, matches_in_tree_rule)
{
	// Same result as ipoib_init_module for every request 1..20000 and a sample up to 2^30.
	// (Above 2^30 the in-tree int arithmetic overflows: roundup_pow_of_two gives 2^31, stored
	// in an int it is negative, and min/max then yield the minimum. Here it is 8192.)
	const u32 mins[] = {2u, 128u};
	for (u32 min : mins) {
		for (int req = 1; req <= 20000; req++) {
			bool changed;
			u32 q = clamp_queue_size(req, min, changed);
			if (q != linux_rule(req, min)) {
				EXPECT_EQ(q, linux_rule(req, min));
				return;
			}
		}
		for (int req = 20000; req > 0 && req <= (1 << 30); req = req * 3 + 1) {
			bool changed;
			EXPECT_EQ(clamp_queue_size(req, min, changed), linux_rule(req, min));
		}
	}
}

KTEST_SUITE(addr_queue_size, KTEST_CASE(addr_queue_size, rounds_up_and_clamps),
	    KTEST_CASE(addr_queue_size, results_are_powers_of_two_in_range),
	    KTEST_CASE(addr_queue_size, matches_in_tree_rule));

// ------------------------------------------------------------------ link speed

KTEST(addr_link_speed, every_speed_and_width)
{
	// enum ib_port_speed -> lane Mb/s (ipoib_ethtool.c ib_speed_enum_to_int)
	const struct { u32 e; u32 lane; } speeds[] = {
		{1, 2500}, {2, 5000}, {4, 10000}, {8, 10000}, {16, 14000}, {32, 25000}, {64, 50000}, {128, 100000},
	};
	// enum ib_port_width -> lanes (ib_width_enum_to_int): 1X=1, 2X=16, 4X=2, 8X=4, 12X=8
	const struct { u32 e; u32 lanes; } widths[] = {{1, 1}, {16, 2}, {2, 4}, {4, 8}, {8, 12}};
	for (const auto &s : speeds)
		for (const auto &w : widths)
			EXPECT_EQ(link_speed_mbps(s.e, w.e), s.lane * w.lanes);
	EXPECT_EQ(link_speed_mbps(4, 2), 40000u);	// QDR 4X
	EXPECT_EQ(link_speed_mbps(32, 2), 100000u);	// EDR 4X
	EXPECT_EQ(link_speed_mbps(128, 8), 1200000u);	// NDR 12X
}

KTEST(addr_link_speed, unknown_is_zero)
{
	const u32 bad_speeds[] = {0, 3, 5, 6, 7, 9, 12, 256, 0xffffffffu};
	for (u32 s : bad_speeds)
		EXPECT_EQ(link_speed_mbps(s, 2), 0u);
	const u32 bad_widths[] = {0, 3, 5, 12, 32, 0xffffffffu};
	for (u32 w : bad_widths)
		EXPECT_EQ(link_speed_mbps(4, w), 0u);
	EXPECT_EQ(link_speed_mbps(0, 0), 0u);
}

KTEST_SUITE(addr_link_speed, KTEST_CASE(addr_link_speed, every_speed_and_width),
	    KTEST_CASE(addr_link_speed, unknown_is_zero));

// ------------------------------------------------------------------ classify_rx

constexpr u32 kMyQpn = 0x48;
constexpr u32 kMyLid = 3;
constexpr u8 kPeerGid[kGidLen] = {0xfe, 0x80, 0, 0, 0, 0, 0, 0,
				  0x00, 0x11, 0x22, 0xff, 0xfe, 0x33, 0x44, 0x66};

struct RxFixture {
	u8 bcast[kGidLen];
	u8 grh[kGrhLen];
	RxLocal me;

	RxFixture()
	{
		make_broadcast_mgid(0xffff, 2, bcast);
		for (usize i = 0; i < kGrhLen; i++)
			grh[i] = 0;
		grh[0] = 0x60;	// IPv6-style version nibble
		me = RxLocal{kMyQpn, kMyLid, kGid, bcast};
	}
	// GRH with SGID at 8 and DGID at 24
	void set(const u8 *sgid, const u8 *dgid)
	{
		bytes_copy(grh + 8, sgid, kGidLen);
		bytes_copy(grh + 24, dgid, kGidLen);
	}
};

KTEST(addr_classify_rx, self_sent)
{
	RxFixture f;
	// no GRH: our QPN from our LID
	EXPECT_EQ(classify_rx(RxInfo{kMyQpn, kMyLid, false, nullptr}, f.me), RxKind::Self);
	// our own broadcast looped back by the fabric: Self wins over Broadcast
	f.set(kGid, f.bcast);
	EXPECT_EQ(classify_rx(RxInfo{kMyQpn, kMyLid, true, f.grh}, f.me), RxKind::Self);
	// with a GRH from our GID, the SLID does not matter (our QPN, any LID)
	EXPECT_EQ(classify_rx(RxInfo{kMyQpn, 77, true, f.grh}, f.me), RxKind::Self);
	// our QPN and LID but another SGID: still Self (the LID identifies the port). Linux
	// (ipoib_ib_handle_rx_wc) would deliver this one when the SGID's interface ID differs.
	f.set(kPeerGid, f.bcast);
	EXPECT_EQ(classify_rx(RxInfo{kMyQpn, kMyLid, true, f.grh}, f.me), RxKind::Self);
}

KTEST(addr_classify_rx, not_self)
{
	RxFixture f;
	// another QP on our port (e.g. a second IPoIB interface), same LID
	EXPECT_EQ(classify_rx(RxInfo{kMyQpn + 1, kMyLid, false, nullptr}, f.me), RxKind::Host);
	// the same QPN number on another port (QPNs are per HCA)
	EXPECT_EQ(classify_rx(RxInfo{kMyQpn, kMyLid + 1, false, nullptr}, f.me), RxKind::Host);
	f.set(kPeerGid, f.bcast);
	EXPECT_EQ(classify_rx(RxInfo{kMyQpn, kMyLid + 1, true, f.grh}, f.me), RxKind::Broadcast);
	// our GID in the GRH but another QPN
	f.set(kGid, f.bcast);
	EXPECT_EQ(classify_rx(RxInfo{kMyQpn + 1, 77, true, f.grh}, f.me), RxKind::Broadcast);
	// the SGID must match in all 16 octets
	u8 g[kGidLen];
	for (usize i = 0; i < kGidLen; i++) {
		bytes_copy(g, kGid, kGidLen);
		g[i] ^= 0x01;
		f.set(g, f.bcast);
		EXPECT_EQ(classify_rx(RxInfo{kMyQpn, 77, true, f.grh}, f.me), RxKind::Broadcast);
	}
}

KTEST(addr_classify_rx, broadcast_multicast_host)
{
	RxFixture f;
	f.set(kPeerGid, f.bcast);
	EXPECT_EQ(classify_rx(RxInfo{0x99, 9, true, f.grh}, f.me), RxKind::Broadcast);
	// another group: any DGID starting 0xff that is not the broadcast MGID
	u8 m[kGidLen];
	mgid_from_ipv4(0xe0000001, 0xffff, 2, m);
	f.set(kPeerGid, m);
	EXPECT_EQ(classify_rx(RxInfo{0x99, 9, true, f.grh}, f.me), RxKind::Multicast);
	for (usize i = 1; i < kGidLen; i++) {	// one octet off the broadcast MGID
		bytes_copy(m, f.bcast, kGidLen);
		m[i] ^= 0x80;
		f.set(kPeerGid, m);
		EXPECT_EQ(classify_rx(RxInfo{0x99, 9, true, f.grh}, f.me), RxKind::Multicast);
	}
	// unicast DGID (our own GID) with a GRH
	f.set(kPeerGid, kGid);
	EXPECT_EQ(classify_rx(RxInfo{0x99, 9, true, f.grh}, f.me), RxKind::Host);
	// no GRH: unicast, and the buffer is not looked at even if it holds a multicast DGID
	f.set(kPeerGid, f.bcast);
	EXPECT_EQ(classify_rx(RxInfo{0x99, 9, false, f.grh}, f.me), RxKind::Host);
	EXPECT_EQ(classify_rx(RxInfo{0x99, 9, false, nullptr}, f.me), RxKind::Host);
	// the GRH's first 8 octets (version/class/flow/length/next header/hop limit) don't matter
	for (usize i = 0; i < 8; i++)
		f.grh[i] = 0xff;
	EXPECT_EQ(classify_rx(RxInfo{0x99, 9, true, f.grh}, f.me), RxKind::Broadcast);
}

KTEST_SUITE(addr_classify_rx, KTEST_CASE(addr_classify_rx, self_sent), KTEST_CASE(addr_classify_rx, not_self),
	    KTEST_CASE(addr_classify_rx, broadcast_multicast_host));

// ------------------------------------------------------------------ byte helpers

KTEST(addr_bytes, equal)
{
	const u8 a[5] = {1, 2, 3, 4, 5};
	u8 b[5] = {1, 2, 3, 4, 5};
	EXPECT_TRUE(bytes_equal(a, b, 5));
	EXPECT_TRUE(bytes_equal(a, a, 5));
	EXPECT_TRUE(bytes_equal(a, b, 0));
	EXPECT_TRUE(bytes_equal(nullptr, nullptr, 0));	// n = 0 reads nothing
	for (usize i = 0; i < 5; i++) {
		b[i] ^= 0x80;
		EXPECT_FALSE(bytes_equal(a, b, 5));
		EXPECT_TRUE(bytes_equal(a, b, i));	// only the first n octets count
		b[i] ^= 0x80;
	}
}

KTEST(addr_bytes, copy_exactly_n)
{
	const u8 src[6] = {0x11, 0x22, 0x33, 0x44, 0x55, 0x66};
	for (usize n = 0; n <= 6; n++) {
		u8 dst[8] = {0xee, 0xee, 0xee, 0xee, 0xee, 0xee, 0xee, 0xee};
		bytes_copy(dst, src, n);
		for (usize i = 0; i < 8; i++)
			EXPECT_EQ(dst[i], i < n ? src[i] : 0xeeu);
	}
	bytes_copy(nullptr, nullptr, 0);
	// heap buffers of exactly n octets: no access past either end (ASan/KASAN)
	u8 *s = new (kstd::Gfp::Kernel) u8[kGidLen];
	u8 *d = new (kstd::Gfp::Kernel) u8[kGidLen];
	ASSERT_NOT_NULL(s);
	if (!d) {
		delete[] s;
		KTEST_FAIL("allocation failed");
		return;
	}
	bytes_copy(s, kGid, kGidLen);
	bytes_copy(d, s, kGidLen);
	EXPECT_TRUE(bytes_equal(d, kGid, kGidLen));
	delete[] s;
	delete[] d;
}

KTEST_SUITE(addr_bytes, KTEST_CASE(addr_bytes, equal), KTEST_CASE(addr_bytes, copy_exactly_n));

// Port event -> flush level: the in-tree table (docs/protocol.md §2.16) plus SM change -> light.
KTEST(addr_flush_level, each_event)
{
	EXPECT_EQ(int(flush_for(KAPI_EV_CLIENT_REREGISTER)), int(Flush::Light));
	EXPECT_EQ(int(flush_for(KAPI_EV_GID_CHANGE)), int(Flush::Light));
	EXPECT_EQ(int(flush_for(KAPI_EV_SM_CHANGE)), int(Flush::Light));
	EXPECT_EQ(int(flush_for(KAPI_EV_PORT_ACTIVE)), int(Flush::Normal));
	EXPECT_EQ(int(flush_for(KAPI_EV_PORT_ERR)), int(Flush::Normal));
	EXPECT_EQ(int(flush_for(KAPI_EV_LID_CHANGE)), int(Flush::Normal));
	EXPECT_EQ(int(flush_for(KAPI_EV_PKEY_CHANGE)), int(Flush::Heavy));
	EXPECT_EQ(int(flush_for(KAPI_EV_OTHER)), int(Flush::None));
}

// The work item serves the strongest pending level, so the levels must be ordered.
KTEST(addr_flush_level, ordered_by_strength)
{
	EXPECT_LT(int(Flush::None), int(Flush::Light));
	EXPECT_LT(int(Flush::Light), int(Flush::Normal));
	EXPECT_LT(int(Flush::Normal), int(Flush::Heavy));
	EXPECT_LT(int(Flush::Heavy), 32);	// one bit each in a u32 pending mask
}

KTEST_SUITE(addr_flush_level, KTEST_CASE(addr_flush_level, each_event),
	    KTEST_CASE(addr_flush_level, ordered_by_strength));

} // namespace ktest_addr
