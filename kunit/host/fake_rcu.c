// SPDX-License-Identifier: GPL-2.0
/* fake_rcu.c - the host fake of RCU and of the wait_var pair (fake_rcu.h). */
#include "fake_rcu.h"

/* What the fake keeps in the core's KAPI_SIZEOF_RCU_HEAD bytes. */
struct fake_rcu_box {
	struct fake_rcu_box *next;
	kapi_rcu_fn fn;
};
_Static_assert(sizeof(struct fake_rcu_box) <= KAPI_SIZEOF_RCU_HEAD, "rcu head storage too small");

static int depth, reads, npending, waits, timeouts, wakes;
static struct fake_rcu_box *head, **tail = &head;
static fake_wait_hook hook;
static void *hook_arg;

void kapi_rcu_read_lock(void)
{
	depth++;
	reads++;
}

void kapi_rcu_read_unlock(void)
{
	if (depth <= 0)
		kapi_bug(__FILE__, __LINE__, "rcu_read_unlock without rcu_read_lock");
	depth--;
}

void kapi_call_rcu(struct kapi_rcu_head *h, kapi_rcu_fn fn)
{
	struct fake_rcu_box *b = (struct fake_rcu_box *)h;

	b->next = 0;
	b->fn = fn;
	*tail = b;
	tail = &b->next;
	npending++;
}

int fake_rcu_grace(void)
{
	int n = 0;

	if (depth)	/* a grace period cannot end inside a read section */
		kapi_bug(__FILE__, __LINE__, "grace period inside an RCU read section");
	while (head) {
		struct fake_rcu_box *b = head;

		head = b->next;
		if (!head)
			tail = &head;
		npending--;
		n++;
		b->fn((struct kapi_rcu_head *)b);	/* may free b */
	}
	return n;
}

void kapi_rcu_barrier(void) { fake_rcu_grace(); }
int fake_rcu_depth(void) { return depth; }
int fake_rcu_reads(void) { return reads; }
int fake_rcu_pending(void) { return npending; }

void fake_wait_set_hook(fake_wait_hook h, void *arg)
{
	hook = h;
	hook_arg = arg;
}

int kapi_wait_var_zero(int *v, unsigned int timeout_ms)
{
	fake_wait_hook h = hook;

	waits++;
	hook = 0;
	if (__atomic_load_n(v, __ATOMIC_ACQUIRE) != 0 && h)
		h(hook_arg);
	if (__atomic_load_n(v, __ATOMIC_ACQUIRE) == 0)
		return 0;
	timeouts++;
	return -KAPI_ETIMEDOUT;
}

void kapi_wake_var(int *v) { wakes++; }
int fake_waits(void) { return waits; }
int fake_wait_timeouts(void) { return timeouts; }
int fake_wakes(void) { return wakes; }

void fake_rcu_reset(void)
{
	depth = reads = waits = timeouts = wakes = 0;
	hook = 0;
	fake_rcu_grace();
}
