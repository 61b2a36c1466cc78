#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Host test of scripts/bench-report (`scripts/bench --selftest`; no VM, a second or two).

Feeds it a synthetic TAP whose figures are known, then checks results.json field by field
(medians, ratio direction, spread, runs, not-measured cells as null, A/A ratios, the derived
conns_per_gib and ceiling_fraction), report.md (the not-measured note, the fragmentation
note), the guest time per kind of step (meta.json, report.md) and the comparison with a planted previous JSON: one cell beyond the A/A noise floor
must be flagged as a regression, one within it must not; and a second synthetic run with
an A/A slot of ours (aa=ours) and a second build of ours (slot oursb): the A/A is taken
against ours' slot, ours / oursb is judged against that floor (one cell worse beyond it,
one within). Also: the memory records' `measure` (from "# bench-measure mem") and a
comparison with a previous JSON of another measure (or none recorded: MemAvailable before
2026-12-02) flagged "not comparable", not judged; a run with the A/A slot in one pair family
per run (aa_cells=rotate) whose cells all take their metric's largest A/A as the floor; the
peer-isolation records (the stall as the cell); and, on the host with sh, the harness's own
loops (tests/bench/ipoib-bench.sh in its dry-run pass, the cells stubbed): where the A/A slot
runs with BENCH_AA_CELLS rotate and every, the isolation phase's cells, and the isolation
cell's figures from canned iperf3 and ping output.
Prints TAP; exit 1 on a failure.
"""
import json
import os
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
report = os.environ.get("BENCH_REPORT") or os.path.join(here, "..", "..", "scripts", "bench-report")
scenario = os.environ.get("BENCH_SCENARIO") or os.path.join(here, "ipoib-bench.sh")
benchlib = os.environ.get("BENCH_LIB") or os.path.join(here, "bench-lib.sh")
FIELDS = {"name", "unit", "mode", "srq", "streams", "direction", "size", "ours", "intree",
          "ratio", "better", "spread", "runs"}

TAP = """ok 1 - something
# bench-measure mem free_kib
# bench-cm intree accepts connected mode
# bench-cm ours refuses connected mode
# bench-rec datagram 1 intree 1 tcp_throughput 1 ab - 100
# bench-rec datagram 1 ours 1 tcp_throughput 1 ab - 210
# bench-rec datagram 1 aa 1 tcp_throughput 1 ab - 100
# bench-rec datagram 1 intree 2 tcp_throughput 1 ab - 120
# bench-rec datagram 1 ours 2 tcp_throughput 1 ab - 200
# bench-rec datagram 1 aa 2 tcp_throughput 1 ab - 110
# bench-rec datagram 1 intree 3 tcp_throughput 1 ab - 90
# bench-rec datagram 1 ours 3 tcp_throughput 1 ab - 190
# bench-rec datagram 1 aa 3 tcp_throughput 1 ab - 105
# bench-rec datagram 1 intree 1 ping_rtt 1 ab 60000 8
# bench-rec datagram 1 ours 1 ping_rtt 1 ab 60000 4
# bench-rec datagram 1 aa 1 ping_rtt 1 ab 60000 10
# bench-rec datagram 1 intree 1 udp_loss 1 ab - 0
# bench-rec datagram 1 ours 1 udp_loss 1 ab - 3
# bench-rec connected 1 intree 1 tcp_throughput 1 ab - 500
# bench-nm connected 1 ours 1 ours does not accept connected mode
# bench-ceil 1 2000
# bench-rec connected 0 intree 1 mem_total - - 15 491520
# bench-rec connected 0 intree 1 mem_conns - - 15 30
# bench-rec connected 0 intree 1 mem_per_idle_conn - - 15 16384
# bench-rec datagram 1 intree 1 setup_time - - 8 40
# bench-rec datagram 1 ours 1 setup_time - - 8 20
# bench-at 0 40 10.0 bring-up datagram srq=1 (intree, 25 hosts) intree run 1/3
# bench-at 8 40 18.5 setup_time datagram srq=1 N=1 intree run 1/3
# bench-at 10 40 19.0 setup_time datagram srq=1 N=8 intree run 1/3
# bench-at 14 40 25.0 bring-up datagram srq=1 (ours, 25 hosts) ours run 1/3
# bench-at 22 40 32.0 setup_time datagram srq=1 N=1 ours run 1/3
# bench-at 24 40 33.0 tcp_throughput datagram srq=1 P1 ab ours run 1/3
# bench-at 30 40 40.0 tcp_throughput datagram srq=1 P4 ba ours run 1/3
# bench-at 40 40 47.5 done - run -/-
"""

# ours 200 in both cells; A/A (ours again) 210 -> floor 5 %; oursb 250 in the A->B cell
# (ours / oursb 0.8: worse beyond the floor), 205 in B->A (0.976: within it)
TAP_B = """ok 1 - something
# bench-rec datagram 1 intree 1 tcp_throughput 1 ab - 100
# bench-rec datagram 1 ours 1 tcp_throughput 1 ab - 200
# bench-rec datagram 1 oursb 1 tcp_throughput 1 ab - 250
# bench-rec datagram 1 aa 1 tcp_throughput 1 ab - 210
# bench-rec datagram 1 intree 1 tcp_throughput 1 ba - 100
# bench-rec datagram 1 ours 1 tcp_throughput 1 ba - 200
# bench-rec datagram 1 oursb 1 tcp_throughput 1 ba - 205
# bench-rec datagram 1 aa 1 tcp_throughput 1 ba - 190
"""

# aa_cells=rotate: the A/A slot in datagram in run 1 (105 / 100: 5 %), in connected SRQ in
# run 2 (120 / 100: 20 %); the datagram cell's floor is tcp_throughput's largest, 20 %
TAP_R = """ok 1 - something
# bench-rec datagram 1 intree 1 tcp_throughput 1 ab - 100
# bench-rec datagram 1 ours 1 tcp_throughput 1 ab - 200
# bench-rec datagram 1 aa 1 tcp_throughput 1 ab - 105
# bench-rec datagram 1 intree 2 tcp_throughput 1 ab - 100
# bench-rec datagram 1 ours 2 tcp_throughput 1 ab - 200
# bench-rec connected 1 intree 1 tcp_throughput 1 ab - 100
# bench-rec connected 1 ours 1 tcp_throughput 1 ab - 300
# bench-rec connected 1 intree 2 tcp_throughput 1 ab - 100
# bench-rec connected 1 ours 2 tcp_throughput 1 ab - 300
# bench-rec connected 1 aa 2 tcp_throughput 1 ab - 120
"""

TAP_SETUP = """ok 1 - something
# bench-rec connected 1 intree 1 setup_answered - - 63 63
# bench-rec connected 1 intree 1 setup_time_p50 - - 63 500
# bench-rec connected 1 intree 1 setup_time_p90 - - 63 900
# bench-rec connected 1 intree 1 setup_time - - 63 1200
# bench-rec connected 1 intree 2 setup_answered - - 63 37
# bench-rec connected 1 intree 2 setup_time_p50 - - 63 700
# bench-rec connected 1 ours 1 setup_answered - - 63 63
# bench-rec connected 1 ours 1 setup_time_p50 - - 63 200
# bench-rec connected 1 ours 1 setup_time_p90 - - 63 300
# bench-rec connected 1 ours 1 setup_time - - 63 400
# bench-rec connected 1 ours 2 setup_answered - - 63 63
"""

# the harness's loops on the host: stubs for what needs the VM, the cells print themselves
PLAN_SH = r"""
diag() { :; }; check() { :; }; skip() { :; }; not_ok() { :; }; fabric() { :; }
. "$BENCH_LIB"
eval "$(sed -n '/^BENCH_RUNS=/,/^dmesg_mark bench$/p' "$BENCH_SCENARIO" | grep -v '^\. /e2e/\|^dmesg_mark bench$')"
BENCH_AA_CELLS=$CELLS BENCH_RUNS=$RUNS
pair_cell() { echo "$RUN $MODE$SRQ $SLOT"; }
setup_cell() { echo "setup $RUN $MODE$SRQ $SLOT $1"; }; ceiling() { :; }
isolation_cell() { echo "iso $RUN $MODE$SRQ $SLOT $FABRIC"; }
DRY=1; benchmark
BENCH_OURS_PARAMS=cm_csum_free=1 BENCH_OURSB_PARAMS=cm_csum_free=0
echo "params ours=$(params ours) oursb=$(params oursb) intree=$(params intree)"
"""


# setup(), the setup-time cell, on the host: ping stubbed by canned first replies (TIMES: one
# word per peer from FIRST on, "SEQ:RTT" or "-" for a peer that never answered)
SETUP_SH = r"""
diag() { echo "# $*"; }
check() { b_cd=$1; shift; if "$@"; then echo "ok - $b_cd"; else echo "not ok - $b_cd"; return 1; fi; }
. "$BENCH_LIB"
ns_exec() { :; }
setup_ping() {
    b_pi=${1##*.}; b_pi=$((b_pi - 1))
    b_pw=$(echo $TIMES | cut -d' ' -f$((b_pi - FIRST + 1)))
    { echo "offset 0 1"; echo "PING $1 ($1) 56(84) bytes of data."
      case $b_pw in -) echo "1 packets transmitted, 0 received, 100% packet loss" ;;
      *) echo "64 bytes from $1: icmp_seq=${b_pw%%:*} ttl=64 time=${b_pw#*:} ms" ;; esac; } > "$2"
}
BENCH_SETUP_WINDOW=60 MODE=datagram SRQ=1 SLOT=ours RUN=1 MEM=0 PEERS_MAX=0
setup $N $FIRST
"""


# mem_largest(), the memory cell at the largest N, on the host: the VM's readings stubbed
# (free memory at the bring-up's first reading, after the hub's N, after the mesh; RC QPs),
# every ping answers and is logged as "SOURCE-NS ADDR"
MESH_SH = r"""
diag() { echo "# $*"; }
check() { b_cd=$1; shift; if "$@"; then echo "ok - $b_cd"; else echo "not ok - $b_cd"; return 1; fi; }
not_ok() { echo "not ok - $*"; }
. "$BENCH_LIB"
ns_exec() { b_ns=$1; shift; [ "$1" = ping ] || return 0; eval "b_to=\${$#}"; echo "$b_ns $b_to" >> "$PINGS"
    case " $FAIL " in *" $b_to "*) return 1 ;; esac; return 0; }
