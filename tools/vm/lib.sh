# SPDX-License-Identifier: GPL-2.0
# Guest-side helpers for the nvme-latency tests.  Source it as root inside
# the test VM (tools/vm/run.sh); not executable.
#
# Target: one nvmet subsystem ($NVLAT_NQN) with one namespace backed by a
# null_blk device (configfs) or a file on tmpfs, exported on nvmet ports
# 1..N, each loop or tcp (tcp port 4419+id, on 127.0.0.1).  Host: one
# controller per port, all in one nvme subsystem, so there is one multipath
# head (nvmeXnY) and one hidden path disk (nvmeXcYnZ) per port.
#
#   nvlat_setup loop tcp            # port 1 = loop, port 2 = tcp:4421
#   nvlat_iopolicy_set round-robin
#   nvlat_netem_set 4421 delay 5ms  # both directions of port 2
#   nvlat_fio "$out" --filename="/dev/$NVLAT_HEAD" --rw=randread ...
#   nvlat_fio_clat_mean_us "$out" read
#   nvlat_teardown
#
# Functions return non-zero and print "# error: ..." on stderr on failure.
# shellcheck shell=bash

NVLAT_NQN=${NVLAT_NQN:-nqn.2026-11.org.example:nvlat}
NVLAT_HOSTID=${NVLAT_HOSTID:-6e766c61-7400-4000-8000-00000000b0e1}
NVLAT_HOSTNQN=${NVLAT_HOSTNQN:-nqn.2014-08.org.nvmexpress:uuid:$NVLAT_HOSTID}
NVLAT_TCP_BASE=${NVLAT_TCP_BASE:-4420}
NVLAT_BACKEND=${NVLAT_BACKEND:-nullb}	# nullb or file
NVLAT_SIZE_MB=${NVLAT_SIZE_MB:-1024}
NVLAT_NULLB_ATTRS=${NVLAT_NULLB_ATTRS:-}	# e.g. "irqmode=2 completion_nsec=100000"
NVLAT_CONNECT_OPTS=${NVLAT_CONNECT_OPTS:-}	# e.g. ",nr_io_queues=2"
NVLAT_TCP_CONNECT_OPTS=${NVLAT_TCP_CONNECT_OPTS:-}	# tcp only, e.g. ",reconnect_delay=1"
NVLAT_TC=${NVLAT_TC:-/usr/sbin/tc}		# iproute2; busybox tc has no netem
NVLAT_STATE=${NVLAT_STATE:-/run/nvlat}
NVLAT_CFS=/sys/kernel/config
NVLAT_NULLB_NAME=${NVLAT_NULLB_NAME:-nvlatb0}

# Set by nvlat_setup / nvlat_find_head.
NVLAT_HEAD=	# nvmeXnY
NVLAT_SUBSYS=	# nvme-subsysX
NVLAT_BDEV=	# backing device or file of the namespace

nvlat_err() { printf '# error: %s\n' "$*" >&2; return 1; }
nvlat_log() { printf '# %s\n' "$*"; }

# nvlat_wait SECONDS CMD...: retry CMD every 0.1 s until it succeeds.
nvlat_wait() {
	local i n=$(($1 * 10))
	shift
	for ((i = 0; i < n; i++)); do
		"$@" 2>/dev/null && return 0
		sleep 0.1
	done
	"$@"
}

# --- TAP ------------------------------------------------------------------

TAP_N=0
TAP_FAILED=0
TAP_PLAN=

# As in blktests, a test sets DESCRIPTION (one line, printed after its
# plan) and QUICK=1 if it takes under a minute (run-all.sh --quick) before
# it sources this file.
tap_plan() {
	TAP_PLAN=$1
	echo "1..$1"
	[ -z "${DESCRIPTION:-}" ] || tap_diag "$DESCRIPTION"
}
tap_diag() { printf '# %s\n' "$@"; }

# tap_result STATUS DESCRIPTION: ok when STATUS is 0.
tap_result() {
	TAP_N=$((TAP_N + 1))
	if [ "$1" = 0 ]; then
		echo "ok $TAP_N - $2"
	else
		echo "not ok $TAP_N - $2"
		TAP_FAILED=$((TAP_FAILED + 1))
	fi
}

# tap_ok DESCRIPTION CMD...: ok when CMD succeeds.
tap_ok() {
	local d=$1 rc=0
	shift
	"$@" || rc=$?
	tap_result "$rc" "$d"
	return "$rc"
}

# tap_is GOT WANT DESCRIPTION
tap_is() {
	if [ "$1" = "$2" ]; then
		tap_result 0 "$3"
	else
		tap_result 1 "$3"
		tap_diag "got '$1', want '$2'"
		return 1
	fi
}

