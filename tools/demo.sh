#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The demo behind 'make demo'.  The test kernel on the instruction clock
# (tools/vm/run.sh -d: the guest's time is instructions, so host load does
# not move the figures), where a loop
# path takes about 12 us and a tcp path about 40 us per 4 KiB read, as
# NVMe-oF hardware does.  Three topologies of tools/bench/bench-guest.sh,
# each under numa, round-robin, queue-depth, latency and the oracle (numa
# with only the best path usable):
#
#   equal       two equal tcp paths, 4 KiB random reads at 2 x 2 in flight
#   slow-first  a tcp path 2 ms farther listed before a loop path, one
#               4 KiB read at a time
#   congested   two tcp paths; 250 us of delay moves from path 2 onto
#               path 1 2 s into the run and back at 4.1 s
#
# Prints a table (IOPS and its ratio to the oracle, p99, the share of I/O
# per path) and writes demo.png beside it: the ratios, and the share of
# path 1 over time in the congested run.  Two boots, one per host CPU,
# about 6 minutes once the kernel is built.  Each boot runs from its
# initramfs and never waits on the host until it is done (run.sh -l):
# equal and slow-first come out the same on every run of a checkout,
# congested within 0.006 of the oracle (docs/development.md, make demo).
#
#   tools/demo.sh [--realtime] [-t guest_timeout_s]
#
# --realtime: the earlier demo instead, on TCG's real-time clock (host
# load moves its figures by up to 30%): tiobench (tools/tiobench.fio) on a
# loop path and a tcp path 5 ms farther, every iopolicy
# (tools/demo-guest.sh); RUNTIME (s per phase, default 8), SIZE (256m),
# NUMJOBS (2).
# Results stay in $CACHE/runs/<timestamp>-demo-<pid>.
set -eu
# shellcheck source-path=SCRIPTDIR source=common.sh
. "$(dirname "$0")/common.sh"
# shellcheck source-path=SCRIPTDIR source=bench/common.sh
. "$TOP/tools/bench/common.sh"

usage() {
	sed -n '3,/^set -eu/{/^set/d;s/^# \{0,1\}//;p}' "$0" >&2
	exit 2
}

realtime='' tmo=''
while [ $# -gt 0 ]; do
	case "$1" in
	--realtime) realtime=1 ;;
	-t) tmo=${2:?}; shift ;;
	*) usage ;;
	esac
	shift
done
need jq awk gnuplot qemu-system-x86_64 fio
[ -f "$BUILD/arch/x86/boot/bzImage" ] || die "no test kernel: run 'make kernel'"

rundir=$CACHE/runs/$(date +%Y%m%d-%H%M%S)-demo-$$
mkdir -p "$rundir"
# our own copy: other jobs (make check) rebuild $BUILD at other revisions
cp "$BUILD/arch/x86/boot/bzImage" "$rundir/bzImage"

# guest SCRIPT RUNDIR OUTDIR RUN.SH-OPTION...: one boot running SCRIPT in
# RUNDIR, its progress lines (OUTDIR/progress, or the console's under -l)
# shown as steps
guest() {
	local script=$1 rd=$2 out=$3 rc=0 fpid log
	shift 3
	mkdir -p "$out"
	: > "$out/progress"
	log=$out/progress
	case " $* " in *" -l "*) log=$rd/console.log; : > "$log" ;; esac
	follow "$log" "$out/progress.stop" &
	fpid=$!
	"$TOP/tools/vm/run.sh" -q -k "$rundir/bzImage" -r "$rd" "$@" -- "$script" || rc=$?
	touch "$out/progress.stop"
	wait "$fpid" || true
	[ "$rc" = 0 ] || die "guest failed (exit $rc); see $rd/console.log"
}

