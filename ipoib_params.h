// SPDX-License-Identifier: GPL-2.0
// ipoib_params.h - validation of the module parameters (ports=, ifname=, debug_level).
// Pure logic: no kernel calls and no logging (the caller logs the one error line), so
// KUnit and host tests can call it directly. Depends only on kapi_consts.h and pure kstd.
#pragma once

#include "kapi_consts.h"
#include "kstd/status.h"
#include "kstd/string.h"

namespace ipoib {

using kstd::Status;
using kstd::StrView;
using kstd::u32;
using kstd::usize;

// Why a value was rejected: a static message and the byte offset where it went wrong.
struct ParseError {
	const char *what = nullptr;
	usize pos = 0;
};

// One ports= entry: a device name and a port number, 0 meaning every port of the device.
struct PortSelector {
	char dev[KAPI_IB_DEVICE_NAME_MAX] = {};
	u32 port = 0;
};

// The parsed ports= value. Empty means "every InfiniBand port".
class PortSelection {
public:
	static constexpr usize kMaxEntries = 16;
	static constexpr u32 kMaxPort = 65535;

	bool selects_all() const { return count_ == 0; }
	usize size() const { return count_; }
	const PortSelector &operator[](usize i) const { return entries_[i]; }
	bool matches(StrView dev, u32 port) const;

	// Replaces the contents; on failure the selection is left empty and err says why.
	// Syntax: "" | entry ("," entry)*, entry = name [":" port], name = [A-Za-z0-9_.-]{1,63},
	// port = decimal 1..65535 without leading zeros.
	Status parse(StrView spec, ParseError &err);

private:
	PortSelector entries_[kMaxEntries];
	usize count_ = 0;
};

// ifname= template: 1..IFNAMSIZ-1 bytes, exactly one "%d" and no other '%', none of the
// characters the kernel refuses in netdev names ('/', ':', whitespace), not "." or "..".
Status validate_ifname(StrView tmpl, ParseError &err);

inline constexpr int kMaxDebugLevel = 3;
Status validate_debug_level(int level, ParseError &err);

} // namespace ipoib