tap_skip() {
	TAP_N=$((TAP_N + 1))
	echo "ok $TAP_N - $1 # SKIP ${2:-}"
}

# tap_bail MESSAGE: abort the test file.
tap_bail() {
	echo "Bail out! $*"
	exit 1
}

# tap_done: summary diagnostic; exit status for the test file.
tap_done() {
	tap_diag "$((TAP_N - TAP_FAILED)) passed, $TAP_FAILED failed"
	[ -z "${QUICK:-}" ] || [ "$SECONDS" -le 60 ] || tap_diag "QUICK, but took $SECONDS s"
	if [ -n "$TAP_PLAN" ] && [ "$TAP_PLAN" != "$TAP_N" ]; then
		tap_diag "planned $TAP_PLAN tests but ran $TAP_N"
		return 1
	fi
	[ "$TAP_FAILED" = 0 ]
}

# nvlat_need_icount: skip the whole test file unless it runs on the
# instruction clock (tools/vm/run.sh -d), for which its bounds are made.
nvlat_need_icount() {
	[ -z "${NVLAT_ICOUNT:-}" ] || return 0
	echo "1..0 # SKIP needs the instruction clock (tools/vm/run.sh -d)"
	exit 0
}

# --- arithmetic on decimal strings ------------------------------------------

# nvlat_calc EXPR: awk arithmetic, printed with up to 3 decimals.
nvlat_calc() { awk "BEGIN { printf \"%.3f\n\", $1 }"; }

# nvlat_cmp A OP B: numeric comparison of two numbers (OP: < <= > >= ==);
# use nvlat_calc for expressions.
nvlat_cmp() { awk -v a="$1" -v b="$3" "BEGIN { exit !(a + 0 $2 b + 0) }"; }

# --- target -----------------------------------------------------------------

nvlat_tcp_port() { echo $((NVLAT_TCP_BASE + $1 - 1)); }

# nvlat_backend_create: null_blk through configfs, or a file on /tmp.
nvlat_backend_create() {
	local d kv
	case "$NVLAT_BACKEND" in
	nullb)
		d=$NVLAT_CFS/nullb/$NVLAT_NULLB_NAME
		[ -d "$NVLAT_CFS/nullb" ] || nvlat_err "no $NVLAT_CFS/nullb (null_blk)" || return
		mkdir "$d" || nvlat_err "mkdir $d" || return
		echo "$NVLAT_SIZE_MB" > "$d/size" || return
		for kv in $NVLAT_NULLB_ATTRS; do
			echo "${kv#*=}" > "$d/${kv%%=*}" || nvlat_err "nullb $kv" || return
		done
		echo 1 > "$d/power" || nvlat_err "nullb power on" || return
		NVLAT_BDEV=/dev/$NVLAT_NULLB_NAME
		nvlat_wait 5 test -b "$NVLAT_BDEV" || nvlat_err "no $NVLAT_BDEV" || return
		;;
	file)
		NVLAT_BDEV=/tmp/nvlat-ns.img
		truncate -s "${NVLAT_SIZE_MB}M" "$NVLAT_BDEV" || return
		;;
	*) nvlat_err "NVLAT_BACKEND must be nullb or file" ;;
	esac
}

nvlat_backend_remove() {
	local d=$NVLAT_CFS/nullb/$NVLAT_NULLB_NAME
	if [ -d "$d" ]; then
		echo 0 > "$d/power" 2>/dev/null
		rmdir "$d" || nvlat_err "rmdir $d"
	fi
	rm -f /tmp/nvlat-ns.img
}

# nvlat_subsys_create: the subsystem and namespace 1 on $NVLAT_BDEV, with
# the model number $NVLAT_MODEL if set (nvmet's default is "Linux").
nvlat_subsys_create() {
	local s=$NVLAT_CFS/nvmet/subsystems/$NVLAT_NQN
	mkdir "$s" || nvlat_err "mkdir $s" || return
	echo 1 > "$s/attr_allow_any_host" || return
	if [ -n "${NVLAT_MODEL:-}" ]; then
		echo "$NVLAT_MODEL" > "$s/attr_model" || nvlat_err "model $NVLAT_MODEL" || return
	fi
	mkdir "$s/namespaces/1" || return
	echo "$NVLAT_BDEV" > "$s/namespaces/1/device_path" || return
	echo 1 > "$s/namespaces/1/enable" || nvlat_err "cannot enable namespace on $NVLAT_BDEV"
}

