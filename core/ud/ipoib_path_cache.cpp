// SPDX-License-Identifier: GPL-2.0
// ipoib_path_cache.cpp - the path table and a Path's last reference (ipoib_path_cache.h).
#include "core/ud/ipoib_path_cache.h"

namespace ipoib {

void Path::put()
{
	if (!ref.put())
		return;
	ah.reset();
	if (cm_rec)
		kapi_cm_path_free(cm_rec);
	delete this;	// the queue frees what it still holds (SkbQueue owns its skbs)
}

Path *PathCache::find(const u8 *gid)
{
	for (Path &p : paths_)
		if (bytes_equal(p.gid, gid, kGidLen))
			return &p;
	return nullptr;
}

Path *PathCache::find_or_add(Interface &owner, const u8 *gid)
{
	if (Path *p = find(gid))
		return p;
	Path *p = new (kstd::Gfp::Atomic) Path(owner);
	if (p) {
		bytes_copy(p->gid, gid, kGidLen);
		paths_.push_back(*p);
	}
	return p;
}

void PathCache::unlink_all(kstd::List<Path> &out)
{
	while (Path *p = paths_.pop_front()) {
		__atomic_store_n(&p->dead, true, __ATOMIC_RELEASE);
		out.push_back(*p);
	}
}

} // namespace ipoib
