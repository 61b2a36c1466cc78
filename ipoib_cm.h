// SPDX-License-Identifier: GPL-2.0
// ipoib_cm.h - the core's object model. One owner type per kernel resource; constructors
// never fail, failable bring-up is `Status start()`, and `teardown()` undoes it in stages
// (unpublish -> quiesce -> free) so every error path and unload share one sequence.
//
// Ownership:  Driver (one, from module init)
//               -> Device (per ib_device ib_core hands us; the ib_client's client_data)
//                    -> Port (per bound port)
//
// Locking order (outer first); each lock is its own lockdep class (kapi_lock_role):
//   Driver::devices_lock_  mutex     KAPI_LOCK_DRIVER_DEVICES  process context only
//   Device::ports_lock_    spinlock  KAPI_LOCK_DEVICE_PORTS    held only to link/unlink/look up
#pragma once

#include "ipoib_if.h"
#include "ipoib_params.h"
#include "kstd/lock.h"
#include "kstd/list.h"
#include "kstd/log.h"
#include "kstd/unique.h"

namespace ipoib {

using kstd::Gfp;

// debug_level, for IPOIB_DBG; set once at load.
extern constinit int g_debug_level;

#define IPOIB_DBG(level, fmt, ...)                                                      \
	do {                                                                            \
		if (::ipoib::g_debug_level >= (level))                                  \
			::kstd::log.debug(fmt, ##__VA_ARGS__);                          \
	} while (0)

// The validated module parameters.
struct Config {
	PortSelection ports;
	char ifname[KAPI_IFNAMSIZ] = {};
	int debug_level = 0;
	u32 send_queue_size = 128;
	u32 recv_queue_size = 256;

	// Validates everything; on failure logs exactly one line naming the parameter.
	Status load(const kapi_params &params);
};

class Device;

// One bound IB port: its datagram-mode interface (later: connections).
class Port : public kstd::ListLink<>, kstd::NonCopyable {
public:
	Port(Device &dev, u32 num, const Config &cfg) : dev_(dev), num_(num), cfg_(cfg) {}
	~Port() { KSTD_WARN_ON(started_); }

	Status start();
	void teardown();
	u32 num() const { return num_; }

	// Calls f(Interface &) for every interface of this port (today the one parent; P_Key
	// children belong here too). Called under Device::ports_lock_: f must not sleep.
	template <typename F> void for_each_interface(F &&f)
	{
		if (if_)
			f(*if_);
	}

private:
	Device &dev_;
	u32 num_;
	const Config &cfg_;
	kstd::Unique<Interface> if_;
	bool started_ = false;
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
	kstd::SpinLock ports_lock_;
	kstd::List<Port> ports_;
};

// The module: its configuration, the ib_client and every Device.
class Driver : kstd::NonCopyable {
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
};

} // namespace ipoib
