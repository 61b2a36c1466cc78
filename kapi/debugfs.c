// SPDX-License-Identifier: GPL-2.0
/*
 * Shim: debugfs ib_ipoib_cm/<ifname>/{paths,mcast,neigh}. Each read runs the core's show function
 * for that file with a seq_file; the content is the core's.
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include "kapi.h"

static struct dentry *kapi_dbg_root;

struct kapi_debugfs {
	struct dentry *dir;
	void *core;
};

int kapi_debugfs_init(void)
{
	kapi_dbg_root = debugfs_create_dir(KBUILD_MODNAME, NULL);
	return 0;
}

void kapi_debugfs_exit(void)
{
	debugfs_remove_recursive(kapi_dbg_root);
	kapi_dbg_root = NULL;
}

static int kapi_dbg_paths_show(struct seq_file *s, void *unused)
{
	ipoib_core_if_show(s->private, KAPI_DEBUGFS_PATHS, (struct kapi_seq *)s);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(kapi_dbg_paths);

static int kapi_dbg_mcast_show(struct seq_file *s, void *unused)
{
	ipoib_core_if_show(s->private, KAPI_DEBUGFS_MCAST, (struct kapi_seq *)s);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(kapi_dbg_mcast);

static int kapi_dbg_neigh_show(struct seq_file *s, void *unused)
{
	ipoib_core_if_show(s->private, KAPI_DEBUGFS_NEIGH, (struct kapi_seq *)s);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(kapi_dbg_neigh);

struct kapi_debugfs *kapi_debugfs_add(const char *name, void *core)
{
	struct kapi_debugfs *d;

	if (IS_ERR_OR_NULL(kapi_dbg_root))
		return NULL;
	d = kzalloc(sizeof(*d), GFP_KERNEL);
	if (!d)
		return NULL;
	d->core = core;
	d->dir = debugfs_create_dir(name, kapi_dbg_root);
	debugfs_create_file("paths", 0400, d->dir, core, &kapi_dbg_paths_fops);
	debugfs_create_file("mcast", 0400, d->dir, core, &kapi_dbg_mcast_fops);
	debugfs_create_file("neigh", 0400, d->dir, core, &kapi_dbg_neigh_fops);
	return d;
}

/* debugfs_remove_recursive waits for readers still inside a show function. */
void kapi_debugfs_remove(struct kapi_debugfs *d)
{
	debugfs_remove_recursive(d->dir);
	kfree(d);
}

void kapi_seq_printf(struct kapi_seq *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	seq_vprintf((struct seq_file *)s, fmt, ap);
	va_end(ap);
}
