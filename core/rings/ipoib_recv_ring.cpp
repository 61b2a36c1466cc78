// SPDX-License-Identifier: GPL-2.0
// ipoib_recv_ring.cpp - the receive ring of the UD queue, the SRQ and each non-SRQ RC QP:
// replacement first, never zero, refused completions, stop/empty (ipoib_recv_ring.h).
#include "core/rings/ipoib_recv_ring.h"

namespace ipoib {

u32 RecvRing::sges_for(u32 buf_size)
{
	if (buf_size <= kFragHeadMax)
		return 1;
	return 1 + (buf_size - kFragHeadMax + KAPI_PAGE_SIZE - 1) / KAPI_PAGE_SIZE;
}

u32 RecvRing::receive_mtu(u32 buf_size, u32 max_sge)
{
	if (!max_sge || !buf_size)
		return 0;
	u32 n = sges_for(buf_size);
	if (n > max_sge)
		n = max_sge;
	if (n > 1 + kFragPages)
		n = 1 + kFragPages;
	const u32 holds = kFragHeadMax + (n - 1) * KAPI_PAGE_SIZE;
	return buf_size < holds ? buf_size : holds;
}

// The buffer's layout for buf_size bytes: UD, one linear head (the UD QP has one receive
// SGE); connected mode, sges_for() SGEs: a head of what the pages do not hold, at least
// kFragHeadMin (frag_head_len: 256 bytes for a 65524-byte buffer), and pages.
void RecvRing::set_layout(u32 buf_size)
{
	const bool linear = q_ == RecvQueue::Ud;
	head_len_ = linear ? buf_size : frag_head_len(buf_size);
	npages_ = linear ? 0 : sges_for(buf_size) - 1;
	last_len_ = npages_ ? buf_size - head_len_ - (npages_ - 1) * KAPI_PAGE_SIZE : 0;
	copybreak_ = linear ? 0 : kRcCopybreak;
	buf_fixed_ = u32(sizeof(RxBuf) + npages_ * (sizeof(MappedPage) + KAPI_PAGE_SIZE));
}

Status RecvRing::alloc(u32 max_entries, u32 buf_size)
{
	if (!max_entries || (q_ != RecvQueue::Ud && (!buf_size || sges_for(buf_size) > 1 + kFragPages)))
		return Status::Invalid;
	if (buf_size) {
		__atomic_store_n(&buf_size_, buf_size, __ATOMIC_RELEASE);
		set_layout(buf_size);
	}
	const Status st = kstd::ok(slots_.alloc(max_entries)) ? queue_.alloc(max_entries) : Status::NoMem;
	// The tables are what the ring holds so far (alloc() replaces any earlier ones, and
	// their buffers with them).
	__atomic_store_n(&bytes_, u64(slots_.size()) * sizeof(kstd::Unique<RxBuf>) + u64(queue_.capacity()) * sizeof(u32),
			 __ATOMIC_RELAXED);
	return st;
}

void RecvRing::want_fill(u32 buf_size)
{
	u32 none = 0;
	__atomic_compare_exchange_n(&buf_size_, &none, buf_size, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}

Status RecvRing::fill(u32 buf_size)
{
	want_fill(buf_size);	// the first size asked for stays the ring's
	if (filled())
		return Status::Ok;
	if (!head_len_)
		set_layout(this->buf_size());
	KSTD_TRY(post_until(size(), Gfp::Atomic));
	__atomic_store_n(&filled_, true, __ATOMIC_RELEASE);
	return Status::Ok;
}

Status RecvRing::post_initial(u32 n)
{
	if (n > slots_.size() || n < active_ || stopped_ || !head_len_)
		return Status::Invalid;
	const Status st = post_until(n, Gfp::Kernel);
	consumed_ = 0;
	floor_ = n ? n : 1;
	goal_ = n;
	if (!kstd::ok(st))
		return st;
	return posted_ == n && !queue_.size() ? Status::Ok : Status::Io;
}

// The lowest slot without a buffer (one exists: active_ < size()).
u32 RecvRing::free_slot()
{
	while (free_hint_ < slots_.size() && slots_[free_hint_])
		free_hint_++;
	return free_hint_;
}

// Resumable: the active slots hold a buffer (posted or queued); only free ones get one.
Status RecvRing::post_until(u32 n, Gfp gfp)
{
	Status st = Status::Ok;
	while (active_ < n) {
		const u32 idx = free_slot();
		if (!kstd::ok(activate(idx, gfp))) {
			count_local(*c_.nomem);
			st = Status::NoMem;
			break;
		}
		set_active(active_ + 1);
		queue(idx);
	}
	repost();
	return st;
}

// A head skb of head_len_ bytes, mapped for the device; on failure neither is held. No extra
// headroom: the skb allocator's own (NET_SKB_PAD, at least 32) covers the 20-byte pseudo
// header the receive paths push after pulling the GRH / the 4-octet IPoIB header.
Status RecvRing::alloc_head(SkbHandle &head, DmaMap &map, Gfp gfp)
{
	SkbHandle skb(kapi_skb_alloc(nd_, head_len_, 0, unsigned(gfp)));
	if (!skb)
		return Status::NoMem;
	if (map.map(ib_, kapi_skb_data(skb.get()), head_len_, KAPI_DMA_FROM_DEVICE) != 0)
		return Status::NoMem;	// skb freed by its handle
	head = kstd::move(skb);
	return Status::Ok;
}

Status RecvRing::activate(u32 idx, Gfp gfp)
{
	kstd::Unique<RxBuf> b(new (gfp) RxBuf);
	if (!b || !kstd::ok(b->pages.alloc(npages_, gfp)) || !kstd::ok(alloc_head(b->head, b->head_map, gfp)))
		return Status::NoMem;	// whatever was allocated is freed by b
	for (u32 i = 0; i < npages_; i++)
		if (!b->pages[i].alloc(ib_, unsigned(gfp)))
			return Status::NoMem;
	b->head_bytes = kapi_skb_truesize(b->head.get());
	account(buf_bytes(*b), 0);
	slots_[idx] = kstd::move(b);
	return Status::Ok;
}

void RecvRing::queue(u32 idx)
{
	if (KSTD_WARN_ON(!queue_.push(idx)))
		return;	// cannot happen: a slot is queued at most once
	if (queue_.size() >= kPollBatch)
		repost();
}

// A completion this ring cannot take: counted, warned once (it means a provider or driver
// bug, and a CQE storm must not become a log storm), never handed up.
void RecvRing::refuse()
{
	count_local(refused_);
	if (c_.refused)
		count_local(*c_.refused);
	if (!warned_) {
		warned_ = true;
		KSTD_WARN_ON(true);
	}
}

// n bytes the device wrote at dma (the CPU's view: from) into to; the buffer stays mapped
// and goes back to the device.
void RecvRing::copy_out(u64 dma, const kstd::u8 *from, u32 n, kstd::u8 *to)
{
	kapi_dma_sync_for_cpu(ib_, dma, n, KAPI_DMA_FROM_DEVICE);
	__builtin_memcpy(to, from, n);
	kapi_dma_sync_for_device(ib_, dma, n, KAPI_DMA_FROM_DEVICE);
}

// Copybreak: the packet's len bytes (the head's, then the pages' it reached, in order) into
// a fresh skb; the buffer goes back to the device whole. nullptr when no skb could be had
// (the caller falls back to the replacement).
kapi_skb *RecvRing::copy_small(RxBuf &b, u32 len)
{
	kapi_skb *skb = kapi_skb_alloc(nd_, len, 0, unsigned(Gfp::Atomic));
	if (!skb)
		return nullptr;
	const FragLayout l = frag_layout(len, head_len_, npages_);
	kstd::u8 *to = kapi_skb_put(skb, len);
	copy_out(b.head_map.addr(), kapi_skb_data(b.head.get()), l.head, to);
	to += l.head;
	for (u32 i = 0; i < l.pages; i++) {
		const u32 n = i + 1 == l.pages ? l.last : u32(KAPI_PAGE_SIZE);
		copy_out(b.pages[i].addr(), kapi_page_address(b.pages[i].get()), n, to);
		to += n;
	}
	count_local(copied_);
	return skb;
}

// Replacement first: a fresh head and fresh pages for those the packet used take their
// places in b, and the filled ones become the skb handed up (nullptr, b unchanged, when
// any replacement cannot be had: the fresh parts are freed by their owners).
kapi_skb *RecvRing::take(RxBuf &b, u32 len)
{
	const FragLayout l = frag_layout(len, head_len_, npages_);
	SkbHandle head;
	DmaMap map;
	MappedPage fresh[kFragPages];
	if (!kstd::ok(alloc_head(head, map, Gfp::Atomic)))
		return nullptr;
	for (u32 i = 0; i < l.pages; i++)
		if (!fresh[i].alloc(ib_, unsigned(Gfp::Atomic)))
			return nullptr;
	b.head_map = kstd::move(map);	// the filled head is unmapped: the CPU owns it
	kapi_skb *skb = b.head.release();
	const u32 fresh_bytes = kapi_skb_truesize(head.get());
	account(fresh_bytes, b.head_bytes);	// the pages are swapped one for one
	b.head_bytes = fresh_bytes;
	b.head = kstd::move(head);
	kapi_page *used[kFragPages];
	for (u32 i = 0; i < l.pages; i++) {
		used[i] = b.pages[i].release();	// unmapped, its reference now ours
		b.pages[i] = kstd::move(fresh[i]);
	}
	frag_attach(skb, l, used);	// the skb takes over the used pages
	return skb;
}

// Shrinking: slot idx's filled buffer is handed up and not replaced (no allocation, so no
// drop: a small packet is still copied when a small skb can be had); the pages it did not
// use are freed with its RxBuf and the slot becomes free.
kapi_skb *RecvRing::retire(u32 idx, u32 len)
{
	RxBuf &b = *slots_[idx];
	kapi_skb *skb = len <= copybreak_ ? copy_small(b, len) : nullptr;
	if (!skb) {
		const FragLayout l = frag_layout(len, head_len_, npages_);
		b.head_map.reset();	// the CPU owns the filled head
		skb = b.head.release();
		kapi_page *used[kFragPages];
		for (u32 i = 0; i < l.pages; i++)
			used[i] = b.pages[i].release();
		frag_attach(skb, l, used);
	}
	account(0, buf_bytes(b));	// the head and used pages go up, the rest is freed
	slots_[idx].reset();
	set_active(active_ - 1);
	uncharge_one();
	if (idx < free_hint_)
		free_hint_ = idx;
	retired_++;	// adapt(): this window's ring had the buffer (not demand on what is left)
	if (c_.shrunk)
		count_local(*c_.shrunk);
	count_local(shrinks_);
	return skb;
}

kapi_skb *RecvRing::complete(const kapi_wc &wc)
{
	const u32 idx = wrid_slot(wc.wr_id);
	RxBuf *b = idx < slots_.size() ? slots_[idx].get() : nullptr;
	if (!b || !b->posted || !posted_) {
		refuse();	// not a receive this ring has posted: a duplicate or stale CQE
		return nullptr;
	}
	b->posted = false;
	consumed_++;
	kapi_skb *skb = settle(idx, *b, wc);
	// The guarantee (docs/design.md §4 item 2): a non-SRQ QP whose last posted receive completed gets
	// that buffer (or its replacement) posted again before the completion is counted and
	// before its packet goes up the stack, not at the end of the NAPI batch: the QP is
	// without a receive only from the HCA's consumption to here (RNR retry covers that), and
	// the driver's count (debugfs rx_posted) never reads 0 while the QP can receive (a
	// ring of one would otherwise read 0 while its packet is up the stack). A ring that is stopped, or kept nothing to post, falls to 0 as before.
	if (q_ == RecvQueue::RcQp && !stopped_ && posted_ == 1 && queue_.size())
		repost();
	set_posted(posted_ - 1);
	return skb;
}

// complete()'s verdict on a completed buffer (posted_ still counts it): queued for its
// repost, retired, or the ring stopped; the skb to hand up, if any.
kapi_skb *RecvRing::settle(u32 idx, RxBuf &b, const kapi_wc &wc)
{
	if (wc.status != KAPI_WC_SUCCESS) {
		const bool flush = wc.status == KAPI_WC_WR_FLUSH_ERR;
		count_local(flush ? *c_.flushed : *c_.wc_errors);
		if (q_ == RecvQueue::Srq || (q_ == RecvQueue::Ud && !flush))
			queue(idx);	// the queue stays up: the buffer goes back
		else
			stopped_ = true;	// QP in ERROR: the buffer stays in its slot until release()
		return nullptr;
	}
	// More than the SGEs' sum (buf_size_) cannot be a correct receive: the HCA must have
	// failed it with a local length error (IBA 11.4.2.1). The buffer goes back.
	if (wc.byte_len > buf_size_) {
		refuse();
		queue(idx);
		return nullptr;
	}
	if (q_ == RecvQueue::RcQp && active_ > goal_)
		return retire(idx, wc.byte_len);
	if (wc.byte_len <= copybreak_) {
		if (kapi_skb *small = copy_small(b, wc.byte_len)) {
			queue(idx);
			return small;
		}
	}
	kapi_skb *skb = take(b, wc.byte_len);
	if (!skb)
		count_local(*c_.nomem);
	queue(idx);
	return skb;
}

void RecvRing::repost()
{
	if (npages_)
		post_sg();
	else
		post_linear();
	// complete()'s early repost runs before its completion is uncounted (posted_ >= 1), so
	// only a batch's repost can find the ring empty here
	if (c_.left_empty && rc_left_empty(q_, stopped_, posted_))
		count_local(*c_.left_empty);
}

// A post of the first n queued slots returned rc: those the provider took are posted; the
// rest stays queued, in order, for the next repost (counted). True when it took all n.
bool RecvRing::took(u32 n, int rc)
{
	const u32 k = rc > 0 ? u32(rc) : 0;
	for (u32 i = 0; i < k; i++)
		slots_[queue_.at(i)]->posted = true;
	set_posted(posted_ + k);
	queue_.pop(k);
	if (k < n)
		count_local(*c_.post_errors);
	return k == n;
}

void RecvRing::post_linear()
{
	const WrKind kind = q_ == RecvQueue::Ud ? WrKind::UdRecv : WrKind::RcRecv;
	while (queue_.size() && !stopped_) {
		kapi_recv r[kPollBatch];
		const u32 n = queue_.size() < kPollBatch ? queue_.size() : kPollBatch;
		for (u32 i = 0; i < n; i++) {
			const u32 idx = queue_.at(i);
			r[i] = {wrid(kind, idx), slots_[idx]->head_map.addr(), head_len_};
		}
		if (!took(n, target_.post(lkey_, r, int(n))))
			return;
	}
}

void RecvRing::post_sg()
{
	while (queue_.size() && !stopped_) {
		kapi_recv_sg r[kRcPostBatch];
		const u32 n = queue_.size() < kRcPostBatch ? queue_.size() : kRcPostBatch;
		for (u32 i = 0; i < n; i++) {
			const u32 idx = queue_.at(i);
			const RxBuf &b = *slots_[idx];
			r[i].wr_id = wrid(WrKind::RcRecv, idx);
			r[i].nsge = 1 + npages_;
			r[i].addr[0] = b.head_map.addr();
			r[i].len[0] = head_len_;
			for (u32 j = 0; j < npages_; j++) {
				r[i].addr[1 + j] = b.pages[j].addr();
				r[i].len[1 + j] = page_len(j);
			}
		}
		if (!took(n, target_.post(lkey_, r, int(n))))
			return;
	}
}

void RecvRing::restart()
{
	queue_.pop(queue_.size());
	for (u32 i = 0; i < slots_.size(); i++) {
		if (!slots_[i])
			continue;
		slots_[i]->posted = false;
		KSTD_WARN_ON(!queue_.push(i));	// capacity: size() slots
	}
	set_posted(0);
	stopped_ = false;
	repost();
}

void RecvRing::adapt(u64 now_ms)
{
	const u32 consumed = kstd::exchange(consumed_, 0u);
	// Buffers complete() retired in this window (a shrink).
	const u32 retired = kstd::exchange(retired_, 0u);
	if (q_ != RecvQueue::RcQp || stopped_)
		return;
	if (!busy_ms_)
		busy_ms_ = now_ms;	// the idle period starts with the first look
	// Idle is no completion at all for kRcShrinkIdleMs, not "never low" (a steady stream at
	// a quarter of the ring per poll would otherwise shrink it to the floor while packets
	// keep coming). Only a completion can retire a buffer (a posted receive is never
	// cancelled), so the shrink is decided at the first one after the silence.
	const bool was_idle = now_ms - busy_ms_ >= kRcShrinkIdleMs;
	// Low: the window took 3/4 of what is left, so a stream that drains a shrinking ring is
	// demand and stops the shrink near 4/3 of its rate (measured against the buffers the
	// window started with, a stream resuming after the idle period would shrink its ring to
	// about a third of its rate and meet RNR NAKs). But a window whose completions
	// were all retirements is no demand for the ring of one it leaves: counted as demand, the
	// completion that retires the second-to-last buffer would grow it back in the same pass,
	// and a ring that once grew would idle at 2 buffers, never at its floor of 1.
	const bool low = consumed && consumed * 4 >= active_ * 3 && (active_ > 1 || consumed > retired);
	// A ring of one is low at every completion: it counts the low windows that follow each
	// other within kRcGrowGapMs (a stream) and grows at the streak1_-th (kRcGrowStreak1, or
	// the first when the peer's RNR retry is finite: rnr_retry_finite); a window
	// after a longer gap starts a new run (a ping, an ARP probe).
	if (low)
		streak_ = (streak_ && now_ms - busy_ms_ <= kRcGrowGapMs ? streak_ : 0) + 1;
	else if (consumed)
		streak_ = 0;
	if (consumed)
		busy_ms_ = now_ms;
	if (low && (active_ > 1 || retired || streak_ >= streak1_)) {
		streak_ = 0;
		grow();	// and a pending shrink is called off
	} else if (goal_ > floor_ && was_idle) {
		goal_ = floor_;
	}
}

void RecvRing::uncharge_one()
{
	if (!charged_)
		return;	// a floor buffer (or the ring grew before its bounds were set)
	__atomic_store_n(&charged_, charged_ - 1, __ATOMIC_RELAXED);
	if (budget_)
		budget_->uncharge(charge_unit());
}

void RecvRing::grow()
{
	const u32 cap = cap_ && cap_ < slots_.size() ? cap_ : slots_.size();
	u32 want = active_ * 2 < cap ? active_ * 2 : cap;
	if (want > active_ + kPollBatch)
		want = active_ + kPollBatch;	// bounded work per NAPI pass
	if (want <= active_ && cap < slots_.size())
		grow_refused(GrowRefusal::Cap);	// at the per-connection cap
	while (active_ < want) {
		if (budget_ && !budget_->charge(charge_unit())) {
			grow_refused(GrowRefusal::Budget);
			break;
		}
		const u32 idx = free_slot();
		if (!kstd::ok(activate(idx, Gfp::Atomic))) {
			if (budget_)
				budget_->uncharge(charge_unit());
			if (c_.grow_failed)
				count_local(*c_.grow_failed);
			break;
		}
		__atomic_store_n(&charged_, charged_ + 1, __ATOMIC_RELAXED);
		grow_refusal_ = GrowRefusal::None;	// grew: the next refusal is a new one
		set_active(active_ + 1);
		queue(idx);
		if (c_.grown)
			count_local(*c_.grown);
		count_local(grows_);
	}
	if (goal_ < active_)
		goal_ = active_;	// keeps what is there (also when a shrink was pending)
}

// A stream held at a bound tries to grow at every low window (hundreds a second): one
// refusal, counted once. The per-connection cap stays what it is until the ring grows again
// (after a shrink); the budget may give room back meanwhile (another ring shrank or went), so
// a budget refusal after a free is a new one.
void RecvRing::grow_refused(GrowRefusal why)
{
	const u64 frees = budget_ ? budget_->frees() : 0;
	if (grow_refusal_ == why && (why == GrowRefusal::Cap || frees == grow_refused_frees_))
		return;
	grow_refusal_ = why;
	grow_refused_frees_ = frees;
	if (c_.grow_refused)
		count_local(*c_.grow_refused);
}

void RecvRing::release()
{
	if (budget_ && charged_)
		budget_->uncharge(u64(charged_) * charge_unit());
	__atomic_store_n(&charged_, 0u, __ATOMIC_RELAXED);
	for (u32 i = 0; i < slots_.size(); i++)
		slots_[i].reset();
	set_posted(0);
	consumed_ = 0;
	retired_ = 0;
	set_active(0);
	goal_ = 0;
	free_hint_ = 0;
	busy_ms_ = 0;
	streak_ = 0;
	grow_refusal_ = GrowRefusal::None;
	stopped_ = false;
	__atomic_store_n(&filled_, false, __ATOMIC_RELEASE);
	// The tables go too, so that a released ring holds nothing (bytes() == 0); a ring is
	// used again only after another alloc().
	slots_.reset();
	queue_.reset();
	__atomic_store_n(&bytes_, u64(0), __ATOMIC_RELAXED);
}

} // namespace ipoib