# CLOCK=late: the clock reads 0 at its first reading (the mesh's window opens) and 90 s at
# every later one (the sources', in subshells: a file says which), past the 60 s window
[ "${CLOCK:-}" = late ] && ms_now() { if [ -e "$PINGS.clock" ]; then echo 90000; else : > "$PINGS.clock"; echo 0; fi; }
settle() { :; }; sleep() { :; }; slab_save() { : > "$1"; }; meminfo() { echo 0; }
free_kib() { echo "$FREE_AFTER"; }; rc_qps() { echo "$QPS_AFTER"; }
MODE=connected SRQ=0 SLOT=ours RUN=1 BENCH_SETUP_WINDOW=60 DRY=0
MEM_BASE="$BASE 0 0 0" MEM_AFTER="$HUB 0 $HUB_QPS 0"
mem_largest $HUB_PEERS $CAP
"""


# which srq=0 bring-ups run mem_largest, and with what pair cap: the harness's loops with
# the cells' insides stubbed (BENCH_MESH 1: the last run, in-tree capped at 0; 2: every run)
MESH_PLAN_SH = r"""
diag() { :; }; check() { :; }; skip() { :; }; not_ok() { :; }; fabric() { :; }
. "$BENCH_LIB"
eval "$(sed -n '/^BENCH_RUNS=/,/^dmesg_mark bench$/p' "$BENCH_SCENARIO" | grep -v '^\. /e2e/\|^dmesg_mark bench$')"
BENCH_METRICS=mem_per_idle_conn BENCH_MODES=connected BENCH_SETUP_RUNS0=2 BENCH_MESH=$MESH
namespaces() { :; }; cell_up() { return 0; }; cell_down() { :; }; setup() { :; }
mem_largest() { echo "mem_largest run $RUN $SLOT peers $1 cap $2"; }
DRY=0; benchmark
"""


# isolation(), the peer-isolation cell, on the host: the stall, the flood and the servers
# stubbed; iperf3's output (IPERF) and the pings' (PINGS, printf %b) canned
ISO_SH = r"""
diag() { echo "# $*"; }
check() { b_cd=$1; shift; if "$@"; then echo "ok - $b_cd"; else echo "not ok - $b_cd"; return 1; fi; }
. "$BENCH_LIB"
MODE=connected SRQ=1 SLOT=ours RUN=1 BENCH_TIME=4 PEER=10.0.0.2 BENCH_METRICS=all
wait_for() { :; }; sleep() { :; }; iso_fault() { :; }; iso_lift() { :; }; wait_carrier() { :; }; iso_flood() { :; }
timeout() { printf '%b' "$IPERF"; }
ns_exec() { case "$*" in *"-c 30 "*) printf '%b' "$PINGS" ;; esac; }
isolation "$CASE"
"""

TAP_ISO = """ok 1 - something
# bench-rec connected 1 intree 1 isolation_answered 1 forever - 11
# bench-rec connected 1 intree 1 isolation_rtt_max 1 forever - 4900
# bench-rec connected 1 intree 1 isolation_tcp 1 forever - 0
# bench-rec connected 1 ours 1 isolation_answered 1 forever - 30
# bench-rec connected 1 ours 1 isolation_rtt_max 1 forever - 98
# bench-rec connected 1 ours 1 isolation_tcp 1 forever - 200
# bench-rec connected 1 intree 1 isolation_answered 1 gone - 30
# bench-rec connected 1 intree 1 isolation_rtt_max 1 gone - 20
# bench-rec connected 1 intree 1 isolation_tcp 1 gone - 100
# bench-rec connected 1 ours 1 isolation_answered 1 gone - 30
# bench-rec connected 1 ours 1 isolation_rtt_max 1 gone - 10
# bench-rec connected 1 ours 1 isolation_tcp 1 gone - 150
"""


def iso_cell(case, iperf, pings):
    env = dict(os.environ, BENCH_LIB=benchlib, CASE=case, IPERF=iperf, PINGS=pings)
    p = subprocess.run(["sh", "-c", ISO_SH], capture_output=True, text=True, env=env)
    recs = {}
    for l in p.stdout.splitlines():
        w = l.split()
        if w[:2] == ["#", "bench-rec"]:
            recs[w[6]] = (w[8], float(w[10]))
    return recs, p.stdout


def mesh_plan(mesh):
    env = dict(os.environ, BENCH_LIB=benchlib, BENCH_SCENARIO=scenario, MESH=str(mesh))
    p = subprocess.run(["sh", "-c", MESH_PLAN_SH], capture_output=True, text=True, env=env)
    return [l for l in p.stdout.splitlines() if l.startswith("mem_largest")]


def mesh_cell(hosts, hub_peers, base, hub, hub_qps, free_after, qps_after, cap="", fail="", clock=""):
    with tempfile.TemporaryDirectory() as tmp:
        pings = os.path.join(tmp, "pings")
        env = dict(os.environ, BENCH_LIB=benchlib, HOSTS=str(hosts), HUB_PEERS=str(hub_peers), BASE=str(base),
                   HUB=str(hub), HUB_QPS=str(hub_qps), FREE_AFTER=str(free_after), QPS_AFTER=str(qps_after), PINGS=pings, CAP=cap,
                   FAIL=fail, CLOCK=clock)
        p = subprocess.run(["sh", "-c", MESH_SH], capture_output=True, text=True, env=env)
        got = open(pings).read().split("\n") if os.path.exists(pings) else []
    recs = {}
    for l in p.stdout.splitlines():
        w = l.split()
        if w[:2] == ["#", "bench-rec"]:
            recs[w[6]] = (w[9], float(w[10]))
    return recs, [l for l in got if l], p.stdout


def setup_cell(times, first=1):
    env = dict(os.environ, BENCH_LIB=benchlib, TIMES=times, N=str(len(times.split())), FIRST=str(first))
    p = subprocess.run(["sh", "-c", SETUP_SH], capture_output=True, text=True, env=env)
    recs = {}
    for l in p.stdout.splitlines():
        w = l.split()
        if w[:2] == ["#", "bench-rec"]:
            recs[w[6]] = float(w[10])
    return p.returncode, recs, p.stdout


def plan(cells, runs):
    env = dict(os.environ, BENCH_LIB=benchlib, BENCH_SCENARIO=scenario, CELLS=cells, RUNS=str(runs))
    p = subprocess.run(["sh", "-c", PLAN_SH], capture_output=True, text=True, env=env)
    return p.returncode, p.stdout.split("\n")

n = fails = 0


def check(desc, cond):
    global n, fails
    n += 1
    if not cond:
        fails += 1
    print("%s %d - %s" % ("ok" if cond else "not ok", n, desc))


def find(recs, name, mode, **kw):
    for r in recs:
        if r["name"] == name and r["mode"] == mode and all(r.get(k) == v for k, v in kw.items()):
            return r
    return None


def run(tmp, prev=None, prev_meta=None, tap_text=TAP, meta=()):
    tap = os.path.join(tmp, "t.tap")
    with open(tap, "w") as f:
        f.write(tap_text)
    out = os.path.join(tmp, "out")
    cmd = [sys.executable, report, "--tap", tap, "--out", out, "--meta", "udp_rate=200M",
           "--meta", "runs=3", "--meta", "quick=0", "--meta", "ours_params="]   # as scripts/bench passes it
    for m in meta:
        cmd += ["--meta", m]
    if prev:
        cmd += ["--prev", prev]
    if prev_meta:
        cmd += ["--prev-meta", prev_meta]
    p = subprocess.run(cmd, capture_output=True, text=True)
    with open(os.path.join(out, "results.json")) as f:
        recs = json.load(f)
    with open(os.path.join(out, "report.md")) as f:
        md = f.read()
    with open(os.path.join(out, "meta.json")) as f:
        run.meta = json.load(f)
    return p.returncode, recs, md


def main():
    with tempfile.TemporaryDirectory() as tmp:
        rc, recs, md = run(tmp)
        check("bench-report exits 0", rc == 0)
        extra_ok = lambda r: {"metric", "aa_of", "run_ratios"} if r["name"] == "aa_ratio" else (
            {"measure", "conns"} if r["name"] in ("mem_per_idle_conn", "conns_per_gib") else set())
        check("every record has only the issue's fields (+ metric, aa_of, run_ratios on aa_ratio; measure on memory)",
              all(set(r) - FIELDS <= extra_ok(r) for r in recs))
        t = find(recs, "tcp_throughput", "datagram", streams=1, direction="A->B")
        check("tcp datagram: medians in-tree 100, ours 200, ratio ours/in-tree 2.0",
              t and t["intree"] == 100 and t["ours"] == 200 and abs(t["ratio"] - 2.0) < 1e-9)
        check("tcp datagram: Mbit/s, higher is better, srq 1",
              t and t["unit"] == "Mbit/s" and t["better"] == "higher" and t["srq"] == 1)
        check("tcp datagram: spread = max - min per driver, runs in run order",
              t and t["spread"] == {"ours": 20, "intree": 30} and t["runs"]["intree"] == [100, 120, 90])
        a = find(recs, "aa_ratio", "datagram", metric="tcp_throughput", streams=1)
        check("A/A: aa_ratio 105/100 for the same cell, against the in-tree slot; run by run 1, 110/120, 105/90",
              a and abs(a["ratio"] - 1.05) < 1e-9 and a["aa_of"] == "intree" and
              [round(x, 4) for x in a["run_ratios"]] == [1.0, 0.9167, 1.1667])
        c = find(recs, "tcp_throughput", "connected", srq=1)
        check("connected tcp: ours not measured -> ours and ratio null, in-tree 500",
              c and c["ours"] is None and c["ratio"] is None and c["intree"] == 500)
        check("report says why ours is not measured", "ours not measured: ours does not accept connected mode" in md)
        cf = find(recs, "ceiling_fraction", "connected", srq=1)
        check("ceiling_fraction: in-tree 500 / ceiling 2000 = 0.25, ours null",
              cf and abs(cf["intree"] - 0.25) < 1e-9 and cf["ours"] is None)
        cg = find(recs, "conns_per_gib", "connected", srq=0)
        m = find(recs, "mem_per_idle_conn", "connected", srq=0)
        check("mem_per_idle_conn 16384 KiB at N=15 -> conns_per_gib 64",
              m and m["intree"] == 16384 and m.get("size") == 15 and cg and abs(cg["intree"] - 64) < 1e-9)
        check("memory records say their measure (bench-measure mem free_kib), meta.json too, others not",
              m and m.get("measure") == "free_kib" and cg and cg.get("measure") == "free_kib" and
              run.meta.get("mem_measure") == "free_kib" and "measure" not in t)
        u = find(recs, "udp_loss", "datagram")
        check("udp_loss: in-tree 0 -> no ratio (not a division by zero)", u and u["ratio"] is None and u["ours"] == 3)
        p = find(recs, "ping_rtt", "datagram", size=60000)
        check("ping_rtt 60000 B: lower is better, ratio 0.5", p and p["better"] == "lower" and abs(p["ratio"] - 0.5) < 1e-9)
        check("report notes the datagram 60000-byte ping is IP-fragmented", "IP-fragmented" in md)
        check("no comparison without a previous JSON", "Against the previous run" not in md)
        st = run.meta.get("step_times_s", {})
        # bring-ups 8.5 + 7.0, setup 0.5 + 6.0 + 1.0 (each step until the next starts, the
        # last N's teardown with it), tcp 7.0 + 7.5 (1 and 4 streams, both ways: one kind)
        check("step times: per kind, driver and run summed, each step until the next starts",
              st == {"bring-up datagram srq=1, 25 hosts": 15.5, "tcp_throughput datagram srq=1": 14.5,
                     "setup_time datagram srq=1": 7.5})
        check("guest seconds: first step to the end (37.5)", run.meta.get("guest_s") == 37.5)
        check("report.md has the time-per-step table, largest first",
              "| bring-up datagram srq=1, 25 hosts | 16 | 41% |" in md and
              md.index("bring-up datagram srq=1, 25") < md.index("| setup_time datagram srq=1 |"))

        # planted previous run: tcp ratio was 2.5 (now 2.0: -20 %, beyond the 5 % A/A floor),
        # setup_time ratio was 0.51 (now 0.5: -2 %, better, but inside the ping A/A floor)
        prev = json.loads(json.dumps(recs))
        find(prev, "tcp_throughput", "datagram", streams=1, direction="A->B")["ratio"] = 2.5
        find(prev, "setup_time", "datagram", size=8)["ratio"] = 0.51
        pp = os.path.join(tmp, "prev.json")
        with open(pp, "w") as f:
            json.dump(prev, f)
        rc, recs2, md2 = run(tmp, pp)
        rows = {l.split("|")[1].strip() + "/" + l.split("|")[4].strip(): l for l in md2.splitlines()
                if l.startswith("| ") and "ratio before" not in l and l.count("|") == 10}
        tl = rows.get("tcp_throughput/1 stream, A->B", "")
        sl = rows.get("setup_time/N=8 peers", "")
        check("tcp 2.5 -> 2.0 flagged a regression beyond the A/A floor", "REGRESSION" in tl and "±5.0%" in tl)
        check("setup_time 0.51 -> 0.50 (better, inside the largest A/A of the run: 25 %) within noise",
              "within noise" in sl and "largest A/A of the run" in sl)
        check("the summary counts 1 regression", "1 regression(s) beyond the noise floor" in md2)

        # memory across measures: in-tree 16384 KiB per connection now; before, MemAvailable
        # and (as in a JSON from before the field) no measure at all, ratios far apart
        tap_m = TAP + "# bench-rec connected 0 ours 1 mem_per_idle_conn - - 15 400\n"
        rc, recs_m, _ = run(tmp, tap_text=tap_m)
        prev_m = json.loads(json.dumps(recs_m))
        pm_rec = find(prev_m, "mem_per_idle_conn", "connected", srq=0)
        pm_rec["ratio"] *= 3
        pm_rec["measure"] = "MemAvailable"
        del find(prev_m, "conns_per_gib", "connected", srq=0)["measure"]
        find(prev_m, "conns_per_gib", "connected", srq=0)["ratio"] /= 3
        ppm = os.path.join(tmp, "prev-mem.json")
        with open(ppm, "w") as f:
            json.dump(prev_m, f)
        rc, _, mdm = run(tmp, ppm, tap_text=tap_m)
        ml = [l for l in mdm.splitlines() if l.startswith("| mem_per_idle_conn") and "not comparable" in l]
        cl = [l for l in mdm.splitlines() if l.startswith("| conns_per_gib") and "not comparable" in l]
        check("memory cells of another measure (MemAvailable; unrecorded) are not comparable, not regressions",
              len(ml) == 1 and "measure MemAvailable before, free_kib now" in ml[0] and
              len(cl) == 1 and "measure unrecorded before, free_kib now" in cl[0] and
              "REGRESSION" not in (ml + cl)[0] + (ml + cl)[-1])
        check("the summary counts the 2 memory cells not comparable",
              "2 memory cell(s) not comparable" in mdm)
        prev_m = json.loads(json.dumps(recs_m))
        find(prev_m, "mem_per_idle_conn", "connected", srq=0)["ratio"] /= 3
        with open(ppm, "w") as f:
            json.dump(prev_m, f)
        rc, _, mdm2 = run(tmp, ppm, tap_text=tap_m)
        ml2 = [l for l in mdm2.splitlines() if l.startswith("| mem_per_idle_conn") and "±" in l]
        check("the same measure both times: the memory cell is judged (a regression: 3x better before)",
              len(ml2) == 1 and "REGRESSION" in ml2[0] and "not comparable" not in mdm2)
        pm = os.path.join(tmp, "prev-meta.json")
        with open(pm, "w") as f:
            json.dump({"runs": "1", "quick": "1"}, f)
        rc, recs3, md3 = run(tmp, pp, pm)
        check("no comparison against a run of another configuration (quick, 1 run)",
              "No comparison with the previous run" in md3 and "runs 1 -> 3" in md3 and "REGRESSION" not in md3)
        with open(pm, "w") as f:   # a meta.json from before ours_params: same configuration
            json.dump({"runs": "3", "quick": "0"}, f)
        rc, recs4, md4 = run(tmp, pp, pm)
        check("a previous meta without ours_params compares with a run without parameters",
              "No comparison" not in md4 and "1 regression(s) beyond the noise floor" in md4)
        with open(pm, "w") as f:
            json.dump({"runs": "3", "quick": "0", "ours_params": "nonsrq_min_recv=1"}, f)
        rc, recs5, md5 = run(tmp, pp, pm)
        check("no comparison against a run of ours with other module parameters",
              "No comparison with the previous run" in md5 and "ours_params nonsrq_min_recv=1 -> " in md5)

        # A/A of ours and a second build of ours (BENCH_AA=ours, BENCH_OURS_B)
        rc, rb, mdb = run(tmp, tap_text=TAP_B, meta=("aa=ours", "ours_b=/tmp/old (9b26224)"))
        a = find(rb, "aa_ratio", "datagram", metric="tcp_throughput", direction="A->B")
        check("aa=ours: A/A 210 / ours 200 = 1.05, aa_of ours",
              a and abs(a["ratio"] - 1.05) < 1e-9 and a["aa_of"] == "ours" and a["intree"] == 200)
        b = find(rb, "b_ratio", "datagram", metric="tcp_throughput", direction="A->B")
        check("b_ratio: ours 200 / ours_b 250 = 0.8; ours_b / in-tree 2.5, ours / in-tree 2.0",
              b and abs(b["ratio"] - 0.8) < 1e-9 and abs(b["ratio_b_intree"] - 2.5) < 1e-9 and
              abs(b["ratio_intree"] - 2.0) < 1e-9 and b["ours_b"] == 250)
        t = find(rb, "tcp_throughput", "datagram", direction="A->B")
        check("the tcp record is still ours / in-tree (2.0) with oursb in the run", t and abs(t["ratio"] - 2.0) < 1e-9)
        rows = [l for l in mdb.splitlines() if l.startswith("| tcp_throughput") and l.count("|") == 17]
        check("the ours-vs-ours_b table: A->B worse beyond the 5 % floor, B->A (0.976, floor 5 %) within noise",
              len(rows) == 2 and "**worse beyond noise**" in rows[0] and "±5.0%" in rows[0] and
              "within noise" in rows[1])
        check("per run: A->B 0.8 below its one-run A/A range (1.05) -> worse; B->A 0.976 above 0.95 -> better",
              len(rows) == 2 and rows[0].rstrip().endswith("| 0.8 | 1.05–1.05 | **worse** |") and
              rows[1].rstrip().endswith("| 0.976 | 0.95–0.95 | better |"))
        check("the report names ours_b and counts 1 worse cell",
              "/tmp/old (9b26224)" in mdb and "1 cell(s) where ours is worse than ours_b" in mdb)
    with tempfile.TemporaryDirectory() as tmp:
        # A/A in one pair family per run
        rc, rr_, mdr = run(tmp, tap_text=TAP_R, meta=("aa_cells=rotate",))
        prev_r = json.loads(json.dumps(rr_))
        find(prev_r, "tcp_throughput", "datagram")["ratio"] = 2.0 / 0.85   # now 15 % lower
        ppr = os.path.join(tmp, "prev-r.json")
        with open(ppr, "w") as f:
            json.dump(prev_r, f)
        rc, _, mdr2 = run(tmp, ppr, tap_text=TAP_R, meta=("aa_cells=rotate",))
        dl = [l for l in mdr2.splitlines() if l.startswith("| tcp_throughput | datagram") and "±" in l]
        check("rotate: the datagram cell (own A/A 5 %) takes tcp_throughput's largest, 20 % (connected): -15 % within noise",
              len(dl) == 1 and "±20.0%" in dl[0] and "largest A/A of tcp_throughput" in dl[0] and "within noise" in dl[0])
        check("rotate: the report lists each metric's floor and the family it came from",
              "tcp_throughput ±20.0% (connected srq=1)" in mdr)
        rc, _, mdr3 = run(tmp, ppr, tap_text=TAP_R)
        dl = [l for l in mdr3.splitlines() if l.startswith("| tcp_throughput | datagram") and "±" in l]
        check("every (no aa_cells=rotate): the same cell takes its own A/A, 5 %: -15 % a regression",
              len(dl) == 1 and "±5.0%" in dl[0] and "REGRESSION" in dl[0])

    fam = ("datagram1", "connected1", "connected0")
    rc, cells = plan("rotate", 3)
    aa = sorted(l for l in cells if l.endswith(" aa"))
    check("harness, rotate, 3 runs: one A/A cell per run, each family once (run 1 datagram, 2 connected SRQ, 3 srq=0)",
          rc == 0 and aa == ["1 datagram1 aa", "2 connected1 aa", "3 connected0 aa"])
    check("harness, rotate: in-tree and ours in every family of every run (9 each)",
          all(sum(1 for l in cells if l.endswith(" " + s)) == 9 for s in ("intree", "ours")))
    rc, cells = plan("every", 3)
    check("harness, every, 3 runs: the A/A slot in all 9 pair cells",
          rc == 0 and sorted(l for l in cells if l.endswith(" aa")) ==
          sorted("%d %s aa" % (r, f) for r in (1, 2, 3) for f in fam))
    rc, cells = plan("rotate", 1)
    check("harness, rotate, 1 run: the A/A slot in datagram only",
          rc == 0 and [l for l in cells if l.endswith(" aa")] == ["1 datagram1 aa"])
    # the setup phases: defaults 128 hosts "1 8 118" in one bring-up, one SRQ run, two srq=0
    setups = [l for l in cells if l.startswith("setup ")]
    check("harness, setup phases: SRQ 1 run of datagram and connected (1,8,118 in one bring-up), srq=0 2 runs (1,8,15)",
          sorted(setups) == sorted(["setup 1 datagram1 intree 1,8,118", "setup 1 datagram1 ours 1,8,118",
                                    "setup 1 connected1 intree 1,8,118", "setup 1 connected1 ours 1,8,118",
                                    "setup 1 connected0 intree 1,8,15", "setup 1 connected0 ours 1,8,15",
                                    "setup 2 connected0 intree 1,8,15", "setup 2 connected0 ours 1,8,15"]))
    rc, cells3 = plan("rotate", 3)
    iso = [l for l in cells3 if l.startswith("iso ")]
    check("harness, isolation phase, 3 runs: in-tree and ours once per run, connected SRQ, on softib hosts=3",
          sorted(iso) == sorted("iso %d connected1 %s 3 1" % (r, s) for r in (1, 2, 3) for s in ("intree", "ours")))
    check("harness: BENCH_OURSB_PARAMS are oursb's module parameters, BENCH_OURS_PARAMS ours', none for in-tree",
          "params ours=cm_csum_free=1 oursb=cm_csum_free=0 intree=" in cells)

    # the setup cell: per-peer first replies ((seq - 1) x 200 ms + RTT), nearest ranks over all N
    rc, sr, out = setup_cell("1:5 2:10 1:20 3:1 1:30 1:40 2:50 1:60")
    check("setup cell, 8 of 8 answered: answered 8, p50 the 4th (40), p90 and all the 8th (401 ms)",
          sr == {"setup_answered": 8, "setup_time_p50": 40, "setup_time_p90": 401, "setup_time": 401}
          and "ok - datagram srq=1 ours run 1: 8/8 peers" in out)
    rc, sr, out = setup_cell("1:5 - 1:20 1:1 1:30 1:40 1:50 1:60 1:70 -", first=9)
    check("setup cell, 8 of 10 answered: answered 8, p50 the 5th (40 ms), no p90 (its rank is a silent peer), no all-answered time",
          sr == {"setup_answered": 8, "setup_time_p50": 40} and "ok - datagram srq=1 ours run 1: 8/10 peers (B9..)" in out)
    check("setup cell: each peer's first answered echo and its RTT listed (a silent one as -)",
          "# bench-peers datagram 1 ours 1 10 (first answered echo/its RTT ms[@+retry start ms]): B9:1/5 B10:- B11:1/20 "
          "B12:1/1 B13:1/30 B14:1/40 B15:1/50 B16:1/60 B17:1/70 B18:-" in out and "# bench-counters datagram 1 ours 1 10 A/ib0: " in out)
    check("setup cell: the silent peers named (B10, B18) with their ping's output",
          "# bench-unanswered datagram 1 ours 1 10 2 within 60 s: B10 B18" in out and "# B18: " in out)
    rc, sr, out = setup_cell("- -")
    check("setup cell, 0 of 2 answered: the check fails, no figure",
          sr == {} and "not ok - datagram srq=1 ours run 1: 0/2 peers" in out and "B1 B2" in out)

    check("harness, BENCH_MESH=1 (default), 2 srq=0 runs: mem_largest in run 2 only, ours all pairs, in-tree none (its hub)",
          sorted(mesh_plan(1)) == ["mem_largest run 2 intree peers 24 cap 0", "mem_largest run 2 ours peers 24 cap all"])
    check("harness, BENCH_MESH=2: both runs, both drivers, every pair memory allows",
          sorted(mesh_plan(2)) == sorted("mem_largest run %d %s peers 24 cap all" % (r, d)
                                         for r in (1, 2) for d in ("intree", "ours")))
    check("harness, BENCH_MESH=0: no mem_largest (the hub's largest N, in setup())", mesh_plan(0) == [])
    # the memory cell at the largest N: 6 hosts, the hub pinged its 5 peers (10 RC QPs). Ours
    # (300 KiB a peer): every one of the 10 pairs of B1..B5 once, i < j, nearest first; the
    # figure over all 15 connections from the bring-up's first reading
    recs, pings, out = mesh_cell(6, 5, 2000000, 1998500, 10, 1995500, 30)
    pairs = sorted(tuple(sorted((int(ns[1:]), int(a.split(".")[3]) - 1))) for ns, a in (l.split() for l in pings))
    check("mesh, ours: the 10 pairs of B1..B5, each once, from the lower peer",
          pairs == [(i, j) for i in range(1, 6) for j in range(i + 1, 6)] and
          all(int(l.split()[0][1:]) < int(l.split()[1].split(".")[3]) - 1 for l in pings))
    check("mesh, ours: mem_per_idle_conn (2000000 - 1995500) / 15 = 300 KiB, mem_n 15 connections, no N",
          recs.get("mem_per_idle_conn") == ("-", 300) and recs.get("mem_n") == ("-", 15) and
          recs.get("mem_total") == ("15", 4500) and "ok - ours run 1: largest N: 15 idle RC connections" in out)
    # in-tree (36000 KiB a peer): memory for 2 pairs above the 640 MiB kept free -> the
    # nearest two, (1,2) and (2,3)
    hub = 655360 + 2 * 45000 + 100
    recs, pings, out = mesh_cell(6, 5, hub + 180000, hub, 20, 600000, 28)
    check("mesh, in-tree: as many pairs as memory allows (2: free - 640 MiB over 5/4 of a peer's 36000 KiB), nearest first",
          sorted(pings) == ["B1 10.0.0.3", "B2 10.0.0.4"] and "mesh: 2 of 10 pairs (memory allows 2" in out)
    check("mesh, in-tree: the figure over its 14 connections (10 hub + 4)",
          recs.get("mem_n") == ("-", 14) and recs.get("mem_per_idle_conn") == ("-", (hub + 180000 - 600000) // 14))
    recs, pings, out = mesh_cell(6, 5, 2000000, 1998500, 10, 1995500, 10, cap="0")
    check("mesh, capped at 0 pairs (in-tree with BENCH_MESH=1): no ping, the figure over the hub's 5",
          pings == [] and "mesh: 0 of 10 pairs" in out and recs.get("mem_n") == ("-", 5))
    recs, pings, out = mesh_cell(6, 5, 2000000, 1998500, 10, 1995500, 20, cap="3")
    check("mesh, capped at 3 pairs: the nearest three", len(pings) == 3 and "mesh: 3 of 10 pairs" in out)
    recs, pings, out = mesh_cell(6, 5, 2000000, 1998500, 10, 1995500, 10)
    check("mesh: 10 pairs asked, no connection beyond the hub's -> that check fails (the figure over the hub's 5)",
          "not ok - ours run 1: the mesh's 10 pairs: 10 answered, 0 connections" in out and
          recs.get("mem_n") == ("-", 5))
    recs, pings, out = mesh_cell(6, 5, 2000000, 1998500, 10, 1995500, 26, fail="10.0.0.4")
    check("mesh: 2 of 10 pairs unanswered (more than a tenth) -> the mesh check fails, though every answered pair connected",
          "not ok - ours run 1: the mesh's 10 pairs: 8 answered, 8 connections" in out)
    recs, pings, out = mesh_cell(6, 5, 2000000, 1998500, 10, 1995500, 28, fail="10.0.0.3")
    check("mesh: 1 of 10 pairs unanswered (a tenth) and 9 connections -> ok",
          "ok - ours run 1: the mesh's 10 pairs: 9 answered, 9 connections" in out and "not ok - ours run 1: the mesh" not in out)
    recs, pings, out = mesh_cell(6, 5, 2000000, 1998500, 10, 1995500, 10, clock="late")
    check("mesh: one window for the whole mesh: with it spent no ping runs, all 10 count unanswered, the mesh check fails",
          pings == [] and "10 unanswered" in out and "not ok - ours run 1: the mesh's 10 pairs: 0 answered" in out)
    recs, pings, out = mesh_cell(6, 5, hub + 180000, 655360 + 1000, 20, 655000, 20)
    check("mesh, in-tree, no pair fits above the 640 MiB: no ping, the figure over the hub's 10 connections",
          pings == [] and "ok - ours run 1: the mesh's 0 pairs" in out and recs.get("mem_n") == ("-", 10) and
          "ok - ours run 1: largest N: 10 idle RC connections (10 hub + 0 mesh)" in out)

    # the isolation cell: figures from iperf3's receiver line and the pings' replies
    recs, out = iso_cell("trickle", "[  5]   0.00-4.00   sec  100 MBytes   210 Mbits/sec                  receiver\n",
                         "64 bytes from 10.0.0.2: icmp_seq=1 ttl=64 time=3.1 ms\n"
                         "64 bytes from 10.0.0.2: icmp_seq=2 ttl=64 time=12.5 ms\n"
                         "64 bytes from 10.0.0.2: icmp_seq=3 ttl=64 time=9.75 ms\n")
    check("isolation cell: 3 answered, worst RTT 12.5 ms, TCP 210 Mbit/s, the stall as the direction",
          recs == {"isolation_answered": ("trickle", 3), "isolation_rtt_max": ("trickle", 12.5),
                   "isolation_tcp": ("trickle", 210)})
    recs, out = iso_cell("forever", "iperf3: error - unable to connect\n", "")
    check("isolation cell: nothing reached B (no receiver line, no reply): TCP 0, 0 answered, no worst RTT",
          recs == {"isolation_answered": ("forever", 0), "isolation_tcp": ("forever", 0)} and
          "unable to connect" in out)
    with tempfile.TemporaryDirectory() as tmp:
        rc, ri, mdi = run(tmp, tap_text=TAP_ISO)
        t = find(ri, "isolation_tcp", "connected", direction="C: RNR NAK forever")
        check("report: isolation_tcp forever: in-tree 0 -> ours 200, no ratio (not a division by zero)",
              t and t["intree"] == 0 and t["ours"] == 200 and t["ratio"] is None and t["better"] == "higher")
        r = find(ri, "isolation_rtt_max", "connected", direction="C: port down")
        check("report: isolation_rtt_max gone: ms, lower is better, ratio 10/20",
              r and r["unit"] == "ms" and r["better"] == "lower" and abs(r["ratio"] - 0.5) < 1e-9)
        a = find(ri, "isolation_answered", "connected", direction="C: RNR NAK forever")
        check("report: isolation_answered forever: 30 / 11", a and abs(a["ratio"] - 30 / 11) < 1e-9)
        rows = [l for l in mdi.splitlines() if l.startswith("| isolation_rtt_max")]
        check("report: the isolation rows name the stall, not a stream count, and say what was measured",
              len(rows) == 2 and "| C: RNR NAK forever |" in rows[0] and "stream" not in rows[0] and
              "worst of those answered" in rows[0])

    # the report: the figure at the largest N, each driver's N
    with tempfile.TemporaryDirectory() as tmp:
        tap_l = TAP.replace("# bench-rec connected 0 intree 1 mem_per_idle_conn - - 15 16384\n",
                            "# bench-rec connected 0 intree 1 mem_per_idle_conn - - - 16384\n"
                            "# bench-rec connected 0 intree 1 mem_n - - - 72\n"
                            "# bench-rec connected 0 ours 1 mem_per_idle_conn - - - 256\n"
                            "# bench-rec connected 0 ours 1 mem_n - - - 300\n")
        rc, recs_l, md_l = run(tmp, tap_text=tap_l)
        m = find(recs_l, "mem_per_idle_conn", "connected", srq=0)
        cg = find(recs_l, "conns_per_gib", "connected", srq=0)
        check("largest N: no size, conns per driver (in-tree 72, ours 300), ratio 256/16384, 4096 per GiB",
              m and "size" not in m and m["conns"] == {"ours": [300], "intree": [72]} and
              abs(m["ratio"] - 256 / 16384) < 1e-9 and cg and cg["ours"] == 4096 and cg["conns"] == m["conns"])
        check("largest N: the table names each driver's N",
              "| mem_per_idle_conn | connected | 0 | largest N: in-tree 72, ours 300 connections | KiB | 16384 | 256 |" in md_l)
        prev_l = os.path.join(tmp, "prev-l.json")
        with open(prev_l, "w") as f:
            json.dump(recs_m, f)   # N=15 peers, the same measure
        rc, _, md_l2 = run(tmp, prev_l, tap_text=tap_l)
        ll = [l for l in md_l2.splitlines() if l.startswith("| mem_per_idle_conn") and "not comparable" in l]
        check("largest N against a hub's N=15: not comparable, said so (not left out, not judged)",
              len(ll) == 1 and "N=15 peers before, the largest N now" in ll[0] and "REGRESSION" not in md_l2)

    # the report: the setup figures, the runs where peers were missing
    with tempfile.TemporaryDirectory() as tmp:
        rc, recs, md = run(tmp, tap_text=TAP_SETUP, meta=("setup_window_s=60",))
        a = find(recs, "setup_answered", "connected", size=63)
        check("report: setup_answered in peers, higher better, ours 63 in-tree 50 (median of 63 and 37)",
              a is not None and a["unit"] == "peers" and a["better"] == "higher" and a["ours"] == 63 and a["intree"] == 50)
        p9 = find(recs, "setup_time_p90", "connected", size=63)
        check("report: setup_time_p90 only from the runs that had one (in-tree run 2 had none)",
              p9 is not None and p9["runs"]["intree"] == [900.0] and p9["ours"] == 300)
        al = [l for l in md.splitlines() if l.startswith("| setup_answered | connected")]
        check("report: the answered row says of 63 within 60 s and which runs fell short",
              len(al) == 1 and "of 63 within 60 s" in al[0] and "runs short: intree 37 of 63" in al[0])
        tl = [l for l in md.splitlines() if l.startswith("| setup_time | connected")]
        check("report: setup_time says it is until all answered, from the runs where all did",
              len(tl) == 1 and "until all 63 answered" in tl[0])
    print("1..%d" % n)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
