// SPDX-License-Identifier: GPL-2.0
// expect: missing_override\.cpp:.*error: .*can be marked override
struct Base {
	virtual ~Base();
	virtual void f();
};
struct Derived : Base {
	~Derived() override;
	void f();
};
