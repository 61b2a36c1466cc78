// SPDX-License-Identifier: GPL-2.0
// ktest.h - the neutral C++ assertion layer. One test source builds into the KUnit module
// (kernel) and into the host runner (g++ + ASan/UBSan); see docs/testing-kunit.md.
//
//   KTEST(suite, name) { EXPECT_EQ(1 + 1, 2); ASSERT_TRUE(p); ... }
//   KTEST_SUITE(suite, KTEST_CASE(suite, name), ...);   // at the end of the file
//
// Operands are evaluated once and copied (by value: binding temporaries to references made
// gcc-12 report false -Wuninitialized under the kernel's KASAN flags).
// A body has the context `kt`. EXPECT_* records a failure and goes on; ASSERT_* records it
// and returns from the function it is written in (gtest style: no longjmp, no kthread
// exit), so ASSERT_* belongs in the body or in void helpers taking `ktest_ctx *kt`.
// Failures print file:line, both expressions and both values.
// A KTEST not listed in KTEST_SUITE is an unused static function: -Wunused-function, which
// the host build (-Werror) and the strict kernel build reject.
#pragma once

#include "ktest_api.h"
#include "kstd/status.h"
#include "kstd/string.h"
#include "kstd/types.h"

namespace ktest {

using kstd::usize;

// A formatted value, for failure messages.
struct Val {
	char s[112] = {};
};

inline void fmt(Val &v, bool x) { ktest_snprintf(v.s, sizeof(v.s), "%s", x ? "true" : "false"); }
inline void fmt(Val &v, char x) { ktest_snprintf(v.s, sizeof(v.s), "'%c' (%d)", x >= 32 && x < 127 ? x : '?', x); }
inline void fmt(Val &v, signed char x) { ktest_snprintf(v.s, sizeof(v.s), "%d", x); }
inline void fmt(Val &v, unsigned char x) { ktest_snprintf(v.s, sizeof(v.s), "%u", x); }
inline void fmt(Val &v, short x) { ktest_snprintf(v.s, sizeof(v.s), "%d", x); }
inline void fmt(Val &v, unsigned short x) { ktest_snprintf(v.s, sizeof(v.s), "%u", x); }
inline void fmt(Val &v, int x) { ktest_snprintf(v.s, sizeof(v.s), "%d", x); }
inline void fmt(Val &v, unsigned int x) { ktest_snprintf(v.s, sizeof(v.s), "%u (0x%x)", x, x); }
inline void fmt(Val &v, long x) { ktest_snprintf(v.s, sizeof(v.s), "%ld", x); }
inline void fmt(Val &v, unsigned long x) { ktest_snprintf(v.s, sizeof(v.s), "%lu (0x%lx)", x, x); }
inline void fmt(Val &v, long long x) { ktest_snprintf(v.s, sizeof(v.s), "%lld", x); }
inline void fmt(Val &v, unsigned long long x) { ktest_snprintf(v.s, sizeof(v.s), "%llu (0x%llx)", x, x); }
inline void fmt(Val &v, decltype(nullptr)) { ktest_snprintf(v.s, sizeof(v.s), "nullptr"); }
inline void fmt(Val &v, kstd::StrView x)
{
	int n = x.size() > 80 ? 80 : int(x.size());
	ktest_snprintf(v.s, sizeof(v.s), "\"%.*s\"%s (len %lu)", n, x.data(), x.size() > 80 ? "..." : "",
		       (unsigned long)x.size());
}
inline void fmt(Val &v, const char *x)
{
	if (!x)
		ktest_snprintf(v.s, sizeof(v.s), "(null)");
	else
		fmt(v, kstd::StrView(x));
}
inline void fmt(Val &v, char *x) { fmt(v, static_cast<const char *>(x)); }

inline const char *status_name(kstd::Status s)
{
	using kstd::Status;
	switch (s) {
	case Status::Ok: return "Ok";
	case Status::Perm: return "Perm";
	case Status::NotFound: return "NotFound";
	case Status::Io: return "Io";
	case Status::Again: return "Again";
	case Status::NoMem: return "NoMem";
	case Status::Busy: return "Busy";
	case Status::Exists: return "Exists";
	case Status::NoDevice: return "NoDevice";
	case Status::Invalid: return "Invalid";
	case Status::NoSpace: return "NoSpace";
	case Status::Range: return "Range";
	case Status::NameTooLong: return "NameTooLong";
	case Status::NotUnique: return "NotUnique";
	case Status::NotSupported: return "NotSupported";
	case Status::TimedOut: return "TimedOut";
	}
	return "?";
}
inline void fmt(Val &v, kstd::Status s)
{
	ktest_snprintf(v.s, sizeof(v.s), "Status::%s (%d)", status_name(s), kstd::to_errno(s));
}

template <typename T> void fmt(Val &v, T *p)
{
	ktest_snprintf(v.s, sizeof(v.s), "0x%llx", (unsigned long long)(kstd::uptr)p);
}
// Any other enum: its underlying value.
template <typename T>
	requires __is_enum(T)
void fmt(Val &v, T e)
{
	fmt(v, static_cast<__underlying_type(T)>(e));
}

template <typename A, typename B>
void fail_cmp(ktest_ctx *kt, const char *file, int line, const char *macro, const char *ea,
	      const char *eb, const A &a, const B &b)
{
	Val va, vb;
	fmt(va, a);
	fmt(vb, b);
	char msg[400];
	ktest_snprintf(msg, sizeof(msg), "%s(%s, %s) failed\n    %s == %s\n    %s == %s", macro, ea, eb, ea,
		       va.s, eb, vb.s);
	ktest_fail(kt, file, line, msg);
}

template <typename A>
void fail_one(ktest_ctx *kt, const char *file, int line, const char *macro, const char *ea, const A &a)
{
	Val va;
	fmt(va, a);
	char msg[300];
	ktest_snprintf(msg, sizeof(msg), "%s(%s) failed: %s == %s", macro, ea, ea, va.s);
	ktest_fail(kt, file, line, msg);
}

// Catches kapi_warn() for its lifetime (instead of a real WARN); count() so far.
class WarnCatcher {
public:
	WarnCatcher() { ktest_warn_catch_begin(); }
	~WarnCatcher()
	{
		if (!ended_)
			(void)ktest_warn_catch_end();
	}
	int end()
	{
		ended_ = true;
		return ktest_warn_catch_end();
	}
	WarnCatcher(const WarnCatcher &) = delete;
	WarnCatcher &operator=(const WarnCatcher &) = delete;

private:
	bool ended_ = false;
};

// Makes every allocation fail for its lifetime.
class AllocFailAll {
public:
	AllocFailAll() { ktest_alloc_fail_all(1); }
	~AllocFailAll() { ktest_alloc_fail_all(0); }
	AllocFailAll(const AllocFailAll &) = delete;
	AllocFailAll &operator=(const AllocFailAll &) = delete;
};

} // namespace ktest

