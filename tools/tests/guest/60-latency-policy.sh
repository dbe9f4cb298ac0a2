#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The latency iopolicy: accepted by the subsystem attribute and the
# nvme_core.iopolicy module parameter, near-misses refused with the policy
# unchanged; switching to latency attaches the estimator (rqos/clat) to
# every path, a path connected later gets one too, switching away removes
# them.  Under latency each path's latency file has one line,
# "read <us|-> write <us|-> inflight <n> <state>": after 2 s of reads
# there is a read estimate on both paths, its state was fresh on the path
# that carried most of them while they ran, and the in-flight count is 0
# once idle.  The read estimate of a path follows a delay added to it
# (+5 ms each way: up by 5000 us or more, above the other path's, each
# measured while it carries the reads).  The file is empty under
# round-robin, and queue_depth counts under queue-depth only, as upstream.
DESCRIPTION="latency is selectable, attaches the estimator and shows it in the per-path latency file"
QUICK=1
set -u
# shellcheck source-path=SCRIPTDIR source=../../vm/lib.sh
. "$(dirname "$0")/../../vm/lib.sh"

param=/sys/module/nvme_core/parameters/iopolicy
tap_plan 24
nvlat_setup tcp tcp || tap_bail "setup failed"
trap 'printf numa > $param; nvlat_teardown' EXIT
tmp=$(nvlat_tmpdir policy)

# module parameter
old=$(cat "$param")
tap_ok "module parameter accepts latency" sh -c "printf latency > $param"
tap_is "$(cat "$param")" latency "module parameter reads back latency"
bad=0
for s in $'\n' " " "latenc" "latencyy" "Latency" "latency latency" "$(printf 'lat\001ency')" \
	"$(head -c 4000 /dev/zero | tr '\0' l)"; do
	if (printf '%s' "$s" > "$param") 2>/dev/null; then
		tap_diag "module parameter accepted '$s'"
		bad=1
	fi
done
tap_result "$bad" "module parameter refuses near-misses"
tap_is "$(cat "$param")" latency "module parameter unchanged after refusals"
printf '%s' "$old" > "$param"

# subsystem attribute and the estimator's lifetime
tap_ok "iopolicy latency accepted" nvlat_iopolicy_set latency
tap_is "$(nvlat_iopolicy_get)" latency "iopolicy reads back latency"
tap_ok "estimator attached to path 1" nvlat_wait 5 nvlat_clat_attached 1
tap_ok "estimator attached to path 2" nvlat_wait 5 nvlat_clat_attached 2
p1=/sys/block/$(nvlat_path_disk 1)
tap_ok "the latency file counts requests in flight under latency" \
	eval 'nvlat_lat_inflight 1 | grep -qx "[0-9][0-9]*"'
tap_is "$(cat "$p1/queue_depth")" "" "queue_depth is empty under latency"

# lat_ok ID: the latency file of path ID is one line,
# "read <us|-> write <us|-> inflight <n> <state>"
lat_ok() {
	local f
	f=$(nvlat_lat_file "$1") || return
	awk '!/^read ([0-9]+|-) write ([0-9]+|-) inflight [0-9]+ (fresh|stale|backed-off|silent|none)$/ { bad = 1 }
		END { exit bad || NR != 1 }' "$f"
}
# idle ID: the latency file of path ID counts 0 in flight
idle() { [ "$(nvlat_lat_field "$1" inflight)" = 0 ]; }
a=$(nvlat_ios_snapshot)
nvlat_fio "$tmp/f.json" --filename="/dev/$NVLAT_HEAD" --rw=randread \
	--cpus_allowed=0 --runtime=2 &
fio=$!
# the states while the reads run: 200 ms after its last sample a path is
# stale, and on a starved debug guest that is a few forks, as fio's start
# can be a second
fresh=()
while kill -0 "$fio" 2> /dev/null; do
	for id in 1 2; do
		[ "$(nvlat_lat_field "$id" state)" != fresh ] || fresh[id]=fresh
	done
	nvlat_nap 0.1