# nvlat_port_add ID loop|tcp: nvmet port ID exporting the subsystem.
nvlat_port_add() {
	local p=$NVLAT_CFS/nvmet/ports/$1
	mkdir "$p" || nvlat_err "mkdir $p" || return
	case "$2" in
	loop)
		echo loop > "$p/addr_trtype" &&
		echo "$1" > "$p/addr_traddr" || return
		;;
	tcp)
		echo tcp > "$p/addr_trtype" &&
		echo ipv4 > "$p/addr_adrfam" &&
		echo 127.0.0.1 > "$p/addr_traddr" &&
		nvlat_tcp_port "$1" > "$p/addr_trsvcid" || return
		;;
	*) nvlat_err "transport must be loop or tcp, not '$2'"; return ;;
	esac
	ln -s "$NVLAT_CFS/nvmet/subsystems/$NVLAT_NQN" "$p/subsystems/$NVLAT_NQN" ||
		nvlat_err "cannot enable port $1 ($2)"
}

# nvlat_connect ID loop|tcp: connect a controller to port ID through
# /dev/nvme-fabrics; records "ID TRANSPORT nvmeN" in $NVLAT_STATE/paths.
nvlat_connect() {
	local o fd line inst
	o="nqn=$NVLAT_NQN,hostnqn=$NVLAT_HOSTNQN,hostid=$NVLAT_HOSTID"
	case "$2" in
	loop) o="transport=loop,traddr=$1,$o" ;;
	tcp) o="transport=tcp,traddr=127.0.0.1,trsvcid=$(nvlat_tcp_port "$1"),$o$NVLAT_TCP_CONNECT_OPTS" ;;
	*) nvlat_err "transport must be loop or tcp, not '$2'"; return ;;
	esac
	o=$o$NVLAT_CONNECT_OPTS
	exec {fd}<>/dev/nvme-fabrics || nvlat_err "no /dev/nvme-fabrics" || return
	if ! printf '%s' "$o" >&"$fd"; then
		exec {fd}>&-
		nvlat_err "connect failed: $o"
		return
	fi
	IFS= read -r line <&"$fd" || true
	exec {fd}>&-
	inst=${line#instance=}
	inst=${inst%%,*}
	case "$inst" in '' | *[!0-9]*) nvlat_err "connect: bad reply '$line'"; return ;; esac
	mkdir -p "$NVLAT_STATE"
	echo "$1 $2 nvme$inst" >> "$NVLAT_STATE/paths"
}

# nvlat_path_forget ID: drop port ID from the connected paths (after its
# controller was deleted by hand), so that nvlat_connect can add it again.
nvlat_path_forget() { sed -i "/^$1 /d" "$NVLAT_STATE/paths"; }

# nvlat_ctrl_state_is ID STATE: the controller of port ID is in STATE
# (live, connecting, resetting, ...).
nvlat_ctrl_state_is() {
	[ "$(cat "/sys/class/nvme/$(nvlat_ctrl "$1")/state" 2>/dev/null)" = "$2" ]
}

# nvlat_paths: the "ID TRANSPORT CTRL" lines of the connected paths.
nvlat_paths() { cat "$NVLAT_STATE/paths" 2>/dev/null; }

# nvlat_path_ids: the port ids of the connected paths.
nvlat_path_ids() { nvlat_paths | awk '{ print $1 }'; }

# nvlat_ctrl ID: controller (nvmeN) connected through port ID.
nvlat_ctrl() { nvlat_paths | awk -v id="$1" '$1 == id { print $3; f = 1 } END { exit !f }'; }

# nvlat_transport ID
nvlat_transport() { nvlat_paths | awk -v id="$1" '$1 == id { print $2; f = 1 } END { exit !f }'; }

# nvlat_path_disk ID: hidden per-path disk (nvmeXcYnZ) of port ID, the
# first of its controller.
nvlat_path_disk() { nvlat_ns_disk '*' "$1"; }

# nvlat_port_of_disk DISK: port id whose path disk is DISK.
nvlat_port_of_disk() {
	local id
	for id in $(nvlat_path_ids); do
		[ "$(nvlat_path_disk "$id")" = "$1" ] && { echo "$id"; return 0; }
	done
	return 1
}

