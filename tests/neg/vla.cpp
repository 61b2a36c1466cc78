// SPDX-License-Identifier: GPL-2.0
// expect: vla\.cpp:.*error: variable length array .*is used \[-Werror=vla\]
void fill(int n);
void use(char *);
void fill(int n)
{
	char buf[n];
	use(buf);
}
