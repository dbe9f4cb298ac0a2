#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Guest half of tools/demo.sh: one null_blk (memory_backed) namespace on a
# loop path and a tcp path with 2.5 ms netem each way; tools/tiobench.fio
# phase by phase under every iopolicy the kernel accepts, the policies
# interleaved within each phase.  Writes into $NVLAT_WORK/demo: paths,
# policies, POLICY-PHASE.json (fio), POLICY-PHASE.share (ID IOS PERCENT)
# and progress (one line per step, followed by the host).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source-path=SCRIPTDIR source=vm/lib.sh
. "$top/tools/vm/lib.sh"

out=${NVLAT_WORK:?}/demo
export SIZE=${SIZE:-256m} RUNTIME=${RUNTIME:-5} NUMJOBS=${NUMJOBS:-2}
mkdir -p "$out"
progress() { echo "$*" >> "$out/progress"; echo "# $*"; }
fail() { progress "FAILED: $*"; exit 1; }

NVLAT_NULLB_ATTRS="memory_backed=1" NVLAT_SIZE_MB=512
nvlat_setup loop tcp || fail "target setup"
trap nvlat_teardown EXIT
nvlat_netem_set "$(nvlat_tcp_port 2)" delay 2500us || fail "netem"
for id in $(nvlat_path_ids); do
	echo "$id $(nvlat_transport "$id") $(nvlat_path_disk "$id")"
done > "$out/paths"
pols=()
for p in numa round-robin queue-depth latency; do
	nvlat_iopolicy_has "$p" && pols+=("$p")
done
[ ${#pols[@]} -gt 0 ] || fail "no iopolicy accepted"
printf '%s\n' "${pols[@]}" > "$out/policies"
cs=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)
progress "paths: loop + tcp (+5 ms round trip) on /dev/$NVLAT_HEAD; policies: ${pols[*]}; clocksource $cs"
case "$cs" in *jiffies*) progress "WARNING: jiffies clocksource, latencies come in 4 ms steps" ;; esac

export FILENAME=/dev/$NVLAT_HEAD
for ph in seqwrite randwrite seqread randread; do
	for p in "${pols[@]}"; do
		progress "$ph under $p (${RUNTIME}s, $NUMJOBS jobs)"
		nvlat_iopolicy_set "$p" || fail "iopolicy $p"
		before=$(nvlat_ios_snapshot)
		fio "$top/tools/tiobench.fio" --section="$ph" --group_reporting \
			--lat_percentiles=1 --output-format=json \
			--output="$out/$p-$ph.json" > /dev/null || fail "fio $ph under $p"
		nvlat_ios_delta "$before" "$(nvlat_ios_snapshot)" > "$out/$p-$ph.share"
	done
done
progress "guest done"