// ---- registration -------------------------------------------------------------------
#define KTEST(suite, name) static void ktest_##suite##__##name([[maybe_unused]] ktest_ctx *kt)
#define KTEST_CASE(suite, name) { #name, &ktest_##suite##__##name }
#define KTEST_SUITE(suite, ...)                                                         \
	static constinit const ktest_case ktest_cases_##suite[] = { __VA_ARGS__ };      \
	extern "C" constinit const ktest_suite ktest_suite_##suite = {                  \
		#suite, ktest_cases_##suite,                                            \
		sizeof(ktest_cases_##suite) / sizeof(ktest_cases_##suite[0]) }

// ---- assertions -----------------------------------------------------------------------
#define KTEST_CMP_(fatal, macro, a, op, b)                                              \
	do {                                                                            \
		const auto ktest_a_ = (a);                                              \
		const auto ktest_b_ = (b);                                              \
		if (!(ktest_a_ op ktest_b_)) {                                          \
			::ktest::fail_cmp(kt, __FILE__, __LINE__, macro, #a, #b, ktest_a_, ktest_b_); \
			if (fatal)                                                      \
				return;                                                 \
		}                                                                       \
	} while (0)

#define EXPECT_EQ(a, b) KTEST_CMP_(false, "EXPECT_EQ", a, ==, b)
#define EXPECT_NE(a, b) KTEST_CMP_(false, "EXPECT_NE", a, !=, b)
#define EXPECT_LT(a, b) KTEST_CMP_(false, "EXPECT_LT", a, <, b)
#define EXPECT_LE(a, b) KTEST_CMP_(false, "EXPECT_LE", a, <=, b)
#define EXPECT_GT(a, b) KTEST_CMP_(false, "EXPECT_GT", a, >, b)
#define EXPECT_GE(a, b) KTEST_CMP_(false, "EXPECT_GE", a, >=, b)
#define ASSERT_EQ(a, b) KTEST_CMP_(true, "ASSERT_EQ", a, ==, b)
#define ASSERT_NE(a, b) KTEST_CMP_(true, "ASSERT_NE", a, !=, b)
#define ASSERT_LT(a, b) KTEST_CMP_(true, "ASSERT_LT", a, <, b)
#define ASSERT_LE(a, b) KTEST_CMP_(true, "ASSERT_LE", a, <=, b)
#define ASSERT_GT(a, b) KTEST_CMP_(true, "ASSERT_GT", a, >, b)
#define ASSERT_GE(a, b) KTEST_CMP_(true, "ASSERT_GE", a, >=, b)

#define KTEST_BOOL_(fatal, macro, c, want)                                              \
	do {                                                                            \
		const bool ktest_c_ = static_cast<bool>(c);                             \
		if (ktest_c_ != (want)) {                                               \
			::ktest::fail_one(kt, __FILE__, __LINE__, macro, #c, ktest_c_); \
			if (fatal)                                                      \
				return;                                                 \
		}                                                                       \
	} while (0)
#define EXPECT_TRUE(c) KTEST_BOOL_(false, "EXPECT_TRUE", c, true)
#define EXPECT_FALSE(c) KTEST_BOOL_(false, "EXPECT_FALSE", c, false)
#define ASSERT_TRUE(c) KTEST_BOOL_(true, "ASSERT_TRUE", c, true)
#define ASSERT_FALSE(c) KTEST_BOOL_(true, "ASSERT_FALSE", c, false)

#define EXPECT_NULL(p) EXPECT_EQ(static_cast<const void *>(p), nullptr)
#define EXPECT_NOT_NULL(p) EXPECT_NE(static_cast<const void *>(p), nullptr)
#define ASSERT_NULL(p) ASSERT_EQ(static_cast<const void *>(p), nullptr)
#define ASSERT_NOT_NULL(p) ASSERT_NE(static_cast<const void *>(p), nullptr)

// Strings: const char * or StrView on either side, compared by content.
#define EXPECT_STREQ(a, b) KTEST_CMP_(false, "EXPECT_STREQ", ::kstd::StrView(a), ==, ::kstd::StrView(b))
#define ASSERT_STREQ(a, b) KTEST_CMP_(true, "ASSERT_STREQ", ::kstd::StrView(a), ==, ::kstd::StrView(b))

#define EXPECT_OK(s) EXPECT_EQ(s, ::kstd::Status::Ok)
#define ASSERT_OK(s) ASSERT_EQ(s, ::kstd::Status::Ok)

#define KTEST_FAIL(msg) ktest_fail(kt, __FILE__, __LINE__, msg)
#define KTEST_SKIP(why)                                                                 \
	do {                                                                            \
		ktest_skip(kt, why);                                                    \
		return;                                                                 \
	} while (0)
