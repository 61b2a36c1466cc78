// SPDX-License-Identifier: GPL-2.0
/*
 * Shim: registering, unregistering and freeing our net_devices (netdev.c allocates them),
 * and the test knob that makes a P_Key child's registration fail in the kernel's sysfs step.
 */
#include <linux/atomic.h>
#include <linux/device.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include "kapi.h"
#include "netdev_priv.h"

/* NETDEV_CHANGENAME of our netdevs (udev's ib0 -> ibp0s9, ip link set ... name) goes to the
 * core, under rtnl as every netdev notifier. */
static int kapi_nd_notify(struct notifier_block *nb, unsigned long event, void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);

	if (event == NETDEV_CHANGENAME && dev->netdev_ops == &kapi_nd_ops)
		ipoib_core_if_renamed(core_of(dev));
	return NOTIFY_DONE;
}

static struct notifier_block kapi_nd_notifier = {
	.notifier_call = kapi_nd_notify,
};

int kapi_netdev_notifier_register(void)
{
	return register_netdevice_notifier(&kapi_nd_notifier);
}

void kapi_netdev_notifier_unregister(void)
{
	unregister_netdevice_notifier(&kapi_nd_notifier);
}

void kapi_netdev_free(struct kapi_netdev *nd)
{
	struct net_device *dev = to_nd(nd);
	struct kapi_netdev_priv *p = nd_priv(dev);

	/* the CQs are destroyed: nothing kicks any more; a kick still pending runs or is gone */
	kapi_napi_kick_kill(p);
	/*
	 * A net_device rtnl allocated (ip link add) whose register_netdevice() failed is freed by
	 * rtnl_newlink_create() when our newlink returns the error (6.1 and 6.12), whatever state
	 * the failure left: NETREG_UNINITIALIZED (an early step), NETREG_UNREGISTERED (the sysfs
	 * step, netdev_register_kobject: free_netdev() releases it at once, so a second one is a
	 * use after free and a double free; e2e ipoib-pkey-regfail) or
	 * NETREG_UNREGISTERING (a NETDEV_REGISTER notifier refused: free_netdev() only marks it).
	 * reg_state alone cannot tell: a child registered, then unregistered, is UNREGISTERED too
	 * and is ours to free.
	 */
	if (p->adopted && !p->registered)
		return;
	netif_napi_del(&p->napi);
	/* Under rtnl right after unregister_netdevice() this only marks it: netdev_run_todo frees. */
	free_netdev(dev);
}

#ifdef IPOIB_TEST_KNOBS
/*
 * Test knob, test variant only (Kbuild IPOIB_TEST_KNOBS; tests/e2e/README.md, ipoib-pkey-regfail): debugfs ib_ipoib_cm/fail_child_register
 * = N makes the next N P_Key children fail register_netdevice() in netdev_register_kobject(),
 * the sysfs step after which the kernel leaves the device NETREG_UNREGISTERED (6.1 and 6.12
 * alike). The child gets, for that one call, a parent device that was never added: the glue
 * directory "net" cannot be created under it (-ENOENT, one "kobject_add_internal failed" log
 * line, no warning), which is a real failure of that kernel step, not a simulated return.
 */
atomic_t kapi_fail_child_register = ATOMIC_INIT(0);

static void kapi_fault_parent_release(struct device *d)
{
	kfree(d);
}

/* A device_initialize()d, never added device: no sysfs directory to put children in. */
static struct device *kapi_fault_parent(void)
{
	struct device *d = kzalloc(sizeof(*d), GFP_KERNEL);

	if (!d)
		return NULL;
	device_initialize(d);
	d->release = kapi_fault_parent_release;
	if (dev_set_name(d, "ib_ipoib_cm-fail_child_register")) {
		put_device(d);
		return NULL;
	}
	return d;
}

/* The fake parent when the knob asks for a failure, else NULL. */
static struct device *kapi_register_fault(struct kapi_netdev_priv *p, struct net_device *dev)
{
	struct device *fake = NULL;

	if (p->parent && atomic_add_unless(&kapi_fail_child_register, -1, 0)) {
		fake = kapi_fault_parent();
		if (fake)
			dev->dev.parent = fake;
	}
	return fake;
}
#else
static struct device *kapi_register_fault(struct kapi_netdev_priv *p, struct net_device *dev)
{
	return NULL;
}
#endif

static int kapi_register(struct net_device *dev, bool locked)
{
	struct kapi_netdev_priv *p = nd_priv(dev);
	struct device *real = dev->dev.parent, *fake = kapi_register_fault(p, dev);
	int ret;

	ret = locked ? register_netdevice(dev) : register_netdev(dev);
	if (fake) {
		/* device_add() dropped its reference to the parent when it failed */
		if (ret)
			dev->dev.parent = real;
		put_device(fake);
	}
	if (!ret)
		p->registered = true;
	return ret;
}

int kapi_netdev_register(struct kapi_netdev *nd)
{
	return kapi_register(to_nd(nd), false);
}

void kapi_netdev_unregister(struct kapi_netdev *nd)
{
	unregister_netdev(to_nd(nd));
}

int kapi_netdev_register_locked(struct kapi_netdev *nd)
{
	ASSERT_RTNL();
	return kapi_register(to_nd(nd), true);
}

void kapi_netdev_unregister_locked(struct kapi_netdev *nd)
{
	ASSERT_RTNL();
	unregister_netdevice(to_nd(nd));
}
