#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Equal paths over time, on the instruction clock: two loop paths, 4 KiB
# randread, two jobs of iodepth 8, one on each CPU and so on each NUMA
# node of the guest, for 12 s under latency after a 2 s warm-up.  Over
# the whole run and in each half each path carries 47-53% (no drift; an
# earlier cost rule settled at 72/28), and every 2 s 45-55%.  Both nodes
# see the paths within the policy's band of each other (1/4), and each
# node splits its own I/O 45-55% (the estimators' per-node sample counts).
#
# Loop paths, not tcp: see 64-symmetric.sh.
set -u
# shellcheck source-path=SCRIPTDIR source=../../vm/lib.sh
. "$(dirname "$0")/../../vm/lib.sh"

nvlat_need_icount
runtime=${NVLAT_RUNTIME:-12}
tap_plan 12
nvlat_setup loop loop || tap_bail "setup failed"
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
nvlat_fio "$tmp/lat.json" "${job[@]}" --runtime=$((runtime + 2)) &
fio=$!
nvlat_wait 10 started
nvlat_sample_ios "$tmp/samples" "$runtime" 0.5
wait "$fio"
tap_result $? "fio under latency completed"
tap_diag "latency: $(nvlat_fio_summary "$tmp/lat.json" read)"
for id in 1 2; do tap_diag "path $id: $(grep read "$(nvlat_clat_dir "$id")/estimates" | tr '\n' ' ')"; done
whole=$(nvlat_share_between "$tmp/samples" 0 "$runtime" 1)
nvlat_cmp "$whole" '>=' 47 && nvlat_cmp "$whole" '<=' 53
tap_result $? "path 1 carried 47-53% over the whole run ($whole%)"
h1=$(nvlat_share_between "$tmp/samples" 0 $((runtime / 2)) 1)
h2=$(nvlat_share_between "$tmp/samples" $((runtime / 2)) "$runtime" 1)
nvlat_cmp "$h1" '>=' 47 && nvlat_cmp "$h1" '<=' 53 && nvlat_cmp "$h2" '>=' 47 && nvlat_cmp "$h2" '<=' 53
tap_result $? "no drift: 47-53% in each half (first $h1%, second $h2%)"
for from in 0 2 4 6 8 10; do
	s=$(nvlat_share_between "$tmp/samples" "$from" $((from + 2)) 1)
	nvlat_cmp "$s" '>=' 45 && nvlat_cmp "$s" '<=' 55
	tap_result $? "seconds $from-$((from + 2)): path 1 carried 45-55% ($s%)"
done
# per_node ID: path ID's read 4k estimates (ns) and sample counts, "l0 l1 c0 c1"
per_node() {
	awk '$2 == "read" && $3 == "4k" { l[$1] = $4; c[$1] = $6 }
		END { print l[0] + 0, l[1] + 0, c[0] + 0, c[1] + 0 }' "$(nvlat_clat_dir "$1")/estimates"
}
read -r l10 l11 c10 c11 < <(per_node 1)
read -r l20 l21 c20 c21 < <(per_node 2)
# within 1/4 of each other, as the policy's band counts them equal
band() { [ $(($1 * 5)) -ge $(($2 * 4)) ] && [ $(($2 * 5)) -ge $(($1 * 4)) ]; }
band "$l10" "$l20" && band "$l11" "$l21"
tap_result $? "each node sees the paths within 1/4 (node 0: $l10/$l20 ns, node 1: $l11/$l21 ns)"
s0=$((100 * c10 / (c10 + c20 + 1))) s1=$((100 * c11 / (c11 + c21 + 1)))
[ "$s0" -ge 45 ] && [ "$s0" -le 55 ] && [ "$s1" -ge 45 ] && [ "$s1" -le 55 ]
tap_result $? "each node splits its own I/O 45-55% (path 1: node 0 $s0%, node 1 $s1%)"
tap_done
