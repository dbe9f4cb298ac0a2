#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Write DOCS/benchmarks.md and DOCS/bench-*.png from the results of
# tools/bench/bench.sh (RESULTS/main, and RESULTS/{patched,base}/N for the
# cost boots on the deterministic clock).
#
#   tools/bench/report.sh RESULTS_DIR [DOCS_DIR]
#
# Every value is the median over the rounds, with min-max after it when
# there was more than one round.  Criteria are in ratios(), on ratios
# taken within a round (the policies of a round run side by side): met
# when the ratio is on the right side of the target in every round,
# missed when it is on the wrong side in every round, undecided
# otherwise; every criterion of a scenario where numa and the oracle on
# the same path differ by more than 1% (control_noise()) is dropped.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=common.sh
. "$here/common.sh"
top=$(cd "$here/../.." && pwd)
res=$(cd "${1:?results dir}" && pwd)
docs=${2:-$top/docs}
mkdir -p "$docs"
docs=$(cd "$docs" && pwd)
md=$docs/benchmarks.md
work=$res/report
mkdir -p "$work"

"$here/extract.sh" "$res/main/results" > "$work/runs.tsv"
# the cost boots (deterministic clock): policies tagged @patched, @base,
# @distro (the patched kernel with wbt, tools/vm/cost-distro.config); the
# round is the boot's number, so that ratios pair the kernels of a round
for k in patched base distro; do
	for d in "$res/$k"/*/results; do
		[ -d "$d" ] || continue
		b=${d%/results}
		"$here/extract.sh" "$d" "@$k" |
			awk -v r="${b##*/}" 'BEGIN { FS = OFS = "\t" } { $2 = r; print }' >> "$work/runs.tsv"
	done
done
# the real-time cross-check boot, if any: policies tagged @rt
[ ! -d "$res/realtime/results" ] || "$here/extract.sh" "$res/realtime/results" "@rt" >> "$work/runs.tsv"
# tiobench: MiB/s per phase (one fio group per phase, in the job file's
# order) as columns tio_seqwrite ... of its own
for j in "$res"/main/results/tiobench/r*-*.json; do
	[ -e "$j" ] || continue
	r=${j##*/r}
	printf 'tiobench\t%s\t%s\t' "${r%%-*}" "$(basename "${r#*-}" .json)"
	fio_json "$j" | jq -r '[.jobs[] | (.write.bw + .read.bw) / 1024] | . + [add] | map(tostring) | join("\t")'
done > "$work/tio.tsv"
tio="tio_seqwrite tio_randwrite tio_seqread tio_randread tio_total"
awk -f "$here/aggregate.awk" "$work/runs.tsv" > "$work/agg.tsv"
awk -v names="$tio" -f "$here/aggregate.awk" "$work/tio.tsv" >> "$work/agg.tsv"
# every value with its round, for the ratios within a round (rat)
awk -v long=1 -f "$here/aggregate.awk" "$work/runs.tsv" > "$work/long.tsv"
awk -v long=1 -v names="$tio" -f "$here/aggregate.awk" "$work/tio.tsv" >> "$work/long.tsv"
declare -A MED MIN MAX NUM
while IFS=$'\t' read -r s p c med mn mx n; do
	MED[$s,$p,$c]=$med MIN[$s,$p,$c]=$mn MAX[$s,$p,$c]=$mx NUM[$s,$p,$c]=$n
done < "$work/agg.tsv"
src() { awk -v k="$1" '$1 == k { $1 = ""; sub(/^ /, ""); print; exit }' "$res/source" 2>/dev/null; }
# sdir S: results directory of scenario S (empty when it did not run)
sdir() {
	local d
	for d in "$res/main/results/$1" "$res/patched/1/results/$1"; do
		[ ! -d "$d" ] || { echo "$d"; return; }
	done
}
# meta KEY [BOOT]: a line of the guest's meta file (BOOT: main)
meta() { awk -v k="$1" '$1 == k { $1 = ""; sub(/^ /, ""); print; exit }' "$res/${2:-main}/results/meta" 2>/dev/null; }
# shifting's first spacing and delay moves (2 before the guest recorded
# them; none without placement results), their times in s, and its
# sampled seconds
SHIFT=$(meta shift) MOVES=$(meta moves)
SHIFT=${SHIFT:-0} MOVES=${MOVES:-2}
move_s() { awk -v u="$(shifting_move_us "$1" "$SHIFT" "$MOVES")" 'BEGIN { printf "%g", u / 1e6 }'; }
SHIFT_S=$(awk -v u="$(shifting_move_us $((MOVES + 1)) "$SHIFT" "$MOVES")" 'BEGIN { printf "%d", (u + 999999) / 1e6 }')
POLS=(numa round-robin queue-depth latency oracle)
SCENS=(symmetric asym2 asym20 asym20-first fabric shifting bwlimit rwsplit mixed bssplit
	qd1-slow-first qd1-write qd1-fsync three-paths four-paths eight-paths
	two-namespaces tiobench numa4 numa4-equal)
# the scenarios' delays and links (bench-guest.sh), and netem's delay as
# a round trip: it delays both directions on lo
QD=$(meta iodepth)
QD=${QD:-8}
D_NEAR=$(meta d_near) D_MID=$(meta d_mid) D_FAR=$(meta d_far) D_QD1=$(meta d_qd1)
BW_FAST=$(meta bw_fast) BW_SLOW=$(meta bw_slow)
# results of bench runs before the delays were recorded: real-time ones
: "${D_NEAR:=1ms}" "${D_MID:=2500us}" "${D_FAR:=10ms}" "${D_QD1:=5ms}" "${BW_FAST:=24mbit}" "${BW_SLOW:=6mbit}"
rtt() {
	awk -v d="$1" 'BEGIN {
		v = d + 0; u = d; sub(/^[0-9.]+/, "", u)
		us = u == "ms" ? v * 1000 : u == "s" ? v * 1e6 : v
		us *= 2
		if (us >= 1000) printf "%g ms", us / 1000; else printf "%g us", us }'
}
# summed netem rates of bwlimit in MiB/s
SUMRATE=$(awk -v a="${BW_FAST%mbit}" -v b="${BW_SLOW%mbit}" 'BEGIN { printf "%.4f", (a + b) * 1e6 / 8 / 1048576 }')

# val S P C: median (empty when missing)
val() { echo "${MED[$1,$2,$3]:-}"; }
# cell S P C FMT: "median (min-max)", or the value when there is one; "-"
# when missing
cell() {
	local m=${MED[$1,$2,$3]:-}
	[ -n "$m" ] || { echo "-"; return; }
	if [ "${NUM[$1,$2,$3]}" -gt 1 ]; then
		# shellcheck disable=SC2059
		printf "$4 ($4–$4)" "$m" "${MIN[$1,$2,$3]}" "${MAX[$1,$2,$3]}"
	else
		# shellcheck disable=SC2059
		printf "$4" "$m"
	fi
}
calc() { awk "BEGIN { printf \"%.3f\", $1 }"; }

table() { # table SCENARIO
	local s=$1 p
	case "$s" in
	mixed)
		echo "| policy | 4k IOPS | 4k p50 us | 4k p99 us | 4k p99.9 us | 128k MiB/s | 128k p50 us | 128k p99 us | 128k p99.9 us | I/Os path 1 / 2 % | bytes path 1 / 2 % |"
		echo "|---|---|---|---|---|---|---|---|---|---|---|"
		for p in "${POLS[@]}"; do
			[ -n "$(val "$s" "$p" iops)" ] || continue
			echo "| $p | $(cell "$s" "$p" iops %.0f) | $(cell "$s" "$p" p50 %.0f) | $(cell "$s" "$p" p99 %.0f) | $(cell "$s" "$p" p999 %.0f) | $(cell "$s" "$p" large_mib %.2f) | $(cell "$s" "$p" large_p50 %.0f) | $(cell "$s" "$p" large_p99 %.0f) | $(cell "$s" "$p" large_p999 %.0f) | $(cell "$s" "$p" share1 %.0f) / $(cell "$s" "$p" share2 %.0f) | $(cell "$s" "$p" bshare1 %.0f) / $(cell "$s" "$p" bshare2 %.0f) |"
		done
		;;
	*)
		local extra='' sep=''
		case "$s" in
		bwlimit) extra=" % of ${BW_FAST%mbit} + ${BW_SLOW%mbit} Mbit/s |" sep='---|' ;;
		shifting) extra=' s to 90% on new fast path: median move / longest |' sep='---|' ;;
		esac
		echo "| policy | MiB/s | IOPS | lat p50 us | p99 us | p99.9 us | I/Os path 1 / 2 % |$extra"
		echo "|---|---|---|---|---|---|---|$sep"
		for p in "${POLS[@]}"; do
			[ -n "$(val "$s" "$p" iops)" ] || continue
			case "$s" in
			bwlimit) extra=" $(awk -v m="$(val "$s" "$p" mib)" -v r="$SUMRATE" 'BEGIN { printf "%.0f", 100 * m / r }') |" ;;
			shifting) extra=" $(cell "$s" "$p" t90 %.2f) / $(cell "$s" "$p" t90max %.2f) |" ;;
			esac
			echo "| $p | $(cell "$s" "$p" mib %.2f) | $(cell "$s" "$p" iops %.0f) | $(cell "$s" "$p" p50 %.0f) | $(cell "$s" "$p" p99 %.0f) | $(cell "$s" "$p" p999 %.0f) | $(cell "$s" "$p" share1 %.0f) / $(cell "$s" "$p" share2 %.0f) |$extra"
		done
		;;
	esac
}

