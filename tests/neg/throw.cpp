// SPDX-License-Identifier: GPL-2.0
// expect: throw\.cpp:.*exception handling disabled
void fail(int);
void fail(int x)
{
	if (x)
		throw x;
}