# nvlat_find_head: set NVLAT_SUBSYS and NVLAT_HEAD for $NVLAT_NQN.
nvlat_find_head() {
	local s h
	for s in /sys/class/nvme-subsystem/nvme-subsys*; do
		[ "$(cat "$s/subsysnqn" 2>/dev/null)" = "$NVLAT_NQN" ] || continue
		for h in "$s"/nvme*n*; do
			case "${h##*/}" in nvme*c*n*) continue ;; esac
			[ -e "$h/dev" ] || continue
			NVLAT_SUBSYS=${s##*/}
			NVLAT_HEAD=${h##*/}
			return 0
		done
	done
	return 1
}

# nvlat_subsystems: the nvme-subsysN directories for $NVLAT_NQN (one line each).
nvlat_subsystems() {
	local s
	for s in /sys/class/nvme-subsystem/nvme-subsys*; do
		[ "$(cat "$s/subsysnqn" 2>/dev/null)" = "$NVLAT_NQN" ] && echo "${s##*/}"
	done
	return 0
}

# nvlat_paths_ready: every connected port has a path disk, and a head exists.
nvlat_paths_ready() {
	local id
	for id in $(nvlat_path_ids); do
		nvlat_path_disk "$id" > /dev/null || return 1
	done
	nvlat_find_head && [ -b "/dev/$NVLAT_HEAD" ]
}

# nvlat_setup TRANSPORT...: backend, subsystem, one port and one connected
# path per argument (port ids 1..N in order); waits for the head.  Removes
# what an earlier, killed test may have left behind first.
nvlat_setup() {
	local id=0 t
	[ $# -gt 0 ] || set -- loop tcp
	# Leftovers of a test that was killed before its teardown.
	nvlat_teardown > /dev/null 2>&1
	mkdir -p "$NVLAT_STATE"
	: > "$NVLAT_STATE/paths"
	nvlat_backend_create || return
	nvlat_subsys_create || return
	for t in "$@"; do
		id=$((id + 1))
		nvlat_port_add "$id" "$t" || return
	done
	id=0
	for t in "$@"; do
		id=$((id + 1))
		nvlat_connect "$id" "$t" || return
	done
	nvlat_wait 30 nvlat_paths_ready || nvlat_err "multipath head or path disks missing" || return
	nvlat_log "head /dev/$NVLAT_HEAD in $NVLAT_SUBSYS; paths:$(for id in $(nvlat_path_ids); do
		printf ' %s=%s/%s/%s' "$id" "$(nvlat_transport "$id")" "$(nvlat_ctrl "$id")" "$(nvlat_path_disk "$id")"
	done)"
}

# nvlat_disconnect_all: delete every controller connected to $NVLAT_NQN.
nvlat_disconnect_all() {
	local c
	for c in /sys/class/nvme/nvme*; do
		[ -e "$c/subsysnqn" ] || continue
		[ "$(cat "$c/subsysnqn" 2>/dev/null)" = "$NVLAT_NQN" ] || continue
		echo 1 > "$c/delete_controller" 2>/dev/null
	done
	nvlat_wait 30 nvlat_no_ctrls || nvlat_err "controllers still present"
}

nvlat_no_ctrls() {
	local c
	for c in /sys/class/nvme/nvme*; do
		[ -e "$c/subsysnqn" ] || continue
		[ "$(cat "$c/subsysnqn" 2>/dev/null)" = "$NVLAT_NQN" ] && return 1
	done
	return 0
}

# nvlat_teardown: undo nvlat_setup (and netem); safe to call twice.
nvlat_teardown() {
	local p s=$NVLAT_CFS/nvmet/subsystems/$NVLAT_NQN rc=0
	nvlat_netem_clear || rc=1
	nvlat_disconnect_all || rc=1
	if [ -d "$s/namespaces/2" ]; then
		nvlat_read "$s/namespaces/2/device_path"
		echo 0 > "$s/namespaces/2/enable"
		rmdir "$s/namespaces/2" || rc=1
		[ -z "$REPLY" ] || rm -f "$REPLY" || rc=1
	fi
	for p in "$NVLAT_CFS"/nvmet/ports/*; do
		[ -L "$p/subsystems/$NVLAT_NQN" ] || continue
		rm -f "$p/subsystems/$NVLAT_NQN" || rc=1
		[ ! -d "$p/ana_groups/2" ] || rmdir "$p/ana_groups/2" || rc=1
		rmdir "$p" || rc=1
	done
	if [ -d "$s" ]; then
		if [ -d "$s/namespaces/1" ]; then
			echo 0 > "$s/namespaces/1/enable"
			rmdir "$s/namespaces/1" || rc=1
		fi
		rmdir "$s" || rc=1
	fi
	nvlat_backend_remove || rc=1
	rm -f "$NVLAT_STATE/paths"
	NVLAT_HEAD=''
	NVLAT_SUBSYS=''
	return "$rc"
}

# --- ANA ----------------------------------------------------------------------

# nvlat_ana_set ID STATE [NSID]: target-side ANA state of group 1 on port
# ID (optimized, non-optimized, inaccessible, persistent-loss, change), then
# wait until the host's path disk reports it.  NSID 2: group 2, the group of
# nvlat_ns2_add's namespace.
nvlat_ana_set() {
	local d
	echo "$2" > "$NVLAT_CFS/nvmet/ports/$1/ana_groups/${3:-1}/ana_state" ||
		nvlat_err "cannot set ANA state $2 on port $1" || return
	d=$(nvlat_ns_disk "${3:-*}" "$1") || return
	nvlat_wait 15 nvlat_ana_is "$1" "$2" "${3:-*}" ||
		nvlat_err "port $1: host still sees ANA state $(cat "/sys/block/$d/ana_state")"
}

# nvlat_ana_get ID [NSID]: host-side ANA state of the path through port ID
# (of its first disk without NSID).
nvlat_ana_get() {
	local d
	d=$(nvlat_ns_disk "${2:-*}" "$1") || return
	cat "/sys/block/$d/ana_state"
}

nvlat_ana_is() { [ "$(nvlat_ana_get "$1" "${3:-*}")" = "$2" ]; }

# --- a second namespace -------------------------------------------------------

# nvlat_ns2_add FILE: namespace 2 of the subsystem on FILE (created, 256
# MiB), in an ANA group of its own (2) that is optimized on every port;
# waits until the host has its head and a path disk per port.
# nvlat_teardown removes it and FILE.
nvlat_ns2_add() {
	local s=$NVLAT_CFS/nvmet/subsystems/$NVLAT_NQN id g
	for id in $(nvlat_path_ids); do
		# a new ANA group starts inaccessible
		g=$NVLAT_CFS/nvmet/ports/$id/ana_groups/2
		{ mkdir "$g" && echo optimized > "$g/ana_state"; } ||
			nvlat_err "no ANA group 2 on port $id" || return
	done
	{ truncate -s 256M "$1" && mkdir "$s/namespaces/2" &&
		echo 2 > "$s/namespaces/2/ana_grpid" &&
		echo "$1" > "$s/namespaces/2/device_path" &&
		echo 1 > "$s/namespaces/2/enable"; } || nvlat_err "cannot add namespace 2" || return
	nvlat_wait 20 nvlat_ns2_ready || nvlat_err "no head or paths for namespace 2"
}

# nvlat_ns_disk NSID ID: the path disk (nvmeXcYnZ) of namespace NSID on
# port ID; NSID '*': the first one.
nvlat_ns_disk() {
	local c d
	c=$(nvlat_ctrl "$2") || return
	# shellcheck disable=SC2231 # NSID may be the glob '*'
	for d in /sys/class/nvme/"$c"/nvme*c*n$1; do
		[ -e "$d/stat" ] && { echo "${d##*/}"; return 0; }
	done
	return 1
}