# verdict LO HI OP TARGET: met when the whole range [LO, HI] satisfies
# OP TARGET, missed when none of it does, undecided otherwise.  OP "=~":
# within TARGET of 1 (TARGET a fraction, e.g. 0.005).
verdict() {
	awk -v lo="$1" -v hi="$2" -v op="$3" -v t="$4" 'BEGIN {
		if (op == ">=") v = lo >= t ? "met" : hi < t ? "missed" : "undecided"
		else if (op == "<=") v = hi <= t ? "met" : lo > t ? "missed" : "undecided"
		else v = (lo >= 1 - t && hi <= 1 + t) ? "met" : (hi < 1 - t || lo > 1 + t) ? "missed" : "undecided"
		print v }'
}

# fmt X: 3 decimals below 10 (4 near 1), 3 significant digits above
fmt() { awk -v x="$1" 'BEGIN { printf (x >= 10 ? "%.3g" : x > 0.95 && x < 1.05 ? "%.4f" : "%.3f"), x }'; }

# crit SCENARIO "DESCRIPTION" MEDIAN LO HI OP TARGET [NOISE]: one row of
# the criteria table; LO-HI is the spread of the value over the rounds.
# The verdict is taken on the unrounded values.  NOISE (the control's
# spread, when it exceeds the bound in control_noise()) turns any verdict
# into "dropped": the boots of the scenario differ by more than the
# criteria's margins whatever the policy, and a ratio's spread there is
# the scenario's, not the policy's.
crit() {
	local v=$3 range vd tgt="$6 $7"
	[ -n "$(sdir "$1")" ] || return 0
	if [ -z "$v" ] || [ "$v" = nan ] || [ -z "$4" ]; then
		vd="n/a" v="-" range="-"
	else
		vd=$(verdict "$4" "$5" "$6" "$7")
		v=$(fmt "$v") range="$(fmt "$4")–$(fmt "$5")"
		[ "$4" != "$5" ] || range=$(fmt "$4")
	fi
	[ "$6" != "=~" ] || tgt="1 ± $7"
	[ "$vd" = n/a ] || [ -z "${8:-}" ] || vd="dropped ($vd in the boots): control $8"
	echo "${vd%%[ :]*}" >> "$work/verdicts"
	echo "| $1 | $2 | $v | $range | $tgt | $vd |"
}

