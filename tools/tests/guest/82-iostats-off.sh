#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# A path with iostats off, on the instruction clock with one vCPU: two
# equal tcp paths (netem 100 us each way), iostats off on the second path
# disk, 4 KiB randread at iodepth 16 (two jobs of 8) under latency.  That
# path gives no latency samples, so the policy has no estimate of it and
# must choose it as queue-depth would: it carries 40-60% of the I/O.  It
# must not read as silent (holding requests and answering none) whenever
# the other path has estimates.  The path's share is the head's I/O less
# the first path's: a disk with iostats off counts none.
DESCRIPTION="a path with iostats off is chosen as under queue-depth"
set -u
# shellcheck source-path=SCRIPTDIR source=../../vm/lib.sh
. "$(dirname "$0")/../../vm/lib.sh"

nvlat_need_icount
runtime=${NVLAT_RUNTIME:-8}
tap_plan 4
nvlat_setup tcp tcp || tap_bail "setup failed"
trap nvlat_teardown EXIT
tmp=$(nvlat_tmpdir iostats)
for id in 1 2; do
	nvlat_netem_set "$(nvlat_tcp_port "$id")" delay 100us || tap_bail "netem failed"
done
d2=$(nvlat_path_disk 2) || tap_bail "no path disk 2"
iostats() { echo "$1" > "/sys/block/$d2/queue/iostats"; }
tap_ok "iostats off on $d2" iostats 0
tap_ok "iopolicy latency" nvlat_iopolicy_set latency
nvlat_wait 5 nvlat_clat_attached 2
job=(--filename="/dev/$NVLAT_HEAD" --rw=randread --iodepth=8 --numjobs=2)
nvlat_fio "$tmp/warm.json" "${job[@]}" --runtime=2
p0=$(nvlat_path_ios 1) h0=$(nvlat_head_ios)
nvlat_fio "$tmp/lat.json" "${job[@]}" --runtime="$runtime"
tap_result $? "fio under latency completed"
p1=$(nvlat_path_ios 1) h1=$(nvlat_head_ios)
tap_diag "latency: $(nvlat_fio_summary "$tmp/lat.json" read)"
tap_diag "path 1: $(grep read "$(nvlat_clat_dir 1)/estimates" | tr '\n' ' ')"
tap_diag "path 2: $(grep read "$(nvlat_clat_dir 2)/estimates" | tr '\n' ' ')"
n=$((h1 - h0))
share=$(nvlat_calc "$n ? 100 * ($n - ($p1 - $p0)) / $n : 0")
nvlat_cmp "$share" '>=' 40 && nvlat_cmp "$share" '<=' 60
tap_result $? "the path with iostats off carried 40-60% ($share% of $n)"
iostats 1
tap_done
