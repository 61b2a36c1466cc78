#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# rdma_cm over ib_ipoib_cm (ours on both softib hosts, hosts in namespaces A and B), driven by
# the in-kernel test client/echo server tests/kmod/ipoib_rdmacm_test (softib has no userspace
# verbs, so no rping): address resolution (ARP/ND on our netdev), route (PathRecord), RC
# connect by IP, messages verified both ways, disconnect. The passive side needs our
# ib_client's get_net_dev_by_params: it maps the REQ to ib1, whose namespace (B) holds the
# listener. Negative cases: no listener on the port -> REJ (invalid service ID), an address
# nobody has -> address error, a listener in the wrong namespace is not found -> REJ; none hangs.
# load: ib_core
# load: ib_cm
# load: ib_umad
# load: softib hosts=2
# load: ib_ipoib_cm
# load: ipoib_rdmacm_test
# mem: 1024
# timeout: 300
# tier: full
. /e2e/lib.sh
plan 32

# `ip netns exec` remounts /sys, hiding /sys/kernel/debug: use a second debugfs mount
mkdir -p /run/dbg && mount -t debugfs none /run/dbg
CTL=/run/dbg/ipoib_rdmacm_test/ctl
# cmd NS COMMAND...: run one control command in namespace NS (the module uses the writer's netns)
cmd() { _ns=$1; shift; ns_exec "$_ns" sh -c "echo $* > $CTL"; }
result() { cat $CTL; }
# field NAME LINE(client|server): the value of NAME= in that line of the control file
field() { sed -n "s/^$2 .*[ ]$1=\([^ ]*\).*/\1/p" $CTL; }
secs() { cut -d. -f1 /proc/uptime; }

check "ib0 and ib1 exist" wait_for 30 sh -c 'test -e /sys/class/net/ib0 && test -e /sys/class/net/ib1'
check "control file exists" test -w $CTL
ns_create A B
ns_move ib0 A && ns_move ib1 B
ns_addr A ib0 10.0.0.1/24 && ns_addr B ib1 10.0.0.2/24
ip -n A addr add fd00::1/64 dev ib0 nodad
ip -n B addr add fd00::2/64 dev ib1 nodad
check "carrier on ib0" wait_carrier ib0 A 60
check "carrier on ib1" wait_carrier ib1 B 60
check "ping A->B" ns_reach A 10.0.0.2 3

dmesg_mark rdmacm
check "listen on 10.0.0.2:7471 in B" cmd B listen 10.0.0.2 7471
check "connect from A: 200 messages of 4096 B each way" cmd A connect 10.0.0.2 7471 200 4096
run result
check_output "client: ok, 200 messages, 819200 B each way" \
	'^client status=ok event=established reason=0 messages=200 bytes_sent=819200 bytes_received=819200 errors=0 held=0$' result
check_output "server: 1 accepted, 200 messages verified, no errors" \
	'^server listeners=1 accepted=1 active=[01] messages=200 bytes=1638400 errors=0 disconnected=1$' result
check "server connection torn down after the disconnect" wait_for 10 sh -c "grep -q 'active=0' $CTL"
check "connect: 8 messages of 1 MiB (multi-packet RC messages)" cmd A connect 10.0.0.2 7471 8 1048576
check_output "client: 8 MiB each way verified" 'status=ok .* messages=8 bytes_sent=8388608 bytes_received=8388608' result
check_output "server: 208 messages, 2 connections" 'accepted=2 .*messages=208 .*errors=0 disconnected=2' result

# IPv6: rdma_cm resolves fd00::2 through ND on our netdev and carries IPv6 in the CM header
check "listen on [fd00::2]:7471 in B" cmd B listen fd00::2 7471
check "connect over IPv6 from A: 50 x 2048 B" cmd A connect fd00::2 7471 50 2048
check_output "client (IPv6): ok, 50 messages" 'status=ok .* messages=50 bytes_sent=102400' result

# Negative cases: each must be reported, quickly, not hang
t0=$(secs)
check_fail "connect to a port nobody listens on fails (ECONNREFUSED)" 'Connection refused' cmd A connect 10.0.0.2 7999 1 64
run result
check_output "... reported as REJ, reason 8 (invalid service ID)" '^client status=rejected event=rejected reason=8 ' result
check_fail "connect to an address nobody has fails (EHOSTUNREACH)" 'No route to host' cmd A connect 10.0.0.99 7471 1 64
check_output "... reported as an address error" '^client status=addr_error' result
# A listener on the wildcard address in namespace A: the REQ to 10.0.0.2 arrives on ib1, which
# lives in B, so rdma_cm must look for the listener in B (the netdev we return decides).
check "wildcard listener on :7472 in A" cmd A listen 0.0.0.0 7472
check_fail "connect to 10.0.0.2:7472 (listener only in A) is rejected" 'Connection refused' cmd A connect 10.0.0.2 7472 1 64
check_output "... by rdma_cm (REJ reason 28, consumer defined: no listener in B)" '^client status=rejected event=rejected reason=28 ' result
t1=$(secs)
diag "negative cases took $((t1 - t0)) s"
diag "$(result)"
check "stop: listeners and connections destroyed" sh -c "echo stop > $CTL && grep -q 'listeners=0 .*active=0' $CTL"
# A connection kept open ("hold"): stop tears the server side down first (DREQ to the client)
check "listen on 10.0.0.2:7473 in B" cmd B listen 10.0.0.2 7473
check "connect and hold: 5 x 512 B" cmd A connect 10.0.0.2 7473 5 512 hold
check_output "client holds the connection" '^client status=ok .* messages=5 .* held=1$' result
check_output "server has it active" '^server listeners=1 .*active=1 ' result
check "stop with a live connection: listener, server and client side all released" \
	sh -c "echo stop > $CTL && grep -q 'held=0' $CTL && grep -q 'listeners=0 .*active=0' $CTL"
check "the held client connection was closed" wait_dmesg 10 'closing the held client connection'
# left for rmmod, which must release them (the harness fails a busy module or a leak)
leave_for_rmmod() { cmd B listen 10.0.0.2 7474 && cmd A connect 10.0.0.2 7474 3 256 hold && grep -q 'active=1' $CTL; }
check "a listener and a held connection left for rmmod" leave_for_rmmod
check "kernel log clean" dmesg_clean
diag "$(dmesg_since_mark | grep ipoib_rdmacm_test)"
ns_delete_all
umount /run/dbg
exit $(tap_status)
