// SPDX-License-Identifier: GPL-2.0
// test_fuzz.cpp - the parsers of bytes a peer controls, fed random and mutated inputs:
// RFC 4755 §6 private data and the capability block (priv_data_parse, caps_parse), the
// identity message (ident_parse), the RFC 4391 §6 encapsulation header and the ARP/ND
// classification behind it (encap_parse, ud_only), and the IP header reads of the send
// path (oversize, tx_csum). Each input lives in a heap buffer of exactly its length, so
// ASan reports any read past its end (or before its start); each parse result is checked
// against the octets it came from. Host only: a million inputs per parser run in about a
// second under ASan/UBSan, far too many for the KUnit VM.
#include "ktest.h"
#include "core/ipoib_addr.h"
#include "core/cm/ipoib_cm_wire.h"
#include "core/netdev/ipoib_oversize.h"

namespace ktest_fuzz {

using namespace ipoib::cm;
using ipoib::kEncapLen;
using kstd::u16;
using kstd::u32;
using kstd::u64;
using kstd::u8;
using kstd::usize;

constexpr u32 kRounds = 1000000;
constexpr usize kMaxLen = 96;	// longer than every fixed layout read here (IPv6 + ICMPv6 type: 45)

// splitmix64: a fixed seed per suite, so a failure reproduces.
struct Rng {
	u64 s;
	u64 next()
	{
		u64 z = (s += 0x9e3779b97f4a7c15ull);
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
		return z ^ (z >> 31);
	}
	u32 below(u32 n) { return u32(next() % n); }
};

// One heap buffer per length 0..kMaxLen, each exactly that long (length 0: no buffer, the
// parser gets NULL as its callers may pass).
struct Buffers {
	u8 *b[kMaxLen + 1] = {};
	bool ok = true;
	Buffers()
	{
		for (usize n = 1; n <= kMaxLen; n++) {
			b[n] = static_cast<u8 *>(kapi_kmalloc(n, 0));
			ok = ok && b[n];
		}
	}
	~Buffers()
	{
		for (usize n = 1; n <= kMaxLen; n++)
			kapi_kfree(b[n]);
	}
	Buffers(const Buffers &) = delete;
	Buffers &operator=(const Buffers &) = delete;
};

// The next input: half random (any length, random octets), half a valid message `seed`
// mutated (bit flips, octets set to random or boundary values, truncated or extended).
struct Input {
	const u8 *p;
	usize len;
};
Input make_input(Rng &r, Buffers &bufs, const u8 *seed, usize seed_len)
{
	static const u8 edge[] = {0x00, 0x01, 0x7f, 0x80, 0xfe, 0xff};
	u8 tmp[kMaxLen];
	usize len;
	if (r.below(2) == 0) {
		len = r.below(kMaxLen + 1);
		for (usize i = 0; i < len; i += 8) {
			u64 v = r.next();
			for (usize j = i; j < len && j < i + 8; j++, v >>= 8)
				tmp[j] = u8(v);
		}
	} else {
		len = seed_len;
		for (usize i = 0; i < len; i++)
			tmp[i] = seed[i];
		for (u32 m = 1 + r.below(4); m; m--) {
			switch (r.below(5)) {
			case 0: if (len) tmp[r.below(u32(len))] ^= u8(1u << r.below(8)); break;
			case 1: if (len) tmp[r.below(u32(len))] = u8(r.next()); break;
			case 2: if (len) tmp[r.below(u32(len))] = edge[r.below(sizeof(edge))]; break;
			case 3: len = r.below(u32(len) + 1); break;	// truncate, the common hostile case
			default:
				for (usize n = r.below(9); n && len < kMaxLen; n--)
					tmp[len++] = u8(r.next());
			}
		}
	}
	u8 *p = len ? bufs.b[len] : nullptr;
	for (usize i = 0; i < len; i++)
		p[i] = tmp[i];
	return {p, len};
}

u32 be32(const u8 *p) { return u32(p[0]) << 24 | u32(p[1]) << 16 | u32(p[2]) << 8 | p[3]; }

// A mismatch between a parse and its input: counted, the first one reported with its round.
struct Verdict {
	u32 bad = 0, first = 0;
	const char *what = nullptr;
	void fail(u32 round, const char *w)
	{
		if (!bad++) {
			first = round;
			what = w;
		}
	}
};
void report(ktest_ctx *kt, const Verdict &v)
{
	if (v.bad)
		ktest_fail(kt, __FILE__, __LINE__, v.what);
	EXPECT_EQ(v.bad, 0u);
	EXPECT_EQ(v.first, 0u);
}

KTEST(fuzz, priv_data)
{
	Buffers bufs;
	ASSERT_TRUE(bufs.ok);
	u8 seed[kCmPrivDataLen + 4];
	cm_priv_data_encode(seed, PrivData{0x001234, kMaxRecvMtu}, kCapKnown);
	seed[kCmPrivDataLen] = seed[kCmPrivDataLen + 1] = seed[kCmPrivDataLen + 2] = seed[kCmPrivDataLen + 3] = 0;
	Rng r{0x5eed0001};
	Verdict v;
	for (u32 i = 0; i < kRounds; i++) {
		Input in = make_input(r, bufs, seed, r.below(2) ? kCmPrivDataLen : sizeof(seed));
		PrivData pd;
		PrivDataResult res = priv_data_parse(in.p, in.len, pd);
		if ((res == PrivDataResult::Short) != (in.len < kPrivDataLen))
			v.fail(i, "priv_data_parse: Short iff fewer than 8 octets");
		if (res == PrivDataResult::Ok) {
			u32 mtu = be32(in.p + 4);
			if (pd.ud_qpn != (be32(in.p) & 0xffffff) || !is_ud_qpn(pd.ud_qpn) ||
			    pd.recv_mtu != (mtu > kMaxRecvMtu ? kMaxRecvMtu : mtu) || pd.recv_mtu < kMinRecvMtu)
				v.fail(i, "priv_data_parse: Ok with fields not from the octets");
		}
		Caps c = caps_parse(in.p, in.len);
		if (c.present != (in.len >= kCmPrivDataLen && be32(in.p + 8) == kCapMagic && in.p[12] != 0))
			v.fail(i, "caps_parse: present iff 16 octets, the magic and a version");
		if ((c.flags & ~kCapKnown) || (!c.present && (c.flags || c.version)))
			v.fail(i, "caps_parse: unknown flags kept, or flags without a block");
	}
	report(kt, v);
}

KTEST(fuzz, ident)
{
	Buffers bufs;
	ASSERT_TRUE(bufs.ok);
	IdentMsg m;
	m.type = IdentType::Echo;
	m.nonce = 0x0123456789abcdefull;
	m.qpn = 0xabcdef;
	for (usize i = 0; i < 16; i++)
		m.gid[i] = u8(0xfe - i);
	u8 seed[kIdentLen];
	ident_encode(seed, m);
	Rng r{0x5eed0002};
	Verdict v;
	for (u32 i = 0; i < kRounds; i++) {
		Input in = make_input(r, bufs, seed, sizeof(seed));
		IdentMsg out;
		if (!ident_parse(in.p, in.len, out))
			continue;
		if (in.len < kIdentLen || be32(in.p) != kCapMagic || in.p[4] == 0) {
			v.fail(i, "ident_parse: accepted a short message, another magic or version 0");
			continue;
		}
		u8 back[kIdentLen];
		ident_encode(back, out);
		// everything but the version and the reserved octets (4, 6, 7, 16) round-trips
		for (usize k = 0; k < kIdentLen; k++)
			if (k != 4 && k != 6 && k != 7 && k != 16 && back[k] != in.p[k])
				v.fail(i, "ident_parse: a field not from its octets");
		if (out.qpn <= 1 || out.qpn > 0xffffff)
			v.fail(i, "ident_parse: QPN 0/1 or beyond 24 bits");
	}
	report(kt, v);
}

// An IPv6 neighbour solicitation (ICMPv6 type 135) behind the encapsulation header, and an
// ARP request: the seeds of the header fuzz.
void nd_seed(u8 *s, usize len)
{
	for (usize i = 0; i < len; i++)
		s[i] = 0;
	ipoib::encap_write(s, ipoib::kEthIpv6);
	s[4] = 0x60;
	s[4 + 6] = ipoib::kIpProtoIcmpv6;
	s[4 + 7] = 255;
	s[4 + ipoib::kIpv6HdrLen] = 135;
}

KTEST(fuzz, encap_arp_nd)
{
	Buffers bufs;
	ASSERT_TRUE(bufs.ok);
	u8 nd[4 + 40 + 24];
	nd_seed(nd, sizeof(nd));
	u8 arp[4 + 28 + 2 * 20] = {};
	ipoib::encap_write(arp, ipoib::kEthArp);
	arp[4 + 1] = 32;	// ARPHRD_INFINIBAND, RFC 4391 §9.1
	arp[4 + 2] = 0x08;
	arp[4 + 4] = 20;
	arp[4 + 5] = 4;
	arp[4 + 7] = 1;
	Rng r{0x5eed0003};
	Verdict v;
	for (u32 i = 0; i < kRounds; i++) {
		Input in = r.below(2) ? make_input(r, bufs, nd, sizeof(nd)) : make_input(r, bufs, arp, sizeof(arp));
		u16 type = 0;
		bool ok = ipoib::encap_parse(in.p, in.len, type);
		if (ok != (in.len >= kEncapLen) || (ok && type != u16(in.p[0] << 8 | in.p[1])))
			v.fail(i, "encap_parse: not the first two octets of a 4-octet header");
		ipoib::UdOnly u = ipoib::ud_only(in.p, in.len);
		if (u == ipoib::UdOnly::Arp && !(ok && (type == ipoib::kEthArp || type == ipoib::kEthRarp)))
			v.fail(i, "ud_only: Arp for another ethertype");
		if (u == ipoib::UdOnly::Nd &&
		    !(in.len >= 45 && type == ipoib::kEthIpv6 && in.p[4 + 6] == 58 && in.p[44] >= 133 && in.p[44] <= 137))
			v.fail(i, "ud_only: Nd without an ICMPv6 ND type in the octets");
	}
	report(kt, v);
}

KTEST(fuzz, ip_headers)
{
	Buffers bufs;
	ASSERT_TRUE(bufs.ok);
	u8 v6[4 + 40 + 20];
	nd_seed(v6, sizeof(v6));
	v6[4 + 6] = 6;	// TCP
	u8 v4[4 + 20 + 20] = {};
	ipoib::encap_write(v4, ipoib::kEthIpv4);
	v4[4] = 0x45;
	v4[4 + 6] = 0x40;	// DF
	v4[4 + 9] = 17;	// UDP
	Rng r{0x5eed0004};
	Verdict v;
	for (u32 i = 0; i < kRounds; i++) {
		Input in = r.below(2) ? make_input(r, bufs, v6, sizeof(v6)) : make_input(r, bufs, v4, sizeof(v4));
		// oversize() reads only below len (its callers keep kOversizeHead linear)
		u32 mtu = r.below(2) ? 0 : r.below(u32(kMaxLen));
		ipoib::Oversize o = ipoib::oversize(in.p, u32(in.len), r.below(8) == 0, r.below(2) == 0, mtu);
		if (o == ipoib::Oversize::Fits && in.len > mtu + kEncapLen)
			v.fail(i, "oversize: Fits beyond the MTU");
		u32 start = r.below(2) ? r.below(u32(kMaxLen)) : (in.len > 4 && (in.p[4] >> 4) == 4 ? 4 + (in.p[4] & 15) * 4 : 44);
		u16 off = r.below(2) ? kTcpCsumOffset : kUdpCsumOffset;
		TxCsum t = tx_csum(true, start, off, in.p, u32(in.len), true);
		if (t == TxCsum::Mark && (start > in.len || in.len < 24))
			v.fail(i, "tx_csum: marked with the transport header beyond the head");
		if (tx_csum(true, start, off, in.p, u32(in.len), false) != TxCsum::Fill)
			v.fail(i, "tx_csum: not filled towards a peer that did not negotiate");
	}
	report(kt, v);
}

KTEST(fuzz, service_id)
{
	Rng r{0x5eed0005};
	Verdict v;
	for (u32 i = 0; i < kRounds; i++) {
		u64 sid = r.next();
		switch (r.below(4)) {
		case 0: sid = kSidLinux | (sid & 0xffffff); break;
		case 1: sid = kSidRfc | (sid & 0xffffff); break;
		case 2: sid = (kSidRfc | (sid & 0xffffff)) ^ (1ull << r.below(64)); break;
		default: break;
		}
		SidKind k;
		u32 qpn = 0;
		if (service_id_parse(sid, k, qpn) && (service_id(k, qpn) != sid || !is_ud_qpn(qpn)))
			v.fail(i, "service_id_parse: accepted an ID it does not encode back to");
	}
	report(kt, v);
}

KTEST_SUITE(fuzz, KTEST_CASE(fuzz, priv_data), KTEST_CASE(fuzz, ident), KTEST_CASE(fuzz, encap_arp_nd),
	    KTEST_CASE(fuzz, ip_headers), KTEST_CASE(fuzz, service_id));

} // namespace ktest_fuzz
