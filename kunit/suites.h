/* SPDX-License-Identifier: GPL-2.0 */
/*
 * suites.h - every test suite, in run order. X(name) names the constinit table
 * `ktest_suite_<name>` that KTEST_SUITE(name, ...) defines in one of the kunit/test_*.cpp
 * files. Read by the KUnit glue and by the host runner; scripts/kunit checks that every
 * KTEST_SUITE in kunit/ is listed here.
 */
#define KTEST_SUITES(X)        \
	X(kstd_base)           \
	X(kstd_list)           \
	X(kstd_ring)           \
	X(kstd_refcount)       \
	X(kstd_status_result)  \
	X(kstd_unique)         \
	X(kstd_alloc)          \
	X(kstd_string)         \
	X(kstd_lock)           \
	X(params_ports)        \
	X(params_ifname)       \
	X(params_debug_level)  \
	X(params_rings)        \
	X(params_cm)           \
	X(cm_priv_data)        \
	X(cm_caps)             \
	X(cm_csum_mark)        \
	X(cm_service_id)       \
	X(cm_mtu)              \
	X(cm_rej_code)         \
	X(cm_arbitration)      \
	X(cm_params) X(cm_rej_class) X(cm_state_active) X(cm_state_passive) X(cm_state_crossing) X(cm_state_illegal) X(cm_state_teardown) X(cm_state_negotiated) \
	X(addr_hwaddr)        \
	X(addr_mgid)          \
	X(addr_mcast_valid)   \
	X(addr_encap)         \
	X(addr_mtu)           \
	X(addr_queue_size)    \
	X(addr_link_speed)    \
	X(addr_classify_rx)   \
	X(addr_bytes)         \
	X(addr_flush_level)   \
	X(lookup_pkey)        \
	X(lookup_pick)        \
	X(pkey_parse)         \
	X(pkey_link_args)     \
	X(pkey_child_name)    \
	X(mode_spelling)      \
	X(mode_mtu)           \
	X(mode_features)      \
	X(oversize_verdict)   \
	X(cm_send_budget) X(cm_peer_index) X(cm_send_candidate) X(cm_fallback_note) X(cm_xmit_rc) X(cm_backlog) X(cm_conn_bound) X(cm_flush_peer) X(cm_send_reserve) X(tx_queue) \
	X(cm_ident_msg) X(cm_ident_proof) X(cm_req_pool) X(cm_req_unproven) X(cm_req_unreserved) X(cm_peer_bound) X(cm_req_refusal) X(cm_restart_retire) X(cm_echo_stage) \
	X(neigh_buckets)      \
	X(neigh_hash)         \
	X(neigh_ageing)       \
	X(path_backoff)       \
	X(path_queue)         \
	X(kapi_sizes)          \
	X(frag_shim)          \
	X(hold_shim)          \
	X(ud_repair)
