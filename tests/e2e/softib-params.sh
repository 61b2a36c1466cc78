#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# softib module parameters are validated: each malformed value makes insmod fail with one
# clear "softib: ..." log line and registers nothing; good values (hosts=3 ports_per_host=2
# pkeys=8001,0x8002 ...) give the expected devices, LIDs and P_Key tables. (host_recv_sge='s
# effect, a smaller receive SGE limit, is shown by ipoib-cm-pmtu.)
# load: ib_core
# load: softib hosts=1
# mem: 768
# timeout: 120
# kernels: stock debug
# tier: full
. /e2e/lib.sh
plan 18

ko=/e2e/modules/softib.ko
check "rmmod the harness-loaded softib" rmmod softib
bad() { # PARAMS... REGEX: insmod must fail and log REGEX
    _re=$1; shift
    dmesg_mark bad
    if insmod $ko "$@" 2>/dev/null; then rmmod softib; return 1; fi
    dmesg_has "softib: .*$_re" && test -z "$(ib_devices)"
}
check "hosts=0 refused" bad 'hosts=0 out of range' hosts=0
check "hosts=129 refused" bad 'hosts=129 out of range 1..128' hosts=129
check "ports_per_host=5 refused" bad 'ports_per_host=5 out of range' ports_per_host=5
check "srq=2 refused" bad 'srq=2 must be 0 or 1' srq=2
check "time_scale=0 refused" bad 'time_scale=0 out of range' time_scale=0
check "retry_exc=soon refused" bad "retry_exc='soon'" retry_exc=soon
check "pkeys=zz refused" bad "bad P_Key 'zz'" pkeys=zz
check "pkeys=8001,ffff refused (0xffff is implicit)" bad "bad P_Key 'ffff'" pkeys=8001,ffff
check "host_recv_sge=0 refused" bad "host_recv_sge='0': bad entry '0' \\(1-32\\)" host_recv_sge=0
check "host_recv_sge=32,33 refused" bad "host_recv_sge='32,33': bad entry '33'" hosts=2 host_recv_sge=32,33
check "host_recv_sge=8,8 with hosts=1 refused" bad "host_recv_sge='8,8': more entries than hosts=1" hosts=1 host_recv_sge=8,8
check "host_recv_sge=x refused" bad "host_recv_sge='x': bad entry 'x'" host_recv_sge=x
check "good parameters load" insmod $ko hosts=3 ports_per_host=2 pkeys=8001,0x8002 retry_exc=immediate time_scale=10
check_output "three devices" '^softib0 softib1 softib2 $' sh -c "ls /sys/class/infiniband | tr '\n' ' '"
check_output "softib2 port 2 LID = 2 + 2*2 + 1 = 7" '^0x7$' cat /sys/class/infiniband/softib2/ports/2/lid
check_output "P_Key table 0xffff 0x8001 0x8002" '^0xffff 0x8001 0x8002 $' sh -c \
    "for i in 0 1 2; do cat /sys/class/infiniband/softib1/ports/1/pkeys/\$i; done | tr '\n' ' '"
check_output "load line reports the settings" 'softib: 3 host\(s\) x 2 port\(s\), srq=1, 3 P_Key\(s\), time_scale=10.*retry_exc=immediate' dmesg
exit $(tap_status)