nvlat_ns2_ready() {
	local id
	nvlat_ns_head 2 > /dev/null || return
	for id in $(nvlat_path_ids); do
		nvlat_ns_disk 2 "$id" > /dev/null || return
	done
}

# --- iopolicy ---------------------------------------------------------------

nvlat_iopolicy_file() {
	[ -n "$NVLAT_SUBSYS" ] || nvlat_find_head || nvlat_err "no subsystem for $NVLAT_NQN" || return
	echo "/sys/class/nvme-subsystem/$NVLAT_SUBSYS/iopolicy"
}

nvlat_iopolicy_get() {
	local f
	f=$(nvlat_iopolicy_file) && cat "$f"
}

# nvlat_iopolicy_set NAME: write NAME verbatim (one write, no newline);
# fails when the kernel rejects it.
nvlat_iopolicy_set() {
	local f
	f=$(nvlat_iopolicy_file) || return
	(printf '%s' "$1" > "$f") 2>/dev/null
}

# nvlat_iopolicy_has NAME: the kernel accepts NAME (restores the old policy).
nvlat_iopolicy_has() {
	local old rc=0
	old=$(nvlat_iopolicy_get) || return
	nvlat_iopolicy_set "$1" || rc=1
	nvlat_iopolicy_set "$old"
	return "$rc"
}

# --- per-path I/O counts ------------------------------------------------------

# nvlat_disk_ios DISK: completed reads + writes of a block device.
nvlat_disk_ios() { awk '{ print $1 + $5 }' "/sys/block/$1/stat"; }

# nvlat_path_ios ID: completed reads + writes of the path disk of port ID.
nvlat_path_ios() {
	local d
	d=$(nvlat_path_disk "$1") || return
	nvlat_disk_ios "$d"
}

