#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ib_ipoib_cm, a renamed netdev (udev's ib0 -> ibp0s9, `ip link set NAME name NEW`), ours <->
# ours over softib: the interface keeps working under its new name (datagram ping, then
# connected mode over RC), its debugfs directory follows the name and frees the old one (the
# peer may take it), its log lines carry the new name from the rename on (one "renamed to
# NEW" line under the old name), and rmmod removes renamed netdevs and their debugfs cleanly.
# load: ib_core
# load: ib_cm
# load: ib_umad
# load: softib hosts=2
# load: ib_ipoib_cm
# mem: 1024
# timeout: 200
# tier: long
. /e2e/lib.sh
plan 23

dbg=/sys/kernel/debug/ib_ipoib_cm
sysw() { ns_exec "$1" sh -c "echo '$3' > /sys/class/net/$2"; }
# one_line PATTERN: exactly one ib_ipoib_cm log line since the mark matches PATTERN
one_line() { [ "$(dmesg_since_mark | grep -c -- "$1")" -eq 1 ]; }
# rename NS OLD NEW: down, rename, up (a name change needs the link down: the kernel refuses
# it while up)
rename() { ip -n "$1" link set "$2" down && ip -n "$1" link set "$2" name "$3" && ip -n "$1" link set "$3" up; }

check "ib0 and ib1 exist" wait_for 30 sh -c 'test -e /sys/class/net/ib0 && test -e /sys/class/net/ib1'
check "namespaces A (ib0, 10.0.0.1) and B (ib1, 10.0.0.2)" ns_pair ib0 ib1
carriers() { wait_carrier ib0 A 60 && wait_carrier ib1 B 60; }
check "carrier on both" carriers
check "10 pings before, every one answered" ns_ping_all A 10.0.0.2 10

# ---- A: ib0 -> ibp0s9
dmesg_mark ren
check "ib0 down, renamed ibp0s9, up" rename A ib0 ibp0s9
check "one log line: ib0: renamed to ibp0s9" one_line 'ib_ipoib_cm: ib0: renamed to ibp0s9$'
check "debugfs: ib_ipoib_cm/ibp0s9/connections" test -e $dbg/ibp0s9/connections
check_rc "debugfs: no ib_ipoib_cm/ib0 any more" 1 test -e $dbg/ib0
check "carrier on ibp0s9" wait_carrier ibp0s9 A 30
check "10 pings from ibp0s9 (datagram), every one answered" ns_ping_all A 10.0.0.2 10

# ---- B: ib1 -> ib0, the name A gave up (its debugfs directory too)
check "ib1 down, renamed ib0, up" rename B ib1 ib0
check "debugfs: ib_ipoib_cm/ib0 is B's now, no ib1" sh -c "test -e $dbg/ib0/connections && ! test -e $dbg/ib1"
check "carrier on B's ib0" wait_carrier ib0 B 30

# ---- connected mode under the new names: RC works, debugfs and log lines say the new names
dmesg_mark cm
both_cm() { sysw A ibp0s9/mode connected && sysw B ib0/mode connected; }
check "mode connected on both" both_cm
check "log: ib_ipoib_cm: ibp0s9: connected mode" one_line 'ib_ipoib_cm: ibp0s9: connected mode$'
check "log: ib_ipoib_cm: ib0: connected mode (B's)" one_line 'ib_ipoib_cm: ib0: connected mode$'
check "a 3000 B ping gets through (RC; the first may teach the PMTU)" wait_for 30 ns_reach A 10.0.0.2 1 -s 3000
check "10 pings of 3000 B, every one answered" ns_ping_all A 10.0.0.2 10 -s 3000
check "debugfs ibp0s9/connections: one connection, established" wait_for 10 cm_has ibp0s9 1 ' state=established '
rc_sent() { [ "$(ns_exec A ethtool -S ibp0s9 | sed -n 's/^ *rc_tx_packets: //p')" -ge 10 ]; }
check "ethtool -S ibp0s9: the RC sends counted (rc_tx_packets >= 10)" rc_sent

# ---- rmmod with renamed netdevs: both go, debugfs is empty, nothing logged as a fault
check "rmmod ib_ipoib_cm" rmmod ib_ipoib_cm
check "debugfs: ib_ipoib_cm gone" sh -c "! test -e $dbg"
check "kernel log clean" dmesg_clean
exit $(tap_status)
