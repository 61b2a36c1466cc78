/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Host stand-in for the generated include/generated/kapi_sizes.h (which Kbuild makes from
 * the kernel headers). Values of the Debian 6.1 x86-64 kernels; on the host they only size
 * the fake locks of kunit/host/host.c, so a mismatch cannot hide a kernel bug: the KUnit
 * module checks the real values (suite kapi_sizes).
 */
#ifndef KAPI_SIZES_H
#define KAPI_SIZES_H
#define KAPI_SIZEOF_SPINLOCK 4
#define KAPI_ALIGNOF_SPINLOCK 4
#define KAPI_SIZEOF_MUTEX 32
#define KAPI_ALIGNOF_MUTEX 8
#define KAPI_GFP_KERNEL 3264
#define KAPI_GFP_ATOMIC 2592
#define KAPI_GFP_NOWAIT 2048
#define KAPI_GFP_ZERO 256
#define KAPI_GFP_NOWARN 8192
#define KAPI_KMALLOC_MINALIGN 8
#define KAPI_IFNAMSIZ 16
#define KAPI_IB_DEVICE_NAME_MAX 64
#define KAPI_SIZEOF_RCU_HEAD 24
#define KAPI_ALIGNOF_RCU_HEAD 8
#endif
