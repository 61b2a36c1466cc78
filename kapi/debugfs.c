// SPDX-License-Identifier: GPL-2.0
/*
 * Shim: debugfs ib_ipoib_cm/<dir>/<file>. The core names the directory and each file; a
 * read runs ipoib_core_debugfs_show() with the file's tagged context and a seq_file, so
 * which files exist and what they say is the core's.
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include "kapi.h"
#include "netdev_priv.h"

static struct dentry *kapi_dbg_root;

struct kapi_debugfs {
	struct dentry *dir;
};

int kapi_debugfs_init(void)
{
	kapi_dbg_root = debugfs_create_dir(KBUILD_MODNAME, NULL);
#ifdef IPOIB_TEST_KNOBS
	/* test knob: the next N P_Key children fail registration (netdev_reg.c) */
	debugfs_create_atomic_t("fail_child_register", 0600, kapi_dbg_root, &kapi_fail_child_register);
#endif
	return 0;
}

void kapi_debugfs_exit(void)
{
	debugfs_remove_recursive(kapi_dbg_root);
	kapi_dbg_root = NULL;
}

static int kapi_dbg_show(struct seq_file *s, void *unused)
{
	ipoib_core_debugfs_show(s->private, (struct kapi_seq *)s);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(kapi_dbg);

struct kapi_debugfs *kapi_debugfs_dir(const char *name)
{
	struct kapi_debugfs *d;

	if (IS_ERR_OR_NULL(kapi_dbg_root))
		return NULL;
	d = kzalloc(sizeof(*d), GFP_KERNEL);
	if (!d)
		return NULL;
	d->dir = debugfs_create_dir(name, kapi_dbg_root);
	return d;
}

void kapi_debugfs_file(struct kapi_debugfs *d, const char *name, struct kapi_ctx *ctx)
{
	debugfs_create_file(name, 0400, d->dir, ctx, &kapi_dbg_fops);
}

static ssize_t kapi_dbg_write(struct file *f, const char __user *ubuf, size_t n, loff_t *pos)
{
	char buf[KAPI_DEBUGFS_WRITE_MAX];
	size_t len = min_t(size_t, n, sizeof(buf));
	struct seq_file *s = f->private_data;
	int err;

	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	err = ipoib_core_debugfs_write(s->private, buf, len, n);
	return err ? err : (ssize_t)n;
}

static int kapi_dbg_knob_open(struct inode *inode, struct file *f)
{
	return single_open(f, kapi_dbg_show, inode->i_private);
}

static const struct file_operations kapi_dbg_knob_fops = {
	.owner = THIS_MODULE,
	.open = kapi_dbg_knob_open,
	.read = seq_read,
	.write = kapi_dbg_write,
	.llseek = seq_lseek,
	.release = single_release,
};

void kapi_debugfs_knob(struct kapi_debugfs *d, const char *name, struct kapi_ctx *ctx)
{
	debugfs_create_file(name, 0600, d->dir, ctx, &kapi_dbg_knob_fops);
}

/* The directory takes the netdev's new name (NETDEV_CHANGENAME). */
int kapi_debugfs_rename(struct kapi_debugfs *d, const char *name)
{
	struct dentry *r = debugfs_rename(kapi_dbg_root, d->dir, kapi_dbg_root, name);

	if (IS_ERR(r))
		return PTR_ERR(r);
	d->dir = r;
	return 0;
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
