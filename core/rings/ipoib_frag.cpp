// SPDX-License-Identifier: GPL-2.0
// ipoib_frag.cpp - page-fragment receive buffers (ipoib_frag.h).
#include "core/rings/ipoib_frag.h"

namespace ipoib {

FragLayout frag_layout(u32 len, u32 head_size, u32 npages)
{
	FragLayout l;
	l.fits = len <= head_size + npages * KAPI_PAGE_SIZE;
	if (!l.fits)
		return l;
	l.head = len < head_size ? len : head_size;
	const u32 rest = len - l.head;
	l.pages = (rest + KAPI_PAGE_SIZE - 1) / KAPI_PAGE_SIZE;
	l.last = l.pages ? rest - (l.pages - 1) * KAPI_PAGE_SIZE : 0;
	return l;
}

u32 frag_head_len(u32 buf_size)
{
	if (buf_size <= kFragHeadMax)
		return buf_size;
	const u32 pages = (buf_size - kFragHeadMax + KAPI_PAGE_SIZE - 1) / KAPI_PAGE_SIZE;
	const u32 in_pages = pages * KAPI_PAGE_SIZE;
	const u32 rest = buf_size > in_pages ? buf_size - in_pages : 0;	// <= kFragHeadMax by the page count
	return rest > kFragHeadMin ? rest : kFragHeadMin;
}

u32 frag_attach(kapi_skb *skb, const FragLayout &l, kapi_page *const *pages)
{
	kapi_skb_put(skb, l.head);
	for (u32 i = 0; i < l.pages; i++)
		kapi_skb_add_frag(skb, int(i), pages[i], 0, i + 1 == l.pages ? l.last : u32(KAPI_PAGE_SIZE));
	return l.pages;
}

} // namespace ipoib
