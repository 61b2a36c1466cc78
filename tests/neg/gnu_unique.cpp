// SPDX-License-Identifier: GPL-2.0
// cxxflags: -fgnu-unique
// With -fgnu-unique a static in an inline function
// becomes STB_GNU_UNIQUE, which the module loader does not understand.
// expect: check-elf: .*gnu_unique\.o: STB_GNU_UNIQUE symbol
inline int &counter()
{
	static int n;
	return n;
}
int bump(void);
int bump(void) { return ++counter(); }
