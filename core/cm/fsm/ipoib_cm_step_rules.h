// SPDX-License-Identifier: GPL-2.0
// ipoib_cm_step_rules.h - small step-building rules the state machine's handlers share
// (ipoib_cm_state.cpp, ipoib_cm_state_live.cpp): a REJ to send, a FallBack, the counter of a
// work-completion error. Internal to the state machine; pure.
#pragma once

#include "core/cm/fsm/ipoib_cm_state.h"

namespace ipoib::cm {


inline void reject(Step &st, Counters &c, u8 reason, Ctr why)
{
	st.push(Action::SendRej);
	st.rej_reason = reason;
	st.rej_ari_ca_guid = rej_ari_is_ca_guid(reason);
	c.inc(why);
}

inline void fall_back(Step &st, Counters &c)
{
	st.push(Action::FallBack);
	c.inc(Ctr::FallBacks);
}

inline Ctr wc_ctr(WcCause w)
{
	switch (w) {
	case WcCause::RnrRetryExceeded: return Ctr::RnrRetryExceeded;
	case WcCause::RetryExceeded: return Ctr::RetryExceeded;
	case WcCause::Other: break;
	}
	return Ctr::WcErrors;
}


} // namespace ipoib::cm
