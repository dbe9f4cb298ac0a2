#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# A udev rule in nvme-cli's style selects the latency iopolicy for one
# array by its model number when its subsystem appears, under the real
# systemd-udevd (Debian's udev package): both paths then get an estimator
# and show it in their latency files; nvme-cli's list-subsys and
# show-topology still work under it (Debian 12's nvme-cli 2.3 prints no
# iopolicy, under any policy).  A subsystem of another model keeps the
# default policy.
DESCRIPTION="a udev rule selects latency by model number"
QUICK=1
set -u
# shellcheck source-path=SCRIPTDIR source=../../vm/lib.sh
. "$(dirname "$0")/../../vm/lib.sh"

# the real udevadm, which the guest keeps apart from its stand-in
# (tools/vm/initramfs.sh); called as systemd-udevd it is the daemon
real=/usr/local/lib/nvlat/udevadm
if ! [ -s "$real" ]; then
	echo "1..0 # SKIP no udevadm (Debian's udev package) on the host"
	exit 0
fi
bin=/run/nvlat-udev
mkdir -p "$bin"
ln -sf "$real" "$bin/systemd-udevd"
ln -sf "$real" "$bin/udevadm"
PATH=$bin:$PATH
# the guest command runs chrooted into the overlay root
export SYSTEMD_IGNORE_CHROOT=1
tap_plan 8
# named to sort after nvme-cli's 71-nvmf-*.rules, as the admin guide says
rules=/etc/udev/rules.d/72-nvlat-iopolicy.rules
# and a vendor rule in nvme-cli's style for the same array, which sets
# another policy on the same event: the admin's rule must win
vendor=/etc/udev/rules.d/71-nvmf-nvlat-vendor.rules
mkdir -p "${rules%/*}"
# the rule as the admin guide gives it
cat > "$rules" <<'RULES'
ACTION=="add", SUBSYSTEM=="nvme-subsystem", ATTR{subsystype}=="nvm", ATTR{model}=="nvlat-array", ATTR{iopolicy}="latency"
RULES
cat > "$vendor" <<'RULES'
ACTION=="add", SUBSYSTEM=="nvme-subsystem", ATTR{subsystype}=="nvm", ATTR{model}=="nvlat-array", ATTR{iopolicy}="round-robin"
RULES
systemd-udevd --daemon --resolve-names=never || tap_bail "systemd-udevd did not start"
trap 'udevadm control --exit; rm -f "$rules" "$vendor"; nvlat_teardown' EXIT
udevadm settle -t 10

NVLAT_MODEL=nvlat-array nvlat_setup tcp tcp || tap_bail "setup failed"
udevadm settle -t 10
# sysfs pads the model number with blanks, which udev's match ignores
model=$(cat "/sys/class/nvme-subsystem/$NVLAT_SUBSYS/model")
tap_is "${model%"${model##*[! ]}"}" nvlat-array "the subsystem reports the model"
tap_is "$(nvlat_iopolicy_get)" latency "the rule selected latency when the subsystem appeared, over the vendor rule"
tap_ok "both paths have an estimator" nvlat_wait 5 eval 'nvlat_clat_attached 1 && nvlat_clat_attached 2'
# shown: node 0's line of both latency files has a state other than none
shown() {
	local id
	for id in 1 2; do
		case "$(nvlat_lat_field "$id" state)" in fresh | stale | backed-off | silent) ;; *) return 1 ;; esac
	done
}
tap_ok "both paths' latency files show their estimators" nvlat_wait 5 shown

out=$(nvme list-subsys 2>&1)
tap_diag "nvme list-subsys:" "${out//$'\n'/$'\n'# }"
grep -q "$NVLAT_NQN" <<< "$out" && grep -q "$(nvlat_ctrl 1) " <<< "$out" &&
	grep -q "$(nvlat_ctrl 2) " <<< "$out"
tap_result $? "nvme list-subsys lists the subsystem and both controllers"
out=$(nvme show-topology 2>&1)
rc=$?
tap_diag "nvme show-topology (exit $rc):" "${out//$'\n'/$'\n'# }"
[ "$rc" = 0 ] && grep -q "$NVLAT_NQN" <<< "$out" && grep -q "$(nvlat_ctrl 1)" <<< "$out"
tap_result $? "nvme show-topology lists the subsystem and its controllers"
# nvme-cli patched by tools/nvme-cli (85-nvme-cli-latency tests it in
# full): under this udevd each path shows its latency line
pnvme=${NVLAT_NVME_CLI:-${NVLAT_CACHE:-$HOME/.cache/nvme-latency}/nvme-cli/nvme}
if [ -x "$pnvme" ]; then
	out=$("$pnvme" show-topology 2>&1)
	tap_diag "patched nvme show-topology:" "${out//$'\n'/$'\n'# }"
	[ "$(grep -c '^ *latency read ' <<< "$out")" = 2 ]
	tap_result $? "patched nvme show-topology shows both paths' latency lines"
else
	tap_skip "patched nvme show-topology shows both paths' latency lines" "no $pnvme"
fi

# a subsystem of another model keeps the default policy
nvlat_teardown > /dev/null 2>&1
NVLAT_MODEL=other-array nvlat_setup tcp || tap_bail "second setup failed"
udevadm settle -t 10
tap_is "$(nvlat_iopolicy_get)" "$(cat /sys/module/nvme_core/parameters/iopolicy)" \
	"a subsystem of another model keeps the default policy"
tap_done
