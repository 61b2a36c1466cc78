// SPDX-License-Identifier: GPL-2.0
// A const and a writable object in one named section: g++ refuses (the flags differ).
// expect: section_conflict\.cpp:.*section type conflict
extern const int neg_ro;
extern int neg_rw;
__attribute__((section(".data.neg"), used)) const int neg_ro = 1;
__attribute__((section(".data.neg"), used)) int neg_rw = 2;