done
wait "$fio"
b=$(nvlat_ios_snapshot)
busy=$(nvlat_ios_delta "$a" "$b" | sort -k2,2nr | awk 'NR == 1 { print $1 }')
for id in 1 2; do
	tap_diag "path $id latency after 2 s of reads from CPU 0:"
	sed 's/^/#   /' "$(nvlat_lat_file "$id")"
done
lat_ok 1 && lat_ok 2
tap_result $? "the latency file: one line in its format, on both paths"
r1=$(nvlat_lat_field 1 read) r2=$(nvlat_lat_field 2 read)
grep -qx '[1-9][0-9]*' <<< "$r1" && grep -qx '[1-9][0-9]*' <<< "$r2"
tap_result $? "a read estimate on both paths ($r1 and $r2 us)"
tap_is "${fresh[${busy:-1}]:-}" fresh \
	"fresh, while the reads ran, on the path that carried most (path $busy)"
tap_ok "no request in flight once idle" nvlat_wait 5 eval 'idle 1 && idle 2'
bad=0
for s in "latencyx" "latenc" " latency x" " "; do
	nvlat_iopolicy_set "$s" && { tap_diag "accepted '$s'"; bad=1; }
done
tap_result "$bad" "iopolicy attribute refuses near-misses of latency"
tap_is "$(nvlat_iopolicy_get)" latency "iopolicy unchanged after refusals"

# the read estimate follows a delay on path 2.  Each path is measured
# while it carries the reads (the other non-optimized): a path outside the
# band gets only probes at one request in flight, which on a slow guest
# can read as much as its estimate at load did before the delay.
# reads_on ID S: S seconds of reads at iodepth 4 with only path ID optimized
reads_on() {
	nvlat_ana_set $((3 - $1)) non-optimized &&
		nvlat_fio "$tmp/r$1.json" --filename="/dev/$NVLAT_HEAD" --rw=randread \
			--iodepth=4 --cpus_allowed=0 --runtime="$2" &&
		nvlat_ana_set $((3 - $1)) optimized
}
reads_on 2 2
before=$(nvlat_lat_field 2 read)
nvlat_netem_set "$(nvlat_tcp_port 2)" delay 5ms
reads_on 2 4
after=$(nvlat_lat_field 2 read)
reads_on 1 2
r1=$(nvlat_lat_field 1 read)
nvlat_netem_del "$(nvlat_tcp_port 2)"
tap_diag "path 2 read estimate before '$before' us, with 5 ms more each way '$after' us"
case "$before$after" in *[!0-9]*|'') false ;; *) [ "$after" -ge $((before + 5000)) ] ;; esac
tap_result $? "path 2's read estimate rises by 5000 us or more with 10 ms more round trip"
case "$r1$after" in *[!0-9]*|'') false ;; *) [ "$r1" -lt "$after" ] ;; esac
tap_result $? "path 1's ($r1 us) stays below path 2's"

# a path that appears while the policy is latency
nvlat_port_add 3 tcp && nvlat_connect 3 tcp && nvlat_wait 30 nvlat_paths_ready
tap_ok "path connected later gets an estimator" nvlat_wait 10 nvlat_clat_attached 3

nvlat_iopolicy_set round-robin
gone() { ! nvlat_clat_attached 1 && ! nvlat_clat_attached 2 && ! nvlat_clat_attached 3; }
tap_ok "switching to round-robin detaches every estimator" nvlat_wait 5 gone
tap_is "$(cat "/sys/block/$(nvlat_path_disk 1)/queue_depth")" "" \
	"queue_depth is empty under round-robin"
tap_is "$(cat "$p1/latency")" "" "the latency file is empty under round-robin"
nvlat_iopolicy_set latency
all() { nvlat_clat_attached 1 && nvlat_clat_attached 2 && nvlat_clat_attached 3; }
tap_ok "switching back attaches them again" nvlat_wait 5 all
nvlat_iopolicy_set numa
tap_ok "and numa detaches them" nvlat_wait 5 gone
tap_done
