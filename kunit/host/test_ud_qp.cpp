// SPDX-License-Identifier: GPL-2.0
// test_ud_qp.cpp: the UD QP's Q_Key across a rebuild. A ring resize (ethtool -G) destroys the
// UD QP and creates a new one (Interface::build_ud_qp): the new QP must come up (INIT) with
// the link's Q_Key that UdQp already holds (the broadcast group's, RFC 4391 §5), not 0, or
// until the join runs again it names one Q_Key in every send and accepts another.
#include "fake_verbs.h"
#include "core/ud/ipoib_ud_qp.h"
#include "ktest.h"

using namespace ipoib;

namespace ktest_ud_qp {

kstd::Logger g_qlog{"test"};

KTEST(ud_qp_rebuild, a_new_qp_comes_up_with_the_known_qkey)
{
	UdQp qp(g_qlog);
	ASSERT_OK(qp.create(nullptr, nullptr, nullptr, 16, 16));
	ASSERT_OK(qp.to_rts(1, 0));
	EXPECT_EQ(fake_ud_qkey, 0u);	// the first bring-up: no join yet, Q_Key 0
	ASSERT_OK(qp.set_qkey(0x1b));	// the broadcast join
	// the rebuild: the old QP destroyed, a new one created and brought up
	qp.destroy();
	fake_ud_qkey = 0xdead;
	ASSERT_OK(qp.create(nullptr, nullptr, nullptr, 32, 32));
	ASSERT_OK(qp.to_rts(1, 0));
	EXPECT_EQ(fake_ud_qkey, 0x1bu);	// INIT with the group's Q_Key
	EXPECT_EQ(qp.qkey(), 0x1bu);	// what every send names
	EXPECT_TRUE(qp.ready());
	fake_ud_qkey = 0;
}

// A P_Key child's QP reaches RTS only when its P_Key appears (ipoib_child.cpp): after a
// rebuild that waited for it, it comes up with the known Q_Key too.
KTEST(ud_qp_rebuild, a_late_bring_up_takes_the_known_qkey)
{
	UdQp qp(g_qlog);
	ASSERT_OK(qp.create(nullptr, nullptr, nullptr, 16, 16));
	ASSERT_OK(qp.set_qkey(0xb1b));
	fake_ud_qkey = 0;
	ASSERT_OK(qp.to_rts(1, 2));
	EXPECT_EQ(fake_ud_qkey, 0xb1bu);
	fake_ud_qkey = 0;
}

KTEST_SUITE(ud_qp_rebuild, KTEST_CASE(ud_qp_rebuild, a_new_qp_comes_up_with_the_known_qkey),
	    KTEST_CASE(ud_qp_rebuild, a_late_bring_up_takes_the_known_qkey));

} // namespace ktest_ud_qp
