#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# A new I/O class on busy paths: two equal tcp paths carry 4 KiB reads at
# iodepth 8; then 64 KiB writes start.  Within 3 s both paths have an
# estimate for them (no path locks the class out).  Then path 1 gets 5 ms
# more round trip, and the 64 KiB writes follow to path 2 (>= 90% of them
# over the last 4 s).
set -u
# shellcheck source-path=SCRIPTDIR source=../../vm/lib.sh
. "$(dirname "$0")/../../vm/lib.sh"

tap_plan 5
nvlat_setup tcp tcp || tap_bail "setup failed"
trap nvlat_teardown EXIT
tmp=$(nvlat_tmpdir newclass)
tap_ok "iopolicy latency" nvlat_iopolicy_set latency
nvlat_wait 5 nvlat_clat_attached 2
nvlat_fio "$tmp/reads.json" --filename="/dev/$NVLAT_HEAD" --rw=randread --iodepth=8 \
	--runtime=18 &
reads=$!
sleep 2
nvlat_fio "$tmp/writes.json" --filename="/dev/$NVLAT_HEAD" --rw=randwrite --bs=64k \
	--iodepth=2 --runtime=15 &
writes=$!
sleep 3
for id in 1 2; do
	est=$(awk '$2 == "write" && $3 == "64k" && $4 > 0' "$(nvlat_clat_dir "$id")/estimates")
	[ -n "$est" ]
	tap_result $? "path $id has a 64 KiB write estimate after 3 s (${est:-none})"
done
nvlat_netem_set "$(nvlat_tcp_port 1)" delay 2500us || tap_bail "netem failed"
sleep 6
w() { awk '{ print $5 }' "/sys/block/$(nvlat_path_disk "$1")/stat"; }
a1=$(w 1) a2=$(w 2)
sleep 4
b1=$(w 1) b2=$(w 2)
wait "$writes" "$reads"
tap_result $? "fio completed"
s=$(nvlat_calc "100 * ($b2 - $a2) / ($b1 - $a1 + $b2 - $a2 + 0.000001)")
nvlat_cmp "$s" '>=' 90
tap_result $? "64 KiB writes followed to the fast path 2 (>= 90%: $s%)"
tap_done