# rat S PA CA PB CB: "MEDIAN LO HI" of the ratio (S, PA, CA) / (S, PB, CB)
# taken within each round, where the two ran side by side: its median and
# its lowest and highest round; PB may be a number (a constant
# denominator).  "- - -" when no round has both values.
rat() {
	awk -v s="$1" -v pa="$2" -v ca="$3" -v pb="$4" -v cb="$5" 'BEGIN { FS = "\t" }
	$1 == s && $2 == pa && $3 == ca { a[$4] = $5 }
	$1 == s && $2 == pb && $3 == cb { b[$4] = $5 }
	END {
		for (r in a) {
			d = pb ~ /^[0-9]/ ? pb : (r in b) ? b[r] : 0
			if (d + 0 == 0) continue
			x = a[r] / d
			for (j = n++; j > 0 && v[j] > x; j--) v[j + 1] = v[j]
			v[j + 1] = x
		}
		if (!n) { print "- - -"; exit }
		m = n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
		printf "%.6g %.6g %.6g\n", m, v[1], v[n] }' "$work/long.tsv"
}

# critr SCENARIO "DESCRIPTION" PA CA PB CB OP TARGET [NOISE]: crit on rat
critr() {
	local m lo hi
	read -r m lo hi <<< "$(rat "$1" "$3" "$4" "$5" "$6")"
	[ "$m" != - ] || m='' lo='' hi=''
	crit "$1" "$2" "$m" "$lo" "$hi" "$7" "$8" "${9:-}"
}

# same_path S: numa and the oracle ran on the same path in S (their
# medians of path 1's share agree): their ratio is the run-to-run noise
same_path() {
	[ -n "$(val "$1" numa share1)" ] &&
		[ "$(val "$1" numa share1)" = "$(val "$1" oracle share1)" ]
}

# control_noise S C: "numa/oracle LO–HI" when numa and the oracle ran on
# the same single path in S and their ratio in column C strayed from 1 by
# more than 1% in some round: run-to-run noise larger than the criteria's
# margins.  Empty otherwise.
control_noise() {
	local m lo hi
	same_path "$1" || return 0
	read -r m lo hi <<< "$(rat "$1" numa "$2" oracle "$2")"
	[ "$m" != - ] || return 0
	awk -v l="$lo" -v h="$hi" 'BEGIN { exit !(l < 0.99 || h > 1.01) }' || return 0
	echo "numa/oracle $(fmt "$lo")–$(fmt "$hi")"
}

# ratio A B: A / B with 2 decimals, empty when either is missing or B is 0
ratio() {
	[ -n "$1" ] && [ -n "$2" ] || return 0
	awk -v a="$1" -v b="$2" 'BEGIN { if (b + 0 != 0) printf "%.2f", a / b }'
}

# controls: scenarios where numa and the oracle ran on the same single
# path, so that their ratio shows the run-to-run noise alone
controls() {
	local s
	echo "| scenario | numa / oracle MiB/s | numa / oracle p99 |"
	echo "|---|---|---|"
	for s in "${SCENS[@]}"; do
		[ -n "$(val "$s" numa mib)" ] || continue
		[ -n "$(val "$s" oracle mib)" ] || continue
		same_path "$s" || continue
		echo "| $s | $(ratio "$(val "$s" numa mib)" "$(val "$s" oracle mib)") | $(ratio "$(val "$s" numa p99)" "$(val "$s" oracle p99)") |"
	done
}

# metric S: "COLUMN UNIT" the criteria of scenario S compare: IOPS where
# one request is in flight or one namespace is measured, MiB/s elsewhere
# (tiobench: summed over its phases; mixed: the 4 KiB job's IOPS and the
# 128 KiB job's MiB/s, two rows)
metric() {
	case "$1" in
	qd1-* | two-namespaces) echo "iops IOPS" ;;
	tiobench) echo "tio_total MiB/s" ;;
	mixed) echo "iops IOPS"; echo "large_mib MiB/s" ;;
	*) echo "mib MiB/s" ;;
	esac
}

# best_other S C: the best of numa, round-robin and queue-depth by median
best_other() {
	local p best='' b=0
	for p in numa round-robin queue-depth; do
		[ -n "$(val "$1" "$p" "$2")" ] || continue
		if awk -v a="$(val "$1" "$p" "$2")" -v b="$b" 'BEGIN { exit !(a > b) }'; then
			best=$p b=$(val "$1" "$p" "$2")
		fi
	done
	echo "$best"
}

# The same criteria in every scenario: latency at least 0.95x the oracle
# and 0.98x the best of the others, and where queue-depth is 10% or more
# below the oracle, latency at least 1.10x queue-depth.
ratios() {
	local s c u best m lo hi noise
	: > "$work/verdicts"
	echo "| scenario | criterion | ratio (median of boots) | spread (lowest–highest boot) | target | verdict |"
	echo "|---|---|---|---|---|---|"
	for s in "${SCENS[@]}"; do
		[ -n "$(sdir "$s")" ] || continue
		while read -r c u; do
			[ -n "$(val "$s" latency "$c")" ] || continue
			noise=$(control_noise "$s" "$c")
			critr "$s" "latency $u / oracle" latency "$c" oracle "$c" '>=' 0.95 "$noise"
			best=$(best_other "$s" "$c")
			[ -z "$best" ] ||
				critr "$s" "latency $u / best other ($best)" latency "$c" "$best" "$c" '>=' 0.98 "$noise"
			read -r m lo hi <<< "$(rat "$s" queue-depth "$c" oracle "$c")"
			[ "$m" != - ] || continue
			# queue-depth 10% or more below the oracle in every round
			awk -v h="$hi" 'BEGIN { exit !(h <= 0.90) }' || continue
			critr "$s" "latency $u / queue-depth (queue-depth $(fmt "$m")x the oracle)" \
				latency "$c" queue-depth "$c" '>=' 1.10 "$noise"
		done < <(metric "$s")
	done
	[ -z "${MAX[shifting,latency,t90max]:-}" ] ||
		crit shifting "latency: s to 90% on the new fast path, worst move" \
			"${MAX[shifting,latency,t90max]}" "${MIN[shifting,latency,t90max]}" "${MAX[shifting,latency,t90max]}" '<=' 1
	# cost, on the deterministic clock: instructions per I/O
	for s in overhead overhead4 overhead8; do
		critr "$s" "instructions per I/O, latency / queue-depth" latency@patched cpu_ns queue-depth@patched cpu_ns '<=' 1.01
		[ ! -d "$res/distro" ] ||
			critr "$s" "instructions per I/O, latency / queue-depth, wbt on" latency@distro cpu_ns queue-depth@distro cpu_ns '<=' 1.01
	done
	critr overhead "instructions per I/O, numa patched / numa base kernel" numa@patched cpu_ns numa@base cpu_ns '=~' 0.005
}

