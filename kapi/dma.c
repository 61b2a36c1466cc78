// SPDX-License-Identifier: GPL-2.0
/*
 * Shim: DMA - mapping the core's buffers, pages and skb fragments for the HCA, and syncing them
 * (ib_dma_*: the device's own DMA ops, identity for software providers like softib and rxe).
 * One kernel call per function; no policy.
 */
#include <rdma/ib_verbs.h>
#include "kapi.h"
#include "verbs_priv.h"

int kapi_dma_map(struct kapi_ib_device *ib, void *cpu, u32 len, enum kapi_dma_dir dir, kapi_u64 *out)
{
	u64 a = ib_dma_map_single(to_ib(ib), cpu, len,
				  dir == KAPI_DMA_TO_DEVICE ? DMA_TO_DEVICE : DMA_FROM_DEVICE);

	if (ib_dma_mapping_error(to_ib(ib), a))
		return -EIO;
	*out = a;
	return 0;
}

void kapi_dma_unmap(struct kapi_ib_device *ib, kapi_u64 addr, u32 len, enum kapi_dma_dir dir)
{
	ib_dma_unmap_single(to_ib(ib), addr, len, dir == KAPI_DMA_TO_DEVICE ? DMA_TO_DEVICE : DMA_FROM_DEVICE);
}

int kapi_dma_map_page(struct kapi_ib_device *ib, struct kapi_page *pg, enum kapi_dma_dir dir, kapi_u64 *out)
{
	u64 a = ib_dma_map_page(to_ib(ib), (struct page *)pg, 0, PAGE_SIZE,
				dir == KAPI_DMA_TO_DEVICE ? DMA_TO_DEVICE : DMA_FROM_DEVICE);

	if (ib_dma_mapping_error(to_ib(ib), a))
		return -EIO;
	*out = a;
	return 0;
}

void kapi_dma_unmap_page(struct kapi_ib_device *ib, kapi_u64 addr, enum kapi_dma_dir dir)
{
	ib_dma_unmap_page(to_ib(ib), addr, PAGE_SIZE, dir == KAPI_DMA_TO_DEVICE ? DMA_TO_DEVICE : DMA_FROM_DEVICE);
}

int kapi_dma_map_frag(struct kapi_ib_device *ib, struct kapi_skb *s, u32 i, kapi_u64 *out)
{
	const skb_frag_t *f = &skb_shinfo((struct sk_buff *)s)->frags[i];
	u64 a = ib_dma_map_page(to_ib(ib), skb_frag_page(f), skb_frag_off(f), skb_frag_size(f), DMA_TO_DEVICE);

	if (ib_dma_mapping_error(to_ib(ib), a))
		return -EIO;
	*out = a;
	return 0;
}

void kapi_dma_unmap_frag(struct kapi_ib_device *ib, kapi_u64 addr, u32 len)
{
	ib_dma_unmap_page(to_ib(ib), addr, len, DMA_TO_DEVICE);
}

void kapi_dma_sync_for_cpu(struct kapi_ib_device *ib, kapi_u64 addr, u32 len, enum kapi_dma_dir dir)
{
	ib_dma_sync_single_for_cpu(to_ib(ib), addr, len, dir == KAPI_DMA_TO_DEVICE ? DMA_TO_DEVICE : DMA_FROM_DEVICE);
}

void kapi_dma_sync_for_device(struct kapi_ib_device *ib, kapi_u64 addr, u32 len, enum kapi_dma_dir dir)
{
	ib_dma_sync_single_for_device(to_ib(ib), addr, len, dir == KAPI_DMA_TO_DEVICE ? DMA_TO_DEVICE : DMA_FROM_DEVICE);
}
