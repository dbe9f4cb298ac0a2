# SPDX-License-Identifier: GPL-2.0
# Helpers of tools/bench and tools/demo.sh (scen_min_s also in the guest,
# for bench-guest.sh).  Not executable.
# shellcheck shell=bash

# fio_json FILE: fio's JSON output without the lines fio printed before it
# (warnings); the host-side twin of nvlat_fio_json in tools/vm/lib.sh.
fio_json() { sed -n '/^{/,$p' "$1"; }

# follow FILE [STOP]: print each new line of FILE as a progress step
# (step() of tools/common.sh) until STOP (FILE.stop) exists.  A console
# log as FILE: only the lines that begin "# ", the guest scripts' progress.
follow() {
	local seen=0 n l stop=${2:-$1.stop}
	while :; do
		n=$({ wc -l < "$1"; } 2> /dev/null) || n=$seen
		if [ "$n" -gt "$seen" ]; then
			sed -n "$((seen + 1)),${n}p" "$1" | tr -d '\r' | {
				if [ "${1##*/}" = console.log ]; then sed -n 's/^# //p'; else cat; fi
			} | while IFS= read -r l; do
				step "guest: $l"
			done
			seen=$n
		fi
		[ -e "$stop" ] && break
		sleep 1
	done
}

# share_steps SAMPLES STEP_S: from nvlat_sample_ios's SAMPLES, "TIME
# PERCENT" per step of STEP_S seconds: the step's midpoint and path 1's
# share of the I/Os paths 1 and 2 completed in it.
share_steps() {
	awk -v step="$2" '{ t = $1; a = $2; b = $3
		if (NR == 1 || t >= t0 + step) {
			if (NR > 1 && a + b - a0 - b0 > 0)
				printf "%.2f %.1f\n", (t + t0) / 2, 100 * (a - a0) / (a + b - a0 - b0)
			t0 = t; a0 = a; b0 = b
		} }' "$1"
}

# shifting_move_us K SHIFT_S MOVES: microseconds from the start of
# `shifting`'s sampling to its K-th delay move (K = MOVES + 1: to the end
# of sampling).  The first comes after SHIFT_S s and each spacing is 0.1 s
# longer than the one before, so that the moves meet the idle path's
# backed-off probes (every 800 ms under latency) at MOVES phases, not one.
shifting_move_us() {
	local k=$1
	[ "$k" -le "$3" ] || k=$(($3 + 1))
	echo $((k * $2 * 1000000 + 50000 * k * (k - 1)))
}

# scen_min_s NAME: the shortest fio runtime in s of bench scenario NAME, 0
# for none.  The iodepth-1 scenarios run at least 8 s: latency probes the
# idle slow path up to every 800 ms (4 ms each), and 2 s hold 2 or 3 of
# them.  bwlimit runs at least 30 s: its 128 KiB reads complete about 230
# times a second, and the policies' queues on the two links swing over
# seconds (in 8 s runs latency read 0.975-0.990x queue-depth over 3 boots).
# symmetric runs at least 12 s: its share plot takes 0.5 s steps of the
# runtime - 2 s that it samples, and 3 s runs leave it one.
scen_min_s() {
	case "$1" in
	symmetric) echo 12 ;;
	qd1-*) echo 8 ;;
	bwlimit) echo 30 ;;
	*) echo 0 ;;
	esac
}
