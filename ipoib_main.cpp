// SPDX-License-Identifier: GPL-2.0
// ipoib_main.cpp - module load/unload and parameter policy: the Driver's own start/teardown
// (the C entry points are in ipoib_entry.cpp).
#include "ipoib_device.h"

namespace ipoib {

constinit int g_debug_level = 0;

namespace {

// The loaded driver; only init and exit touch it (the ib_client gets it as context).
constinit Driver *g_driver = nullptr;

void log_invalid(const char *param, const char *value, const ParseError &err)
{
	kstd::log.err("invalid %s=\"%s\": %s (at offset %zu)", param, value, err.what, err.pos);
}

} // namespace

Status Config::load(const kapi_params &p)
{
	ParseError err;
	if (!kstd::ok(ports.parse(StrView(p.ports), err))) {
		log_invalid("ports", p.ports, err);
		return Status::Invalid;
	}
	StrView name(p.ifname);
	if (!kstd::ok(validate_ifname(name, err)) || !name.copy_to(ifname, sizeof(ifname))) {
		log_invalid("ifname", p.ifname, err);
		return Status::Invalid;
	}
	if (!kstd::ok(validate_debug_level(p.debug_level, err))) {
		kstd::log.err("invalid debug_level=%d: %s", p.debug_level, err.what);
		return Status::Invalid;
	}
	debug_level = p.debug_level;
	// Like the in-tree driver: power of two, within [min, 8192], with one line when changed.
	bool changed = false;
	send_queue_size = clamp_queue_size(p.send_queue_size, 128, changed);
	if (changed)
		kstd::log.info("send_queue_size=%d adjusted to %u", p.send_queue_size, send_queue_size);
	recv_queue_size = clamp_queue_size(p.recv_queue_size, 2, changed);
	if (changed)
		kstd::log.info("recv_queue_size=%d adjusted to %u", p.recv_queue_size, recv_queue_size);
	const CmParamsRaw raw{p.cm_rnr_retry,	     p.cm_min_rnr_timer,   p.cm_idle_timeout,
			      p.nonsrq_min_recv, p.max_nonsrq_conn_qp, p.cm_bidir,
			      p.cm_csum_free, p.nonsrq_max_recv, p.nonsrq_mem_mb, p.cm_req_pool, p.cm_max_peers,
			      p.nonsrq_grow_mb};
	CmParamsReport rep;
	if (!kstd::ok(validate_cm_params(raw, send_queue_size, cm, rep, err))) {
		kstd::log.err("invalid %s=%d: %s", rep.bad, rep.value, err.what);
		return Status::Invalid;
	}
	if (rep.nonsrq_min_recv_clamped)
		kstd::log.info("nonsrq_min_recv=%d adjusted to %u (nonsrq_max_recv)", p.nonsrq_min_recv, cm.nonsrq_min_recv);
	if (cm.limit_from_budget)
		kstd::log.info("connected mode without SRQ: nonsrq_mem_mb=%u at ~%u KiB per idle connection: at most %u connections per interface (max_nonsrq_conn_qp overrides)",
			       cm.nonsrq_mem_mb, cm.nonsrq_conn_kib, cm.max_nonsrq_conn_qp);
	return Status::Ok;
}

Status Driver::start()
{
	kstd::ignore(kstd::from_errno(kapi_sa_register()));
	sa_registered_ = true;
	kstd::ignore(kstd::from_errno(kapi_debugfs_init()));
	// The rtnl kind "ipoib" (ip link add ... type ipoib) is one per kernel: when the in-tree
	// ib_ipoib has it, children are still available through create_child.
	int rc = kapi_link_register();
	if (rc == -KAPI_EEXIST)
		kstd::log.warn("rtnl kind ipoib is held by another module (ib_ipoib?); ip link add ... type ipoib unavailable, use create_child");
	else if (rc)
		kstd::log.warn("cannot register the rtnl kind ipoib (error %d); use create_child", rc);
	link_registered_ = rc == 0;
	// before the client: a netdev renamed right after its registration is seen
	rc = kapi_netdev_notifier_register();
	if (rc) {
		kstd::log.err("cannot register the netdev notifier: %d", rc);
		return kstd::from_errno(rc);
	}
	notifier_registered_ = true;
	Status s = kstd::from_errno(kapi_ib_register_client(ctx()));
	if (!kstd::ok(s)) {
		kstd::log.err("ib_register_client failed: %d", kstd::to_errno(s));
		return s;
	}
	registered_ = true;
	return Status::Ok;
}

void Driver::teardown()
{
	// Unregistering calls remove_device() for every device we kept, which unlinks it.
	if (kstd::exchange(registered_, false))
		kapi_ib_unregister_client();
	if (kstd::exchange(notifier_registered_, false))
		kapi_netdev_notifier_unregister();
	// After the ports: no child is left for rtnl_link_unregister() to delete.
	if (kstd::exchange(link_registered_, false))
		kapi_link_unregister();
	if (kstd::exchange(sa_registered_, false)) {
		kapi_sa_unregister();
		kapi_debugfs_exit();
	}
	KSTD_WARN_ON(!devices_.empty());
}

// sysfs: /sys/module/ib_ipoib_cm/parameters/debug_level (0644, as the in-tree driver's).
Status set_debug_level(StrView v)
{
	ParseError err;
	int level = 0;
	if (!kstd::ok(parse_debug_level(v, level, err))) {
		StrView shown = v;
		if (!shown.empty() && shown[shown.size() - 1] == '\n')
			shown = shown.substr(0, shown.size() - 1);
		kstd::log.warn("invalid debug_level \"%.*s\": %s", int(shown.size() < 32 ? shown.size() : 32),
			       shown.data(), err.what);
		return Status::Invalid;
	}
	const int was = __atomic_exchange_n(&g_debug_level, level, __ATOMIC_RELAXED);
	if (was != level)
		kstd::log.info("debug_level %d (was %d)", level, was);
	return Status::Ok;
}

Status driver_load(const kapi_params &params)
{
	auto drv = kstd::make_unique<Driver>(Gfp::Kernel);
	if (!drv.ok()) {
		kstd::log.err("cannot allocate the driver state");
		return drv.status();
	}
	Status s = drv.value()->config().load(params);
	if (!kstd::ok(s))
		return s;
	__atomic_store_n(&g_debug_level, drv.value()->config().debug_level, __ATOMIC_RELAXED);
	s = drv.value()->start();
	if (!kstd::ok(s)) {
		drv.value()->teardown();
		return s;
	}
	g_driver = drv.take().release();
	IPOIB_DBG(1, "loaded: ports=\"%s\" ifname=\"%s\"", params.ports, g_driver->config().ifname);
	return Status::Ok;
}

void driver_unload()
{
	kstd::Unique<Driver> drv(kstd::exchange(g_driver, static_cast<Driver *>(nullptr)));
	if (drv)
		drv->teardown();
}

} // namespace ipoib
