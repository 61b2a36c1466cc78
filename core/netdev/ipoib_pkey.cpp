// SPDX-License-Identifier: GPL-2.0
// ipoib_pkey.cpp - see ipoib_pkey.h.
#include "core/netdev/ipoib_pkey.h"

namespace ipoib {

namespace {

Status fail(ParseError &err, const char *what, usize pos)
{
	err.what = what;
	err.pos = pos;
	return Status::Invalid;
}

constexpr bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

int digit_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return 99;
}

} // namespace

Status parse_child_pkey(StrView s, PkeyUse use, u16 &out, ParseError &err)
{
	usize b = 0, e = s.size();
	while (b < e && is_space(s[b]))
		b++;
	while (e > b && is_space(s[e - 1]))
		e--;
	if (b == e)
		return fail(err, "empty value", b);
	usize i = b;
	u32 base = 10;
	if (e - i > 2 && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
		base = 16;
		i += 2;
	} else if (e - i > 1 && s[i] == '0') {
		base = 8;
		i += 1;
	}
	u32 v = 0;
	for (usize p = i; p < e; p++) {
		int d = digit_value(s[p]);
		if (d >= int(base))
			return fail(err, "not a number (decimal, 0x hex or 0 octal)", p);
		v = v * base + u32(d);
		if (v > 0xffff)
			return fail(err, "P_Key out of range (more than 0xffff)", b);
	}
	if (use == PkeyUse::Create && pkey_is_invalid(u16(v)))
		return fail(err, "the invalid P_Key (0x0000/0x8000) cannot have a child", b);
	out = u16(v);
	return Status::Ok;
}

Status validate_link_pkey(u16 pkey, ParseError &err)
{
	if (pkey_is_invalid(pkey))
		return fail(err, "the invalid P_Key (0x0000/0x8000) cannot have a child", 0);
	return Status::Ok;
}

Status validate_link_args(const LinkArgs &a, ParseError &err)
{
	if (a.has_pkey)
		KSTD_TRY(validate_link_pkey(a.pkey, err));
	if (a.has_mode && a.mode > kLinkModeConnected)
		return fail(err, "mode must be 0 (datagram) or 1 (connected)", 0);
	if (a.has_umcast && a.umcast > 1)
		return fail(err, "umcast must be 0 or 1", 0);
	return Status::Ok;
}

bool format_child_name(StrView parent, u16 pkey, char *out, usize size)
{
	StrView p = parent.substr(0, 10);
	if (size < p.size() + 6)
		return false;
	usize n = 0;
	for (usize i = 0; i < p.size(); i++)
		out[n++] = p[i];
	out[n++] = '.';
	static constexpr char kHex[] = "0123456789abcdef";
	for (int shift = 12; shift >= 0; shift -= 4)
		out[n++] = kHex[(pkey >> shift) & 0xf];
	out[n] = '\0';
	return true;
}

} // namespace ipoib
