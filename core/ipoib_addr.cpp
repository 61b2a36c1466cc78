// SPDX-License-Identifier: GPL-2.0
// ipoib_addr.cpp - see ipoib_addr.h. Pure: no kernel calls, no allocation, no logging.
#include "core/ipoib_addr.h"
#include "kstd/bits.h"

namespace ipoib {

bool bytes_equal(const u8 *a, const u8 *b, usize n)
{
	for (usize i = 0; i < n; i++)
		if (a[i] != b[i])
			return false;
	return true;
}

void bytes_copy(u8 *dst, const u8 *src, usize n)
{
	for (usize i = 0; i < n; i++)
		dst[i] = src[i];
}

namespace {

// Common prefix of every IPoIB MGID: FF | 0001 scope | signature | P_Key (RFC 4391 §4).
void mgid_prefix(u8 out[kGidLen], u8 scope, u16 signature, u16 pkey)
{
	for (usize i = 0; i < kGidLen; i++)
		out[i] = 0;
	out[0] = 0xff;
	out[1] = u8(0x10 | (scope & 0x0f));	// T flag set (transient), scope nibble
	out[2] = u8(signature >> 8);
	out[3] = u8(signature);
	mgid_set_pkey(out, pkey);
}

} // namespace

HwAddr HwAddr::make(u8 flags, u32 qpn, const u8 *gid)
{
	HwAddr a;
	a.b[0] = flags;
	a.b[1] = u8(qpn >> 16);
	a.b[2] = u8(qpn >> 8);
	a.b[3] = u8(qpn);
	bytes_copy(a.b + 4, gid, kGidLen);
	return a;
}

HwAddr HwAddr::from(const u8 *raw)
{
	HwAddr a;
	bytes_copy(a.b, raw, kHwAddrLen);
	return a;
}

void mgid_set_pkey(u8 mgid[kGidLen], u16 pkey)
{
	pkey |= 0x8000;
	mgid[4] = u8(pkey >> 8);
	mgid[5] = u8(pkey);
}

void make_broadcast_mgid(u16 pkey, u8 scope, u8 out[kGidLen])
{
	mgid_prefix(out, scope, 0x401b, pkey);
	out[12] = out[13] = out[14] = out[15] = 0xff;
}

HwAddr make_broadcast_addr(u16 pkey, u8 scope)
{
	u8 mgid[kGidLen];
	make_broadcast_mgid(pkey, scope, mgid);
	return HwAddr::make(0, kMulticastQpn, mgid);
}

bool mgid_is_ipoib(const u8 m[kGidLen])
{
	return m[0] == 0xff && (m[1] & 0xf0) == 0x10 && (m[2] == 0x40 || m[2] == 0x60) && m[3] == 0x1b;
}

void mgid_from_ipv4(u32 group, u16 pkey, u8 scope, u8 out[kGidLen])
{
	mgid_prefix(out, scope, 0x401b, pkey);
	out[12] = u8((group >> 24) & 0x0f);
	out[13] = u8(group >> 16);
	out[14] = u8(group >> 8);
	out[15] = u8(group);
}

void mgid_from_ipv6(const u8 group[16], u16 pkey, u8 scope, u8 out[kGidLen])
{
	mgid_prefix(out, scope, 0x601b, pkey);
	bytes_copy(out + 6, group + 6, 10);
}

bool mcast_addr_valid(const u8 a[kHwAddrLen], const u8 b[kHwAddrLen])
{
	HwAddr addr = HwAddr::from(a);
	const u8 *m = a + 4;
	const u8 *bm = b + 4;
	return addr.qpn() == kMulticastQpn && mgid_is_ipoib(m) && m[1] == bm[1] && m[4] == bm[4] && m[5] == bm[5];
}

void encap_write(u8 out[kEncapLen], u16 ethertype)
{
	out[0] = u8(ethertype >> 8);
	out[1] = u8(ethertype);
	out[2] = 0;
	out[3] = 0;
}

bool encap_parse(const u8 *data, usize len, u16 &ethertype)
{
	if (len < kEncapLen)
		return false;
	ethertype = u16((u16(data[0]) << 8) | data[1]);
	return true;
}

UdOnly ud_only(const u8 *encap, usize len)
{
	u16 type = 0;
	if (!encap_parse(encap, len, type))
		return UdOnly::No;
	if (type == kEthArp || type == kEthRarp)
		return UdOnly::Arp;
	if (type != kEthIpv6 || len < kEncapLen + kIpv6HdrLen + 1)
		return UdOnly::No;
	const u8 *ip6 = encap + kEncapLen;
	const u8 icmp_type = ip6[kIpv6HdrLen];
	const bool nd = (ip6[0] >> 4) == 6 && ip6[6] == kIpProtoIcmpv6 && icmp_type >= 133 && icmp_type <= 137;
	return nd ? UdOnly::Nd : UdOnly::No;
}

u32 ib_mtu_bytes(u32 e)
{
	return (e >= KAPI_IB_MTU_256 && e <= KAPI_IB_MTU_4096) ? (128u << e) : 0;
}

u32 ud_mtu(u32 e)
{
	u32 b = ib_mtu_bytes(e);
	return b ? b - kEncapLen : 0;
}

u32 clamp_queue_size(int requested, u32 min_size, bool &changed)
{
	u32 v = requested < 1 ? 1u : u32(requested);
	if (v > kMaxQueueSize)
		v = kMaxQueueSize;
	u32 p = u32(kstd::round_up_pow2(v));	// v <= kMaxQueueSize: no narrowing loss
	if (p < min_size)
		p = min_size;
	changed = requested < 0 || u32(requested) != p;
	return p;
}

u32 link_speed_mbps(u32 speed, u32 width)
{
	u32 lane;
	switch (speed) {
	case KAPI_IB_SPEED_SDR: lane = 2500; break;
	case KAPI_IB_SPEED_DDR: lane = 5000; break;
	case KAPI_IB_SPEED_QDR:
	case KAPI_IB_SPEED_FDR10: lane = 10000; break;
	case KAPI_IB_SPEED_FDR: lane = 14000; break;
	case KAPI_IB_SPEED_EDR: lane = 25000; break;
	case KAPI_IB_SPEED_HDR: lane = 50000; break;
	case KAPI_IB_SPEED_NDR: lane = 100000; break;
	default: return 0;
	}
	u32 lanes;
	switch (width) {
	case KAPI_IB_WIDTH_1X: lanes = 1; break;
	case KAPI_IB_WIDTH_4X: lanes = 4; break;
	case KAPI_IB_WIDTH_8X: lanes = 8; break;
	case KAPI_IB_WIDTH_12X: lanes = 12; break;
	case KAPI_IB_WIDTH_2X: lanes = 2; break;
	default: return 0;
	}
	return lane * lanes;
}

RxKind classify_rx(const RxInfo &rx, const RxLocal &me)
{
	// GRH layout: 8 octets of version/class/flow/length/next/hop, SGID at 8, DGID at 24.
	const u8 *sgid = rx.has_grh ? rx.grh + 8 : nullptr;
	const u8 *dgid = rx.has_grh ? rx.grh + 24 : nullptr;
	if (rx.src_qp == me.qpn && (rx.slid == me.lid || (sgid && bytes_equal(sgid, me.gid, kGidLen))))
		return RxKind::Self;
	if (!dgid || dgid[0] != 0xff)
		return RxKind::Host;
	return bytes_equal(dgid, me.bcast_mgid, kGidLen) ? RxKind::Broadcast : RxKind::Multicast;
}

Flush flush_for(kapi_ib_event_kind ev)
{
	switch (ev) {
	case KAPI_EV_CLIENT_REREGISTER:	// SA restarted/reconfigured: rejoin, re-query
	case KAPI_EV_GID_CHANGE:
	case KAPI_EV_SM_CHANGE:		// a new master SM may not know our groups (IBA 14.4.11)
		return Flush::Light;
	case KAPI_EV_PORT_ACTIVE:
	case KAPI_EV_PORT_ERR:
	case KAPI_EV_LID_CHANGE:
		return Flush::Normal;
	case KAPI_EV_PKEY_CHANGE:
		return Flush::Heavy;
	case KAPI_EV_OTHER:
		break;
	}
	return Flush::None;
}

} // namespace ipoib
