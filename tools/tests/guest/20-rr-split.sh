#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# iopolicy round-robin spreads a 4 KiB random-read fio run (iodepth 16)
# over a loop path and a tcp path: each path completes 35-65% of the I/O.
DESCRIPTION="round-robin splits 4 KiB reads 35-65% over two paths"
QUICK=1
set -u
# shellcheck source-path=SCRIPTDIR source=../../vm/lib.sh
. "$(dirname "$0")/../../vm/lib.sh"

runtime=${NVLAT_RUNTIME:-5}
tap_plan 4
nvlat_setup loop tcp || tap_bail "setup failed"
trap nvlat_teardown EXIT
tmp=$(nvlat_tmpdir rr)

nvlat_iopolicy_set round-robin
tap_is "$(nvlat_iopolicy_get)" round-robin "iopolicy set to round-robin"
before=$(nvlat_ios_snapshot)
tap_ok "fio randread 4k iodepth 16 for ${runtime}s" nvlat_fio "$tmp/rr.json" \
	--filename="/dev/$NVLAT_HEAD" --rw=randread --iodepth=16 --runtime="$runtime"
after=$(nvlat_ios_snapshot)
tap_diag "fio: $(nvlat_fio_summary "$tmp/rr.json" read)"
delta=$(nvlat_ios_delta "$before" "$after")
while read -r id n pct; do
	tap_diag "port $id ($(nvlat_transport "$id")): $n I/Os, $pct%"
	nvlat_cmp "$pct" '>=' 35 && nvlat_cmp "$pct" '<=' 65
	tap_result $? "port $id ($(nvlat_transport "$id")) got 35-65% of the I/O ($pct%)"
done <<< "$delta"
tap_done
