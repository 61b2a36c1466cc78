// SPDX-License-Identifier: GPL-2.0
// kstd/string.h - non-owning string view and the few string operations the parsers need
// (no libc in a module; kernel string functions are not visible to C++). Pure.
#pragma once

#include "kstd/types.h"

namespace kstd {

class StrView {
public:
	constexpr StrView() = default;
	constexpr StrView(const char *s, usize n) : s_(s), n_(n) {}
	// From a NUL-terminated string; nullptr is the empty string.
	constexpr StrView(const char *s) : s_(s ? s : ""), n_(0)
	{
		while (s_[n_])
			n_++;
	}

	constexpr const char *data() const { return s_; }
	constexpr usize size() const { return n_; }
	constexpr bool empty() const { return n_ == 0; }
	constexpr char operator[](usize i) const { return s_[i]; }

	// Position of c at or after from, or npos.
	static constexpr usize npos = ~usize(0);
	constexpr usize find(char c, usize from = 0) const
	{
		for (usize i = from; i < n_; i++)
			if (s_[i] == c)
				return i;
		return npos;
	}
	constexpr StrView substr(usize pos, usize len = npos) const
	{
		if (pos > n_)
			pos = n_;
		if (len > n_ - pos)
			len = n_ - pos;
		return StrView(s_ + pos, len);
	}
	constexpr bool operator==(StrView o) const
	{
		if (n_ != o.n_)
			return false;
		for (usize i = 0; i < n_; i++)
			if (s_[i] != o.s_[i])
				return false;
		return true;
	}
	// Copy into a NUL-terminated buffer; false (and nothing copied) if it does not fit.
	constexpr bool copy_to(char *buf, usize bufsize) const
	{
		if (n_ + 1 > bufsize)
			return false;
		for (usize i = 0; i < n_; i++)
			buf[i] = s_[i];
		buf[n_] = '\0';
		return true;
	}

private:
	const char *s_ = "";
	usize n_ = 0;
};

constexpr bool is_digit(char c) { return c >= '0' && c <= '9'; }
constexpr bool is_alnum(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

// Strict unsigned decimal: digits only, no sign, no leading zeros, no overflow past max.
constexpr bool parse_u32(StrView s, u32 max, u32 &out)
{
	if (s.empty() || (s.size() > 1 && s[0] == '0'))
		return false;
	u64 v = 0;
	for (usize i = 0; i < s.size(); i++) {
		if (!is_digit(s[i]))
			return false;
		v = v * 10 + u64(s[i] - '0');
		if (v > max)
			return false;
	}
	out = u32(v);
	return true;
}

} // namespace kstd
