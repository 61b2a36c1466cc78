// SPDX-License-Identifier: GPL-2.0
// ipoib_neigh_policy.cpp - pure logic of the neighbour table and path cache (see the header).
#include "core/ud/ipoib_neigh_policy.h"
#include "kstd/bits.h"

namespace ipoib {

u32 neigh_bucket_count(int expected)
{
	if (expected <= int(kNeighMinBuckets))
		return kNeighMinBuckets;
	if (expected >= int(kNeighMaxBuckets))
		return kNeighMaxBuckets;
	// Between the bounds: the loop from kNeighMinBuckets this replaced, as that is a power of two.
	static_assert(kstd::round_up_pow2(kNeighMinBuckets) == kNeighMinBuckets);
	return u32(kstd::round_up_pow2(u32(expected)));
}

namespace {

u32 load_be32(const u8 *p) { return (u32(p[0]) << 24) | (u32(p[1]) << 16) | (u32(p[2]) << 8) | p[3]; }

// One multiply-xorshift round per 32-bit word (the constants are the 32-bit golden-ratio
// and murmur3 finaliser multipliers); every input bit reaches the low bits used as index.
u32 mix(u32 h, u32 w)
{
	h ^= w;
	h *= 0x9e3779b1u;
	h ^= h >> 15;
	return h;
}

} // namespace

u32 neigh_hash(const u8 addr[kHwAddrLen])
{
	u32 h = mix(0, load_be32(addr) & 0x00ffffffu);	// QPN, without the flags octet
	for (usize i = 4; i < kHwAddrLen; i += 4)
		h = mix(h, load_be32(addr + i));
	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	return h;
}

u64 gc_period_ms(u64 gc_interval_ms) { return gc_interval_ms < kGcMinPeriodMs ? kGcMinPeriodMs : gc_interval_ms; }

u64 gc_stale_ms(u64 gc_interval_ms) { return 2 * gc_period_ms(gc_interval_ms); }

bool is_stale(u64 now_ms, u64 last_used_ms, u64 stale_ms)
{
	// Signed difference: a last_used slightly in the future (another CPU stored a newer
	// time after we read now) is not stale.
	return static_cast<kstd::i64>(now_ms - last_used_ms) > static_cast<kstd::i64>(stale_ms);
}

bool path_reapable(const PathAge &p, u64 now_ms, u64 stale_ms)
{
	if (p.refs != 1)
		return false;
	if (path_in_backoff(now_ms, p.retry_at_ms))
		return false;
	return is_stale(now_ms, p.last_used_ms, stale_ms);
}

u32 path_backoff_next(u32 prev_ms)
{
	if (prev_ms < kPathBackoffFirstMs)
		return kPathBackoffFirstMs;
	if (prev_ms >= kPathBackoffMaxMs / 2)
		return kPathBackoffMaxMs;
	return prev_ms * 2;
}

bool path_in_backoff(u64 now_ms, u64 retry_at_ms)
{
	return retry_at_ms != 0 && static_cast<kstd::i64>(retry_at_ms - now_ms) > 0;
}

} // namespace ipoib
