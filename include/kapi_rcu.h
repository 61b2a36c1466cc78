/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kapi_rcu.h - the shim file kapi/rcu.c: what the neighbour table needs from the kernel:
 * RCU (read side, deferred free, barrier), a delayed work item of its own (the GC), and the
 * IPv4 ARP table's GC parameters the ageing follows. Same rules as kapi.h; included by
 * kapi.h.
 */
#ifndef KAPI_RCU_H
#define KAPI_RCU_H

#include "kapi_ctx.h"

#ifdef __cplusplus
extern "C" {
#endif

/* rcu_read_lock()/rcu_read_unlock(). */
void kapi_rcu_read_lock(void) KAPI_NOEXCEPT;
void kapi_rcu_read_unlock(void) KAPI_NOEXCEPT;

/* struct rcu_head embedded in a C++ object (storage: KAPI_SIZEOF_RCU_HEAD bytes,
 * KAPI_ALIGNOF_RCU_HEAD aligned). call_rcu(): fn(head) runs after a grace period, in
 * softirq context. */
struct kapi_rcu_head;
typedef void (*kapi_rcu_fn)(struct kapi_rcu_head *head);
void kapi_call_rcu(struct kapi_rcu_head *head, kapi_rcu_fn fn) KAPI_NOEXCEPT;
/* rcu_barrier(): every callback queued by kapi_call_rcu so far has run. Sleeps. */
void kapi_rcu_barrier(void) KAPI_NOEXCEPT;

/* A delayed work item on system_wq running fn(ctx) in process context. create: NULL on
 * allocation failure; schedule: mod_delayed_work; cancel: cancel_delayed_work_sync (also
 * stops a work that re-arms itself); free: after cancel. */
struct kapi_dwork;
struct kapi_dwork *kapi_dwork_create(void (*fn)(struct kapi_ctx *ctx), struct kapi_ctx *ctx) KAPI_NOEXCEPT;
void kapi_dwork_schedule(struct kapi_dwork *w, unsigned int delay_ms) KAPI_NOEXCEPT;
void kapi_dwork_cancel(struct kapi_dwork *w) KAPI_NOEXCEPT;
void kapi_dwork_free(struct kapi_dwork *w) KAPI_NOEXCEPT;

/* arp_tbl.gc_interval in ms (writable as /proc/sys/net/ipv4/neigh/default/gc_interval) and
 * arp_tbl.gc_thresh3 (the table's hard size limit). Read at each use. */
kapi_u64 kapi_arp_gc_interval_ms(void) KAPI_NOEXCEPT;
int kapi_arp_gc_thresh3(void) KAPI_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif /* KAPI_RCU_H */
