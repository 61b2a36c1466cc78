#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Our netdev under dev_parse_header()'s callers, whose hardware-address buffers are 8 bytes
# (nfnetlink_log's nfulnl_msg_packet_hw.hw_addr on the stack, AF_PACKET's sockaddr_ll.sll_addr
# in a TPACKET ring frame): three softib hosts, ours on softib0 (icm0, A, SRQ) and softib1
# (icm1, B, no SRQ), the in-tree ib_ipoib on softib2 (ib2, C). In each namespace an nftables
# input rule sends every received ICMP packet to NFLOG group 5 with `tcpdump -i nflog:5`
# listening, and `tcpdump -i <netdev>` captures both directions. Every host pings the two
# others, in datagram mode then in connected mode, all pairs at once, each pair's path (and
# connection) warmed up before the captures start. Counted: every ping answered, each NFLOG
# listener got exactly the ICMP packets its host received, each capture holds every ICMP
# frame with its payload pattern intact, and no kernel report (a parse writing past the
# 8 bytes smashes the stack or the ring frame; KASAN reports it on the debug kernel).
# load: ib_core
# load: ib_cm
# load: ib_umad
# load: softib hosts=3 host_srq=1,0,0
# load: ib_ipoib
# load: ib_ipoib_cm ports=softib0:1,softib1:1 ifname=icm%d
# load: crc32c_generic
# load: nf_tables
# load: nft_log
# load: nfnetlink_log
# mem: 1280
# timeout: 300
# tier: core
# kernels: stock debug
. /e2e/lib.sh
plan 26

N=3                   # pings per source and target
PAT=a5c30f96          # ping -p payload pattern, checked in the captured frames
dmesg_mark nflog
check "icm0, icm1 (ours) and ib2 (in-tree) exist" wait_for 30 sh -c 'test -e /sys/class/net/icm0 && test -e /sys/class/net/icm1 && test -e /sys/class/net/ib2'
ip link set ib0 down 2>/dev/null; ip link set ib1 down 2>/dev/null
ns_trio icm0 icm1 ib2
up3() { has_carrier icm0 A && has_carrier icm1 B && has_carrier ib2 C; }
check "carrier on all three" wait_for 60 up3
check "softib0 has an SRQ (ours with SRQ), softib1 none (ours without)" sh -c \
    "rdma resource show srq | grep -q 'dev softib0 ' && ! rdma resource show srq | grep -q 'dev softib1 '"

if_of() { case $1 in A) echo icm0 ;; B) echo icm1 ;; C) echo ib2 ;; esac; }
addr_of() { case $1 in A) echo 10.0.0.1 ;; B) echo 10.0.0.2 ;; C) echo 10.0.0.3 ;; esac; }
rules() {
    ns_exec "$1" nft -f - <<EOF
table inet nflogt {
    chain in {
        type filter hook input priority 0; policy accept;
        iifname "$(if_of "$1")" ip protocol icmp counter log group 5
    }
}
EOF
}
rules_all() { for n in A B C; do rules $n || return 1; done; }
check "nftables NFLOG rule in A, B and C" rules_all

