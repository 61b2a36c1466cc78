// SPDX-License-Identifier: GPL-2.0
// ipoib_mode.cpp - the admin mode's spellings, MTU rule and offload rule (ipoib_mode.h).
#include "core/netdev/ipoib_mode.h"

namespace ipoib::mode {

namespace {
constexpr StrView kDatagram("datagram", 8);
constexpr StrView kConnected("connected", 9);
} // namespace

bool parse(StrView v, bool &connected)
{
	if (v == kDatagram) {
		connected = false;
		return true;
	}
	if (v == kConnected) {
		connected = true;
		return true;
	}
	return false;
}

const char *name(bool connected) { return connected ? "connected" : "datagram"; }

u16 ifla(bool connected) { return connected ? KAPI_IPOIB_MODE_CONNECTED : KAPI_IPOIB_MODE_DATAGRAM; }

bool from_ifla(u16 v, bool &connected)
{
	if (v != KAPI_IPOIB_MODE_DATAGRAM && v != KAPI_IPOIB_MODE_CONNECTED)
		return false;
	connected = v == KAPI_IPOIB_MODE_CONNECTED;
	return true;
}

u32 max_mtu(bool connected, u32 ud_mtu) { return connected ? kCmMtu : ud_mtu; }

u32 switch_mtu(bool connected, u32 cur, u32 ud_mtu)
{
	if (connected)
		return kCmMtu;
	return cur < ud_mtu ? cur : ud_mtu;
}

bool join_sets_mtu(bool connected) { return !connected; }

u32 fix_features(u32 features, bool connected, bool csum_free)
{
	u32 out = features & ~kNeverOffered & ~KAPI_FEAT_RXCSUM;
	if (!connected)
		return out & ~(KAPI_FEAT_SG | kCsumFeatures);
	if (!csum_free)
		return out & ~kCsumFeatures;
	return out | KAPI_FEAT_RXCSUM;
}

} // namespace ipoib::mode
