#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Guest half of tools/bench/bench.sh: every scenario under every policy,
# interleaved (numa rr qd latency oracle numa rr ...) for BENCH_ROUNDS
# rounds.  The oracle is numa with the slow path's nvmet port ANA
# inaccessible, so only the best path is usable.
#
# Environment: BENCH_OUT (results dir), BENCH_ROUNDS (3), BENCH_RUNTIME (8 s),
# BENCH_RAMP (1 s), BENCH_SHIFT (10 s to the first delay move of shifting,
# each next spacing 0.1 s longer), BENCH_MOVES (2; rounded up to even, so
# that shifting ends as it started), BENCH_IODEPTH
# (per job of the 4 KiB scenarios), BENCH_LOCAL (see below), BENCH_FLOORS
# (0: no scenario runs longer than BENCH_RUNTIME, see scen_min_s),
# BENCH_SCENARIOS, BENCH_POLICIES.  Per
# run, in $BENCH_OUT/SCENARIO/: rROUND-POLICY.json (fio), .stat (per path
# "IOS SECTORS" before, then after), .win (two "TIME_US IDLE_CS IOS" lines
# inside the run, 1 s after the ramp and about 1 s before the end, counted
# from the first I/O: the clock, the CPUs' summed idle time from
# /proc/uptime and the I/Os completed on the paths, for the CPU time per
# I/O), for
# shifting and symmetric .samples (as nvlat_sample_ios), and for shifting
# .moves ("TIME NEWFASTPATH").
# Progress lines go to $BENCH_OUT/progress.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source-path=SCRIPTDIR source=../vm/lib.sh
. "$top/tools/vm/lib.sh"
# shellcheck source-path=SCRIPTDIR source=common.sh
. "$top/tools/bench/common.sh"

out=${BENCH_OUT:-${NVLAT_WORK:?}/results}
rounds=${BENCH_ROUNDS:-3}
rt=${BENCH_RUNTIME:-8}
ramp=${BENCH_RAMP:-1}
shift_s=${BENCH_SHIFT:-10}
moves=${BENCH_MOVES:-2}
moves=$((moves + moves % 2))
# shifting's move times in us (index MOVES + 1: the end of its sampling),
# taken here so that the mover forks nothing
move_us=(0)
for ((k = 1; k <= moves + 1; k++)); do
	move_us+=("$(shifting_move_us "$k" "$shift_s" "$moves")")
done
# (BENCH_SCENARIOS empty: all)
scen_list=${BENCH_SCENARIOS:-symmetric asym2 asym20 asym20-first fabric shifting bwlimit rwsplit mixed bssplit qd1-slow-first qd1-write qd1-fsync three-paths four-paths eight-paths two-namespaces tiobench overhead}
want=${BENCH_POLICIES:-numa round-robin queue-depth latency oracle}
mkdir -p "$out"
# BENCH_LOCAL=1: the results stay in the guest's memory until the runs
# end, then go to BENCH_OUT (on the instruction clock each write to the 9p
# share lets the guest clock jump by whatever the host takes to serve it,
# so a run that writes its samples there differs from one boot to the
# next); the progress lines still go there, between runs.
share=$out
[ "${BENCH_LOCAL:-}" != 1 ] || out=$(mktemp -d /tmp/bench.XXXX)
progress() { echo "$*" >> "$share/progress"; echo "# $*"; }
# keep: the results gathered, in the share
keep() { [ "$out" = "$share" ] || cp -a "$out/." "$share/"; }
fail() { progress "FAILED: $*"; keep; exit 1; }

