// SPDX-License-Identifier: GPL-2.0
// ipoib_addr.h - IPoIB wire formats as pure logic (no kernel calls, host-compilable, for
// KUnit): the 20-octet link-layer address (RFC 4391 §9.1.1, flags per RFC 4755 §3.1), the
// multicast GID mapping with the P_Key inserted (RFC 4391 §4), the 4-octet encapsulation
// header (RFC 4391 §6), IB MTU enums (RFC 4391 §7), queue-size clamping, link speed, and the
// receive-side classification of UD completions (GRH, self-sent multicast).
#pragma once

#include "kapi.h"
#include "kstd/types.h"

namespace ipoib {

using kstd::u8;
using kstd::u16;
using kstd::u32;
using kstd::u64;
using kstd::usize;

inline constexpr usize kHwAddrLen = 20;	// RFC 4391 §9.1.1
inline constexpr usize kGidLen = 16;
inline constexpr usize kEncapLen = 4;	// RFC 4391 §6
inline constexpr usize kPseudoLen = 20;	// the destination address kept in front of the encap header
inline constexpr usize kHardLen = kPseudoLen + kEncapLen;
inline constexpr usize kGrhLen = 40;	// every UD receive buffer starts with a GRH area (IBA 11.4.1.2)
inline constexpr u32 kMulticastQpn = 0xffffff;
inline constexpr u8 kFlagRc = 0x80;	// RFC 4755 §3.1
inline constexpr u8 kFlagUc = 0x40;

inline constexpr u16 kEthIpv4 = 0x0800;
inline constexpr u16 kEthArp = 0x0806;
inline constexpr u16 kEthIpv6 = 0x86dd;

// Byte helpers (no libc in the core).
bool bytes_equal(const u8 *a, const u8 *b, usize n);
void bytes_copy(u8 *dst, const u8 *src, usize n);

// The 20-octet IPoIB link-layer address: flags | UD QPN (24 bit) | port GID.
struct HwAddr {
	u8 b[kHwAddrLen] = {};

	static HwAddr make(u8 flags, u32 qpn, const u8 *gid);
	static HwAddr from(const u8 *raw);
	u32 qpn() const { return (u32(b[1]) << 16) | (u32(b[2]) << 8) | b[3]; }
	u8 flags() const { return b[0]; }
	const u8 *gid() const { return b + 4; }
	// Multicast addresses carry an MGID (first octet 0xff, RFC 4391 §4).
	bool is_multicast() const { return b[4] == 0xff; }
};

// Broadcast-GID FF1s:401B:PPPP::FFFF:FFFF with the full-membership bit set in the P_Key
// (RFC 4391 §4, §4.1); scope 2 (link-local) by default.
void make_broadcast_mgid(u16 pkey, u8 scope, u8 out[kGidLen]);
// The broadcast hw address: QPN 0xFFFFFF, flags 0, the broadcast GID.
HwAddr make_broadcast_addr(u16 pkey, u8 scope);
// Writes the P_Key (full-member bit forced) into octets 4-5 of an IPoIB MGID (RFC 4391 §4).
void mgid_set_pkey(u8 mgid[kGidLen], u16 pkey);
// True for an IPoIB MGID (ff1x:401b or ff1x:601b signature, RFC 4391 §4).
bool mgid_is_ipoib(const u8 mgid[kGidLen]);
// IPv4 group address (host order) -> MGID (low 28 bits, RFC 4391 §4).
void mgid_from_ipv4(u32 group, u16 pkey, u8 scope, u8 out[kGidLen]);
// IPv6 group address -> MGID (low 80 bits, RFC 4391 §4).
void mgid_from_ipv6(const u8 group[16], u16 pkey, u8 scope, u8 out[kGidLen]);

// A multicast hw address from the netdev's list is one of ours: QPN 0xFFFFFF, an IPoIB MGID
// (signature 401B or 601B) with the broadcast MGID's flags, scope and P_Key (RFC 4391 §4:
// all groups of a link use the broadcast-GID's scope and P_Key).
bool mcast_addr_valid(const u8 addr[kHwAddrLen], const u8 bcast[kHwAddrLen]);

// Encapsulation header (RFC 4391 §6): ethertype, then 16 reserved bits (0 on send).
void encap_write(u8 out[kEncapLen], u16 ethertype);
// Ignores the reserved bits on receive; false when the buffer is too short.
bool encap_parse(const u8 *data, usize len, u16 &ethertype);
inline constexpr u16 kEthRarp = 0x8035;
// Connected mode: must a unicast packet go over UD whatever its peer announces? RFC 4755 §7:
// "all ARP/ND responses MUST be sent in UD packets" (the in-tree driver sends IPv6 ND over
// RC). Arp: ARP or RARP (also the in-tree unicast_arp_send's rule: an ARP reply
// held until the replier's connection is established makes the asker's resolution wait for
// a whole CM exchange, and fail after its 3 probes when 63 setups run at once,
// docs/connected.md §10.3a). Nd: IPv6 whose header's next header is ICMPv6 (58) with type
// 133-137 (RS, RA, NS, NA, Redirect). ND messages carry no extension header in practice
// (RFC 4861 sends them with hop limit 255 straight on ICMPv6); an ICMPv6 behind an extension
// header goes by the normal path. Parsed from encap on, len octets of the linear head only:
// too short to see the type is "not ND" (No), so is anything else. UD carries them as soon
// as the path is known.
enum class UdOnly : u8 { No, Arp, Nd };
inline constexpr u8 kIpProtoIcmpv6 = 58;
inline constexpr usize kIpv6HdrLen = 40;
UdOnly ud_only(const u8 *encap, usize len);

// enum ib_mtu (1..5) -> bytes; 0 for anything else.
u32 ib_mtu_bytes(u32 mtu_enum);
// IPoIB UD MTU = IB MTU - 4 (RFC 4391 §7); 0 when the enum is invalid.
u32 ud_mtu(u32 mtu_enum);

// Queue sizes as the in-tree driver clamps them: round up to a power of two, then into
// [min_size, 8192]. `changed` tells the caller to log one line.
u32 clamp_queue_size(int requested, u32 min_size, bool &changed);
inline constexpr u32 kMaxQueueSize = 8192;

// ethtool speed (Mb/s) from enum ib_port_speed x enum ib_port_width; 0 if unknown.
u32 link_speed_mbps(u32 speed_enum, u32 width_enum);

// What a successful UD receive is, from the completion and the GRH area.
enum class RxKind { Host, Broadcast, Multicast, Self };
struct RxInfo {
	u32 src_qp;
	u32 slid;
	bool has_grh;
	const u8 *grh;	// kGrhLen octets (the start of the buffer)
};
struct RxLocal {
	u32 qpn;
	u32 lid;
	const u8 *gid;
	const u8 *bcast_mgid;
};
// Self-sent multicast (our QPN from our LID, or with a GRH from our GID) is Self: the fabric
// loops multicast back to every attached QP, the sender's own included.
RxKind classify_rx(const RxInfo &rx, const RxLocal &me);

// How much cached fabric state a port event invalidates (the in-tree levels, Linux
// ee1e2c82c245; docs/protocol.md §2.16). Light: path records and multicast memberships may be
// stale (the SA forgot them or the SM moved), the link itself is fine. Normal: the port
// went down/up or our LID changed: take the carrier down and start over. Heavy: the P_Key
// table changed: re-check the interface's P_Key, then as normal if it moved or vanished.
enum class Flush : u8 { None = 0, Light = 1, Normal = 2, Heavy = 3 };
Flush flush_for(kapi_ib_event_kind ev);

} // namespace ipoib