# start_caps PHASE: NFLOG listener and netdev capture in each namespace (pids in /tmp/pids.PHASE)
start_caps() {
    : > /tmp/pids.$1
    for n in A B C; do
        /usr/sbin/ip netns exec $n tcpdump -Z root -U -i nflog:5 -w /tmp/nfl.$1.$n >/tmp/nfl.$1.$n.log 2>&1 &
        echo $! >> /tmp/pids.$1
        /usr/sbin/ip netns exec $n tcpdump -Z root -U -i "$(if_of $n)" -w /tmp/cap.$1.$n >/tmp/cap.$1.$n.log 2>&1 &
        echo $! >> /tmp/pids.$1
    done
    # both listening in every namespace before the first ping
    wait_for 20 sh -c "[ \$(cat /tmp/nfl.$1.?.log /tmp/cap.$1.?.log | grep -c 'listening on') -eq 6 ]"
}
stop_caps() { sleep 1; kill -INT $(cat /tmp/pids.$1) 2>/dev/null; sleep 2; }
# warm_all: every path (and, in connected mode, every connection) is up before the captures
# start, so a first packet that waits for its path cannot decide a count; the six pairs at once
# (each process start is seconds on the debug kernel under load)
warm_all() {
    for s in A B C; do for d in A B C; do
        [ $s = $d ] && continue
        ( wait_for 60 ns_reach $s "$(addr_of $d)" 1; echo $? > /tmp/warm.$s$d ) &
    done; done
    wait
    for f in /tmp/warm.??; do [ "$(cat $f)" = 0 ] || { diag "${f#/tmp/warm.}: no reply within 60 s"; return 1; }; done
}
# ping_all: every host pings the two others N times with the pattern, the six pairs at once;
# every one answered ("N packets transmitted, N received"; -W 5: a reply later than that on a
# slow guest counts as lost)
ping_all() {
    for s in A B C; do for d in A B C; do
        [ $s = $d ] && continue
        ns_exec $s /usr/bin/ping -c $N -i 0.2 -W 5 -p $PAT "$(addr_of $d)" > /tmp/ping.$s$d 2>&1 &
    done; done
    wait
    _pa=0
    for f in /tmp/ping.??; do
        grep -q "^$N packets transmitted, $N received," $f ||
            { diag "${f#/tmp/ping.}: $(grep transmitted $f)"; _pa=1; }
    done
    return $_pa
}
# Each host receives 2N echo requests and 2N echo replies: 4N ICMP packets in, 4N out.
# Each capture file is read once (tcpdump -r costs seconds per start on the debug kernel):
# stats PHASE: /tmp/st.PHASE.NS holds "NFLOG IN OUT INTACT ALL": the ICMP packets the NFLOG
# listener got; the ICMP frames the netdev capture holds inbound and outbound, those whose
# payload still holds the pattern after ping's 16-byte timestamp (ICMP octets 24 and 60, as
# BPF's icmp[24:4] and icmp[60:4] with a 20-octet IP header), and all of them
stats() {
    for n in A B C; do
        _nf=$(tcpdump -Z root -nn -r /tmp/nfl.$1.$n 2>/dev/null | wc -l)
        tcpdump -Z root -nn -e -x -r /tmp/cap.$1.$n icmp 2>/dev/null | awk -v pat=$PAT -v nf=$_nf '
            function fin() { if (n && substr(h, 89, 8) == pat && substr(h, 161, 8) == pat) ok++ }
            /^[0-9]/ { fin(); n++; if ($2 == "Out") out++; else inb++; h = ""; next }
            /^[ \t]+0x/ { for (i = 2; i <= NF; i++) h = h $i }
            END { fin(); print nf, inb + 0, out + 0, ok + 0, n + 0 }' > /tmp/st.$1.$n
        read _st < /tmp/st.$1.$n; diag "$1 $n: nflog, captured icmp in, out, intact, all: $_st"
    done
}
# A first packet to a new destination waits for its path and is captured again when re-sent,
# so outbound frames are at least (not exactly) the 4N sent.
phase_checks() {
    for n in A B C; do
        # (not _out, _rc, _d: check's own variables)
        read nf_n cap_in cap_out cap_ok cap_all < /tmp/st.$1.$n
        check "$1: the NFLOG listener in $n got the $((4 * N)) ICMP packets $n received" [ "$nf_n" -eq $((4 * N)) ]
        check "$1: tcpdump on $(if_of $n) captured the $((4 * N)) ICMP frames in, >= $((4 * N)) out, every one intact" \
            [ "$cap_in" -eq $((4 * N)) -a "$cap_out" -ge $((4 * N)) -a "$cap_ok" -eq "$cap_all" ]
    done
}

# ---- datagram mode
check "datagram: every pair reaches the other (paths resolved before the captures)" warm_all
start_caps dg
snap d ib:softib0 ib:softib1 ib:softib2
check "datagram: every ping answered (all pairs, $N each)" ping_all
stop_caps dg
check_delta "datagram: softib0 received nothing over RC" d ib:softib0 rc_rx_packets -eq 0
stats dg
phase_checks dg

# ---- connected mode: A with SRQ, B without, C in-tree
to_cm() { for n in A B C; do ns_exec $n sh -c "echo connected > /sys/class/net/$(if_of $n)/mode" || return 1; done; }
check "all three -> connected mode" to_cm
check "carrier on all three" wait_for 60 up3
check "connected: every pair reaches the other (connections up before the captures)" warm_all
start_caps cm
snap c ib:softib0 ib:softib1 ib:softib2
check "connected: every ping answered (all pairs, $N each)" ping_all
stop_caps cm
check_delta "connected: softib0 (SRQ) received over RC" c ib:softib0 rc_rx_packets -ge $((2 * N))
check_delta "connected: softib1 (no SRQ) received over RC" c ib:softib1 rc_rx_packets -ge $((2 * N))
stats cm
phase_checks cm

check "kernel log clean" dmesg_clean
for n in A B C; do diag "$n: $(ns_exec $n nft list chain inet nflogt in | grep -o 'packets [0-9]*')"; done
ns_delete_all
exit $(tap_status)
