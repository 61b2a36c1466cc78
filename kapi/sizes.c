// SPDX-License-Identifier: GPL-2.0
/*
 * Compiled to assembly only and turned into include/generated/kapi_sizes.h by Kbuild's
 * filechk_offsets (the asm-offsets technique): the C++ core cannot include kernel headers,
 * yet must embed lock storage and pass GFP flags, so the values come from the kernel it is
 * built against. kapi/static_checks.c asserts they still match.
 */
#include <linux/kbuild.h>
#include <linux/spinlock.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/netdevice.h>
#include <rdma/ib_verbs.h>

int main(void);
int main(void)
{
	DEFINE(KAPI_SIZEOF_SPINLOCK, sizeof(spinlock_t));
	DEFINE(KAPI_ALIGNOF_SPINLOCK, __alignof__(spinlock_t));
	DEFINE(KAPI_SIZEOF_MUTEX, sizeof(struct mutex));
	DEFINE(KAPI_ALIGNOF_MUTEX, __alignof__(struct mutex));
	/* struct kapi_rcu_box of kapi/rcu.c: an rcu_head and a function pointer */
	DEFINE(KAPI_SIZEOF_RCU_HEAD, sizeof(struct rcu_head) + sizeof(void (*)(void)));
	DEFINE(KAPI_ALIGNOF_RCU_HEAD, __alignof__(struct rcu_head));
	DEFINE(KAPI_GFP_KERNEL, GFP_KERNEL);
	DEFINE(KAPI_GFP_ATOMIC, GFP_ATOMIC);
	DEFINE(KAPI_GFP_NOWAIT, GFP_NOWAIT);
	DEFINE(KAPI_GFP_ZERO, __GFP_ZERO);
	DEFINE(KAPI_GFP_NOWARN, __GFP_NOWARN);
	DEFINE(KAPI_KMALLOC_MINALIGN, ARCH_KMALLOC_MINALIGN);
	DEFINE(KAPI_IFNAMSIZ, IFNAMSIZ);
	DEFINE(KAPI_IB_DEVICE_NAME_MAX, IB_DEVICE_NAME_MAX);
	return 0;
}
