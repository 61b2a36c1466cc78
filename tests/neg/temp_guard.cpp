// SPDX-License-Identifier: GPL-2.0
// A guard temporary unlocks at the end of the statement: [[nodiscard]] on the constructor
// makes it an error.
// expect: temp_guard\.cpp:.*error: ignoring return value
#include "kstd/lock.h"
void touch(kstd::SpinLock &l);
void touch(kstd::SpinLock &l) { kstd::SpinGuard{l}; }
