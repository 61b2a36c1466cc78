// SPDX-License-Identifier: GPL-2.0
// ipoib_device.h - the core's driver/device/port model. One owner type per kernel resource; constructors
// never fail, failable bring-up is `Status start()`, and `teardown()` undoes it in stages
// (unpublish -> quiesce -> free) so every error path and unload share one sequence.
//
// Ownership:  Driver (one, from module init)
//               -> Device (per ib_device ib_core hands us; the ib_client's client_data)
//                    -> Port (per bound port)
//
//                         -> Child (per P_Key child interface: sysfs create_child, ip link add)
//
// Locking order (outer first); each lock is its own lockdep class (kapi_lock_role):
//   Driver::devices_lock_  mutex     KAPI_LOCK_DRIVER_DEVICES  process context only
//   Device::ports_lock_    mutex     KAPI_LOCK_DEVICE_PORTS    held to link/unlink/look up; the
//                                                              rdma_cm lookup nests children_lock_
//   rtnl -> Port::children_lock_  mutex  KAPI_LOCK_PORT_CHILDREN
//     Creating a child holds it (under rtnl) across the child's start(), so a concurrent
//     Port::teardown either sees the child in the list or finds dying_ set first. Deleting
//     (rtnl held) holds it only to unlink. Port::teardown takes it without rtnl, only to set
//     dying_ and take the list; it never takes rtnl while holding it.
#pragma once

#include "ipoib_if.h"
#include "core/ipoib_params.h"
#include "core/netdev/ipoib_pkey.h"
#include "kstd/lock.h"
#include "kstd/list.h"
#include "kstd/log.h"
#include "kstd/unique.h"

namespace ipoib {

using kstd::Gfp;

// debug_level, for IPOIB_DBG: set at load, and by writes to the module parameter
// (set_debug_level, ipoib_main.cpp); read and written atomically.
extern constinit int g_debug_level;
Status set_debug_level(StrView v);

#define IPOIB_DBG(level, fmt, ...)                                                      \
	do {                                                                            \
		if (__atomic_load_n(&::ipoib::g_debug_level, __ATOMIC_RELAXED) >= (level)) \
			::kstd::log.debug(fmt, ##__VA_ARGS__);                          \
	} while (0)

// The validated module parameters.
struct Config {
	PortSelection ports;
	char ifname[KAPI_IFNAMSIZ] = {};
	int debug_level = 0;
	u32 send_queue_size = 128;
	u32 recv_queue_size = 256;
	CmParams cm;	// connected mode

	// Validates everything; on failure logs exactly one line naming the parameter.
	Status load(const kapi_params &params);
};

class Device;

// A P_Key child interface: a full Interface of its own on its parent's port.
struct Child : kstd::ListLink<>, kstd::NonCopyable {
	kstd::Unique<Interface> ifc;
	u16 pkey = 0;		// with the full-member bit
	bool legacy = false;	// made by create_child: unique per P_Key, delete_child finds it
};

// One bound IB port: its datagram-mode interface and its P_Key children (later: connections).
class Port : public Tagged<KAPI_CTX_PORT>, public kstd::ListLink<>, kstd::NonCopyable {
public:
	Port(Device &dev, u32 num, const Config &cfg)
		: dev_(dev), num_(num), cfg_(cfg), children_lock_(KAPI_LOCK_PORT_CHILDREN)
	{
	}
	~Port() { KSTD_WARN_ON(started_ || !children_.empty()); }

	Status start();
	void teardown();	// children first, then the port's own interface
	u32 num() const { return num_; }

	// Calls f(Interface &) for the port's interface, then every P_Key child, with
	// children_lock_ held (the set cannot change meanwhile); f must not take rtnl.
	template <typename F> void for_each_interface(F &&f)
	{
		if (if_)
			f(*if_);
		kstd::MutexGuard g(children_lock_);
		for (Child &c : children_)
			f(*c.ifc);
	}

	// P_Key children (ipoib_child.cpp); every one of these runs with rtnl held.
	Status sysfs_child(bool create, StrView value);
	Status newlink(kapi_netdev *dev, bool parent_is_child, const LinkArgs &args);
	void dellink(Interface *ifc);
	// newlink as the shim saw it: port is nullptr when the parent is missing or not ours.
	static Status newlink_checked(Port *port, kapi_netdev *parent, kapi_netdev *dev, bool parent_is_child,
				      bool has_link, const LinkArgs &args);

private:
	Status add_child(u16 pkey, bool legacy, const char *name, kapi_netdev *adopt, Interface *&out);
	void destroy_child(Child *c, bool rtnl_held);
	void teardown_children();

	Device &dev_;
	u32 num_;
	const Config &cfg_;
	kstd::Unique<Interface> if_;
	bool started_ = false;
	kstd::Mutex children_lock_;
	kstd::List<Child> children_;
	bool dying_ = false;	// under children_lock_: no new children
};

// One ib_device with at least one bound port.
class Device : public kstd::ListLink<>, kstd::NonCopyable {
public:
	Device(kapi_ib_device *ib, const Config &cfg) : ib_(ib), cfg_(cfg), ports_lock_(KAPI_LOCK_DEVICE_PORTS) {}
	~Device() { KSTD_WARN_ON(!ports_.empty()); }

	// Binds the selected InfiniBand ports; NotSupported when none is selected.
	Status start();
	void teardown();
	const char *name() const { return kapi_ib_device_name(ib_); }
	kapi_ib_device *ib() const { return ib_; }

	// rdma_cm's netdev lookup (ipoib_lookup.cpp): a held netdev or nullptr.
	kapi_netdev *get_netdev(u32 port, u16 pkey, const u8 *gid, const kapi_sockaddr *addr);

private:
	kapi_ib_device *ib_;
	const Config &cfg_;
	u64 duplicate_addrs_ = 0;	// lookups that found the address on two interfaces
	kstd::Mutex ports_lock_;
	kstd::List<Port> ports_;
};

// Module load and unload (ipoib_main.cpp), from the entry points.
Status driver_load(const kapi_params &params);
void driver_unload();

// The module: its configuration, the ib_client and every Device.
class Driver : public Tagged<KAPI_CTX_DRIVER>, kstd::NonCopyable {
public:
	Driver() : devices_lock_(KAPI_LOCK_DRIVER_DEVICES) {}
	~Driver() { KSTD_WARN_ON(!devices_.empty()); }

	Config &config() { return cfg_; }
	Status start();
	void teardown();

	// ib_client callbacks (process context, may sleep).
	Status add_device(kapi_ib_device *ib, Device *&out);
	void remove_device(Device *dev);

private:
	Config cfg_;
	kstd::Mutex devices_lock_;
	kstd::List<Device> devices_;
	bool registered_ = false;
	bool sa_registered_ = false;
	bool link_registered_ = false;
	bool notifier_registered_ = false;
};

} // namespace ipoib
