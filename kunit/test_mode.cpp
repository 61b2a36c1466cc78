// SPDX-License-Identifier: GPL-2.0
// test_mode.cpp - the admin mode (ipoib_mode.cpp: spellings, MTU rule, offload rule, against
// the in-tree ipoib_set_mode / ipoib_change_mtu / ipoib_fix_features semantics) and the
// verdict for a packet above the UD path's MTU (ipoib_oversize.cpp: IPv4 with and without
// DF, forwarded or our own, IPv6, ARP, multicast, sizes at the edges).
#include "ktest.h"
#include "core/ipoib_addr.h"
#include "core/netdev/ipoib_mode.h"
#include "core/netdev/ipoib_oversize.h"

namespace ktest_mode {

using namespace ipoib;
using kstd::StrView;

KTEST(mode_spelling, parse)
{
	bool cm = true;
	ASSERT_TRUE(mode::parse(StrView("datagram"), cm));
	EXPECT_FALSE(cm);
	ASSERT_TRUE(mode::parse(StrView("connected"), cm));
	EXPECT_TRUE(cm);
	cm = true;
	EXPECT_FALSE(mode::parse(StrView("Connected"), cm));
	EXPECT_FALSE(mode::parse(StrView("connect"), cm));
	EXPECT_FALSE(mode::parse(StrView("connectedx"), cm));
	EXPECT_FALSE(mode::parse(StrView(""), cm));
	EXPECT_FALSE(mode::parse(StrView(" datagram"), cm));
	EXPECT_FALSE(mode::parse(StrView("datagram\n"), cm));	// the caller strips sysfs's newline
	EXPECT_TRUE(cm);	// untouched on failure
}

KTEST(mode_spelling, names_and_ifla)
{
	EXPECT_STREQ(mode::name(false), "datagram");
	EXPECT_STREQ(mode::name(true), "connected");
	EXPECT_EQ(mode::ifla(false), 0);	// IPOIB_MODE_DATAGRAM
	EXPECT_EQ(mode::ifla(true), 1);		// IPOIB_MODE_CONNECTED
	bool cm = false;
	ASSERT_TRUE(mode::from_ifla(1, cm));
	EXPECT_TRUE(cm);
	ASSERT_TRUE(mode::from_ifla(0, cm));
	EXPECT_FALSE(cm);
	EXPECT_FALSE(mode::from_ifla(2, cm));
	EXPECT_FALSE(mode::from_ifla(0xffff, cm));
	for (int c = 0; c < 2; c++) {	// round trips
		bool back = c == 0;
		ASSERT_TRUE(mode::parse(StrView(mode::name(c != 0)), back));
		EXPECT_EQ(back, c != 0);
		ASSERT_TRUE(mode::from_ifla(mode::ifla(c != 0), back));
		EXPECT_EQ(back, c != 0);
	}
}

KTEST(mode_mtu, bounds_and_switch)
{
	EXPECT_EQ(mode::kCmMtu, 65520u);
	EXPECT_EQ(mode::max_mtu(true, 2044), 65520u);
	EXPECT_EQ(mode::max_mtu(false, 2044), 2044u);
	EXPECT_EQ(mode::max_mtu(false, 4092), 4092u);
	// connected raises to 65520 whatever the MTU was (in-tree dev_set_mtu(ipoib_cm_max_mtu))
	EXPECT_EQ(mode::switch_mtu(true, 2044, 2044), 65520u);
	EXPECT_EQ(mode::switch_mtu(true, 1500, 2044), 65520u);
	EXPECT_EQ(mode::switch_mtu(true, 65520, 2044), 65520u);
	// datagram: back to the UD MTU, or keeps a smaller one (in-tree min(mcast_mtu, mtu))
	EXPECT_EQ(mode::switch_mtu(false, 65520, 2044), 2044u);
	EXPECT_EQ(mode::switch_mtu(false, 9000, 4092), 4092u);
	EXPECT_EQ(mode::switch_mtu(false, 1500, 2044), 1500u);
	EXPECT_EQ(mode::switch_mtu(false, 2044, 2044), 2044u);
	EXPECT_EQ(mode::switch_mtu(false, 2045, 2044), 2044u);
	// a join sets the group's MTU in datagram mode only
	EXPECT_TRUE(mode::join_sets_mtu(false));
	EXPECT_FALSE(mode::join_sets_mtu(true));
}

KTEST(mode_features, per_mode_offloads)
{
	const u32 all = KAPI_FEAT_IP_CSUM | KAPI_FEAT_IPV6_CSUM | KAPI_FEAT_HW_CSUM | KAPI_FEAT_RXCSUM |
			KAPI_FEAT_TSO | KAPI_FEAT_TSO6 | KAPI_FEAT_SG;
	const u32 csum = KAPI_FEAT_IP_CSUM | KAPI_FEAT_IPV6_CSUM;
	// datagram: the driver does none of it (UD posts one linear buffer, checksums filled)
	EXPECT_EQ(mode::fix_features(all, false, true), 0u);
	EXPECT_EQ(mode::fix_features(all, false, false), 0u);
	// connected, cm_csum_free=1: SG + IP/IPv6 checksum, RXCSUM fixed on, never HW_CSUM/TSO
	EXPECT_EQ(mode::fix_features(all, true, true), csum | KAPI_FEAT_SG | KAPI_FEAT_RXCSUM);
	EXPECT_EQ(mode::fix_features(mode::kOffered, true, true), mode::kOffered | KAPI_FEAT_RXCSUM);
	// RXCSUM on even when the admin turned the tx checksum off: marked packets may still come
	EXPECT_EQ(mode::fix_features(KAPI_FEAT_SG, true, true), KAPI_FEAT_SG | KAPI_FEAT_RXCSUM);
	EXPECT_EQ(mode::fix_features(0, true, true), u32(KAPI_FEAT_RXCSUM));
	// connected, cm_csum_free=0: SG only (the stack checksums)
	EXPECT_EQ(mode::fix_features(all, true, false), u32(KAPI_FEAT_SG));
	EXPECT_EQ(mode::fix_features(0, true, false), 0u);
	const u32 never[] = {KAPI_FEAT_HW_CSUM, KAPI_FEAT_TSO, KAPI_FEAT_TSO6};
	for (u32 f : never) {
		EXPECT_EQ(mode::fix_features(f, false, true), 0u);
		EXPECT_EQ(mode::fix_features(f, true, false), 0u);
		EXPECT_EQ(mode::fix_features(f, true, true), u32(KAPI_FEAT_RXCSUM));
	}
	// what the netdev offers contains nothing a mode never allows
	EXPECT_EQ(mode::kOffered & mode::kNeverOffered, 0u);
	// bits the rule does not know pass in every mode
	EXPECT_EQ(mode::fix_features(0x40000000u | KAPI_FEAT_TSO, true, false), 0x40000000u);
	EXPECT_EQ(mode::fix_features(0x40000000u, false, true), 0x40000000u);
}

// An RFC 4391 packet: encap header + an IP header of the given version, flags octet df.
struct Pkt {
	u8 b[128] = {};
	Pkt(u16 type, u8 version, bool df)
	{
		encap_write(b, type);
		b[kEncapLen] = u8(version << 4 | 5);
		if (df)
			b[kEncapLen + 6] = 0x40;
	}
};

constexpr u32 kMtu = 2044;
constexpr u32 kMax = kMtu + kEncapLen;	// the largest packet that fits

KTEST(oversize_verdict, fits_at_the_edge)
{
	Pkt v4(kEthIpv4, 4, true);
	EXPECT_EQ(oversize(v4.b, kMax, false, false, kMtu), Oversize::Fits);
	EXPECT_EQ(oversize(v4.b, kMax, true, false, kMtu), Oversize::Fits);
	EXPECT_EQ(oversize(v4.b, 60, false, false, kMtu), Oversize::Fits);
	EXPECT_EQ(oversize(v4.b, kMax + 1, false, false, kMtu), Oversize::FragNeeded);
}

KTEST(oversize_verdict, ipv4_df)
{
	Pkt df(kEthIpv4, 4, true), nodf(kEthIpv4, 4, false);
	EXPECT_EQ(oversize(df.b, 60004, false, false, kMtu), Oversize::FragNeeded);
	EXPECT_EQ(oversize(nodf.b, 60004, false, false, kMtu), Oversize::Drop);	// forwarded
	EXPECT_EQ(oversize(nodf.b, 60004, false, true, kMtu), Oversize::FragNeeded);	// our own
	EXPECT_EQ(oversize(df.b, 60004, false, true, kMtu), Oversize::FragNeeded);
	EXPECT_EQ(oversize(nodf.b, kMax, false, true, kMtu), Oversize::Fits);
	// DF among the other flag/offset bits
	df.b[kEncapLen + 6] = 0x40 | 0x1f;
	df.b[kEncapLen + 7] = 0xff;
	EXPECT_EQ(oversize(df.b, kMax + 1, false, false, kMtu), Oversize::FragNeeded);
	nodf.b[kEncapLen + 6] = 0x20 | 0x1f;	// MF set, DF clear
	EXPECT_EQ(oversize(nodf.b, kMax + 1, false, false, kMtu), Oversize::Drop);
	// a header that is no IPv4 header
	Pkt bad(kEthIpv4, 6, true);
	EXPECT_EQ(oversize(bad.b, kMax + 1, false, false, kMtu), Oversize::Drop);
	EXPECT_EQ(oversize(bad.b, kMax + 1, false, true, kMtu), Oversize::Drop);
}

KTEST(oversize_verdict, ipv6)
{
	Pkt v6(kEthIpv6, 6, false);
	EXPECT_EQ(oversize(v6.b, 60004, false, false, kMtu), Oversize::PktTooBig);
	EXPECT_EQ(oversize(v6.b, kMax + 1, false, false, kMtu), Oversize::PktTooBig);
	// RFC 8200 §5: no Packet Too Big below 1280
	EXPECT_EQ(oversize(v6.b, 1280 + kEncapLen + 1, false, false, 1280), Oversize::PktTooBig);
	EXPECT_EQ(oversize(v6.b, 1279 + kEncapLen + 1, false, false, 1279), Oversize::Drop);
	EXPECT_EQ(oversize(v6.b, 2000, false, false, 1020), Oversize::Drop);	// IB MTU 1024
	Pkt bad(kEthIpv6, 4, false);
	EXPECT_EQ(oversize(bad.b, kMax + 1, false, false, kMtu), Oversize::Drop);
}

KTEST(oversize_verdict, other_and_multicast)
{
	Pkt arp(kEthArp, 0, false);
	EXPECT_EQ(oversize(arp.b, kMax + 1, false, false, kMtu), Oversize::Drop);
	EXPECT_EQ(oversize(arp.b, kMax + 1, false, true, kMtu), Oversize::Drop);	// local or not
	Pkt v4(kEthIpv4, 4, true), v6(kEthIpv6, 6, false);
	// multicast: never an ICMP, whatever the protocol
	EXPECT_EQ(oversize(v4.b, kMax + 1, true, false, kMtu), Oversize::DropMcast);
	EXPECT_EQ(oversize(v6.b, 60004, true, false, kMtu), Oversize::DropMcast);
	EXPECT_EQ(oversize(v4.b, kMax + 1, true, true, kMtu), Oversize::DropMcast);	// our own too
	EXPECT_EQ(oversize(arp.b, kMax + 1, true, false, kMtu), Oversize::DropMcast);
	// no MTU yet (before the broadcast join): everything is too big
	EXPECT_EQ(oversize(v4.b, kEncapLen + 20, false, false, 0), Oversize::FragNeeded);
	// a packet shorter than the headers it claims (only above a tiny MTU)
	EXPECT_EQ(oversize(v4.b, kEncapLen + 19, false, false, 8), Oversize::Drop);
	EXPECT_EQ(oversize(v6.b, kEncapLen + 39, false, false, 8), Oversize::Drop);
	EXPECT_EQ(oversize(v4.b, kEncapLen + 20, false, false, 8), Oversize::FragNeeded);
}

// The send path hands oversize() a fragmented skb's head: only kOversizeHead
// octets are linear. A buffer of exactly that size must do for every verdict (ASan / KASAN
// catch a read past it).
KTEST(oversize_verdict, reads_only_its_head)
{
	Pkt v4(kEthIpv4, 4, true), v6(kEthIpv6, 6, false);
	u8 h4[kOversizeHead], h6[kOversizeHead];
	for (u32 i = 0; i < kOversizeHead; i++) {
		h4[i] = v4.b[i];
		h6[i] = v6.b[i];
	}
	EXPECT_EQ(oversize(h4, 60004, false, false, kMtu), Oversize::FragNeeded);
	EXPECT_EQ(oversize(h6, 60004, false, false, kMtu), Oversize::PktTooBig);
	h4[kEncapLen + 6] = 0;
	EXPECT_EQ(oversize(h4, 60004, false, false, kMtu), Oversize::Drop);
}

KTEST_SUITE(mode_spelling, KTEST_CASE(mode_spelling, parse), KTEST_CASE(mode_spelling, names_and_ifla));
KTEST_SUITE(mode_mtu, KTEST_CASE(mode_mtu, bounds_and_switch));
KTEST_SUITE(mode_features, KTEST_CASE(mode_features, per_mode_offloads));
KTEST_SUITE(oversize_verdict, KTEST_CASE(oversize_verdict, fits_at_the_edge), KTEST_CASE(oversize_verdict, ipv4_df),
	    KTEST_CASE(oversize_verdict, ipv6), KTEST_CASE(oversize_verdict, other_and_multicast),
	    KTEST_CASE(oversize_verdict, reads_only_its_head));

} // namespace ktest_mode
