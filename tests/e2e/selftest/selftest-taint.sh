#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A kernel taint other than the out-of-tree (O) and unsigned-module (E) flags of the
# project's modules must fail the run (reason taint), even with a clean TAP and log. The
# scenario sets TAINT_USER ('U', bit 6) through /proc/sys/kernel/tainted, which ORs bits in.
# (selftest-pass is the control: e2e_selftest itself taints O, and E on the stock kernel.)
# load: e2e_selftest
# timeout: 30
# expect: fail taint
. /e2e/lib.sh
plan 2
check "taint U requested" sh -c 'echo 64 > /proc/sys/kernel/tainted'
check_output "the kernel shows it" '^[0-9]+$' sh -c 't=$(cat /proc/sys/kernel/tainted); [ $((t & 64)) = 64 ] && echo $t'
exit $(tap_status)
