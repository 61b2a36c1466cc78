// SPDX-License-Identifier: GPL-2.0
// ipoib_oversize.h - what to do with a packet its path cannot carry: the UD path takes at
// most the broadcast group's MTU (RFC 4391 §7), whatever the admin mode's netdev MTU is.
// Pure logic (KUnit: kunit/test_oversize.cpp); the send path acts on the verdict.
#pragma once

#include "kstd/types.h"

namespace ipoib {

using kstd::u32;
using kstd::u8;

enum class Oversize : u8 {
	Fits,		// send it
	FragNeeded,	// IPv4 with DF (RFC 1191 §4), or without DF from a socket of this host:
			// ICMP destination unreachable / fragmentation needed with the MTU
			// (RFC 792), then drop. Without DF this only reaches the local stack,
			// whose route then fragments the next ones (as the in-tree driver)
	PktTooBig,	// IPv6: ICMPv6 packet too big with the MTU (RFC 4443 §3.2), then drop
	Drop,		// unicast nobody can be told about (forwarded IPv4 without DF, ARP, short IP header,
			// IPv6 with an MTU below its minimum of 1280, RFC 8200 §5): drop
	DropMcast,	// multicast: dropped, counted and logged (no ICMP for a group destination,
			// RFC 1122 §3.2.2)
};

// pkt: the RFC 4391 §6 packet (4-octet encapsulation header first), len octets of it in
// linear memory; mtu: the largest payload (after the encapsulation header) the path takes;
// local: the packet comes from a socket of this host (not forwarded).
// The octets oversize() reads from pkt: the encapsulation header and the IP header's octets 0..6
// (IPv4's DF bit is in octet 6; IPv6 is read at octet 0). The caller has these linear.
inline constexpr u32 kOversizeHead = 4 + 7;
Oversize oversize(const u8 *pkt, u32 len, bool multicast, bool local, u32 mtu);

// RFC 8200 §5: every IPv6 link carries 1280 octets; a Packet Too Big below it is not sent.
inline constexpr u32 kIpv6MinMtu = 1280;

} // namespace ipoib
