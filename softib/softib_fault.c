// SPDX-License-Identifier: GPL-2.0
/*
 * softib: fault injection through /sys/kernel/debug/softib/<dev>/fault and
 * a read-only SA group dump at /sys/kernel/debug/softib/sa_groups.
 * Every write is one command; a malformed command returns -EINVAL and
 * changes nothing.  The command set is documented in README.md.
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <rdma/ib_sa.h>
#include "softib.h"

static struct dentry *dbg_root;

/* CM attribute names (IBA 12.6): REQ 0x10 ... DREP 0x16 */
static const struct { const char *name; u16 attr; } cm_attrs[] = {
	{ "req", 0x10 }, { "mra", 0x11 }, { "rej", 0x12 }, { "rep", 0x13 },
	{ "rtu", 0x14 }, { "dreq", 0x15 }, { "drep", 0x16 }, { "any", 0 },
};
static const struct { const char *name; u16 attr; } sa_attrs[] = {
	{ "cpi", IB_SA_ATTR_CLASS_PORTINFO }, { "path", IB_SA_ATTR_PATH_REC },
	{ "mcmember", IB_SA_ATTR_MC_MEMBER_REC }, { "any", 0 },
};

bool softib_fault_drop_ud(struct softib_port *p)
{
	struct softib_dev *sd = p->sdev;

	if (!sd->f_drop_ud)
		return false;
	sd->f_drop_ud--;
	return true;
}

bool softib_fault_drop_mad(struct softib_port *p, u8 mgmt_class, u16 attr)
{
	struct softib_dev *sd = p->sdev;

	if (mgmt_class == IB_MGMT_CLASS_SUBN_ADM && sd->f_drop_sa &&
	    (!sd->f_drop_sa_attr || sd->f_drop_sa_attr == attr)) {
		sd->f_drop_sa--;
		return true;
	}
	if (mgmt_class == IB_MGMT_CLASS_CM && sd->f_drop_cm &&
	    (!sd->f_drop_cm_attr || sd->f_drop_cm_attr == attr)) {
		sd->f_drop_cm--;
		return true;
	}
	return false;
}

unsigned int softib_fault_ud_delay_ms(struct softib_port *p)
{
	struct softib_dev *sd = p->sdev;

	if (!sd->f_delay_ud)
		return 0;
	sd->f_delay_ud--;
	return sd->f_delay_ms;
}

/*
 * delay_cm: a held CM MAD is "on the wire" for f_delay_cm_ms. Its send completed when it was
 * taken (UD completes when the packet leaves), so the sender's GSI QP goes on with its other
 * MADs: only the held one is late, and later MADs may overtake it. Held MADs wait on held_list,
 * sorted by due time, under softib_lock; held_timer kicks the wire worker, which delivers them
 * (softib_fault_release_held) with the same routing as any unicast MAD at that moment. A MAD
 * whose sending host or GSI QP is gone by then is dropped (drop_no_qp is counted by routing
 * only when the sender still exists).
 */
struct softib_held {
	struct list_head node;
	unsigned long due;		/* jiffies */
	int host;			/* sender, looked up again at delivery */
	u32 port;
	u8 mad[IB_MGMT_MAD_SIZE];
	struct softib_swqe w;		/* address snapshot; no SGEs (num_sge 0) */
};
static LIST_HEAD(held_list);
static struct timer_list held_timer;

static void held_timer_fn(struct timer_list *t)
{
	softib_wire_kick();
}

bool softib_fault_hold_mad(struct softib_port *p, struct softib_swqe *w, const void *mad)
{
	struct softib_dev *sd = p->sdev;
	const struct ib_mad_hdr *hdr = mad;
	struct softib_held *h, *it;

	if (!sd->f_delay_cm ||
	    (sd->f_delay_cm_attr && sd->f_delay_cm_attr != be16_to_cpu(hdr->attr_id)))
		return false;
	sd->f_delay_cm--;
	if (!sd->f_delay_cm_ms)
		return false;
	h = kmalloc(sizeof(*h), GFP_ATOMIC);
	if (!h) {
		pr_warn_ratelimited("softib: delay_cm: no memory, MAD sent without delay\n");
		return false;
	}
	h->due = jiffies + msecs_to_jiffies(sd->f_delay_cm_ms);
	h->host = sd->idx;
	h->port = p->num;
	memcpy(h->mad, mad, sizeof(h->mad));
	h->w = *w;		/* copies the fixed part only: sge[] is a flexible array */
	h->w.num_sge = 0;
	/* keep held_list sorted by due: walk back from the tail (usually one step) */
	list_for_each_entry_reverse(it, &held_list, node)
		if (!time_before(h->due, it->due))
			break;
	list_add(&h->node, &it->node);
	if (held_list.next == &h->node)
		mod_timer(&held_timer, h->due);
	softib_count(p, SOFTIB_CNT_DELAYED, 1);
	return true;
}

