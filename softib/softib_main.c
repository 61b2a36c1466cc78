// SPDX-License-Identifier: GPL-2.0
/*
 * softib: module parameters, the fabric singleton, one ib_device (with a
 * parent platform device) per simulated host, LID/GUID assignment and port
 * events.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/debugfs.h>
#include "softib.h"

int softib_hosts = 2;
int softib_ports_per_host = 1;
int softib_srq = 1;
int softib_time_scale = 1;
bool softib_retry_immediate;
u16 softib_pkeys[SOFTIB_MAX_PKEYS];
int softib_npkeys;
static bool *softib_host_srq;		/* [softib_hosts]: srq= with host_srq= applied */
static u8 *softib_host_recv_sge;	/* [softib_hosts]: host_recv_sge=, SOFTIB_MAX_SGE unlisted */

static char *pkeys = "";
static char *host_srq = "";
static char *host_recv_sge = "";
static char *retry_exc = "timed";
static char *gid_alias = "";
int softib_alias_host = -1, softib_alias_of = -1;

module_param_named(hosts, softib_hosts, int, 0444);
MODULE_PARM_DESC(hosts, "number of simulated hosts (1-" __stringify(SOFTIB_MAX_HOSTS) ", default 2)");
module_param_named(ports_per_host, softib_ports_per_host, int, 0444);
MODULE_PARM_DESC(ports_per_host, "IB ports per host (1-4, default 1)");
module_param(pkeys, charp, 0444);
MODULE_PARM_DESC(pkeys, "comma-separated hex P_Keys added after 0xffff");
module_param_named(srq, softib_srq, int, 0444);
MODULE_PARM_DESC(srq, "1: support SRQs (default); 0: create_srq returns -EOPNOTSUPP");
module_param(host_srq, charp, 0444);
MODULE_PARM_DESC(host_srq, "per-host SRQ override, host 0 first: 0/1 list (e.g. 1,0); unlisted hosts follow srq=");
module_param(host_recv_sge, charp, 0444);
MODULE_PARM_DESC(host_recv_sge, "per-host receive SGE limit (max_recv_sge, max_srq_sge), host 0 first: 1-" __stringify(SOFTIB_MAX_SGE) " list; unlisted hosts " __stringify(SOFTIB_MAX_SGE));
module_param_named(time_scale, softib_time_scale, int, 0444);
MODULE_PARM_DESC(time_scale, "divide RNR and ACK timeouts by N (1-1000000, default 1)");
module_param(retry_exc, charp, 0444);
module_param(gid_alias, charp, 0444);
MODULE_PARM_DESC(gid_alias, "test: H:V gives host H's port 1 a second GID (index 1), host V's port 1 GID, unknown to the SA");
MODULE_PARM_DESC(retry_exc, "RC peer gone: 'timed' (local ACK timeout x retries) or 'immediate'");

DEFINE_SPINLOCK(softib_lock);
/*
 * [softib_hosts], allocated at load from hosts= (nothing in softib is sized by
 * SOFTIB_MAX_HOSTS, which only bounds the parameter: README.md "Scale").
 */
struct softib_dev **softib_devs;

/* Caller holds softib_lock (LIDs change only under it, see the fault knob `lid`). */
struct softib_port *softib_port_by_lid(u16 lid)
{
	struct softib_port *sp;
	int h, p;

	if (lid < 2)
		return NULL;
	/* Fast path: the LID assigned at load (2 + host * ports_per_host + port - 1). */
	h = (lid - 2) / softib_ports_per_host;
	p = (lid - 2) % softib_ports_per_host + 1;
	if (h < softib_hosts && softib_devs[h] && softib_devs[h]->ports[p].lid == lid)
		return &softib_devs[h]->ports[p];
	for (h = 0; h < softib_hosts; h++) {
		if (!softib_devs[h])
			continue;
		for (p = 1; p <= softib_ports_per_host; p++) {
			sp = &softib_devs[h]->ports[p];
			if (sp->lid == lid)
				return sp;
		}
	}
	return NULL;
}

void softib_count(struct softib_port *p, enum softib_cnt c, u64 n)
{
	if (p)
		atomic64_add(n, &p->cnt[c]);
}

/*
 * MAD is the message of a GSI QP (NULL for others): only CM MADs are counted per transport
 * (SA traffic has its own counters, and GSI is neither RC nor UD traffic of a ULP).
 */
void softib_count_msg(struct softib_port *p, enum ib_qp_type t, bool tx, u32 len,
		      const void *mad)
{
	const struct ib_mad_hdr *h = mad;
	u16 attr;
	int k;

	switch (t) {
	case IB_QPT_RC:
		softib_count(p, tx ? SOFTIB_CNT_RC_TX_PKTS : SOFTIB_CNT_RC_RX_PKTS, 1);
		softib_count(p, tx ? SOFTIB_CNT_RC_TX_BYTES : SOFTIB_CNT_RC_RX_BYTES, len);
		break;
	case IB_QPT_UD:
		softib_count(p, tx ? SOFTIB_CNT_UD_TX_PKTS : SOFTIB_CNT_UD_RX_PKTS, 1);
		softib_count(p, tx ? SOFTIB_CNT_UD_TX_BYTES : SOFTIB_CNT_UD_RX_BYTES, len);
		break;
	case IB_QPT_GSI:
		if (!h || h->mgmt_class != IB_MGMT_CLASS_CM)
			break;
		attr = be16_to_cpu(h->attr_id);
		k = attr >= SOFTIB_CM_ATTR_FIRST && attr < SOFTIB_CM_ATTR_FIRST + SOFTIB_CM_KINDS - 1 ?
			attr - SOFTIB_CM_ATTR_FIRST : SOFTIB_CM_KINDS - 1;
		softib_count(p, (tx ? SOFTIB_CNT_CM_TX_FIRST : SOFTIB_CNT_CM_RX_FIRST) + k, 1);
		break;
	default:
		break;
	}
}

/* Process context only: ib_dispatch_event takes a rwsem. */
void softib_port_event(struct softib_port *p, enum ib_event_type t)
{
	struct ib_event ev = {
		.device = &p->sdev->ibdev,
		.element.port_num = p->num,
		.event = t,
	};

	ib_dispatch_event(&ev);
}

void softib_port_set_state(struct softib_port *p, bool up)
{
	unsigned long flags;

	spin_lock_irqsave(&softib_lock, flags);
	p->state = up ? IB_PORT_ACTIVE : IB_PORT_DOWN;
	spin_unlock_irqrestore(&softib_lock, flags);
	softib_port_event(p, up ? IB_EVENT_PORT_ACTIVE : IB_EVENT_PORT_ERR);
}

/* Call fn(token, index) for each entry of a comma-separated list, until one fails. */
static int parse_list(const char *list, int (*fn)(const char *tok, int i))
{
	char *s, *tok, *dup;
	int n = 0, err = 0;

	if (!list || !*list)
		return 0;
	dup = kstrdup(list, GFP_KERNEL);
	if (!dup)
		return -ENOMEM;
	s = dup;
	while (!err && (tok = strsep(&s, ",")) != NULL)
		err = fn(tok, n++);
	kfree(dup);
	return err;
}

/*
 * host_srq=1,0: entry i overrides srq= for host i; hosts past the end of the list keep srq=.
 * A module parameter (0444) because ib_core caches the query_device answer (max_srq*) when the
 * device registers, and a consumer that saw max_srq > 0 keeps its SRQ: the setting has to be
 * fixed before any consumer can query the device, i.e. before ib_register_device.
 */
static int host_srq_entry(const char *tok, int i)
{
	if (i == softib_hosts) {
		pr_err("softib: host_srq='%s': more entries than hosts=%d\n", host_srq, softib_hosts);
		return -EINVAL;
	}
	if (strcmp(tok, "0") && strcmp(tok, "1")) {
		pr_err("softib: host_srq='%s': bad entry '%s' (0 or 1)\n", host_srq, tok);
		return -EINVAL;
	}
	softib_host_srq[i] = tok[0] == '1';
	return 0;
}

/*
 * host_recv_sge=32,8: entry i is host i's receive SGE limit (query_device's max_recv_sge and
 * max_srq_sge, enforced by create_qp/create_srq). A module parameter for the same reason as
 * host_srq=: consumers size their receive buffers from the attrs cached at registration
 * (a multi-SGE receive holds at most max_sge pages).
 */
static int host_recv_sge_entry(const char *tok, int i)
{
	u8 v;

	if (i == softib_hosts) {
		pr_err("softib: host_recv_sge='%s': more entries than hosts=%d\n", host_recv_sge, softib_hosts);
		return -EINVAL;
	}
	if (kstrtou8(tok, 10, &v) || v < 1 || v > SOFTIB_MAX_SGE) {
		pr_err("softib: host_recv_sge='%s': bad entry '%s' (1-%d)\n", host_recv_sge, tok, SOFTIB_MAX_SGE);
		return -EINVAL;
	}
	softib_host_recv_sge[i] = v;
	return 0;
}

static int pkey_entry(const char *tok, int i)
{
	u16 v;

	if (kstrtou16(tok, 16, &v) || !(v & 0x7fff) || (v & 0x7fff) == 0x7fff) {
		pr_err("softib: pkeys='%s': bad P_Key '%s' (hex, not 0x0000/0x8000/0x7fff/0xffff)\n",
		       pkeys, tok);
		return -EINVAL;
	}
	if (softib_npkeys == SOFTIB_MAX_PKEYS) {
		pr_err("softib: pkeys='%s': more than %d P_Keys\n", pkeys, SOFTIB_MAX_PKEYS - 1);
		return -EINVAL;
	}
	softib_pkeys[softib_npkeys++] = v;
	return 0;
}

static void free_host_tables(void)
{
	kfree(softib_devs);
	kfree(softib_host_srq);
	kfree(softib_host_recv_sge);
	softib_devs = NULL;
	softib_host_srq = NULL;
	softib_host_recv_sge = NULL;
}

/* The per-host tables, sized from hosts= once it is known to be in range. */
static int alloc_host_tables(void)
{
	softib_devs = kcalloc(softib_hosts, sizeof(*softib_devs), GFP_KERNEL);
	softib_host_srq = kcalloc(softib_hosts, sizeof(*softib_host_srq), GFP_KERNEL);
	softib_host_recv_sge = kcalloc(softib_hosts, sizeof(*softib_host_recv_sge), GFP_KERNEL);
	if (softib_devs && softib_host_srq && softib_host_recv_sge)
		return 0;
	free_host_tables();
	return -ENOMEM;
}

static int parse_params(void)
{
	int i, err;

	if (softib_hosts < 1 || softib_hosts > SOFTIB_MAX_HOSTS) {
		pr_err("softib: hosts=%d out of range 1..%d\n", softib_hosts, SOFTIB_MAX_HOSTS);
		return -EINVAL;
	}
	err = alloc_host_tables();
	if (err)
		return err;
	if (softib_ports_per_host < 1 || softib_ports_per_host > SOFTIB_MAX_PORTS) {
		pr_err("softib: ports_per_host=%d out of range 1..%d\n",
		       softib_ports_per_host, SOFTIB_MAX_PORTS);
		return -EINVAL;
	}
	if (softib_srq != 0 && softib_srq != 1) {
		pr_err("softib: srq=%d must be 0 or 1\n", softib_srq);
		return -EINVAL;
	}
	if (softib_time_scale < 1 || softib_time_scale > 1000000) {
		pr_err("softib: time_scale=%d out of range 1..1000000\n", softib_time_scale);
		return -EINVAL;
	}
	if (!strcmp(retry_exc, "timed")) {
		softib_retry_immediate = false;
	} else if (!strcmp(retry_exc, "immediate")) {
		softib_retry_immediate = true;
	} else {
		pr_err("softib: retry_exc='%s' must be 'timed' or 'immediate'\n", retry_exc);
		return -EINVAL;
	}
	if (gid_alias[0]) {
		/* a port claiming another port's GID (a hostile node on the partition) */
		if (sscanf(gid_alias, "%d:%d", &softib_alias_host, &softib_alias_of) != 2 ||
		    softib_alias_host < 0 || softib_alias_host >= softib_hosts || softib_alias_of < 0 ||
		    softib_alias_of >= softib_hosts || softib_alias_host == softib_alias_of) {
			pr_err("softib: gid_alias='%s' must be H:V, two different hosts below %d\n", gid_alias,
			       softib_hosts);
			return -EINVAL;
		}
		pr_info("softib: host %d port 1 has GID index 1 = host %d port 1's GID (gid_alias)\n",
			softib_alias_host, softib_alias_of);
	}
	for (i = 0; i < softib_hosts; i++) {
		softib_host_srq[i] = softib_srq;
		softib_host_recv_sge[i] = SOFTIB_MAX_SGE;
	}
	err = parse_list(host_srq, host_srq_entry);
	if (err)
		return err;
	err = parse_list(host_recv_sge, host_recv_sge_entry);
	if (err)
		return err;
	softib_pkeys[0] = 0xffff;
	softib_npkeys = 1;
	return parse_list(pkeys, pkey_entry);
}

static struct softib_dev *softib_add_host(int idx)
{
	struct softib_dev *sd;
	struct platform_device *pdev;
	int p, err;

	pdev = platform_device_register_simple("softib", idx, NULL, 0);
	if (IS_ERR(pdev))
		return ERR_CAST(pdev);

	sd = ib_alloc_device(softib_dev, ibdev);
	if (!sd) {
		platform_device_unregister(pdev);
		return ERR_PTR(-ENOMEM);
	}
	sd->pdev = pdev;
	sd->idx = idx;
	xa_init_flags(&sd->qps, XA_FLAGS_ALLOC | XA_FLAGS_LOCK_IRQ);
	sd->next_qpn = SOFTIB_FIRST_QPN;
	sd->node_guid = cpu_to_be64(SOFTIB_GUID_BASE + ((u64)idx << 8));
	sd->srq = softib_host_srq[idx];		/* fixed from here on, see parse_host_srq */
	sd->recv_sge = softib_host_recv_sge[idx];	/* likewise, host_recv_sge_entry */

	for (p = 1; p <= softib_ports_per_host; p++) {
		struct softib_port *sp = &sd->ports[p];

		sp->sdev = sd;
		sp->num = p;
		sp->lid = 2 + idx * softib_ports_per_host + (p - 1);
		sp->guid = cpu_to_be64(SOFTIB_GUID_BASE + ((u64)idx << 8) + p);
		sp->state = IB_PORT_ACTIVE;
		memcpy(sp->pkeys, softib_pkeys, sizeof(softib_pkeys));
		sp->npkeys = softib_npkeys;
	}

	sd->ibdev.node_type = RDMA_NODE_IB_CA;
	sd->ibdev.phys_port_cnt = softib_ports_per_host;
	sd->ibdev.num_comp_vectors = 1;
	sd->ibdev.local_dma_lkey = 0;
	sd->ibdev.node_guid = sd->node_guid;
	sd->ibdev.dev.parent = &pdev->dev;
	strscpy(sd->ibdev.node_desc, "softib simulated HCA", sizeof(sd->ibdev.node_desc));
	ib_set_device_ops(&sd->ibdev, &softib_dev_ops);

	softib_devs[idx] = sd;	/* visible to routing before the ports announce */
	/* dma_device NULL: virtual DMA, sge.addr are kernel VAs (§1.1) */
	err = ib_register_device(&sd->ibdev, "softib%d", NULL);
	if (err) {
		softib_devs[idx] = NULL;
		ib_dealloc_device(&sd->ibdev);
		platform_device_unregister(pdev);
		return ERR_PTR(err);
	}
	sd->registered = true;
	softib_fault_dev_add(sd);
	/* ib_sa refreshes its SM AH and asks ClassPortInfo on PORT_ACTIVE (§1.4) */
	for (p = 1; p <= softib_ports_per_host; p++)
		softib_port_event(&sd->ports[p], IB_EVENT_PORT_ACTIVE);
	return sd;
}

static void softib_remove_host(int idx)
{
	struct softib_dev *sd = softib_devs[idx];
	struct platform_device *pdev;
	unsigned long flags;

	if (!sd)
		return;
	pdev = sd->pdev;
	debugfs_remove_recursive(sd->dbg);
	sd->dbg = NULL;
	ib_unregister_device(&sd->ibdev);
	/* routing only dereferences softib_devs[] under the lock (§7.5.2) */
	spin_lock_irqsave(&softib_lock, flags);
	softib_devs[idx] = NULL;
	spin_unlock_irqrestore(&softib_lock, flags);
	ib_dealloc_device(&sd->ibdev);
	platform_device_unregister(pdev);
}

/* The load line, with every host's effective SRQ setting in the host_srq= syntax ("1,0,1"). */
static void log_settings(void)
{
	char *srq_map = kmalloc(2 * softib_hosts, GFP_KERNEL);
	int i;

	if (srq_map) {
		for (i = 0; i < softib_hosts; i++) {
			srq_map[2 * i] = softib_host_srq[i] ? '1' : '0';
			srq_map[2 * i + 1] = i + 1 < softib_hosts ? ',' : 0;
		}
	}
	pr_info("softib: %d host(s) x %d port(s), srq=%d, %d P_Key(s), time_scale=%d (RNR/ACK timers divided by %d), retry_exc=%s, host_srq=%s\n",
		softib_hosts, softib_ports_per_host, softib_srq, softib_npkeys,
		softib_time_scale, softib_time_scale,
		softib_retry_immediate ? "immediate" : "timed", srq_map ?: "?");
	kfree(srq_map);
}

static int __init softib_init(void)
{
	int i, err;

	err = parse_params();
	if (err)
		goto out_tables;
	err = softib_wire_init();
	if (err)
		goto out_tables;
	err = softib_fault_init();
	if (err)
		goto out_wire;
	for (i = 0; i < softib_hosts; i++) {
		struct softib_dev *sd = softib_add_host(i);

		if (IS_ERR(sd)) {
			err = PTR_ERR(sd);
			pr_err("softib: host %d: %d\n", i, err);
			goto out_hosts;
		}
	}
	log_settings();
	return 0;

out_hosts:
	while (--i >= 0)
		softib_remove_host(i);
	softib_fault_exit();
out_wire:
	softib_wire_exit();
	softib_sa_exit();
out_tables:
	free_host_tables();
	return err;
}

static void __exit softib_exit(void)
{
	int i;

	for (i = softib_hosts - 1; i >= 0; i--)
		softib_remove_host(i);
	softib_fault_exit();
	softib_wire_exit();
	softib_sa_exit();
	free_host_tables();
}

module_init(softib_init);
module_exit(softib_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("softib: software InfiniBand fabric for IPoIB testing");
MODULE_AUTHOR("ib_ipoib_cm project");
