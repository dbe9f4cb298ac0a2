#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Equal paths: two tcp paths with the same round trip, 4 KiB randread at
# iodepth 16 for 12 s under latency.  The split stays within 40-60% in
# every 2 s of the run, so it neither settles at an arbitrary share nor
# drifts (the old cost rule settled at 72/28).
set -u
# shellcheck source-path=SCRIPTDIR source=../../vm/lib.sh
. "$(dirname "$0")/../../vm/lib.sh"

runtime=${NVLAT_RUNTIME:-12}
tap_plan 8
nvlat_setup tcp tcp || tap_bail "setup failed"
trap nvlat_teardown EXIT
tmp=$(nvlat_tmpdir equal)
nvlat_stat_disks
tap_ok "iopolicy latency" nvlat_iopolicy_set latency
nvlat_wait 5 nvlat_clat_attached 2
nvlat_fio "$tmp/lat.json" --filename="/dev/$NVLAT_HEAD" --rw=randread --iodepth=16 \
	--runtime="$runtime" &
fio=$!
nvlat_sample_ios "$tmp/samples" "$runtime" 0.5
wait "$fio"
tap_result $? "fio under latency completed"
tap_diag "latency: $(nvlat_fio_summary "$tmp/lat.json" read)"
whole=$(nvlat_share_between "$tmp/samples" 0 "$runtime" 1)
tap_diag "path 1 over the whole run: $whole%"
for from in 0 2 4 6 8 10; do
	s=$(nvlat_share_between "$tmp/samples" "$from" $((from + 2)) 1)
	nvlat_cmp "$s" '>=' 40 && nvlat_cmp "$s" '<=' 60
	tap_result $? "seconds $from-$((from + 2)): path 1 carried 40-60% ($s%)"
done
tap_done
