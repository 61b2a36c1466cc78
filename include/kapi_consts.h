/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel ABI constants that are fixed for x86-64 Linux and needed by pure-logic C++ code
 * (the parameter parsers) which must also compile on the host for unit tests, so they
 * cannot come from the generated kapi_sizes.h. kapi/static_checks.c asserts every value
 * against the real kernel headers.
 */
#ifndef KAPI_CONSTS_H
#define KAPI_CONSTS_H

#define KAPI_EPERM 1
#define KAPI_ENOENT 2
#define KAPI_EIO 5
#define KAPI_EAGAIN 11
#define KAPI_ENOMEM 12
#define KAPI_EBUSY 16
#define KAPI_EEXIST 17
#define KAPI_ENODEV 19
#define KAPI_EINVAL 22
#define KAPI_ENOSPC 28
#define KAPI_ENETRESET 102
#define KAPI_ERANGE 34
#define KAPI_ENAMETOOLONG 36
#define KAPI_ENOTUNIQ 76
#define KAPI_EOPNOTSUPP 95
#define KAPI_ETIMEDOUT 110

#define KAPI_IFNAMSIZ 16		/* netdev name buffer, NUL included */
#define KAPI_IB_DEVICE_NAME_MAX 64	/* ib_device name buffer, NUL included */

#endif /* KAPI_CONSTS_H */
