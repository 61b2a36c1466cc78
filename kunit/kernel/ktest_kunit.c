// SPDX-License-Identifier: GPL-2.0
/*
 * ktest_kunit.c - the KUnit side of the neutral test layer (ktest_api.h), and the test
 * module's entry points. This is the only test file that includes <kunit/test.h>.
 *
 * The C++ suites (constinit tables, KTEST_SUITE) are turned into struct kunit_suite at load
 * time, keeping only what the `filter` parameter selects ("suite_glob[.case_glob]", the
 * syntax of KUnit's own kunit.filter_glob, which in 6.1 applies to built-in tests only:
 * module suites run from the module notifier before module parameters are parsed). So this
 * module does not use kunit_test_suites(); it calls __kunit_test_suites_init() from its
 * init, like KUnit's module support did before the notifier existed. Results are in the
 * kernel log (KTAP) and in /sys/kernel/debug/kunit/<suite>/results.
 *
 * Every case runs through ktest_run_case(): it finds the C++ body by the case name
 * pointer, checks that the case left kapi_kmalloc/kapi_kfree balanced (a leak fails it),
 * and disarms fault injection and warning catching afterwards.
 *
 * kapi_kmalloc/kapi_kfree/kapi_warn: the test build compiles kapi/core.c with those names
 * renamed to ktest_real_* (see kunit/kernel/Kbuild), and defines the kapi_* names here as
 * counting / fault-injecting / warning-catching wrappers around them.
 */
#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/glob.h>
#include <linux/interrupt.h>
#include <linux/lockdep.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/net.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <net/net_namespace.h>
#include <net/sock.h>
#include <rdma/ib_verbs.h>
#include "ktest_api.h"
#include "suites.h"

void *ktest_real_kmalloc(kapi_size_t size, unsigned int gfp);
void ktest_real_kfree(const void *p);
void ktest_real_warn(const char *file, int line, const char *what);

#define X(s) extern const struct ktest_suite ktest_suite_##s;
KTEST_SUITES(X)
#undef X
#define X(s) &ktest_suite_##s,
static const struct ktest_suite *const ktest_all[] = { KTEST_SUITES(X) };
#undef X

static char *filter = "";
module_param(filter, charp, 0444);
MODULE_PARM_DESC(filter, "suite_glob[.case_glob]: run only these (default: all)");

static struct kunit_suite **ktest_ksuites;
static int ktest_nsuites;

/* ---------------------------------------------------------------- reporting */
static struct kunit *to_kunit(struct ktest_ctx *kt)
{
	return (struct kunit *)kt;
}

void ktest_fail(struct ktest_ctx *kt, const char *file, int line, const char *msg)
{
	struct kunit *test = to_kunit(kt);
	const char *nl = strchr(msg, '\n');

	kunit_set_failure(test);
	if (!nl) {
		kunit_err(test, "%s:%d: %s", kbasename(file), line, msg);
		return;
	}
	/* one log line per message line: the KTAP "# " prefix goes only on the first */
	kunit_err(test, "%s:%d: %.*s", kbasename(file), line, (int)(nl - msg), msg);
	for (msg = nl + 1; *msg; msg = *nl ? nl + 1 : nl) {
		nl = strchrnul(msg, '\n');
		kunit_err(test, "  %.*s", (int)(nl - msg), msg);
	}
}

void ktest_skip(struct ktest_ctx *kt, const char *why)
{
	kunit_mark_skipped(to_kunit(kt), "%s", why);
}

void ktest_log(struct ktest_ctx *kt, const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	kunit_info(to_kunit(kt), "%pV", &vaf);
	va_end(args);
}

int ktest_snprintf(char *buf, kapi_size_t size, const char *fmt, ...)
{
	va_list args;
	int n;

	va_start(args, fmt);
	n = vsnprintf(buf, size, fmt, args);
	va_end(args);
	return n;
}

