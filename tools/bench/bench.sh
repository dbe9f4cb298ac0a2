#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The policy comparison behind docs/benchmarks.md.  Placement: boot the
# test kernel on the instruction clock (tools/vm/run.sh -d, two vCPUs),
# where a loop path takes about 12 us and netem delays are those of
# fabrics (50 us to 2 ms), and run every scenario under numa, round-robin,
# queue-depth, latency and the oracle (only the best path usable),
# interleaved (tools/bench/bench-guest.sh); 3 boots, whose spread is the
# spread of every figure.  The cost (overhead scenarios, 2, 4 and 8 loop
# paths) is measured on the same clock with one vCPU (guest CPU time is
# instructions): per boot one run of the patched kernel under numa,
# round-robin, queue-depth and latency, one of the distribution-like
# patched kernel, and one of the unpatched base kernel under numa (2
# paths).  Then tools/bench/report.sh writes docs/benchmarks.md and its
# plots.
#
#   tools/bench/bench.sh [--quick] [--boots N] [--parallel N] [--rounds N]
#                        [--runtime S] [--iodepth N] [--scenarios 'A B'] [--realtime]
#                        [--kernel BZIMAGE] [--cost-kernel BZIMAGE]
#                        [--base-kernel BZIMAGE|none] [--distro-kernel BZIMAGE|none]
#                        [--timeout S] [--no-docs] [--out DIR]
#
# --quick: 1 boot, shifting with 2 moves 3 s apart, no base or
# distribution-like kernel (else 8 moves, 4 s and more apart; see
# bench-guest.sh).  --boots: boots of each kind (3).  --parallel: boots at once
# (default: one per host CPU; a boot on the instruction clock runs on one
# host thread, and that clock keeps host load out of its figures).
# --rounds: rounds per placement boot (1: on this clock one round is as
# good as many).  --runtime: seconds per run after a 1 s ramp (3; the
# CPU time per I/O is taken over its last runtime - 2 s).
# --iodepth: requests in flight per job of the 4 KiB scenarios (default 2
# on the instruction clock, 8 in real time; see bench-guest.sh).
# --realtime: one more placement boot on TCG's real-time clock, with
# delays ten times longer (a 4 KiB I/O takes about 1.3 ms there), as
# a cross-check of the rankings.  --kernel: the patched kernel to test
# (default: the one 'make kernel' built).  --cost-kernel: the patched
# kernel of the cost boots (default: built into $CACHE/build-cost from the
# same tree with tools/vm/cost.config, the test kernel's config with -O2
# and without KUnit, as production kernels are built; the base kernel is
# built the same way).  --scenarios: a subset (for development; its report
# goes to the results dir, not docs/; no cost boots unless the subset
# names overhead).  --base-kernel: the unpatched kernel for the cost
# comparison (default: tools/bench/base-kernel.sh builds it with
# tools/vm/cost.config).  --distro-kernel: the patched cost kernel
# configured as distributions configure the block layer (wbt on,
# tools/vm/cost-distro.config; default: built into $CACHE/build-cost-distro).
# --timeout: host seconds per placement boot (default twice the estimate,
# plus 10 minutes; a boot beside other boots takes longer).
# Results (every fio JSON) stay in $CACHE/bench/<timestamp> unless --out.
set -eu
# shellcheck source-path=SCRIPTDIR source=../common.sh
. "$(dirname "$0")/../common.sh"
# shellcheck source-path=SCRIPTDIR source=common.sh
. "$TOP/tools/bench/common.sh"

usage() {
	sed -n '3,/^set -eu/{/^set/d;s/^# \{0,1\}//;p}' "$0" >&2
	exit 2
}

boots=3 parallel=$(nproc) rounds=1 iodepth='' runtime=3 shift_s=4 moves=8 base=auto docs=1 out='' quick='' scens='' realtime='' ckernel=''
tmo=''
distro=auto
kernel=$BUILD/arch/x86/boot/bzImage
while [ $# -gt 0 ]; do
	case "$1" in
	--quick) quick=1 boots=1 rounds=1 runtime=2 shift_s=3 moves=2 base=none distro=none ;;
	--boots) boots=${2:?}; shift ;;
	--parallel) parallel=${2:?}; shift ;;
	--rounds) rounds=${2:?}; shift ;;
	--runtime) runtime=${2:?}; shift ;;
	--iodepth) iodepth=${2:?}; shift ;;
	--scenarios) scens=${2:?}; shift ;;
	--realtime) realtime=1 ;;
	--kernel) kernel=${2:?}; shift ;;
	--cost-kernel) ckernel=${2:?}; shift ;;
	--base-kernel) base=${2:?}; shift ;;
	--distro-kernel) distro=${2:?}; shift ;;
	--timeout) tmo=${2:?}; shift ;;
	--no-docs) docs= ;;
	--out) out=${2:?}; shift ;;
	*) usage ;;
	esac
	shift
