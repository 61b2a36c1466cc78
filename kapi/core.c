// SPDX-License-Identifier: GPL-2.0
/*
 * Shim: memory, logging, BUG/WARN, time and the one C++ runtime hook that must be C.
 * One kernel call per function; no policy.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bug.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/printk.h>
#include <linux/slab.h>
#include "kapi.h"

void *kapi_kmalloc(kapi_size_t size, unsigned int gfp)
{
	return kmalloc(size, (__force gfp_t)gfp);
}

void kapi_kfree(const void *p)
{
	kfree(p);
}

/* Debug is KERN_DEBUG, not pr_debug(): the core already gates it with debug_level. */
static const char *const kapi_log_levels[] = {
	[KAPI_LOG_ERR] = KERN_ERR,
	[KAPI_LOG_WARN] = KERN_WARNING,
	[KAPI_LOG_NOTICE] = KERN_NOTICE,
	[KAPI_LOG_INFO] = KERN_INFO,
	[KAPI_LOG_DEBUG] = KERN_DEBUG,
};

void kapi_vlog(enum kapi_log_level level, const char *prefix, const char *fmt, va_list ap)
{
	va_list args;	/* a va_list parameter is a pointer; %pV needs a real va_list */
	struct va_format vaf = { .fmt = fmt, .va = &args };

	if ((unsigned int)level >= ARRAY_SIZE(kapi_log_levels))
		level = KAPI_LOG_ERR;
	va_copy(args, ap);
	/* printk takes the level from the formatted text, so it can be an argument. */
	printk("%s" pr_fmt("%s%s%pV\n"), kapi_log_levels[level], prefix ?: "",
	       prefix ? ": " : "", &vaf);
	va_end(args);
}

void kapi_bug(const char *file, int line, const char *what)
{
	pr_emerg("BUG at %s:%d: %s\n", file, line, what);
	BUG();
}

void kapi_warn(const char *file, int line, const char *what)
{
	WARN(1, KBUILD_MODNAME ": %s:%d: %s\n", file, line, what);
}

void kapi_msleep(unsigned int ms)
{
	msleep(ms);
}

kapi_u64 kapi_now_ms(void)
{
	return jiffies64_to_msecs(get_jiffies_64());
}

/*
 * Referenced by the vtable of any abstract class; reaching it means a pure virtual call
 * through a half-constructed or destroyed object.
 */
void __cxa_pure_virtual(void);
void __cxa_pure_virtual(void)
{
	BUG();
}
