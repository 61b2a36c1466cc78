#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ib_ipoib_cm datagram mode, bad input: sysfs mode/umcast, ethtool -C/-G, debug_level written
# at run time, a rename (debugfs and log names follow it), and module parameters not covered
# by ipoib-bind. Every bad value fails with its errno and exactly one
# ib_ipoib_cm log line, and changes nothing (the value is read back). ethtool requests the
# driver does not implement (tx coalescing: EINVAL) are refused by the ethtool core before the
# driver sees them (no driver log line). Out-of-range queue sizes load, clamped, with one log line each.
# load: softib hosts=1
# load: ib_ipoib_cm
# mem: 1024
# timeout: 150
# tier: full
. /e2e/lib.sh
plan 54

ko=/e2e/modules/ib_ipoib_cm.ko
ib0=/sys/class/net/ib0
lines() { dmesg_since_mark | grep -c 'ib_ipoib_cm'; }
# refused ERRTEXT NLINES cmd...: cmd fails, its error output contains ERRTEXT, and exactly
# NLINES ib_ipoib_cm lines reached the kernel log
refused() {
    _e=$1 _want=$2; shift 2
    dmesg_mark bad
    if _o=$("$@" 2>&1); then echo "succeeded: $_o"; return 1; fi
    case $_o in *"$_e"*) ;; *) echo "expected \"$_e\", got: $_o"; return 1 ;; esac
    [ "$(lines)" = $_want ] || { echo "$(lines) log lines, want $_want:"; dmesg_since_mark; return 1; }
}
wr() { echo "$2" > "$1"; }
einval() { refused "Invalid argument" 1 "$@"; }

check "ib0 exists" wait_for 30 test -e $ib0

# ---- sysfs mode
check "mode bogus: EINVAL, one log line" einval wr $ib0/mode bogus
check "mode Connected (case matters): EINVAL, one log line" einval wr $ib0/mode Connected
check "mode empty: EINVAL, one log line" einval wr $ib0/mode ""
check_output "mode still datagram" '^datagram$' cat $ib0/mode
check "mode datagram accepted" wr $ib0/mode datagram

# ---- sysfs umcast: 0 or 1
check "umcast 1 accepted" wr $ib0/umcast 1
for v in 2 -1 abc 01 ""; do
    check "umcast \"$v\": EINVAL, one log line" einval wr $ib0/umcast "$v"
done
check_output "umcast still 1" '^1$' cat $ib0/umcast
check "umcast 0 accepted" wr $ib0/umcast 0
check_output "umcast 0" '^0$' cat $ib0/umcast

# ---- ethtool -C / -G
check "ethtool -C rx-usecs 10 rx-frames 16" ethtool -C ib0 rx-usecs 10 rx-frames 16
check "ethtool -C rx-usecs 70000: EINVAL, one log line" einval ethtool -C ib0 rx-usecs 70000
check "ethtool -C rx-frames 65536: EINVAL, one log line" einval ethtool -C ib0 rx-frames 65536
check "ethtool -C tx-usecs 5: EINVAL from the ethtool core (unsupported parameter), no driver line" refused "unsupported parameter" 0 ethtool -C ib0 tx-usecs 5
check_output "coalescing unchanged (rx-usecs 10)" 'rx-usecs:[[:space:]]+10$' ethtool -c ib0
check_output "coalescing unchanged (rx-frames 16)" 'rx-frames:[[:space:]]+16$' ethtool -c ib0
check "ethtool -G rx 1: EINVAL, one log line" einval ethtool -G ib0 rx 1
check_output "rings unchanged (RX 256)" 'RX:[[:space:]]+256' sh -c 'ethtool -g ib0 | sed -n "/Current/,\$p"'