done
need jq awk gnuplot qemu-system-x86_64 fio
[ -f "$kernel" ] || die "no test kernel at $kernel: run 'make kernel'"
cost=1
[ -z "$scens" ] || grep -qw overhead <<< "$scens" || cost=''
if [ -n "$cost" ] && [ -z "$ckernel" ]; then
	step "building the cost kernel (tools/vm/cost.config) in $CACHE/build-cost"
	"$TOP/tools/kernel.sh" "$CACHE/build-cost" "$TOP/tools/vm/cost.config" >&2 ||
		die "cost kernel build failed"
	ckernel=$CACHE/build-cost/arch/x86/boot/bzImage
fi
# the base kernel is only booted for the cost: no cold build without it
[ -n "$cost" ] || base=none
if [ "$base" = auto ]; then
	step "building the unpatched base kernel (tools/bench/base-kernel.sh)"
	base=$("$TOP/tools/bench/base-kernel.sh" "$CACHE/build-base-cost" "$TOP/tools/vm/cost.config") ||
		die "base kernel build failed"
fi
[ "$base" != none ] || base=''
[ -z "$base" ] || [ -f "$base" ] || die "no base kernel at $base"
[ -n "$cost" ] || distro=none
if [ "$distro" = auto ]; then
	step "building the distribution-like cost kernel (tools/vm/cost-distro.config) in $CACHE/build-cost-distro"
	"$TOP/tools/kernel.sh" "$CACHE/build-cost-distro" "$TOP/tools/vm/cost.config" \
		"$TOP/tools/vm/cost-distro.config" >&2 || die "distribution-like cost kernel build failed"
	distro=$CACHE/build-cost-distro/arch/x86/boot/bzImage
fi
[ "$distro" != none ] || distro=''
[ -z "$distro" ] || [ -f "$distro" ] || die "no distribution-like cost kernel at $distro"
[ -n "$out" ] || out=$CACHE/bench/$(date +%Y%m%d-%H%M%S)${quick:+-quick}
mkdir -p "$out"
out=$(cd "$out" && pwd)
# our own copy: other jobs (make check) rebuild $BUILD at other revisions
cp -p "$kernel" "$out/bzImage"
given=$kernel
kernel=$out/bzImage
[ -z "$cost" ] || cp -p "$ckernel" "$out/bzImage-cost"
[ -z "$base" ] || cp -p "$base" "$out/bzImage-base"
[ -z "$distro" ] || cp -p "$distro" "$out/bzImage-distro"
cmdline="tools/bench/bench.sh${quick:+ --quick} --boots $boots --rounds $rounds --runtime $runtime"
[ -z "$iodepth" ] || cmdline="$cmdline --iodepth $iodepth"
[ -z "$scens" ] || cmdline="$cmdline --scenarios $(printf %q "$scens")"
[ -z "$realtime" ] || cmdline="$cmdline --realtime"
[ "$given" = "$BUILD/arch/x86/boot/bzImage" ] || cmdline="$cmdline --kernel $given"
[ -z "$base" ] || cmdline="$cmdline --base-kernel $base"
[ -z "$distro" ] || cmdline="$cmdline --distro-kernel $distro"
[ -z "$cost" ] || cmdline="$cmdline --cost-kernel $ckernel"
# appended: a run may be completed by a second call with the same --out
echo "$cmdline" >> "$out/command"
{
	echo "repo $(git -C "$TOP" describe --always --dirty 2>/dev/null || echo unknown)"
	echo "tree $(git -C "$TREE" log -1 --format='%h %s' 2>/dev/null || echo unknown)"
	echo "bzimage $(date -u -r "$kernel" '+%Y-%m-%d %H:%M UTC') $(sha256sum < "$kernel" | cut -c1-12)"
	[ -z "$cost" ] || echo "cost_bzimage $(sha256sum < "$out/bzImage-cost" | cut -c1-12) (tools/vm/cost.config)"
	[ -z "$distro" ] || echo "distro_bzimage $(sha256sum < "$out/bzImage-distro" | cut -c1-12) (tools/vm/cost.config, cost-distro.config)"
} > "$out/source"

