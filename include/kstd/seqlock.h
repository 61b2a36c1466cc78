// SPDX-License-Identifier: GPL-2.0
// kstd/seqlock.h - a few words one writer rewrites now and then while readers in any
// context (NAPI, xmit) take consistent copies without a lock: a sequence count, odd while
// a write is in progress; a reader retries until it saw the same even count before and
// after its copy. Every word is accessed atomically (no torn or formally racy reads).
// Writers must be serialised by the caller (here: one work item). The write runs with local
// interrupts off: a reader spins while the count is odd, so a reader that interrupted the
// writer on its own CPU (NAPI in softirq, xmit from a softirq or netpoll) would spin forever,
// and with preemption a reader elsewhere would spin for as long as the writer is off-CPU.
// Host-compilable (the two kapi calls are faked there).
#pragma once

#include "kstd/base.h"

namespace kstd {

template <u32 N> class SeqWords {
public:
	void write(const u64 (&in)[N])
	{
		const unsigned long flags = kapi_local_irq_save();
		const u32 s = __atomic_load_n(&seq_, __ATOMIC_RELAXED);
		__atomic_store_n(&seq_, s + 1, __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_RELEASE);
		for (u32 i = 0; i < N; i++)
			__atomic_store_n(&w_[i], in[i], __ATOMIC_RELAXED);
		__atomic_store_n(&seq_, s + 2, __ATOMIC_RELEASE);
		kapi_local_irq_restore(flags);
	}
	void read(u64 (&out)[N]) const
	{
		for (;;) {
			const u32 s1 = __atomic_load_n(&seq_, __ATOMIC_ACQUIRE);
			if (s1 & 1) {
				kapi_cpu_relax();
				continue;
			}
			for (u32 i = 0; i < N; i++)
				out[i] = __atomic_load_n(&w_[i], __ATOMIC_RELAXED);
			__atomic_thread_fence(__ATOMIC_ACQUIRE);
			if (__atomic_load_n(&seq_, __ATOMIC_RELAXED) == s1)
				return;
		}
	}
	u32 sequence() const { return __atomic_load_n(&seq_, __ATOMIC_ACQUIRE); }

private:
	u32 seq_ = 0;
	u64 w_[N] = {};
};

} // namespace kstd
