/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kapi_icmp.h - the shim file kapi/icmp.c: tell the sender of a packet from ndo_start_xmit
 * that it is too big for the path (which packet and which MTU are the core's,
 * ipoib_oversize.h). The skb stays the caller's (it drops it afterwards).
 * Same rules as kapi.h: opaque types, plain C, one kernel thing per function, no policy.
 * Included by kapi.h.
 */
#ifndef KAPI_ICMP_H
#define KAPI_ICMP_H

#include "kapi_ctx.h"

#ifdef __cplusplus
extern "C" {
#endif

struct kapi_skb;

/* 1 when the packet comes from a socket of this host (skb->sk), 0 when forwarded. */
int kapi_icmp_skb_local(const struct kapi_skb *skb) KAPI_NOEXCEPT;
/* icmp_ndo_send(ICMP_DEST_UNREACH, ICMP_FRAG_NEEDED, mtu): an IPv4 packet with DF. */
void kapi_icmp_frag_needed(struct kapi_skb *skb, kapi_u32 mtu) KAPI_NOEXCEPT;
/* icmpv6_ndo_send(ICMPV6_PKT_TOOBIG, 0, mtu): an IPv6 packet (no-op without CONFIG_IPV6). */
void kapi_icmpv6_pkt_too_big(struct kapi_skb *skb, kapi_u32 mtu) KAPI_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif /* KAPI_ICMP_H */
