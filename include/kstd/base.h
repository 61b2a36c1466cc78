// SPDX-License-Identifier: GPL-2.0
// kstd/base.h - kernel-side basics: the dialect guard, bug()/warn, unreachable.
// Everything else in kstd that talks to the kernel includes this first.
#pragma once

#include "kapi.h"
#include "kstd/types.h"

// The build rule (scripts/cxx.mk) sets these; a file compiled any other way must not
// silently produce code with exceptions, RTTI, thread-safe statics or over-aligned new.
#if __cplusplus < 202002L
#error "kstd: needs -std=gnu++20"
#endif
#if defined(__cpp_exceptions) || defined(__EXCEPTIONS)
#error "kstd: build with -fno-exceptions"
#endif
#if defined(__cpp_rtti) || defined(__GXX_RTTI)
#error "kstd: build with -fno-rtti"
#endif
#if defined(__cpp_threadsafe_static_init)
#error "kstd: build with -fno-threadsafe-statics"
#endif
#if __STDCPP_DEFAULT_NEW_ALIGNMENT__ != KAPI_KMALLOC_MINALIGN
#error "kstd: -faligned-new must equal ARCH_KMALLOC_MINALIGN (kmalloc's guarantee)"
#endif

// Kernel-style annotate_unreachable(): tells objtool the path ends here. One __COUNTER__
// value is used for the label and the .discard.unreachable entry: objtool cannot see that a
// call into another object does not return, and warns "falls through" without it.
#define KSTD_UNREACHABLE_N(n)                                                           \
	do {                                                                            \
		asm volatile(".Lkstd_unreach" #n ":\n\t"                                \
			     ".pushsection .discard.unreachable\n\t"                    \
			     ".long .Lkstd_unreach" #n " - .\n\t"                       \
			     ".popsection\n\t");                                        \
		__builtin_unreachable();                                                \
	} while (0)
#define KSTD_UNREACHABLE_X(n) KSTD_UNREACHABLE_N(n)
#define KSTD_UNREACHABLE() KSTD_UNREACHABLE_X(__COUNTER__)

namespace kstd {

// BUG(): the shim's function is not declared noreturn (objtool cannot see across objects),
// so the C++ wrapper carries the attribute and the unreachable annotation.
[[noreturn]] inline void bug(const char *file, int line, const char *what)
{
	kapi_bug(file, line, what);
	KSTD_UNREACHABLE();
}

// Milliseconds elapsed from t to now on the kapi_now_ms clock, 0 when t is later than now.
// A caller that reads now once and then compares it against a timestamp another context
// keeps writing (xmit's touch, a completion's progress) can see t > now; plain now - t
// then wraps to a huge u64 and every "idle for >= X" check fires (an active connection
// reaped as idle). Every elapsed-time check on such a timestamp goes through here.
inline u64 ms_since(u64 now, u64 t)
{
	return now > t ? now - t : 0;
}

} // namespace kstd

#define KSTD_BUG(what) ::kstd::bug(__FILE__, __LINE__, what)
#define KSTD_BUG_ON(cond)                                                               \
	do {                                                                            \
		if (__builtin_expect(!!(cond), 0))                                      \
			KSTD_BUG(#cond);                                                \
	} while (0)
// WARN_ON: evaluates to the condition, like the kernel's.
#define KSTD_WARN_ON(cond)                                                              \
	({                                                                              \
		bool kstd_warn_c_ = !!(cond);                                           \
		if (__builtin_expect(kstd_warn_c_, 0))                                  \
			kapi_warn(__FILE__, __LINE__, #cond);                           \
		kstd_warn_c_;                                                           \
	})
