// SPDX-License-Identifier: GPL-2.0
// Plain new: no GFP context, throws on failure in ISO C++; libstdc++'s _Znwm does not exist.
// expect: check-elf: .*plain_new\.o: undefined C\+\+ runtime symbol _Znwm
int *make(void);
int *make(void) { return new int(3); }
