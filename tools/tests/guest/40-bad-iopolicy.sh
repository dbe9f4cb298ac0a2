#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Writing an invalid string to the subsystem's iopolicy attribute fails and
# leaves the policy unchanged (newline only, blanks, unknown names, near
# misses, over-long strings, binary bytes); the valid names are accepted.
DESCRIPTION="an invalid iopolicy string is refused and the policy kept"
QUICK=1
set -u
# shellcheck source-path=SCRIPTDIR source=../../vm/lib.sh
. "$(dirname "$0")/../../vm/lib.sh"

bad=($'\n' ' ' $'\t' '  ' 'foo' 'round-robinx' 'round-robi' 'NUMA' ' numa'
	'numa ' 'numa,round-robin' "$(printf 'x%.0s' {1..4095})"
	"numa$(printf 'a%.0s' {1..5000})" $'\xff\xfe\x01' $'\x01numa' $'numa\x01' $'\x1b[0m')
names=(newline space tab two-spaces foo round-robinx round-robi NUMA
	leading-space trailing-space list 4095-x numa+5000-a 'ff fe 01'
	'01 numa' 'numa 01' escape-sequence)
good=(numa round-robin queue-depth $'numa\n')
tap_plan $((2 * ${#bad[@]} + ${#good[@]}))
nvlat_setup loop || tap_bail "setup failed"
trap nvlat_teardown EXIT

nvlat_iopolicy_set round-robin || tap_bail "cannot set round-robin"
for i in "${!bad[@]}"; do
	before=$(nvlat_iopolicy_get)
	! nvlat_iopolicy_set "${bad[$i]}"
	tap_result $? "write of invalid '${names[$i]}' fails"
	tap_is "$(nvlat_iopolicy_get)" "$before" "policy unchanged after '${names[$i]}'"
done
for p in "${good[@]}"; do
	want=${p%$'\n'}
	nvlat_iopolicy_set "$p" && [ "$(nvlat_iopolicy_get)" = "$want" ]
	tap_result $? "valid '$want'$([ "$p" = "$want" ] || echo ' with newline') accepted"
done
if nvlat_iopolicy_has latency; then tap_diag "kernel has iopolicy 'latency'"; fi
tap_done
