#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Regression for the torture finding of seeds 36653 and 573237: fio jobs
# writing through the head died of SIGPIPE while a tcp path went away.
# nvme-tcp sends a request's PDUs from the submitting task when it runs
# on the queue's CPU, and keeps the queues live until error recovery
# stops them; a send in between that meets the target's reset fails with
# EPIPE and, without MSG_NOSIGNAL, the kernel raises SIGPIPE in the task
# that submitted the I/O (fixed by patch 1).  Here all I/O goes to path 1
# (numa) while its port is unlinked and relinked over and over; every
# writer must survive.  Without the fix a writer died in each of 3 runs.
DESCRIPTION="base kernel: no SIGPIPE to writers when a tcp path goes away"
set -u
# shellcheck source-path=SCRIPTDIR source=../../vm/lib.sh
. "$(dirname "$0")/../../vm/lib.sh"

NVLAT_NULLB_ATTRS="memory_backed=1"
NVLAT_SIZE_MB=128
NVLAT_TCP_CONNECT_OPTS=",reconnect_delay=1,ctrl_loss_tmo=60"
cycles=${NVLAT_SIGPIPE_CYCLES:-20}
tap_plan 4
nvlat_setup tcp tcp || tap_bail "setup failed"
trap nvlat_teardown EXIT
cfs=$NVLAT_CFS/nvmet
tmp=$(nvlat_tmpdir sigpipe)
# numa: all I/O on path 1 (the current path) when its port goes
nvlat_iopolicy_set numa

fio --name=w --filename="/dev/$NVLAT_HEAD" --ioengine=libaio --direct=1 \
	--rw=randwrite --bsrange=4k-16k --iodepth=32 --numjobs=4 --size=24m \
	--offset_increment=28m --time_based --runtime=$((cycles * 4 + 4)) \
	--group_reporting --output-format=json --output="$tmp/w.json" \
	> "$tmp/w.out" 2>&1 &
fio=$!
sleep 2
for ((i = 0; i < cycles; i++)); do
	rm "$cfs/ports/1/subsystems/$NVLAT_NQN"
	sleep 1
	ln -s "$cfs/subsystems/$NVLAT_NQN" "$cfs/ports/1/subsystems/$NVLAT_NQN"
	nvlat_wait 10 nvlat_ctrl_state_is 1 live || break
	sleep 1
done
tap_is "$i" "$cycles" "port 1 unlinked and back $cycles times"
wait "$fio"
rc=$?
sig=$(grep -c 'got signal' "$tmp/w.out" "$tmp/w.json" | awk -F: '{ n += $2 } END { print n + 0 }')
tap_is "$sig" 0 "no fio job killed by a signal"
tap_is "$rc" 0 "fio exited 0"
tap_is "$(nvlat_fio_get "$tmp/w.json" .error 2>/dev/null)" 0 "fio reports no I/O error"
[ "$sig" = 0 ] || sed 's/^/# fio: /' "$tmp/w.out"
tap_done