int ktest_on_host(void)
{
	return 0;
}

/* ---------------------------------------------------------------- memory */
static atomic_long_t ktest_live = ATOMIC_LONG_INIT(0);
static atomic_long_t ktest_calls = ATOMIC_LONG_INIT(0);
static atomic_long_t ktest_fail_at = ATOMIC_LONG_INIT(-1);
static atomic_t ktest_fail_every = ATOMIC_INIT(0);

void *kapi_kmalloc(kapi_size_t size, unsigned int gfp)
{
	long call = atomic_long_inc_return(&ktest_calls) - 1;
	void *p;

	if (atomic_read(&ktest_fail_every) || call == atomic_long_read(&ktest_fail_at))
		return NULL;
	p = ktest_real_kmalloc(size, gfp);
	if (p)
		atomic_long_inc(&ktest_live);
	return p;
}

void kapi_kfree(const void *p)
{
	if (!p)
		return;
	atomic_long_dec(&ktest_live);
	ktest_real_kfree(p);
}

long ktest_alloc_live(void)
{
	return atomic_long_read(&ktest_live);
}

long ktest_alloc_calls(void)
{
	return atomic_long_read(&ktest_calls);
}

void ktest_alloc_fail_nth(long n)
{
	atomic_long_set(&ktest_fail_at, n < 0 ? -1 : atomic_long_read(&ktest_calls) + n);
}

void ktest_alloc_fail_all(int on)
{
	atomic_set(&ktest_fail_every, !!on);
}

/* ---------------------------------------------------------------- warnings */
static atomic_t ktest_warn_catching = ATOMIC_INIT(0);
static atomic_t ktest_warn_caught = ATOMIC_INIT(0);

void kapi_warn(const char *file, int line, const char *what)
{
	if (atomic_read(&ktest_warn_catching)) {
		atomic_inc(&ktest_warn_caught);
		pr_info("ktest: caught expected kapi_warn at %s:%d: %s\n", kbasename(file), line, what);
		return;
	}
	ktest_real_warn(file, line, what);
}

void ktest_warn_catch_begin(void)
{
	atomic_set(&ktest_warn_caught, 0);
	atomic_set(&ktest_warn_catching, 1);
}

int ktest_warn_catch_end(void)
{
	atomic_set(&ktest_warn_catching, 0);
	return atomic_read(&ktest_warn_caught);
}

/* ---------------------------------------------------------------- lock probes */
int ktest_spin_is_locked(struct kapi_spinlock *l)
{
	return spin_is_locked((spinlock_t *)l);
}

int ktest_mutex_is_locked(struct kapi_mutex *m)
{
	return mutex_is_locked((struct mutex *)m);
}

int ktest_irqs_disabled(void)
{
	return irqs_disabled();
}

int ktest_bh_disabled(void)
{
	return softirq_count() != 0;
}

const void *ktest_spin_class(struct kapi_spinlock *l, const char **name)
{
#ifdef CONFIG_DEBUG_LOCK_ALLOC
	spinlock_t *s = (spinlock_t *)l;

	*name = s->dep_map.name;
	return s->dep_map.key;
#else
	*name = NULL;
	return NULL;
#endif
}

const void *ktest_mutex_class(struct kapi_mutex *m, const char **name)
{
#ifdef CONFIG_DEBUG_LOCK_ALLOC
	struct mutex *x = (struct mutex *)m;

	*name = x->dep_map.name;
	return x->dep_map.key;
#else
	*name = NULL;
	return NULL;
#endif
}

