#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make bench-switch: what attaching and detaching the estimators costs a
# running workload (tools/bench/switch-guest.sh says how).  Boots the test
# kernel once and prints, per topology and mode, the median (min-max) over
# the rounds of IOPS, the longest completion latency, p99.9, the number of
# switches and the longest attach and detach (policy write until every
# path's debugfs files appeared or went).  docs/scale.md quotes it.
#
# --icount: on the deterministic clock (tools/vm/run.sh -d), which host load
# cannot move; times are then in instructions (1 ns each).
#
#   tools/bench/switch.sh [--rounds N] [--runtime S] [--period S] [--icount]
#                         [--kernel BZIMAGE] [--out DIR]
set -eu
# shellcheck source-path=SCRIPTDIR source=../common.sh
. "$(dirname "$0")/../common.sh"
# shellcheck source-path=SCRIPTDIR source=common.sh
. "$(dirname "$0")/common.sh"

rounds=3 runtime=10 period=0.5 out='' icount='' slow=1
kernel=$BUILD/arch/x86/boot/bzImage
while [ $# -gt 0 ]; do
	case "$1" in
	--rounds) rounds=${2:?}; shift ;;
	--runtime) runtime=${2:?}; shift ;;
	--period) period=${2:?}; shift ;;
	--out) out=${2:?}; shift ;;
	--icount) icount=-d slow=10 ;;
	--kernel) kernel=${2:?}; shift ;;
	*) sed -n '3,/^set -eu/{/^set/d;s/^# \{0,1\}//;p}' "$0" >&2; exit 2 ;;
	esac
	shift
done
need jq
[ -n "$out" ] || out=$CACHE/bench/switch-$(date +%Y%m%d-%H%M%S)
mkdir -p "$out"
cp -p "$kernel" "$out/bzImage"
step "switch bench: $rounds round(s) of ${runtime}s runs${icount:+ (icount)}, results in $out"
"$TOP/tools/vm/run.sh" -q $icount -k "$out/bzImage" -t $((rounds * 6 * (runtime + 15) * slow + 300)) \
	-r "$out/guest" -e BENCH_ROUNDS="$rounds" -e BENCH_RUNTIME="$runtime" \
	-e BENCH_PERIOD="$period" -- "$TOP/tools/bench/switch-guest.sh" ||
	die "guest run failed; see $out/guest/console.log"

# TOPO ROUND MODE JSON N ATT DET -> the aggregate's input (tab separated)
while read -r topo r mode json n att det; do
	f=$out/guest/results/${json##*/}
	fio_json "$f" | jq -r --arg t "$topo" --arg r "$r" --arg m "$mode" --arg n "$n" --arg a "$att" --arg d "$det" \
		'.jobs[0].read | [$t, $r, $m, .iops, .clat_ns.max / 1000,
		 .clat_ns.percentile["99.900000"] / 1000, $n, $a, $d] | @tsv'
done < "$out/guest/results/runs" > "$out/runs.tsv"
echo "| paths | mode | IOPS | max latency (us) | p99.9 (us) | switches | attach (ms) | detach (ms) |"
echo "|---|---|---|---|---|---|---|---|"
awk -v names="iops max_us p999_us switches attach_ms detach_ms" \
	-f "$TOP/tools/bench/aggregate.awk" "$out/runs.tsv" |
	awk -F'\t' '
	function cell(v, lo, hi) { return sprintf("%.0f (%.0f-%.0f)", v, lo, hi) }
	{ k = $1 " | " $2; if (!(k in row)) order[++n] = k; row[k] = row[k] " | " cell($4, $5, $6) }
	END { for (i = 1; i <= n; i++) print "| " order[i] row[order[i]] " |" }'
