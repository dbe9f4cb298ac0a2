# SPDX-License-Identifier: GPL-2.0
# Host-side helpers of tools/bench and tools/demo.sh.  Not executable.
# shellcheck shell=bash

# follow FILE: print each new line of FILE as a progress step (step() of
# tools/common.sh) until FILE.stop exists.
follow() {
	local seen=0 n l
	while :; do
		n=$(wc -l < "$1")
		if [ "$n" -gt "$seen" ]; then
			sed -n "$((seen + 1)),${n}p" "$1" | while IFS= read -r l; do
				step "guest: $l"
			done
			seen=$n
		fi
		[ -e "$1.stop" ] && break
		sleep 1
	done
}

# host_tsc_khz: the host's TSC frequency in kHz.  A TCG guest's TSC runs at
# it, and booting with tsc_early_khz= spares the guest its PIT calibration,
# which fails when the host is busy and leaves the guest on refined-jiffies
# (fio latencies in 4 ms steps, netem delays rounded to jiffies) even with
# tsc=reliable.
host_tsc_khz() {
	local mhz
	mhz=$(dmesg 2>/dev/null | sed -n -e 's/.*tsc: Refined TSC clocksource calibration: \([0-9.]*\) MHz.*/\1/p' \
		-e 's/.*tsc: Detected \([0-9.]*\) MHz.*/\1/p' | tail -n 1)
	[ -n "$mhz" ] || mhz=$(awk -F': *' '/^cpu MHz/ { print $2; exit }' /proc/cpuinfo)
	awk -v m="$mhz" 'BEGIN { if (m > 0) printf "%d\n", m * 1000 }'
}

# clock_args: run.sh arguments for a TSC clocksource in the guest
clock_args() {
	local khz
	khz=$(host_tsc_khz)
	[ -z "$khz" ] || echo "-a tsc_early_khz=$khz"
}
