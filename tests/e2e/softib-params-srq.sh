#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# softib host_srq= (per-host SRQ override) is validated like every softib parameter: a bad value
# makes insmod fail with one clear "softib: ..." line and registers nothing. Good values give each
# device its own SRQ answer (rdma dev caps SRQ_RESIZE only on SRQ hosts), hosts past the end of
# the list follow srq=, and srq= alone still means every host. No consumer: cheap, one boot.
# load: ib_core
# load: softib hosts=1
# mem: 768
# timeout: 120
# kernels: stock debug
# tier: full
. /e2e/lib.sh
plan 14

ko=/e2e/modules/softib.ko
check "rmmod the harness-loaded softib" rmmod softib
bad() { # REGEX PARAMS...: insmod must fail and log REGEX
    _re=$1; shift
    dmesg_mark bad
    if insmod $ko "$@" 2>/dev/null; then rmmod softib; return 1; fi
    dmesg_has "softib: .*$_re" && test -z "$(ib_devices)"
}
check "host_srq=2 refused" bad "host_srq='2': bad entry '2'" hosts=2 host_srq=2
check "host_srq=1,,0 refused" bad "host_srq='1,,0': bad entry ''" hosts=3 host_srq=1,,0
check "host_srq=yes refused" bad "host_srq='yes': bad entry 'yes'" hosts=2 host_srq=yes
check "host_srq=1,0,1 with hosts=2 refused" bad "host_srq='1,0,1': more entries than hosts=2" hosts=2 host_srq=1,0,1
# srqcaps: "1" or "0" per device, in device order, from the capability flags ib_core cached
srqcaps() { for d in $(ls /sys/class/infiniband); do
    if rdma dev show "$d" -d | grep -q SRQ_RESIZE; then printf 1; else printf 0; fi; done; }
good() { # EXPECTED-CAPS EXPECTED-LOG PARAMS...
    _c=$1; _l=$2; shift 2
    dmesg_mark good
    insmod $ko "$@" || return 1
    _got=$(srqcaps); rmmod softib
    diag "$*: caps $_got"
    [ "$_got" = "$_c" ] && dmesg_has "softib: .*host_srq=$_l\$"
}
check "host_srq=0 hosts=3: host 0 without SRQ, hosts 1-2 follow srq=1" good 011 0,1,1 hosts=3 host_srq=0
check "host_srq=1,0: softib0 SRQ, softib1 not" good 10 1,0 hosts=2 host_srq=1,0
check "host_srq=0,1: the reverse" good 01 0,1 hosts=2 host_srq=0,1
check "srq=0 host_srq=,1 refused (empty entry)" bad "bad entry ''" hosts=2 srq=0 host_srq=,1
check "srq=0 host_srq=0,1: only softib1 has SRQ" good 01 0,1 hosts=2 srq=0 host_srq=0,1
check "srq=0 alone: no host has SRQ" good 00 0,0 hosts=2 srq=0
check "srq=1 alone: every host has SRQ" good 111 1,1,1 hosts=3
check "host_srq=1 hosts=1" good 1 1 hosts=1 srq=0 host_srq=1
log_clean() { ! dmesg | grep -Eq -- "$E2E_KERNEL_REPORT"; }
check "kernel log clean (whole boot)" log_clean
exit $(tap_status)
