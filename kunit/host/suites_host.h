/* SPDX-License-Identifier: GPL-2.0 */
/*
 * suites_host.h - suites that run only in the host loop: they drive core owner types
 * (RecvRing on the UD queue, the SRQ and RC QPs, wr_id tags, the completion dispatcher, UdQp/Srq events, page-fragment assembly) over the
 * fake verbs layer of kunit/host/fake_verbs.c. They live in kunit/host/ so the KUnit module
 * (which builds kunit/test_*.cpp without these core sources) is unaffected.
 */
#define KTEST_HOST_SUITES(X)   \
	X(ctx_tag)             \
	X(recv_ring)           \
	X(dispatch)            \
	X(qp_events)           \
	X(work_rule)           \
	X(frag_skb)            \
	X(wrid)                \
	X(rc_recv_ring)        \
	X(rc_rx_budget)        \
	X(rc_dispatch)         \
	X(rc_tx_ring)          \
	X(mcast_table)         \
	X(seq_words)           \
	X(path_cache)          \
	X(ah_reaper)           \
	X(mcast_rcu)           \
	X(tx_ring)             \
	X(cm_notes)            \
	X(ring_mem)            \
	X(fuzz)                \
	X(log_limit)           \
	X(ud_qp_rebuild)         \
	X(hold_charge)