# guest RUNDIR KERNEL TIMEOUT [RUN.SH OPTION...] [VAR=VALUE...]: one boot
# running bench-guest.sh with these settings (run.sh -e).
guest() {
	local rd=$1 k=$2 tmo=$3 rc=0 fpid v
	local envs=(-e BENCH_ROUNDS="$rounds" -e BENCH_RUNTIME="$runtime" -e BENCH_SHIFT="$shift_s" -e BENCH_MOVES="$moves")
	[ -z "$iodepth" ] || envs+=(-e BENCH_IODEPTH="$iodepth")
	shift 3
	while [ $# -gt 0 ] && [ "${1#-}" != "$1" ]; do
		envs+=("$1")
		shift
	done
	for v in "$@"; do
		envs+=(-e "$v")
	done
	mkdir -p "$rd/results"
	: > "$rd/results/progress"
	rm -f "$rd/results/progress.stop"
	follow "$rd/results/progress" &
	fpid=$!
	"$TOP/tools/vm/run.sh" -q -k "$k" -t "$tmo" -r "$rd" "${envs[@]}" -- \
		"$TOP/tools/bench/bench-guest.sh" || rc=$?
	touch "$rd/results/progress.stop"
	wait "$fpid" || true
	return "$rc"
}

# merge DIR BOOTDIR...: the boots' results as the rounds of one set, in
# DIR/results, for report.sh: a scenario's round r of the b-th boot that
# ran it becomes its round (b - 1) * rounds + r
merge() {
	local dest=$1/results first=$2 b r k=0 d s f
	local -A nr=()
	shift
	rm -rf "$dest"
	mkdir -p "$dest"
	for b in "$@"; do
		for r in $(seq "$rounds"); do
			for d in "$b"/results/*/; do
				s=$(basename "$d")
				[ -f "$d/policies" ] || continue
				nr[$s]=$((${nr[$s]:-0} + 1))
				k=$((k > nr[$s] ? k : nr[$s]))
				mkdir -p "$dest/$s"
				for f in "$d"/*; do
					case "${f##*/}" in
					r"$r"-*) cp -p "$f" "$dest/$s/r${nr[$s]}-${f##*/r"$r"-}" ;;
					r[0-9]*) ;;
					*) [ -e "$dest/$s/${f##*/}" ] || cp -p "$f" "$dest/$s/" ;;
					esac
				done
			done
		done
	done
	sed "s/^rounds .*/rounds $k/" "$first/results/meta" > "$dest/meta"
	printf '%s\n' "$@" > "$dest/boots"
}

all="symmetric asym2 asym20 asym20-first fabric shifting bwlimit mixed bssplit"
all="$all qd1-slow-first qd1-write qd1-fsync three-paths four-paths eight-paths"
all="$all two-namespaces tiobench numa4 numa4-equal"
# the numa4 scenarios boot 4 vCPUs on 4 fake NUMA nodes, the others 2 on 2
main_scens=$(tr ' ' '\n' <<< "${scens:-$all}" | grep -vx 'overhead\|numa4.*' | tr '\n' ' ' || true)
numa_scens=$(tr ' ' '\n' <<< "${scens:-$all}" | grep -x 'numa4.*' | tr '\n' ' ' || true)
# one run is about runtime + ramp + 3 s of guest time, and a guest second
# takes about 4 host seconds on this clock (6 with 4 vCPUs); shifting as
# long as its moves (shifting_move_us), some scenarios at least
# scen_min_s (as in bench-guest.sh's scen_runtime())
n=$(wc -w <<< "$main_scens")
n4=$(wc -w <<< "$numa_scens")
long=0
for s in $main_scens; do
	m=$(scen_min_s "$s")
	[ "$m" -le "$runtime" ] || long=$((long + 5 * (m - runtime)))
