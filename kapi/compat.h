/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compat.h - the kernel-version differences of the shim, in one place (docs/build.md,
 * "Supported kernels"). Seen by the shim's C files only; the C++ core never knows which
 * kernel it runs on. Supported: Debian 12's 6.1 and the 6.12 LTS from bookworm-backports.
 *
 * Each difference is detected from the type the kernel's own headers declare, not from
 * LINUX_VERSION_CODE: a stable series can take a signature change in any point release
 * (header_ops.parse changed inside 6.12.y), so a version number cannot say which variant
 * a tree has, while the declared type always can. The shim defines one callback per
 * variant (a two-line adapter around the shared body) and a *_pick() macro below puts the
 * one that matches in the ops table or call. A kernel with a third variant matches neither: the
 * build then fails on an incompatible function pointer (-Werror=incompatible-pointer-types,
 * Kbuild's default), never silently.
 */
#ifndef KAPI_COMPAT_H
#define KAPI_COMPAT_H

#include <linux/netdevice.h>
#include <rdma/ib_sa.h>

/*
 * kapi_pick(type, fn_a, fn_b): fn_a when its type is TYPE, else fn_b. A compile-time choice
 * (__builtin_choose_expr): the other function is referenced but not called, so no
 * "defined but not used" for it, and no code for it survives the optimiser.
 */
#define kapi_pick(type, fn_a, fn_b) \
	__builtin_choose_expr(__builtin_types_compatible_p(type, typeof(&(fn_a))), (fn_a), (fn_b))

/*
 * ib_sa_path_rec_get()'s completion callback takes "unsigned int num_prs" (6.12; "int
 * num_prs" in 6.1). The callback is a parameter, whose type C cannot name directly, so the
 * test compares the whole prototype with the 6.12 one declared here (only its type is used;
 * the function is never defined or called).
 */
typedef void kapi_sa_path_cb_uint_fn(int status, struct sa_path_rec *resp, unsigned int num_prs,
				     void *context);
int kapi_sa_path_rec_get_uint_proto(struct ib_sa_client *client, struct ib_device *device,
				    u32 port_num, struct sa_path_rec *rec,
				    ib_sa_comp_mask comp_mask, unsigned long timeout_ms,
				    gfp_t gfp_mask, kapi_sa_path_cb_uint_fn *callback,
				    void *context, struct ib_sa_query **query);
#define kapi_sa_path_cb_pick(fn_uint, fn_int)                                                     \
	__builtin_choose_expr(__builtin_types_compatible_p(typeof(&ib_sa_path_rec_get),             \
							   typeof(&kapi_sa_path_rec_get_uint_proto)), \
			      (fn_uint), (fn_int))

#endif /* KAPI_COMPAT_H */
