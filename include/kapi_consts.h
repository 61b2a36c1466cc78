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

/* enum ib_mtu, enum ib_port_speed, enum ib_port_width (rdma/ib_verbs.h): the raw values the
 * shim passes through in kapi_port_attr and kapi_mcmember. */
#define KAPI_IB_MTU_256 1
#define KAPI_IB_MTU_4096 5
#define KAPI_IB_SPEED_SDR 1
#define KAPI_IB_SPEED_DDR 2
#define KAPI_IB_SPEED_QDR 4
#define KAPI_IB_SPEED_FDR10 8
#define KAPI_IB_SPEED_FDR 16
#define KAPI_IB_SPEED_EDR 32
#define KAPI_IB_SPEED_HDR 64
#define KAPI_IB_SPEED_NDR 128
#define KAPI_IB_WIDTH_1X 1
#define KAPI_IB_WIDTH_4X 2
#define KAPI_IB_WIDTH_8X 4
#define KAPI_IB_WIDTH_12X 8
#define KAPI_IB_WIDTH_2X 16

/* IFLA_IPOIB_MODE values (uapi/linux/if_link.h) */
#define KAPI_IPOIB_MODE_DATAGRAM 0
#define KAPI_IPOIB_MODE_CONNECTED 1

#endif /* KAPI_CONSTS_H */
