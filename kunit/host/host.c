// SPDX-License-Identifier: GPL-2.0
/*
 * host.c - the host implementation of the neutral test layer (ktest_api.h) and of the few
 * kapi functions the tested code calls, plus the runner: the same C++ test sources as the
 * KUnit module, built with g++ + ASan/UBSan (`make -C kunit host`, `scripts/kunit --host`).
 *
 *   ktest-host [-l] [FILTER]     FILTER = suite_glob[.case_glob] (fnmatch), as KUnit's
 *
 * Output is TAP (one line per case, "suite.case"), then "N passed, N failed, N skipped".
 * Exit 1 on any failure. Semantics follow kunit/kernel/ktest_kunit.c: per-case allocation
 * balance check, fault injection disarmed between cases, unexpected kapi_warn() fails.
 */
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ktest_api.h"
#include "suites.h"
#include "suites_host.h"

#define X(s) extern const struct ktest_suite ktest_suite_##s;
KTEST_SUITES(X)
KTEST_HOST_SUITES(X)
#undef X
#define X(s) &ktest_suite_##s,
static const struct ktest_suite *const all_suites[] = { KTEST_SUITES(X) KTEST_HOST_SUITES(X) };
#undef X

struct ktest_ctx {
	const char *suite, *name;
	int failed, skipped;
	char skip_why[128];
};
static struct ktest_ctx *current;

/* ---------------------------------------------------------------- reporting */
void ktest_fail(struct ktest_ctx *kt, const char *file, int line, const char *msg)
{
	const char *nl;

	kt->failed = 1;
	printf("    # %s.%s: %s:%d: ", kt->suite, kt->name, file, line);
	/* one TAP comment line per message line */
	while ((nl = strchr(msg, '\n'))) {
		printf("%.*s\n    # ", (int)(nl - msg), msg);
		msg = nl + 1;
	}
	printf("%s\n", msg);
}

void ktest_skip(struct ktest_ctx *kt, const char *why)
{
	kt->skipped = 1;
	snprintf(kt->skip_why, sizeof(kt->skip_why), "%s", why);
}

