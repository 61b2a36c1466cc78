// SPDX-License-Identifier: GPL-2.0
// ipoib_device.cpp - which IB ports we bind: the ib_client add/remove entry points, Device and
// Port bring-up and staged teardown.
#include "ipoib_device.h"

namespace ipoib {

Status Port::start()
{
	auto ifc = kstd::make_unique<Interface>(Gfp::Kernel, dev_.ib(), num_);
	if (!ifc.ok())
		return ifc.status();
	IfConfig ic{cfg_.ifname, cfg_.send_queue_size, cfg_.recv_queue_size};
	ic.cm = cfg_.cm;
	ic.owner = this;
	// Published before start(): registering the netdev makes create_child and rtnl newlink
	// reachable, and both use if_ as the parent (register_netdev's rtnl section orders this
	// store before any of them can run). Nothing after the registration in start() fails,
	// so no child can exist when the error path below runs.
	if_ = ifc.take();
	Status s = if_->start(ic);
	if (!kstd::ok(s)) {
		if_->teardown();
		if_.reset();
		return s;
	}
	started_ = true;
	kstd::log.info("bound %s port %u as %s", dev_.name(), num_, if_->name());
	return Status::Ok;
}

void Port::teardown()
{
	if (!kstd::exchange(started_, false))
		return;
	teardown_children();
	if (if_) {
		if_->teardown();
		if_.reset();
	}
	kstd::log.info("unbound %s port %u", dev_.name(), num_);
}

Status Device::start()
{
	const PortSelection &sel = cfg_.ports;
	const StrView devname(name());
	for (u32 p = kapi_ib_first_port(ib_); p <= kapi_ib_last_port(ib_); p++) {
		if (!kapi_ib_port_is_ib(ib_, p)) {
			IPOIB_DBG(1, "skipping %s port %u: not an InfiniBand port", name(), p);
			continue;
		}
		if (!sel.matches(devname, p)) {
			IPOIB_DBG(1, "skipping %s port %u: not selected by ports=", name(), p);
			continue;
		}
		auto port = kstd::make_unique<Port>(Gfp::Kernel, *this, p, cfg_);
		Status s = port.ok() ? port.value()->start() : port.status();
		if (!kstd::ok(s)) {
			kstd::log.err("cannot bind %s port %u: error %d", name(), p, kstd::to_errno(s));
			teardown();
			return s;
		}
		kstd::MutexGuard g(ports_lock_);
		ports_.push_back(*port.take().release());
	}
	return ports_.empty() ? Status::NotSupported : Status::Ok;
}

void Device::teardown()
{
	// Unpublish each port under the lock, then stop and free it outside (teardown sleeps later).
	for (;;) {
		Port *port;
		{
			kstd::MutexGuard g(ports_lock_);
			port = ports_.pop_front();
		}
		if (!port)
			break;
		port->teardown();
		delete port;
	}
}

Status Driver::add_device(kapi_ib_device *ib, Device *&out)
{
	auto dev = kstd::make_unique<Device>(Gfp::Kernel, ib, cfg_);
	if (!dev.ok()) {
		kstd::log.err("cannot allocate state for %s", kapi_ib_device_name(ib));
		return dev.status();
	}
	Status s = dev.value()->start();
	if (!kstd::ok(s))
		return s;
	out = dev.take().release();
	kstd::MutexGuard g(devices_lock_);
	devices_.push_back(*out);
	return Status::Ok;
}

void Driver::remove_device(Device *dev)
{
	{
		kstd::MutexGuard g(devices_lock_);
		devices_.remove(*dev);
	}
	dev->teardown();
	delete dev;
}
} // namespace ipoib
