#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Fault torture for the multipath head under a seeded random schedule.
#
#   torture.sh [-d SECONDS] [-s SEED]
#
# Three paths to one subsystem (port 1 loop, ports 2 and 3 tcp).  While fio
# writes with crc32c verify (three jobs, 4-128 KiB) and reads through the
# head of namespace 1, the schedule applies one operation every 0.1-1.2 s:
# iopolicy switches, tcp port unlink/relink, deleting and reconnecting the
# loop controller, ANA state changes, controller resets, netem delay
# changes, black-holing a tcp path (netem loss 100%) for 2-6 s, and
# disabling and enabling namespace 2 (read in a loop by dd).  A background
# reader keeps reading the estimator's debugfs files and the latency file
# of every path, including ones being removed.
# An operation that can make a path unusable is only applied while another
# path stays usable (a reset that finds a single usable path brings one
# back instead), so the required outcome is: no I/O error, verify
# passes, every path back at the end, in-flight counters zero when idle,
# unreclaimable slab back near its starting level (on kernels without
# KASAN; a KASAN kernel holds freed objects in quarantine, kmemleak checks
# those runs), and while a path is black-holed the head never goes 2 s
# without ending I/O (NVLAT_TORTURE_STALL_S; probes must not pile into it;
# the hole goes to the less busy tcp port).  The seed is printed first;
# the same seed replays the same schedule (timing differs).  The operations go to ops.log in the scratch
# directory; the last ones are printed on failure.
set -u
# shellcheck source-path=SCRIPTDIR source=../../vm/lib.sh
. "$(dirname "$0")/../../vm/lib.sh"

secs=${NVLAT_TORTURE_SECONDS:-60}
seed=${NVLAT_TORTURE_SEED:-}
while getopts 'd:s:' o; do
	case "$o" in
	d) secs=$OPTARG ;;
	s) seed=$OPTARG ;;
	*) echo "usage: ${0##*/} [-d SECONDS] [-s SEED]" >&2; exit 2 ;;
	esac
done
case "$secs$seed" in *[!0-9]*) echo "SECONDS and SEED are numbers" >&2; exit 2 ;; esac
[ -n "$seed" ] || seed=$(( ${EPOCHREALTIME/[.,]/} % 1000000 ))
RANDOM=$seed
tap_plan 12
tap_diag "torture: seed $seed, $secs s (replay: NVLAT_TORTURE_SEED=$seed)"

NVLAT_NULLB_ATTRS="memory_backed=1"
NVLAT_SIZE_MB=192
NVLAT_TCP_CONNECT_OPTS=",reconnect_delay=1,ctrl_loss_tmo=600"
nvlat_setup loop tcp tcp || tap_bail "setup failed"
cfs=$NVLAT_CFS/nvmet
sub=$cfs/subsystems/$NVLAT_NQN
tmp=$(nvlat_tmpdir torture)
ops=$tmp/ops.log
stop=$tmp/stop
pids=()
cleanup() {
	touch "$stop"
	kill "${pids[@]}" 2> /dev/null
	wait 2> /dev/null
	ns2_remove
	nvlat_teardown
}
ns2_remove() {
	local d=$sub/namespaces/2
	[ ! -d "$d" ] || { echo 0 > "$d/enable" && rmdir "$d"; }
	rm -f "$tmp/ns2.img"
}
trap cleanup EXIT

# Namespace 2 on a tmpfs file: its head comes and goes.
truncate -s 64M "$tmp/ns2.img"
if ! { mkdir "$sub/namespaces/2" && echo "$tmp/ns2.img" > "$sub/namespaces/2/device_path" &&
	echo 1 > "$sub/namespaces/2/enable"; }; then
	tap_bail "cannot add namespace 2"
fi
nvlat_wait 20 nvlat_ns_head 2 > /dev/null || tap_bail "no head for namespace 2"
for id in 2 3; do
	nvlat_netem_set "$(nvlat_tcp_port "$id")" delay "${id}00us" || tap_bail "netem"
