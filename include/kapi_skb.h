/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kapi_skb.h - the shim file kapi/skb.c: sk_buff accessors, receive hand-off and requeue,
 * and order-0 pages for receive buffers built from page fragments.
 * Same rules as kapi.h: opaque types, plain C, one kernel thing per function, no policy.
 * Included by kapi.h.
 */
#ifndef KAPI_SKB_H
#define KAPI_SKB_H

#include "kapi_ctx.h"

#ifdef __cplusplus
extern "C" {
#endif

struct kapi_netdev;
struct kapi_skb;	/* struct sk_buff */
struct kapi_page;	/* struct page, order 0 */

#define KAPI_PACKET_HOST 0	/* PACKET_HOST etc. (static_checks.c) */
#define KAPI_PACKET_BROADCAST 1
#define KAPI_PACKET_MULTICAST 2
#define KAPI_PAGE_SIZE 4096	/* PAGE_SIZE (static_checks.c) */
#define KAPI_SKB_MAX_FRAGS 17	/* MAX_SKB_FRAGS (static_checks.c) */

struct kapi_skb *kapi_skb_alloc(struct kapi_netdev *nd, kapi_u32 size, kapi_u32 headroom, unsigned int gfp) KAPI_NOEXCEPT;
void kapi_skb_free(struct kapi_skb *skb) KAPI_NOEXCEPT;		/* dev_kfree_skb_any: a drop */
void kapi_skb_consume(struct kapi_skb *skb) KAPI_NOEXCEPT;	/* dev_consume_skb_any: sent */
/* skb_orphan: the socket's send-buffer charge (and TCP Small Queues' count) is released
 * now, not when the send completes */
void kapi_skb_orphan(struct kapi_skb *skb) KAPI_NOEXCEPT;
/* The socket the skb is charged to, as facts (which of them make one of the kernel's control
 * sockets is the core's, ipoib_hold.h): 0 without a full socket (sk_fullsock; the other
 * bits are read only from one), else KAPI_SKB_SOCK_FULL, KAPI_SKB_SOCK_KERN when
 * the kernel created it (sk_kern_sock), KAPI_SKB_SOCK_RAW when it is SOCK_RAW. */
#define KAPI_SKB_SOCK_FULL 1u
#define KAPI_SKB_SOCK_KERN 2u
#define KAPI_SKB_SOCK_RAW 4u
kapi_u32 kapi_skb_sock_flags(const struct kapi_skb *skb) KAPI_NOEXCEPT;
/* skb_orphan_partial, once: the socket's send-buffer charge is released now and the skb keeps
 * a reference to its socket instead (skb->sk stays: the packet is still this host's, as
 * kapi_icmp_skb_local tells). Where the kernel cannot keep the socket (another destructor
 * than sock_wfree/tcp_wfree, a socket being freed) the skb is orphaned whole. On an skb it
 * already uncharged it does nothing (skb_orphan_partial would orphan that one whole). */
void kapi_skb_uncharge(struct kapi_skb *skb) KAPI_NOEXCEPT;
/* skb_dst_drop: the route reference is released now */
void kapi_skb_dst_drop(struct kapi_skb *skb) KAPI_NOEXCEPT;
kapi_u8 *kapi_skb_data(struct kapi_skb *skb) KAPI_NOEXCEPT;
kapi_u32 kapi_skb_len(const struct kapi_skb *skb) KAPI_NOEXCEPT;
kapi_u32 kapi_skb_headlen(const struct kapi_skb *skb) KAPI_NOEXCEPT;
kapi_u8 *kapi_skb_put(struct kapi_skb *skb, kapi_u32 len) KAPI_NOEXCEPT;
kapi_u8 *kapi_skb_push(struct kapi_skb *skb, kapi_u32 len) KAPI_NOEXCEPT;
kapi_u8 *kapi_skb_pull(struct kapi_skb *skb, kapi_u32 len) KAPI_NOEXCEPT;
int kapi_skb_linearize(struct kapi_skb *skb) KAPI_NOEXCEPT;
/* Sets protocol (ethertype, host order), pkt_type (KAPI_PACKET_*), dev, mac header = data,
 * pulls mac_len, GRO. */
void kapi_skb_gro_receive(struct kapi_netdev *nd, struct kapi_skb *skb, kapi_u16 proto, kapi_u32 pkt_type,
			  kapi_u32 mac_len) KAPI_NOEXCEPT;
/* The same, first skb_checksum_setup(skb, true): a TCP/UDP packet over IPv4/IPv6 whose
 * checksum field holds anything becomes CHECKSUM_PARTIAL (csum_start/offset set, the field
 * rewritten with the pseudo-header sum), as xen-netback does for its frontends' packets.
 * 0: handed to GRO. -errno (not TCP/UDP, an IP fragment, truncated headers): not handed on,
 * the skb is still the caller's to free. */
int kapi_skb_gro_receive_partial(struct kapi_netdev *nd, struct kapi_skb *skb, kapi_u16 proto, kapi_u32 pkt_type,
				 kapi_u32 mac_len) KAPI_NOEXCEPT;
/* 1 when ip_summed is CHECKSUM_PARTIAL (the L4 checksum is still to be filled in), with
 * csum_offset (the checksum field's offset from csum_start); 0 otherwise. */
int kapi_skb_csum_partial(const struct kapi_skb *skb, kapi_u16 *csum_offset) KAPI_NOEXCEPT;
/* skb_checksum_start_offset: where the checksummed part starts, from data (CHECKSUM_PARTIAL). */
kapi_u32 kapi_skb_csum_start(const struct kapi_skb *skb) KAPI_NOEXCEPT;
/* skb_checksum_help: fills in a CHECKSUM_PARTIAL skb's checksum (0 or -errno). */
int kapi_skb_checksum_help(struct kapi_skb *skb) KAPI_NOEXCEPT;
/* skb_cow_head(skb, 0): the head is the skb's own (a clone's shared head copied) before it is
 * written; 0 or -ENOMEM. */
int kapi_skb_cow_head(struct kapi_skb *skb) KAPI_NOEXCEPT;
/* skb->truesize: the skb's own struct, its head allocation and its pages (what the driver
 * holds while the skb is a posted receive buffer, for its memory accounting). */
kapi_u32 kapi_skb_truesize(const struct kapi_skb *skb) KAPI_NOEXCEPT;
/* skb_frag_size of fragment i (i < kapi_skb_nr_frags). */
kapi_u32 kapi_skb_frag_len(const struct kapi_skb *skb, kapi_u32 i) KAPI_NOEXCEPT;
/* dev_queue_xmit (the skb's data must start at its hard header again) */
void kapi_skb_requeue(struct kapi_skb *skb) KAPI_NOEXCEPT;

/* ---- page fragments (connected mode's 64 KiB receive buffers from order-0 pages) ---- */
struct kapi_page *kapi_page_alloc(unsigned int gfp) KAPI_NOEXCEPT;	/* alloc_page; NULL on failure */
void kapi_page_put(struct kapi_page *pg) KAPI_NOEXCEPT;			/* put_page */
kapi_u8 *kapi_page_address(struct kapi_page *pg) KAPI_NOEXCEPT;
/* skb_fill_page_desc + len/data_len/truesize: the page [off, off + len) becomes fragment i
 * (i < KAPI_SKB_MAX_FRAGS, in order); the skb takes over the caller's page reference. */
void kapi_skb_add_frag(struct kapi_skb *skb, int i, struct kapi_page *pg, kapi_u32 off, kapi_u32 len) KAPI_NOEXCEPT;
kapi_u32 kapi_skb_nr_frags(const struct kapi_skb *skb) KAPI_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif /* KAPI_SKB_H */