realtime_demo() {
	local out=$rundir/demo rows hdr
	step "demo (real-time clock): tiobench (RUNTIME=${RUNTIME:-8}s per phase) on loop + tcp(+5 ms), every iopolicy"
	guest "$TOP/tools/demo-guest.sh" "$rundir" "$out" -t "${tmo:-540}" \
		-e SIZE="${SIZE:-256m}" -e RUNTIME="${RUNTIME:-8}" -e NUMJOBS="${NUMJOBS:-2}"
	[ -s "$out/policies" ] || die "no results in $out"
	hdr=$(while read -r _ t _; do
		printf ' %9s' "$([ "$t" = loop ] && echo loop% || echo tcp+5ms%)"
	done < "$out/paths")
	rows=$out/rows.tsv
	: > "$rows"
	while read -r p; do
		for ph in seqwrite randwrite seqread randread; do
			case "$ph" in *write) d="write" ;; *) d="read" ;; esac
			[ -s "$out/$p-$ph.json" ] || die "missing $out/$p-$ph.json"
			{
				printf '%s\t%s\t' "$p" "$ph"
				fio_json "$out/$p-$ph.json" | jq -r --arg d "$d" '.jobs[0][$d] |
					[.bw / 1024, .lat_ns.percentile["50.000000"] / 1e6,
					 .lat_ns.percentile["99.000000"] / 1e6] | @tsv' | tr '\n' '\t'
				sort -n "$out/$p-$ph.share" | awk '{ printf "%s\t", $3 }'
				echo
			} >> "$rows"
		done
	done < "$out/policies"
	echo
	echo "fio 'lat' percentiles in ms; path share from the path disks' stat."
	awk -F'\t' -v hdr="$hdr" '
		$1 != last { printf "\n== iopolicy %s ==\n%-10s %8s %8s %8s%s\n", $1,
			"phase", "MiB/s", "p50", "p99", hdr; last = $1 }
		{ printf "%-10s %8.2f %8.2f %8.2f", $2, $3, $4, $5
		  for (i = 6; i <= NF && $i != ""; i++) printf " %9.1f", $i
		  printf "\n" }' "$rows"
	grep -qx latency "$out/policies" ||
		die "the test kernel does not offer the latency iopolicy (run 'make kernel')"
	step "demo done; fio JSON in $out"
}

if [ -n "$realtime" ]; then
	realtime_demo
	exit 0
fi

