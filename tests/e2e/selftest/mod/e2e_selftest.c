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
 * and, written at run time (the scenario first shortens the detector's period):
 *   echo hung > /sys/module/e2e_selftest/parameters/trigger
 *              a kthread sleeps 20 s uninterruptibly  -> "INFO: task ... blocked for more than"
 *   echo softlockup > .../trigger
 *              a kthread spins 8 s, preemption off   -> "BUG: soft lockup"
 *   echo ubsan > .../trigger
 *              an array index and a shift out of range -> "UBSAN: array-index-out-of-bounds",
 *                                                        "UBSAN: shift-out-of-bounds"
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/mutex.h>
#include <linux/delay.h>
#include <linux/bug.h>
#include <linux/kthread.h>
#include <linux/jiffies.h>
#include <linux/string.h>

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
static volatile int sink_int;
static volatile int bad_index = 4, bad_shift = 40;
/* the index is out of small[]'s bounds but inside the struct: UBSAN's report, not KASAN's */
static struct { int small[4]; int pad[4]; } arr;
static struct task_struct *worker;

static int hung_fn(void *unused)
{
	msleep(20000);		/* TASK_UNINTERRUPTIBLE: the hung-task detector's case */
	while (!kthread_should_stop())
		msleep_interruptible(100);
	return 0;
}

static int spin_fn(void *unused)
{
	unsigned long end = jiffies + 8 * HZ;

	preempt_disable();
	while (time_before(jiffies, end))
		cpu_relax();
	preempt_enable();
	while (!kthread_should_stop())
		msleep_interruptible(100);
	return 0;
}

static int trigger_set(const char *val, const struct kernel_param *kp)
{
	if (worker)
		return -EBUSY;
	if (sysfs_streq(val, "hung")) {
		worker = kthread_run(hung_fn, NULL, "e2e_hung");
	} else if (sysfs_streq(val, "softlockup")) {
		worker = kthread_run(spin_fn, NULL, "e2e_spin");
	} else if (sysfs_streq(val, "ubsan")) {
		sink_int = arr.small[bad_index];
		sink_int = 1 << bad_shift;
		return 0;
	} else {
		return -EINVAL;
	}
	if (IS_ERR(worker)) {
		int err = PTR_ERR(worker);

		worker = NULL;
		return err;
	}
	pr_info("trigger: %s started\n", val);
	return 0;
}

static const struct kernel_param_ops trigger_ops = { .set = trigger_set };
module_param_cb(trigger, &trigger_ops, NULL, 0200);

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
	if (worker)
		kthread_stop(worker);
	pr_info("unloaded\n");
}

module_init(e2e_selftest_init);
module_exit(e2e_selftest_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("e2e harness self-test: triggers kernel reports on request");