void softib_fault_release_held(void)
{
	struct softib_held *h, *tmp;
	struct softib_dev *sd;
	struct softib_qp *gsi;

	list_for_each_entry_safe(h, tmp, &held_list, node) {
		if (time_before(jiffies, h->due)) {
			mod_timer(&held_timer, h->due);
			return;
		}
		list_del(&h->node);
		sd = softib_devs[h->host];
		gsi = sd ? sd->ports[h->port].gsi : NULL;
		if (gsi)
			softib_ud_unicast(gsi, &h->w, h->mad);
		kfree(h);
	}
}

/*
 * qp_fatal: QP QPN enters the Error state now (every WQE flushes, as qp_err) and its affiliated
 * error event (IBA 11.6.3.1, IB_EVENT_QP_ACCESS_ERR: a requester's RDMA with a bad R_Key) is
 * raised only MS ms later, so a consumer polls the flushes before it sees the event. Pending
 * events wait on fatal_list; the timer raises those due, looking the QP up again by number (a
 * QP destroyed meanwhile gets none). Under softib_lock.
 */
struct softib_fatal {
	struct list_head node;
	unsigned long due;		/* jiffies */
	int host;
	u32 qpn;
};
static LIST_HEAD(fatal_list);
static struct timer_list fatal_timer;

static void fatal_timer_fn(struct timer_list *t)
{
	struct softib_fatal *f, *tmp;
	struct softib_dev *sd;
	struct softib_qp *qp;
	unsigned long flags;

	spin_lock_irqsave(&softib_lock, flags);
	list_for_each_entry_safe(f, tmp, &fatal_list, node) {
		if (time_before(jiffies, f->due)) {
			mod_timer(&fatal_timer, f->due);
			break;
		}
		list_del(&f->node);
		sd = softib_devs[f->host];
		qp = sd ? xa_load(&sd->qps, f->qpn) : NULL;
		if (qp && !qp->dead && qp->state == IB_QPS_ERR)
			softib_qp_event(qp, IB_EVENT_QP_ACCESS_ERR);
		kfree(f);
	}
	spin_unlock_irqrestore(&softib_lock, flags);
}

/* lock held */
static int fatal_later(struct softib_dev *sd, struct softib_qp *qp, u32 ms)
{
	struct softib_fatal *f = kmalloc(sizeof(*f), GFP_ATOMIC);

	if (!f)
		return -ENOMEM;
	f->due = jiffies + msecs_to_jiffies(ms);
	f->host = sd->idx;
	f->qpn = qp->qpn;
	list_add_tail(&f->node, &fatal_list);	/* in due order: MS is bounded, timers coarse */
	softib_qp_error(qp);
	if (!timer_pending(&fatal_timer) || time_before(f->due, fatal_timer.expires))
		mod_timer(&fatal_timer, f->due);
	return 0;
}

