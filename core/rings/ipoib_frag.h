// SPDX-License-Identifier: GPL-2.0
// ipoib_frag.h - receive buffers larger than a page, for connected mode (RFC 4755 §4: an RC
// link's MTU goes up to 64 KiB - 4): a linear head followed by order-0 pages. A head is at
// most kFragHeadMax = KAPI_RECV_HEAD_MAX bytes, so its skb (with NET_SKB_PAD and
// skb_shared_info) fits one page, never a high-order allocation (a 4096-byte head would be
// kmalloc-8k); that bound decides how many SGEs a buffer takes (RecvRing::sges_for). Within
// those SGEs the head is only what the pages do not hold, and at least kFragHeadMin
// (frag_head_len): 65524 bytes = a 256-byte head + 16 pages (a head of 3712 + 16 pages
// would pin 3 KiB more per posted buffer). After a receive of len bytes, the head holds the
// first bytes and each further page becomes one skb fragment; pages past the data stay
// with the ring for the next post. Datagram mode does not use it (its buffer is the head).
#pragma once

#include "kstd/base.h"

namespace ipoib {

using kstd::u32;

inline constexpr u32 kFragBufSize = 64 * 1024;	// one RC receive buffer
inline constexpr u32 kFragHeadMax = KAPI_RECV_HEAD_MAX;	// the largest head (sizes the SGE count)
// The smallest head of a buffer that has pages: the headers the stack reads linearly (the
// 4-octet IPoIB header, IPv4/IPv6 and TCP/UDP with options: at most 4 + 60 + 60 = 124 bytes
// before extension headers, which pskb_may_pull pulls from the fragments like anything past
// the linear part). A copybreak packet is copied from the head and then the pages it reached
// (RecvRing::copy_small, up to kRcCopybreak = kFragHeadMax bytes). The
// in-tree driver's head is 65524 % 4096 = 4084 bytes (IPOIB_CM_HEAD_SIZE) only so that 15
// full pages follow (16 SGEs); the stack needs no more than this. A 256-byte head is a
// kmalloc-1k skb (truesize 1280 on 6.1), not a page (4352).
inline constexpr u32 kFragHeadMin = 256;
inline constexpr u32 kFragPages = (kFragBufSize - kFragHeadMax + KAPI_PAGE_SIZE - 1) / KAPI_PAGE_SIZE;
static_assert(kFragHeadMin <= kFragHeadMax && kFragHeadMax <= KAPI_PAGE_SIZE);
static_assert(kFragPages <= KAPI_SKB_MAX_FRAGS, "a 64 KiB buffer must fit one skb's fragments");

// How len received bytes lie over the head and the pages.
struct FragLayout {
	u32 head = 0;		// bytes in the linear head
	u32 pages = 0;		// pages holding data (each becomes a fragment)
	u32 last = 0;		// bytes in the last of them (KAPI_PAGE_SIZE when full)
	bool fits = false;	// len <= the buffer
};
FragLayout frag_layout(u32 len, u32 head_size, u32 npages);

// The head of a connected-mode buffer of buf_size bytes: the whole buffer when it fits a
// head (one SGE); else, with the fewest pages a kFragHeadMax head allows, what those pages
// do not hold, at least kFragHeadMin (the last page then holds the rest: 65524 -> a 256-byte
// head, 15 full pages and one of 3828; 65152, the most 16 SGEs hold -> 3712 + 15 full pages).
u32 frag_head_len(u32 buf_size);

// Completes skb (whose linear area is the head, already holding the data) with the layout's
// pages as fragments; the skb takes over those page references. Returns the pages used.
u32 frag_attach(kapi_skb *skb, const FragLayout &l, kapi_page *const *pages);

} // namespace ipoib
