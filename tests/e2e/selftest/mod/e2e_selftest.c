// SPDX-License-Identifier: GPL-2.0
/*
 * e2e_selftest: misbehaves on request, so that `scripts/vm-test --selftest` can prove the
 * harness fails a run on each kind of kernel report. Each parameter triggers one fault at load:
 *   warn=1     WARN_ON(1)                              -> "WARNING:" in the log
 *   leak=1     kmalloc(128) and forget the pointer     -> kmemleak "unreferenced object"
 *   lockdep=1  take two locks in A-B then B-A order    -> "possible circular locking"
 *   uaf=1      read freed memory                       -> "BUG: KASAN: slab-use-after-free"
 *   busy=1     pin the module (refcount)               -> rmmod fails
 *   hang=1     init sleeps (interruptibly) for an hour -> the VM never finishes
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/mutex.h>
#include <linux/delay.h>
#include <linux/bug.h>

static bool warn, leak, lockdep, uaf, busy, hang;
module_param(warn, bool, 0444);
module_param(leak, bool, 0444);
module_param(lockdep, bool, 0444);
module_param(uaf, bool, 0444);
module_param(busy, bool, 0444);
module_param(hang, bool, 0444);

static DEFINE_MUTEX(lock_a);
static DEFINE_MUTEX(lock_b);
static void *volatile sink;

static int __init e2e_selftest_init(void)
{
	pr_info("loaded: warn=%d leak=%d lockdep=%d uaf=%d busy=%d hang=%d\n",
		warn, leak, lockdep, uaf, busy, hang);
	if (warn)
		WARN_ON(1);
	if (leak) {
		sink = kmalloc(128, GFP_KERNEL);
		sink = NULL;
	}
	if (lockdep) {
		mutex_lock(&lock_a);
		mutex_lock(&lock_b);
		mutex_unlock(&lock_b);
		mutex_unlock(&lock_a);
		mutex_lock(&lock_b);
		mutex_lock(&lock_a);
		mutex_unlock(&lock_a);
		mutex_unlock(&lock_b);
	}
	if (uaf) {
		char *p = kmalloc(64, GFP_KERNEL);

		if (p) {
			kfree(p);
			pr_info("read after free: %d\n", READ_ONCE(p[8]));
		}
	}
	if (busy)
		__module_get(THIS_MODULE);
	if (hang) {
		int i;

		for (i = 0; i < 3600; i++)
			msleep_interruptible(1000);
	}
	return 0;
}

static void __exit e2e_selftest_exit(void)
{
	pr_info("unloaded\n");
}

module_init(e2e_selftest_init);
module_exit(e2e_selftest_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("e2e harness self-test: triggers kernel reports on request");
