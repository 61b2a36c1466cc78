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

// Offloads (KAPI_FEAT_*). The HCA offers none for RC (IBA defines IP checksum and LSO for UD
// only), and we ask none of it for UD either, so what the netdev may show is what the driver
// itself does (docs/connected.md §9a):
// - SG: connected mode posts an skb's head and page fragments as separate SGEs
//   (RcTxRing::post); datagram mode would only linearize what the stack would, so it is off.
// - IP/IPv6 checksum: connected mode with cm_csum_free=1. Towards a peer that negotiated
//   kCapCsumFree a CHECKSUM_PARTIAL TCP/UDP packet goes out unfilled and marked (the RC
//   transport's ICRC/VCRC cover it on the wire, IBA 7.8); every other path fills it with
//   skb_checksum_help before posting. HW_CSUM is never offered: only TCP/UDP over IPv4/IPv6
//   can be restored by the receiver.
// - RXCSUM: on ("fixed") exactly when marked packets may arrive (connected, cm_csum_free=1):
//   those go up CHECKSUM_PARTIAL, trusted from the RC transport's CRCs, not verified.
// - TSO/TSO6: never (the stack's GSO segments for us).
inline constexpr u32 kOffered = KAPI_FEAT_SG | KAPI_FEAT_IP_CSUM | KAPI_FEAT_IPV6_CSUM;	// hw_features
inline constexpr u32 kNeverOffered = KAPI_FEAT_HW_CSUM | KAPI_FEAT_TSO | KAPI_FEAT_TSO6;
inline constexpr u32 kCsumFeatures = KAPI_FEAT_IP_CSUM | KAPI_FEAT_IPV6_CSUM;
u32 fix_features(u32 features, bool connected, bool csum_free);

} // namespace ipoib::mode