# nvlat_head_ios: completed reads + writes of the namespace head.
nvlat_head_ios() { nvlat_disk_ios "$NVLAT_HEAD"; }

# nvlat_io_started SECONDS: wait until the head ends more I/O than when
# called; use it after starting fio in the background and before a sleep
# that assumes I/O: on the instruction clock the guest clock jumps over
# fio's start (a page read from the host's 9p share).
nvlat_io_started() {
	local n0
	n0=$(nvlat_head_ios) || return
	nvlat_wait "$1" nvlat_head_ios_above "$n0"
}
nvlat_head_ios_above() { [ "$(nvlat_head_ios)" -gt "$1" ]; }

# nvlat_ios_snapshot: "ID IOS" for every path.
nvlat_ios_snapshot() {
	local id
	for id in $(nvlat_path_ids); do
		echo "$id $(nvlat_path_ios "$id")"
	done
}

# nvlat_ios_delta BEFORE AFTER: "ID DELTA PERCENT" per path, from two
# nvlat_ios_snapshot outputs (as strings).
nvlat_ios_delta() {
	awk 'NR == FNR { b[$1] = $2; next }
		{ d[$1] = $2 - b[$1]; t += d[$1]; id[n++] = $1 }
		END { for (i = 0; i < n; i++)
			printf "%s %d %.1f\n", id[i], d[id[i]], t ? 100 * d[id[i]] / t : 0 }' \
		<(printf '%s\n' "$1") <(printf '%s\n' "$2")
}

# --- netem on lo ----------------------------------------------------------------
# prio qdisc 1: on lo with 16 bands, all traffic in band 2 (class 1:2);
# tcp port P gets band P-base+3 (1:3 for the first port) with a netem
# qdisc under it and two u32 filters (dport P, sport P) at pref = band.

nvlat_netem_band() {
	local b=$(($1 - NVLAT_TCP_BASE + 3))
	[ "$b" -ge 3 ] && [ "$b" -le 16 ] ||
		nvlat_err "tcp port $1 outside $NVLAT_TCP_BASE..$((NVLAT_TCP_BASE + 13))" || return
	echo "$b"
}

# nvlat_netem_set TCPPORT NETEM-ARGS...: add or change netem on that port,
# e.g. nvlat_netem_set 4421 delay 5ms rate 100mbit.  Both directions of the
# connection are delayed, so the round trip grows by twice the delay; with
# NVLAT_NETEM_TO_TARGET=1 when it is added, only what goes to the target
# (commands and write data, not read data).
nvlat_netem_set() {
	local port=$1 b h
	shift
	b=$(nvlat_netem_band "$port") || return
	h=$((b + 100)):
	if ! "$NVLAT_TC" qdisc show dev lo | grep -q '^qdisc prio 1: root'; then
		"$NVLAT_TC" qdisc replace dev lo root handle 1: prio bands 16 \
			priomap 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 || return
	fi
	if "$NVLAT_TC" qdisc show dev lo | grep -q "^qdisc netem $h "; then
		"$NVLAT_TC" qdisc change dev lo parent "1:$b" handle "$h" netem "$@" || return
	else
		"$NVLAT_TC" qdisc add dev lo parent "1:$b" handle "$h" netem "$@" &&
		"$NVLAT_TC" filter add dev lo parent 1: protocol ip pref "$b" u32 \
			match ip dport "$port" 0xffff flowid "1:$b" || return
		[ "${NVLAT_NETEM_TO_TARGET:-}" = 1 ] ||
			"$NVLAT_TC" filter add dev lo parent 1: protocol ip pref "$b" u32 \
				match ip sport "$port" 0xffff flowid "1:$b" || return
	fi
}

# nvlat_netem_del TCPPORT: stop delaying that port.
nvlat_netem_del() {
	local b
	b=$(nvlat_netem_band "$1") || return
	"$NVLAT_TC" qdisc show dev lo | grep -q '^qdisc prio 1: root' || return 0
	"$NVLAT_TC" filter del dev lo parent 1: protocol ip pref "$b" 2>/dev/null
	"$NVLAT_TC" qdisc del dev lo parent "1:$b" handle "$((b + 100)):" 2>/dev/null
	return 0
}

# nvlat_netem_clear: remove the whole qdisc tree from lo.
nvlat_netem_clear() {
	"$NVLAT_TC" qdisc show dev lo | grep -q '^qdisc prio 1: root' || return 0
	"$NVLAT_TC" qdisc del dev lo root
}

nvlat_netem_show() {
	"$NVLAT_TC" -s qdisc show dev lo
	"$NVLAT_TC" filter show dev lo
}