static int fault_show(struct seq_file *s, void *unused)
{
	struct softib_dev *sd = s->private;
	struct softib_qp *qp;
	unsigned long flags, idx;
	int p;

	spin_lock_irqsave(&softib_lock, flags);
	if (sd->f_drop_ud)
		seq_printf(s, "drop_ud %u\n", sd->f_drop_ud);
	if (sd->f_delay_ud)
		seq_printf(s, "delay_ud %u %u\n", sd->f_delay_ud, sd->f_delay_ms);
	if (sd->f_drop_sa)
		seq_printf(s, "drop_sa 0x%04x %u\n", sd->f_drop_sa_attr, sd->f_drop_sa);
	if (sd->f_drop_cm)
		seq_printf(s, "drop_cm 0x%04x %u\n", sd->f_drop_cm_attr, sd->f_drop_cm);
	if (sd->f_delay_cm)
		seq_printf(s, "delay_cm 0x%04x %u %u\n", sd->f_delay_cm_attr, sd->f_delay_cm,
			   sd->f_delay_cm_ms);
	if (sd->f_rx_stop)
		seq_puts(s, "rx_stop\n");
	if (sd->f_rx_trickle_ms)
		seq_printf(s, "rx_trickle %u\n", sd->f_rx_trickle_ms);
	if (sd->f_fail_create_qp)
		seq_printf(s, "fail_create_qp %u\n", sd->f_fail_create_qp);
	xa_for_each(&sd->qps, idx, qp) {
		if (qp->force_rnr_forever)
			seq_printf(s, "rnr 0x%x forever\n", qp->qpn);
		else if (qp->trickle_ms)
			seq_printf(s, "rnr 0x%x trickle %u\n", qp->qpn, qp->trickle_ms);
		else if (qp->force_rnr)
			seq_printf(s, "rnr 0x%x %u\n", qp->qpn, qp->force_rnr);
		if (qp->vanished)
			seq_printf(s, "vanish 0x%x\n", qp->qpn);
		if (qp->ud_send_err)
			seq_printf(s, "ud_send_err 0x%x\n", qp->qpn);
		if (qp->ud_sqe_err)
			seq_printf(s, "ud_sqe 0x%x\n", qp->qpn);
		if (qp->modify_err)
			seq_printf(s, "modify_err 0x%x\n", qp->qpn);
	}
	for (p = 1; p <= softib_ports_per_host; p++)
		if (sd->ports[p].state != IB_PORT_ACTIVE)
			seq_printf(s, "port_down %d\n", p);
	spin_unlock_irqrestore(&softib_lock, flags);
	return 0;
}

static int lookup_attr(const char *w, bool cm, u16 *attr)
{
	int i;

	if (cm) {
		for (i = 0; i < ARRAY_SIZE(cm_attrs); i++)
			if (!strcmp(w, cm_attrs[i].name)) {
				*attr = cm_attrs[i].attr;
				return 0;
			}
	} else {
		for (i = 0; i < ARRAY_SIZE(sa_attrs); i++)
			if (!strcmp(w, sa_attrs[i].name)) {
				*attr = sa_attrs[i].attr;
				return 0;
			}
	}
	return kstrtou16(w, 0, attr);
}

static int parse_port(const char *w)
{
	int p;

	if (!w || kstrtoint(w, 0, &p) || p < 1 || p > softib_ports_per_host)
		return -EINVAL;
	return p;
}

/* Events `event P NAME` raises without changing any port state. */
static const struct { const char *name; enum ib_event_type ev; } port_events[] = {
	{ "lid_change", IB_EVENT_LID_CHANGE }, { "pkey_change", IB_EVENT_PKEY_CHANGE },
	{ "sm_change", IB_EVENT_SM_CHANGE }, { "gid_change", IB_EVENT_GID_CHANGE },
	{ "client_reregister", IB_EVENT_CLIENT_REREGISTER },
};

/* Caller holds softib_lock. LIDs and port GUIDs are unique on a subnet: is either (0 = don't
 * care) already used by a port other than sp? */
static bool taken_by_other(const struct softib_port *sp, u16 lid, __be64 guid)
{
	const struct softib_port *o;
	int h, p;

	for (h = 0; h < softib_hosts; h++)
		for (p = 1; softib_devs[h] && p <= softib_ports_per_host; p++) {
			o = &softib_devs[h]->ports[p];
			if (o != sp && ((lid && o->lid == lid) || (guid && o->guid == guid)))
				return true;
		}
	return false;
}

/*
 * `lid P LID`: the SM assigns port P a new unicast LID (IBA 14.2.5.6) and the port raises
 * LID_CHANGE. Peers' cached path records now point at a LID nobody owns: like on a real
 * fabric, their UD sends are lost until they re-query the SA.
 */
static int set_lid(struct softib_port *sp, u32 lid)
{
	unsigned long flags;

	if (lid < 2 || lid >= be16_to_cpu(IB_MULTICAST_LID_BASE))
		return -EINVAL;		/* unicast only, and LID 1 is the SM's */
	spin_lock_irqsave(&softib_lock, flags);
	if (taken_by_other(sp, lid, 0)) {
		spin_unlock_irqrestore(&softib_lock, flags);
		return -EINVAL;
	}
	sp->lid = lid;
	spin_unlock_irqrestore(&softib_lock, flags);
	softib_port_event(sp, IB_EVENT_LID_CHANGE);
	return 0;
}

