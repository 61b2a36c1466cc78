// SPDX-License-Identifier: GPL-2.0
// fake_core.cpp - the one core function host-tested code links to but whose home
// (ipoib_if.cpp, the Interface) is not in the host build: the last put of an Ah hands it to
// its interface's reaper there; here it is simply freed (no kernel AH behind it).
#include "core/ud/ipoib_ah.h"

namespace ipoib {

void Ah::put()
{
	if (ref_.put())
		delete this;
}

void Ah::destroy() { ah_ = nullptr; }	// no kernel AH behind a host one

} // namespace ipoib
