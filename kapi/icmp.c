// SPDX-License-Identifier: GPL-2.0
/*
 * Shim: ICMP errors for packets the IPoIB path cannot carry (kapi_icmp.h). Sent from
 * ndo_start_xmit, as tunnel drivers do: the _ndo_ variants undo source NAT and take the
 * options from the packet itself, and the reply goes to the local sender through the
 * routing table (the loopback), never back into this device's transmit path.
 */
#include <linux/icmp.h>
#include <linux/icmpv6.h>
#include <linux/skbuff.h>
#include <net/icmp.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include "kapi.h"

int kapi_icmp_skb_local(const struct kapi_skb *s)
{
	return ((const struct sk_buff *)s)->sk != NULL;
}

void kapi_icmp_frag_needed(struct kapi_skb *s, u32 mtu)
{
	struct sk_buff *skb = (struct sk_buff *)s;

	/* cb holds the qdisc's data here, not an IPCB the ICMP code could read as options. */
	memset(IPCB(skb), 0, sizeof(*IPCB(skb)));
	icmp_ndo_send(skb, ICMP_DEST_UNREACH, ICMP_FRAG_NEEDED, htonl(mtu));
}

void kapi_icmpv6_pkt_too_big(struct kapi_skb *s, u32 mtu)
{
	struct sk_buff *skb = (struct sk_buff *)s;

	memset(IP6CB(skb), 0, sizeof(*IP6CB(skb)));
	icmpv6_ndo_send(skb, ICMPV6_PKT_TOOBIG, 0, mtu);
}
