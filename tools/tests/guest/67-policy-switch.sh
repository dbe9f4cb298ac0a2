#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Policy switches under load: numa -> latency -> queue-depth -> round-robin
# -> latency ... every 1.5 s while fio writes (4-128 KiB) with crc32c
# verify; no I/O errors, and the in-flight counts (the inflight field of
# each path's latency file) are back to zero once idle.
DESCRIPTION="policy switches every 1.5 s under verified writes"
QUICK=1
set -u
# shellcheck source-path=SCRIPTDIR source=../../vm/lib.sh
. "$(dirname "$0")/../../vm/lib.sh"

NVLAT_NULLB_ATTRS="memory_backed=1"
NVLAT_SIZE_MB=256
tap_plan 5
nvlat_setup loop tcp || tap_bail "setup failed"
trap nvlat_teardown EXIT
tmp=$(nvlat_tmpdir switch)
nvlat_netem_set "$(nvlat_tcp_port 2)" delay 1ms
nvlat_iopolicy_set numa

fio --name=sw --filename="/dev/$NVLAT_HEAD" --ioengine=libaio --direct=1 \
	--rw=randwrite --bsrange=4k-128k --iodepth=16 --numjobs=2 --size=32m \
	--offset_increment=64m --verify=crc32c --verify_fatal=1 --verify_backlog=64 \
	--time_based --runtime=14 --group_reporting --output-format=json --output="$tmp/sw.json" \
	> /dev/null 2>&1 &
fio=$!
bad=0 n=0
for p in latency queue-depth round-robin latency numa latency queue-depth latency; do
	sleep 1.5
	kill -0 "$fio" 2>/dev/null || break
	nvlat_iopolicy_set "$p" || bad=1
	n=$((n + 1))
done
tap_diag "$n switches done while fio ran"
tap_result "$bad" "every switch was accepted"
wait "$fio"
tap_result $? "fio randrw with verify exited 0 across the switches"
tap_is "$(nvlat_fio_get "$tmp/sw.json" .error)" 0 "fio reports no I/O error"
nvlat_iopolicy_set latency
zero() {
	[ "$(nvlat_lat_inflight 1)" = 0 ] && [ "$(nvlat_lat_inflight 2)" = 0 ]
}
tap_ok "in-flight counters are zero when idle" nvlat_wait 5 zero
tap_ok "estimators attached after the last switch" nvlat_wait 5 nvlat_clat_attached 2
tap_done
