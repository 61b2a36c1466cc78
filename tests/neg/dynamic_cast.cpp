// SPDX-License-Identifier: GPL-2.0
// expect: dynamic_cast\.cpp:.*error: .*dynamic_cast.* not permitted with .*-fno-rtti
struct B {
	virtual ~B();
};
struct D : B {};
D *down(B *b);
D *down(B *b) { return dynamic_cast<D *>(b); }
