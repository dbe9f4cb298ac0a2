# SPDX-License-Identifier: GPL-2.0
# Host-side helpers of tools/bench and tools/demo.sh.  Not executable.
# shellcheck shell=bash

# fio_json FILE: fio's JSON output without the lines fio printed before it
# (warnings); the host-side twin of nvlat_fio_json in tools/vm/lib.sh.
fio_json() { sed -n '/^{/,$p' "$1"; }

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