res=$rundir/results
scens="symmetric qd1-slow-first shifting"
step "demo (instruction clock): equal paths, a slow path listed first, a path congested for 2 s; 5 policies each"
# two boots side by side, one per host CPU: shifting alone takes as long as
# the other two.  One vCPU each, as the placement tests boot: two take
# turns on one host thread, which made the demo 8 minutes instead of 6
# and moved congested from run to run as much.
pids=()
for b in "symmetric qd1-slow-first" shifting; do
	rd=$rundir/boot${#pids[@]}
	guest "$TOP/tools/bench/bench-guest.sh" "$rd" "$rd/results" -d -l -c 1 -a kunit.enable=0 \
		-t "${tmo:-2400}" -e BENCH_OUT="$rd/results" -e BENCH_LOCAL=1 \
		-e BENCH_SCENARIOS="$b" -e BENCH_ROUNDS=1 -e BENCH_RUNTIME=2 -e BENCH_FLOORS=0 \
		-e BENCH_SHIFT=2 -e BENCH_MOVES=2 &
	pids+=($!)
done
for p in "${pids[@]}"; do
	wait "$p" || die "a demo boot failed; see $rundir/boot*/console.log"
done
mkdir -p "$res"
cp -a "$rundir"/boot*/results/. "$res/"
grep -qx latency "$res/symmetric/policies" ||
	die "the test kernel does not offer the latency iopolicy (run 'make kernel')"

# extract.sh columns: scenario round policy iops mib p50 p99 p99.9 cpu_us
# share1 share2 bshare1 bshare2 ... t90 t90max errors cpu_ns
"$TOP/tools/bench/extract.sh" "$res" > "$rundir/rows.tsv"
awk -F'\t' '$20 > 0 { print "fio errors in " $1 " under " $3; bad = 1 } END { exit bad }' \
	"$rundir/rows.tsv" || die "fio reported errors; see $res"
table=$rundir/demo.txt
awk -F'\t' -v order="$scens" -v ratios="$rundir/ratio.dat" '
	BEGIN {
		n = split(order, sc, " ")
		split("numa round-robin queue-depth latency oracle", pol, " ")
		name["symmetric"] = "equal"
		name["qd1-slow-first"] = "slow-first"
		name["shifting"] = "congested"
	}
	{ iops[$1, $3] = $4; p99[$1, $3] = $7; s1[$1, $3] = $10; s2[$1, $3] = $11 }
	END {
		printf "%-11s %-12s %8s %9s %8s %7s %7s\n", "topology", "iopolicy",
			"IOPS", "x oracle", "p99 us", "path 1", "path 2"
		# the ratios for the plot: a row per topology, a column per policy
		print "topology numa round-robin queue-depth latency" > ratios
		for (i = 1; i <= n; i++) {
			s = sc[i]
			for (j = 1; j <= 5; j++) {
				p = pol[j]
				if (!((s, p) in iops)) continue
				o = iops[s, "oracle"]
				r = o > 0 ? iops[s, p] / o : 0
				t = j == 1 ? name[s] : ""
				printf "%-11s %-12s %8.0f %9.3f %8.0f %6.1f%% %6.1f%%\n",
					t, p, iops[s, p], r, p99[s, p], s1[s, p], s2[s, p]
			}
			printf "%s", name[s] > ratios
			for (j = 1; j <= 4; j++)
				printf " %.3f", iops[s, pol[j]] / iops[s, "oracle"] > ratios
			print "" > ratios
		}
	}' "$rundir/rows.tsv" > "$table"

# the plot: the ratios, and path 1's share over the congested run
for p in numa round-robin queue-depth latency oracle; do
	f=$res/shifting/r1-$p.samples
	[ -s "$f" ] || continue
	printf '"%s"\n' "$p"
	share_steps "$f" 0.25
	printf '\n\n'
done > "$rundir/share.dat"
moves=$(awk '{ printf "%s%.1f", sep, $1; sep = "," }' "$res/shifting/r1-latency.moves")
gnuplot <<-EOF
	set terminal pngcairo size 1200,480 font ",10"
	set output '$rundir/demo.png'
	set multiplot layout 1,2
	set title 'IOPS / oracle (instruction clock)'
	set style data histograms
	set style histogram clustered gap 1
	set style fill solid 0.85 border -1
	set yrange [0:1.1]
	set grid ytics
	set key outside top center horizontal
	plot for [i=2:5] '$rundir/ratio.dat' using i:xtic(1) title columnheader(i)
	set title 'congested: % of I/O on path 1 (0.25 s steps; delay moves at $moves s)'
	set style data lines
	set yrange [0:100]
	set xlabel 'seconds'
	set key outside right vertical
	set grid
	do for [m in "${moves//,/ }"] { set arrow from m + 0, graph 0 to m + 0, graph 1 nohead dt 2 }
	plot for [i=0:4] '$rundir/share.dat' index i using 1:2 title columnheader(1) lw 2
	unset multiplot
EOF
echo
cat "$table"
echo
echo "Instruction clock (QEMU -icount, one vCPU): host load does not move these figures."
echo "equal: 2 tcp paths, randread 4k, 2 jobs x iodepth 2; slow-first: tcp +2 ms round trip"
echo "listed first, loop second, iodepth 1; congested: as equal, 250 us delay on path 2,"
echo "moved onto path 1 at ${moves//,/ s and back at } s.  p99: fio lat.  Plot: $rundir/demo.png"
step "demo done; fio JSON in $res"