# --- plots ----------------------------------------------------------------------
plots() {
	local s p
	{
		printf 'scenario'
		printf ' %s' "${POLS[@]}"
		echo
		for s in "${SCENS[@]}"; do
			[ "$s" != tiobench ] || continue
			printf '%s' "$s"
			for p in "${POLS[@]}"; do
				if [ "$s" = mixed ]; then
					printf ' %s' "$(calc "${MED[$s,$p,mib]:-0} + ${MED[$s,$p,large_mib]:-0}")"
				else
					printf ' %s' "${MED[$s,$p,mib]:-0}"
				fi
			done
			echo
		done
	} > "$work/bw.dat"
	# asym20 latency percentiles: median over the rounds per percentile
	for p in "${POLS[@]}"; do
		[ -n "$(val asym20 "$p" iops)" ] || continue
		printf '"%s"\n' "$p"
		for j in "$res"/main/results/asym20/r*-"$p".json; do
			[ -e "$j" ] || continue
			fio_json "$j" | jq -r '.jobs[0].read.lat_ns.percentile | to_entries[] |
				"\(.key | tonumber) \(.value / 1e3)"'
		done | awk '{ k = $1; v[k, ++n[k]] = $2 } END {
			for (k in n) {
				m = n[k]
				for (i = 1; i <= m; i++) a[i] = v[k, i]
				for (i = 2; i <= m; i++) { x = a[i]
					for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]
					a[j + 1] = x }
				med = m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
				if (k + 0 < 100) printf "%.6f %g %g\n", -log(1 - k / 100) / log(10), med, k
			} }' | sort -g
		printf '\n\n'
	done > "$work/asym20-lat.dat"
	npl=$(grep -c '^"' "$work/asym20-lat.dat" || true)
	gnuplot <<-EOF
		set terminal pngcairo size 1000,520 font ",10"
		set output '$docs/bench-bandwidth.png'
		set title 'Bandwidth per scenario and policy (median of rounds; log scale)'
		set style data histograms
		set style histogram clustered gap 1
		set style fill solid 0.85 border -1
		set logscale y
		set yrange [0.3:*]
		set ylabel 'MiB/s'
		set grid ytics
		set key top right
		set xtics rotate by -25 nomirror
		plot for [i=2:6] '$work/bw.dat' using i:xtic(1) title columnheader(i)
	EOF
	[ "$npl" -gt 0 ] || return 0
	gnuplot <<-EOF
		set terminal pngcairo size 1000,520 font ",10"
		set output '$docs/bench-asym20-latency.png'
		set title 'asym20 (+$(rtt "$D_FAR") round trip on one of two tcp paths): fio lat percentiles'
		set style data linespoints
		set logscale y
		set grid ytics
		set xlabel 'percentile'
		set ylabel 'latency, us (log scale)'
		set xtics ('1' 0.004365, '50' 0.30103, '90' 1, '99' 2, '99.9' 3, '99.99' 4) norotate
		set xrange [0:4.1]
		set key top left
		plot for [i=0:$((npl - 1))] '$work/asym20-lat.dat' index i using 1:2 title columnheader(1)
	EOF
}

# tio_table: MiB/s per phase of the tiobench job
tio_table() {
	local p
	echo "| policy | seqwrite MiB/s | randwrite MiB/s | seqread MiB/s | randread MiB/s | I/Os path 1 / 2 % |"
	echo "|---|---|---|---|---|---|"
	for p in "${POLS[@]}"; do
		[ -n "$(val tiobench "$p" tio_seqwrite)" ] || continue
		echo "| $p | $(cell tiobench "$p" tio_seqwrite %.1f) | $(cell tiobench "$p" tio_randwrite %.1f) | $(cell tiobench "$p" tio_seqread %.1f) | $(cell tiobench "$p" tio_randread %.1f) | $(cell tiobench "$p" share1 %.0f) / $(cell tiobench "$p" share2 %.0f) |"
	done
}

