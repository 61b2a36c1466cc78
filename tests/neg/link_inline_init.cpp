// SPDX-License-Identifier: GPL-2.0
// Link stage (modpost): an inline function placed in .init.text, called from resident code
// (on a template instance the attribute would be silently ignored, so no test can see it).
// expect: section mismatch in reference: .*neg_resident2.* -> .*neg_inline_init
__attribute__((section(".init.text"), noinline)) inline int neg_inline_init(int x) { return x * 5; }
int neg_resident2(int x);
int neg_resident2(int x) { return neg_inline_init(x) + 1; }