# Delays.  On the instruction clock (run.sh -d) a loop path takes about
# 12 us and a tcp path about 40 us per 4 KiB read, as NVMe-oF hardware
# does, so the delays are a fabric's: 50 us (a path through another
# switch), 250 us, 1 ms and 2 ms (a congested or distant link), and links
# of 200 and 50 Mbit/s.  On TCG's real-time clock a 4 KiB I/O takes about
# 1.3 ms, so the delays are 10 to 20 times longer (1 ms, 2.5 ms, 10 ms; 5
# ms for qd1) and the links slower (24 and 6 Mbit/s).
if [ -n "${NVLAT_ICOUNT:-}" ]; then
	clock=instructions
	d_near=50us d_mid=250us d_far=1ms d_qd1=2ms bw_fast=200mbit bw_slow=50mbit
	qd=2
else
	clock=real-time
	d_near=1ms d_mid=2500us d_far=10ms d_qd1=5ms bw_fast=24mbit bw_slow=6mbit
	qd=8
fi
# Requests in flight per job of the 4 KiB scenarios.  On the instruction
# clock the nvmet target shares the guest's two CPUs, and a tcp I/O costs
# about 100 us of CPU at both ends: two equal tcp paths read about 20000
# IOPS at any depth.  At 16 in flight a read then waits 800 us for the
# CPUs and a path's extra 100-500 us hardly shows; at 4 in flight (2 per
# job) it waits 200 us.
qd=${BENCH_IODEPTH:-$qd}

# 4 KiB random read, one job pinned to each CPU, qd in flight per job
ncpu=$(nproc)
rr4k=(--name=nvlat --group_reporting --rw=randread --bs=4k --numjobs="$ncpu"
	"--cpus_allowed=0-$((ncpu - 1))" --cpus_allowed_policy=split "--iodepth=$qd")

# A single job stays on CPU 0.  Unpinned, it moves between the guest's two
# NUMA nodes as the scheduler likes, differently in every boot; the
# latency iopolicy keeps its estimates and probes per node, so each move
# costs it a round of probes (at iodepth 1 with a 4 ms path, qd1-fsync
# read 0.944-0.975x the oracle over 6 unpinned boots).
pin1=(--cpus_allowed=0)

