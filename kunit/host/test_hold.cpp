// SPDX-License-Identifier: GPL-2.0
// test_hold.cpp (host only): what a packet gives back before it waits in one of the driver's
// queues (ipoib_hold.h): which sockets are the kernel's control sockets, and that a control
// socket's packet leaves its send buffer but stays this host's own, so one above its path's
// MTU is still answered with an ICMP to the local stack (ipoib_oversize.h).
#include "fake_verbs.h"
#include "core/ipoib_addr.h"
#include "core/ipoib_hold.h"
#include "core/netdev/ipoib_oversize.h"
#include "ktest.h"

using namespace ipoib;

namespace ktest_hold {

constexpr u32 kControl = KAPI_SKB_SOCK_FULL | KAPI_SKB_SOCK_KERN | KAPI_SKB_SOCK_RAW;
constexpr u32 kConnMtu = 32380;		// a connection's MTU below the netdev's (e2e ipoib-cm-pmtu)
constexpr u32 kReplyLen = 40004 + 4;	// an echo reply of 40000 octets of data, with its header

// An skb holding the encapsulation header and an IPv4 header without DF (an ICMP echo reply:
// the ICMP socket never sets DF), charged to a socket with these facts (0: none).
kapi_skb *ipv4_nodf(u32 sock_flags)
{
	kapi_skb *s = kapi_skb_alloc(nullptr, 64, 0, KAPI_GFP_KERNEL);
	if (!s)
		return nullptr;
	u8 *p = kapi_skb_put(s, 4 + 20);
	for (u32 i = 0; i < 4 + 20; i++)
		p[i] = 0;
	p[0] = 0x08;	// IPv4
	p[kEncapLen] = 0x45;
	if (sock_flags)
		fake_skb_set_sock(s, sock_flags);
	return s;
}

Oversize verdict(kapi_skb *s)
{
	return oversize(kapi_skb_data(s), kReplyLen, false, kapi_icmp_skb_local(s) != 0, kConnMtu);
}

// Only the kernel's control sockets (full, kernel, SOCK_RAW) give their charge back: a user's
// raw socket is paced by its own buffer, and a kernel TCP socket (NFS, iSCSI: SOCK_STREAM) by
// TCP Small Queues, as any user's.
KTEST(hold_charge, control_sockets_are_the_kernels_raw_ones)
{
	EXPECT_TRUE(control_socket(kControl));
	EXPECT_FALSE(control_socket(KAPI_SKB_SOCK_FULL | KAPI_SKB_SOCK_KERN));	// NFS, iSCSI, nvme-tcp
	EXPECT_FALSE(control_socket(KAPI_SKB_SOCK_FULL | KAPI_SKB_SOCK_RAW));	// a user's raw socket
	EXPECT_FALSE(control_socket(KAPI_SKB_SOCK_FULL));			// any user socket
	EXPECT_FALSE(control_socket(KAPI_SKB_SOCK_KERN | KAPI_SKB_SOCK_RAW));	// not a full socket
	EXPECT_FALSE(control_socket(0));					// no socket
}

// A control socket's packet that waited is still this host's: above the connection's MTU it
// gets frag-needed to the local stack, as it would have before waiting, not the drop of a
// forwarded packet. Its send buffer is free all the same, and a second hold changes nothing.
KTEST(hold_charge, a_held_control_packet_stays_local)
{
	kapi_skb *s = ipv4_nodf(kControl);
	ASSERT_NOT_NULL(s);
	EXPECT_EQ(verdict(s), Oversize::FragNeeded);	// before it waits
	hold_uncharge(s);
	EXPECT_FALSE(fake_skb_charged(s));
	EXPECT_TRUE(kapi_icmp_skb_local(s));
	EXPECT_EQ(verdict(s), Oversize::FragNeeded);
	hold_uncharge(s);	// held again (requeued, then waiting at a send bound)
	EXPECT_TRUE(kapi_icmp_skb_local(s));
	EXPECT_EQ(verdict(s), Oversize::FragNeeded);
	kapi_skb_free(s);
	kapi_skb *fwd = ipv4_nodf(0);	// forwarded: no socket
	ASSERT_NOT_NULL(fwd);
	hold_uncharge(fwd);
	EXPECT_EQ(verdict(fwd), Oversize::Drop);
	kapi_skb_free(fwd);
	EXPECT_EQ(fake_skbs_live(), 0);
}

// Every other socket's packet keeps its charge while it waits.
KTEST(hold_charge, other_sockets_keep_their_charge)
{
	const u32 others[] = {KAPI_SKB_SOCK_FULL, KAPI_SKB_SOCK_FULL | KAPI_SKB_SOCK_KERN,
			      KAPI_SKB_SOCK_FULL | KAPI_SKB_SOCK_RAW};
	for (u32 f : others) {
		kapi_skb *s = ipv4_nodf(f);
		ASSERT_NOT_NULL(s);
		hold_uncharge(s);
		EXPECT_TRUE(fake_skb_charged(s));
		EXPECT_EQ(verdict(s), Oversize::FragNeeded);
		kapi_skb_free(s);
	}
}

KTEST_SUITE(hold_charge, KTEST_CASE(hold_charge, control_sockets_are_the_kernels_raw_ones),
	    KTEST_CASE(hold_charge, a_held_control_packet_stays_local), KTEST_CASE(hold_charge, other_sockets_keep_their_charge));

} // namespace ktest_hold
