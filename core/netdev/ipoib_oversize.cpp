// SPDX-License-Identifier: GPL-2.0
// ipoib_oversize.cpp - the verdict for a packet above its path's MTU (ipoib_oversize.h).
#include "core/netdev/ipoib_oversize.h"
#include "core/ipoib_addr.h"

namespace ipoib {

namespace {
constexpr u32 kIpv4MinHdr = 20;		// RFC 791 §3.1
constexpr u32 kIpv4FragOff = 6;		// flags + fragment offset, big endian
constexpr u8 kIpv4Df = 0x40;		// Don't Fragment, the top bits of octet 6
constexpr u32 kIpv6Hdr = 40;		// RFC 8200 §3
} // namespace

Oversize oversize(const u8 *pkt, u32 len, bool multicast, bool local, u32 mtu)
{
	if (len <= mtu + kEncapLen)
		return Oversize::Fits;
	if (multicast)
		return Oversize::DropMcast;
	u16 type = 0;
	if (!encap_parse(pkt, len, type))
		return Oversize::Drop;
	const u8 *ip = pkt + kEncapLen;
	const u32 iplen = len - u32(kEncapLen);
	if (type == kEthIpv4) {
		if (iplen < kIpv4MinHdr || (ip[0] >> 4) != 4)
			return Oversize::Drop;
		// A forwarded packet without DF may be fragmented but never answered with
		// frag-needed (RFC 1191 §4, RFC 1812 §5.2.6): not fragmenting, we drop it.
		return (ip[kIpv4FragOff] & kIpv4Df) || local ? Oversize::FragNeeded : Oversize::Drop;
	}
	if (type == kEthIpv6) {
		if (iplen < kIpv6Hdr || (ip[0] >> 4) != 6)
			return Oversize::Drop;
		return mtu >= kIpv6MinMtu ? Oversize::PktTooBig : Oversize::Drop;
	}
	return Oversize::Drop;
}

} // namespace ipoib
