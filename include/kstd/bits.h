// SPDX-License-Identifier: GPL-2.0
// kstd/bits.h - integer bit helpers. Pure: also compiles on the host for unit tests.
#pragma once

#include "kstd/types.h"

namespace kstd {

// The smallest power of two >= n: what the kernel's roundup_pow_of_two() gives, and the
// size the allocator really takes for n bytes (kmalloc's classes, kmalloc_large's orders).
// Defined at both ends, where roundup_pow_of_two() is not:
//   n = 0 gives 1 (2^0 >= 0; a zero-sized queue or array rounds to one slot);
//   n > 2^63 gives 0: no u64 power of two holds it. 0 is never a power of two, so a caller
//   that can be handed such an n sees the overflow (the callers here bound n far below).
// A u32 caller that narrows the result must bound n at 2^31 itself (2^31 + 1 gives 2^32).
constexpr u64 round_up_pow2(u64 n)
{
	if (n <= 1)
		return 1;
	if (n > (u64(1) << 63))
		return 0;
	return u64(1) << (64 - __builtin_clzll(n - 1));
}

} // namespace kstd
