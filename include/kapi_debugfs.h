/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kapi_debugfs.h - the shim file kapi/debugfs.c: <root>/ib_ipoib_cm/<dir>/<file>. Which files
 * exist and what they say is the core's; a read calls ipoib_core_debugfs_show(file ctx).
 * Same rules as kapi.h: opaque types, plain C, one kernel thing per function, no policy.
 * Included by kapi.h.
 */
#ifndef KAPI_DEBUGFS_H
#define KAPI_DEBUGFS_H

#include "kapi_ctx.h"

#ifdef __cplusplus
extern "C" {
#endif

struct kapi_seq;	/* struct seq_file */
struct kapi_debugfs;	/* one directory */
int kapi_debugfs_init(void) KAPI_NOEXCEPT;	/* the module's root directory */
void kapi_debugfs_exit(void) KAPI_NOEXCEPT;
struct kapi_debugfs *kapi_debugfs_dir(const char *name) KAPI_NOEXCEPT;	/* NULL if unavailable */
/* A 0400 file in d whose reads call ipoib_core_debugfs_show(ctx, seq). */
void kapi_debugfs_file(struct kapi_debugfs *d, const char *name, struct kapi_ctx *ctx) KAPI_NOEXCEPT;
/* A 0600 file: reads as kapi_debugfs_file; a write of n bytes calls
 * ipoib_core_debugfs_write(ctx, buf, len, n) with the first len = min(n, KAPI_DEBUGFS_WRITE_MAX)
 * bytes, and returns its error or n. */
#define KAPI_DEBUGFS_WRITE_MAX 32
void kapi_debugfs_knob(struct kapi_debugfs *d, const char *name, struct kapi_ctx *ctx) KAPI_NOEXCEPT;
/* Renames the directory (same parent): 0 or the error (-EINVAL when the name is taken:
 * debugfs_rename reports an existing target so, not as -EEXIST). */
int kapi_debugfs_rename(struct kapi_debugfs *d, const char *name) KAPI_NOEXCEPT;
/* Removes the directory and its files; waits for readers still inside a show function. */
void kapi_debugfs_remove(struct kapi_debugfs *d) KAPI_NOEXCEPT;
void kapi_seq_printf(struct kapi_seq *s, const char *fmt, ...) KAPI_NOEXCEPT KAPI_PRINTF(2, 3);

#ifdef __cplusplus
}
#endif

#endif /* KAPI_DEBUGFS_H */
