// SPDX-License-Identifier: GPL-2.0
// kstd/new.h - the only way to allocate: `new (kstd::Gfp::Kernel) T(...)`, which returns
// nullptr on failure (noexcept: the compiler checks before constructing). There is no
// plain operator new, so `new T` fails to link and the ELF check names it.
#pragma once

#include "kstd/base.h"
#include "kstd/placement.h"

namespace kstd {

// Allocation context, as the kernel's GFP flags (values generated from the headers).
enum class Gfp : unsigned int {
	Kernel = KAPI_GFP_KERNEL,
	Atomic = KAPI_GFP_ATOMIC,
	NoWait = KAPI_GFP_NOWAIT,
	KernelZero = KAPI_GFP_KERNEL | KAPI_GFP_ZERO,
	AtomicZero = KAPI_GFP_ATOMIC | KAPI_GFP_ZERO,
};

} // namespace kstd

namespace std {
// Our own align_val_t (no <new>): only so the aligned overloads below can be deleted.
enum class align_val_t : __SIZE_TYPE__ {};
} // namespace std

void *operator new(__SIZE_TYPE__ size, kstd::Gfp gfp) noexcept;
void *operator new[](__SIZE_TYPE__ size, kstd::Gfp gfp) noexcept;
void operator delete(void *p, kstd::Gfp) noexcept;	// used if a constructor could throw
void operator delete[](void *p, kstd::Gfp) noexcept;
void operator delete(void *p) noexcept;
void operator delete(void *p, __SIZE_TYPE__) noexcept;
void operator delete[](void *p) noexcept;
void operator delete[](void *p, __SIZE_TYPE__) noexcept;

// kmalloc guarantees only KAPI_KMALLOC_MINALIGN: without these deletions an alignas(64)
// type would silently take the unaligned overload (C++17 falls back to it without a warning).
void *operator new(__SIZE_TYPE__, std::align_val_t, kstd::Gfp) noexcept = delete;
void *operator new[](__SIZE_TYPE__, std::align_val_t, kstd::Gfp) noexcept = delete;
