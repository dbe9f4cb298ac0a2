#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Write DOCS/benchmarks.md and DOCS/bench-*.png from the results of
# tools/bench/bench.sh (RESULTS/main, RESULTS/overhead for the overhead
# scenario's own boot, and RESULTS/{patched,base}/N for the boots of
# --base-kernel).
#
#   tools/bench/report.sh RESULTS_DIR [DOCS_DIR]
#
# Every value is the median over the rounds, with min-max after it when
# there was more than one round.  Criteria (met/missed) are in ratios().
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
res=$(cd "${1:?results dir}" && pwd)
docs=${2:-$top/docs}
mkdir -p "$docs"
docs=$(cd "$docs" && pwd)
md=$docs/benchmarks.md
work=$res/report
mkdir -p "$work"

"$here/extract.sh" "$res/main/results" > "$work/runs.tsv"
[ ! -d "$res/overhead/results" ] || "$here/extract.sh" "$res/overhead/results" >> "$work/runs.tsv"
# --base-kernel: alternating boots of the patched and the base kernel
for k in patched base; do
	for d in "$res/$k"/*/results; do
		[ ! -d "$d" ] || "$here/extract.sh" "$d" "@$k" >> "$work/runs.tsv"
	done
done
awk -f "$here/aggregate.awk" "$work/runs.tsv" > "$work/agg.tsv"
declare -A MED MIN MAX NUM
while IFS=$'\t' read -r s p c med mn mx n; do
	MED[$s,$p,$c]=$med MIN[$s,$p,$c]=$mn MAX[$s,$p,$c]=$mx NUM[$s,$p,$c]=$n
done < "$work/agg.tsv"
src() { awk -v k="$1" '$1 == k { $1 = ""; sub(/^ /, ""); print; exit }' "$res/source" 2>/dev/null; }
# sdir S: results directory of scenario S (empty when it did not run)
sdir() {
	local d
	for d in "$res/main/results/$1" "$res/overhead/results/$1"; do
		[ ! -d "$d" ] || { echo "$d"; return; }
	done
}
meta() { awk -v k="$1" '$1 == k { $1 = ""; sub(/^ /, ""); print; exit }' "$res/main/results/meta"; }
POLS=(numa round-robin queue-depth latency oracle)
SCENS=(symmetric asym2 asym20 asym20-first fabric shifting bwlimit mixed qd1-slow-first three-paths overhead)
# summed netem rates of bwlimit (24 + 6 Mbit/s) in MiB/s
SUMRATE=$(awk 'BEGIN { printf "%.4f", 30e6 / 8 / 1048576 }')

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
		echo "| policy | 4k IOPS | 4k p50 | 4k p99 | 4k p99.9 | 128k MiB/s | 128k p50 | 128k p99 | 128k p99.9 | I/Os path 1 / 2 % | bytes path 1 / 2 % |"
		echo "|---|---|---|---|---|---|---|---|---|---|---|"
		for p in "${POLS[@]}"; do
			[ -n "$(val "$s" "$p" iops)" ] || continue
			echo "| $p | $(cell "$s" "$p" iops %.0f) | $(cell "$s" "$p" p50 %.2f) | $(cell "$s" "$p" p99 %.1f) | $(cell "$s" "$p" p999 %.1f) | $(cell "$s" "$p" large_mib %.2f) | $(cell "$s" "$p" large_p50 %.1f) | $(cell "$s" "$p" large_p99 %.1f) | $(cell "$s" "$p" large_p999 %.1f) | $(cell "$s" "$p" share1 %.0f) / $(cell "$s" "$p" share2 %.0f) | $(cell "$s" "$p" bshare1 %.0f) / $(cell "$s" "$p" bshare2 %.0f) |"
		done
		;;
	*)
		local extra='' sep=''
		case "$s" in
		bwlimit) extra=' % of 30 Mbit/s |' sep='---|' ;;
		overhead) extra=' CPU µs per I/O |' sep='---|' ;;
		shifting) extra=' s to 90% on new fast path |' sep='---|' ;;
		esac
		echo "| policy | MiB/s | IOPS | lat p50 ms | p99 ms | p99.9 ms | I/Os path 1 / 2 % |$extra"
		echo "|---|---|---|---|---|---|---|$sep"
		for ps in "${POLS[@]}" numa@patched numa@base; do
			p=$ps
			[ -n "$(val "$s" "$p" iops)" ] || continue
			case "$s" in
			bwlimit) extra=" $(awk -v m="$(val "$s" "$p" mib)" -v r="$SUMRATE" 'BEGIN { printf "%.0f", 100 * m / r }') |" ;;
			overhead) extra=" $(cell "$s" "$p" cpu_us %.0f) |" ;;
			shifting) extra=" $(cell "$s" "$p" t90 %.2f) |" ;;
			esac
			echo "| $p | $(cell "$s" "$p" mib %.2f) | $(cell "$s" "$p" iops %.0f) | $(cell "$s" "$p" p50 %.2f) | $(cell "$s" "$p" p99 %.1f) | $(cell "$s" "$p" p999 %.1f) | $(cell "$s" "$p" share1 %.0f) / $(cell "$s" "$p" share2 %.0f) |$extra"
		done
		;;
	esac
}

# crit SCENARIO "DESCRIPTION" VALUE OP LIMIT: one row of the ratio table
crit() {
	local v=$3 verdict
	[ -n "$(sdir "$1")" ] || return 0
	if [ -z "$v" ] || [ "$v" = nan ]; then
		verdict="n/a"
		v="-"
	elif awk -v a="$v" -v b="$5" "BEGIN { exit !(a + 0 $4 b + 0) }"; then
		verdict=met
	else
		verdict=missed
	fi
	echo "| $1 | $2 | $v | $4 $5 | $verdict |"
	echo "$verdict" >> "$work/verdicts"
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
		[ "$(val "$s" numa share1)" = "$(val "$s" oracle share1)" ] || continue
		echo "| $s | $(ratio "$(val "$s" numa mib)" "$(val "$s" oracle mib)") | $(ratio "$(val "$s" numa p99)" "$(val "$s" oracle p99)") |"
	done
}

ratios() {
	local s best p b
	: > "$work/verdicts"
	echo "| scenario | criterion (medians) | value | target | verdict |"
	echo "|---|---|---|---|---|"
	for s in asym2 asym20 asym20-first fabric; do
		crit "$s" "latency MiB/s / oracle" "$(ratio "$(val "$s" latency mib)" "$(val "$s" oracle mib)")" '>=' 0.95
		crit "$s" "latency MiB/s / queue-depth" "$(ratio "$(val "$s" latency mib)" "$(val "$s" queue-depth mib)")" '>=' 1.00
		crit "$s" "latency p99 / oracle p99" "$(ratio "$(val "$s" latency p99)" "$(val "$s" oracle p99)")" '<=' 1.3
		case "$s" in asym20*)
			# the single-path oracle bounds what any policy can reach
			crit "$s" "latency p99 / queue-depth p99 (oracle's: $(ratio "$(val "$s" oracle p99)" "$(val "$s" queue-depth p99)"))" \
				"$(ratio "$(val "$s" latency p99)" "$(val "$s" queue-depth p99)")" '<=' 0.5 ;;
		esac
		crit "$s" "latency MiB/s / round-robin" "$(ratio "$(val "$s" latency mib)" "$(val "$s" round-robin mib)")" '>=' 2
	done
	crit qd1-slow-first "latency IOPS / oracle" "$(ratio "$(val qd1-slow-first latency iops)" "$(val qd1-slow-first oracle iops)")" '>=' 0.9
	crit qd1-slow-first "latency IOPS / queue-depth" "$(ratio "$(val qd1-slow-first latency iops)" "$(val qd1-slow-first queue-depth iops)")" '>=' 3
	crit three-paths "latency IOPS / oracle" "$(ratio "$(val three-paths latency iops)" "$(val three-paths oracle iops)")" '>=' 0.95
	crit three-paths "latency IOPS / queue-depth" "$(ratio "$(val three-paths latency iops)" "$(val three-paths queue-depth iops)")" '>=' 1.00
	crit bwlimit "latency MiB/s / queue-depth" "$(ratio "$(val bwlimit latency mib)" "$(val bwlimit queue-depth mib)")" '>=' 0.97
	crit bwlimit "latency MiB/s / summed rates (30 Mbit/s)" "$(ratio "$(val bwlimit latency mib)" "$SUMRATE")" '>=' 0.85
	best='' b=0
	for p in numa round-robin queue-depth; do
		[ -n "$(val symmetric "$p" mib)" ] || continue
		if awk -v a="$(val symmetric "$p" mib)" -v b="$b" 'BEGIN { exit !(a > b) }'; then
			best=$p b=$(val symmetric "$p" mib)
		fi
	done
	crit symmetric "latency MiB/s / best other (${best:-none})" "$(ratio "$(val symmetric latency mib)" "$b")" '>=' 0.97
	crit shifting "latency: s to 90% on the new fast path, worst move" "${MAX[shifting,latency,t90]:-}" '<=' 1
	crit overhead "latency IOPS / round-robin" "$(ratio "$(val overhead latency iops)" "$(val overhead round-robin iops)")" '>=' 0.98
	if [ -n "$(val overhead numa@base iops)" ]; then
		crit overhead "numa IOPS, patched / base kernel (alternating boots)" "$(ratio "$(val overhead numa@patched iops)" "$(val overhead numa@base iops)")" '>=' 0.99
	fi
}

# --- plots ----------------------------------------------------------------------
plots() {
	local s p
	{
		printf 'scenario'
		printf ' %s' "${POLS[@]}"
		echo
		for s in "${SCENS[@]}"; do
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
			sed -n '/^{/,$p' "$j" | jq -r '.jobs[0].read.lat_ns.percentile | to_entries[] |
				"\(.key | tonumber) \(.value / 1e6)"'
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
		set title 'asym20 (+20 ms round trip on one of two tcp paths): fio lat percentiles'
		set style data linespoints
		set logscale y
		set grid ytics
		set xlabel 'percentile'
		set ylabel 'latency, ms (log scale)'
		set xtics ('1' 0.004365, '50' 0.30103, '90' 1, '99' 2, '99.9' 3, '99.99' 4) norotate
		set xrange [0:4.1]
		set key top left
		plot for [i=0:$((npl - 1))] '$work/asym20-lat.dat' index i using 1:2 title columnheader(1)
	EOF
}

# --- the document -------------------------------------------------------------
plots
rat=$(ratios)
met=$(grep -c '^met$' "$work/verdicts" || true)
missed=$(grep -c '^missed$' "$work/verdicts" || true)
{
	cat <<-EOF
	<!-- SPDX-License-Identifier: GPL-2.0 -->
	# Benchmarks: iopolicies on asymmetric NVMe-oF paths

	Generated by \`tools/bench/report.sh\` from a \`tools/bench/bench.sh\` run
	($(date -u -r "$res/main/results/meta" '+%Y-%m-%d %H:%M UTC')); do not edit, run the bench again.
	Results: $met criteria met, $missed missed.

	## Setup

	- Kernel: Linux \`$(meta uname_r)\` \`$(meta uname_v)\` with the series, built
	  $(src bzimage) from the work tree at \`$(src tree)\`
	  (repository at $(src repo)).
	- Host: $(nproc) CPUs ($(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)),
	  $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), $(. /etc/os-release && echo "$PRETTY_NAME").
	- Guest: $(qemu-system-x86_64 --version | head -n 1), TCG (no KVM), $(meta nproc) vCPUs,
	  $(awk -v k="$(meta mem_kb)" 'BEGIN { printf "%.1f GiB", k / 1048576 }'), clocksource $(meta clocksource), $(meta fio).
	  Emulation is CPU-bound (about 1.3 ms of CPU per 4 KiB I/O) and other
	  jobs (kernel builds, other guests) shared the 2 host CPUs at times, so
	  absolute numbers are small and noisy (single-path policies on the same
	  path differ by up to 1.5x between runs); compare the policies, which ran
	  interleaved, and prefer the medians of several rounds.
	- Targets: nvmet in the guest (one null_blk namespace, loop or tcp ports on
	  127.0.0.1, one port per path), netem on \`lo\` per tcp port (\`tools/vm/lib.sh\`).
	- $(meta rounds) round(s); each run $(meta runtime) s after a $(meta ramp) s ramp
	  (shifting: $((3 * $(meta shift))) s); order per scenario: one warm-up run, then
	  numa, round-robin, queue-depth, latency, oracle, numa, ... The oracle is numa
	  with the slow path's nvmet port ANA inaccessible (only the best path usable);
	  in shifting its ANA states follow the delay.
	- Latencies are fio \`lat\` (submission + completion): under TCG much of an
	  I/O's time is spent before fio's \`clat\` starts.  "I/Os path 1 / 2" is
	  the share of completed I/Os per path disk (\`/sys/block/nvmeXcYnZ/stat\`
	  over the whole run, ramp included).  Values: median over rounds (min–max).

	Command:

	    $(cat "$res/command")

	Guest boot (\`tools/vm/run.sh\`):

	    $(sed "s|$HOME|~|g" "$res/main/qemu-cmd")

	## Scenarios and results

	EOF
	for s in "${SCENS[@]}"; do
		[ -n "$(sdir "$s")" ] || continue
		case "$s" in
		symmetric) d="two tcp paths, no delay; 4 KiB randread, 2 jobs (one per CPU), iodepth 8 each." ;;
		asym2) d="two tcp paths, +2 ms round trip on path 2 (netem 1 ms each way); 4 KiB randread as in symmetric." ;;
		asym20) d="two tcp paths, +20 ms round trip on path 2 (netem 10 ms each way); 4 KiB randread." ;;
		asym20-first) d="as asym20 but the slow path is path 1, connected first (numa sits on it)." ;;
		fabric) d="path 1 loop, path 2 tcp with +2 ms round trip; 4 KiB randread." ;;
		shifting) d="two tcp paths; +5 ms round trip on path 2, moved to path 1 after $(meta shift) s and back after $((2 * $(meta shift))) s (\`tc qdisc change\`); 4 KiB randread.  Last column: time from a move until a 0.5 s window has >= 90% of its I/O on the new fast path (sampled every 0.1 s; 99 = never): median (min–max) over both moves of every round." ;;
		bwlimit) d="two tcp paths limited by netem to 24 and 6 Mbit/s (4:1); 128 KiB sequential read, iodepth 16." ;;
		mixed) d="path 1 loop, path 2 tcp +2 ms; a 4 KiB randread job (iodepth 8, CPU 0) and a 128 KiB sequential read job (iodepth 8, CPU 1) at once." ;;
		qd1-slow-first) d="path 1 tcp with +10 ms round trip (connected first), path 2 loop; 4 KiB randread, one job, iodepth 1: queue-depth always takes the first idle path." ;;
		three-paths) d="three tcp paths, +5 ms round trip on paths 1 and 2 (connected first); 4 KiB randread as in symmetric.  The oracle has paths 1 and 2 ANA inaccessible." ;;
		overhead) d="two loop paths on null_blk, no delay; 4 KiB randread, 2 jobs (one per CPU), iodepth 32 each.  Runs in a boot of its own after the other scenarios, with three times their rounds (late in the main boot every policy ran it 20-30% slower and more scattered).  CPU per I/O: fio usr + sys time over its I/Os.  The numa@patched and numa@base rows come from separate boots of the patched and the unpatched kernel, alternated, one run per boot and round." ;;
		esac
		echo "### $s"
		echo
		echo "$d"
		echo
		echo "    $(sed "s|/dev/nvme[0-9]*n[0-9]*|/dev/nvmeXnY|" "$(sdir "$s")/fio-cmd")"
		echo
		table "$s"
		echo
	done
	cat <<-EOF
	## Criteria

	<!-- cover-begin -->
	$met criteria met, $missed missed ($(meta rounds) round(s), medians):

	$rat
	<!-- cover-end -->

	Noise control: in these scenarios numa and the oracle both used the same
	single path, so any difference between them is run-to-run noise (host load
	from other jobs, TCG); read the criteria above against it.

	$(controls)

	## Plots

	![bandwidth per scenario and policy](bench-bandwidth.png)

	EOF
	[ "${npl:-0}" = 0 ] || printf '\n![asym20 latency percentiles](bench-asym20-latency.png)\n'

} > "$md"
echo "$md: $met met, $missed missed"
