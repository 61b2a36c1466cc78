// SPDX-License-Identifier: GPL-2.0
// ipoib_rc_qp.h - the tag every connected-mode QP's context carries (docs/design.md §4 item 1,
// docs/connected.md §1). The dispatcher (ipoib_dispatch.h) hands a completion whose QP
// context is a live KAPI_CTX_RC_QP to on_rc(RcQp &, wc); the Connection derives from RcQp
// and decides what the completion means. The base has no members of its own: everything a
// connection is belongs to the Connection, so nothing here can disagree with its state.
#pragma once

#include "core/ipoib_ctx.h"

namespace ipoib {

struct RcQp : Tagged<KAPI_CTX_RC_QP> {
protected:
	RcQp() = default;
	~RcQp() = default;
};

} // namespace ipoib
