/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kapi.h - the one boundary between the C++ core and the kernel: its types, and every
 * subsystem header (one per shim file, below). This file itself is kapi/core.c's part:
 * memory, logging, BUG/WARN, time.
 *
 * Included by the C shim (the kapi/ C files, which also see kernel headers) and by the C++ core
 * (which sees nothing else of the kernel). Everything here is plain C: extern "C"
 * functions, opaque struct declarations, fixed-width integers from the compiler, and
 * constants generated from the real kernel headers (kapi_sizes.h, asm-offsets technique;
 * the shim static_asserts they still match). No function is declared noreturn: objtool
 * does not know noreturn functions of other objects and warns "falls through"; C++ wraps
 * such calls itself (kstd/base.h KSTD_UNREACHABLE).
 */
#ifndef KAPI_H
#define KAPI_H

#include "kapi_consts.h"
#include "kapi_sizes.h"
#include "kapi_types.h"

#ifdef __cplusplus
extern "C" {
#endif

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

/* ---- time ---- */
void kapi_msleep(unsigned int ms) KAPI_NOEXCEPT;
kapi_u64 kapi_now_ms(void) KAPI_NOEXCEPT;	/* jiffies in ms, monotonic */

#ifdef __cplusplus
}
#endif

/* One header per shim file (kapi/<name>.c), and the core's entry points. */
#include "kapi_ctx.h"
#include "kapi_lock.h"
#include "kapi_ib.h"
#include "kapi_params.h"
#include "kapi_events.h"
#include "kapi_verbs.h"
#include "kapi_netdev.h"
#include "kapi_skb.h"
#include "kapi_sa.h"
#include "kapi_debugfs.h"
#include "kapi_link.h"
#include "kapi_rcu.h"
#include "kapi_lookup.h"
#include "kapi_cm.h"
#include "kapi_icmp.h"
#include "kapi_entry.h"

#endif /* KAPI_H */
