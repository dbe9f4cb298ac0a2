#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build the bench initramfs: a static busybox and an /init that boots the
# host root read-only over 9p under a tmpfs overlay, runs one command and
# reboots.
#
#   tools/vm/initramfs.sh [OUT.cpio.gz]
#
# OUT defaults to $CACHE/initramfs.cpio.gz.  The archive is rebuilt only
# when /bin/busybox or this script changes.
#
# Kernel command line read by /init:
#   nvlat.cmd=PATH   command to run inside the new root (required)
#   nvlat.work=DIR   where the read-write 9p share `work` is mounted in the
#                    new root (default /work); PATH's exit status is written
#                    to DIR/exit-status
#   nvlat.top=DIR    where the read-only 9p share `top` (the repository) is
#                    mounted when the new root hides DIR (a clone under
#                    /tmp or /run, which are tmpfs in the guest)
#   nvlat.shell=1    start a shell on the console instead of rebooting on
#                    errors (debugging)
#   nvlat.local=1    no host root: the command runs in the initramfs itself,
#                    whose later layers hold its tools (tools/vm/image.sh),
#                    and the work share is mounted only once it has exited,
#                    to copy DIR there (tools/vm/run.sh -l)
set -eu
# shellcheck source-path=SCRIPTDIR source=../common.sh
. "$(dirname "$0")/../common.sh"

out=${1:-$CACHE/initramfs.cpio.gz}
bb=/bin/busybox
[ -x "$bb" ] || die "$bb is missing: apt-get install busybox-static"
! ldd "$bb" >/dev/null 2>&1 || die "$bb is not static: install busybox-static"
need cpio gzip sha1sum flock

# init_script: print the /init of the initramfs (busybox sh, PID 1).
init_script() {
	cat <<'INIT'
#!/bin/sh
# nvlat /init (busybox sh).  Runs as PID 1 and never exits.
export PATH=/bin
bb=/bin/busybox
$bb mount -t devtmpfs dev /dev 2>/dev/null
exec </dev/console >/dev/console 2>&1
$bb mount -t proc proc /proc

say() { echo "nvlat-init: $*"; }
arg() {
	for w in $($bb cat /proc/cmdline); do
		case "$w" in "$1="*) echo "${w#*=}"; return 0 ;; esac
	done
	return 1
}
halt() {
	say "$*"
	if [ "$(arg nvlat.shell)" = 1 ]; then
		$bb setsid $bb cttyhack $bb sh
	fi
	$bb sync
	$bb reboot -f
	$bb sleep 60
}

cmd=$(arg nvlat.cmd) || halt "no nvlat.cmd= on the kernel command line"
work=$(arg nvlat.work) || work=/work
local=$(arg nvlat.local) || local=
R=/newroot

if [ "$local" = 1 ]; then
	R=
	$bb mkdir -p /run /tmp /sys/kernel/debug /sys/kernel/config
	# what the image does not hold, busybox does (last on PATH)
	$bb --install -s /bin
else
	$bb mount -t 9p -o ro,trans=virtio,version=9p2000.L,msize=512000,cache=loose \
		hostroot /lower || halt "cannot mount 9p share hostroot"
	$bb mount -t tmpfs -o mode=755 upper /upper || halt "cannot mount tmpfs"
	$bb mkdir -p /upper/upper /upper/work
	$bb mount -t overlay -o lowerdir=/lower,upperdir=/upper/upper,workdir=/upper/work \
		overlay $R || halt "cannot mount the overlay root"
	$bb mount -t proc proc $R/proc
fi
$bb mount -t sysfs sys $R/sys
[ "$local" = 1 ] || $bb mount -t devtmpfs dev $R/dev
$bb mount -t debugfs debugfs $R/sys/kernel/debug
$bb mount -t configfs configfs $R/sys/kernel/config
$bb mount -t tmpfs -o mode=755 run $R/run
$bb mount -t tmpfs -o mode=1777 tmp $R/tmp
$bb mkdir -p $R/dev/shm $R/dev/pts
$bb mount -t tmpfs -o mode=1777 shm $R/dev/shm
$bb mount -t devpts -o gid=5,mode=620,ptmxmode=666 devpts $R/dev/pts 2>/dev/null
$bb ln -sfn /proc/self/fd $R/dev/fd
$bb ln -sfn /proc/self/fd/0 $R/dev/stdin
$bb ln -sfn /proc/self/fd/1 $R/dev/stdout
$bb ln -sfn /proc/self/fd/2 $R/dev/stderr

