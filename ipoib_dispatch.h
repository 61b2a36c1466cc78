// SPDX-License-Identifier: GPL-2.0
// ipoib_dispatch.h - the NAPI completion dispatcher. Polls a CQ in batches (kPollBatch per
// boundary crossing, at most budget) and hands each completion to the object its QP
// context names (design.md §4 item 1): today every QP on an interface's CQs is its UD QP;
// connected mode adds RC QPs (KAPI_CTX_RC_QP) on the same CQs. A completion whose context is
// not a live QP of a kind the caller serves, or that names a QP the caller does not own
// (on_ud returns false), is counted as foreign and skipped: only its context header (the
// canary and kind, ctx_is) is read, never the object behind it.
#pragma once

#include "ipoib_rings.h"
#include "ipoib_ud_qp.h"

namespace ipoib {

// bool on_ud(UdQp &, const kapi_wc &) per completion of a UD QP: true when the caller owns
// that QP and took the completion, false for another QP's (counted as foreign).
// on_batch(n) after each batch, n = the completions taken in it (foreign ones excluded: the
// send ring advances its tail by n). Returns the completions polled (the NAPI budget).
template <typename OnUd, typename OnBatch>
int dispatch_cq(kapi_cq *cq, int budget, u64 &foreign, OnUd &&on_ud, OnBatch &&on_batch)
{
	kapi_wc wc[kPollBatch];
	int done = 0;
	while (done < budget) {
		const int want = budget - done < int(kPollBatch) ? budget - done : int(kPollBatch);
		const int n = kapi_cq_poll(cq, wc, want);
		if (n <= 0)
			break;
		u32 taken = 0;
		for (int i = 0; i < n; i++) {
			if (ctx_is(wc[i].qp_ctx, KAPI_CTX_UD_QP) &&
			    on_ud(*static_cast<UdQp *>(static_cast<Tagged<KAPI_CTX_UD_QP> *>(wc[i].qp_ctx)), wc[i]))
				taken++;
			else
				count_local(foreign);
		}
		on_batch(taken);
		done += n;
		if (n < want)
			break;
	}
	return done;
}

} // namespace ipoib
