/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kapi.h - the one boundary between the C++ core and the kernel.
 *
 * Included by the C shim (the kapi/ C files, which also see kernel headers) and by the C++ core
 * (which sees nothing else of the kernel). Everything here is plain C: extern "C"
 * functions, opaque struct declarations, fixed-width integers from the compiler, and
 * constants generated from the real kernel headers (kapi_sizes.h, asm-offsets technique;
 * the shim static_asserts they still match). No function is declared noreturn: objtool
 * cannot see across objects (cxx-kernel.md, pitfall 5); C++ wraps such calls itself.
 */
#ifndef KAPI_H
#define KAPI_H

#include "kapi_consts.h"
#include "kapi_sizes.h"

#ifdef __cplusplus
extern "C" {
#define KAPI_NOEXCEPT noexcept
#else
#define KAPI_NOEXCEPT
#endif

typedef __SIZE_TYPE__ kapi_size_t;
typedef __UINT8_TYPE__ kapi_u8;
typedef __UINT16_TYPE__ kapi_u16;
typedef __UINT32_TYPE__ kapi_u32;
typedef __UINT64_TYPE__ kapi_u64;

#define KAPI_PRINTF(f, a) __attribute__((format(printf, f, a)))

/* ---- memory ---- */
void *kapi_kmalloc(kapi_size_t size, unsigned int gfp) KAPI_NOEXCEPT;
void kapi_kfree(const void *p) KAPI_NOEXCEPT;

/* ---- logging: the shim prefixes every line with the module name ---- */
enum kapi_log_level {
	KAPI_LOG_ERR,
	KAPI_LOG_WARN,
	KAPI_LOG_NOTICE,
	KAPI_LOG_INFO,
	KAPI_LOG_DEBUG,
};
/* prefix: NULL or a string printed after the module prefix ("mlx5_0:1"). */
void kapi_vlog(enum kapi_log_level level, const char *prefix, const char *fmt,
	       __builtin_va_list ap) KAPI_NOEXCEPT KAPI_PRINTF(3, 0);

/* ---- fatal/diagnostic: never noreturn here (see top); C++ wraps kapi_bug as [[noreturn]] ---- */
void kapi_bug(const char *file, int line, const char *what) KAPI_NOEXCEPT;
void kapi_warn(const char *file, int line, const char *what) KAPI_NOEXCEPT;

/*
 * ---- locks ----
 * C++ embeds the kernel's lock storage (sizes generated), the shim initialises it. Each
 * lock *role* gets its own static lock_class_key in the shim so lockdep sees one class per
 * role rather than one class for every lock initialised at the same shim call site.
 * Add a role here and its name in kapi/lock.c (a static_assert keeps the table complete).
 */
enum kapi_lock_role {
	KAPI_LOCK_DRIVER_DEVICES,	/* mutex: Driver's list of bound IB devices */
	KAPI_LOCK_DEVICE_PORTS,		/* spinlock: a Device's list of ports (lookups from atomic context) */
	KAPI_LOCK_IF_PATHS,		/* spinlock (irqsave): an interface's path table and AH reaper list */
	KAPI_LOCK_IF_MCAST,		/* spinlock (irqsave): an interface's multicast group table */
	KAPI_LOCK_PORT_CHILDREN,	/* mutex: a Port's P_Key child interfaces (taken under rtnl) */
	KAPI_LOCK_IF_NEIGH,		/* spinlock (irqsave): an interface's neighbour hash (writers; readers use RCU) */
	KAPI_LOCK_SELFTEST_A,		/* reserved for tests (kunit/) */
	KAPI_LOCK_SELFTEST_B,
	KAPI_LOCK_ROLE_COUNT
};
struct kapi_spinlock;	/* storage: KAPI_SIZEOF_SPINLOCK bytes, KAPI_ALIGNOF_SPINLOCK aligned */
struct kapi_mutex;	/* storage: KAPI_SIZEOF_MUTEX bytes, KAPI_ALIGNOF_MUTEX aligned */

void kapi_spin_init(struct kapi_spinlock *l, enum kapi_lock_role role) KAPI_NOEXCEPT;
void kapi_spin_lock(struct kapi_spinlock *l) KAPI_NOEXCEPT;
void kapi_spin_unlock(struct kapi_spinlock *l) KAPI_NOEXCEPT;
void kapi_spin_lock_bh(struct kapi_spinlock *l) KAPI_NOEXCEPT;
void kapi_spin_unlock_bh(struct kapi_spinlock *l) KAPI_NOEXCEPT;
unsigned long kapi_spin_lock_irqsave(struct kapi_spinlock *l) KAPI_NOEXCEPT;
void kapi_spin_unlock_irqrestore(struct kapi_spinlock *l, unsigned long flags) KAPI_NOEXCEPT;

void kapi_mutex_init(struct kapi_mutex *m, enum kapi_lock_role role) KAPI_NOEXCEPT;
void kapi_mutex_destroy(struct kapi_mutex *m) KAPI_NOEXCEPT;
void kapi_mutex_lock(struct kapi_mutex *m) KAPI_NOEXCEPT;
void kapi_mutex_unlock(struct kapi_mutex *m) KAPI_NOEXCEPT;
void kapi_might_sleep(void) KAPI_NOEXCEPT;

/* ---- InfiniBand client ---- */
struct kapi_ib_device;	/* struct ib_device */

/* Registers the driver's ib_client; add/remove land in ipoib_core_{add,remove}_device(). */
int kapi_ib_register_client(void *core) KAPI_NOEXCEPT;
void kapi_ib_unregister_client(void) KAPI_NOEXCEPT;
const char *kapi_ib_device_name(const struct kapi_ib_device *dev) KAPI_NOEXCEPT;
kapi_u32 kapi_ib_first_port(const struct kapi_ib_device *dev) KAPI_NOEXCEPT;
kapi_u32 kapi_ib_last_port(const struct kapi_ib_device *dev) KAPI_NOEXCEPT;
/* rdma_protocol_ib(): the port runs the InfiniBand link layer (not RoCE/iWARP/OPA). */
int kapi_ib_port_is_ib(const struct kapi_ib_device *dev, kapi_u32 port) KAPI_NOEXCEPT;

/* ---- module parameters, read by the core at init (registered by the shim, 0444) ---- */
struct kapi_params {
	const char *ports;	/* "" = every IB port; else "dev[:port],..." */
	const char *ifname;	/* netdev name template, one %d */
	int debug_level;
	int send_queue_size;	/* UD send ring entries (clamped by the core) */
	int recv_queue_size;	/* UD receive ring entries (clamped by the core) */
};

/* ---- entry points the core implements (called only from the shim) ---- */
int ipoib_core_init(const struct kapi_params *params) KAPI_NOEXCEPT;
void ipoib_core_exit(void) KAPI_NOEXCEPT;
/* Returns 0 and sets *ctx to keep the device, or -EOPNOTSUPP when nothing on it is wanted. */
int ipoib_core_add_device(void *core, struct kapi_ib_device *dev, void **ctx) KAPI_NOEXCEPT;
void ipoib_core_remove_device(void *core, struct kapi_ib_device *dev, void *ctx) KAPI_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#include "kapi_ud.h"
#include "kapi_lookup.h"
#include "kapi_neigh.h"

#endif /* KAPI_H */
