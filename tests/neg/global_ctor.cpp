// SPDX-License-Identifier: GPL-2.0
// A namespace-scope object with a dynamic constructor: runs from .init_array, which the
// module loader would call (or not) behind our back.
// expect: check-elf: .*global_ctor\.o: forbidden section \.init_array
int compute(void);
struct Counter {
	int n;
	Counter() : n(compute()) {}
};
Counter counter;
