// SPDX-License-Identifier: GPL-2.0
// kstd/result.h - Result<T>: a value or a failure Status, for factories (constructors
// never fail; create() functions return Result<Unique<T>>). Pure: host-compilable.
#pragma once

#include "kstd/placement.h"
#include "kstd/status.h"
#include "kstd/types.h"

namespace kstd {

template <typename T> class [[nodiscard]] Result {
public:
	Result(T &&value) : status_(Status::Ok) { new (&value_) T(move(value)); }
	// A failure; passing Status::Ok without a value is a bug, reported as Invalid.
	Result(Status s) : status_(s == Status::Ok ? Status::Invalid : s) {}
	Result(Result &&o) : status_(o.status_)
	{
		if (ok())
			new (&value_) T(move(o.value_));
	}
	Result(const Result &) = delete;
	Result &operator=(const Result &) = delete;
	Result &operator=(Result &&) = delete;
	~Result()
	{
		if (ok())
			value_.~T();
	}

	bool ok() const { return status_ == Status::Ok; }
	Status status() const { return status_; }
	// Only after ok() returned true.
	T &value() { return value_; }
	T take() { return move(value_); }

private:
	Status status_;
	union {
		T value_;
	};
};

} // namespace kstd
