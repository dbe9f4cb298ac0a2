#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Equal paths: two tcp paths with the same round trip, 4 KiB randread,
# two jobs of iodepth 8, one on each CPU and so on each NUMA node of the
# guest, for 12 s under latency after a 2 s warm-up.  Over the whole run
# and in each half of it each path carries 40-60% (no drift; the old cost
# rule settled at 72/28).  Every 2 s from the second on stays within
# 30-70%.
#
# One job alone is no test of equal paths here: each nvme-tcp queue runs
# its I/O work on one CPU, so for one node's CPU one path is faster, and
# a job that moves between the CPUs moves the split with it.  Under TCG
# the per-node estimates of the two paths also cross the policy's 1/4
# band now and then, which swings the split for a second or two.
set -u
# shellcheck source-path=SCRIPTDIR source=../../vm/lib.sh
. "$(dirname "$0")/../../vm/lib.sh"

runtime=${NVLAT_RUNTIME:-12}
tap_plan 9
nvlat_setup tcp tcp || tap_bail "setup failed"
trap nvlat_teardown EXIT
tmp=$(nvlat_tmpdir equal)
nvlat_stat_disks
tap_ok "iopolicy latency" nvlat_iopolicy_set latency
nvlat_wait 5 nvlat_clat_attached 2
job=(--filename="/dev/$NVLAT_HEAD" --rw=randread --iodepth=8 --numjobs=2
	"--cpus_allowed=0,1" --cpus_allowed_policy=split)
nvlat_fio "$tmp/warm.json" "${job[@]}" --runtime=2
total() { nvlat_ios_snapshot | awk '{ n += $2 } END { print n }'; }
started() { [ "$(total)" -gt "$start" ]; }
start=$(total)
nvlat_fio "$tmp/lat.json" "${job[@]}" --runtime=$((runtime + 6)) &
fio=$!
# fio takes seconds to start under TCG: sample from its first I/O on
nvlat_wait 10 started
nvlat_sample_ios "$tmp/samples" "$runtime" 0.5
wait "$fio"
tap_result $? "fio under latency completed"
tap_diag "latency: $(nvlat_fio_summary "$tmp/lat.json" read)"
whole=$(nvlat_share_between "$tmp/samples" 0 "$runtime" 1)
nvlat_cmp "$whole" '>=' 40 && nvlat_cmp "$whole" '<=' 60
tap_result $? "path 1 carried 40-60% over the whole run ($whole%)"
h1=$(nvlat_share_between "$tmp/samples" 0 $((runtime / 2)) 1)
h2=$(nvlat_share_between "$tmp/samples" $((runtime / 2)) "$runtime" 1)
nvlat_cmp "$h1" '>=' 40 && nvlat_cmp "$h1" '<=' 60 && nvlat_cmp "$h2" '>=' 40 && nvlat_cmp "$h2" '<=' 60
tap_result $? "no drift: 40-60% in each half (first $h1%, second $h2%)"
# from 2 s on: the sampler's first interval can stretch under TCG
for from in 2 4 6 8 10; do
	s=$(nvlat_share_between "$tmp/samples" "$from" $((from + 2)) 1)
	nvlat_cmp "$s" '>=' 30 && nvlat_cmp "$s" '<=' 70
	tap_result $? "seconds $from-$((from + 2)): path 1 carried 30-70% ($s%)"
done
for id in 1 2; do tap_diag "path $id: $(grep read "$(nvlat_clat_dir "$id")/estimates" | tr '\n' ' ')"; done
tap_done
