// SPDX-License-Identifier: GPL-2.0
// expect: check-elf: .*thread_local\.o: forbidden section \.tbss
thread_local int counter;
int bump(void);
int bump(void) { return ++counter; }
