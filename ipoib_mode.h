// SPDX-License-Identifier: GPL-2.0
// ipoib_mode.h - the admin mode of an interface (datagram / connected, RFC 4755 §1): its
// sysfs and IFLA_IPOIB_MODE spellings, the MTU rule and the offload rule of each mode.
// Pure logic (KUnit: kunit/test_mode.cpp); Interface::apply_mode (ipoib_if_mode.cpp) applies it.
#pragma once

#include "kapi_consts.h"
#include "kapi_netdev.h"
#include "kstd/string.h"
#include "kstd/types.h"

namespace ipoib::mode {

using kstd::StrView;
using kstd::u16;
using kstd::u32;

// The largest connected-mode IP MTU: one RC message of 64 KiB minus 16 octets (the in-tree
// IPOIB_CM_MTU, the value Linux peers announce and expect; RFC 4755 §3.2 leaves it to the
// implementation). The RFC 4391 §6 header comes on top of it.
inline constexpr u32 kCmMtu = 0x10000 - 0x10;

// A sysfs value (its trailing newline already stripped): "datagram" or "connected", exactly.
// False for anything else.
bool parse(StrView v, bool &connected);
const char *name(bool connected);			// the sysfs value without newline
u16 ifla(bool connected);				// IFLA_IPOIB_MODE value
bool from_ifla(u16 v, bool &connected);			// false: not 0/1

// The largest MTU `ip link set mtu` may set: 65520 in connected mode, the UD MTU (the
// broadcast group's, RFC 4391 §7) in datagram mode.
u32 max_mtu(bool connected, u32 ud_mtu);
// The MTU right after a switch (as in-tree): connected raises it to kCmMtu (the admin may
// lower it afterwards); datagram returns to the UD MTU, or keeps a smaller one the admin set.
u32 switch_mtu(bool connected, u32 cur, u32 ud_mtu);
// A (re)join of the broadcast group in datagram mode sets the MTU to the group's; in
// connected mode the MTU is the admin's and a join leaves it. False: leave it.
bool join_sets_mtu(bool connected);

// Offloads (KAPI_FEAT_*) an RC connection cannot do: there is no checksum offload or LSO for
// RC sends or receives (IBA defines IP checksum and LSO for UD only), so connected mode drops
// them and datagram mode gives back what the device offers (ndo_fix_features).
inline constexpr u32 kRcUnsupported = KAPI_FEAT_IP_CSUM | KAPI_FEAT_IPV6_CSUM | KAPI_FEAT_HW_CSUM |
				      KAPI_FEAT_RXCSUM | KAPI_FEAT_TSO | KAPI_FEAT_TSO6;
u32 fix_features(u32 features, bool connected);

} // namespace ipoib::mode