# --- fio ------------------------------------------------------------------------

# nvlat_fio OUT.json FIO-ARGS...: one job "nvlat" with JSON output to OUT.
# Defaults: libaio, direct, time based, 4 KiB; FIO-ARGS override them.
nvlat_fio() {
	local out=$1
	shift
	fio --name=nvlat --ioengine=libaio --direct=1 --bs=4k --time_based \
		--group_reporting --output-format=json --output="$out" "$@" > /dev/null ||
		nvlat_err "fio failed: $*"
}

# nvlat_fio_json OUT: the JSON document of a fio output file, without the
# warnings fio may print before it.
nvlat_fio_json() { sed -n '/^{/,$p' "$1"; }

# nvlat_fio_get OUT JQ-PATH: value from the first job, e.g. '.read.iops'.
nvlat_fio_get() { nvlat_fio_json "$1" | jq -r ".jobs[0]$2"; }

# nvlat_fio_clat_mean_us OUT read|write
nvlat_fio_clat_mean_us() { jq -r ".jobs[0].$2.clat_ns.mean / 1000" "$1"; }

# nvlat_fio_clat_pct_us OUT read|write PERCENTILE (e.g. 99 or 99.9)
nvlat_fio_clat_pct_us() {
	jq -r --arg p "$(printf '%.6f' "$3")" ".jobs[0].$2.clat_ns.percentile[\$p] / 1000" "$1"
}

# nvlat_fio_lat_mean_us OUT read|write: submission + completion latency.
nvlat_fio_lat_mean_us() { jq -r ".jobs[0].$2.lat_ns.mean / 1000" "$1"; }

# nvlat_fio_bw_kib OUT read|write: bandwidth in KiB/s.
nvlat_fio_bw_kib() { jq -r ".jobs[0].$2.bw" "$1"; }

nvlat_fio_iops() { jq -r ".jobs[0].$2.iops" "$1"; }

# nvlat_fio_summary OUT read|write: one line for diagnostics.
nvlat_fio_summary() {
	jq -r ".jobs[0].$2 | \"\(.io_kbytes) KiB, \(.bw) KiB/s, \(.iops | floor) IOPS, clat mean \(.clat_ns.mean / 1000 | floor) us, p99 \((.clat_ns.percentile[\"99.000000\"] // 0) / 1000 | floor) us, lat mean \(.lat_ns.mean / 1000 | floor) us\"" "$1"
}

# nvlat_tmpdir [NAME]: a per-test scratch directory under $NVLAT_WORK, or
# under the guest's /tmp without it or on the instruction clock.
nvlat_tmpdir() {
	local d=${NVLAT_WORK:-/tmp}/scratch
	# on the instruction clock a wait for 9p lets the guest clock jump
	[ -z "${NVLAT_ICOUNT:-}" ] || d=/tmp/scratch
	mkdir -p "$d" && mktemp -d "$d/${1:-t}.XXXX"
}

# --- latency iopolicy: estimator and fast sampling -----------------------------

# nvlat_clat_dir ID: debugfs directory of the completion latency estimator
# (rqos/clat) of the path through port ID.
nvlat_clat_dir() {
	local d
	d=$(nvlat_path_disk "$1") || return
	echo "/sys/kernel/debug/block/$d/rqos/clat"
}

# nvlat_clat_attached ID: the path through port ID has an estimator.
nvlat_clat_attached() { [ -e "$(nvlat_clat_dir "$1")/estimates" ]; }

# nvlat_clat_est_ns ID [read|write]: the estimate in ns of that direction;
# fails while there is none.  debugfs estimates has a line per direction:
# "read|write LAT_NS AGE", LAT_NS 0 without an estimate, AGE in windows
# (50 ms) since the estimate last had samples (0: fresh).
nvlat_clat_est_ns() {
	awk -v dir="${2:-read}" '$1 == dir && $2 > 0 { print $2; found = 1 }
		END { exit !found }' "$(nvlat_clat_dir "$1")/estimates"
}

# nvlat_lat_file ID: the latency file of the path through port ID, which
# under the latency iopolicy has one line
#   read <us|-> write <us|-> inflight <n> <fresh|stale|backed-off|silent|none>
# (the estimates, the namespace's requests in flight on the path, the
# path's state for reads, "none" without an estimator) and is empty under
# the other policies.
nvlat_lat_file() {
	local d
	d=$(nvlat_path_disk "$1") || return
	echo "/sys/block/$d/latency"
}

