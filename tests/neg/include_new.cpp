// SPDX-License-Identifier: GPL-2.0
// No standard headers exist for module C++.
// expect: include_new\.cpp:.*fatal error: new: No such file or directory
#include <new>