# scen_setup NAME: target, netem, and the globals slow (ports of the slow
# paths, for the oracle), nsid (the namespace whose paths are measured and
# made inaccessible for the oracle), args (fio arguments after the common
# ones; the measured job is the first not named load or large).
scen_setup() {
	local p1 p2
	p1=$(nvlat_tcp_port 1) p2=$(nvlat_tcp_port 2)
	slow=2 nsid=1 args=("${rr4k[@]}")
	case "$1" in
	symmetric) nvlat_setup tcp tcp ;;
	asym2) nvlat_setup tcp tcp && nvlat_netem_set "$p2" delay "$d_near" ;;
	asym20) nvlat_setup tcp tcp && nvlat_netem_set "$p2" delay "$d_far" ;;
	asym20-first) slow=1; nvlat_setup tcp tcp && nvlat_netem_set "$p1" delay "$d_far" ;;
	fabric) nvlat_setup loop tcp && nvlat_netem_set "$p2" delay "$d_near" ;;
	shifting)
		# both qdiscs exist before the run: a move is two quick changes
		nvlat_setup tcp tcp && nvlat_netem_set "$p1" delay 0ms &&
			nvlat_netem_set "$p2" delay "$d_mid" ;;
	bwlimit)
		args=(--name=nvlat "${pin1[@]}" --rw=read --bs=128k --iodepth=16)
		nvlat_setup tcp tcp && nvlat_netem_set "$p1" rate "$bw_fast" &&
			nvlat_netem_set "$p2" rate "$bw_slow" ;;
	rwsplit)
		# each direction has a best path: path 1's link to the target
		# is slow (writes wait, reads only behind them), path 2 has
		# +500 us of round trip; half reads, half writes
		args=(--name=nvlat "${pin1[@]}" --rw=randrw --bs=4k --iodepth=4)
		nvlat_setup tcp tcp &&
			NVLAT_NETEM_TO_TARGET=1 nvlat_netem_set "$p1" rate "$bw_slow" &&
			nvlat_netem_set "$p2" delay "$d_mid" ;;
	mixed)
		# two jobs, reported apart (no group_reporting)
		args=(--name=small --cpus_allowed=0 --rw=randread --bs=4k --iodepth=8
			--name=large --cpus_allowed=1 --rw=read --bs=128k --iodepth=8)
		nvlat_setup loop tcp && nvlat_netem_set "$p2" delay "$d_near" ;;
	bssplit)
		# sizes from 4 KiB to 512 KiB at once, as reviewers asked
		args=(--name=nvlat --group_reporting --rw=randread
			--bssplit=4k/40:16k/20:64k/20:128k/10:512k/10 --numjobs=2
			"--cpus_allowed=0,1" --cpus_allowed_policy=split "--iodepth=$qd")
		nvlat_setup tcp tcp && nvlat_netem_set "$p2" delay "$d_near" ;;
	qd1-slow-first)
		# one request at a time; queue-depth always takes path 1
		slow=1 args=(--name=nvlat "${pin1[@]}" --rw=randread --bs=4k --iodepth=1)
		nvlat_setup tcp loop && nvlat_netem_set "$p1" delay "$d_qd1" ;;
	qd1-write)
		slow=1 args=(--name=nvlat "${pin1[@]}" --rw=randwrite --bs=4k --iodepth=1)
		nvlat_setup tcp loop && nvlat_netem_set "$p1" delay "$d_qd1" ;;
	qd1-fsync)
		# a log writer: every 4 KiB write followed by a flush
		slow=1 args=(--name=nvlat "${pin1[@]}" --rw=write --bs=4k --iodepth=1 --fsync=1)
		nvlat_setup tcp loop && nvlat_netem_set "$p1" delay "$d_qd1" ;;
	two-namespaces)
		# namespace 1 (ANA group 1, inaccessible on path 2) keeps
		# controller 1 busy; namespace 2 (group 2, optimized on both)
		# reads one request at a time and is what is measured
		nsid=2
		# (its file in the guest's memory: on the instruction clock a
		# wait for the host's 9p lets the guest clock jump)
		nvlat_setup tcp tcp && nvlat_netem_set "$p2" delay "$d_mid" &&
			nvlat_ns2_add "$(nvlat_tmpdir ns2)/ns2.img" &&
			nvlat_ana_set 2 inaccessible || return
		# (each job on a CPU of its own: unpinned, the two share the
		# CPUs differently from run to run)
		args=(--name=load "--filename=/dev/$NVLAT_HEAD" --cpus_allowed=0 --rw=randread
			--bs=4k --iodepth=4
			--name=nvlat "--filename=/dev/$(nvlat_ns_head 2)" --cpus_allowed=1
			--rw=randread --bs=4k --iodepth=1) ;;
	tiobench)
		# the job the 2024 latency RFC reported (tools/tiobench.fio: four
		# stonewalled phases of RUNTIME each), on two equal tcp paths
		nvlat_setup tcp tcp || return
		export FILENAME=/dev/$NVLAT_HEAD SIZE=256m RUNTIME=$rt NUMJOBS=2
		args=(--group_reporting "$top/tools/tiobench.fio") ;;
	three-paths)
		slow="1 2"
		nvlat_setup tcp tcp tcp && nvlat_netem_set "$p1" delay "$d_mid" &&
			nvlat_netem_set "$p2" delay "$d_mid" ;;
	four-paths)
		# one fast path and three slower by 50 us, 250 us and 1 ms (ten
		# times that in real time)
		slow="2 3 4"
		nvlat_setup tcp tcp tcp tcp &&
			nvlat_netem_set "$p2" delay "$d_near" &&
			nvlat_netem_set "$(nvlat_tcp_port 3)" delay "$d_mid" &&
			nvlat_netem_set "$(nvlat_tcp_port 4)" delay "$d_far" ;;
	eight-paths)
		# two fast paths, and pairs slower by 50 us, 250 us and 1 ms; the
		# oracle keeps the two fast ones
		local i d
		slow="3 4 5 6 7 8"
		nvlat_setup tcp tcp tcp tcp tcp tcp tcp tcp || return
		for i in 3 4 5 6 7 8; do
			case "$i" in 3 | 4) d=$d_near ;; 5 | 6) d=$d_mid ;; *) d=$d_far ;; esac
			nvlat_netem_set "$(nvlat_tcp_port "$i")" delay "$d" || return
		done ;;
	numa4 | numa4-equal)
		# bench.sh boots 4 vCPUs on 4 fake NUMA nodes for these: with
		# rr4k's job per CPU every node keeps estimates and probes of
		# its own
		nvlat_setup tcp tcp || return
		[ "$1" = numa4-equal ] || nvlat_netem_set "$p2" delay "$d_mid" ;;
	overhead | overhead4 | overhead8)
		# one job per CPU, on 2 (overhead), 4 or 8 loop paths
		local n=${1#overhead} paths=()
		while [ "${#paths[@]}" -lt "${n:-2}" ]; do
			paths+=(loop)
		done
		args=(--name=nvlat --group_reporting --rw=randread --bs=4k --numjobs="$ncpu"
			"--cpus_allowed=0-$((ncpu - 1))" --cpus_allowed_policy=split --iodepth=32)
		nvlat_setup "${paths[@]}" ;;
	*) nvlat_err "unknown scenario $1" ;;
	esac
}

