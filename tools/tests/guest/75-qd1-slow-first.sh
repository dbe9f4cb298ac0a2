#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# One request at a time, slow path first, on the instruction clock with
# one vCPU: tcp path 1 with 2 ms more round trip, connected first, and a
# loop path 2.  queue-depth takes the first path with nothing in flight,
# which at iodepth 1 is always path 1 (shown for the record); latency puts
# >= 99% of the I/O on path 2, for random reads and for random writes with
# an fsync after each, and reads at >= 20x queue-depth's IOPS.
DESCRIPTION="at iodepth 1 latency leaves the slow path connected first"
set -u
# shellcheck source-path=SCRIPTDIR source=../../vm/lib.sh
. "$(dirname "$0")/../../vm/lib.sh"

nvlat_need_icount
runtime=${NVLAT_RUNTIME:-6}
tap_plan 5
nvlat_setup tcp loop || tap_bail "setup failed"
trap nvlat_teardown EXIT
tmp=$(nvlat_tmpdir qd1)
nvlat_netem_set "$(nvlat_tcp_port 1)" delay 1ms || tap_bail "netem failed"

# share NAME FIO-ARGS...: the loop path's share of one fio run
share() {
	local name=$1 before
	shift
	before=$(nvlat_ios_snapshot)
	nvlat_fio "$tmp/$name.json" --filename="/dev/$NVLAT_HEAD" --iodepth=1 \
		--runtime="$runtime" "$@" || return
	nvlat_ios_delta "$before" "$(nvlat_ios_snapshot)" | awk '$1 == 2 { print $3 }'
}

nvlat_iopolicy_set queue-depth
s=$(share qd --rw=randread)
tap_diag "queue-depth: loop path $s%, $(nvlat_fio_summary "$tmp/qd.json" read)"
tap_ok "iopolicy latency" nvlat_iopolicy_set latency
nvlat_wait 5 nvlat_clat_attached 2
share warm --rw=randread --runtime=2 > /dev/null
s=$(share lat --rw=randread)
tap_diag "latency: $(nvlat_fio_summary "$tmp/lat.json" read)"
nvlat_cmp "$s" '>=' 99
tap_result $? "randread at iodepth 1: >= 99% on the fast path ($s%)"
share warmw --rw=randwrite --fsync=1 --runtime=2 > /dev/null
s=$(share latw --rw=randwrite --fsync=1)
tap_diag "latency: $(nvlat_fio_summary "$tmp/latw.json" write)"
nvlat_cmp "$s" '>=' 99
tap_result $? "randwrite + fsync at iodepth 1: >= 99% on the fast path ($s%)"
lat=$(nvlat_fio_iops "$tmp/lat.json" read)
qd=$(nvlat_fio_iops "$tmp/qd.json" read)
nvlat_cmp "$lat" '>=' "$(nvlat_calc "20 * $qd")"
tap_result $? "randread IOPS latency / queue-depth >= 20 ($lat / $qd)"
nvlat_cmp "$(share lat2 --rw=randread --runtime=2)" '>=' 99
tap_result $? "still >= 99% in a second run"
tap_done