/*
 * `pkey P INDEX PKEY`: the SM rewrites one P_Key table entry; PKEY 0 invalidates it (not at
 * index 0, which always holds a valid key). Raises PKEY_CHANGE. Moving 0xffff away from
 * index 0 is allowed (ib_sa finds the default P_Key by value for its MADs).
 */
static int set_pkey(struct softib_port *sp, u32 index, u32 pkey, bool append)
{
	unsigned long flags;

	if (pkey > 0xffff || (pkey && !(pkey & 0x7fff)))
		return -EINVAL;
	spin_lock_irqsave(&softib_lock, flags);
	if (append) {		/* `pkey_add`: at the end, once */
		index = sp->npkeys;
		if (!pkey || softib_pkey_find(sp, pkey) >= 0)
			index = SOFTIB_MAX_PKEYS;
	}
	if (index >= SOFTIB_MAX_PKEYS || (index == 0 && !pkey)) {
		spin_unlock_irqrestore(&softib_lock, flags);
		return -EINVAL;
	}
	/* Readers index below npkeys without the lock: entries first, then the count. */
	sp->pkeys[index] = pkey;
	if (index >= sp->npkeys) {
		smp_wmb();
		WRITE_ONCE(sp->npkeys, index + 1);	/* slots skipped over are 0 (invalid) */
	}
	spin_unlock_irqrestore(&softib_lock, flags);
	softib_port_event(sp, IB_EVENT_PKEY_CHANGE);
	return 0;
}

/*
 * `guid P GUID`: port P gets a new port GUID, so GID index 0 (fe80::/64 + GUID) changes and
 * the port raises GID_CHANGE (ib_core re-reads the GID table). Peers that cached the old GID
 * fail their path queries for it until they learn the new address.
 */
static int set_guid(struct softib_port *sp, u64 guid)
{
	unsigned long flags;

	if (!guid || guid == ~0ULL)
		return -EINVAL;
	spin_lock_irqsave(&softib_lock, flags);
	if (taken_by_other(sp, 0, cpu_to_be64(guid))) {
		spin_unlock_irqrestore(&softib_lock, flags);
		return -EINVAL;
	}
	sp->guid = cpu_to_be64(guid);
	spin_unlock_irqrestore(&softib_lock, flags);
	softib_port_event(sp, IB_EVENT_GID_CHANGE);
	return 0;
}

/*
 * The live QP (of type qpt; IB_QPT_MAX: any) whose number is written in arg, returned with
 * softib_lock held (the caller releases it with *flags); NULL, the lock not held, if arg is no
 * number or names no such QP on this device.
 */
static struct softib_qp *lock_qp(struct softib_dev *sd, const char *arg,
				 enum ib_qp_type qpt, unsigned long *flags)
{
	struct softib_qp *qp;
	u32 qpn;

	if (kstrtou32(arg, 0, &qpn))
		return NULL;
	spin_lock_irqsave(&softib_lock, *flags);
	qp = xa_load(&sd->qps, qpn);
	if (qp && !qp->dead && (qpt == IB_QPT_MAX || qp->ibqp.qp_type == qpt))
		return qp;
	spin_unlock_irqrestore(&softib_lock, *flags);
	return NULL;
}

