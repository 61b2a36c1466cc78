#!/bin/sh
# scripts/check-knobs.sh [KO] - the module a user installs (`make install`, DKMS: the plain build)
# carries no test or fault knob; they exist only in the test variant the e2e suite loads
# (Kbuild IPOIB_TEST_KNOBS=1, built by scripts/vm-test). Fails when KO (default ib_ipoib_cm.ko):
#   - has the test variant's modinfo tag test_knobs;
#   - has a module parameter outside the product's list below (a new one is added here, and to
#     README.md, on purpose);
#   - holds a test knob's debugfs file name as a string of its own (outside debug info).
set -eu
ko=${1:-ib_ipoib_cm.ko}
[ -f "$ko" ] || { echo "check-knobs: $ko: not built" >&2; exit 1; }
product_params="ports ifname debug_level send_queue_size recv_queue_size cm_rnr_retry cm_min_rnr_timer
cm_idle_timeout nonsrq_min_recv nonsrq_max_recv nonsrq_mem_mb max_nonsrq_conn_qp cm_bidir cm_csum_free
cm_req_pool cm_max_peers nonsrq_grow_mb"
knob_files="send_accepted fail_child_register"
bad=0
tag=$(modinfo -F test_knobs "$ko")
[ -z "$tag" ] || { echo "check-knobs: $ko is the test variant (test_knobs: $tag)"; bad=1; }
for p in $(modinfo -F parm "$ko" | cut -d: -f1); do
	case " $(echo $product_params) " in
	*" $p "*) ;;
	*) echo "check-knobs: $ko: parameter '$p' is not a product parameter"; bad=1 ;;
	esac
done
# the module's own strings, debug info stripped (it names the fields the knobs set)
tmp=$(mktemp); trap 'rm -f "$tmp"' EXIT
objcopy --strip-debug "$ko" "$tmp"
for f in $knob_files; do
	if strings -n 4 "$tmp" | grep -qx "$f"; then
		echo "check-knobs: $ko: test knob file name '$f' in the module"; bad=1
	fi
done
[ $bad -eq 0 ] || exit 1
echo "check-knobs: $ko has no test knob ($(modinfo -F parm "$ko" | wc -l) product parameters)"
