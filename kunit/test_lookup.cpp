// SPDX-License-Identifier: GPL-2.0
// test_lookup.cpp - rdma_cm's netdev lookup rule (ipoib_lookup.h, behind the ib_client's
// get_net_dev_by_params): P_Key matching on the 15-bit base (IBA 10.9.3), the GID check,
// a unique L2 match wins whatever its addresses (its master if enslaved), an ambiguous one
// is decided by the address (on the device or an upper device), duplicates keep the first,
// and every reference taken is either returned or dropped.
#include "ktest.h"
#include "ipoib_lookup.h"

namespace ktest_lookup {

using namespace ipoib;

constexpr u8 kGidA[kGidLen] = {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01};
constexpr u8 kGidB[kGidLen] = {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02};

// A netdev as the rule sees it: P_Key, GID, whether it has the address, its master and an
// upper device that may have the address instead; refs counts references the rule holds.
struct FakeNd {
	u16 pkey = 0xffff;
	const u8 *gid = kGidA;
	bool has_addr = false;
	FakeNd *master = nullptr;
	FakeNd *upper = nullptr;
	int refs = 0;
};

struct Port {
	FakeNd *nds[4] = {};
	u32 n = 0;
	u32 walks = 0;	// how many times the rule walked the port
};

NetdevPick<FakeNd> pick(Port &port, u16 pkey, const u8 *gid)
{
	const NetdevQuery q{pkey, gid};
	return pick_netdev<FakeNd>(
		q,
		[&](auto &&visit) {
			port.walks++;
			for (u32 i = 0; i < port.n; i++)
				visit(port.nds[i]->pkey, port.nds[i]->gid, port.nds[i]);
		},
		[](FakeNd *nd) {
			FakeNd *d = nd->master ? nd->master : nd;
			d->refs++;
			return d;
		},
		[](FakeNd *nd) -> FakeNd * {
			FakeNd *d = nd->has_addr ? nd : (nd->upper && nd->upper->has_addr ? nd->upper : nullptr);
			if (d)
				d->refs++;
			return d;
		},
		[](FakeNd *nd) { nd->refs--; });
}

KTEST(lookup_pkey, base_value_decides)
{
	EXPECT_TRUE(pkey_matches(0xffff, 0xffff));
	EXPECT_TRUE(pkey_matches(0xffff, 0x7fff));	// limited member of the default partition
	EXPECT_TRUE(pkey_matches(0x8001, 0x0001));
	EXPECT_FALSE(pkey_matches(0x8001, 0x8002));
	EXPECT_FALSE(pkey_matches(0xffff, 0x8001));
	EXPECT_FALSE(pkey_matches(0x0000, 0x8001));
}

KTEST(lookup_pkey, gid_optional_but_exact)
{
	const NetdevQuery any{0xffff, nullptr};
	const NetdevQuery a{0xffff, kGidA};
	EXPECT_TRUE(any.l2_matches(0xffff, kGidB));
	EXPECT_TRUE(a.l2_matches(0x7fff, kGidA));
	EXPECT_FALSE(a.l2_matches(0xffff, kGidB));
	EXPECT_FALSE(a.l2_matches(0x8001, kGidA));
	u8 last_differs[kGidLen];
	for (usize i = 0; i < kGidLen; i++)
		last_differs[i] = kGidA[i];
	last_differs[kGidLen - 1] ^= 0x80;
	EXPECT_FALSE(a.l2_matches(0xffff, last_differs));
}

KTEST(lookup_pick, nothing_on_the_port)
{
	Port port;
	auto r = pick(port, 0xffff, kGidA);
	EXPECT_NULL(r.nd);
	EXPECT_EQ(r.l2_matches, 0u);
	EXPECT_EQ(port.walks, 1u);
}

KTEST(lookup_pick, wrong_pkey_or_gid_is_not_ours)
{
	FakeNd a;
	a.pkey = 0x8001;
	a.has_addr = true;
	Port port{{&a}, 1};
	auto r = pick(port, 0xffff, kGidA);
	EXPECT_NULL(r.nd);
	r = pick(port, 0x8001, kGidB);
	EXPECT_NULL(r.nd);
	EXPECT_EQ(a.refs, 0);
}

KTEST(lookup_pick, unique_l2_match_wins_without_address)
{
	FakeNd a;	// no address: ib_ipoib returns a unique L2 match as is; rdma_cm checks the route
	FakeNd other;
	other.pkey = 0x8001;
	other.has_addr = true;
	Port port{{&other, &a}, 2};
	auto r = pick(port, 0xffff, kGidA);
	EXPECT_EQ(r.nd, &a);
	EXPECT_EQ(r.l2_matches, 1u);
	EXPECT_EQ(a.refs, 1);
	EXPECT_EQ(other.refs, 0);
	EXPECT_EQ(port.walks, 1u);	// no address pass
	r = pick(port, 0xffff, nullptr);	// no GID in the request: same answer
	EXPECT_EQ(r.nd, &a);
	EXPECT_EQ(a.refs, 2);
}

KTEST(lookup_pick, unique_match_returns_its_master)
{
	FakeNd bond;
	FakeNd a;
	a.master = &bond;
	Port port{{&a}, 1};
	auto r = pick(port, 0xffff, kGidA);
	EXPECT_EQ(r.nd, &bond);
	EXPECT_EQ(bond.refs, 1);
	EXPECT_EQ(a.refs, 0);
}

KTEST(lookup_pick, ambiguous_l2_address_decides)
{
	FakeNd a, b, c;	// three interfaces with one P_Key (children sharing the port GID)
	b.has_addr = true;
	Port port{{&a, &b, &c}, 3};
	auto r = pick(port, 0xffff, kGidA);
	EXPECT_EQ(r.nd, &b);
	EXPECT_EQ(r.l2_matches, 3u);
	EXPECT_EQ(r.addr_matches, 1u);
	EXPECT_FALSE(r.duplicate());
	EXPECT_EQ(b.refs, 1);
	EXPECT_EQ(a.refs + c.refs, 0);
	EXPECT_EQ(port.walks, 2u);
}

KTEST(lookup_pick, ambiguous_l2_without_address_is_none)
{
	FakeNd a, b;
	Port port{{&a, &b}, 2};
	auto r = pick(port, 0xffff, kGidA);
	EXPECT_NULL(r.nd);
	EXPECT_EQ(r.l2_matches, 2u);
	EXPECT_EQ(r.addr_matches, 0u);
	EXPECT_EQ(a.refs + b.refs, 0);
}

KTEST(lookup_pick, address_on_an_upper_device)
{
	FakeNd vlan;	// e.g. a macvlan/bond on top holds the address
	vlan.has_addr = true;
	FakeNd a, b;
	b.upper = &vlan;
	Port port{{&a, &b}, 2};
	auto r = pick(port, 0xffff, kGidA);
	EXPECT_EQ(r.nd, &vlan);
	EXPECT_EQ(vlan.refs, 1);
	EXPECT_EQ(a.refs + b.refs, 0);
}

KTEST(lookup_pick, duplicate_address_keeps_first_drops_rest)
{
	FakeNd a, b, c;
	a.has_addr = b.has_addr = c.has_addr = true;
	Port port{{&a, &b, &c}, 3};
	auto r = pick(port, 0xffff, kGidA);
	EXPECT_EQ(r.nd, &a);
	EXPECT_EQ(r.addr_matches, 3u);
	EXPECT_TRUE(r.duplicate());
	EXPECT_EQ(a.refs, 1);
	EXPECT_EQ(b.refs, 0);
	EXPECT_EQ(c.refs, 0);
}

KTEST(lookup_pick, other_pkeys_are_ignored_in_the_address_pass)
{
	FakeNd a, b, other;
	other.pkey = 0x8002;
	other.has_addr = true;	// has the address but is another partition
	Port port{{&other, &a, &b}, 3};
	auto r = pick(port, 0xffff, kGidA);
	EXPECT_NULL(r.nd);
	EXPECT_EQ(r.l2_matches, 2u);
	EXPECT_EQ(other.refs, 0);
}

KTEST_SUITE(lookup_pkey, KTEST_CASE(lookup_pkey, base_value_decides), KTEST_CASE(lookup_pkey, gid_optional_but_exact));
KTEST_SUITE(lookup_pick, KTEST_CASE(lookup_pick, nothing_on_the_port),
	    KTEST_CASE(lookup_pick, wrong_pkey_or_gid_is_not_ours),
	    KTEST_CASE(lookup_pick, unique_l2_match_wins_without_address),
	    KTEST_CASE(lookup_pick, unique_match_returns_its_master),
	    KTEST_CASE(lookup_pick, ambiguous_l2_address_decides),
	    KTEST_CASE(lookup_pick, ambiguous_l2_without_address_is_none),
	    KTEST_CASE(lookup_pick, address_on_an_upper_device),
	    KTEST_CASE(lookup_pick, duplicate_address_keeps_first_drops_rest),
	    KTEST_CASE(lookup_pick, other_pkeys_are_ignored_in_the_address_pass));

} // namespace ktest_lookup
