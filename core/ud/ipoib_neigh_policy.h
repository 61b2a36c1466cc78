// SPDX-License-Identifier: GPL-2.0
// ipoib_neigh_policy.h - the decisions of the neighbour table and the path cache as pure
// logic (no kernel calls, host-compilable, for KUnit): hashing a 20-octet IPoIB address
// (RFC 4391 §9.1.1) into a bucket, sizing the bucket array, when a neighbour or a path is
// stale (the kernel ARP table's GC interval, as the in-tree driver uses it), and the
// PathRecord query back-off. The RCU/lock mechanics that use them are in ipoib_neigh.cpp.
#pragma once

#include "core/ipoib_addr.h"

namespace ipoib {

// Up to this many packets wait per unresolved path / unjoined group (RFC 4391 §10 sends
// after the join; the in-tree driver also queues a few); more are dropped and counted.
inline constexpr u32 kPendingQueue = 4;

// ---- hashing and bucket sizing ----

// Bucket array sizes: a power of two (the index is hash & (count - 1)), one bucket per
// expected neighbour as the in-tree driver sizes it from arp_tbl.gc_thresh3, clamped so a
// huge or zero sysctl neither wastes memory nor degenerates the table.
inline constexpr u32 kNeighMinBuckets = 16;
inline constexpr u32 kNeighMaxBuckets = 4096;
u32 neigh_bucket_count(int expected);

// Hash of a 20-octet address. The flags octet (RFC 4755 §3.1: connected-mode capabilities)
// is left out, so one peer's address lands in the same bucket whatever flags it advertises;
// lookups still compare all 20 octets. QPN and all 16 GID octets are mixed in: subnet
// prefixes are usually equal and GUIDs often differ in their last octets only.
u32 neigh_hash(const u8 addr[kHwAddrLen]);
inline u32 neigh_bucket(const u8 addr[kHwAddrLen], u32 count) { return neigh_hash(addr) & (count - 1); }

// ---- ageing (garbage collection) ----

// The kernel ARP table's gc_interval (/proc/sys/net/ipv4/neigh/default/gc_interval) drives
// both: the GC runs every interval, and an entry not used for two intervals is stale (the
// in-tree __ipoib_reap_neigh). The period has a floor so gc_interval 0 cannot make the work
// item spin.
inline constexpr u64 kGcMinPeriodMs = 1000;
u64 gc_period_ms(u64 gc_interval_ms);
u64 gc_stale_ms(u64 gc_interval_ms);
// True when `last_used` (ms) is more than `stale_ms` before `now` (wrap-safe, like time_after).
bool is_stale(u64 now_ms, u64 last_used_ms, u64 stale_ms);

// A path can go when nothing refers to it but the table (no neighbour, no query in
// flight), it has been unused for stale_ms, and it is not holding a back-off (removing it
// would let the next packet query again at once).
struct PathAge {
	u32 refs;		// the table's reference included
	u64 last_used_ms;
	u64 retry_at_ms;	// 0: no back-off
};
bool path_reapable(const PathAge &p, u64 now_ms, u64 stale_ms);

// ---- PathRecord query back-off ----

// After a failed query (timeout, error, or no AH) packets to that GID are dropped without
// a new query until the back-off has passed: 1 s, doubling per consecutive failure, capped
// at 16 s (the multicast join's sequence); a success resets it, a flush forgets it.
// The in-tree driver instead retries at the next packet after a failure, which turns an SA
// outage into one query per packet.
inline constexpr u32 kPathBackoffFirstMs = 1000;
inline constexpr u32 kPathBackoffMaxMs = 16000;
u32 path_backoff_next(u32 prev_ms);
// While in back-off (retry_at set and not reached) packets are dropped without a query.
bool path_in_backoff(u64 now_ms, u64 retry_at_ms);

} // namespace ipoib
