// SPDX-License-Identifier: GPL-2.0
// kstd/status.h - error codes without exceptions. Status carries an errno value so the shim
// boundary converts it with to_errno(); [[nodiscard]] on the type makes every ignored
// failure a compile error (-Werror=unused-result). Pure: host-compilable.
#pragma once

#include "kapi_consts.h"

namespace kstd {

enum class [[nodiscard]] Status : int {
	Ok = 0,
	Perm = KAPI_EPERM,
	NotFound = KAPI_ENOENT,
	Io = KAPI_EIO,
	Again = KAPI_EAGAIN,
	NoMem = KAPI_ENOMEM,
	Busy = KAPI_EBUSY,
	Exists = KAPI_EEXIST,
	NoDevice = KAPI_ENODEV,
	Invalid = KAPI_EINVAL,
	NoSpace = KAPI_ENOSPC,
	Range = KAPI_ERANGE,
	NameTooLong = KAPI_ENAMETOOLONG,
	NotUnique = KAPI_ENOTUNIQ,
	NotSupported = KAPI_EOPNOTSUPP,
	TimedOut = KAPI_ETIMEDOUT,
};

constexpr bool ok(Status s) { return s == Status::Ok; }

// The kernel convention at the C boundary: 0 or a negative errno.
constexpr int to_errno(Status s) { return -static_cast<int>(s); }

// From a shim return value (0 or -errno); unknown codes keep their value.
constexpr Status from_errno(int rc) { return rc >= 0 ? Status::Ok : static_cast<Status>(-rc); }

// Explicitly discard a Status where ignoring failure is the right thing (teardown paths);
// greppable, unlike a (void) cast.
constexpr void ignore(Status) {}

} // namespace kstd

// Propagate a failure to the caller: KSTD_TRY(port->start());
#define KSTD_TRY(expr)                                                                  \
	do {                                                                            \
		::kstd::Status kstd_try_status_ = (expr);                              \
		if (!::kstd::ok(kstd_try_status_))                                      \
			return kstd_try_status_;                                        \
	} while (0)
