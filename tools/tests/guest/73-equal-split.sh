#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Equal paths over time, on the instruction clock with one vCPU: two tcp
# paths with 200 us of round trip each (netem 100 us each way), 4 KiB
# randread, two jobs of iodepth 8, for 12 s under latency after a 2 s
# warm-up.  Over the whole run and in each half each path carries 42-58%
# (no drift; an earlier cost rule settled at 72/28), every 2 s 40-60%,
# and the estimates of the two paths end within 1/4 of each other (the
# policy's band).  Measured in two boots: path 1 53.0 and 54.6% over the
# run, 52.3-54.7% in the halves, 47.7-56.1% per 2 s (every path read as
# idle: 29.5%, 0.1-79.4% per 2 s).  Path 1 leads: within the band the
# fewest requests in flight win, then the lower estimate; fio's batches
# are decided before any of their requests counts as in flight, so a
# batch goes to the lower estimate, and on one CPU a path's extra load
# hardly raises its estimate (both share the CPU; the round trip is
# netem's), so nothing pulls it back.
#
# One vCPU and a round trip: see 64-symmetric.sh.
DESCRIPTION="equal paths stay near 50/50 over time under latency"
set -u
# shellcheck source-path=SCRIPTDIR source=../../vm/lib.sh
. "$(dirname "$0")/../../vm/lib.sh"

nvlat_need_icount
runtime=${NVLAT_RUNTIME:-12}
tap_plan 11
nvlat_setup tcp tcp || tap_bail "setup failed"
trap nvlat_teardown EXIT
tmp=$(nvlat_tmpdir equal)
for id in 1 2; do
	nvlat_netem_set "$(nvlat_tcp_port "$id")" delay 100us || tap_bail "netem failed"
done
nvlat_stat_disks
tap_ok "iopolicy latency" nvlat_iopolicy_set latency
nvlat_wait 5 nvlat_clat_attached 2
job=(--filename="/dev/$NVLAT_HEAD" --rw=randread --iodepth=8 --numjobs=2)
nvlat_fio "$tmp/warm.json" "${job[@]}" --runtime=2
total() { nvlat_ios_snapshot | awk '{ n += $2 } END { print n }'; }
started() { [ "$(total)" -gt "$start" ]; }
start=$(total)
nvlat_fio "$tmp/lat.json" "${job[@]}" --runtime=$((runtime + 2)) &
fio=$!
nvlat_wait 10 started
nvlat_sample_ios "$tmp/samples" "$runtime" 0.5
wait "$fio"
tap_result $? "fio under latency completed"
tap_diag "latency: $(nvlat_fio_summary "$tmp/lat.json" read)"
for id in 1 2; do tap_diag "path $id: $(grep read "$(nvlat_clat_dir "$id")/estimates" | tr '\n' ' ')"; done
whole=$(nvlat_share_between "$tmp/samples" 0 "$runtime" 1)
nvlat_cmp "$whole" '>=' 42 && nvlat_cmp "$whole" '<=' 58
tap_result $? "path 1 carried 42-58% over the whole run ($whole%)"
h1=$(nvlat_share_between "$tmp/samples" 0 $((runtime / 2)) 1)
h2=$(nvlat_share_between "$tmp/samples" $((runtime / 2)) "$runtime" 1)
nvlat_cmp "$h1" '>=' 42 && nvlat_cmp "$h1" '<=' 58 && nvlat_cmp "$h2" '>=' 42 && nvlat_cmp "$h2" '<=' 58
tap_result $? "no drift: 42-58% in each half (first $h1%, second $h2%)"
for from in 0 2 4 6 8 10; do
	s=$(nvlat_share_between "$tmp/samples" "$from" $((from + 2)) 1)
	nvlat_cmp "$s" '>=' 40 && nvlat_cmp "$s" '<=' 60
	tap_result $? "seconds $from-$((from + 2)): path 1 carried 40-60% ($s%)"
done
# the read 4 KiB estimates (one vCPU: node 0's)
l1=$(nvlat_clat_est_ns 1) l2=$(nvlat_clat_est_ns 2)
[ "${l1:-0}" -gt 0 ] && [ "${l2:-0}" -gt 0 ] &&
	[ $((l1 * 5)) -ge $((l2 * 4)) ] && [ $((l2 * 5)) -ge $((l1 * 4)) ]
tap_result $? "the estimates end within 1/4 of each other ($l1 and $l2 ns)"
tap_done
