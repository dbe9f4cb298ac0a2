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
