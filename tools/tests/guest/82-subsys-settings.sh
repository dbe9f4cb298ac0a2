#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The latency iopolicy's settings per subsystem, next to iopolicy:
# latency_window_us and latency_band_pct read 50000 and 25 by default and
# exist under every policy; junk, out-of-range and overflowing writes fail
# with EINVAL and change nothing.  A window written reaches every path's
# estimator (debugfs win_nsec) at once, and again after the estimators are
# re-attached (a policy switch away and back) and on a path connected
# later.  latency_read_us of a path follows a delay added to it.
DESCRIPTION="latency_window_us and latency_band_pct per subsystem"
QUICK=1
set -u
# shellcheck source-path=SCRIPTDIR source=../../vm/lib.sh
. "$(dirname "$0")/../../vm/lib.sh"

tap_plan 15
nvlat_setup tcp tcp || tap_bail "setup failed"
trap 'nvlat_netem_clear; nvlat_teardown' EXIT
s=/sys/class/nvme-subsystem/$NVLAT_SUBSYS
win=$s/latency_window_us band=$s/latency_band_pct

tap_is "$(cat "$win")" 50000 "latency_window_us is 50000 by default"
tap_is "$(cat "$band")" 25 "latency_band_pct is 25 by default"

# refused FILE VALUE...: every write fails with EINVAL, FILE keeps its value
refused() {
	local f=$1 old v err rc=0
	shift
	old=$(cat "$f")
	for v in "$@"; do
		err=$( { printf '%s' "$v" > "$f"; } 2>&1) &&
			{ tap_diag "${f##*/} accepted '$v'"; rc=1; continue; }
		case "$err" in
		*"Invalid argument"*) ;;
		*) tap_diag "${f##*/} refused '$v' with: $err"; rc=1 ;;
		esac
	done
	[ "$(cat "$f")" = "$old" ] || { tap_diag "${f##*/} changed to $(cat "$f")"; rc=1; }
	return "$rc"
}
junk=(abc -1 $'\n' " " 1x 0x10 4294967296 99999999999999999999 "$(printf '\001')")
tap_ok "latency_window_us refuses junk, 999 and 1000001 (EINVAL, unchanged)" \
	refused "$win" "${junk[@]}" 0 999 1000001
tap_ok "latency_band_pct refuses junk and 401 (EINVAL, unchanged)" \
	refused "$band" "${junk[@]}" 401

# under queue-depth the settings are kept for later
nvlat_iopolicy_set queue-depth
# takes FILE VALUE...: each VALUE is written and read back
takes() {
	local f=$1 v
	shift
	for v in "$@"; do
		printf '%s' "$v" > "$f" && [ "$(cat "$f")" = "$v" ] || return
	done
}
tap_ok "latency_window_us takes 20000 under queue-depth" takes "$win" 20000
tap_ok "latency_band_pct takes 0, 400 and 10" takes "$band" 0 400 10

# win_ns_is ID NS: the estimator of path ID runs windows of NS ns
win_ns_is() { [ "$(cat "$(nvlat_clat_dir "$1")/win_nsec" 2>/dev/null)" = "$2" ]; }

nvlat_iopolicy_set latency
tap_ok "attached estimators take the subsystem's window (path 1)" nvlat_wait 5 win_ns_is 1 20000000
tap_ok "attached estimators take the subsystem's window (path 2)" nvlat_wait 5 win_ns_is 2 20000000
printf 30000 > "$win"
both_win_ns_are() { win_ns_is 1 "$1" && win_ns_is 2 "$1"; }
tap_ok "a window written under latency reaches both paths at once" both_win_ns_are 30000000

nvlat_iopolicy_set round-robin
nvlat_wait 5 eval '! nvlat_clat_attached 1' 
nvlat_iopolicy_set latency
tap_ok "re-attached after round-robin: window kept (path 1)" nvlat_wait 5 win_ns_is 1 30000000
tap_ok "re-attached after round-robin: window kept (path 2)" nvlat_wait 5 win_ns_is 2 30000000
tap_is "$(cat "$win") $(cat "$band")" "30000 10" "settings read back after the switches"

nvlat_port_add 3 tcp && nvlat_connect 3 tcp
tap_ok "a path connected later takes the window" nvlat_wait 10 win_ns_is 3 30000000

# latency_read_us follows a delay on path 2 (node 0's figure, reads from CPU 0)
tmp=$(nvlat_tmpdir settings)
p2=/sys/block/$(nvlat_path_disk 2)/latency_read_us
nvlat_fio "$tmp/a.json" --filename="/dev/$NVLAT_HEAD" --rw=randread --iodepth=4 \
	--cpus_allowed=0 --runtime=2
before=$(awk '{ print $1 }' "$p2")
nvlat_netem_set "$(nvlat_tcp_port 2)" delay 5ms
nvlat_fio "$tmp/b.json" --filename="/dev/$NVLAT_HEAD" --rw=randread --iodepth=4 \
	--cpus_allowed=0 --runtime=4
after=$(awk '{ print $1 }' "$p2")
tap_diag "path 2 latency_read_us before '$before', with 5 ms more each way '$after'"
case "$before$after" in *[!0-9]*|'') false ;; *) [ "$after" -ge $((before + 5000)) ] ;; esac
tap_result $? "latency_read_us of path 2 rises by 5000 us or more with 10 ms more round trip"
p1=$(awk '{ print $1 }' "/sys/block/$(nvlat_path_disk 1)/latency_read_us")
case "$p1$after" in *[!0-9]*|'') false ;; *) [ "$p1" -lt "$after" ] ;; esac
tap_result $? "path 1 ($p1 us) stays below path 2"
tap_done
