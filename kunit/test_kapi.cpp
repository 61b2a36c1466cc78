// SPDX-License-Identifier: GPL-2.0
// test_kapi.cpp - what the C++ side embeds about the kernel equals the kernel's real values,
// checked at run time in the module (kapi/static_checks.c checks the same at compile time):
// generated sizes/alignments, GFP values, constants, the C++ lock storage, new's alignment.
#include "ktest.h"
#include "kstd/lock.h"
#include "kstd/new.h"

namespace ktest_kapi {

using kstd::Gfp;

KTEST(kapi_sizes, generated_equal_real)
{
	ktest_sizes r{};
	ktest_real_sizes(&r);
	EXPECT_EQ(r.sizeof_spinlock, (unsigned long)KAPI_SIZEOF_SPINLOCK);
	EXPECT_EQ(r.alignof_spinlock, (unsigned long)KAPI_ALIGNOF_SPINLOCK);
	EXPECT_EQ(r.sizeof_mutex, (unsigned long)KAPI_SIZEOF_MUTEX);
	EXPECT_EQ(r.alignof_mutex, (unsigned long)KAPI_ALIGNOF_MUTEX);
	EXPECT_EQ(r.kmalloc_minalign, (unsigned long)KAPI_KMALLOC_MINALIGN);
	EXPECT_EQ(r.ifnamsiz, (unsigned long)KAPI_IFNAMSIZ);
	EXPECT_EQ(r.ib_device_name_max, (unsigned long)KAPI_IB_DEVICE_NAME_MAX);
	EXPECT_EQ(r.einval, KAPI_EINVAL);
	EXPECT_EQ(r.enomem, KAPI_ENOMEM);
	EXPECT_EQ(r.eopnotsupp, KAPI_EOPNOTSUPP);
	EXPECT_EQ(r.enametoolong, KAPI_ENAMETOOLONG);
}

KTEST(kapi_sizes, cxx_lock_storage)
{
	ktest_sizes r{};
	ktest_real_sizes(&r);
	EXPECT_EQ((unsigned long)sizeof(kstd::SpinLock), r.sizeof_spinlock);
	EXPECT_EQ((unsigned long)alignof(kstd::SpinLock), r.alignof_spinlock);
	EXPECT_EQ((unsigned long)sizeof(kstd::Mutex), r.sizeof_mutex);
	EXPECT_EQ((unsigned long)alignof(kstd::Mutex), r.alignof_mutex);
}

KTEST(kapi_sizes, gfp_values)
{
	ktest_sizes r{};
	ktest_real_sizes(&r);
	EXPECT_EQ(static_cast<unsigned int>(Gfp::Kernel), r.gfp_kernel);
	EXPECT_EQ(static_cast<unsigned int>(Gfp::Atomic), r.gfp_atomic);
	EXPECT_EQ(static_cast<unsigned int>(Gfp::NoWait), r.gfp_nowait);
	EXPECT_EQ(static_cast<unsigned int>(Gfp::KernelZero), r.gfp_kernel | r.gfp_zero);
	EXPECT_EQ(static_cast<unsigned int>(Gfp::AtomicZero), r.gfp_atomic | r.gfp_zero);
	EXPECT_EQ((unsigned int)KAPI_GFP_NOWARN, r.gfp_nowarn);
}

KTEST(kapi_sizes, new_alignment)
{
	ktest_sizes r{};
	ktest_real_sizes(&r);
	EXPECT_EQ((unsigned long)__STDCPP_DEFAULT_NEW_ALIGNMENT__, r.kmalloc_minalign);
	// Objects as aligned as the C++ lock storage come back suitably aligned from kmalloc.
	for (int i = 0; i < 8; i++) {
		auto *m = new (Gfp::Kernel) kstd::Mutex(KAPI_LOCK_SELFTEST_A);
		ASSERT_NOT_NULL(m);
		EXPECT_EQ(reinterpret_cast<kstd::uptr>(m) % alignof(kstd::Mutex), 0u);
		delete m;
	}
}

KTEST_SUITE(kapi_sizes, KTEST_CASE(kapi_sizes, generated_equal_real), KTEST_CASE(kapi_sizes, cxx_lock_storage),
	    KTEST_CASE(kapi_sizes, gfp_values), KTEST_CASE(kapi_sizes, new_alignment));

} // namespace ktest_kapi
