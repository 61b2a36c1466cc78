#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Connected mode, ours <-> ours (softib SRQ): a peer that refuses the connection. B's interface
# goes down (its listeners go, its ib_cm answers every REQ with REJ 8 "invalid service ID", on
# both service IDs), A keeps sending to B's static neighbour entry. A must fall back to UD for
# a doubling back-off (docs/design.md §4 item 8): the packets go out over UD (cm_tx_fallback_ud) and
# A sends a handful of REQs, not one pair per packet. On an SRQ QP still in INIT the REJ's
# teardown destroys at once, in the same step as FallBack (docs/connected.md §2: Destroy is
# last, or the neighbour loses its back-off). Then B comes back up and A connects again.
# load: ib_core
# load: ib_cm
# load: ib_umad
# load: softib hosts=2
# load: ib_ipoib_cm ports=softib0:1,softib1:1 ifname=icm%d
# mem: 1024
# timeout: 300
# kernels: stock debug
. /e2e/lib.sh
plan 24

ca=/sys/kernel/debug/ib_ipoib_cm/icm0/connections
dmesg_mark fallback
cm_ours_pair 10.0.3
check "warm-up ping A->B (path, connection)" wait_for 30 ns_reach A 10.0.3.2 1
check "A: an established connection to B" wait_for 10 grep -q ' state=established ' $ca
check "B down (its connections and listeners go)" ns_ip B link set icm1 down
check "A: B's connection closed (DREQ from B's teardown)" wait_for 20 sh -c "! grep -q ' state=established ' $ca"

snap f ib:softib0 A:icm0
# 60 packets over 12 s to a peer that rejects every REQ: no replies (B is down)
ns_exec A /usr/bin/ping -c 60 -i 0.2 -W 1 10.0.3.2 > /dev/null 2>&1
diag "REQs $(delta f ib:softib0 cm_tx_req), REJs in $(delta f ib:softib0 cm_rx_rej), UD fallback packets $(delta f A:icm0 cm_tx_fallback_ud)"
check_delta "A: REJs classified 'no connection'" f A:icm0 cm_rej_rx_fall_back -ge 1
check_delta "A: fell back" f A:icm0 cm_fall_backs -ge 1
# the back-off (1, 2, 4, 8 s) lets at most 5 connect attempts (2 REQs each: Linux and RFC
# service ID) into 12 s; without it every packet after a REJ opens a new connection
check_delta "A: a few REQs, not one pair per packet (back-off)" f ib:softib0 cm_tx_req -le 10
check_delta "A: packets went out over UD during the back-off" f A:icm0 cm_tx_fallback_ud -ge 30
# B's ib_cm answers both service IDs with REJ 8 (no listener): each REQ's REJ, by reason
check_delta "A: REJs received as reason 8 (invalid service ID), at least one per service ID" f A:icm0 cm_rej_rx_8_invalid_service_id -ge 2
rej_per_req() { [ "$(delta f A:icm0 cm_rej_rx_8_invalid_service_id)" -eq "$(delta f ib:softib0 cm_tx_req)" ]; }
check "A: one REJ 8 for each REQ sent" wait_for 5 rej_per_req
check_delta "A: no REJ under another reason" f A:icm0 cm_rej_rx_other -eq 0
# The table line of a peer in fallback (docs/connected.md §9), while the back-off runs: the ping
# above ended right after a REJ or within a back-off; one more packet makes sure a try failed
ns_exec A /usr/bin/ping -c 1 -W 1 10.0.3.2 > /dev/null 2>&1
FB_SNAP=/tmp/fallback.snap
# One read of the table, kept: the checks below judge that same read, since under load the
# back-off (and with it the line) can end between two reads.
fb_line() { cat $ca > $FB_SNAP; grep -E "^dir=none peer=$addr_b_rc state=fallback fallback=[0-9]+ backoff=[0-9]+ idle=[0-9]+\$" $FB_SNAP; }
addr_b_rc=$(ns_exec B cat /sys/class/net/icm1/address)
# Under load the back-off may end before the file is read (the line goes with it): each look
# that misses sends one more packet, whose failed try starts the next back-off.
fb_poke() { fb_line || { ns_exec A /usr/bin/ping -c 1 -W 1 10.0.3.2 > /dev/null 2>&1; fb_line; }; }
check "A: B's line in connections says state=fallback with the seconds until the next try" wait_for 10 fb_poke
diag "A: $(cat $FB_SNAP)"
fb_s=$(grep -E "^dir=none peer=$addr_b_rc state=fallback " $FB_SNAP | sed -n 's/.* fallback=\([0-9]*\) backoff=\([0-9]*\) .*/\1 \2/p')
set -- $fb_s
check "... fallback= ($1 s) within the back-off ($2 ms), and > 0" sh -c "[ -n '$1' ] && [ '$1' -ge 1 ] && [ \$(( $1 * 1000 )) -le \$(( $2 + 999 )) ]"
check "... and no RC line for B in the same read" file_lacks $FB_SNAP 1 '^dir=(active|passive)'
fb_logs() { dmesg_since_mark | grep -c "peer QPN 0x$(echo $addr_b_rc | cut -d: -f2-4 | tr -d ':'): no RC connection, datagram for"; }
check "the fallback logged once for B ($(fb_logs) lines) after $(delta f A:icm0 cm_fall_backs) fall-backs" test "$(fb_logs)" -eq 1
check_delta "... counted once (cm_fallback_peers)" f A:icm0 cm_fallback_peers -eq 1
check "B up again" ns_ip B link set icm1 up
# after the back-off runs out (at most 16 s here) the next packet connects again
reconnected() { ns_reach A 10.0.3.2 1 >/dev/null 2>&1 && grep -q ' state=established ' $ca; }
check "A reaches B again over a new connection" wait_for 60 reconnected
check "... and B's fallback line is gone" file_lacks $ca 1 ' state=fallback '
diag "$(ns_exec A ethtool -S icm0 | grep -E '^ +cm_' | grep -v ': 0$' | tr '\n' ' ')"
check "kernel log clean" dmesg_clean
ns_delete_all
exit $(tap_status)
