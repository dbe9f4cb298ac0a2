#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# A new kind of I/O on busy paths, on the instruction clock with one vCPU:
# two equal tcp paths carry 4 KiB reads at iodepth 8; then 64 KiB writes
# start.  Within 1 s of the first write both paths have an estimate for
# them (no path locks the writes out; the model bounds it at 150 ms).  Then
# path 1 gets 500 us more round trip, and the 64 KiB writes follow to
# path 2 (>= 99% of them over 4 s, 6 s after the change; measured
# 99.993%, 87.9% with every estimate read as the same).
DESCRIPTION="writes after reads get estimates and follow the fast path"
QUICK=1
set -u
# shellcheck source-path=SCRIPTDIR source=../../vm/lib.sh
. "$(dirname "$0")/../../vm/lib.sh"

nvlat_need_icount
tap_plan 5
nvlat_setup tcp tcp || tap_bail "setup failed"
# stop: fio ends its jobs on SIGTERM (the function's subshells are its
# parents; a background job ignores SIGINT)
stop() { pkill -TERM -P "$(IFS=,; echo "${pids[*]}")" 2> /dev/null; wait; }
trap 'stop; nvlat_teardown' EXIT
tmp=$(nvlat_tmpdir newkind)
pids=()
tap_ok "iopolicy latency" nvlat_iopolicy_set latency
nvlat_wait 5 nvlat_clat_attached 2
# the jobs run until they are stopped: forks under TCG take seconds
# (stopped by SIGTERM, fio exits non-zero: its error line is no news)
nvlat_fio "$tmp/reads.json" --filename="/dev/$NVLAT_HEAD" --rw=randread --iodepth=8 \
	--runtime=300 2> /dev/null &
pids+=($!)
sleep 2
nvlat_fio "$tmp/writes.json" --filename="/dev/$NVLAT_HEAD" --rw=randwrite --bs=64k \
	--iodepth=2 --runtime=300 2> /dev/null &
pids+=($!)
writing() { [ "$(awk '{ print $5 }' "/sys/block/$NVLAT_HEAD/stat")" -gt 0 ]; }
nvlat_wait 30 writing || tap_bail "no writes"
has_est() { awk '$1 == "write" && $2 > 0 { f = 1 } END { exit !f }' \
	"$(nvlat_clat_dir "$1")/estimates"; }
for id in 1 2; do
	nvlat_wait 1 has_est "$id"
	tap_result $? "path $id has a 64 KiB write estimate within 1 s of the first write"
done
nvlat_netem_set "$(nvlat_tcp_port 1)" delay 250us || tap_bail "netem failed"
sleep 6
w() { awk '{ print $5 }' "/sys/block/$(nvlat_path_disk "$1")/stat"; }
a1=$(w 1) a2=$(w 2)
sleep 4
b1=$(w 1) b2=$(w 2)
tap_diag "64 KiB writes in those 4 s: path 1 $((b1 - a1)), path 2 $((b2 - a2))"
for id in 1 2; do tap_diag "path $id: $(grep write "$(nvlat_clat_dir "$id")/estimates" | tr '\n' ' ')"; done
s=$(nvlat_calc "100 * ($b2 - $a2) / ($b1 - $a1 + $b2 - $a2 + 0.000001)")
nvlat_cmp "$s" '>=' 99
tap_result $? "64 KiB writes followed to the fast path 2 (>= 99%: $s%)"
stop
for f in reads writes; do nvlat_fio_json "$tmp/$f.json" | jq -e '.jobs[0]' > /dev/null || break; done
tap_result $? "both fio jobs stopped and reported"
tap_done
