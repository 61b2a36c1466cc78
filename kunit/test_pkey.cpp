// SPDX-License-Identifier: GPL-2.0
// test_pkey.cpp - P_Key child interfaces (ipoib_pkey.cpp): the create_child/delete_child
// value ("%i" syntax, strict), the invalid P_Key, range, the IFLA_IPOIB_* checks, and the
// child's netdev name.
#include "ktest.h"
#include "core/netdev/ipoib_pkey.h"

namespace ktest_pkey {

using ipoib::LinkArgs;
using ipoib::ParseError;
using ipoib::PkeyUse;
using kstd::Status;
using kstd::StrView;
using kstd::u16;

Status parse(const char *s, PkeyUse use, u16 &out)
{
	ParseError err;
	Status st = ipoib::parse_child_pkey(StrView(s), use, out, err);
	if (st != Status::Ok && !err.what)
		return Status::Io;	// every rejection must say why
	return st;
}

KTEST(pkey_parse, bases_and_whitespace)
{
	u16 v = 0;
	ASSERT_OK(parse("0x8001", PkeyUse::Create, v));
	EXPECT_EQ(v, 0x8001);
	ASSERT_OK(parse("0X7FfF\n", PkeyUse::Create, v));
	EXPECT_EQ(v, 0x7fff);
	ASSERT_OK(parse("32769\n", PkeyUse::Create, v));	// decimal 0x8001
	EXPECT_EQ(v, 0x8001);
	ASSERT_OK(parse("  1 ", PkeyUse::Create, v));
	EXPECT_EQ(v, 1);
	ASSERT_OK(parse("0100001", PkeyUse::Create, v));	// octal 0x8001
	EXPECT_EQ(v, 0x8001);
	ASSERT_OK(parse("0xffff", PkeyUse::Create, v));
	EXPECT_EQ(v, 0xffff);
}

KTEST(pkey_parse, malformed)
{
	u16 v = 0x1234;
	EXPECT_EQ(parse("bogus", PkeyUse::Create, v), Status::Invalid);
	EXPECT_EQ(parse("", PkeyUse::Create, v), Status::Invalid);
	EXPECT_EQ(parse("\n", PkeyUse::Delete, v), Status::Invalid);
	EXPECT_EQ(parse("0x", PkeyUse::Create, v), Status::Invalid);
	EXPECT_EQ(parse("0x8001junk", PkeyUse::Create, v), Status::Invalid);	// "%i" would take it
	EXPECT_EQ(parse("-1", PkeyUse::Create, v), Status::Invalid);
	EXPECT_EQ(parse("+5", PkeyUse::Create, v), Status::Invalid);
	EXPECT_EQ(parse("08", PkeyUse::Create, v), Status::Invalid);	// not octal
	EXPECT_EQ(parse("12ab", PkeyUse::Create, v), Status::Invalid);
	EXPECT_EQ(parse("0x80 01", PkeyUse::Create, v), Status::Invalid);
	EXPECT_EQ(v, 0x1234);	// untouched on failure
}

KTEST(pkey_parse, range)
{
	u16 v = 0;
	EXPECT_EQ(parse("0x10000", PkeyUse::Create, v), Status::Invalid);
	EXPECT_EQ(parse("65536", PkeyUse::Delete, v), Status::Invalid);
	EXPECT_EQ(parse("0xfffffffff", PkeyUse::Create, v), Status::Invalid);	// no wrap-around
	EXPECT_EQ(parse("99999999999999999999", PkeyUse::Delete, v), Status::Invalid);
	ASSERT_OK(parse("65535", PkeyUse::Delete, v));
	EXPECT_EQ(v, 0xffff);
}

KTEST(pkey_parse, invalid_pkey_only_for_create)
{
	u16 v = 7;
	EXPECT_EQ(parse("0", PkeyUse::Create, v), Status::Invalid);
	EXPECT_EQ(parse("0x8000", PkeyUse::Create, v), Status::Invalid);
	EXPECT_EQ(parse("0x0000", PkeyUse::Create, v), Status::Invalid);
	// delete_child of 0 is well-formed: no child has it (the caller's -ENODEV)
	ASSERT_OK(parse("0", PkeyUse::Delete, v));
	EXPECT_EQ(v, 0);
	ASSERT_OK(parse("0x8000", PkeyUse::Delete, v));
	EXPECT_EQ(v, 0x8000);
}

KTEST(pkey_parse, full_member_bit)
{
	EXPECT_EQ(ipoib::pkey_full(0x0001), 0x8001);
	EXPECT_EQ(ipoib::pkey_full(0x8001), 0x8001);
	EXPECT_EQ(ipoib::pkey_full(0x7fff), 0xffff);
	EXPECT_TRUE(ipoib::pkey_is_invalid(0x8000));
	EXPECT_TRUE(ipoib::pkey_is_invalid(0));
	EXPECT_FALSE(ipoib::pkey_is_invalid(1));
	EXPECT_FALSE(ipoib::pkey_is_invalid(0x8001));
}

Status check(const LinkArgs &a)
{
	ParseError err;
	Status st = ipoib::validate_link_args(a, err);
	if (st != Status::Ok && !err.what)
		return Status::Io;
	return st;
}

KTEST(pkey_link_args, accepted)
{
	LinkArgs a;
	EXPECT_OK(check(a));	// nothing given: the parent's P_Key, datagram
	a.has_pkey = true;
	a.pkey = 0x8002;
	a.has_mode = true;
	a.mode = ipoib::kLinkModeDatagram;
	a.has_umcast = true;
	a.umcast = 1;
	EXPECT_OK(check(a));
	a.pkey = 0x0002;
	a.umcast = 0;
	EXPECT_OK(check(a));
	a.mode = ipoib::kLinkModeConnected;
	EXPECT_OK(check(a));
}

KTEST(pkey_link_args, rejected)
{
	LinkArgs a;
	a.has_pkey = true;
	a.pkey = 0;
	EXPECT_EQ(check(a), Status::Invalid);
	a.pkey = 0x8000;
	EXPECT_EQ(check(a), Status::Invalid);
	a.pkey = 0x8001;
	a.has_mode = true;
	a.mode = 2;
	EXPECT_EQ(check(a), Status::Invalid);
	a.mode = 0;
	a.has_umcast = true;
	a.umcast = 5;
	EXPECT_EQ(check(a), Status::Invalid);
	// an absent attribute's value is not looked at
	LinkArgs b;
	b.pkey = 0;
	b.mode = 9;
	b.umcast = 9;
	EXPECT_OK(check(b));
}

KTEST(pkey_child_name, format)
{
	char buf[KAPI_IFNAMSIZ];
	ASSERT_TRUE(ipoib::format_child_name("ib0", 0x8001, buf, sizeof(buf)));
	EXPECT_STREQ(buf, "ib0.8001");
	ASSERT_TRUE(ipoib::format_child_name("ib0", 0x0001, buf, sizeof(buf)));	// as written, not ORed
	EXPECT_STREQ(buf, "ib0.0001");
	ASSERT_TRUE(ipoib::format_child_name("icm12", 0xabcd, buf, sizeof(buf)));
	EXPECT_STREQ(buf, "icm12.abcd");
}

KTEST(pkey_child_name, long_parent_is_cut_to_fit)
{
	char buf[KAPI_IFNAMSIZ];
	ASSERT_TRUE(ipoib::format_child_name("verylongname15c", 0x7fff, buf, sizeof(buf)));
	EXPECT_STREQ(buf, "verylongna.7fff");
	EXPECT_EQ(StrView(buf).size(), 15u);
	char small[8];
	EXPECT_FALSE(ipoib::format_child_name("ib0", 0x8001, small, sizeof(small)));
}

KTEST_SUITE(pkey_parse, KTEST_CASE(pkey_parse, bases_and_whitespace), KTEST_CASE(pkey_parse, malformed),
	    KTEST_CASE(pkey_parse, range), KTEST_CASE(pkey_parse, invalid_pkey_only_for_create),
	    KTEST_CASE(pkey_parse, full_member_bit));
KTEST_SUITE(pkey_link_args, KTEST_CASE(pkey_link_args, accepted), KTEST_CASE(pkey_link_args, rejected));
KTEST_SUITE(pkey_child_name, KTEST_CASE(pkey_child_name, format),
	    KTEST_CASE(pkey_child_name, long_parent_is_cut_to_fit));

} // namespace ktest_pkey
