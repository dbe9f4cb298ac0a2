#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Three paths, one fast, on the instruction clock with one vCPU: tcp
# paths 1 and 2 with 500 us more round trip (connected first), tcp path 3
# without.  4 KiB randread at iodepth 8 under latency puts >= 99% of the
# I/O on path 3 (measured 100.0%; 82.6% with every estimate read as the
# same).
DESCRIPTION="latency finds the one fast path of three connected last"
QUICK=1
set -u
# shellcheck source-path=SCRIPTDIR source=../../vm/lib.sh
. "$(dirname "$0")/../../vm/lib.sh"

nvlat_need_icount
runtime=${NVLAT_RUNTIME:-8}
tap_plan 3
nvlat_setup tcp tcp tcp || tap_bail "setup failed"
trap nvlat_teardown EXIT
tmp=$(nvlat_tmpdir three)
for id in 1 2; do
	nvlat_netem_set "$(nvlat_tcp_port "$id")" delay 250us || tap_bail "netem failed"
done
tap_ok "iopolicy latency" nvlat_iopolicy_set latency
nvlat_wait 5 nvlat_clat_attached 3
nvlat_fio "$tmp/warm.json" --filename="/dev/$NVLAT_HEAD" --rw=randread --iodepth=8 --runtime=2
before=$(nvlat_ios_snapshot)
tap_ok "fio under latency" nvlat_fio "$tmp/lat.json" --filename="/dev/$NVLAT_HEAD" \
	--rw=randread --iodepth=8 --runtime="$runtime"
tap_diag "latency: $(nvlat_fio_summary "$tmp/lat.json" read)"
delta=$(nvlat_ios_delta "$before" "$(nvlat_ios_snapshot)")
tap_diag "per path: $(tr '\n' ' ' <<< "$delta")"
s=$(awk '$1 == 3 { print $3 }' <<< "$delta")
nvlat_cmp "$s" '>=' 99
tap_result $? "the fast path 3 carried >= 99% ($s%)"
tap_done