# cost: instructions per I/O on the deterministic clock
cost_table() {
	local p qd s m lo hi x
	echo "| paths | kernel | policy | instructions per I/O | x queue-depth (boots) | IOPS (virtual clock) |"
	echo "|---|---|---|---|---|---|"
	for s in overhead overhead4 overhead8; do
		for p in numa@base numa@patched round-robin@patched queue-depth@patched latency@patched \
			numa@distro round-robin@distro queue-depth@distro latency@distro; do
			[ -n "$(val "$s" "$p" cpu_ns)" ] || continue
			qd=queue-depth@${p#*@}
			[ "${p#*@}" != base ] || qd=queue-depth@patched
			# within a round, as the criteria
			read -r m lo hi <<< "$(rat "$s" "$p" cpu_ns "$qd" cpu_ns)"
			x=-
			[ "$m" = - ] || x="$(fmt "$m") ($(fmt "$lo")–$(fmt "$hi"))"
			echo "| $(cost_paths "$s") | ${p#*@} | ${p%@*} | $(cell "$s" "$p" cpu_ns %.0f) | $x | $(cell "$s" "$p" iops %.0f) |"
		done
	done
}
# cost_paths SCENARIO: the number of loop paths of an overhead scenario
cost_paths() { local s=${1#overhead}; echo "${s:-2}"; }

# share_plot SCENARIO TITLE: share of path 1 over time, per policy (round
# 1, 0.5 s steps), from the runs' .samples; a policy with fewer than two
# steps is left out, and without any the report says why
share_plot() {
	local s=$1 p f n=0 pts
	for p in "${POLS[@]}"; do
		f=$res/main/results/$s/r1-$p.samples
		[ -s "$f" ] || continue
		pts=$(share_steps "$f" 0.5)
		[ "$(printf '%s\n' "$pts" | grep -c .)" -ge 2 ] || continue
		printf '"%s"\n%s\n\n\n' "$p" "$pts"
		n=$((n + 1))
	done > "$work/share-$s.dat"
	if [ "$n" -eq 0 ]; then
		echo "(No share plot: its runs sampled fewer than two 0.5 s steps.)"
		return 0
	fi
	gnuplot <<-EOF
		set terminal pngcairo size 1000,420 font ",10"
		set output '$docs/bench-share-$s.png'
		set title '$2'
		set style data lines
		set yrange [0:100]
		set grid
		set xlabel 'seconds'
		set ylabel '% of I/Os on path 1 (0.5 s steps)'
		set key outside right
		plot for [i=0:$((n - 1))] '$work/share-$s.dat' index i using 1:2 title columnheader(1) lw 2
	EOF
	echo "![$s: share of path 1 over time](bench-share-$s.png)"
}

# cover_row "DESCRIPTION" SCENARIO COLUMN: "latency / queue-depth (spread),
# / oracle (spread)" for the cover letter; nothing when the scenario did
# not run
cover_row() {
	local q o
	[ -n "$(val "$2" latency "$3")" ] || return 0
	q=$(rat "$2" latency "$3" queue-depth "$3") o=$(rat "$2" latency "$3" oracle "$3")
	awk -v d="$1" -v q="$q" -v o="$o" 'BEGIN {
		split(q, a, " "); split(o, b, " ")
		for (i = 1; i <= 3; i++) {
			a[i] = sprintf(a[i] >= 10 ? "%.0f" : "%.2f", a[i])
			b[i] = sprintf(b[i] >= 10 ? "%.0f" : "%.2f", b[i])
		}
		printf "  %-44s %-22s %s\n", d, a[1] "x (" a[2] "-" a[3] ")", b[1] "x (" b[2] "-" b[3] ")" }'
}

# cover: the plain-text summary the cover letter quotes (between the
# cover markers): where latency beats queue-depth, what it costs, equal
# paths.  The criteria table stays in this document.
cover() {
	local p q s
	echo "Measured in a QEMU guest on the instruction clock (-icount: a loop path"
	echo "takes 12 us; nvmet tcp and loop paths, netem delays as round trips;"
	echo "median of $(meta rounds) boots, lowest-highest boot in brackets):"
	echo
	printf '  %-44s %-22s %s\n' "" "latency/queue-depth" "latency/oracle"
	cover_row "iodepth 1, +$(rtt "$D_QD1") path first: reads, IOPS" qd1-slow-first iops
	cover_row "  random writes, IOPS" qd1-write iops
	cover_row "  writes each followed by a flush, IOPS" qd1-fsync iops
	cover_row "two namespaces, the other loads path 1, IOPS" two-namespaces iops
	cover_row "three paths, two +$(rtt "$D_MID") first, MiB/s" three-paths mib
	cover_row "four paths, +0/$(rtt "$D_NEAR")/$(rtt "$D_MID")/$(rtt "$D_FAR"), MiB/s" four-paths mib
	cover_row "eight paths, pairs of four latencies, MiB/s" eight-paths mib
	cover_row "+$(rtt "$D_FAR") path first, $((2 * QD)) in flight, MiB/s" asym20-first mib
	cover_row "+$(rtt "$D_FAR") path second, MiB/s" asym20 mib
	cover_row "+$(rtt "$D_NEAR") path, $((2 * QD)) in flight, MiB/s" asym2 mib
	cover_row "4 NUMA nodes, +$(rtt "$D_MID") path, MiB/s" numa4 mib
	cover_row "  equal paths, MiB/s" numa4-equal mib
	cover_row "loop and tcp +$(rtt "$D_NEAR"), MiB/s" fabric mib
	cover_row "+$(rtt "$D_NEAR") path, 4k-512k sizes, MiB/s" bssplit mib
	cover_row "links ${BW_FAST%mbit} and ${BW_SLOW%mbit} Mbit/s, 128k reads, MiB/s" bwlimit mib
	cover_row "4k and 128k jobs at once: the 4k job's IOPS" mixed iops
	cover_row "  the 128k job's MiB/s" mixed large_mib
	cover_row "tiobench, its 4 phases summed, MiB/s" tiobench tio_total
	if [ -n "$(val overhead queue-depth@patched cpu_ns)" ]; then
		echo
		echo "Cost: instructions per 4 KiB read (fio and the nvmet loop target included;"
		echo "QEMU -icount, one vCPU, 2, 4 and 8 loop paths, median of $(find "$res/patched" -mindepth 1 -maxdepth 1 -type d | wc -l) boots, min-max):"
		for s in overhead overhead4 overhead8; do
			[ -n "$(val "$s" queue-depth@patched cpu_ns)" ] || continue
			echo
			for p in numa@base numa@patched round-robin@patched queue-depth@patched latency@patched \
				queue-depth@distro latency@distro; do
				[ -n "$(val "$s" "$p" cpu_ns)" ] || continue
				q=queue-depth@patched
				[ "${p#*@}" != distro ] || q=queue-depth@distro
				# the ratio within a boot, as in the criteria
				printf '  %s paths  %-12s %-8s %6.0f  (%.0f-%.0f)  x%.3f of queue-depth\n' "$(cost_paths "$s")" \
					"${p%@*}" "${p#*@}" "$(val "$s" "$p" cpu_ns)" "${MIN[$s,$p,cpu_ns]}" \
					"${MAX[$s,$p,cpu_ns]}" "$(rat "$s" "$p" cpu_ns "$q" cpu_ns | cut -d' ' -f1)"
			done
		done
	fi
	if [ -n "$(val symmetric latency mib)" ]; then
		echo
		echo "Equal paths (two tcp paths, $((2 * QD)) in flight): latency $(rat symmetric latency mib round-robin mib |
			awk '{ printf "%.2fx round-robin (%.2f-%.2f)", $1, $2, $3 }'), path 1 carried $(val symmetric latency share1)% (median)."
	fi
}

# ranking S C TAG: the policies by their median of column C, best first
ranking() {
	local p
	for p in "${POLS[@]}"; do
		[ -z "$(val "$1" "$p$3" "$2")" ] || echo "$(val "$1" "$p$3" "$2") $p"
	done | sort -gr | awk '{ printf "%s%s", (NR > 1 ? " > " : ""), $2 } END { print "" }'
}

# crosscheck: the rankings of the two clocks side by side, per scenario
crosscheck() {
	local s c u a b
	echo "| scenario | metric | instruction clock | real time | latency / oracle (instr., real) | latency / queue-depth (instr., real) |"
	echo "|---|---|---|---|---|---|"
	for s in "${SCENS[@]}"; do
		while read -r c u; do
			[ -n "$(val "$s" latency@rt "$c")" ] || continue
			[ -n "$(val "$s" latency "$c")" ] || continue
			a=$(ranking "$s" "$c" '') b=$(ranking "$s" "$c" @rt)
			echo "| $s | $u | $a | $b | $(ratio "$(val "$s" latency "$c")" "$(val "$s" oracle "$c")"), $(ratio "$(val "$s" latency@rt "$c")" "$(val "$s" oracle@rt "$c")") | $(ratio "$(val "$s" latency "$c")" "$(val "$s" queue-depth "$c")"), $(ratio "$(val "$s" latency@rt "$c")" "$(val "$s" queue-depth@rt "$c")") |"
		done < <(metric "$s")
	done
}

# the path model's rows, when the main boot ran the KUnit suite
model_rows() {
	local log=$res/main/1/console.log
	[ -f "$log" ] || log=$res/main/console.log
	[ -f "$log" ] && grep -q 'model: ' "$log" || return 0
	"$top/tools/model-table.sh" "$log" | sed -n '/^| scenario/,$p'
}

# --- the document -------------------------------------------------------------
plots
rat=$(ratios)
met=$(grep -c '^met$' "$work/verdicts" || true)
missed=$(grep -c '^missed$' "$work/verdicts" || true)
undecided=$(grep -c '^undecided$' "$work/verdicts" || true)
dropped=$(grep -c '^dropped$' "$work/verdicts" || true)
cost_boot=patched/1
# cost_setup / cost_section: the Setup item and the section of the cost
# boots, when the run had them
cost_setup() {
	[ -d "$res/patched" ] || return 0
	cat <<-EOF
	- Cost: on the deterministic clock (\`tools/vm/run.sh -d\`: QEMU
	  \`-icount shift=0,sleep=off\`, one vCPU), where guest time advances one
	  nanosecond per executed instruction and skips idle time, so guest CPU
	  time per I/O is instructions per I/O (fio's included) and host load
	  cannot move it.  $(meta rounds $cost_boot) run(s) per policy and boot, one boot
	  per kernel and round.  The cost kernels are built as production kernels
	  are, with -O2 and without KUnit (\`tools/vm/cost.config\`;
	  $(src cost_bzimage | cut -d' ' -f1)): with KUnit the functions the tests
	  reach are global and not inlined, and the test kernel's -Os (tinyconfig)
	  keeps small inline helpers out of line.
	EOF
}
cost_section() {
	echo "## Cost: instructions per I/O"
	echo
	if [ ! -d "$res/patched" ]; then
		echo "No cost boots in this run (\`tools/bench/bench.sh\` without --scenarios, or with"
		echo "overhead among them, runs them)."
		return 0
	fi
	cat <<-EOF
	Scenarios overhead, overhead4 and overhead8: two, four and eight loop
	paths on null_blk, no delay; 4 KiB randread, one job of iodepth 32 on the
	one vCPU.  Kernels: patched and base are tools/vm/cost.config (-O2, no
	KUnit, no wbt); distro is the patched one with wbt enabled as Debian and
	Fedora enable it (tools/vm/cost-distro.config), so that the block
	statistics blk-clat needs are on for every policy$([ -d "$res/distro" ] || printf '; this run has no distro boots').  Instructions per I/O: guest CPU
	time (elapsed minus idle, from \`/proc/uptime\`) per I/O completed on the
	paths, in a window from 1 s after the ramp to 1 s before the end of each
	run; it counts every instruction the I/O costs, fio's included.

	$(cost_table)
	EOF
}
{
	cat <<-EOF
	<!-- SPDX-License-Identifier: GPL-2.0 -->
	# Benchmarks: iopolicies on asymmetric NVMe-oF paths

	Generated by \`tools/bench/report.sh\` from a \`tools/bench/bench.sh\` run
	($(date -u -r "$res/source" '+%Y-%m-%d %H:%M UTC')); do not edit, run the bench again.
	Criteria: $met met, $missed missed, $undecided undecided, $dropped dropped.

	## Setup

	- Kernel: Linux \`$(meta uname_r)\` \`$(meta uname_v)\` with the series, built
	  $(src bzimage) from the work tree at \`$(src tree)\`
	  (repository at $(src repo)).$(if [ -f "$res/note" ]; then echo; sed 's/^/  /; 1s/^  /- /' "$res/note"; fi)
	- Host: $(nproc) CPUs ($(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)),
	  $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), $(. /etc/os-release && echo "$PRETTY_NAME").
	- Guest: $(qemu-system-x86_64 --version | head -n 1), TCG (no KVM), $(meta nproc) vCPUs,
	  $(awk -v k="$(meta mem_kb)" 'BEGIN { printf "%.1f GiB", k / 1048576 }'), clocksource $(meta clocksource), $(meta fio).
	- Clock: $(meta clock).  On the instruction clock (\`tools/vm/run.sh -d\`:
	  QEMU \`-icount shift=0,sleep=off\`) the guest's time advances one
	  nanosecond per executed instruction and skips idle time, so host load
	  cannot move what the guest measures, and the kernel runs at hardware
	  time scales: a 4 KiB read on a loop path takes about 12 us, on a tcp
	  path about 40 us.  A tcp I/O costs about 100 us of the guest's CPU
	  time, the target's included: two equal tcp paths read about 20000 IOPS
	  at any depth, so the 4 KiB scenarios keep $QD requests per job in flight
	  (at 16 in all a read would wait 800 us for the CPUs, and every policy
	  would read the same).  The delays are a fabric's: $D_NEAR, $D_MID and
	  $D_FAR each way ($D_QD1 for the iodepth-1 scenarios), links of
	  ${BW_FAST%mbit} and ${BW_SLOW%mbit} Mbit/s.  The vCPUs take turns on
	  one host thread, and the nvmet target runs on the guest's CPUs: a tcp
	  path costs the CPU that a remote target would not, which is why the
	  scenarios that compare delays use paths of one transport.
	- Targets: nvmet in the guest (null_blk namespaces, loop or tcp ports on
	  127.0.0.1, one port per path), netem on \`lo\` per tcp port (\`tools/vm/lib.sh\`).
	- $(meta rounds) boot(s) of the same kernel, one round each$([ ! -d "$res/numa4" ] || echo "
	  (numa4 and numa4-equal: 4 vCPUs on 4 fake NUMA nodes, the others 2 on 2)"); each run
	  $(meta runtime) s after a $(meta ramp) s ramp
	  (shifting: $SHIFT_S s; the iodepth-1 scenarios at least $(scen_min_s qd1-write) s,
	  bwlimit at least $(scen_min_s bwlimit) s, their one job on CPU 0; symmetric at least
	  $(scen_min_s symmetric) s, for its share plot); order per scenario: one warm-up run, then
	  numa, round-robin, queue-depth, latency, oracle. The oracle is numa
	  with the slow paths ANA inaccessible (only the best path usable);
	  in shifting its ANA states follow the delay.
	- Latencies are fio \`lat\` (submission + completion).  "I/Os path 1 / 2" is
	  the share of completed I/Os per path disk (\`/sys/block/nvmeXcYnZ/stat\`
	  over the whole run, ramp included).  Values: median over boots (min–max).
	$(cost_setup)

	Command:

	$(sed -e "s/^/    /" -e "s|$HOME|~|g" "$res/command")

	Guest boot (\`tools/vm/run.sh\`):

	    $(sed "s|$HOME|~|g" "$res/main/1/qemu-cmd" 2>/dev/null || sed "s|$HOME|~|g" "$res/main/qemu-cmd" 2>/dev/null)

	## Criteria

	$met met, $missed missed, $undecided undecided, $dropped dropped ($(meta rounds) boot(s)).
	In every scenario latency must reach 0.95x the oracle and 0.98x the best
	of numa, round-robin and queue-depth; where queue-depth is 10% or more
	below the oracle, latency must beat it by 10% or more.  Each ratio is
	taken within a boot, where the policies ran side by side (interleaved);
	the table gives its median and its lowest and highest boot.  A
	criterion is met when the ratio meets the target in every boot, missed
	when it misses it in every boot.  Every criterion of a scenario is
	dropped when the scenario's control, numa against the oracle on the
	same single path, differs from 1 by more than 1% in some boot: there
	the boots differ by more than the criteria's margins whatever the
	policy, and the clock cannot decide (the verdict the boots gave is
	kept in brackets).

	$rat

	The summary the cover letter quotes:

	<!-- cover-begin -->
	\`\`\`
	$(cover)
	\`\`\`
	<!-- cover-end -->

	$(cost_section)

	## Scenarios and results

	EOF
	for s in "${SCENS[@]}"; do
		[ -n "$(sdir "$s")" ] || continue
		case "$s" in
		symmetric) d="two tcp paths, no delay; 4 KiB randread, 2 jobs (one per CPU), iodepth $QD each." ;;
		asym2) d="two tcp paths, +$(rtt "$D_NEAR") round trip on path 2 (netem $D_NEAR each way); 4 KiB randread as in symmetric." ;;
		asym20) d="two tcp paths, +$(rtt "$D_FAR") round trip on path 2 (netem $D_FAR each way); 4 KiB randread." ;;
		asym20-first) d="as asym20 but the slow path is path 1, connected first (numa sits on it)." ;;
		fabric) d="path 1 loop, path 2 tcp with +$(rtt "$D_NEAR") round trip; 4 KiB randread." ;;
		shifting) d="two tcp paths; +$(rtt "$D_MID") round trip on path 2, moved to path 1 after $(move_s 1) s and back and forth $((MOVES - 1)) more times, each spacing 0.1 s longer than the one before (the last move at $(move_s "$MOVES") s; \`tc qdisc change\`), so that the moves meet latency's backed-off probes of the idle path (every 800 ms) at $MOVES phases; 4 KiB randread.  Last column: time from a move until a 0.5 s window has >= 90% of its I/O on the new fast path (sampled every 0.1 s; 99 = never), the median and the longest over the moves of a run: median over boots (min–max).  Latency follows a move once it probes the idle path: when the slowed path's estimate passes twice the estimate the idle path was last found outside the band of, the idle path's probe back-off ends (1-3 windows of 50 ms), or else the slowed path's estimate rises into the band of the idle path's old one (4-6 windows); a probe of an idle tcp path can read several times slower than the path's loaded I/O (in a traced boot, 1.2 ms after the move on the path that read 0.12 ms 750 ms later), and then it takes another." ;;
		bwlimit) d="two tcp paths limited by netem to ${BW_FAST%mbit} and ${BW_SLOW%mbit} Mbit/s (4:1); 128 KiB sequential read, one job on CPU 0, iodepth 16." ;;
		rwsplit) d="two tcp paths; path 1's direction to the target limited by netem to ${BW_SLOW%mbit} Mbit/s (write data waits, read commands behind it, read data does not), path 2 +$(rtt "$D_MID") round trip; 4 KiB randrw, half writes, one job on CPU 0, iodepth 4; IOPS of reads.  Reads are best on path 1, writes on path 2: no single path is best, and the oracle keeps path 1." ;;
		mixed) d="path 1 loop, path 2 tcp +$(rtt "$D_NEAR"); a 4 KiB randread job (iodepth 8, CPU 0) and a 128 KiB sequential read job (iodepth 8, CPU 1) at once." ;;
		bssplit) d="two tcp paths, +$(rtt "$D_NEAR") round trip on path 2; random reads of 4 KiB (40%), 16 KiB (20%), 64 KiB (20%), 128 KiB (10%) and 512 KiB (10%) at once, 2 jobs of iodepth $QD." ;;
		qd1-slow-first) d="path 1 tcp with +$(rtt "$D_QD1") round trip (connected first), path 2 loop; 4 KiB randread, one job on CPU 0 (unpinned, the job moves between the guest's two nodes, and each node probes for itself), iodepth 1: queue-depth always takes the first idle path." ;;
		qd1-write) d="as qd1-slow-first with 4 KiB random writes." ;;
		qd1-fsync) d="as qd1-slow-first with 4 KiB sequential writes, each followed by a flush (fio --fsync=1: a log writer).  IOPS count the writes." ;;
		three-paths) d="three tcp paths, +$(rtt "$D_MID") round trip on paths 1 and 2 (connected first); 4 KiB randread as in symmetric.  The oracle has paths 1 and 2 ANA inaccessible." ;;
		four-paths) d="four tcp paths, path 1 without delay, paths 2, 3 and 4 with +$(rtt "$D_NEAR"), +$(rtt "$D_MID") and +$(rtt "$D_FAR") round trip; 4 KiB randread as in symmetric.  The oracle has only path 1." ;;
		eight-paths) d="eight tcp paths: 1 and 2 without delay, 3 and 4 +$(rtt "$D_NEAR"), 5 and 6 +$(rtt "$D_MID"), 7 and 8 +$(rtt "$D_FAR") round trip; 4 KiB randread as in symmetric.  The oracle has paths 1 and 2; the shares shown are of paths 1 and 2." ;;
		numa4) d="a guest of 4 vCPUs on 4 fake NUMA nodes (numa=fake=4, which puts CPU i on node i: x86's numa_init_array() deals the CPUs out round robin); two tcp paths, +$(rtt "$D_MID") round trip on path 2; 4 KiB randread, one job per CPU, iodepth $QD each: each node keeps its own estimates and probes." ;;
		numa4-equal) d="as numa4 with two equal paths (no delay): do four nodes' estimates, each in its own band, still split the load evenly?" ;;
		two-namespaces) d="two tcp paths, +$(rtt "$D_MID") round trip on path 2; two namespaces in ANA groups of their own.  Namespace 1 (inaccessible on path 2) keeps controller 1 busy (4 KiB randread, iodepth 4, on CPU 0); namespace 2 (optimized on both; a sparse 256 MiB file in the guest's memory) reads 4 KiB at iodepth 1 on CPU 1 and is what the table shows (its IOPS, latencies and path shares).  The oracle makes namespace 2 inaccessible on path 2." ;;
		tiobench) d="the tiobench job the 2024 latency RFC reported (tools/tiobench.fio: sequential write, random write, sequential read, random read, 4 KiB direct, stonewalled phases of $(meta runtime) s, 2 jobs each, 256 MiB) on two equal tcp paths, for comparison with the RFC's numbers (there: 16 jobs over 32G FC to a brd target, round-robin against latency).  The criteria use the sum of the four phases." ;;
		esac
		echo "### $s"
		echo
		echo "$d"
		echo
		echo "    $(sed "s|/dev/nvme[0-9]*n[0-9]*|/dev/nvmeXnY|g" "$(sdir "$s")/fio-cmd")"
		echo
		if [ "$s" = tiobench ]; then tio_table; else table "$s"; fi
		echo
		case "$s" in
		shifting) share_plot shifting "shifting: $MOVES moves of +$(rtt "$D_MID"), from $(move_s 1) s to $(move_s "$MOVES") s" ;;
		symmetric) share_plot symmetric "symmetric (equal paths): does the split hold?" ;;
		esac
		echo
	done
	cat <<-EOF
	## Path model (µs scale)

	The KUnit path model (\`drivers/nvme/host/mpath-latency-test.c\`, run at
	boot of the same kernel) drives the real estimator and decision on a
	simulated clock with latencies of real fabrics; see docs/path-model.md.

	$(model_rows)

	## Cross-check: real-time TCG

	$(if [ -d "$res/realtime/results" ]; then
		echo "One boot of the same kernel on TCG's real-time clock (a 4 KiB I/O takes"
		echo "about 1.3 ms there, so the delays are 10 to 20 times longer: $(meta d_near realtime),"
		echo "$(meta d_mid realtime) and $(meta d_far realtime) each way, $(meta d_qd1 realtime) for iodepth 1, links of"
		echo "$(meta bw_fast realtime) and $(meta bw_slow realtime)).  One round: its ratios are not criteria, only the"
		echo "order of the policies is compared."
		echo
		crosscheck
		if [ -f "$res/crosscheck.md" ]; then echo; cat "$res/crosscheck.md"; fi
	elif [ -f "$res/crosscheck.md" ]; then
		cat "$res/crosscheck.md"
	else
		echo "No real-time boot in this run (tools/bench/bench.sh --realtime)."
	fi)

	## Noise control

	In these scenarios numa and the oracle both used the same single path, so
	any difference between them is run-to-run noise; on the instruction
	clock it is the difference between boots alone.

	$(controls)

	## Plots

	![bandwidth per scenario and policy](bench-bandwidth.png)

	EOF
	[ "${npl:-0}" = 0 ] || printf '\n![asym20 latency percentiles](bench-asym20-latency.png)\n'

} > "$md"
echo "$md: $met met, $missed missed, $undecided undecided, $dropped dropped"
