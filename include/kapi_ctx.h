/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kapi_ctx.h - the typed opaque context. Every core object the shim hands back to the core
 * (an interface, a port, a QP, an SRQ, a multicast join, a path query, a debugfs file, a
 * work item) embeds one struct kapi_ctx as its first member. The shim stores and returns the
 * pointer and never looks inside; the core checks canary and kind before it converts the
 * pointer back (ipoib_ctx.h), so a stale, freed or foreign pointer is caught and counted
 * instead of being dereferenced as the wrong type. docs/design.md §4 item 1: completions and
 * events dispatch on this tag, not on a "the one UD QP" assumption.
 */
#ifndef KAPI_CTX_H
#define KAPI_CTX_H

#include "kapi_types.h"

#define KAPI_CTX_CANARY 0x1b0bca7eU	/* a live object; cleared on destruction */

enum kapi_ctx_kind {
	KAPI_CTX_NONE,
	KAPI_CTX_DRIVER,	/* ib_client context */
	KAPI_CTX_PORT,		/* owner of a port's interfaces (sysfs create_child, rtnl links) */
	KAPI_CTX_INTERFACE,	/* a netdev's core object */
	KAPI_CTX_UD_QP,		/* the datagram QP of an interface */
	KAPI_CTX_RC_QP,		/* a connected-mode QP (next) */
	KAPI_CTX_SRQ,		/* a shared receive queue (next) */
	KAPI_CTX_MCAST,		/* a multicast join */
	KAPI_CTX_PATH,		/* a path query */
	KAPI_CTX_DEBUGFS,	/* a debugfs file */
	KAPI_CTX_TEST,		/* kunit only */
	KAPI_CTX_KIND_COUNT
};

struct kapi_ctx {
	kapi_u32 canary;
	kapi_u32 kind;		/* enum kapi_ctx_kind */
};

#endif /* KAPI_CTX_H */
