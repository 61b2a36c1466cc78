// SPDX-License-Identifier: GPL-2.0
/*
 * Compile-time proof that what the C++ core believes about the kernel is true for the
 * kernel being built against: the generated sizes (kapi_sizes.h) and the fixed constants
 * (kapi_consts.h). Generates no code.
 */
#include <linux/build_bug.h>
#include <linux/errno.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/if_link.h>
#include <linux/if_packet.h>
#include <linux/mm.h>
#include <linux/skbuff.h>
#include <rdma/ib_verbs.h>
#include "kapi.h"

static_assert(KAPI_SIZEOF_SPINLOCK == sizeof(spinlock_t));
static_assert(KAPI_ALIGNOF_SPINLOCK == __alignof__(spinlock_t));
static_assert(KAPI_SIZEOF_MUTEX == sizeof(struct mutex));
static_assert(KAPI_ALIGNOF_MUTEX == __alignof__(struct mutex));
static_assert(KAPI_GFP_KERNEL == (__force unsigned int)GFP_KERNEL);
static_assert(KAPI_GFP_ATOMIC == (__force unsigned int)GFP_ATOMIC);
static_assert(KAPI_GFP_NOWAIT == (__force unsigned int)GFP_NOWAIT);
static_assert(KAPI_GFP_ZERO == (__force unsigned int)__GFP_ZERO);
static_assert(KAPI_GFP_NOWARN == (__force unsigned int)__GFP_NOWARN);
static_assert(KAPI_KMALLOC_MINALIGN == ARCH_KMALLOC_MINALIGN);

static_assert(KAPI_IFNAMSIZ == IFNAMSIZ);
static_assert(KAPI_IB_DEVICE_NAME_MAX == IB_DEVICE_NAME_MAX);

static_assert(KAPI_EPERM == EPERM);
static_assert(KAPI_ENOENT == ENOENT);
static_assert(KAPI_EIO == EIO);
static_assert(KAPI_EAGAIN == EAGAIN);
static_assert(KAPI_ENOMEM == ENOMEM);
static_assert(KAPI_EBUSY == EBUSY);
static_assert(KAPI_EEXIST == EEXIST);
static_assert(KAPI_ENOTUNIQ == ENOTUNIQ);
static_assert(KAPI_ENODEV == ENODEV);
static_assert(KAPI_EINVAL == EINVAL);
static_assert(KAPI_ENOSPC == ENOSPC);
static_assert(KAPI_ENETRESET == ENETRESET);
static_assert(KAPI_ERANGE == ERANGE);
static_assert(KAPI_ENAMETOOLONG == ENAMETOOLONG);
static_assert(KAPI_EOPNOTSUPP == EOPNOTSUPP);
static_assert(KAPI_ETIMEDOUT == ETIMEDOUT);

/* Raw kernel enum values the core uses (kapi_consts.h, kapi_ib.h, kapi_verbs.h, kapi_skb.h). */
static_assert(KAPI_IB_PORT_ACTIVE == IB_PORT_ACTIVE);
static_assert(KAPI_IB_MTU_256 == IB_MTU_256);
static_assert(KAPI_IB_MTU_4096 == IB_MTU_4096);
static_assert(KAPI_IB_SPEED_SDR == IB_SPEED_SDR);
static_assert(KAPI_IB_SPEED_DDR == IB_SPEED_DDR);
static_assert(KAPI_IB_SPEED_QDR == IB_SPEED_QDR);
static_assert(KAPI_IB_SPEED_FDR10 == IB_SPEED_FDR10);
static_assert(KAPI_IB_SPEED_FDR == IB_SPEED_FDR);
static_assert(KAPI_IB_SPEED_EDR == IB_SPEED_EDR);
static_assert(KAPI_IB_SPEED_HDR == IB_SPEED_HDR);
static_assert(KAPI_IB_SPEED_NDR == IB_SPEED_NDR);
static_assert(KAPI_IB_WIDTH_1X == IB_WIDTH_1X);
static_assert(KAPI_IB_WIDTH_4X == IB_WIDTH_4X);
static_assert(KAPI_IB_WIDTH_8X == IB_WIDTH_8X);
static_assert(KAPI_IB_WIDTH_12X == IB_WIDTH_12X);
static_assert(KAPI_IB_WIDTH_2X == IB_WIDTH_2X);
static_assert(KAPI_WC_SUCCESS == IB_WC_SUCCESS);
static_assert(KAPI_WC_WR_FLUSH_ERR == IB_WC_WR_FLUSH_ERR);
static_assert(KAPI_PACKET_HOST == PACKET_HOST);
static_assert(KAPI_PACKET_BROADCAST == PACKET_BROADCAST);
static_assert(KAPI_PACKET_MULTICAST == PACKET_MULTICAST);
static_assert(KAPI_PAGE_SIZE == PAGE_SIZE);
static_assert(KAPI_SKB_MAX_FRAGS == MAX_SKB_FRAGS);
static_assert(KAPI_IPOIB_MODE_DATAGRAM == IPOIB_MODE_DATAGRAM);
static_assert(KAPI_IPOIB_MODE_CONNECTED == IPOIB_MODE_CONNECTED);