# ---- debug_level: writable at run time (0644, as the in-tree driver's), validated by the core
P=/sys/module/ib_ipoib_cm/parameters/debug_level
check_output "debug_level is 0644" '^-rw-r--r--' ls -l $P
dmesg_mark dbg
check "debug_level 2 accepted" wr $P 2
check_output "... reads 2" '^2$' cat $P
check "... one log line says so" test "$(dmesg_since_mark | grep -c 'ib_ipoib_cm: debug_level 2 (was 0)')" -eq 1
for v in 4 -1 01 abc ""; do
    check "debug_level \"$v\": EINVAL, one log line" einval wr $P "$v"
done
check_output "debug_level still 2" '^2$' cat $P
check "debug_level 0 accepted" wr $P 0
check_output "... reads 0" '^0$' cat $P

# ---- rename (udev's ib0 -> ibp0s9): the debugfs directory and the log lines follow the name
D=/sys/kernel/debug/ib_ipoib_cm
dmesg_mark ren
check "ip link set ib0 name ibp0s9" ip link set ib0 name ibp0s9
check "debugfs: ib_ipoib_cm/ibp0s9/connections" test -e $D/ibp0s9/connections
check_rc "debugfs: no ib_ipoib_cm/ib0 any more" 1 test -e $D/ib0
check "one log line: ib0: renamed to ibp0s9" test "$(dmesg_since_mark | grep -c 'ib_ipoib_cm: ib0: renamed to ibp0s9$')" -eq 1
check "a later line names ibp0s9" einval wr /sys/class/net/ibp0s9/mode bogus
check "... (ib_ipoib_cm: ibp0s9: invalid mode)" dmesg_has 'ib_ipoib_cm: ibp0s9: invalid mode'
check "ip link set ibp0s9 name ib0 (back)" ip link set ibp0s9 name ib0
check "debugfs: ib_ipoib_cm/ib0/connections again" test -e $D/ib0/connections
check_rc "debugfs: no ib_ipoib_cm/ibp0s9" 1 test -e $D/ibp0s9

# ---- module parameters (kmod's insmod: busybox's retries and would log each error twice)
check "rmmod" rmmod ib_ipoib_cm
ln -sf /usr/bin/kmod /tmp/insmod
# bad PARAM=VALUE: the load fails with exactly one log line and binds nothing
bad() {
    dmesg_mark bad
    if /tmp/insmod $ko "$@" 2>/dev/null; then rmmod ib_ipoib_cm; echo "loaded"; return 1; fi
    [ "$(lines)" = 1 ] || { echo "$(lines) log lines:"; dmesg_since_mark; return 1; }
    ! module_loaded ib_ipoib_cm && [ ! -e $ib0 ]
}
check "send_queue_size=abc refused, one log line" bad send_queue_size=abc
check "recv_queue_size=1x refused, one log line" bad recv_queue_size=1x
check "debug_level=-1 refused, one log line" bad debug_level=-1
check "ports=softib0:0 refused, one log line" bad ports=softib0:0
check "ports=softib0,,softib1 refused, one log line" bad ports=softib0,,softib1
check "ifname=abcdefghijklmn%d (16 chars) refused, one log line" bad 'ifname=abcdefghijklmn%d'
check "ifname=ib/%d refused, one log line" bad 'ifname=ib/%d'

# out of range queue sizes: clamped, one line each, and the rings show it
dmesg_mark clamp
clamped() {
    /tmp/insmod $ko send_queue_size=-1 recv_queue_size=99999 || return 1
    wait_for 10 test -e $ib0 || return 1
    [ "$(dmesg_since_mark | grep -c 'send_queue_size=-1 adjusted to 128')" = 1 ] &&
        [ "$(dmesg_since_mark | grep -c 'recv_queue_size=99999 adjusted to 8192')" = 1 ] &&
        [ "$(dmesg_since_mark | grep -c 'adjusted to')" = 2 ] &&
        ethtool -g ib0 | sed -n '/Current/,$p' | grep -Eq 'RX:[[:space:]]+8192' &&
        ethtool -g ib0 | sed -n '/Current/,$p' | grep -Eq 'TX:[[:space:]]+128'
}
check "send_queue_size=-1 recv_queue_size=99999: loads clamped to 128/8192, one line each" clamped
check "kernel log clean" dmesg_clean
exit $(tap_status)
