// SPDX-License-Identifier: GPL-2.0
// kstd_rt.cpp - the whole C++ runtime this module has: allocation operators over kmalloc.
// No plain `operator new(size_t)` on purpose: every allocation names its GFP context and
// may return nullptr. __cxa_pure_virtual lives in the shim (it must BUG() in C).
#include "kstd/new.h"

void *operator new(__SIZE_TYPE__ size, kstd::Gfp gfp) noexcept
{
	return kapi_kmalloc(size, static_cast<unsigned int>(gfp));
}

void *operator new[](__SIZE_TYPE__ size, kstd::Gfp gfp) noexcept
{
	return kapi_kmalloc(size, static_cast<unsigned int>(gfp));
}

void operator delete(void *p, kstd::Gfp) noexcept { kapi_kfree(p); }
void operator delete[](void *p, kstd::Gfp) noexcept { kapi_kfree(p); }
void operator delete(void *p) noexcept { kapi_kfree(p); }
void operator delete(void *p, __SIZE_TYPE__) noexcept { kapi_kfree(p); }
void operator delete[](void *p) noexcept { kapi_kfree(p); }
void operator delete[](void *p, __SIZE_TYPE__) noexcept { kapi_kfree(p); }