void ktest_real_sizes(struct ktest_sizes *o)
{
	o->sizeof_spinlock = sizeof(spinlock_t);
	o->alignof_spinlock = __alignof__(spinlock_t);
	o->sizeof_mutex = sizeof(struct mutex);
	o->alignof_mutex = __alignof__(struct mutex);
	o->gfp_kernel = (__force unsigned int)GFP_KERNEL;
	o->gfp_atomic = (__force unsigned int)GFP_ATOMIC;
	o->gfp_nowait = (__force unsigned int)GFP_NOWAIT;
	o->gfp_zero = (__force unsigned int)__GFP_ZERO;
	o->gfp_nowarn = (__force unsigned int)__GFP_NOWARN;
	o->kmalloc_minalign = ARCH_KMALLOC_MINALIGN;
	o->ifnamsiz = IFNAMSIZ;
	o->ib_device_name_max = IB_DEVICE_NAME_MAX;
	o->einval = EINVAL;
	o->enomem = ENOMEM;
	o->eopnotsupp = EOPNOTSUPP;
	o->enametoolong = ENAMETOOLONG;
}

/* ---------------------------------------------------------------- a kernel socket */
/* struct ktest_ksock is the struct socket itself. */
static struct socket *to_socket(const struct ktest_ksock *ks)
{
	return (struct socket *)ks;
}

struct ktest_ksock *ktest_ksock_create(int raw)
{
	struct socket *sock;

	if (sock_create_kern(&init_net, PF_INET, raw ? SOCK_RAW : SOCK_DGRAM,
			     raw ? IPPROTO_ICMP : IPPROTO_UDP, &sock))
		return NULL;
	return (struct ktest_ksock *)sock;
}

void ktest_ksock_release(struct ktest_ksock *ks)
{
	sock_release(to_socket(ks));
}

struct kapi_skb *ktest_ksock_skb(struct ktest_ksock *ks, unsigned int len)
{
	/* force: not bounded by sk_sndbuf; charged with skb_set_owner_w (destructor sock_wfree) */
	return (struct kapi_skb *)sock_wmalloc(to_socket(ks)->sk, len, 1, GFP_KERNEL);
}

long ktest_ksock_wmem(const struct ktest_ksock *ks)
{
	return sk_wmem_alloc_get(to_socket(ks)->sk);
}

long ktest_ksock_refs(const struct ktest_ksock *ks)
{
	return refcount_read(&to_socket(ks)->sk->sk_refcnt);
}

int ktest_ksock_owns(const struct ktest_ksock *ks, const struct kapi_skb *skb)
{
	return ((const struct sk_buff *)skb)->sk == to_socket(ks)->sk;
}

/* ---------------------------------------------------------------- running */
static const struct ktest_case *ktest_find(const char *name)
{
	unsigned int s, c;

	/* test->name is the kunit_case's name pointer, which is the C++ table's */
	for (s = 0; s < ARRAY_SIZE(ktest_all); s++)
		for (c = 0; c < ktest_all[s]->ncases; c++)
			if (ktest_all[s]->cases[c].name == name)
				return &ktest_all[s]->cases[c];
	return NULL;
}

static void ktest_run_case(struct kunit *test)
{
	const struct ktest_case *c = ktest_find(test->name);
	long live0 = atomic_long_read(&ktest_live);

	if (!c) {
		KUNIT_FAIL(test, "no C++ body for case %s", test->name);
		return;
	}
	atomic_long_set(&ktest_calls, 0);
	atomic_long_set(&ktest_fail_at, -1);
	atomic_set(&ktest_fail_every, 0);
	c->fn((struct ktest_ctx *)test);
	atomic_long_set(&ktest_fail_at, -1);
	atomic_set(&ktest_fail_every, 0);
	if (atomic_xchg(&ktest_warn_catching, 0))
		KUNIT_FAIL(test, "case ended inside a warning catch");
	if (atomic_long_read(&ktest_live) != live0) {
		KUNIT_FAIL(test, "allocation balance %+ld after the case (leak or double free)",
			   atomic_long_read(&ktest_live) - live0);
		atomic_long_set(&ktest_live, live0);
	}
}

static bool ktest_match(const char *suite_glob, const char *case_glob, const char *suite,
			const char *name)
{
	return glob_match(suite_glob, suite) && (!name || glob_match(case_glob, name));
}