void ktest_log(struct ktest_ctx *kt, const char *fmt, ...)
{
	va_list ap;

	printf("    # %s.%s: ", kt->suite, kt->name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

int ktest_snprintf(char *buf, kapi_size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}

int ktest_on_host(void) { return 1; }

/* ---------------------------------------------------------------- memory */
#define HOST_KMALLOC_MAX_SIZE (4ul << 20)	/* KMALLOC_MAX_SIZE on x86-64 6.1 */
static long alloc_live, alloc_calls, fail_nth = -1;
static int fail_all;

void *kapi_kmalloc(kapi_size_t size, unsigned int gfp)
{
	long call = alloc_calls++;
	void *p;

	if (fail_all || (fail_nth >= 0 && call == fail_nth))
		return NULL;
	if (size > HOST_KMALLOC_MAX_SIZE) {
		if (!(gfp & KAPI_GFP_NOWARN) && current)
			ktest_fail(current, __FILE__, __LINE__, "kmalloc beyond KMALLOC_MAX_SIZE without __GFP_NOWARN (the kernel WARNs)");
		return NULL;
	}
	p = (gfp & KAPI_GFP_ZERO) ? calloc(1, size ? size : 1) : malloc(size ? size : 1);
	if (p)
		alloc_live++;
	return p;
}

void kapi_kfree(const void *p)
{
	if (!p)
		return;
	alloc_live--;
	free((void *)p);
}

long ktest_alloc_live(void) { return alloc_live; }
long ktest_alloc_calls(void) { return alloc_calls; }
void ktest_alloc_fail_nth(long n) { fail_nth = n < 0 ? -1 : alloc_calls + n; }
void ktest_alloc_fail_all(int on) { fail_all = on; }

/* ---------------------------------------------------------------- log, bug, warn */
/* Log lines printed while a spinlock of ours was held (kunit/host/test_cm_notes.cpp: with
 * netconsole on the device such a printk re-enters xmit). */
int host_spins_held, host_vlog_under_spin;
/* Every line printed, and the text of the last one (kunit/host/test_cm_notes.cpp: the rate
 * limit of the lines a peer can trigger). */
long host_vlog_lines;
char host_vlog_last[256];
void kapi_vlog(enum kapi_log_level level, const char *prefix, const char *fmt, va_list ap)
{
	va_list copy;

	if (host_spins_held)
		host_vlog_under_spin++;
	host_vlog_lines++;
	va_copy(copy, ap);
	vsnprintf(host_vlog_last, sizeof(host_vlog_last), fmt, copy);
	va_end(copy);
	fprintf(stderr, "ib_ipoib_cm: <%d> %s%s", (int)level, prefix ? prefix : "", prefix ? ": " : "");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
}

void kapi_bug(const char *file, int line, const char *what)
{
	fprintf(stderr, "BUG at %s:%d: %s\n", file, line, what);
	abort();
}

static int warn_catching, warn_caught;

void kapi_warn(const char *file, int line, const char *what)
{
	char msg[256];

	if (warn_catching) {
		warn_caught++;
		return;
	}
	snprintf(msg, sizeof(msg), "unexpected WARN: %s:%d: %s", file, line, what);
	if (current)
		ktest_fail(current, __FILE__, __LINE__, msg);
	else
		fprintf(stderr, "WARNING: %s\n", msg);
}

void ktest_warn_catch_begin(void) { warn_catching = 1; warn_caught = 0; }
int ktest_warn_catch_end(void) { warn_catching = 0; return warn_caught; }

/* ---------------------------------------------------------------- locks (single-threaded fakes) */
struct host_spin { unsigned char locked, role_plus1; };
struct host_mutex { unsigned char locked, role_plus1; };
_Static_assert(sizeof(struct host_spin) <= KAPI_SIZEOF_SPINLOCK, "host spinlock storage");
_Static_assert(sizeof(struct host_mutex) <= KAPI_SIZEOF_MUTEX, "host mutex storage");
static int irq_off, bh_off;

static void lock_bug(const char *what)
{
	if (current)
		ktest_fail(current, __FILE__, __LINE__, what);
	else
		fprintf(stderr, "%s\n", what);
}

void kapi_spin_init(struct kapi_spinlock *l, enum kapi_lock_role role)
{
	struct host_spin *s = (struct host_spin *)l;
	s->locked = 0;
	s->role_plus1 = (unsigned char)(role + 1);
}
void kapi_spin_lock(struct kapi_spinlock *l)
{
	struct host_spin *s = (struct host_spin *)l;
	if (!s->role_plus1) lock_bug("spin_lock on an uninitialised lock");
	if (s->locked) lock_bug("spin_lock: recursive locking (would deadlock)");
	s->locked = 1;
	host_spins_held++;
}
void kapi_spin_unlock(struct kapi_spinlock *l)
{
	struct host_spin *s = (struct host_spin *)l;
	if (!s->locked) lock_bug("spin_unlock of an unlocked lock");
	s->locked = 0;
	host_spins_held--;
}
void kapi_spin_lock_bh(struct kapi_spinlock *l) { bh_off++; kapi_spin_lock(l); }
void kapi_spin_unlock_bh(struct kapi_spinlock *l) { kapi_spin_unlock(l); bh_off--; }
unsigned long kapi_spin_lock_irqsave(struct kapi_spinlock *l)
{
	unsigned long flags = (unsigned long)irq_off;
	irq_off = 1;
	kapi_spin_lock(l);
	return flags;
}
void kapi_spin_unlock_irqrestore(struct kapi_spinlock *l, unsigned long flags)
{
	kapi_spin_unlock(l);
	irq_off = (int)flags;
}
void kapi_mutex_init(struct kapi_mutex *m, enum kapi_lock_role role)
{
	struct host_mutex *x = (struct host_mutex *)m;
	x->locked = 0;
	x->role_plus1 = (unsigned char)(role + 1);
}
void kapi_mutex_destroy(struct kapi_mutex *m)
{
	struct host_mutex *x = (struct host_mutex *)m;
	if (x->locked) lock_bug("mutex_destroy of a locked mutex");
	x->role_plus1 = 0;
}
void kapi_mutex_lock(struct kapi_mutex *m)
{
	struct host_mutex *x = (struct host_mutex *)m;
	if (irq_off || bh_off) lock_bug("mutex_lock in atomic context");
	if (x->locked) lock_bug("mutex_lock: recursive locking (would deadlock)");
	x->locked = 1;
}
void kapi_mutex_unlock(struct kapi_mutex *m)
{
	struct host_mutex *x = (struct host_mutex *)m;
	if (!x->locked) lock_bug("mutex_unlock of an unlocked mutex");
	x->locked = 0;
}
unsigned long kapi_local_irq_save(void)
{
	unsigned long flags = (unsigned long)irq_off;
	irq_off = 1;
	return flags;
}
void kapi_local_irq_restore(unsigned long flags) { irq_off = (int)flags; }
void kapi_cpu_relax(void) {}
int ktest_spin_is_locked(struct kapi_spinlock *l) { return ((struct host_spin *)l)->locked; }
int ktest_mutex_is_locked(struct kapi_mutex *m) { return ((struct host_mutex *)m)->locked; }
int ktest_irqs_disabled(void) { return irq_off; }
int ktest_bh_disabled(void) { return bh_off > 0; }
const void *ktest_spin_class(struct kapi_spinlock *l, const char **name) { (void)l; *name = NULL; return NULL; }
const void *ktest_mutex_class(struct kapi_mutex *m, const char **name) { (void)m; *name = NULL; return NULL; }

/* no sockets on the host: the cases that need one skip */
struct ktest_ksock *ktest_ksock_create(int raw) { (void)raw; return NULL; }
void ktest_ksock_release(struct ktest_ksock *ks) { (void)ks; }
struct kapi_skb *ktest_ksock_skb(struct ktest_ksock *ks, unsigned int len) { (void)ks; (void)len; return NULL; }
long ktest_ksock_wmem(const struct ktest_ksock *ks) { (void)ks; return 0; }
long ktest_ksock_refs(const struct ktest_ksock *ks) { (void)ks; return 0; }
int ktest_ksock_owns(const struct ktest_ksock *ks, const struct kapi_skb *skb) { (void)ks; (void)skb; return 0; }

void ktest_real_sizes(struct ktest_sizes *o)
{
	/* the host has no kernel: report the stand-in header, so only the C++ side is checked */
	o->sizeof_spinlock = KAPI_SIZEOF_SPINLOCK;
	o->alignof_spinlock = KAPI_ALIGNOF_SPINLOCK;
	o->sizeof_mutex = KAPI_SIZEOF_MUTEX;
	o->alignof_mutex = KAPI_ALIGNOF_MUTEX;
	o->gfp_kernel = KAPI_GFP_KERNEL;
	o->gfp_atomic = KAPI_GFP_ATOMIC;
	o->gfp_nowait = KAPI_GFP_NOWAIT;
	o->gfp_zero = KAPI_GFP_ZERO;
	o->gfp_nowarn = KAPI_GFP_NOWARN;
	o->kmalloc_minalign = KAPI_KMALLOC_MINALIGN;
	o->ifnamsiz = KAPI_IFNAMSIZ;
	o->ib_device_name_max = KAPI_IB_DEVICE_NAME_MAX;
	o->einval = KAPI_EINVAL;
	o->enomem = KAPI_ENOMEM;
	o->eopnotsupp = KAPI_EOPNOTSUPP;
	o->enametoolong = KAPI_ENAMETOOLONG;
}

/* ---------------------------------------------------------------- runner */
static int match(const char *filter, const char *suite, const char *name)
{
	char sg[256], cg[256];
	const char *dot;

	if (!filter || !*filter)
		return 1;
	dot = strchr(filter, '.');
	snprintf(sg, sizeof(sg), "%.*s", dot ? (int)(dot - filter) : (int)strlen(filter), filter);
	snprintf(cg, sizeof(cg), "%s", dot ? dot + 1 : "*");
	return fnmatch(sg, suite, 0) == 0 && fnmatch(cg, name, 0) == 0;
}

int main(int argc, char **argv)
{
	const char *filter = NULL;
	int list = 0, total = 0, n = 0, npass = 0, nfail = 0, nskip = 0;
	unsigned int s, c;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-l"))
			list = 1;
		else
			filter = argv[i];
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (s = 0; s < sizeof(all_suites) / sizeof(all_suites[0]); s++)
		for (c = 0; c < all_suites[s]->ncases; c++)
			total += match(filter, all_suites[s]->name, all_suites[s]->cases[c].name);
	if (list) {
		for (s = 0; s < sizeof(all_suites) / sizeof(all_suites[0]); s++)
			for (c = 0; c < all_suites[s]->ncases; c++)
				if (match(filter, all_suites[s]->name, all_suites[s]->cases[c].name))
					printf("%s.%s\n", all_suites[s]->name, all_suites[s]->cases[c].name);
		return 0;
	}
	if (!total) {
		fprintf(stderr, "ktest-host: no case matches '%s'\n", filter ? filter : "");
		printf("0 passed, 1 failed\n");
		return 1;
	}
	printf("1..%d\n", total);
	for (s = 0; s < sizeof(all_suites) / sizeof(all_suites[0]); s++) {
		const struct ktest_suite *su = all_suites[s];

		for (c = 0; c < su->ncases; c++) {
			struct ktest_ctx kt = { .suite = su->name, .name = su->cases[c].name };
			long live0;

			if (!match(filter, su->name, su->cases[c].name))
				continue;
			n++;
			current = &kt;
			alloc_calls = 0;
			fail_nth = -1;
			fail_all = 0;
			warn_catching = 0;
			live0 = alloc_live;
			su->cases[c].fn(&kt);
			fail_nth = -1;
			fail_all = 0;
			if (warn_catching) {
				warn_catching = 0;
				ktest_fail(&kt, __FILE__, __LINE__, "case ended inside a warning catch");
			}
			if (irq_off || bh_off) {
				irq_off = bh_off = 0;
				ktest_fail(&kt, __FILE__, __LINE__, "case ended with irqs or bottom halves disabled");
			}
			if (alloc_live != live0) {
				char msg[96];
				snprintf(msg, sizeof(msg), "allocation balance %+ld after the case (leak or double free)",
					 alloc_live - live0);
				ktest_fail(&kt, __FILE__, __LINE__, msg);
				alloc_live = live0;
			}
			current = NULL;
			if (kt.failed) {
				printf("not ok %d - %s.%s\n", n, su->name, su->cases[c].name);
				nfail++;
			} else if (kt.skipped) {
				printf("ok %d - %s.%s # SKIP %s\n", n, su->name, su->cases[c].name, kt.skip_why);
				nskip++;
			} else {
				printf("ok %d - %s.%s\n", n, su->name, su->cases[c].name);
				npass++;
			}
		}
	}
	printf("%d passed, %d failed, %d skipped\n", npass, nfail, nskip);
	return nfail ? 1 : 0;
}
