// SPDX-License-Identifier: GPL-2.0
// ipoib_dispatch.h - the NAPI completion dispatcher. Polls a CQ in batches (kPollBatch per
// boundary crossing, at most budget) and hands each completion to the object its QP
// context names (docs/design.md §4 item 1), by the kind its wr_id carries (ipoib_wrid.h): UD
// receives and sends to on_ud with the interface's UdQp, RC receives, RC sends and drain WRs
// to on_rc with the RcQp (a Connection). Never from kapi_wc.is_recv: the opcode is
// undefined in an error completion (IBA 11.4.2.1), exactly the flushes the teardown fence
// counts (docs/connected.md §4, §7).
//
// Foreign, counted and skipped: a context that is not a live QP, a kind that does not match
// the context's (a UD kind on an RC QP, a wr_id the core never gave out), or a completion
// the owner refuses (the callback returns false: another QP's). Only the context header
// (canary and kind, ctx_is) is read before the match, never the object behind it.
#pragma once

#include "core/rings/ipoib_rc_qp.h"
#include "core/rings/ipoib_rings.h"
#include "core/ud/ipoib_ud_qp.h"
#include "core/rings/ipoib_wrid.h"

namespace ipoib {

// bool on_ud(UdQp &, const kapi_wc &) for UdRecv/UdSend completions of a UD QP, and
// bool on_rc(RcQp &, const kapi_wc &) for RcRecv/RcSend/Drain completions of an RC QP:
// true when the caller owns that QP and took the completion (the callback may switch on
// wrid_kind(wc.wr_id) again; the dispatcher guarantees it is one of its kinds).
// on_batch(n) after each batch, n = the UD send completions taken in it (the UD send ring
// advances its tail by n: foreign ones and other kinds excluded). Returns the completions
// polled (the NAPI budget counts them all).
template <typename OnUd, typename OnRc, typename OnBatch>
int dispatch_cq(kapi_cq *cq, int budget, u64 &foreign, OnUd &&on_ud, OnRc &&on_rc, OnBatch &&on_batch)
{
	kapi_wc wc[kPollBatch];
	int done = 0;
	while (done < budget) {
		const int want = budget - done < int(kPollBatch) ? budget - done : int(kPollBatch);
		const int n = kapi_cq_poll(cq, wc, want);
		if (n <= 0)
			break;
		u32 ud_sends = 0;
		for (int i = 0; i < n; i++) {
			kapi_ctx *c = wc[i].qp_ctx;
			bool took = false;
			switch (wrid_kind(wc[i].wr_id)) {
			case WrKind::UdRecv:
			case WrKind::UdSend:
				took = ctx_is(c, KAPI_CTX_UD_QP) &&
				       on_ud(*static_cast<UdQp *>(static_cast<Tagged<KAPI_CTX_UD_QP> *>(c)), wc[i]);
				if (took && wrid_kind(wc[i].wr_id) == WrKind::UdSend)
					ud_sends++;
				break;
			case WrKind::RcRecv:
			case WrKind::RcSend:
			case WrKind::Drain:
				took = ctx_is(c, KAPI_CTX_RC_QP) &&
				       on_rc(*static_cast<RcQp *>(static_cast<Tagged<KAPI_CTX_RC_QP> *>(c)), wc[i]);
				break;
			case WrKind::None:
				break;
			}
			if (!took)
				count_local(foreign);
		}
		on_batch(ud_sends);
		done += n;
		if (n < want)
			break;
	}
	return done;
}

} // namespace ipoib
