// SPDX-License-Identifier: GPL-2.0
// kstd/types.h - freestanding basics (no kernel, no std headers): fixed-width integers,
// move/forward, non-copyable base. Pure: also compiles on the host for unit tests.
#pragma once

namespace kstd {

using u8 = __UINT8_TYPE__;
using u16 = __UINT16_TYPE__;
using u32 = __UINT32_TYPE__;
using u64 = __UINT64_TYPE__;
using i32 = __INT32_TYPE__;
using i64 = __INT64_TYPE__;
using usize = __SIZE_TYPE__;
using uptr = __UINTPTR_TYPE__;

template <typename T> struct remove_reference { using type = T; };
template <typename T> struct remove_reference<T &> { using type = T; };
template <typename T> struct remove_reference<T &&> { using type = T; };

template <typename T> constexpr typename remove_reference<T>::type &&move(T &&t) noexcept
{
	return static_cast<typename remove_reference<T>::type &&>(t);
}

template <typename T> constexpr T &&forward(typename remove_reference<T>::type &t) noexcept
{
	return static_cast<T &&>(t);
}

template <typename T> constexpr T exchange(T &obj, T next) noexcept
{
	T old = move(obj);
	obj = move(next);
	return old;
}

// Owner types and kernel-storage wrappers derive from this: copying them would double-free
// or copy live kernel state (a lock, a list head).
class NonCopyable {
protected:
	constexpr NonCopyable() = default;
	~NonCopyable() = default;

public:
	NonCopyable(const NonCopyable &) = delete;
	NonCopyable &operator=(const NonCopyable &) = delete;
};

} // namespace kstd