# nvlat_lat_field ID read|write|inflight|state: that field of the path's
# latency file; fails without its line (under another iopolicy).
nvlat_lat_field() {
	local f
	f=$(nvlat_lat_file "$1") || return
	awk -v f="$2" '
		NF == 7 {
			if (f == "read") v = $2
			else if (f == "write") v = $4
			else if (f == "inflight") v = $6
			else if (f == "state") v = $7
			else exit
			print v
			found = 1
			exit
		}
		END { exit !found }' "$f"
}

# nvlat_lat_inflight ID: the namespace's requests in flight on the path
# through port ID, as the latency iopolicy counts them (under latency only).
nvlat_lat_inflight() { nvlat_lat_field "$1" inflight; }

# nvlat_stat_disks: set NVLAT_DISKS to the path disks in port order.
nvlat_stat_disks() {
	local id
	NVLAT_DISKS=()
	for id in $(nvlat_path_ids); do
		NVLAT_DISKS+=("$(nvlat_path_disk "$id")") || return
	done
}

# nvlat_nap SECONDS: sleep without a subprocess (read with a timeout on a
# private FIFO): under TCG a fork per sample steals the CPU from the I/O.
NVLAT_TICK_FD=
nvlat_nap() {
	local f
	if [ -z "$NVLAT_TICK_FD" ]; then
		f=$NVLAT_STATE/tick.$BASHPID
		if ! mkdir -p "$NVLAT_STATE" || ! mkfifo "$f"; then
			sleep "$1"
			return 0
		fi
		exec {NVLAT_TICK_FD}<> "$f"
		rm -f "$f"
	fi
	read -r -t "$1" -u "$NVLAT_TICK_FD" _ || true
}

# nvlat_sample_ios OUT SECONDS INTERVAL [T0_US]: every INTERVAL seconds for
# SECONDS, append "TIME_S IOS_1 IOS_2 ... SECTORS_1 SECTORS_2 ..." (completed
# reads + writes and sectors per path, in port order) to OUT; TIME_S counts
# from T0_US ($EPOCHREALTIME without the dot; default: now).  No
# subprocess per sample.  Call nvlat_stat_disks first.
nvlat_sample_ios() {
	local out=$1 t0=${4:-${EPOCHREALTIME/[.,]/}} end d a c e g ios secs now fd
	end=$((t0 + ${2%.*} * 1000000))
	exec {fd}>> "$out"
	while now=${EPOCHREALTIME/[.,]/}; [ "$now" -le "$end" ]; do
		ios='' secs=''
		for d in "${NVLAT_DISKS[@]}"; do
			read -r a _ c _ e _ g _ < "/sys/block/$d/stat"
			ios="$ios $((a + e))"
			secs="$secs $((c + g))"
		done
		printf '%d.%06d%s%s\n' $(((now - t0) / 1000000)) $(((now - t0) % 1000000)) \
			"$ios" "$secs" >&"$fd"
		nvlat_nap "$3"
	done
	exec {fd}>&-
}

# nvlat_share_between SAMPLES FROM TO COL: share in % of path COL (1-based,
# port order) among the I/Os completed between times FROM and TO (seconds
# since the start of sampling).
nvlat_share_between() {
	awk -v from="$2" -v to="$3" -v col="$4" -v n="${#NVLAT_DISKS[@]}" '
		$1 >= from && !s { for (i = 1; i <= n; i++) b[i] = $(i + 1); s = 1 }
		$1 <= to { for (i = 1; i <= n; i++) e[i] = $(i + 1) }
		END { for (i = 1; i <= n; i++) t += e[i] - b[i]
			printf "%.1f\n", t ? 100 * (e[col] - b[col]) / t : 0 }' "$1"
}

# --- lookups without a subprocess ---------------------------------------------

# nvlat_meminfo_kb KEY: a /proc/meminfo value in kB, e.g. Percpu or SUnreclaim.
nvlat_meminfo_kb() { awk -v k="$1:" '$1 == k { print $2 }' /proc/meminfo; }

# nvlat_read FILE: the first line of FILE in REPLY (empty when unreadable),
# without a subprocess: under TCG with fio running every fork costs tens of
# milliseconds.
nvlat_read() { REPLY=''; read -r REPLY < "$1"; } 2>/dev/null

# nvlat_ns_head NSID: the multipath head (nvmeXnY) of namespace NSID of
# $NVLAT_SUBSYS; fails while there is none.
nvlat_ns_head() {
	local h
	for h in /sys/class/nvme-subsystem/"$NVLAT_SUBSYS"/nvme*n"$1"; do
		case "${h##*/}" in nvme*c*n*) continue ;; esac
		[ -e "$h/dev" ] && { echo "${h##*/}"; return 0; }
	done
	return 1
}