static void ktest_free(void)
{
	int i;

	for (i = 0; i < ktest_nsuites; i++) {
		kfree(ktest_ksuites[i]->test_cases);
		kfree(ktest_ksuites[i]);
	}
	kfree(ktest_ksuites);
	ktest_ksuites = NULL;
	ktest_nsuites = 0;
}

static int __init ktest_init(void)
{
	char *suite_glob, *case_glob = "*", *dot;
	unsigned int s, c, n;
	int ret = 0;

	suite_glob = kstrdup(filter && *filter ? filter : "*", GFP_KERNEL);
	if (!suite_glob)
		return -ENOMEM;
	dot = strchr(suite_glob, '.');
	if (dot) {
		*dot = '\0';
		case_glob = dot + 1;
	}
	ktest_ksuites = kcalloc(ARRAY_SIZE(ktest_all), sizeof(*ktest_ksuites), GFP_KERNEL);
	if (!ktest_ksuites) {
		ret = -ENOMEM;
		goto out;
	}
	for (s = 0; s < ARRAY_SIZE(ktest_all); s++) {
		const struct ktest_suite *d = ktest_all[s];
		struct kunit_suite *ks;
		struct kunit_case *kc;

		if (!ktest_match(suite_glob, case_glob, d->name, NULL))
			continue;
		for (n = 0, c = 0; c < d->ncases; c++)
			n += ktest_match(suite_glob, case_glob, d->name, d->cases[c].name);
		if (!n)
			continue;
		ks = kzalloc(sizeof(*ks), GFP_KERNEL);
		kc = kcalloc(n + 1, sizeof(*kc), GFP_KERNEL);	/* zeroed terminator */
		if (!ks || !kc) {
			kfree(ks);
			kfree(kc);
			ret = -ENOMEM;
			goto out;
		}
		for (n = 0, c = 0; c < d->ncases; c++) {
			if (!ktest_match(suite_glob, case_glob, d->name, d->cases[c].name))
				continue;
			kc[n].name = d->cases[c].name;
			kc[n].run_case = ktest_run_case;
			n++;
		}
		strscpy((char *)ks->name, d->name, sizeof(ks->name));	/* const in 6.1's struct */
		ks->test_cases = kc;
		ktest_ksuites[ktest_nsuites++] = ks;
	}
	if (!ktest_nsuites) {
		pr_err("ktest: no test case matches filter \"%s\"\n", filter);
		ret = -ENOENT;
		goto out;
	}
	/*
	 * Lines the VM scenario parses: the number of suites and cases, then one line per suite
	 * in run order. One line per suite, not a list on the first line: a printk line holds
	 * at most ~1000 bytes, and a fixed buffer would truncate the list past its size (every
	 * later suite unreported). The scenario
	 * checks that it saw as many suite lines as the first line announces.
	 */
	{
		int i, ncases = 0;

		for (i = 0; i < ktest_nsuites; i++) {
			const struct kunit_case *k;

			for (k = ktest_ksuites[i]->test_cases; k->run_case; k++)
				ncases++;
		}
		pr_info("ktest: running %d suite(s), %d case(s), filter \"%s\"\n",
			ktest_nsuites, ncases, filter);
		for (i = 0; i < ktest_nsuites; i++)
			pr_info("ktest: suite %d %s\n", i + 1, ktest_ksuites[i]->name);
	}
	__kunit_test_suites_init(ktest_ksuites, ktest_nsuites);
out:
	kfree(suite_glob);
	if (ret)
		ktest_free();
	return ret;
}

static void __exit ktest_exit(void)
{
	__kunit_test_suites_exit(ktest_ksuites, ktest_nsuites);
	ktest_free();
}

module_init(ktest_init);
module_exit(ktest_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("ib_ipoib_cm KUnit tests (C++ core and support library, through kunit/ktest.h)");
