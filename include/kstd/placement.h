// SPDX-License-Identifier: GPL-2.0
// kstd/placement.h - placement new without <new>; host builds (KSTD_HOST) take the
// standard one because a second definition would clash with libstdc++'s.
#pragma once

#ifdef KSTD_HOST
#include <new>
#else
inline void *operator new(__SIZE_TYPE__, void *p) noexcept { return p; }
inline void *operator new[](__SIZE_TYPE__, void *p) noexcept { return p; }
inline void operator delete(void *, void *) noexcept {}
inline void operator delete[](void *, void *) noexcept {}
#endif
