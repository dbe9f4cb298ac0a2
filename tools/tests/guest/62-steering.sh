#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Steering, on the instruction clock with one vCPU: a loop path plus a
# tcp path with 2 ms more round trip (netem 1 ms each way).  Under latency
# a 10 s 4 KiB randread at iodepth 16 puts >= 99% of the I/O on the loop
# path, >= 99.5% after the first 2 s (measured 100.0%; 96.1% with every
# estimate read as the same, where in-flight counts alone steer), where
# round-robin gives 45-55%; the slow path is still probed (completes I/O
# every second).
DESCRIPTION="latency puts >= 99% on the path with 2 ms less round trip"
QUICK=1
set -u
# shellcheck source-path=SCRIPTDIR source=../../vm/lib.sh
. "$(dirname "$0")/../../vm/lib.sh"

nvlat_need_icount
runtime=${NVLAT_RUNTIME:-10}
tap_plan 6
nvlat_setup loop tcp || tap_bail "setup failed"
trap nvlat_teardown EXIT
tmp=$(nvlat_tmpdir steer)
nvlat_stat_disks
nvlat_netem_set "$(nvlat_tcp_port 2)" delay 1ms || tap_bail "netem failed"

nvlat_iopolicy_set round-robin
before=$(nvlat_ios_snapshot)
nvlat_fio "$tmp/rr.json" --filename="/dev/$NVLAT_HEAD" --rw=randread --iodepth=16 --runtime=5
rr=$(nvlat_ios_delta "$before" "$(nvlat_ios_snapshot)" | awk '$1 == 1 { print $3 }')
tap_diag "round-robin: loop path ${rr}%, $(nvlat_fio_summary "$tmp/rr.json" read)"
nvlat_cmp "$rr" '>=' 45 && nvlat_cmp "$rr" '<=' 55
tap_result $? "round-robin puts about half on the loop path (${rr}%)"

tap_ok "iopolicy latency" nvlat_iopolicy_set latency
nvlat_wait 5 nvlat_clat_attached 2
nvlat_fio "$tmp/lat.json" --filename="/dev/$NVLAT_HEAD" --rw=randread --iodepth=16 \
	--runtime="$runtime" &
fio=$!
nvlat_sample_ios "$tmp/samples" "$runtime" 0.2
wait "$fio"
tap_result $? "fio under latency completed"
tap_diag "latency: $(nvlat_fio_summary "$tmp/lat.json" read)"
share=$(nvlat_share_between "$tmp/samples" 0 "$runtime" 1)
nvlat_cmp "$share" '>=' 99
tap_result $? "latency puts >= 99% on the loop path ($share%)"
late=$(nvlat_share_between "$tmp/samples" 2 "$runtime" 1)
nvlat_cmp "$late" '>=' 99.5
tap_result $? "after the first 2 s >= 99.5% ($late%)"
# per second, the slow path still completes I/O (probes)
starved=$(awk 'int($1) != sec { if (sec != "" && $3 == last) n++; sec = int($1); last = $3 }
	END { print n + 0 }' "$tmp/samples")
tap_is "$starved" 0 "slow path completed I/O in every second (probing)"
tap_done
