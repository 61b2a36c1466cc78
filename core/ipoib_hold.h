// SPDX-License-Identifier: GPL-2.0
// ipoib_hold.h - what a packet gives back before it waits in one of the driver's queues (for
// a connection, a path record, a multicast join, or behind an RC send bound).
//
// A packet of one of the kernel's control sockets (ICMP and ICMPv6 replies and errors, NDISC,
// MLD, TCP resets: inet_ctl_sock_create makes them SOCK_RAW, one per CPU) leaves that socket's
// send buffer before it waits: the buffer is small (2 x 64 KiB for ICMP), shared by every reply
// the CPU builds and never waited on (a full one drops the next reply, Icmp OutErrors), so held
// packets must not pin it. The packet keeps its socket (a reference, kapi_skb_uncharge): it is
// still this host's own, so one above its path's MTU is answered with an ICMP to the local
// stack as before it waited (ipoib_oversize.h, local), not dropped as a forwarded one would be.
// A user socket's packet keeps its charge (its send buffer, TCP Small Queues or ping's
// one-packet buffer, paces the sender meanwhile, where an uncharged flood would overflow the
// queue), and so does another kernel socket's (NFS, iSCSI, nvme-tcp: SOCK_STREAM, paced by
// TCP Small Queues as a user's). The queues' own bounds keep what waits bounded.
//
// Not under a lock that disables interrupts: giving the charge back runs the socket's
// write-space callback.
#pragma once

#include "kapi.h"
#include "kstd/types.h"

namespace ipoib {

// The socket facts kapi_skb_sock_flags reports make it one of the kernel's control sockets.
inline bool control_socket(kstd::u32 sock_flags)
{
	constexpr kstd::u32 kAll = KAPI_SKB_SOCK_FULL | KAPI_SKB_SOCK_KERN | KAPI_SKB_SOCK_RAW;
	return (sock_flags & kAll) == kAll;
}

// skb is about to wait: a control socket's packet gives its send buffer back (once; again is
// a no-op), keeping its socket.
inline void hold_uncharge(kapi_skb *skb)
{
	if (control_socket(kapi_skb_sock_flags(skb)))
		kapi_skb_uncharge(skb);
}

} // namespace ipoib
