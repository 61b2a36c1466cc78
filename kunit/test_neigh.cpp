// SPDX-License-Identifier: GPL-2.0
// test_neigh.cpp - the neighbour table's and path cache's pure logic
// (ipoib_neigh_policy.cpp): bucket sizing (power of two from arp gc_thresh3, clamped),
// the address hash (flags octet ignored, every other octet counts, spreads realistic
// address sets), ageing as the in-tree __ipoib_reap_neigh decides it (idle > 2 x
// gc_interval), which paths the GC may remove, the PathRecord back-off sequence, and the
// bound of the per-path pending queue.
#include "ktest.h"
#include "core/ud/ipoib_neigh_policy.h"
#include "kstd/ring.h"

namespace ktest_neigh {

using namespace ipoib;

constexpr u8 kGid[kGidLen] = {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x00, 0x11, 0x22, 0xff, 0xfe, 0x33, 0x44, 0x55};

// ------------------------------------------------------------------ bucket sizing

KTEST(neigh_buckets, power_of_two_clamped)
{
	const struct { int in; u32 out; } cases[] = {
		{-1, 16}, {0, 16}, {1, 16}, {16, 16}, {17, 32}, {100, 128}, {512, 512},
		{1000, 1024}, {1024, 1024}, {1025, 2048}, {4096, 4096}, {4097, 4096}, {1 << 30, 4096},
	};
	for (const auto &c : cases)
		EXPECT_EQ(neigh_bucket_count(c.in), c.out);
}

KTEST(neigh_buckets, always_usable_as_mask)
{
	for (int n = -3; n < 5000; n += 7) {
		u32 b = neigh_bucket_count(n);
		EXPECT_EQ(b & (b - 1), 0u);
		EXPECT_GE(b, kNeighMinBuckets);
		EXPECT_LE(b, kNeighMaxBuckets);
		if (n >= int(kNeighMinBuckets) && n <= int(kNeighMaxBuckets))
			EXPECT_GE(b, u32(n));	// one bucket per expected neighbour at least
	}
}

// ------------------------------------------------------------------ hash

KTEST(neigh_hash, ignores_flags_only)
{
	HwAddr a = HwAddr::make(0, 0x000048, kGid);
	HwAddr rc = HwAddr::make(kFlagRc, 0x000048, kGid);
	HwAddr uc = HwAddr::make(kFlagRc | kFlagUc, 0x000048, kGid);
	EXPECT_EQ(neigh_hash(a.b), neigh_hash(rc.b));
	EXPECT_EQ(neigh_hash(a.b), neigh_hash(uc.b));
	// Every octet but the flags changes the hash (each 32-bit word goes through a bijection).
	for (usize i = 1; i < kHwAddrLen; i++) {
		for (u8 bit = 1; bit; bit = u8(bit << 1)) {
			HwAddr b = a;
			b.b[i] ^= bit;
			if (neigh_hash(b.b) == neigh_hash(a.b)) {
				char msg[64];
				ktest_snprintf(msg, sizeof(msg), "octet %lu bit 0x%02x not hashed", (unsigned long)i, bit);
				ktest_fail(kt, __FILE__, __LINE__, msg);
			}
		}
	}
}

KTEST(neigh_hash, deterministic_and_in_range)
{
	HwAddr a = HwAddr::make(0, 0xabcdef, kGid);
	EXPECT_EQ(neigh_hash(a.b), neigh_hash(a.b));
	for (u32 count = kNeighMinBuckets; count <= kNeighMaxBuckets; count <<= 1)
		for (u32 q = 0; q < 300; q++) {
			HwAddr b = HwAddr::make(0, q * 977, kGid);
			EXPECT_LT(neigh_bucket(b.b, count), count);
		}
}

// Longest chain when `n` addresses made by `make(i)` go into `buckets` (<= 256) buckets;
// the counters stay small for the kernel stack.
constexpr u32 kMaxTestBuckets = 256;
template <typename Make> u32 longest_chain(u32 n, u32 buckets, Make make)
{
	u16 load[kMaxTestBuckets] = {};
	if (buckets > kMaxTestBuckets)
		return ~0u;
	u32 worst = 0;
	for (u32 i = 0; i < n; i++) {
		HwAddr a = make(i);
		u32 b = neigh_bucket(a.b, buckets);
		if (++load[b] > worst)
			worst = load[b];
	}
	return worst;
}

// Realistic sets: one subnet prefix, GUIDs that differ in their last octets, QPNs handed out
// sequentially. 1024 entries in 256 buckets average 4; a uniform hash stays well under 12.
KTEST(neigh_hash, spreads_realistic_addresses)
{
	u32 by_qpn = longest_chain(1024, 256, [](u32 i) { return HwAddr::make(0, 0x48 + i, kGid); });
	EXPECT_LE(by_qpn, 12u);
	u32 by_guid = longest_chain(1024, 256, [](u32 i) {
		u8 g[kGidLen];
		bytes_copy(g, kGid, kGidLen);
		g[14] = u8(i >> 8);
		g[15] = u8(i);
		return HwAddr::make(0, 0x48, g);
	});
	EXPECT_LE(by_guid, 12u);
	// Same peers, one QPN each, different GUIDs in the upper octets (another vendor's OUI).
	u32 by_oui = longest_chain(1024, 256, [](u32 i) {
		u8 g[kGidLen];
		bytes_copy(g, kGid, kGidLen);
		g[8] = u8(i >> 2);
		g[10] = u8(i);
		return HwAddr::make(0, 0x49, g);
	});
	EXPECT_LE(by_oui, 12u);
	// 16 addresses in the smallest table: at most a few per bucket.
	EXPECT_LE(longest_chain(16, kNeighMinBuckets, [](u32 i) { return HwAddr::make(0, 0x100 + i, kGid); }), 4u);
}

// ------------------------------------------------------------------ ageing

KTEST(neigh_ageing, twice_the_arp_gc_interval)
{
	// Linux's default arp gc_interval is 30 s: GC every 30 s, stale after 60 s idle.
	EXPECT_EQ(gc_period_ms(30000), 30000ull);
	EXPECT_EQ(gc_stale_ms(30000), 60000ull);
	EXPECT_EQ(gc_period_ms(2000), 2000ull);
	EXPECT_EQ(gc_stale_ms(2000), 4000ull);
	// gc_interval 0 (or below a second) cannot make the work spin
	EXPECT_EQ(gc_period_ms(0), kGcMinPeriodMs);
	EXPECT_EQ(gc_period_ms(10), kGcMinPeriodMs);
	EXPECT_EQ(gc_stale_ms(0), 2 * kGcMinPeriodMs);
}

KTEST(neigh_ageing, stale_decision)
{
	const u64 stale = gc_stale_ms(30000);
	const u64 now = 5000000;
	EXPECT_FALSE(is_stale(now, now, stale));
	EXPECT_FALSE(is_stale(now, now - 1000, stale));
	EXPECT_FALSE(is_stale(now, now - stale, stale));	// exactly two intervals: kept (time_after)
	EXPECT_TRUE(is_stale(now, now - stale - 1, stale));
	EXPECT_TRUE(is_stale(now, 0, stale));
	// used after `now` was read (another CPU): not stale
	EXPECT_FALSE(is_stale(now, now + 4, stale));
	// across a wrap of the millisecond clock
	EXPECT_FALSE(is_stale(5, ~0ull - 10, stale));
	EXPECT_TRUE(is_stale(stale + 100, ~0ull - 10, stale));
}

KTEST(neigh_ageing, path_reapable)
{
	const u64 stale = 4000, now = 100000;
	EXPECT_TRUE(path_reapable({1, now - 5000, 0}, now, stale));
	EXPECT_FALSE(path_reapable({1, now - 3000, 0}, now, stale));	// recently used
	EXPECT_FALSE(path_reapable({2, now - 5000, 0}, now, stale));	// a neighbour or query holds it
	EXPECT_FALSE(path_reapable({3, now - 50000, 0}, now, stale));
	EXPECT_FALSE(path_reapable({1, now - 5000, now + 1}, now, stale));	// back-off pending
	EXPECT_TRUE(path_reapable({1, now - 5000, now}, now, stale));	// back-off over
	EXPECT_TRUE(path_reapable({1, now - 5000, now - 100}, now, stale));
}

// ------------------------------------------------------------------ back-off

KTEST(path_backoff, doubles_to_the_cap)
{
	const u32 want[] = {1000, 2000, 4000, 8000, 16000, 16000, 16000};
	u32 b = 0;	// after a success
	for (u32 w : want) {
		b = path_backoff_next(b);
		EXPECT_EQ(b, w);
	}
	EXPECT_EQ(path_backoff_next(3000), 6000u);
	EXPECT_EQ(path_backoff_next(9000), kPathBackoffMaxMs);
	EXPECT_EQ(path_backoff_next(~0u), kPathBackoffMaxMs);	// no overflow
	EXPECT_EQ(path_backoff_next(1), kPathBackoffFirstMs);
}

KTEST(path_backoff, window)
{
	const u64 now = 777000;
	EXPECT_FALSE(path_in_backoff(now, 0));	// none
	EXPECT_TRUE(path_in_backoff(now, now + 1));
	EXPECT_TRUE(path_in_backoff(now, now + kPathBackoffMaxMs));
	EXPECT_FALSE(path_in_backoff(now, now));	// due: the next packet queries
	EXPECT_FALSE(path_in_backoff(now, now - 1));
	// a failure at t sets retry_at = t + backoff: dropped until then, queried after
	const u64 t = 1000;
	const u64 retry = t + path_backoff_next(0);
	EXPECT_TRUE(path_in_backoff(t + 999, retry));
	EXPECT_FALSE(path_in_backoff(t + 1000, retry));
}

// ------------------------------------------------------------------ pending queue

KTEST(path_queue, bounded_fifo)
{
	static_assert(kPendingQueue == 4, "the in-tree driver's bound is small too; docs say 4");
	kstd::Ring<u32, kPendingQueue> q;
	for (u32 i = 0; i < kPendingQueue; i++)
		EXPECT_TRUE(q.push(i + 10));
	EXPECT_FALSE(q.push(99));	// the fifth packet is a counted drop
	EXPECT_EQ(q.size(), kPendingQueue);
	u32 v = 0;
	for (u32 i = 0; i < kPendingQueue; i++) {
		EXPECT_TRUE(q.pop(v));
		EXPECT_EQ(v, i + 10);	// re-sent in arrival order
	}
	EXPECT_FALSE(q.pop(v));
	EXPECT_TRUE(q.push(1));	// usable again after a drain
}

KTEST_SUITE(neigh_buckets, KTEST_CASE(neigh_buckets, power_of_two_clamped),
	    KTEST_CASE(neigh_buckets, always_usable_as_mask));
KTEST_SUITE(neigh_hash, KTEST_CASE(neigh_hash, ignores_flags_only), KTEST_CASE(neigh_hash, deterministic_and_in_range),
	    KTEST_CASE(neigh_hash, spreads_realistic_addresses));
KTEST_SUITE(neigh_ageing, KTEST_CASE(neigh_ageing, twice_the_arp_gc_interval), KTEST_CASE(neigh_ageing, stale_decision),
	    KTEST_CASE(neigh_ageing, path_reapable));
KTEST_SUITE(path_backoff, KTEST_CASE(path_backoff, doubles_to_the_cap), KTEST_CASE(path_backoff, window));
KTEST_SUITE(path_queue, KTEST_CASE(path_queue, bounded_fifo));

} // namespace ktest_neigh
