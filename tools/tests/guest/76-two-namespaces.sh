#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Two namespaces with ANA groups of their own on two tcp paths, on the
# instruction clock with one vCPU: path 1 with 100 us of round trip (netem
# 50 us each way), path 2 with 200 us.  Namespace 1 (group 1) is
# inaccessible on path 2 and keeps 4 requests in flight on controller 1;
# namespace 2 (group 2, optimized on both) reads one request at a time.
# Path 1 stays the faster one for namespace 2, so under latency >= 97% of
# its I/O goes there, and it reads at >= 1.3x the IOPS it gets under
# queue-depth, which counts the other namespace's requests on controller 1
# and sends namespace 2 to the slower path (<= 50% on path 1).
#
# A round trip on path 1: without one, on one CPU namespace 1's requests
# had completed whenever namespace 2 submitted, and queue-depth too kept
# namespace 2 on path 1 (100%).
DESCRIPTION="two namespaces share paths: each keeps to its faster path"
QUICK=1
set -u
# shellcheck source-path=SCRIPTDIR source=../../vm/lib.sh
. "$(dirname "$0")/../../vm/lib.sh"

nvlat_need_icount
runtime=${NVLAT_RUNTIME:-8}
tap_plan 6
nvlat_setup tcp tcp || tap_bail "setup failed"
trap nvlat_teardown EXIT
tmp=$(nvlat_tmpdir twons)
nvlat_netem_set "$(nvlat_tcp_port 1)" delay 50us || tap_bail "netem failed"
nvlat_netem_set "$(nvlat_tcp_port 2)" delay 100us || tap_bail "netem failed"
nvlat_ns2_add "$tmp/ns2.img" || tap_bail "cannot add namespace 2"
nvlat_ana_set 2 inaccessible || tap_bail "ANA group 1 on port 2"
head2=$(nvlat_ns_head 2)
d1=$(nvlat_ns_disk 2 1) d2=$(nvlat_ns_disk 2 2)
ios() { awk '{ print $1 + $5 }' "/sys/block/$1/stat"; }

# run NAME: namespace 1 loaded, namespace 2 at iodepth 1; prints namespace
# 2's share on path 1
run() {
	local a1 a2 b1 b2 load
	nvlat_fio "$tmp/$1-load.json" --filename="/dev/$NVLAT_HEAD" --rw=randread \
		--iodepth=4 --runtime=$((runtime + 2)) &
	load=$!
	sleep 1
	a1=$(ios "$d1") a2=$(ios "$d2")
	nvlat_fio "$tmp/$1.json" --filename="/dev/$head2" --rw=randread --iodepth=1 \
		--runtime="$runtime" || return
	b1=$(ios "$d1") b2=$(ios "$d2")
	wait "$load" || return
	nvlat_calc "100 * ($b1 - $a1) / ($b1 - $a1 + $b2 - $a2 + 0.000001)"
}

nvlat_iopolicy_set queue-depth
s=$(run qd)
tap_diag "queue-depth: namespace 2 on path 1 $s%, $(nvlat_fio_summary "$tmp/qd.json" read)"
nvlat_cmp "$s" '<=' 50
tap_result $? "queue-depth sends namespace 2 to the slower path 2 (path 1: $s% <= 50%)"
tap_ok "iopolicy latency" nvlat_iopolicy_set latency
nvlat_wait 5 nvlat_clat_attached 2
s=$(run lat)
tap_result $? "fio under latency"
tap_diag "latency: namespace 2 on path 1 $s%, $(nvlat_fio_summary "$tmp/lat.json" read)"
nvlat_cmp "$s" '>=' 97
tap_result $? "namespace 2 keeps >= 97% on the faster, busy path 1 ($s%)"
lat=$(nvlat_fio_iops "$tmp/lat.json" read)
qd=$(nvlat_fio_iops "$tmp/qd.json" read)
nvlat_cmp "$lat" '>=' "$(nvlat_calc "1.3 * $qd")"
tap_result $? "namespace 2 IOPS latency >= 1.3x queue-depth's ($lat, $qd)"
nvlat_iopolicy_set numa
tap_ok "teardown (namespace 2 first)" nvlat_teardown
trap - EXIT
tap_done