# No udev in the guest: tools calling `udevadm settle` get a stand-in.  The
# real udevadm (and systemd-udevd, the same program) stays reachable at
# /usr/local/lib/nvlat/udevadm for the test that runs udevd.
if [ -f /lower/usr/bin/udevadm ]; then
	$bb mkdir -p $R/usr/local/lib/nvlat
	: > $R/usr/local/lib/nvlat/udevadm
	$bb mount -o bind,ro /lower/usr/bin/udevadm $R/usr/local/lib/nvlat/udevadm
fi
$bb mkdir -p $R/usr/local/sbin
printf '#!/bin/sh\nexit 0\n' > $R/usr/local/sbin/udevadm
$bb chmod 755 $R/usr/local/sbin/udevadm
for u in /usr/bin/udevadm /usr/sbin/udevadm /bin/udevadm /sbin/udevadm; do
	[ -e "$R$u" ] && [ ! -L "$R$u" ] && $bb cp $R/usr/local/sbin/udevadm "$R$u"
done
$bb hostname nvlat-guest
$bb ip link set lo up

$bb mkdir -p "$R$work"
mount_work() {
	$bb mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000,cache=none \
		work "$1" || halt "cannot mount 9p share work at $1"
}
[ "$local" = 1 ] || mount_work "$R$work"
top=$(arg nvlat.top) || top=
if [ -z "$local" ] && [ -n "$top" ] && [ ! -d "$R$top" ]; then
	$bb mkdir -p "$R$top"
	$bb mount -t 9p -o ro,trans=virtio,version=9p2000.L,msize=512000,cache=loose \
		top "$R$top" || halt "cannot mount 9p share top at $top"
fi

say "running $cmd"
$bb chroot ${R:-/} /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
	HOME=/root TERM=dumb LANG=C.UTF-8 NVLAT_WORK="$work" \
	/bin/sh -c 'cd "$NVLAT_WORK" && exec "$0"' "$cmd" </dev/null
rc=$?
if [ "$local" = 1 ]; then
	# the first host round trip: the results go to the work share
	$bb mkdir -p /work9p
	mount_work /work9p
	$bb cp -a "$work/." /work9p/ || say "cannot copy $work to the work share"
	work=/work9p
fi
echo "$rc" > "$R$work/exit-status"
say "exit status $rc"
$bb sync
$bb umount "$R$work" 2>/dev/null
halt "done"
INIT
}

sum=$(cat "$bb" "$0" | sha1sum | cut -c1-12)
cached=$CACHE/initramfs/$sum.cpio.gz
# boots started together (make demo's two, bench --parallel) on a cold
# cache: one builds, the others wait and take its image
mkdir -p "$CACHE/initramfs"
exec 9> "$CACHE/initramfs/.lock"
flock 9
if [ ! -s "$cached" ]; then
	stage=$(mktemp -d)
	chmod 755 "$stage"
	trap 'rm -rf "$stage"' EXIT
	mkdir -p "$stage"/{bin,dev,proc,sys,newroot,lower,upper}
	cp "$bb" "$stage/bin/busybox"
	ln -s busybox "$stage/bin/sh"
	# An initial console before devtmpfs is up (needs root; /init copes
	# without it).
	mknod -m 600 "$stage/dev/console" c 5 1 2>/dev/null || true
	init_script > "$stage/init"
	chmod 755 "$stage/init"
	mkdir -p "$CACHE/initramfs"
	(cd "$stage" && find . -print0 | LC_ALL=C sort -z |
		cpio --null -o -H newc --quiet -R 0:0) | gzip -9n > "$cached.tmp"
	mv "$cached.tmp" "$cached"
	step "built initramfs $cached" >&2
fi
if ! cmp -s "$cached" "$out" 2>/dev/null; then
	mkdir -p "$(dirname "$out")"
	cp "$cached" "$out.tmp"
	mv "$out.tmp" "$out"
fi
printf '%s\n' "$out"
exit 0
