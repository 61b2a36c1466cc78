// SPDX-License-Identifier: GPL-2.0
// ipoib_cm_wire.cpp - connected-mode wire logic (see ipoib_cm_wire.h). Pure: no kernel calls.
#include "core/cm/ipoib_cm_wire.h"

namespace ipoib::cm {

namespace {

void put_be32(u8 *p, u32 v)
{
	p[0] = u8(v >> 24);
	p[1] = u8(v >> 16);
	p[2] = u8(v >> 8);
	p[3] = u8(v);
}

u32 get_be32(const u8 *p)
{
	return (u32(p[0]) << 24) | (u32(p[1]) << 16) | (u32(p[2]) << 8) | u32(p[3]);
}

constexpr u32 kQpnMask = 0xffffff;
constexpr u64 kSidPrefixMask = 0xff00000000000000ull;

} // namespace

bool is_ud_qpn(u32 qpn)
{
	return qpn <= kQpnMask && qpn > 1 && qpn != kQpnMask;
}

void priv_data_encode(u8 out[kPrivDataLen], const PrivData &pd)
{
	put_be32(out, pd.ud_qpn & kQpnMask);	// §6: reserved octet 0 on send
	put_be32(out + 4, pd.recv_mtu);
}

PrivDataResult priv_data_parse(const u8 *p, usize len, PrivData &out)
{
	if (!p || len < kPrivDataLen)
		return PrivDataResult::Short;
	u32 qpn = get_be32(p) & kQpnMask;	// §6: reserved octet ignored on receive
	u32 mtu = get_be32(p + 4);
	if (!is_ud_qpn(qpn))
		return PrivDataResult::BadQpn;
	if (mtu < kMinRecvMtu)
		return PrivDataResult::MtuTooSmall;
	out.ud_qpn = qpn;
	out.recv_mtu = mtu > kMaxRecvMtu ? kMaxRecvMtu : mtu;
	return PrivDataResult::Ok;
}

void cm_priv_data_encode(u8 out[kCmPrivDataLen], const PrivData &pd, u16 cap_flags)
{
	priv_data_encode(out, pd);
	u8 *c = out + kPrivDataLen;
	put_be32(c, kCapMagic);
	c[4] = kCapVersion;
	c[5] = 0;
	c[6] = u8(cap_flags >> 8);
	c[7] = u8(cap_flags);
}

Caps caps_parse(const u8 *p, usize len)
{
	Caps caps;
	if (!p || len < kCmPrivDataLen)
		return caps;	// absent or truncated (ib_cm zero-fills the rest of the area)
	const u8 *c = p + kPrivDataLen;
	if (get_be32(c) != kCapMagic || c[4] == 0)
		return caps;
	caps.present = true;
	caps.version = c[4];	// > kCapVersion: read as version 1, the rest is not ours to know
	caps.flags = u16((u16(c[6]) << 8) | c[7]) & kCapKnown;
	return caps;
}

bool bidirectional_allowed(const Caps &local, const Caps &peer)
{
	return local.present && peer.present && (local.flags & kCapBidir) && (peer.flags & kCapBidir);
}

bool csum_free_allowed(const Caps &local, const Caps &peer)
{
	return local.present && peer.present && (local.flags & kCapCsumFree) && (peer.flags & kCapCsumFree);
}

void encap_mark_csum(u8 hdr[kEncapLen])
{
	hdr[2] = u8(kEncapCsumMark >> 8);
	hdr[3] = u8(kEncapCsumMark);
}

bool encap_csum_marked(const u8 hdr[kEncapLen])
{
	return hdr[2] == u8(kEncapCsumMark >> 8) && hdr[3] == u8(kEncapCsumMark);
}

RxCsum rx_csum(const u8 hdr[kEncapLen], bool negotiated)
{
	if (!encap_csum_marked(hdr))
		return RxCsum::Verify;
	return negotiated ? RxCsum::Restore : RxCsum::UnexpectedMark;
}

namespace {

constexpr u16 kEtherIpv4 = 0x0800, kEtherIpv6 = 0x86dd;
constexpr u8 kProtoTcp = 6, kProtoUdp = 17;	// IANA protocol numbers
constexpr u32 kIpv4MinHdr = 20, kIpv6Hdr = 40;	// RFC 791 §3.1, RFC 8200 §3

// Where the transport header after the IP header starts (from pkt) and its protocol; false
// when the head does not hold the IP header, or for an IPv4 fragment (RFC 791: MF or a
// fragment offset), or another network protocol.
bool transport_after_ip(const u8 *pkt, u32 headlen, u32 &l4, u8 &proto)
{
	if (headlen < kEncapLen + kIpv4MinHdr)
		return false;
	const u8 *ip = pkt + kEncapLen;
	const u16 type = u16(pkt[0] << 8 | pkt[1]);
	if (type == kEtherIpv4 && ip[0] >> 4 == 4) {
		const u32 ihl = u32(ip[0] & 15) * 4;
		if (ihl < kIpv4MinHdr || headlen < kEncapLen + ihl || (ip[6] & 0x3f) || ip[7])
			return false;
		l4 = kEncapLen + ihl;
		proto = ip[9];
		return true;
	}
	if (type == kEtherIpv6 && ip[0] >> 4 == 6 && headlen >= kEncapLen + kIpv6Hdr) {
		l4 = kEncapLen + kIpv6Hdr;
		proto = ip[6];	// next header: an extension header is not TCP/UDP, so filled
		return true;
	}
	return false;
}

} // namespace

TxCsum tx_csum(bool partial, u32 csum_start, u16 csum_offset, const u8 *pkt, u32 headlen, bool negotiated)
{
	if (!partial)
		return TxCsum::AsIs;
	u32 l4 = 0;
	u8 proto = 0;
	if (!negotiated || !transport_after_ip(pkt, headlen, l4, proto) || csum_start != l4)
		return TxCsum::Fill;
	if ((proto == kProtoTcp && csum_offset == kTcpCsumOffset) || (proto == kProtoUdp && csum_offset == kUdpCsumOffset))
		return TxCsum::Mark;
	return TxCsum::Fill;
}

void encap_set_csum(u8 hdr[kEncapLen], TxCsum how)
{
	if (how == TxCsum::Mark) {
		encap_mark_csum(hdr);
		return;
	}
	hdr[2] = 0;
	hdr[3] = 0;
}

u64 service_id(SidKind kind, u32 ud_qpn)
{
	return (kind == SidKind::Linux ? kSidLinux : kSidRfc) | (ud_qpn & kQpnMask);
}

bool connect_service_id(usize attempt, u32 ud_qpn, u64 &sid)
{
	if (attempt >= kConnectAttempts || !is_ud_qpn(ud_qpn))
		return false;
	sid = service_id(attempt == 0 ? SidKind::Linux : SidKind::Rfc, ud_qpn);
	return true;
}

bool service_id_parse(u64 sid, SidKind &kind, u32 &ud_qpn)
{
	u64 prefix = sid & kSidPrefixMask;
	if (prefix != kSidLinux && prefix != kSidRfc)
		return false;
	if (sid & ~kSidPrefixMask & ~u64(kQpnMask))	// §3.5: Type and Reserved are 0
		return false;
	u32 qpn = u32(sid & kQpnMask);
	if (!is_ud_qpn(qpn))
		return false;
	kind = prefix == kSidLinux ? SidKind::Linux : SidKind::Rfc;
	ud_qpn = qpn;
	return true;
}

u32 connection_mtu(u32 local_recv_mtu, u32 peer_recv_mtu)
{
	u32 m = local_recv_mtu < peer_recv_mtu ? local_recv_mtu : peer_recv_mtu;	// §5.1
	return m > kEncapLen ? m - u32(kEncapLen) : 0;
}

Survivor crossing_req_survivor(const u8 local[kHwAddrLen], const u8 remote[kHwAddrLen])
{
	// §3.3: octet 0 holds the flags (RFC 4755 §3.1) and is compared as zero.
	for (usize i = 1; i < kHwAddrLen; i++) {
		if (local[i] != remote[i])
			return local[i] < remote[i] ? Survivor::Remote : Survivor::Local;
	}
	return Survivor::Local;	// same address (a REQ to ourselves): not smaller, reject it
}

RejCode rej_code(u32 reason)
{
	switch (reason) {
	case 1: return RejCode::NoQp;
	case 2: return RejCode::NoEec;
	case 3: return RejCode::NoResources;
	case 5: return RejCode::Unsupported;
	case 8: return RejCode::InvalidServiceId;
	case 26: return RejCode::InvalidMtu;
	case 28: return RejCode::Consumer;
	default: return RejCode::Other;
	}
}

void ident_encode(u8 out[kIdentLen], const IdentMsg &m)
{
	put_be32(out, kCapMagic);
	out[4] = kCapVersion;
	out[5] = u8(m.type);
	out[6] = 0;
	out[7] = 0;
	put_be32(out + 8, u32(m.nonce >> 32));
	put_be32(out + 12, u32(m.nonce));
	put_be32(out + 16, m.qpn & kQpnMask);
	for (usize i = 0; i < 16; i++)
		out[20 + i] = m.gid[i];
}

bool ident_parse(const u8 *p, usize len, IdentMsg &out)
{
	if (!p || len < kIdentLen || get_be32(p) != kCapMagic || p[4] == 0)
		return false;
	if (p[5] != u8(IdentType::Probe) && p[5] != u8(IdentType::Echo))
		return false;
	const u32 qpn = get_be32(p + 16) & kQpnMask;
	if (qpn <= 1)
		return false;
	out.type = IdentType(p[5]);
	out.nonce = (u64(get_be32(p + 8)) << 32) | get_be32(p + 12);
	out.qpn = qpn;
	for (usize i = 0; i < 16; i++)
		out.gid[i] = p[20 + i];
	return true;
}

} // namespace ipoib::cm