/* Must be called in process context: port events sleep. */
static int run_cmd(struct softib_dev *sd, char *line)
{
	char *argv[4] = {};
	int argc = 0, p;
	u32 a, b;
	u16 attr;
	unsigned long flags, idx;
	struct softib_qp *qp;
	char *tok;

	while ((tok = strsep(&line, " \t")) != NULL) {
		if (!*tok)
			continue;
		if (argc == ARRAY_SIZE(argv))
			return -EINVAL;
		argv[argc++] = tok;
	}
	if (!argc)
		return -EINVAL;

	if (!strcmp(argv[0], "drop_ud") && argc == 2) {
		if (kstrtou32(argv[1], 0, &a))
			return -EINVAL;
		spin_lock_irqsave(&softib_lock, flags);
		sd->f_drop_ud = a;
		spin_unlock_irqrestore(&softib_lock, flags);
	} else if (!strcmp(argv[0], "delay_ud") && argc == 3) {
		if (kstrtou32(argv[1], 0, &a) || kstrtou32(argv[2], 0, &b) || b > 60000)
			return -EINVAL;
		spin_lock_irqsave(&softib_lock, flags);
		sd->f_delay_ud = a;
		sd->f_delay_ms = b;
		spin_unlock_irqrestore(&softib_lock, flags);
	} else if ((!strcmp(argv[0], "drop_sa") || !strcmp(argv[0], "drop_cm")) && argc == 3) {
		bool cm = argv[0][5] == 'c';

		if (lookup_attr(argv[1], cm, &attr) || kstrtou32(argv[2], 0, &a))
			return -EINVAL;
		spin_lock_irqsave(&softib_lock, flags);
		if (cm) {
			sd->f_drop_cm_attr = attr;
			sd->f_drop_cm = a;
		} else {
			sd->f_drop_sa_attr = attr;
			sd->f_drop_sa = a;
		}
		spin_unlock_irqrestore(&softib_lock, flags);
	} else if (!strcmp(argv[0], "delay_cm") && argc == 4) {
		if (lookup_attr(argv[1], true, &attr) || kstrtou32(argv[2], 0, &a) ||
		    kstrtou32(argv[3], 0, &b) || b > 60000)
			return -EINVAL;
		spin_lock_irqsave(&softib_lock, flags);
		sd->f_delay_cm_attr = attr;
		sd->f_delay_cm = a;
		sd->f_delay_cm_ms = b;
		spin_unlock_irqrestore(&softib_lock, flags);
	} else if ((!strcmp(argv[0], "rx_stop") || !strcmp(argv[0], "rx_start")) && argc == 1) {
		/* rx_start: requesters waiting on an RNR timer retry when it expires */
		spin_lock_irqsave(&softib_lock, flags);
		sd->f_rx_stop = !strcmp(argv[0], "rx_stop");
		spin_unlock_irqrestore(&softib_lock, flags);
	} else if (!strcmp(argv[0], "rx_trickle") && argc == 2) {
		/* `rx_trickle MS`, MS 1..60000 (0: off): `rnr QPN trickle MS` for every RC QP of
		 * this host, those created later included (a peer that reconnects is still slow) */
		if (kstrtou32(argv[1], 0, &b) || b > 60000)
			return -EINVAL;
		spin_lock_irqsave(&softib_lock, flags);
		sd->f_rx_trickle_ms = b;
		sd->f_rx_trickle_next = jiffies + msecs_to_jiffies(b);
		spin_unlock_irqrestore(&softib_lock, flags);
	} else if (!strcmp(argv[0], "rnr") && argc == 4) {
		/* `rnr QPN trickle MS`, MS 1..60000; replaces a count or `forever` */
		if (strcmp(argv[2], "trickle") || kstrtou32(argv[3], 0, &b) || !b || b > 60000)
			return -EINVAL;
		qp = lock_qp(sd, argv[1], IB_QPT_MAX, &flags);
		if (!qp)
			return -EINVAL;
		qp->force_rnr = 0;
		qp->force_rnr_forever = false;
		qp->trickle_ms = b;
		qp->trickle_next = jiffies + msecs_to_jiffies(b);
		spin_unlock_irqrestore(&softib_lock, flags);
	} else if ((!strcmp(argv[0], "rnr") && argc == 3) ||
		   ((!strcmp(argv[0], "qp_err") || !strcmp(argv[0], "vanish")) && argc == 2)) {
		bool forever = argc == 3 && !strcmp(argv[2], "forever");

		b = 0;
		if (argc == 3 && !forever && kstrtou32(argv[2], 0, &b))
			return -EINVAL;
		qp = lock_qp(sd, argv[1], IB_QPT_MAX, &flags);
		if (!qp)
			return -EINVAL;
		if (argv[0][0] == 'r') {
			/* `rnr QPN N` replaces `forever`/`trickle`; `rnr QPN 0` clears any */
			qp->force_rnr = b;
			qp->force_rnr_forever = forever;
			qp->trickle_ms = 0;
		}
		else if (argv[0][0] == 'q')
			softib_qp_error(qp);
		else
			qp->vanished = true;	/* peers now see "no such QP" */
		spin_unlock_irqrestore(&softib_lock, flags);
	} else if (!strcmp(argv[0], "ud_send_err") && argc == 2) {
		qp = lock_qp(sd, argv[1], IB_QPT_UD, &flags);
		if (!qp)
			return -EINVAL;
		qp->ud_send_err = true;
		spin_unlock_irqrestore(&softib_lock, flags);
	} else if (!strcmp(argv[0], "modify_err") && (argc == 2 || argc == 3)) {
		/* `modify_err QPN` arms, `modify_err QPN 0` (or clear) disarms: UD QPs only */
		if (argc == 3 && (kstrtou32(argv[2], 0, &b) || b > 1))
			return -EINVAL;
		qp = lock_qp(sd, argv[1], IB_QPT_UD, &flags);
		if (!qp)
			return -EINVAL;
		qp->modify_err = argc == 2 || b;
		spin_unlock_irqrestore(&softib_lock, flags);
	} else if (!strcmp(argv[0], "fail_create_qp") && argc == 2) {
		if (kstrtou32(argv[1], 0, &a))
			return -EINVAL;
		spin_lock_irqsave(&softib_lock, flags);
		sd->f_fail_create_qp = a;
		spin_unlock_irqrestore(&softib_lock, flags);
	} else if (!strcmp(argv[0], "ud_sqe") && argc == 2) {
		/* The QP in SQE at once. With sends queued, the oldest is the one that failed and
		 * those behind it are flushed (as for ud_send_err). With none, the send error
		 * reaches the consumer as the completion of its next post (softib_post_send), so
		 * that what a QP in SQE receives until then is seen (IBA 10.3.1: everything, as
		 * in RTS). */
		qp = lock_qp(sd, argv[1], IB_QPT_UD, &flags);
		if (!qp)
			return -EINVAL;
		if (qp->state != IB_QPS_RTS) {
			spin_unlock_irqrestore(&softib_lock, flags);
			return -EINVAL;
		}
		if (softib_ud_sq_error(qp))
			softib_count(&sd->ports[qp->port], SOFTIB_CNT_DROP_FAULT, 1);
		else
			qp->ud_sqe_err = true;
		spin_unlock_irqrestore(&softib_lock, flags);
	} else if (!strcmp(argv[0], "qp_fatal") && argc == 3) {
		int err;

		if (kstrtou32(argv[2], 0, &b) || b > 60000)
			return -EINVAL;
		qp = lock_qp(sd, argv[1], IB_QPT_MAX, &flags);
		if (!qp)
			return -EINVAL;
		err = qp->state != IB_QPS_ERR ? fatal_later(sd, qp, b) : -EINVAL;
		spin_unlock_irqrestore(&softib_lock, flags);
		return err;
	} else if ((!strcmp(argv[0], "port_down") || !strcmp(argv[0], "port_up") ||
		    !strcmp(argv[0], "reregister")) && argc == 2) {
		p = parse_port(argv[1]);
		if (p < 0)
			return -EINVAL;
		if (argv[0][0] == 'r')
			softib_port_event(&sd->ports[p], IB_EVENT_CLIENT_REREGISTER);
		else
			softib_port_set_state(&sd->ports[p], argv[0][5] == 'u');
	} else if (!strcmp(argv[0], "lid") && argc == 3) {
		p = parse_port(argv[1]);
		if (p < 0 || kstrtou32(argv[2], 0, &a))
			return -EINVAL;
		return set_lid(&sd->ports[p], a);
	} else if (!strcmp(argv[0], "pkey") && argc == 4) {
		p = parse_port(argv[1]);
		if (p < 0 || kstrtou32(argv[2], 0, &a) || kstrtou32(argv[3], 0, &b))
			return -EINVAL;
		return set_pkey(&sd->ports[p], a, b, false);
	} else if (!strcmp(argv[0], "guid") && argc == 3) {
		u64 g;

		p = parse_port(argv[1]);
		if (p < 0 || kstrtou64(argv[2], 0, &g))
			return -EINVAL;
		return set_guid(&sd->ports[p], g);
	} else if (!strcmp(argv[0], "event") && argc == 3) {
		p = parse_port(argv[1]);
		if (p < 0)
			return -EINVAL;
		for (a = 0; a < ARRAY_SIZE(port_events); a++)
			if (!strcmp(argv[2], port_events[a].name))
				break;
		if (a == ARRAY_SIZE(port_events))
			return -EINVAL;
		softib_port_event(&sd->ports[p], port_events[a].ev);
	} else if (!strcmp(argv[0], "pkey_add") && argc == 3) {
		p = parse_port(argv[1]);
		if (p < 0 || kstrtou32(argv[2], 0, &a) || (a & 0x7fff) == 0x7fff)
			return -EINVAL;		/* same rules as pkeys= */
		return set_pkey(&sd->ports[p], 0, a, true);
	} else if (!strcmp(argv[0], "clear") && argc == 1) {
		spin_lock_irqsave(&softib_lock, flags);
		sd->f_drop_ud = sd->f_delay_ud = sd->f_drop_sa = sd->f_drop_cm = 0;
		sd->f_delay_cm = 0;
		sd->f_rx_stop = false;
		sd->f_rx_trickle_ms = 0;
		sd->f_fail_create_qp = 0;
		xa_for_each(&sd->qps, idx, qp) {
			qp->force_rnr = 0;
			qp->force_rnr_forever = false;
			qp->trickle_ms = 0;
			qp->ud_send_err = false;
			qp->modify_err = false;
			/* ud_sqe_err stays: the QP is already in SQE, the send error has happened and
			 * only its completion is owed. Hardware cannot be in SQE without reporting it
			 * (IBA 10.3.1: the consumer learns of SQE from that completion and moves the
			 * QP back to RTS); dropping it would leave the QP flushing every send. */
		}
		spin_unlock_irqrestore(&softib_lock, flags);
	} else {
		return -EINVAL;
	}
	return 0;
}

