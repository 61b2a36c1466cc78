// SPDX-License-Identifier: GPL-2.0
// test_hold_shim.cpp - a held packet's send-buffer charge (ipoib_hold.h) through the real
// shim (kapi/skb.c: kapi_skb_sock_flags, kapi_skb_uncharge over skb_orphan_partial) and a
// real kernel socket (sock_create_kern in init_net, an skb charged with sock_wmalloc), in the
// KUnit module. A control socket's packet gives its charge back once and keeps its socket: a
// second skb_orphan_partial on an skb whose destructor is already sock_efree would orphan it
// whole, dropping skb->sk and the reference, so kapi_skb_uncharge again must change nothing.
// The host has no sockets (its fake skb is idempotent by itself): the cases skip there, and
// kunit/host/test_hold.cpp covers the core's side over the fake.
#include "core/ipoib_hold.h"
#include "ktest.h"

namespace ktest_hold_shim {

using kstd::u32;

constexpr u32 kFull = KAPI_SKB_SOCK_FULL;
constexpr u32 kKern = KAPI_SKB_SOCK_KERN;
constexpr u32 kRaw = KAPI_SKB_SOCK_RAW;
constexpr u32 kLen = 1500;

// A kernel socket and a packet charged to it, with the socket's state before the packet.
struct Charged {
	ktest_ksock *ks;
	kapi_skb *skb;
	long wmem0, refs0;	// before the packet
	long charged;		// the send-buffer charge with it
};

// What the socket must show (its charge, its reference count), the packet still its own.
void expect_state(ktest_ctx *kt, const Charged &c, long wmem, long refs)
{
	EXPECT_EQ(ktest_ksock_wmem(c.ks), wmem);
	EXPECT_EQ(ktest_ksock_refs(c.ks), refs);
	EXPECT_EQ(ktest_ksock_owns(c.ks, c.skb), 1);
}

// Makes a kernel socket (raw: ICMP SOCK_RAW, else UDP SOCK_DGRAM) and a packet charged to it,
// runs check (which frees the packet), then checks that the socket is back to its state before
// the packet and releases it.
void on_socket(ktest_ctx *kt, int raw, void (*check)(ktest_ctx *, const Charged &))
{
	if (ktest_on_host())
		KTEST_SKIP("no kernel sockets on the host");
	Charged c{};
	c.ks = ktest_ksock_create(raw);
	ASSERT_NOT_NULL(c.ks);
	c.wmem0 = ktest_ksock_wmem(c.ks);
	c.refs0 = ktest_ksock_refs(c.ks);
	c.skb = ktest_ksock_skb(c.ks, kLen);
	if (c.skb) {
		c.charged = ktest_ksock_wmem(c.ks);
		EXPECT_GT(c.charged, c.wmem0);
		expect_state(kt, c, c.charged, c.refs0);
		check(kt, c);
		EXPECT_EQ(ktest_ksock_wmem(c.ks), c.wmem0);
		EXPECT_EQ(ktest_ksock_refs(c.ks), c.refs0);
	} else {
		KTEST_FAIL("sock_wmalloc failed");
	}
	ktest_ksock_release(c.ks);
}

// An ICMP SOCK_RAW kernel socket (as inet_ctl_sock_create makes them): the packet's charge
// goes back on the first uncharge, the packet keeps its socket (one more reference), and a
// second and a third uncharge (directly and through hold_uncharge) change nothing; freeing
// it (sock_efree) gives the reference back.
void control_once(ktest_ctx *kt, const Charged &c)
{
	EXPECT_EQ(kapi_skb_sock_flags(c.skb), kFull | kKern | kRaw);
	EXPECT_TRUE(ipoib::control_socket(kapi_skb_sock_flags(c.skb)));

	kapi_skb_uncharge(c.skb);	// the charge back, a reference kept
	expect_state(kt, c, c.wmem0, c.refs0 + 1);
	EXPECT_EQ(kapi_skb_sock_flags(c.skb), kFull | kKern | kRaw);

	kapi_skb_uncharge(c.skb);	// again: nothing
	expect_state(kt, c, c.wmem0, c.refs0 + 1);
	EXPECT_EQ(kapi_skb_sock_flags(c.skb), kFull | kKern | kRaw);

	ipoib::hold_uncharge(c.skb);	// a second hold of the same packet: nothing
	expect_state(kt, c, c.wmem0, c.refs0 + 1);

	kapi_skb_free(c.skb);
}

KTEST(hold_shim, control_socket_uncharged_once)
{
	on_socket(kt, 1, control_once);
}

// A UDP SOCK_DGRAM kernel socket is no control socket: hold_uncharge leaves its packet's
// charge (and its socket) alone; freeing the packet (sock_wfree) gives the charge back.
void other_kernel_socket(ktest_ctx *kt, const Charged &c)
{
	EXPECT_EQ(kapi_skb_sock_flags(c.skb), kFull | kKern);
	EXPECT_FALSE(ipoib::control_socket(kapi_skb_sock_flags(c.skb)));

	ipoib::hold_uncharge(c.skb);
	expect_state(kt, c, c.charged, c.refs0);

	kapi_skb_free(c.skb);
}

KTEST(hold_shim, other_kernel_socket_keeps_charge)
{
	on_socket(kt, 0, other_kernel_socket);
}

KTEST_SUITE(hold_shim, KTEST_CASE(hold_shim, control_socket_uncharged_once),
	    KTEST_CASE(hold_shim, other_kernel_socket_keeps_charge));

} // namespace ktest_hold_shim
