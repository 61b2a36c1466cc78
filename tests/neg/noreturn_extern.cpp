// SPDX-License-Identifier: GPL-2.0
// A [[noreturn]] function from another object at the end of a function: objtool cannot
// see it is noreturn and warns; C++ objects treat objtool warnings as errors.
// expect: noreturn_extern\.o: warning: objtool: .*falls through to next function
[[noreturn]] void die(void);
int check(int x);
int check(int x)
{
	if (x > 0)
		return x;
	die();
}
int after(int x);
int after(int x) { return x + 1; }
