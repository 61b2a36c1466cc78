// SPDX-License-Identifier: GPL-2.0
// ipoib_frag.h - receive buffers larger than a page, for connected mode (RFC 4755 §4: an RC
// link's MTU goes up to 64 KiB - 4): a linear head followed by order-0 pages. The head is
// KAPI_RECV_HEAD_MAX bytes, so its skb (with NET_SKB_PAD and skb_shared_info) fits one
// page: a page fragment in NAPI, a kmalloc-4k object in process context, never a high-order
// allocation (a 4096-byte head would be kmalloc-8k). After a receive of len bytes, the head holds the
// first bytes and each further page becomes one skb fragment; pages past the data stay
// with the ring for the next post. Datagram mode does not use it yet (kunit/host test).
#pragma once

#include "kstd/base.h"

namespace ipoib {

using kstd::u32;

inline constexpr u32 kFragBufSize = 64 * 1024;	// one RC receive buffer
inline constexpr u32 kFragHeadSize = KAPI_RECV_HEAD_MAX;	// linear part (headers, short packets)
inline constexpr u32 kFragPages = (kFragBufSize - kFragHeadSize + KAPI_PAGE_SIZE - 1) / KAPI_PAGE_SIZE;
static_assert(kFragHeadSize <= KAPI_PAGE_SIZE);
static_assert(kFragPages <= KAPI_SKB_MAX_FRAGS, "a 64 KiB buffer must fit one skb's fragments");

// How len received bytes lie over the head and the pages.
struct FragLayout {
	u32 head = 0;		// bytes in the linear head
	u32 pages = 0;		// pages holding data (each becomes a fragment)
	u32 last = 0;		// bytes in the last of them (KAPI_PAGE_SIZE when full)
	bool fits = false;	// len <= the buffer
};
FragLayout frag_layout(u32 len, u32 head_size, u32 npages);

// Completes skb (whose linear area is the head, already holding the data) with the layout's
// pages as fragments; the skb takes over those page references. Returns the pages used.
u32 frag_attach(kapi_skb *skb, const FragLayout &l, kapi_page *const *pages);

} // namespace ipoib
