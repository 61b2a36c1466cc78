/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fake_rcu.h - the host's fake of RCU (kapi_rcu.h) and of wait_var_event/wake_up_var
 * (kapi_lock.h), single-threaded: read sections nest a depth counter, call_rcu queues the
 * callback until the test ends the grace period (fake_rcu_grace) or calls rcu_barrier; a
 * wait runs the test's hook once (what another context would do meanwhile) and times out
 * if the variable is still non-zero. Each case starts from a clean state (fake_rcu_reset).
 */
#ifndef FAKE_RCU_H
#define FAKE_RCU_H

#include "kapi.h"

#ifdef __cplusplus
extern "C" {
#endif

int fake_rcu_depth(void) KAPI_NOEXCEPT;		/* read sections open now */
int fake_rcu_reads(void) KAPI_NOEXCEPT;		/* read sections entered since the reset */
int fake_rcu_pending(void) KAPI_NOEXCEPT;	/* callbacks queued, not run */
int fake_rcu_grace(void) KAPI_NOEXCEPT;		/* runs every queued callback; returns how many */

typedef void (*fake_wait_hook)(void *arg);
/* The next kapi_wait_var_zero calls hook(arg) once before it decides. */
void fake_wait_set_hook(fake_wait_hook hook, void *arg) KAPI_NOEXCEPT;
int fake_waits(void) KAPI_NOEXCEPT;		/* kapi_wait_var_zero calls */
int fake_wait_timeouts(void) KAPI_NOEXCEPT;
int fake_wakes(void) KAPI_NOEXCEPT;		/* kapi_wake_var calls */
void fake_rcu_reset(void) KAPI_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif
