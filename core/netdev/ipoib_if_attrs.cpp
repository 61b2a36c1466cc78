// SPDX-License-Identifier: GPL-2.0
// ipoib_if_attrs.cpp - what an interface shows and accepts outside the datapath: the
// rtnl_link_stats64 roll-up and the ethtool -S names, the sysfs mode and umcast values
// (parsing and messages; the mode's spellings are ipoib_mode.h's), the mode's name and IFLA value.
#include "ipoib_if.h"
#include "core/netdev/ipoib_mode.h"

namespace ipoib {

namespace {

const char *const g_stat_names[] = {
#define IPOIB_STAT_NAME(n) #n,
	IPOIB_STATS(IPOIB_STAT_NAME)
#undef IPOIB_STAT_NAME
};
static_assert(sizeof(Stats) == kStatCount * sizeof(u64));
// In kapi_qp_event_kind order (kapi_events.h).
const char *const g_qp_event_names[] = {
	"qp_event_other", "qp_event_comm_est", "qp_event_last_wqe_reached", "qp_event_fatal",
	"qp_event_sq_drained", "qp_event_srq_limit_reached", "qp_event_srq_err",
};
static_assert(sizeof(g_qp_event_names) / sizeof(g_qp_event_names[0]) == kQpEventStats);
static_assert(sizeof(g_stat_names) / sizeof(g_stat_names[0]) == kStatCount);

// A sysfs write without its trailing newline/blanks.
StrView sysfs_value(StrView v)
{
	while (!v.empty() && (v[v.size() - 1] == '\n' || v[v.size() - 1] == ' '))
		v = v.substr(0, v.size() - 1);
	return v;
}
// At most this much of a rejected value goes into the log line.
constexpr int kLoggedValue = 32;
int logged_len(StrView v) { return v.size() < kLoggedValue ? int(v.size()) : kLoggedValue; }

} // namespace

const char *stat_name(u32 i)
{
	if (i < kStatCount)
		return g_stat_names[i];
	if (i < kStatCount + kQpEventStats)
		return g_qp_event_names[i - kStatCount];
	return i < kEthtoolStats ? CmTable::stat_name(i - kStatCount - kQpEventStats) : "";
}

void Interface::stat_values(u64 (&out)[kEthtoolStats]) const
{
	for (u32 i = 0; i < kStatCount; i++)
		out[i] = read_stat(reinterpret_cast<const u64 *>(&stats_)[i]);
	for (u32 i = 0; i < kQpEventStats; i++)
		out[kStatCount + i] = qp_.events().get(kapi_qp_event_kind(i));
	cm_.stat_values(out + kStatCount + kQpEventStats);
}

void Interface::stats64(kapi_stats64 &o) const
{
	const Stats &s = stats_;

	o.rx_packets = read_stat(s.rx_packets);
	o.tx_packets = read_stat(s.tx_packets);
	o.rx_bytes = read_stat(s.rx_bytes);
	o.tx_bytes = read_stat(s.tx_bytes);
	o.multicast = read_stat(s.rx_multicast) + read_stat(s.rx_broadcast);
	o.rx_errors = read_stat(s.rx_wc_errors) + read_stat(s.rx_drop_short);
	o.rx_dropped = read_stat(s.rx_drop_nomem);
	o.tx_errors = read_stat(s.tx_wc_errors) + read_stat(s.tx_drop_post) + read_stat(s.tx_drop_dma);
	o.tx_dropped = read_stat(s.tx_drop_short) + read_stat(s.tx_drop_linearize) + read_stat(s.tx_drop_too_big) +
			read_stat(s.tx_drop_ring_full) + read_stat(s.tx_drop_not_up) +
			read_stat(s.tx_drop_path_queue_full) + read_stat(s.tx_drop_path_failed) +
			read_stat(s.tx_drop_path_nomem) + read_stat(s.tx_drop_mcast_queue_full) +
			read_stat(s.tx_drop_mcast_failed) + read_stat(s.tx_drop_mcast_nomem) +
			read_stat(s.tx_drop_path_backoff) + read_stat(s.tx_icmp_frag_needed) +
			read_stat(s.tx_icmp_pkt_too_big) + read_stat(s.tx_drop_mcast_too_big) +
			read_stat(s.tx_drop_icmp_queue_full) + read_stat(s.tx_drop_csum) +
			read_stat(s.tx_drop_ud_repair);
	cm_.add_stats64(o);
}

const char *Interface::mode_name() const { return mode::name(connected_mode()); }
u16 Interface::mode() const { return mode::ifla(connected_mode()); }

// rtnl held (kapi/sysfs.c).
int Interface::store_mode(StrView raw)
{
	StrView v = sysfs_value(raw);
	bool cm = false;
	if (!mode::parse(v, cm)) {
		log_.warn("invalid mode \"%.*s\": datagram or connected", logged_len(v), v.data());
		return -KAPI_EINVAL;
	}
	apply_mode(cm);
	return 0;
}

void Interface::renamed()
{
	StrView now(kapi_netdev_name(nd()));
	kstd::MutexGuard g(names_lock_);
	if (now == StrView(log_prefix_))
		return;
	log_.info("renamed to %.*s", int(now.size()), now.data());
	now.copy_to(log_prefix_, sizeof(log_prefix_));
	if (debugfs_) {
		int rc = kapi_debugfs_rename(debugfs_.get(), log_prefix_);
		if (rc)
			log_.warn("debugfs directory not renamed (error %d): still under the old name", rc);
	}
}

int Interface::store_umcast(StrView raw)
{
	StrView v = sysfs_value(raw);
	u32 on = 0;
	if (!kstd::parse_u32(v, 1, on)) {
		log_.warn("invalid umcast \"%.*s\": 0 or 1", logged_len(v), v.data());
		return -KAPI_EINVAL;
	}
	set_umcast(on != 0);
	return 0;
}

} // namespace ipoib
