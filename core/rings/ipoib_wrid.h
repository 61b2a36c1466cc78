// SPDX-License-Identifier: GPL-2.0
// ipoib_wrid.h - what a work request's wr_id says: the kind of ring it came from in the top
// bits and the ring slot in the low ones. One CQ carries UD receives, RC receives, RC sends
// and drain WRs in connected mode, and in an error completion only wr_id, status, qp_num
// and vendor_err are defined (IBA 11.4.2.1; opcode is not, so kapi_wc.is_recv is not
// either). The dispatcher therefore decides recv/send/drain from the kind alone, as the
// in-tree driver does with IPOIB_OP_RECV/IPOIB_OP_CM (written anew, not copied).
//
//   bits 63..60  WrKind       bits 59..32  zero       bits 31..0  slot index
#pragma once

#include "kstd/base.h"

namespace ipoib {

enum class WrKind : kstd::u8 { None = 0, UdRecv = 1, UdSend = 2, RcRecv = 3, RcSend = 4, Drain = 5 };
inline constexpr kstd::u8 kWrKindMax = 5;

inline constexpr kstd::u32 kWrKindShift = 60;

constexpr kstd::u64 wrid(WrKind k, kstd::u32 slot)
{
	return (kstd::u64(k) << kWrKindShift) | slot;
}

// A value outside the enum (a wr_id the core never gave out) comes back as None.
constexpr WrKind wrid_kind(kstd::u64 wr_id)
{
	const kstd::u8 k = kstd::u8(wr_id >> kWrKindShift);
	return k <= kWrKindMax ? WrKind(k) : WrKind::None;
}

constexpr kstd::u32 wrid_slot(kstd::u64 wr_id) { return kstd::u32(wr_id); }

constexpr bool wrid_is_recv(WrKind k) { return k == WrKind::UdRecv || k == WrKind::RcRecv; }

static_assert(wrid_kind(wrid(WrKind::Drain, 7)) == WrKind::Drain && wrid_slot(wrid(WrKind::Drain, 7)) == 7);
static_assert(wrid_slot(wrid(WrKind::RcRecv, 0xffffffffu)) == 0xffffffffu);
static_assert(wrid_kind(0) == WrKind::None && wrid_kind(~0ull) == WrKind::None);

} // namespace ipoib
