// SPDX-License-Identifier: GPL-2.0
// An ignored Result<T> is a compile error.
// expect: nodiscard_result\.cpp:.*error: ignoring return(ed)? value
#include "kstd/result.h"
kstd::Result<int> make(void);
void caller(void);
void caller(void) { make(); }
