/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktest_api.h - the C boundary of the neutral test layer (kunit/, docs/testing-kunit.md).
 *
 * C++ test bodies never see <kunit/test.h>. They get an opaque struct ktest_ctx * (a
 * struct kunit * in the kernel, a host record on the host) and report through the few
 * extern "C" functions below. Two implementations exist:
 *   kunit/kernel/ktest_kunit.c  KUnit (kunit_err/kunit_set_failure/kunit_mark_skipped),
 *                               plus probes that need kernel headers (lock state, sizes,
 *                               a kernel socket)
 *   kunit/host/host.c           stdio + malloc, for `make -C kunit host`
 * Plain C, no kernel or libc header: included by C and by freestanding C++.
 */
#ifndef KTEST_API_H
#define KTEST_API_H

#include "kapi.h"

#ifdef __cplusplus
extern "C" {
#define KTEST_NOEXCEPT noexcept
#else
#define KTEST_NOEXCEPT
#endif

struct ktest_ctx;
typedef void (*ktest_fn)(struct ktest_ctx *kt);

/* A suite is a constinit table in its C++ file (KTEST_SUITE in ktest.h). */
struct ktest_case {
	const char *name;
	ktest_fn fn;
};
struct ktest_suite {
	const char *name;
	const struct ktest_case *cases;
	unsigned int ncases;
};

/* ---- reporting ---- */
/* Marks the running case failed and logs "file:line: message". */
void ktest_fail(struct ktest_ctx *kt, const char *file, int line, const char *msg) KTEST_NOEXCEPT;
/* Marks the running case skipped (the body should return right after). */
void ktest_skip(struct ktest_ctx *kt, const char *why) KTEST_NOEXCEPT;
void ktest_log(struct ktest_ctx *kt, const char *fmt, ...) KTEST_NOEXCEPT KAPI_PRINTF(2, 3);
/* vsnprintf, for formatting values on the C++ side (kernel or libc implementation). */
int ktest_snprintf(char *buf, kapi_size_t size, const char *fmt, ...) KTEST_NOEXCEPT KAPI_PRINTF(3, 4);
/* 1 on the host runner, 0 in the kernel. */
int ktest_on_host(void) KTEST_NOEXCEPT;

/*
 * ---- allocation accounting and fault injection ----
 * The test module's kapi_kmalloc/kapi_kfree wrap the shim's real ones (renamed at compile
 * time in the test build only). Every case is checked for a balanced count (a leak fails
 * the case); fault injection is disarmed between cases.
 */
long ktest_alloc_live(void) KTEST_NOEXCEPT;		/* successful allocations not yet freed */
long ktest_alloc_calls(void) KTEST_NOEXCEPT;		/* kapi_kmalloc calls since the case began */
/* The nth (0-based) kapi_kmalloc call from now returns NULL; n < 0 disarms. */
void ktest_alloc_fail_nth(long n) KTEST_NOEXCEPT;
/* Every kapi_kmalloc call from now returns NULL (until disarmed with 0). */
void ktest_alloc_fail_all(int on) KTEST_NOEXCEPT;

/*
 * ---- expected warnings ----
 * Between begin and end, kapi_warn() is counted instead of WARN()ing (a WARN would fail the
 * VM run). Outside that window the real kapi_warn runs.
 */
void ktest_warn_catch_begin(void) KTEST_NOEXCEPT;
int ktest_warn_catch_end(void) KTEST_NOEXCEPT;	/* warnings caught since begin */

/* ---- lock probes (kernel: spin_is_locked, irqs_disabled, lockdep keys) ---- */
int ktest_spin_is_locked(struct kapi_spinlock *l) KTEST_NOEXCEPT;
int ktest_mutex_is_locked(struct kapi_mutex *m) KTEST_NOEXCEPT;
int ktest_irqs_disabled(void) KTEST_NOEXCEPT;
int ktest_bh_disabled(void) KTEST_NOEXCEPT;
/* The lockdep class key and name of a lock, or NULL when lockdep is off. */
const void *ktest_spin_class(struct kapi_spinlock *l, const char **name) KTEST_NOEXCEPT;
const void *ktest_mutex_class(struct kapi_mutex *m, const char **name) KTEST_NOEXCEPT;

/*
 * ---- a kernel socket and an skb charged to its send buffer (the module only) ----
 * ktest_ksock_create: a kernel socket in init_net (sock_create_kern): raw != 0 an IPv4
 * SOCK_RAW/IPPROTO_ICMP one, as inet_ctl_sock_create makes the control sockets, else a
 * SOCK_DGRAM/UDP one. NULL on failure and always on the host, which has no sockets.
 * ktest_ksock_skb: an skb of len bytes charged to it (sock_wmalloc: skb_set_owner_w).
 * ktest_ksock_wmem: its send-buffer charge (sk_wmem_alloc_get); ktest_ksock_refs: its
 * reference count (sk_refcnt).
 * ktest_ksock_owns: 1 when skb->sk is that socket, 0 when it is another one or none.
 * Free the skbs (kapi_skb_free) before ktest_ksock_release.
 */
struct ktest_ksock;
struct ktest_ksock *ktest_ksock_create(int raw) KTEST_NOEXCEPT;
void ktest_ksock_release(struct ktest_ksock *ks) KTEST_NOEXCEPT;
struct kapi_skb *ktest_ksock_skb(struct ktest_ksock *ks, unsigned int len) KTEST_NOEXCEPT;
long ktest_ksock_wmem(const struct ktest_ksock *ks) KTEST_NOEXCEPT;
int ktest_ksock_owns(const struct ktest_ksock *ks, const struct kapi_skb *skb) KTEST_NOEXCEPT;
long ktest_ksock_refs(const struct ktest_ksock *ks) KTEST_NOEXCEPT;

/* ---- the real values behind kapi_sizes.h / kapi_consts.h, read at run time ---- */
struct ktest_sizes {
	unsigned long sizeof_spinlock, alignof_spinlock;
	unsigned long sizeof_mutex, alignof_mutex;
	unsigned int gfp_kernel, gfp_atomic, gfp_nowait, gfp_zero, gfp_nowarn;
	unsigned long kmalloc_minalign;
	unsigned long ifnamsiz, ib_device_name_max;
	int einval, enomem, eopnotsupp, enametoolong;
};
void ktest_real_sizes(struct ktest_sizes *out) KTEST_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif /* KTEST_API_H */
