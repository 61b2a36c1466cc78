// SPDX-License-Identifier: GPL-2.0
// An ignored Status is a compile error.
// expect: nodiscard_status\.cpp:.*error: ignoring returned value of type .*kstd::Status
#include "kstd/status.h"
kstd::Status start(void);
void caller(void);
void caller(void) { start(); }
