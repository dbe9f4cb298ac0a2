#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Guest half of tools/bench/switch.sh: what attaching and detaching the
# estimators costs a running workload.  fio reads (4 KiB random, 2 jobs x
# iodepth 8) through two equal paths while the iopolicy
#   steady:   stays queue-depth;
#   rr-qd:    alternates between round-robin and queue-depth every
#             BENCH_PERIOD seconds (the same sysfs writes, no queue freeze);
#   lat-qd:   alternates between latency and queue-depth as often: every
#             switch attaches or detaches both paths' estimators, which
#             freezes each path queue until its requests in flight are done.
# Equal paths, so that the policies place I/O alike and the difference is
# the switching.  Topologies: two loop paths, two tcp paths.
# Per run a line to $BENCH_OUT/runs:
#   TOPO ROUND MODE JSON SWITCHES ATTACH_MS_MAX DETACH_MS_MAX
# where ATTACH_MS_MAX / DETACH_MS_MAX is the longest time from a switch
# until every path had (had no more) its estimator's debugfs files.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source-path=SCRIPTDIR source=../vm/lib.sh
. "$top/tools/vm/lib.sh"

out=${BENCH_OUT:-${NVLAT_WORK:?}/results}
rounds=${BENCH_ROUNDS:-3}
rt=${BENCH_RUNTIME:-10}
period=${BENCH_PERIOD:-0.5}
mkdir -p "$out"

# wait_est WANT: sets REPLY to the ms until every file in est[] exists
# (WANT 1) or none does (WANT 0); no subprocess, so that it keeps time.
wait_est() {
	local t0=${EPOCHREALTIME/[.,]/} f ok k
	for ((k = 0; k < 2000; k++)); do
		ok=1
		for f in "${est[@]}"; do
			if [ "$1" = 1 ]; then [ -e "$f" ] || ok=0; else [ ! -e "$f" ] || ok=0; fi
		done
		[ "$ok" = 0 ] || break
		nvlat_nap 0.005
	done
	REPLY=$(((${EPOCHREALTIME/[.,]/} - t0) / 1000))
}

# switcher MODE SECONDS: alternate the policy for SECONDS; prints
# "SWITCHES ATTACH_MS_MAX DETACH_MS_MAX".
switcher() {
	local a b cur end n=0 att=0 det=0
	case "$1" in
	rr-qd) a=round-robin b=queue-depth ;;
	lat-qd) a=latency b=queue-depth ;;
	*) echo "0 0 0"; return 0 ;;
	esac
	renice -n -10 -p "$BASHPID" > /dev/null
	cur=$b
	end=$((${EPOCHREALTIME/[.,]/} + $2 * 1000000))
	while [ "${EPOCHREALTIME/[.,]/}" -lt "$end" ]; do
		nvlat_nap "$period"
		if [ "$cur" = "$a" ]; then cur=$b; else cur=$a; fi
		printf '%s' "$cur" > "$pol" || return
		n=$((n + 1))
		[ "$1" = lat-qd ] || continue
		if [ "$cur" = latency ]; then
			wait_est 1
			[ "$REPLY" -le "$att" ] || att=$REPLY
		else
			wait_est 0
			[ "$REPLY" -le "$det" ] || det=$REPLY
		fi
	done
	printf '%s' "$b" > "$pol"
	echo "$n $att $det"
}

for topo in loop tcp; do
	nvlat_setup "$topo" "$topo" || exit 1
	pol=$(nvlat_iopolicy_file) || exit 1
	est=()
	for id in $(nvlat_path_ids); do est+=("$(nvlat_clat_dir "$id")/estimates"); done
	nvlat_iopolicy_set queue-depth || exit 1
	for ((r = 1; r <= rounds; r++)); do
		for mode in steady rr-qd lat-qd; do
			json=$out/$topo-r$r-$mode.json
			echo "# $topo round $r/$rounds: $mode"
			fio --name=nvlat --group_reporting --ioengine=libaio --direct=1 \
				--filename="/dev/$NVLAT_HEAD" --rw=randread --bs=4k --numjobs=2 \
				--cpus_allowed=0,1 --cpus_allowed_policy=split --iodepth=8 \
				--time_based --runtime="$rt" --ramp_time=1 --lat_percentiles=1 \
				--output-format=json --output="$json" > /dev/null &
			fio=$!
			nvlat_nap 2
			res=$(switcher "$mode" $((rt - 2))) || exit 1
			wait "$fio" || exit 1
			echo "$topo $r $mode $json $res" >> "$out/runs"
		done
	done
	nvlat_teardown || exit 1
done
echo "# switch bench done"
