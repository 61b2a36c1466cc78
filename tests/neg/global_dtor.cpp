// SPDX-License-Identifier: GPL-2.0
// Constant-initialised global with a non-trivial destructor: gcc registers it in .fini_array.
// expect: check-elf: .*global_dtor\.o: forbidden section \.fini_array
void release(int);
struct Owner {
	int n;
	constexpr Owner() : n(1) {}
	~Owner() { release(n); }
};
constinit Owner owner;
