#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Failover under latency: while fio writes and verifies (crc32c) through
# the head, the fast path's nvmet port is unlinked; I/O continues on the
# other path without errors and verify passes; when the port is linked
# back the path reconnects and gets I/O again.
DESCRIPTION="verified writes continue on the other path when a port goes away"
QUICK=1
set -u
# shellcheck source-path=SCRIPTDIR source=../../vm/lib.sh
. "$(dirname "$0")/../../vm/lib.sh"

NVLAT_NULLB_ATTRS="memory_backed=1"
NVLAT_SIZE_MB=256
NVLAT_CONNECT_OPTS=",reconnect_delay=1,ctrl_loss_tmo=60"
tap_plan 6
nvlat_setup tcp tcp || tap_bail "setup failed"
trap nvlat_teardown EXIT
tmp=$(nvlat_tmpdir failover)
cfs=$NVLAT_CFS/nvmet
nvlat_netem_set "$(nvlat_tcp_port 2)" delay 1ms || tap_bail "netem failed"
nvlat_iopolicy_set latency
nvlat_wait 5 nvlat_clat_attached 1

fio --name=verify --filename="/dev/$NVLAT_HEAD" --ioengine=libaio --direct=1 \
	--rw=randwrite --bsrange=4k-64k --iodepth=8 --numjobs=2 --size=24m \
	--offset_increment=32m --verify=crc32c --verify_fatal=1 --verify_backlog=64 \
	--time_based --runtime=12 \
	--group_reporting --output-format=json --output="$tmp/v.json" > /dev/null 2>&1 &
fio=$!
sleep 2
rm "$cfs/ports/1/subsystems/$NVLAT_NQN"
tap_diag "port 1 unlinked at 2 s"
sleep 4
ln -s "$cfs/subsystems/$NVLAT_NQN" "$cfs/ports/1/subsystems/$NVLAT_NQN"
tap_diag "port 1 linked back at 6 s"
wait "$fio"
tap_result $? "fio write+verify exited 0"
tap_is "$(nvlat_fio_get "$tmp/v.json" .error)" 0 "fio reports no I/O error"
tap_ok "path 1 reconnected" nvlat_wait 30 nvlat_ctrl_state_is 1 live
sleep 1
before=$(nvlat_ios_snapshot)
tap_ok "fio after the relink" nvlat_fio "$tmp/after.json" --filename="/dev/$NVLAT_HEAD" \
	--rw=randread --iodepth=16 --runtime=4
share=$(nvlat_ios_delta "$before" "$(nvlat_ios_snapshot)" | awk '$1 == 1 { print $3 }')
nvlat_cmp "$share" '>=' 50
tap_result $? "the fast path is used again (${share}% of I/O)"
tap_ok "estimator still attached to the reconnected path" nvlat_clat_attached 1
tap_done
