// SPDX-License-Identifier: GPL-2.0
// Function-local static with dynamic initialisation: a racy _ZGV guard byte.
// expect: check-elf: .*local_static\.o: forbidden symbol _ZGV
int compute(void);
int cached(void);
int cached(void)
{
	static int v = compute();
	return v;
}
