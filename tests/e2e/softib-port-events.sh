#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# softib port-state knobs (`pkey`, `lid`, `event`) driving the in-tree ipoib's flushes:
# a child whose P_Key is not in the table gets carrier when the SM adds it (PKEY_CHANGE ->
# heavy flush) and loses it when it is removed; a LID change (LID_CHANGE -> normal flush on
# the host, a re-registration on the peer to refresh its path) keeps traffic flowing; SM and
# GID change events are harmless; malformed or conflicting knob writes change nothing.
# load: ib_core
# load: ib_cm
# load: softib hosts=2
# load: ib_ipoib
# mem: 1024
# timeout: 240
# kernels: stock debug
# tier: full
. /e2e/lib.sh
plan 20

F0=/sys/kernel/debug/softib/softib0/fault
F1=/sys/kernel/debug/softib/softib1/fault
wait_for 30 sh -c 'test -e /sys/class/net/ib0 && test -e /sys/class/net/ib1'
ip link set ib0 up; ip link set ib1 up
ip link add link ib0 name ib0.8002 type ipoib pkey 0x8002
ip link add link ib1 name ib1.8002 type ipoib pkey 0x8002
ns_create A B
ns_move ib0 A && ns_move ib1 B && ns_move ib0.8002 A && ns_move ib1.8002 B
ns_addr A ib0 10.0.1.1/24 && ns_addr B ib1 10.0.1.2/24
ns_addr A ib0.8002 10.0.2.1/24 && ns_addr B ib1.8002 10.0.2.2/24
parents_ok() { wait_carrier ib0 A 60 && wait_carrier ib1 B 60 && ns_reach A 10.0.1.2 3; }
check "parents: carrier and ping" parents_ok
dmesg_mark events
check_rc "child 0x8002 has no carrier while the P_Key is absent" 1 wait_carrier ib0.8002 A 5

check "SM adds P_Key 0x8002 at index 2 on softib0" sh -c "echo 'pkey 1 2 0x8002' > $F0"
check "... and on softib1" sh -c "echo 'pkey 1 2 0x8002' > $F1"
check_output "pkeys/2 reads 0x8002" '^0x8002$' cat /sys/class/infiniband/softib0/ports/1/pkeys/2
kids_up() { has_carrier ib0.8002 A && has_carrier ib1.8002 B; }
check "both children get carrier (heavy flush)" wait_for 60 kids_up
check "ping over P_Key 0x8002" ns_reach A 10.0.2.2 3
check "SM removes P_Key 0x8002 on softib0" sh -c "echo 'pkey 1 2 0' > $F0"
no_carrier_a() { ! has_carrier ib0.8002 A; }
check "child on softib0 loses carrier" wait_for 30 no_carrier_a

old_lid=$(cat /sys/class/infiniband/softib0/ports/1/lid)
check "SM moves softib0 port 1 to LID 0x40" sh -c "echo 'lid 1 0x40' > $F0"
check_output "the port reports LID 0x40" '^0x40$' cat /sys/class/infiniband/softib0/ports/1/lid
check "peer re-registers (refreshes its path records)" sh -c "echo 'reregister 1' > $F1"
check "ping A->B after the LID change" wait_for 30 ns_reach A 10.0.1.2 1
check "ping B->A after the LID change" wait_for 30 ns_reach B 10.0.1.1 1
check "SM and GID change events" sh -c "echo 'event 1 sm_change' > $F0 && echo 'event 1 gid_change' > $F1"
check "ping still works" wait_for 30 ns_reach A 10.0.1.2 1

check "bad knob writes rejected" sh -c "$(cat <<'X'
F0=/sys/kernel/debug/softib/softib0/fault
for c in 'lid 1 1' 'lid 1 0xc000' "lid 1 $(cat /sys/class/infiniband/softib1/ports/1/lid)" 'lid 2 0x41' \
         'pkey 1 0 0' 'pkey 1 16 0x8005' 'pkey 1 2 0x8000' 'pkey 1 2 0x10000' \
         'event 1 bogus' 'event 1'; do
    if echo "$c" > $F0 2>/dev/null; then echo "accepted: $c"; exit 1; fi
done
X
)"
check_output "LID unchanged by the rejected writes" '^0x40$' cat /sys/class/infiniband/softib0/ports/1/lid
check_output "rdma link: default subnet prefix, the new LID" 'subnet_prefix fe80:0000:0000:0000 lid 64 ' rdma link show softib0/1
check "kernel log clean" dmesg_clean
diag "old LID $old_lid"
diag "$(ip -n A -d link show ib0.8002)"
ns_delete_all
exit $(tap_status)
