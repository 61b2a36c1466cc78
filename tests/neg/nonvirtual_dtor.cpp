// SPDX-License-Identifier: GPL-2.0
// expect: nonvirtual_dtor\.cpp:.*error: .*non-virtual destructor
struct Base {
	virtual void f();
	~Base();
};
struct Derived : Base {
	void f() override;
};
void drop(Base *b);
void drop(Base *b) { delete b; }