done
nvlat_iopolicy_set latency
nvlat_wait 5 nvlat_clat_attached 3 || tap_bail "no estimator"
echo 3 > /proc/sys/vm/drop_caches
s0=$(nvlat_meminfo_kb SUnreclaim)

# State the schedule keeps: linked[ID] (nvmet port exports the subsystem),
# ana[ID] (target-side state), gone[ID] (loop controller deleted), hole[ID]
# (tcp port black-holed until then, in us), ctrl[ID] (host controller).
# The helpers below avoid subprocesses (nvlat_read): under TCG with fio
# running, every fork costs tens of milliseconds.
declare -A linked ana gone hole hole_policy ctrl count
for id in 1 2 3; do
	linked[$id]=1 ana[$id]=optimized gone[$id]='' hole[$id]='' hole_policy[$id]='' ctrl[$id]=$(nvlat_ctrl "$id")
done
T0=${EPOCHREALTIME/[.,]/}

# usable ID: the schedule left the path usable and the host sees it live.
usable() {
	local d
	[ -n "${linked[$1]}" ] && [ -z "${gone[$1]}" ] && [ -z "${hole[$1]}" ] || return 1
	case "${ana[$1]}" in optimized | non-optimized) ;; *) return 1 ;; esac
	nvlat_read "/sys/class/nvme/${ctrl[$1]}/state"
	[ "$REPLY" = live ] || return 1
	for d in /sys/class/nvme/"${ctrl[$1]}"/nvme*c*n1/ana_state; do
		nvlat_read "$d"
		case "$REPLY" in optimized | non-optimized) return 0 ;; esac
	done
	return 1
}
# others_usable ID: a path other than ID is usable.
others_usable() {
	local id
	for id in 1 2 3; do
		[ "$id" != "$1" ] && usable "$id" && return 0
	done
	return 1
}
# pick WORD...: one of the words, in $REPLY
pick() { local a=("$@"); REPLY=${a[RANDOM % $#]}; }
failures=0 cntlid_clash=0
oplog() {
	local t=$(( (${EPOCHREALTIME/[.,]/} - T0) / 1000 ))
	printf '%d.%03d %s\n' $((t / 1000)) $((t % 1000)) "$*" >> "$ops"
}
opfail() { oplog "FAILED: $*"; failures=$((failures + 1)); }

# op_policy: switch to a random policy
op_policy() {
	pick latency latency numa round-robin queue-depth
	oplog "iopolicy $REPLY"
	printf '%s' "$REPLY" > "/sys/class/nvme-subsystem/$NVLAT_SUBSYS/iopolicy" ||
		opfail "iopolicy $REPLY refused"
}
op_link() {
	local id=$1
	if [ -n "${linked[$id]}" ]; then
		others_usable "$id" || return 1
		oplog "unlink port $id"
		rm "$cfs/ports/$id/subsystems/$NVLAT_NQN" || opfail "unlink $id"
		linked[$id]=''
	else
		oplog "relink port $id"
		ln -s "$sub" "$cfs/ports/$id/subsystems/$NVLAT_NQN" || opfail "relink $id"
		linked[$id]=1
	fi
}
op_loop_ctrl() {
	if [ -z "${gone[1]}" ]; then
		others_usable 1 || return 1
		oplog "delete controller ${ctrl[1]} (port 1)"
		echo 1 > "/sys/class/nvme/${ctrl[1]}/delete_controller" || opfail "delete ${ctrl[1]}"
		gone[1]=1
	else
		# nvmet gives a freed controller ID to the next connect while
		# the host still holds it on a reconnecting controller, and the
		# host refuses the clash with EINVAL (base kernel behaviour,
		# seed 48356, 71-cntlid-reuse.sh): connect only while both tcp
		# ports are linked and their controllers live.
		local id
		for id in 2 3; do
			nvlat_read "/sys/class/nvme/${ctrl[$id]}/state"
			[ -n "${linked[$id]}" ] && [ "$REPLY" = live ] || return 1
		done
		nvlat_path_forget 1
		dup=$(dmesg | grep -c 'Duplicate cntlid')
		if ! nvlat_connect 1 loop; then
			# the same clash, met between the check above and the
			# connect: a refusal (retried later), not a failure
			[ "$(dmesg | grep -c 'Duplicate cntlid')" -gt "$dup" ] ||
				{ opfail "reconnect port 1"; return 0; }
			oplog "reconnect port 1 refused: duplicate cntlid (base kernel), retried later"
			cntlid_clash=$((cntlid_clash + 1))
			return 1
		fi
		ctrl[1]=$(nvlat_ctrl 1)
		oplog "reconnected port 1 as ${ctrl[1]}"
		gone[1]=''
	fi
}
# ana_set ID STATE: the target-side ANA state of port ID
ana_set() {
	oplog "ana port $1 $2"
	echo "$2" > "$cfs/ports/$1/ana_groups/1/ana_state" || opfail "ana $1 $2"
	ana[$1]=$2
}
op_ana() {
	local id=$1
	[ -n "${linked[$id]}" ] && [ -z "${gone[$id]}" ] || return 1
	pick optimized optimized non-optimized inaccessible
	[ "$REPLY" != inaccessible ] || others_usable "$id" || return 1
	ana_set "$id" "$REPLY"
}
# op_reset ID: reset the controller of ID, or of another path when ID is
# not usable; refused with a single usable path
op_reset() {
	local id
	for id in $1 1 2 3 ''; do
		[ -n "$id" ] || return 1
		usable "$id" && others_usable "$id" && break
	done
	oplog "reset ${ctrl[$id]} (port $id)"
	# In the background: a reset write waits for the reconnect, which can
	# take the admin timeout (60 s, seed 657814, right after a black hole),
	# and must not stop the schedule.  Its time counts for the slowest
	# operation.  EBUSY when a reset is already under way: not a failure.
	(
		t0=${EPOCHREALTIME/[.,]/}
		echo 1 > "/sys/class/nvme/${ctrl[$id]}/reset_controller" 2> /dev/null
		echo $(( ${EPOCHREALTIME/[.,]/} - t0 )) >> "$tmp/resets"
	) &
	resets+=($!)
	return 0
}
# repair: undo one fault that keeps a path unusable
repair() {
	local id
	for id in 2 3; do
		[ -n "${linked[$id]}" ] || { op_link "$id"; return; }
		[ -z "${hole[$id]}" ] || { hole_end "$id"; return; }
	done
	for id in 1 2 3; do
		[ -z "${gone[$id]}" ] || continue
		[ "${ana[$id]}" = inaccessible ] || continue
		ana_set "$id" optimized
		return
	done
	[ -z "${gone[1]}" ] || op_loop_ctrl
}
op_netem() {
	local id=$(( 2 + RANDOM % 2 ))
	[ -z "${hole[$id]}" ] || return 1
	pick 0 100 500 1000 2000 5000
	oplog "netem port $id delay ${REPLY}us"
	nvlat_netem_set "$(nvlat_tcp_port "$id")" delay "${REPLY}us" || opfail "netem $id"
}
# ended_ios ID: in REPLY, the reads and writes that port ID's path of
# namespace 1 has ended (0 when it has none)
ended_ios() {
	local d a e
	REPLY=0
	d=$(nvlat_ns_disk 1 "$1" 2> /dev/null) || return 0
	read -r a _ _ _ e _ 2> /dev/null < "/sys/block/$d/stat" && REPLY=$((a + e))
	return 0
}
# op_blackhole ID: drop every packet of one tcp port (its requests stay in
# flight until error recovery fails them over) for 2-6 s, or end a black
# hole early.  The port is the one whose path ended fewer I/Os in 0.5 s,
# ID on a tie: the others carry the job on (a hole in the busier path
# waits for keep-alive, which 81-black-hole-stall judges).  hole[ID] is
# when it ends (us); holes_expire ends the ones due, before every pick, so
# that a black hole never keeps the other kinds from running for long.
op_blackhole() {
	local id a2 a3
	for id in 2 3; do
		[ -n "${hole[$id]}" ] || continue
		hole_end "$id"
		return 0
	done
	id=$1
	ended_ios 2; a2=$REPLY
	ended_ios 3; a3=$REPLY
	nvlat_nap 0.5
	ended_ios 2; a2=$((REPLY - a2))
	ended_ios 3; a3=$((REPLY - a3))
	if [ "$a2" -lt "$a3" ]; then
		id=2
	elif [ "$a3" -lt "$a2" ]; then
		id=3
	fi
	others_usable "$id" || return 1
	oplog "black-hole port $id (ended in 0.5 s: port 2 $a2, port 3 $a3)"
	nvlat_netem_set "$(nvlat_tcp_port "$id")" loss 100% || opfail "black-hole $id"
	hole[$id]=$(( ${EPOCHREALTIME/[.,]/} + (2 + RANDOM % 5) * 1000000 ))
	nvlat_read "/sys/class/nvme-subsystem/$NVLAT_SUBSYS/iopolicy"
	hole_policy[$id]=$REPLY
}
hole_end() {
	oplog "end black hole on port $1"
	nvlat_netem_set "$(nvlat_tcp_port "$1")" delay "${1}00us" || opfail "netem $1"
	hole[$1]=''
}
# mark_holes: $hole_on exists while a tcp port is black-holed since a time
# the policy was latency and another path is usable and ANA optimized; only
# then must the head keep ending I/O (with no optimized path but the hole,
# every policy sends I/O there: seed 795708 stood 3 s with port 2
# non-optimized; and round-robin keeps sending half of the I/O into a hole
# until all of it waits there, which a later switch to latency cannot
# undo: seed 979251 stood 5 s so)
mark_holes() {
	local id h=
	for id in 2 3; do
		[ -z "${hole[$id]}" ] || [ "${hole_policy[$id]}" != latency ] || h=1
	done
	if [ -n "$h" ]; then
		for id in 1 2 3; do
			[ "${ana[$id]}" = optimized ] && usable "$id" && { : > "$hole_on"; return; }
		done
	fi
	rm -f "$hole_on"
}
holes_expire() {
	local id
	for id in 2 3; do
		[ -z "${hole[$id]}" ] || [ "${EPOCHREALTIME/[.,]/}" -lt "${hole[$id]}" ] || hole_end "$id"
	done
}
ns2_enable() {
	local e=$sub/namespaces/2/enable
	nvlat_read "$e"
	[ "$REPLY" != "$1" ] || return 0
	oplog "namespace 2 enable=$1"
	echo "$1" > "$e" || opfail "namespace 2 enable=$1"
}
op_ns2() {
	nvlat_read "$sub/namespaces/2/enable"
	ns2_enable $((1 - REPLY))
}

# fio: three verify writers and one reader on namespace 1, for the
# schedule's length, or up to four times that until every kind of
# operation has run (a KASAN kernel under TCG has taken 81 s for one black
# hole): the schedule then ends it with SIGINT, on which fio exits 128.
fio --output-format=json --output="$tmp/fio.json" \
	--filename="/dev/$NVLAT_HEAD" --ioengine=libaio --direct=1 --time_based \
	--runtime=$((secs * 4)) \
	--name=verify --rw=randwrite --bsrange=4k-128k --iodepth=8 --numjobs=3 \
	--size=40m --offset_increment=48m --verify=crc32c --verify_fatal=1 \
	--verify_backlog=64 \
	--name=read --rw=randread --bs=4k --iodepth=8 --offset=144m --size=40m \
	> "$tmp/fio.out" 2>&1 &
fio=$!
# dd on whatever namespace 2 head exists; errors expected while it is gone
(
	while [ ! -e "$stop" ]; do
		h=$(nvlat_ns_head 2) && dd if="/dev/$h" of=/dev/null bs=64k count=64 \
			iflag=direct 2> /dev/null
		sleep 0.2
	done
) &
pids+=($!)
# the estimator files and the latency file of every path, including ones
# going away
(
	while [ ! -e "$stop" ]; do
		cat /sys/kernel/debug/block/nvme*c*n*/rqos/clat/* \
			/sys/block/nvme*c*n*/latency > /dev/null 2>&1
		sleep 0.3
	done
) &
pids+=($!)

# the head's ended I/Os every 0.2 s, and whether a black hole is on under
# latency (mark_holes marks one for this subshell; numa and round-robin
# send into the hole by design)
hole_on=$tmp/hole-on
(
	while [ ! -e "$stop" ]; do
		read -r a _ _ _ e _ < "/sys/block/$NVLAT_HEAD/stat"
		t=$(( (${EPOCHREALTIME/[.,]/} - T0) / 1000 ))
		nvlat_read "/sys/class/nvme-subsystem/$NVLAT_SUBSYS/iopolicy"
		h=0
		[ ! -e "$hole_on" ] || [ "$REPLY" != latency ] || h=1
		echo "$t $((a + e)) $h"
		nvlat_nap 0.2
	done > "$tmp/head-ios"
) &
pids+=($!)

sleep 1
kinds=(policy link loop ana reset netem blackhole ns2)
end=$(( ${EPOCHREALTIME/[.,]/} + (secs - 4) * 1000000 ))
n=0 slowest_us=0 slowest=none
resets=()
# until the end, or while fio runs and a kind has not run yet
while kill -0 "$fio" 2> /dev/null; do
	# kinds that have not run yet come first; one refused in this state
	# gets a repair and another pick (seeds 180959 and 302707 ended a 45 s
	# run with no reset while random kinds kept a path away)
	todo=()
	for k in "${kinds[@]}"; do
		[ -n "${count[$k]:-}" ] || todo+=("$k")
	done
	[ ${#todo[@]} -gt 0 ] || [ "${EPOCHREALTIME/[.,]/}" -lt "$end" ] || break
	[ ${#todo[@]} -gt 0 ] || todo=("${kinds[@]}")
	holes_expire
	pick "${todo[@]}"
	k=$REPLY
	pick 1 2 3
	# an operation refused in this state: another pick after a pause
	nvlat_nap 0.1
	t_op=${EPOCHREALTIME/[.,]/}
	case "$k" in
	policy) op_policy ;;
	link) op_link $((2 + REPLY % 2)) ;;
	loop) op_loop_ctrl ;;
	ana) op_ana "$REPLY" ;;
	reset) op_reset "$REPLY" ;;
	netem) op_netem ;;
	blackhole) op_blackhole $((2 + REPLY % 2)) ;;
	ns2) op_ns2 ;;
	esac || { [ -n "${count[$k]:-}" ] || repair; mark_holes; continue; }
	mark_holes
	t=$(( ${EPOCHREALTIME/[.,]/} - t_op ))
	[ "$t" -le "$slowest_us" ] || { slowest_us=$t slowest="$k"; }
	n=$((n + 1))
	count[$k]=$(( ${count[$k]:-0} + 1 ))
	ms=$((100 + RANDOM % 1100))
	printf -v t '%d.%03d' $((ms / 1000)) $((ms % 1000))
	nvlat_nap "$t"
