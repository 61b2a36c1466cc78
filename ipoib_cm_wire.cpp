// SPDX-License-Identifier: GPL-2.0
// ipoib_cm_wire.cpp - connected-mode wire logic (see ipoib_cm_wire.h). Pure: no kernel calls.
#include "ipoib_cm_wire.h"

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

TxCsum tx_csum(bool partial, u16 csum_offset, bool negotiated)
{
	if (!partial)
		return TxCsum::AsIs;
	if (negotiated && (csum_offset == kTcpCsumOffset || csum_offset == kUdpCsumOffset))
		return TxCsum::Mark;
	return TxCsum::Fill;
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

} // namespace ipoib::cm
