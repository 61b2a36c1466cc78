// SPDX-License-Identifier: GPL-2.0
// test_frag.cpp - connected mode's receive buffers built from a head and order-0 pages
// (ipoib_frag.h) through the real page-fragment shim (kapi/skb.c: __netdev_alloc_skb,
// alloc_page, skb_fill_page_desc, skb_linearize) in the KUnit module, and through the fake
// skbs of kunit/host/fake_verbs.c on the host: length, linear length and fragment count of
// the assembled skb, and the bytes in order once linearized.
#include "core/rings/ipoib_frag.h"
#include "ktest.h"

namespace ktest_frag {

using namespace ipoib;
using kstd::u8;

// Builds an skb of len bytes from a head and pages filled with a running byte pattern,
// checks its shape, and (for short enough packets) its contents after linearizing.
void check_assembly(ktest_ctx *kt, u32 len, bool linearize, u32 head_size = kFragHeadMax)
{
	const FragLayout l = frag_layout(len, head_size, kFragPages);
	ASSERT_TRUE(l.fits);
	kapi_skb *skb = kapi_skb_alloc(nullptr, head_size, 0, KAPI_GFP_KERNEL);
	ASSERT_NOT_NULL(skb);
	kapi_page *pages[kFragPages] = {};
	u32 n = 0;
	for (; n < kFragPages; n++) {
		pages[n] = kapi_page_alloc(KAPI_GFP_KERNEL);
		if (!pages[n])
			break;
	}
	EXPECT_EQ(n, kFragPages);
	if (n == kFragPages) {
		// what the HCA would have written: byte i of the packet is i % 251
		u8 *head = kapi_skb_data(skb);
		for (u32 i = 0; i < l.head; i++)
			head[i] = u8(i % 251);
		for (u32 p = 0; p < l.pages; p++) {
			u8 *a = kapi_page_address(pages[p]);
			for (u32 i = 0; i < KAPI_PAGE_SIZE; i++)
				a[i] = u8((l.head + p * KAPI_PAGE_SIZE + i) % 251);
		}
		EXPECT_EQ(frag_attach(skb, l, pages), l.pages);
		EXPECT_EQ(kapi_skb_len(skb), len);
		EXPECT_EQ(kapi_skb_headlen(skb), l.head);
		EXPECT_EQ(kapi_skb_nr_frags(skb), l.pages);
		if (linearize && kapi_skb_linearize(skb) == 0) {
			EXPECT_EQ(kapi_skb_nr_frags(skb), 0u);
			EXPECT_EQ(kapi_skb_headlen(skb), len);
			const u8 *d = kapi_skb_data(skb);
			u32 bad = 0;
			for (u32 i = 0; i < len; i++)
				bad += d[i] != u8(i % 251);
			EXPECT_EQ(bad, 0u);
		}
	}
	for (u32 p = l.pages; p < n; p++)	// the ones the skb did not take
		kapi_page_put(pages[p]);
	kapi_skb_free(skb);	// puts the pages it took over
}

KTEST(frag_shim, head_only)
{
	check_assembly(kt, 60, true);
	check_assembly(kt, kFragHeadMax, true);
}

KTEST(frag_shim, head_and_pages)
{
	check_assembly(kt, kFragHeadMax + 1, true);
	check_assembly(kt, kFragHeadMax + 2 * KAPI_PAGE_SIZE + 100, true);
}

// The largest RFC 4755 packet we receive (65520 + the 4-octet header), every page used.
KTEST(frag_shim, a_64k_receive)
{
	check_assembly(kt, 65524, false);
}

// The head a ring posts for that size (frag_head_len: 256 bytes, a kmalloc-1k skb):
// headers in the head, the rest in 16 pages, and the bytes in order once linearized.
KTEST(frag_shim, small_head)
{
	const u32 head = frag_head_len(65524);
	EXPECT_EQ(head, kFragHeadMin);
	check_assembly(kt, 60, true, head);
	check_assembly(kt, head + 2 * KAPI_PAGE_SIZE + 100, true, head);
	check_assembly(kt, 65524, false, head);
}

KTEST_SUITE(frag_shim, KTEST_CASE(frag_shim, head_only), KTEST_CASE(frag_shim, head_and_pages),
	    KTEST_CASE(frag_shim, a_64k_receive), KTEST_CASE(frag_shim, small_head));

} // namespace ktest_frag
