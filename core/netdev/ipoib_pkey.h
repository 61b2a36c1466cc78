// SPDX-License-Identifier: GPL-2.0
// ipoib_pkey.h - P_Key child interfaces as pure logic (no kernel calls, host-compilable, for
// KUnit): the P_Key written to create_child/delete_child, the IFLA_IPOIB_* attributes of
// `ip link add ... type ipoib`, and the child's netdev name. The caller logs the one line.
//
// P_Key (IBA 10.9.1.2): bit 15 is the membership type (1 = full), bits 0-14 the key; key 0
// with either membership bit is the invalid P_Key. A child always uses full membership
// (RFC 4391 §4 puts that P_Key into the broadcast MGID), as the in-tree driver does.
#pragma once

#include "core/ipoib_params.h"
#include "kstd/types.h"

namespace ipoib {

using kstd::u16;

inline constexpr u16 kPkeyFullMember = 0x8000;

constexpr u16 pkey_full(u16 pkey) { return u16(pkey | kPkeyFullMember); }
// The invalid P_Key (IBA 10.9.1.2): key bits all zero.
constexpr bool pkey_is_invalid(u16 pkey) { return (pkey & 0x7fff) == 0; }

enum class PkeyUse { Create, Delete };

// A number the way the in-tree driver's "%i" reads it: decimal, 0x/0X hex or 0-prefixed
// octal, optional surrounding whitespace (echo adds '\n'); unlike "%i", trailing garbage,
// signs and overflow are rejected. Create: 1..0xffff except 0x8000 (the invalid P_Key);
// Delete: 0..0xffff (a P_Key that names no child is the caller's -ENODEV, not -EINVAL).
Status parse_child_pkey(StrView s, PkeyUse use, u16 &out, ParseError &err);

// The P_Key of an `ip link add ... type ipoib pkey N` (already a u16): not the invalid one.
Status validate_link_pkey(u16 pkey, ParseError &err);

// IFLA_IPOIB_MODE (0 datagram, 1 connected) and IFLA_IPOIB_UMCAST (0/1) when present.
struct LinkArgs {
	bool has_pkey = false, has_mode = false, has_umcast = false;
	u16 pkey = 0, mode = 0, umcast = 0;
};
inline constexpr u16 kLinkModeDatagram = 0;
inline constexpr u16 kLinkModeConnected = 1;
// Invalid for an out-of-range mode/umcast.
Status validate_link_args(const LinkArgs &a, ParseError &err);

// "<parent>.<pkey as 4 lower-case hex digits>", the parent cut to 10 bytes so the name fits
// IFNAMSIZ (the in-tree naming). False if out is too small (needs 16).
bool format_child_name(StrView parent, u16 pkey, char *out, usize size);

} // namespace ipoib
