// SPDX-License-Identifier: GPL-2.0
// kstd/log.h - printk for C++: every line gets the module prefix from the shim, and a
// Logger adds an object prefix ("mlx5_0:1") after it. printf format checking is on.
#pragma once

#include "kstd/base.h"

namespace kstd {

class Logger {
public:
	// prefix: nullptr for module-level messages; must outlive the Logger.
	constexpr explicit Logger(const char *prefix = nullptr) : prefix_(prefix) {}

	// err(), warn(), info(), debug(): printf-checked, one kernel log line each.
#define KSTD_LOG_METHOD(name, level)                                                    \
	__attribute__((format(printf, 2, 3))) void name(const char *fmt, ...) const   \
	{                                                                               \
		__builtin_va_list ap;                                                   \
		__builtin_va_start(ap, fmt);                                            \
		kapi_vlog(level, prefix_, fmt, ap);                                     \
		__builtin_va_end(ap);                                                   \
	}
	KSTD_LOG_METHOD(err, KAPI_LOG_ERR)
	KSTD_LOG_METHOD(warn, KAPI_LOG_WARN)
	KSTD_LOG_METHOD(info, KAPI_LOG_INFO)
	KSTD_LOG_METHOD(debug, KAPI_LOG_DEBUG)
#undef KSTD_LOG_METHOD

private:
	const char *prefix_;
};

// Module-level logger.
inline constexpr Logger log{};

} // namespace kstd