static ssize_t fault_write(struct file *f, const char __user *ubuf, size_t len, loff_t *pos)
{
	struct softib_dev *sd = ((struct seq_file *)f->private_data)->private;
	char buf[96];
	int err;

	if (len == 0 || len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = 0;
	if (buf[len - 1] == '\n')
		buf[len - 1] = 0;
	if (strchr(buf, '\n'))
		return -EINVAL;		/* one command per write */
	err = run_cmd(sd, buf);
	if (err)
		return err;
	softib_wire_kick();
	return len;
}

static int fault_open(struct inode *inode, struct file *f)
{
	return single_open(f, fault_show, inode->i_private);
}

static const struct file_operations fault_fops = {
	.owner = THIS_MODULE,
	.open = fault_open,
	.read = seq_read,
	.write = fault_write,
	.llseek = seq_lseek,
	.release = single_release,
};

static int sa_groups_show(struct seq_file *s, void *unused)
{
	return softib_sa_show(s);
}
DEFINE_SHOW_ATTRIBUTE(sa_groups);

void softib_fault_dev_add(struct softib_dev *sd)
{
	if (!dbg_root)
		return;
	sd->dbg = debugfs_create_dir(dev_name(&sd->ibdev.dev), dbg_root);
	debugfs_create_file("fault", 0600, sd->dbg, sd, &fault_fops);
}

int softib_fault_init(void)
{
	timer_setup(&held_timer, held_timer_fn, 0);
	timer_setup(&fatal_timer, fatal_timer_fn, 0);
	dbg_root = debugfs_create_dir("softib", NULL);
	if (IS_ERR(dbg_root))
		dbg_root = NULL;
	else
		debugfs_create_file("sa_groups", 0400, dbg_root, NULL, &sa_groups_fops);
	return 0;
}

/* After every host is gone (nothing sends any more), before the wire worker is destroyed. */
void softib_fault_exit(void)
{
	struct softib_held *h, *tmp;
	unsigned long flags;

	debugfs_remove_recursive(dbg_root);
	dbg_root = NULL;
	spin_lock_irqsave(&softib_lock, flags);
	list_for_each_entry_safe(h, tmp, &held_list, node) {
		list_del(&h->node);
		kfree(h);
	}
	spin_unlock_irqrestore(&softib_lock, flags);
	del_timer_sync(&held_timer);
	/* emptied first: the timer re-arms only for what is still listed */
	spin_lock_irqsave(&softib_lock, flags);
	while (!list_empty(&fatal_list)) {
		struct softib_fatal *f = list_first_entry(&fatal_list, struct softib_fatal, node);

		list_del(&f->node);
		kfree(f);
	}
	spin_unlock_irqrestore(&softib_lock, flags);
	del_timer_sync(&fatal_timer);
}
