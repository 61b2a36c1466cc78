// SPDX-License-Identifier: GPL-2.0
// ipoib_ctx.h - the core's side of the typed opaque context (kapi_ctx.h). An object the shim
// calls back with derives from Tagged<Kind>; an entry point turns the kapi_ctx pointer back
// into the object only through from_ctx<T>(), which checks the canary and the kind first.
// A mismatch (a freed object, a pointer of another kind, a context the core never gave out)
// warns and yields nullptr: the entry point then does nothing rather than act on the wrong
// type. The canary is cleared when the object is destroyed, so a late callback on a freed
// object is caught as long as its memory has not been reused.
#pragma once

#include "kstd/base.h"

namespace ipoib {

template <kapi_ctx_kind K> struct Tagged : kapi_ctx {
	static constexpr kapi_ctx_kind kKind = K;
	Tagged() : kapi_ctx{KAPI_CTX_CANARY, kstd::u32(K)} {}
	Tagged(const Tagged &) = delete;
	Tagged &operator=(const Tagged &) = delete;
	~Tagged() { __atomic_store_n(&canary, 0u, __ATOMIC_RELAXED); }
	kapi_ctx *ctx() { return this; }
};

// True when c is a live object of kind k.
inline bool ctx_is(const kapi_ctx *c, kapi_ctx_kind k)
{
	return c && __atomic_load_n(&c->canary, __ATOMIC_RELAXED) == KAPI_CTX_CANARY && c->kind == kstd::u32(k);
}

// The object behind c, or nullptr (and a warning) when c is not a live T.
template <typename T> T *from_ctx(kapi_ctx *c)
{
	if (!ctx_is(c, T::kKind)) {
		KSTD_WARN_ON(true);
		return nullptr;
	}
	return static_cast<T *>(static_cast<Tagged<T::kKind> *>(c));
}

} // namespace ipoib
