/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kapi_params.h - the shim file kapi/module.c: module init/exit and the module parameters.
 * Same rules as kapi.h: opaque types, plain C, one kernel thing per function, no policy.
 * Included by kapi.h.
 */
#ifndef KAPI_PARAMS_H
#define KAPI_PARAMS_H

#include "kapi_ctx.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- module parameters, read by the core at init (registered by the shim, 0444) ---- */
struct kapi_params {
	const char *ports;	/* "" = every IB port; else "dev[:port],..." */
	const char *ifname;	/* netdev name template, one %d */
	int debug_level;
	int send_queue_size;	/* UD send ring entries (clamped by the core) */
	int recv_queue_size;	/* UD receive ring entries (clamped by the core) */
	/* connected mode (docs/connected.md §3, §5), validated by the core */
	int cm_rnr_retry;	/* RNR retry count in REQ and REP, 0..7 (7 = infinite) */
	int cm_min_rnr_timer;	/* min_rnr_timer code at RTR, 0..31 (IBA table 45) */
	int cm_idle_timeout;	/* seconds without traffic before a connection is reaped */
	int nonsrq_min_recv;	/* receives first posted on a non-SRQ RC QP */
	int max_nonsrq_conn_qp;	/* non-SRQ RC QPs per interface, active and passive; 0: from the budget */
	int nonsrq_max_recv;	/* a non-SRQ RC QP's receive queue (max_recv_wr, the ring's ceiling) */
	int nonsrq_mem_mb;	/* the memory budget the default non-SRQ connection limit follows */
	int cm_bidir;		/* 1: announce kCapBidir (one connection per peer pair) */
	int cm_csum_free;	/* 1: announce kCapCsumFree (no TCP/UDP checksum between ours) */
	int cm_req_pool;	/* accepted connections not yet answered by an RTU, per interface */
	int cm_max_peers;	/* peer entries per interface */
	int nonsrq_grow_mb;	/* what the non-SRQ receive rings may grow by, per interface */
};

#ifdef __cplusplus
}
#endif

#endif /* KAPI_PARAMS_H */
