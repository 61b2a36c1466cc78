// SPDX-License-Identifier: GPL-2.0
/*
 * Shim: module metadata, parameters and entry points. Parameters are registered here and
 * handed to the core untouched; the core validates them (one log line, -EINVAL), so the
 * policy stays in C++. They are read-only (0444): the core reads them once at load, except
 * debug_level (0644, as in the in-tree driver), whose writes once the module is live go to the
 * core to be parsed, validated and applied.
 */
#include <linux/init.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include "kapi.h"

static char *ports = "";
module_param(ports, charp, 0444);
MODULE_PARM_DESC(ports, "IB ports to bind: comma-separated ibdev or ibdev:port (e.g. \"mlx5_0:1,softib1\"); empty = every InfiniBand port");

static char *ifname = "ib%d";
module_param(ifname, charp, 0444);
MODULE_PARM_DESC(ifname, "netdev name template with exactly one %d (default \"ib%d\")");

static int debug_level;
/* Set after ipoib_core_init succeeded, cleared before ipoib_core_exit. */
static bool kapi_module_live;

static int kapi_debug_level_set(const char *val, const struct kernel_param *kp)
{
	/* Before init (insmod's arguments) the value is kept for ipoib_core_init, which
	 * validates every parameter together. */
	if (!READ_ONCE(kapi_module_live))
		return param_set_int(val, kp);
	return ipoib_core_debug_level_write(val, strlen(val));
}

static int kapi_debug_level_get(char *buf, const struct kernel_param *kp)
{
	if (!READ_ONCE(kapi_module_live))
		return param_get_int(buf, kp);
	return sysfs_emit(buf, "%d\n", ipoib_core_debug_level_read());
}

static const struct kernel_param_ops kapi_debug_level_ops = {
	.set = kapi_debug_level_set,
	.get = kapi_debug_level_get,
};
module_param_cb(debug_level, &kapi_debug_level_ops, &debug_level, 0644);
MODULE_PARM_DESC(debug_level, "debug log verbosity, 0 (off) to 3 (most); writable at run time");

static int send_queue_size = 128;
module_param(send_queue_size, int, 0444);
MODULE_PARM_DESC(send_queue_size, "entries in the UD send queue (power of two, 128..8192)");

static int recv_queue_size = 256;
module_param(recv_queue_size, int, 0444);
MODULE_PARM_DESC(recv_queue_size, "entries in the UD receive queue (power of two, 2..8192)");

static int cm_rnr_retry = 7;
module_param(cm_rnr_retry, int, 0444);
MODULE_PARM_DESC(cm_rnr_retry, "connected mode: RNR retry count in REQ and REP, 0..7 (7 = infinite, default)");

static int cm_min_rnr_timer = 8;
module_param(cm_min_rnr_timer, int, 0444);
MODULE_PARM_DESC(cm_min_rnr_timer, "connected mode: min_rnr_timer code of RC QPs, 0..31 (IBA table 45; default 8 = 0.16 ms)");

static int cm_idle_timeout = 300;
module_param(cm_idle_timeout, int, 0444);
MODULE_PARM_DESC(cm_idle_timeout, "connected mode: seconds without traffic before a connection is closed, 1..86400 (default 300)");

static int nonsrq_min_recv = 1;
module_param(nonsrq_min_recv, int, 0444);
MODULE_PARM_DESC(nonsrq_min_recv, "connected mode without SRQ: receives first posted per RC QP (and the idle shrink's floor), 1..nonsrq_max_recv (default 1)");

static int nonsrq_max_recv = 32;
module_param(nonsrq_max_recv, int, 0444);
MODULE_PARM_DESC(nonsrq_max_recv, "connected mode without SRQ: receive queue of each RC QP, the most its ring grows to, 1..8192 (default 32)");

static int nonsrq_mem_mb = 128;
module_param(nonsrq_mem_mb, int, 0444);
MODULE_PARM_DESC(nonsrq_mem_mb, "connected mode without SRQ: MiB of idle connections the default connection limit allows, 1..1048576 (default 128; the limit is logged)");

static int max_nonsrq_conn_qp;
module_param(max_nonsrq_conn_qp, int, 0444);
MODULE_PARM_DESC(max_nonsrq_conn_qp, "connected mode without SRQ: RC QPs per interface, active and passive, 1..4096 (default 0: what nonsrq_mem_mb holds)");

static int cm_bidir = 1;
module_param(cm_bidir, int, 0444);
MODULE_PARM_DESC(cm_bidir, "connected mode: 1 = one RC connection carries both directions with a peer that announces it (default), 0 = one-way connections as Linux");

static int cm_csum_free = 1;
module_param(cm_csum_free, int, 0444);
MODULE_PARM_DESC(cm_csum_free, "connected mode: 1 = TCP/UDP to a peer that announces it go without the L4 checksum, RC's CRCs cover them (default), 0 = always checksummed");

static int cm_req_pool = 64;
module_param(cm_req_pool, int, 0444);
MODULE_PARM_DESC(cm_req_pool, "connected mode: accepted connections whose peer has not yet answered our REP (RTU), per interface, 1..4096 (default 64; at most half the connection limit); REQs beyond are rejected");

static int cm_max_peers = 4096;
module_param(cm_max_peers, int, 0444);
MODULE_PARM_DESC(cm_max_peers, "connected mode: peer entries per interface, 16..65536 (default 4096); beyond it traffic to a new peer goes over UD");

static int nonsrq_grow_mb = 512;
module_param(nonsrq_grow_mb, int, 0444);
MODULE_PARM_DESC(nonsrq_grow_mb, "connected mode without SRQ: MiB all RC receive rings of an interface together may grow by beyond nonsrq_min_recv, 1..1048576 (default 512; one connection at most an eighth)");

static int __init kapi_module_init(void)
{
	const struct kapi_params params = {
		.ports = ports,
		.ifname = ifname,
		.debug_level = debug_level,
		.send_queue_size = send_queue_size,
		.recv_queue_size = recv_queue_size,
		.cm_rnr_retry = cm_rnr_retry,
		.cm_min_rnr_timer = cm_min_rnr_timer,
		.cm_idle_timeout = cm_idle_timeout,
		.nonsrq_min_recv = nonsrq_min_recv,
		.max_nonsrq_conn_qp = max_nonsrq_conn_qp,
		.nonsrq_max_recv = nonsrq_max_recv,
		.nonsrq_mem_mb = nonsrq_mem_mb,
		.cm_bidir = cm_bidir,
		.cm_csum_free = cm_csum_free,
		.cm_req_pool = cm_req_pool,
		.cm_max_peers = cm_max_peers,
		.nonsrq_grow_mb = nonsrq_grow_mb,
	};

	int rc = ipoib_core_init(&params);

	if (!rc)
		WRITE_ONCE(kapi_module_live, true);
	return rc;
}

static void __exit kapi_module_exit(void)
{
	WRITE_ONCE(kapi_module_live, false);
	ipoib_core_exit();
}

module_init(kapi_module_init);
module_exit(kapi_module_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("ib_ipoib_cm developers");
MODULE_VERSION(IB_IPOIB_CM_VERSION);
MODULE_DESCRIPTION("IP over InfiniBand with connected mode (RFC 4391/4392/4755), restricted C++");
#ifdef IPOIB_TEST_KNOBS
/* The test variant (Kbuild): what scripts/vm-test checks it loads, scripts/check-knobs.sh that the product lacks. */
MODULE_INFO(test_knobs, "send_accepted fail_child_register");
#endif
