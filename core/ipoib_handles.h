// SPDX-License-Identifier: GPL-2.0
// ipoib_handles.h - single owners of the kernel objects an interface creates, as kstd::Handle
// instances: releasing one is resetting its handle, and a handle still set when its owner
// is destroyed releases itself. Interface::teardown resets them explicitly, in the order
// the kernel needs (unpublish -> quiesce -> free); the destructors are the backstop.
// Also SkbQueue, the bounded queue of skbs waiting for a path or a join, which owns them.
#pragma once

#include "kstd/ring.h"
#include "kstd/unique.h"

namespace ipoib {

struct PdTraits {
	using Pointer = kapi_pd *;
	static void release(kapi_pd *p) { kapi_pd_free(p); }
};
struct CqTraits {
	using Pointer = kapi_cq *;
	static void release(kapi_cq *p) { kapi_cq_destroy(p); }
};
// Unregistering waits for a handler that is running (ib_unregister_event_handler).
struct EventHandlerTraits {
	using Pointer = kapi_event_handler *;
	static void release(kapi_event_handler *p) { kapi_ib_event_unregister(p); }
};
// Removal waits for readers still inside a show function.
struct DebugfsTraits {
	using Pointer = kapi_debugfs *;
	static void release(kapi_debugfs *p) { kapi_debugfs_remove(p); }
};
// A delayed work: cancelled (waiting for a running one, which may re-arm itself) then freed.
struct DworkTraits {
	using Pointer = kapi_dwork *;
	static void release(kapi_dwork *p)
	{
		kapi_dwork_cancel(p);
		kapi_dwork_free(p);
	}
};

// An skb nobody else owns (not yet handed to the stack or the HCA).
struct SkbTraits {
	using Pointer = kapi_skb *;
	static void release(kapi_skb *p) { kapi_skb_free(p); }
};
// The netdev: freed (free_netdev) once unregistered and quiesced (Interface::teardown).
struct NetdevTraits {
	using Pointer = kapi_netdev *;
	static void release(kapi_netdev *p) { kapi_netdev_free(p); }
};

using PdHandle = kstd::Handle<PdTraits>;
using SkbHandle = kstd::Handle<SkbTraits>;
using NetdevHandle = kstd::Handle<NetdevTraits>;
using CqHandle = kstd::Handle<CqTraits>;
using EventHandle = kstd::Handle<EventHandlerTraits>;
using DebugfsHandle = kstd::Handle<DebugfsTraits>;
using DworkHandle = kstd::Handle<DworkTraits>;

// One streaming DMA mapping of a kernel buffer (ib_dma_map_single): unmapped by reset() or
// by its destruction. The owner resets it once the HCA is done with the buffer (its
// completion polled, or the QP destroyed).
class DmaMap : kstd::NonCopyable {
public:
	DmaMap() = default;
	~DmaMap() { reset(); }
	// Moving hands the mapping over: the source no longer unmaps it.
	DmaMap(DmaMap &&o) : ib_(o.ib_), addr_(o.addr_), len_(o.len_), dir_(o.dir_), mapped_(kstd::exchange(o.mapped_, false)) {}
	DmaMap &operator=(DmaMap &&o)
	{
		if (this != &o) {
			reset();
			ib_ = o.ib_;
			addr_ = o.addr_;
			len_ = o.len_;
			dir_ = o.dir_;
			mapped_ = kstd::exchange(o.mapped_, false);
		}
		return *this;
	}
	bool mapped() const { return mapped_; }
	// 0 or -errno (nothing mapped then).
	int map(kapi_ib_device *ib, void *cpu, kstd::u32 len, kapi_dma_dir dir)
	{
		reset();
		const int rc = kapi_dma_map(ib, cpu, len, dir, &addr_);
		if (rc == 0) {
			ib_ = ib;
			len_ = len;
			dir_ = dir;
			mapped_ = true;
		}
		return rc;
	}
	void reset()
	{
		if (kstd::exchange(mapped_, false))
			kapi_dma_unmap(ib_, addr_, len_, dir_);
	}
	kstd::u64 addr() const { return addr_; }
	kstd::u32 len() const { return len_; }

private:
	kapi_ib_device *ib_ = nullptr;
	kstd::u64 addr_ = 0;
	kstd::u32 len_ = 0;
	kapi_dma_dir dir_ = KAPI_DMA_TO_DEVICE;
	bool mapped_ = false;
};

// One order-0 page and its streaming DMA mapping (ib_dma_map_page), owned together: reset()
// or destruction unmaps it, then drops the page reference. release() unmaps it and hands the
// reference to the caller (an skb fragment takes it over). Moving hands both over.
class MappedPage : kstd::NonCopyable {
public:
	MappedPage() = default;
	~MappedPage() { reset(); }
	MappedPage(MappedPage &&o) : ib_(o.ib_), pg_(kstd::exchange(o.pg_, static_cast<kapi_page *>(nullptr))), addr_(o.addr_) {}
	MappedPage &operator=(MappedPage &&o)
	{
		if (this != &o) {
			reset();
			ib_ = o.ib_;
			addr_ = o.addr_;
			pg_ = kstd::exchange(o.pg_, static_cast<kapi_page *>(nullptr));
		}
		return *this;
	}
	explicit operator bool() const { return pg_ != nullptr; }
	// A fresh page mapped for the device to write; false (nothing held) on either failure.
	bool alloc(kapi_ib_device *ib, unsigned gfp)
	{
		reset();
		kapi_page *pg = kapi_page_alloc(gfp);
		if (!pg)
			return false;
		if (kapi_dma_map_page(ib, pg, KAPI_DMA_FROM_DEVICE, &addr_) != 0) {
			kapi_page_put(pg);
			return false;
		}
		ib_ = ib;
		pg_ = pg;
		return true;
	}
	[[nodiscard]] kapi_page *release()
	{
		if (pg_)
			kapi_dma_unmap_page(ib_, addr_, KAPI_DMA_FROM_DEVICE);
		return kstd::exchange(pg_, static_cast<kapi_page *>(nullptr));
	}
	void reset()
	{
		if (kapi_page *pg = release())
			kapi_page_put(pg);
	}
	kstd::u64 addr() const { return addr_; }
	// The page, still held and mapped (the CPU reads it only between DMA syncs: copybreak).
	kapi_page *get() const { return pg_; }

private:
	kapi_ib_device *ib_ = nullptr;
	kapi_page *pg_ = nullptr;
	kstd::u64 addr_ = 0;
};

// A bounded FIFO of skbs that owns them: what it still holds when destroyed is freed. Its
// users drain it explicitly where a drop must be counted; the destructor is the backstop.
// No locking: the owner's lock serialises it (a Path's: the path lock; a group's: the table's).
template <kstd::u32 N> class SkbFifo : kstd::NonCopyable {
public:
	kstd::u32 size() const { return q_.size(); }
	bool empty() const { return q_.empty(); }
	// False when full: the skb is still the caller's.
	[[nodiscard]] bool push(kapi_skb *skb)
	{
		SkbHandle h(skb);
		if (q_.push(kstd::move(h)))
			return true;
		static_cast<void>(h.release());	// not taken: back to the caller
		return false;
	}
	// The oldest skb, now the caller's; false when empty.
	[[nodiscard]] bool pop(kapi_skb *&out)
	{
		SkbHandle h;
		if (!q_.pop(h))
			return false;
		out = h.release();
		return true;
	}

private:
	kstd::Ring<SkbHandle, N> q_;
};

} // namespace ipoib