done
tap_diag "$n operations: $(for k in "${kinds[@]}"; do printf '%s=%s ' "$k" "${count[$k]:-0}"; done)"

# Undo every fault (after the resets in flight), then end fio.
rm -f "$hole_on"
[ ${#resets[@]} = 0 ] || wait "${resets[@]}"
for id in 1 2 3; do
	[ -n "${linked[$id]}" ] || op_link "$id"
	[ -z "${hole[$id]}" ] || hole_end "$id"
	[ "${ana[$id]}" = optimized ] || { echo optimized > "$cfs/ports/$id/ana_groups/1/ana_state"; ana[$id]=optimized; }
done
ns2_enable 1
[ -z "${gone[1]}" ] || nvlat_wait 60 op_loop_ctrl || opfail "loop reconnect refused for 60 s"
[ "$cntlid_clash" = 0 ] ||
	tap_diag "loop reconnect refused $cntlid_clash time(s) for a duplicate cntlid (base kernel, 71-cntlid-reuse), then retried"
nvlat_iopolicy_set latency
nvlat_nap 2
kill -INT "$fio" 2> /dev/null && ended=128 || ended=0
wait "$fio"
rc=$?
[ "$rc" != "$ended" ] || rc=0
t=$(sort -n "$tmp/resets" 2> /dev/null | tail -n 1)
[ -z "$t" ] || [ "$t" -le "$slowest_us" ] || { slowest_us=$t slowest=reset; }
tap_result "$rc" "fio write+verify and read exited 0"
errs=$(nvlat_fio_json "$tmp/fio.json" | jq '[.jobs[].error] | add')
tap_is "$errs" 0 "fio reports no I/O error and no verify failure"
[ "$rc" = 0 ] || tail -n 20 "$tmp/fio.out" | sed 's/^/# fio: /'

all_usable() { usable 1 && usable 2 && usable 3; }
tap_ok "all three paths usable again" nvlat_wait 60 all_usable
tap_ok "namespace 2 has a head again" nvlat_wait 20 eval "nvlat_ns_head 2 > /dev/null"
idle() {
	local id
	for id in 1 2 3; do
		[ "$(nvlat_lat_inflight "$id")" = 0 ] || return 1
	done
	[ "$(awk '{ print $1 + $2 }' "/sys/block/$NVLAT_HEAD/inflight")" = 0 ]
}
tap_ok "in-flight counters are zero when idle" nvlat_wait 10 idle
all_attached() { nvlat_clat_attached 1 && nvlat_clat_attached 2 && nvlat_clat_attached 3; }
tap_ok "estimators attached to all paths under latency" nvlat_wait 10 all_attached
tap_is "$failures" 0 "every operation did what it should"
missing=
for k in "${kinds[@]}"; do
	[ "${count[$k]:-0}" -gt 0 ] || missing="$missing $k"
done
tap_is "${missing# }" "" "every kind of operation ran at least once"
# a path operation that hangs shows here (and in the hung-task detector);
# under KASAN and TCG a tc run has taken 58 s
# longest time without an ended I/O on the head while a hole was on (ms);
# a KASAN kernel under TCG serves I/O about ten times slower: 10 s there
stall_s=${NVLAT_TORTURE_STALL_S:-2}
if zcat /proc/config.gz 2> /dev/null | grep -q '^CONFIG_KASAN=y'; then
	stall_s=${NVLAT_TORTURE_STALL_S:-10}
fi
stall_ms=$(awk '$3 && last != "" && $2 == n { if ($1 - t0 > m) m = $1 - t0; next }
	{ n = $2; t0 = $1; last = 1 } END { print m + 0 }' "$tmp/head-ios")
tap_ok "the head ended I/O at least every $stall_s s while a port was black-holed under latency (${stall_ms} ms)" \
	[ "$stall_ms" -le $((stall_s * 1000)) ]
tap_ok "the slowest operation ($slowest) took $((slowest_us / 1000)) ms, under 300 s" \
	[ "$slowest_us" -lt 300000000 ]

# Memory: same topology as at the start, fio gone.
touch "$stop"
kill "${pids[@]}" 2> /dev/null
wait "${pids[@]}" 2> /dev/null
pids=()
echo 3 > /proc/sys/vm/drop_caches
s1=$(nvlat_meminfo_kb SUnreclaim)
if zcat /proc/config.gz 2> /dev/null | grep -q '^CONFIG_KASAN=y'; then
	tap_skip "unreclaimable slab back near its level before the run" "KASAN quarantine; kmemleak checks"
else
	# before: the same topology, measured once after setup
	tap_ok "unreclaimable slab within 4 MiB of the level after setup ($s0 -> $s1 kB)" \
		[ "$s1" -le $((s0 + 4096)) ]
fi
tap_ok "teardown" eval "ns2_remove && nvlat_teardown"
trap - EXIT
if [ "$TAP_FAILED" != 0 ]; then
	tap_diag "last operations (ops.log):"
	tail -n 25 "$ops" | sed 's/^/#   /'
fi
tap_done