done
long=$((long + 5 * ($(shifting_move_us $((moves + 1)) "$shift_s" "$moves") / 1000000 + 3)))
est=$((((n * 5 * (runtime + 4) + long) * rounds + 10 * n + 30) * 4 * boots / parallel))
[ "$n4" = 0 ] || est=$((est + ((n4 * 5 * (runtime + 4)) * rounds + 10 * n4 + 30) * 6 * boots / parallel))
# a cost boot: 12 runs, about 3 host seconds per guest second
cost_est=$((3 * (12 * (runtime + 5) + 100)))
nk=3
[ -n "$distro" ] || nk=2
[ -z "$cost" ] || est=$((est + boots * cost_est * nk * 3 / 4 / parallel))
[ -z "$realtime" ] || est=$((est + n * 5 * 13 + 300))
step "bench: $boots boot(s), ${runtime}s runs, expect about $((est / 60)) min; results in $out"
# boot DESC DIR KERNEL TIMEOUT [ARG...]: a guest() boot in the background,
# at most $parallel at once; a failed one is listed in $out/failed.  On the
# instruction clock boots side by side measure what they measure alone.
boot() {
	local desc=$1 dir=$2
	shift 2
	while [ "$(jobs -rp | wc -l)" -ge "$parallel" ]; do
		wait -n || true
	done
	step "$desc"
	(guest "$dir" "$@" || echo "$desc: see $dir/console.log" >> "$out/failed") &
}
rm -f "$out/failed"
tmo=${tmo:-$((est * 2 + 600))}
if [ -n "$main_scens" ]; then
	for b in $(seq "$boots"); do
		boot "placement (-icount, 2 vCPUs), boot $b of $boots" "$out/main/$b" \
			"$kernel" "$tmo" -d BENCH_SCENARIOS="$main_scens"
	done
fi
if [ -n "$numa_scens" ]; then
	for b in $(seq "$boots"); do
		boot "placement (-icount, 4 vCPUs, 4 NUMA nodes), boot $b of $boots" "$out/numa4/$b" \
			"$kernel" "$tmo" -d -c4 -anuma=fake=4 BENCH_SCENARIOS="$numa_scens"
	done
fi
if [ -n "$cost" ]; then
	# deterministic clock, one vCPU; boot-to-boot variation is part of the
	# spread: per round a boot of each kernel
	for r in $(seq "$boots"); do
		boot "cost (-icount, 1 vCPU), patched kernel, boot $r of $boots" "$out/patched/$r" \
			"$out/bzImage-cost" $((cost_est * 3)) -d -c1 BENCH_ROUNDS=1 \
			BENCH_SCENARIOS="overhead overhead4 overhead8" \
			BENCH_POLICIES="numa round-robin queue-depth latency"
		[ -z "$distro" ] ||
			boot "cost (-icount, 1 vCPU), distribution-like patched kernel, boot $r of $boots" \
				"$out/distro/$r" "$out/bzImage-distro" $((cost_est * 3)) -d -c1 BENCH_ROUNDS=1 \
				BENCH_SCENARIOS="overhead overhead4 overhead8" \
				BENCH_POLICIES="numa round-robin queue-depth latency"
		[ -z "$base" ] ||
			boot "cost (-icount, 1 vCPU), base kernel, boot $r of $boots" "$out/base/$r" \
				"$out/bzImage-base" $((cost_est * 3)) -d -c1 BENCH_ROUNDS=1 \
				BENCH_SCENARIOS=overhead BENCH_POLICIES=numa
	done
fi
wait
[ ! -s "$out/failed" ] || die "guest runs failed: $(paste -sd ';' "$out/failed")"
if [ -n "$main_scens$numa_scens" ]; then
	# the boots of this call and of earlier calls into the same --out
	# (a second call with main scenarios only keeps numa4's, and so on)
	bdirs=()
	for b in $(seq "$boots"); do
		for d in "$out/main/$b" "$out/numa4/$b"; do
			[ ! -d "$d/results" ] || bdirs+=("$d")
		done
	done
	grep -qx latency "${bdirs[0]}"/results/*/policies 2>/dev/null ||
		die "the test kernel does not offer the latency iopolicy (rebuilt by 'make check'? run 'make kernel')"
	merge "$out/main" "${bdirs[@]}"
	if [ -n "$main_scens" ] && [ -n "$realtime" ]; then
		# alone: real time is what host load moves
		step "placement, real-time cross-check (TCG real-time clock), 1 boot"
		guest "$out/realtime" "$kernel" "$tmo" BENCH_SCENARIOS="$main_scens" \
			BENCH_ROUNDS=1 BENCH_RUNTIME=8 BENCH_SHIFT=10 BENCH_MOVES=2 ||
			die "guest run failed; see $out/realtime/console.log"
	fi
fi
if [ -n "$docs" ] && [ -n "$scens" ]; then
	# a subset does not replace the repository's report
	"$TOP/tools/bench/report.sh" "$out" "$out/docs"
	step "wrote $out/docs/benchmarks.md"
elif [ -n "$docs" ]; then
	"$TOP/tools/bench/report.sh" "$out" "$TOP/docs"
	step "wrote docs/benchmarks.md and docs/bench-*.png from $out"
fi
step "bench done in $((($(date +%s) - START_S) / 60)) min; results in $out"
