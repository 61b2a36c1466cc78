// SPDX-License-Identifier: GPL-2.0
// Link stage (modpost): resident code calling an .init.text function.
// expect: section mismatch in reference: .*neg_resident.* -> .*neg_init_only
__attribute__((section(".init.text"), noinline)) int neg_init_only(int x) { return x * 3; }
int neg_resident(int x);
int neg_resident(int x) { return neg_init_only(x) + 1; }
