// SPDX-License-Identifier: GPL-2.0
// The same with -fthreadsafe-statics: __cxa_guard_*.
// cxxflags: -fthreadsafe-statics
// expect: check-elf: .*threadsafe_static\.o: undefined C\+\+ runtime symbol __cxa_guard_acquire
int compute(void);
int cached(void);
int cached(void)
{
	static int v = compute();
	return v;
}