# snap: "IOS SECTORS" (reads + writes) per path, in port order; no
# subprocess, so it is quick under TCG.
snap() {
	local d a c e g
	for d in "${NVLAT_DISKS[@]}"; do
		read -r a _ c _ e _ g _ < "/sys/block/$d/stat"
		echo "$((a + e)) $((c + g))"
	done
}

# ios: I/Os completed on the paths, in REPLY, without a subprocess
ios() {
	local d a e
	REPLY=0
	for d in "${NVLAT_DISKS[@]}"; do
		read -r a _ _ _ e _ < "/sys/block/$d/stat"
		REPLY=$((REPLY + a + e))
	done
}

# win: "TIME_US IDLE_CS IOS" (see the top)
win() {
	local idle
	ios
	read -r _ idle < /proc/uptime
	echo "${EPOCHREALTIME/[.,]/} ${idle/./} $REPLY"
}

# io_started: wait up to 20 s for the first I/O of a run.  fio's start
# varies: seconds under TCG, and on the deterministic clock every read of
# a file through 9p lets the idle guest's clock jump to its next timer.
io_started() {
	local n0 k
	ios
	n0=$REPLY
	for ((k = 0; k < 200; k++)); do
		ios
		[ "$REPLY" = "$n0" ] || return 0
		nvlat_nap 0.1
	done
	return 1
}

# bench_fio OUT RUNTIME: fio with the common options global (before the
# first --name of args), JSON to OUT.
bench_fio() {
	fio --ioengine=libaio --direct=1 --time_based --filename="/dev/$NVLAT_HEAD" \
		--lat_percentiles=1 --runtime="$2" --ramp_time="$ramp" \
		--output-format=json --output="$1" "${args[@]}" > /dev/null
}

# policy_on POLICY / policy_off POLICY
policy_on() {
	local id
	if [ "$1" = oracle ]; then
		nvlat_iopolicy_set numa || return
		for id in $slow; do nvlat_ana_set "$id" inaccessible "$nsid" || return; done
	else
		nvlat_iopolicy_set "$1"
	fi
}
policy_off() {
	local id
	[ "$1" = oracle ] || return 0
	for id in $slow; do nvlat_ana_set "$id" optimized "$nsid" || return; done
}

