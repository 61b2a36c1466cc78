// SPDX-License-Identifier: GPL-2.0
/*
 * Shim: sk_buff accessors, the receive hand-off (GRO) and requeue, and order-0 pages that
 * become an skb's fragments. One kernel call per function; no policy.
 */
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <net/dst.h>
#include <net/sock.h>
#include "kapi.h"
#include "netdev_priv.h"

static struct sk_buff *to_skb(const struct kapi_skb *s)
{
	return (struct sk_buff *)s;
}

struct kapi_skb *kapi_skb_alloc(struct kapi_netdev *nd, u32 size, u32 headroom, unsigned int gfp)
{
	struct sk_buff *skb = __netdev_alloc_skb(to_nd(nd), size + headroom, (__force gfp_t)gfp);

	if (!skb)
		return NULL;
	skb_reserve(skb, headroom);
	return (struct kapi_skb *)skb;
}

void kapi_skb_free(struct kapi_skb *skb)
{
	dev_kfree_skb_any(to_skb(skb));
}

void kapi_skb_consume(struct kapi_skb *skb)
{
	dev_consume_skb_any(to_skb(skb));
}

void kapi_skb_orphan(struct kapi_skb *skb)
{
	skb_orphan(to_skb(skb));
}

u32 kapi_skb_sock_flags(const struct kapi_skb *skb)
{
	const struct sock *sk = to_skb(skb)->sk;
	u32 f;

	if (!sk || !sk_fullsock(sk))	/* request and timewait sockets hold no send buffer */
		return 0;
	f = KAPI_SKB_SOCK_FULL;
	if (sk->sk_kern_sock)
		f |= KAPI_SKB_SOCK_KERN;
	if (sk->sk_type == SOCK_RAW)
		f |= KAPI_SKB_SOCK_RAW;
	return f;
}

void kapi_skb_uncharge(struct kapi_skb *s)
{
	struct sk_buff *skb = to_skb(s);

	if (skb->destructor != sock_efree)
		skb_orphan_partial(skb);
}

void kapi_skb_dst_drop(struct kapi_skb *skb)
{
	skb_dst_drop(to_skb(skb));
}

u8 *kapi_skb_data(struct kapi_skb *skb)
{
	return to_skb(skb)->data;
}

u32 kapi_skb_len(const struct kapi_skb *skb)
{
	return to_skb(skb)->len;
}

u32 kapi_skb_headlen(const struct kapi_skb *skb)
{
	return skb_headlen(to_skb(skb));
}

u8 *kapi_skb_put(struct kapi_skb *skb, u32 len)
{
	return skb_put(to_skb(skb), len);
}

u8 *kapi_skb_push(struct kapi_skb *skb, u32 len)
{
	return skb_push(to_skb(skb), len);
}

u8 *kapi_skb_pull(struct kapi_skb *skb, u32 len)
{
	return skb_pull(to_skb(skb), len);
}

int kapi_skb_linearize(struct kapi_skb *skb)
{
	return skb_linearize(to_skb(skb));
}

static void rx_prepare(struct sk_buff *skb, struct net_device *dev, u16 proto, u32 type, u32 mac_len)
{
	skb->dev = dev;
	skb->protocol = htons(proto);
	skb->pkt_type = type;
	skb_reset_mac_header(skb);
	skb_pull(skb, mac_len);
	skb_reset_network_header(skb);
}

void kapi_skb_gro_receive(struct kapi_netdev *nd, struct kapi_skb *s, u16 proto, u32 type, u32 mac_len)
{
	struct net_device *dev = to_nd(nd);

	rx_prepare(to_skb(s), dev, proto, type, mac_len);
	napi_gro_receive(&nd_priv(dev)->napi, to_skb(s));
}

int kapi_skb_gro_receive_partial(struct kapi_netdev *nd, struct kapi_skb *s, u16 proto, u32 type, u32 mac_len)
{
	struct sk_buff *skb = to_skb(s);
	struct net_device *dev = to_nd(nd);
	int err;

	rx_prepare(skb, dev, proto, type, mac_len);
	err = skb_checksum_setup(skb, true);
	if (err)
		return err;
	napi_gro_receive(&nd_priv(dev)->napi, skb);
	return 0;
}

int kapi_skb_csum_partial(const struct kapi_skb *s, u16 *csum_offset)
{
	const struct sk_buff *skb = to_skb(s);

	if (skb->ip_summed != CHECKSUM_PARTIAL)
		return 0;
	*csum_offset = skb->csum_offset;
	return 1;
}

u32 kapi_skb_csum_start(const struct kapi_skb *skb)
{
	return skb_checksum_start_offset(to_skb(skb));
}

int kapi_skb_checksum_help(struct kapi_skb *skb)
{
	return skb_checksum_help(to_skb(skb));
}

int kapi_skb_cow_head(struct kapi_skb *skb)
{
	return skb_cow_head(to_skb(skb), 0);
}

u32 kapi_skb_truesize(const struct kapi_skb *s)
{
	return to_skb(s)->truesize;
}

u32 kapi_skb_frag_len(const struct kapi_skb *s, u32 i)
{
	return skb_frag_size(&skb_shinfo(to_skb(s))->frags[i]);
}

void kapi_skb_requeue(struct kapi_skb *skb)
{
	dev_queue_xmit(to_skb(skb));
}

/* ---- page fragments ---- */
struct kapi_page *kapi_page_alloc(unsigned int gfp)
{
	return (struct kapi_page *)alloc_page((__force gfp_t)gfp);
}

void kapi_page_put(struct kapi_page *pg)
{
	put_page((struct page *)pg);
}

u8 *kapi_page_address(struct kapi_page *pg)
{
	return page_address((struct page *)pg);
}

void kapi_skb_add_frag(struct kapi_skb *s, int i, struct kapi_page *pg, u32 off, u32 len)
{
	struct sk_buff *skb = to_skb(s);

	skb_fill_page_desc(skb, i, (struct page *)pg, off, len);
	skb->len += len;
	skb->data_len += len;
	skb->truesize += PAGE_SIZE;
}

u32 kapi_skb_nr_frags(const struct kapi_skb *s)
{
	return skb_shinfo(to_skb(s))->nr_frags;
}
