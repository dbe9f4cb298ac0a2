#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Footprint of the estimator on many paths: NVLAT_SCALE_NS namespaces
# (default 64) on a loop and a tcp path.  Switching to latency attaches
# 2 x N estimators; the Percpu growth per path must stay within 160 B per
# possible CPU (2x wbt's), and attaching again after a detach must reuse
# the memory (no leak).  Percpu grows by pages: with 128 paths a page per
# CPU is 32 B per path; with 64 paths it was enough to fail the check.
# The window timer's cost is no longer measured here: it was read from
# the fold counters of debugfs estimates, which the production code does
# not keep (no timing of its own folds).
# tools/scale.sh runs this with 16 possible CPUs and 4 fake NUMA nodes.
DESCRIPTION="estimator footprint on many namespaces, no leak on re-attach"
set -u
# shellcheck source-path=SCRIPTDIR source=../../vm/lib.sh
. "$(dirname "$0")/../../vm/lib.sh"

nr=${NVLAT_SCALE_NS:-64}
sub=$NVLAT_CFS/nvmet/subsystems/$NVLAT_NQN
possible=$(awk -F- '{ print $NF + 1 }' /sys/devices/system/cpu/possible)
nodes=$(set -- /sys/devices/system/node/node[0-9]*; echo $#)
tap_plan 5
nvlat_setup loop tcp || tap_bail "setup failed"
cleanup() {
	local i
	nvlat_iopolicy_set numa 2> /dev/null
	for i in $(seq 2 "$nr"); do
		{ echo 0 > "$sub/namespaces/$i/enable"; rmdir "$sub/namespaces/$i"
		  echo 0 > "$NVLAT_CFS/nullb/nvlats$i/power"
		  rmdir "$NVLAT_CFS/nullb/nvlats$i"; } 2> /dev/null
	done
	nvlat_teardown
}
trap cleanup EXIT

add_ns() {
	local d=$NVLAT_CFS/nullb/nvlats$1
	mkdir "$d" && echo 64 > "$d/size" && echo 1 > "$d/power" &&
		nvlat_wait 5 test -b "/dev/nvlats$1" &&
		mkdir "$sub/namespaces/$1" &&
		echo "/dev/nvlats$1" > "$sub/namespaces/$1/device_path" &&
		echo 1 > "$sub/namespaces/$1/enable"
}
for i in $(seq 2 "$nr"); do add_ns "$i" || tap_bail "cannot add namespace $i"; done
heads_ready() { set -- /sys/block/nvme*c*n*; [ $# -ge $((2 * nr)) ]; }
# Namespace notices can be coalesced on the target; a missed one leaves
# namespaces unscanned until the next.  Ask for a rescan, as an admin would.
if ! nvlat_wait 20 heads_ready; then
	tap_diag "$(set -- /sys/block/nvme*c*n*; echo $#) path disks after 20 s: rescanning"
	for id in 1 2; do echo 1 > "/sys/class/nvme/$(nvlat_ctrl "$id")/rescan_controller"; done
	nvlat_wait 60 heads_ready ||
		tap_bail "$(set -- /sys/block/nvme*c*n*; echo $#) of $((2 * nr)) path disks"
fi
paths=() heads=()
for d in /sys/block/nvme*; do
	case "${d##*/}" in
	nvme*c*n*) paths+=("${d##*/}") ;;
	nvme*n*) heads+=("${d##*/}") ;;
	esac
done
tap_diag "$nr namespaces, ${#paths[@]} path disks, ${#heads[@]} heads, $possible possible CPUs, $nodes nodes"

attached() {
	local d
	for d in "${paths[@]}"; do
		[ -e "/sys/kernel/debug/block/$d/rqos/clat/estimates" ] || return 1
	done
}
detached() {
	local d
	for d in "${paths[@]}"; do
		[ -e "/sys/kernel/debug/block/$d/rqos/clat" ] && return 1
	done
	return 0
}

echo 3 > /proc/sys/vm/drop_caches
pcpu0=$(nvlat_meminfo_kb Percpu) slab0=$(nvlat_meminfo_kb Slab)
nvlat_iopolicy_set latency
nvlat_wait 60 attached
tap_result $? "latency attaches ${#paths[@]} estimators"
pcpu1=$(nvlat_meminfo_kb Percpu) slab1=$(nvlat_meminfo_kb Slab)
per_cpu=$(nvlat_calc "($pcpu1 - $pcpu0) * 1024 / ${#paths[@]} / $possible")
slab=$(nvlat_calc "($slab1 - $slab0) * 1024 / ${#paths[@]}")
tap_diag "per path: Percpu $per_cpu B per possible CPU, Slab $slab B (with debugfs)"
nvlat_cmp "$per_cpu" '<=' 160
tap_result $? "Percpu per path <= 160 B per possible CPU ($per_cpu)"

nvlat_iopolicy_set numa
nvlat_wait 60 detached
tap_result $? "numa detaches them"
# cycle: attach and detach again; pcpu is the Percpu while attached
cycle() {
	nvlat_iopolicy_set latency && nvlat_wait 60 attached &&
		pcpu=$(nvlat_meminfo_kb Percpu) &&
		nvlat_iopolicy_set numa && nvlat_wait 60 detached
}
cycle && pcpu2=$pcpu && cycle && cycle && cycle
tap_result $? "attached and detached again, four times"
pcpu3=$pcpu
tap_diag "Percpu: $pcpu0 kB before, $pcpu1 kB attached, $pcpu2 kB attached again, $pcpu3 kB the fourth time"
# freed memory is reused: from the second attach (the allocator refills
# the spare pages the first one took) at most one more page per CPU in
# three cycles, where a leak of the estimators' 24 B would take 9 KB
nvlat_cmp "$pcpu3" '<=' $((pcpu2 + 4 * possible))
tap_result $? "attaching again takes no new per-CPU memory"
tap_done