# Under TCG with fio on both CPUs a fork costs up to a second, so the
# sampler and the mover of shifting fork nothing in their loops: they sleep
# by a read that times out on a fifo, and a move is one `tc -batch` of two
# `qdisc change`s (the qdiscs nvlat_netem_set created).  Both run at nice
# -10 so that they keep their timing next to fio.



# shifting_batches: $out/move1.tc moves the delay (d_mid) from path 2 to path 1,
# move2.tc back.
shifting_batches() {
	local b1 b2
	b1=$(nvlat_netem_band "$(nvlat_tcp_port 1)") || return
	b2=$(nvlat_netem_band "$(nvlat_tcp_port 2)") || return
	printf 'qdisc change dev lo parent 1:%s handle %s: netem delay %s\n' \
		"$b1" $((b1 + 100)) "$d_mid" "$b2" $((b2 + 100)) 0ms > "$out/move1.tc"
	printf 'qdisc change dev lo parent 1:%s handle %s: netem delay %s\n' \
		"$b2" $((b2 + 100)) "$d_mid" "$b1" $((b1 + 100)) 0ms > "$out/move2.tc"
}

# shifting_moves T0_US BASE POLICY: move the delay $moves times after T0_US
# (odd moves onto path 1, even ones back onto path 2; shifting_move_us
# times); "TIME NEWFASTPATH" per move to BASE.moves, TIME taken when both
# changes are done.  The oracle's ANA states follow.
shifting_moves() {
	local k m fast now
	renice -n -10 -p "$BASHPID" > /dev/null
	for ((k = 1; k <= moves; k++)); do
		while [ "${EPOCHREALTIME/[.,]/}" -lt $(($1 + move_us[k])) ]; do
			nvlat_nap 0.02
		done
		m=$((2 - k % 2))
		"$NVLAT_TC" -batch "$out/move$m.tc" || return
		now=$((${EPOCHREALTIME/[.,]/} - $1))
		fast=$((3 - m))
		printf '%d.%06d %d\n' $((now / 1000000)) $((now % 1000000)) "$fast" >> "$2.moves"
		if [ "$3" = oracle ]; then
			nvlat_ana_set "$fast" optimized && nvlat_ana_set "$m" inaccessible || return
		fi
	done
}

# shifting_s: seconds that shifting samples, one spacing past its last move
shifting_s() { echo $(((move_us[moves + 1] + 999999) / 1000000)); }

# scen_runtime NAME: fio runtime.  shifting covers the 2 s start, its
# sampling and 1 s; the others run BENCH_RUNTIME, or scen_min_s's floor if
# longer.
scen_runtime() {
	local m
	if [ "$1" = shifting ]; then
		echo $(($(shifting_s) + 3))
	else
		m=$(scen_min_s "$1")
		[ "${BENCH_FLOORS:-1}" != 0 ] || m=0
		echo $((rt > m ? rt : m))
	fi
}

run_one() { # run_one SCEN ROUND POLICY
	local base=$out/$1/r$2-$3 fio t0 rc=0 runtime
	runtime=$(scen_runtime "$1")
	# a second bench call into the same --out runs a scenario again
	rm -f "$base".*
	policy_on "$3" || fail "$1: cannot select $3"
	snap > "$base.stat"
	bench_fio "$base.json" "$runtime" &
	fio=$!
	case "$1" in
	shifting)
		# fio needs about 1.5 s to start under TCG
		sleep 2
		t0=${EPOCHREALTIME/[.,]/}
		shifting_moves "$t0" "$base" "$3" &
		(renice -n -10 -p "$BASHPID" > /dev/null
		 nvlat_sample_ios "$base.samples" "$(shifting_s)" 0.1 "$t0")
		wait $! || rc=1 ;;
	*)
		io_started || progress "$1 round $2 under $3: no I/O after 20 s"
		nvlat_nap $((ramp + 1))
		win > "$base.win"
		if [ "$1" = symmetric ]; then
			nvlat_sample_ios "$base.samples" $((runtime - 2)) 0.25
		else
			nvlat_nap $((runtime - 2))
		fi
		win >> "$base.win" ;;
	esac
	wait "$fio" || rc=1
	snap >> "$base.stat"
	policy_off "$3" || fail "$1: cannot leave $3"
	# shifting ends as it started: the delay on path 2 (and path 2 inaccessible
	# under the oracle, which policy_off undoes)
	return "$rc"
}

