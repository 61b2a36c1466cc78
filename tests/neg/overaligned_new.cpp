// SPDX-License-Identifier: GPL-2.0
// kmalloc cannot honour alignas(64): the aligned operator new is deleted.
// expect: overaligned_new\.cpp:.*use of deleted function
#include "kstd/new.h"
struct alignas(64) Line {
	char b[64];
};
Line *make(void);
Line *make(void) { return new (kstd::Gfp::Kernel) Line; }
