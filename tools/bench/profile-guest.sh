#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Guest side of tools/bench/profile.sh: the overhead scenario (two loop
# paths on null_blk, or PROFILE_PATHS of them, 4 KiB randread, a job of
# iodepth 32 per CPU), once per policy (PROFILE_POLICIES) under `perf
# record -a -g -e cpu-clock`, then a flat profile per policy
# ($NVLAT_WORK/POLICY.top) and the share of samples of the functions the
# series adds or makes busier ($NVLAT_WORK/series.tsv: policy symbol
# self% children%).  PROFILE_SECONDS (default 8) per policy.
set -u
# shellcheck source-path=SCRIPTDIR source=../vm/lib.sh
. "$(dirname "$0")/../vm/lib.sh"

secs=${PROFILE_SECONDS:-8}
out=$NVLAT_WORK
# perf cannot write its ring buffer to a 9p file (EFAULT): record to tmpfs
data=/tmp/perf
mkdir -p "$data"
syms='nvme_find_path|nvme_latency|nvme_round_robin|nvme_queue_depth|nvme_path_is|blk_clat|blk_stat|ktime_get|blk_mq_start_request|nvme_mpath_(start|end)_request|nvme_ns_head_submit_bio'

paths=()
while [ "${#paths[@]}" -lt "${PROFILE_PATHS:-2}" ]; do
	paths+=(loop)
done
nvlat_setup "${paths[@]}" || exit 1
: > "$out/series.tsv"
n=$(nproc)
for p in ${PROFILE_POLICIES:-numa round-robin queue-depth latency}; do
	nvlat_iopolicy_set "$p" || exit 1
	fio --name=nvlat --filename="/dev/$NVLAT_HEAD" --ioengine=libaio --direct=1 \
		--rw=randread --bs=4k --numjobs="$n" --cpus_allowed="0-$((n - 1))" \
		--cpus_allowed_policy=split --iodepth=32 --group_reporting \
		--time_based --runtime=$((secs + 3)) --output-format=json \
		--output="$out/$p.json" > /dev/null &
	fio=$!
	sleep 2
	perf record -q -a -g -e cpu-clock -F 999 -o "$data/$p.data" -- sleep "$secs" \
		> /dev/null 2> "$out/$p.perf-record.log" || exit 1
	wait "$fio" || exit 1
	perf report -i "$data/$p.data" --no-children --sort sym --stdio -g none \
		2> /dev/null | grep -v '^#' | grep -v '^$' | head -n 150 > "$out/$p.top"
	perf report -i "$data/$p.data" --children --sort sym --stdio -g none \
		2> /dev/null | awk -v p="$p" -v re="$syms" '
		$1 ~ /%$/ && $4 ~ "^(" re ")" {
			printf "%s\t%s\t%s\t%s\n", p, $4, $2, $1
		}' >> "$out/series.tsv"
	echo "# $p: $(jq '.jobs[0].read.iops | floor' "$out/$p.json") IOPS under perf"
done
nvlat_teardown