{
	echo "uname_r $(uname -r)"
	echo "uname_v $(uname -v)"
	echo "cmdline $(cat /proc/cmdline)"
	echo "clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
	echo "nproc $(nproc)"
	echo "cpu_nodes $(for c in /sys/devices/system/cpu/cpu[0-9]*; do
		n=$(echo "$c"/node*); echo "${c##*/}:${n##*/node}"; done | paste -sd ' ')"
	echo "mem_kb $(awk '/MemTotal/ { print $2 }' /proc/meminfo)"
	echo "fio $(fio --version)"
	echo "rounds $rounds"
	echo "runtime $rt"
	echo "ramp $ramp"
	echo "shift $shift_s"
	echo "moves $moves"
	echo "clock $clock"
	echo "d_near $d_near"
	echo "d_mid $d_mid"
	echo "d_far $d_far"
	echo "d_qd1 $d_qd1"
	echo "bw_fast $bw_fast"
	echo "bw_slow $bw_slow"
	echo "iodepth $qd"
} > "$out/meta"
case "$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)" in
*jiffies*) fail "clocksource is jiffies: latencies would come in 4 ms steps (tsc_early_khz missing from the boot line?)" ;;
esac

read -ra scens <<< "$scen_list"
n=0 total=0
for s in "${scens[@]}"; do
	mkdir -p "$out/$s"
	scen_setup "$s" || fail "setup of $s"
	[ "$s" != shifting ] || shifting_batches || fail "tc batch files"
	if [ "$nsid" = 1 ]; then
		nvlat_stat_disks
	else
		NVLAT_DISKS=()
		for id in $(nvlat_path_ids); do
			NVLAT_DISKS+=("$(nvlat_ns_disk "$nsid" "$id")") || fail "$s: no path disk"
		done
	fi
	pols=()
	for p in $want; do
		[ "$p" = oracle ] || nvlat_iopolicy_has "$p" || continue
		pols+=("$p")
	done
	case " $want " in *" latency "*)
		[[ " ${pols[*]} " == *" latency "* ]] || fail "the kernel does not offer the latency iopolicy"
	esac
	[ "$total" != 0 ] || total=$((${#scens[@]} * rounds * ${#pols[@]}))
	printf '%s\n' "${pols[@]}" > "$out/$s/policies"
	for id in $(nvlat_path_ids); do
		echo "$id $(nvlat_transport "$id") $(nvlat_ns_disk "$nsid" "$id")"
	done > "$out/$s/paths"
	echo "fio --ioengine=libaio --direct=1 --time_based" \
		"--filename=/dev/$NVLAT_HEAD --lat_percentiles=1" \
		"--runtime=$(scen_runtime "$s") --ramp_time=$ramp --output-format=json" \
		"--output=FILE ${args[*]}" > "$out/$s/fio-cmd"
	nvlat_netem_show > "$out/$s/netem" 2>&1
	# warm-up (connections, caches), so that the first policy is not penalised
	if ! nvlat_iopolicy_set round-robin || ! bench_fio "$out/$s/warmup.json" 2; then
		fail "$s: warm-up run"
	fi
	for ((r = 1; r <= rounds; r++)); do
		for p in "${pols[@]}"; do
			n=$((n + 1))
			progress "run $n/$total: $s round $r/$rounds, $p"
			run_one "$s" "$r" "$p" || fail "$s round $r under $p"
		done
	done
	nvlat_teardown || fail "teardown after $s"
done
keep || fail "cannot copy the results to $share"
progress "guest done"
