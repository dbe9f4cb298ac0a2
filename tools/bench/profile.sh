#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Where the instructions go in the overhead scenario, per iopolicy: boots
# the bench's cost kernel (tools/vm/cost.config, no KUnit, in
# $CACHE/build-cost, built if needed; perf events and kallsyms are in the
# test kernel's config already) on the deterministic clock with one vCPU
# (run.sh -d: cpu-clock samples then fall every N instructions), runs
# tools/bench/profile-guest.sh, then prints the share of samples in the
# functions the iopolicies and the estimator run per I/O.  The profile is
# of the very kernel whose instructions per I/O the bench reports.
#
#   tools/bench/profile.sh [SECONDS]     # per policy, default 8
#
# PROFILE_PATHS (default 2) loop paths and PROFILE_POLICIES (default all
# but the oracle) go to the guest script, which sets the defaults.
#
# Results (flat profiles POLICY.top, series.tsv, fio JSON) stay in
# $CACHE/profile/<timestamp>.
set -eu
# shellcheck source-path=SCRIPTDIR source=../common.sh
. "$(dirname "$0")/../common.sh"

secs=${1:-8}
case "$secs" in '' | *[!0-9]*) die "SECONDS must be a number" ;; esac
need perf jq
out=$CACHE/build-cost
"$TOP/tools/kernel.sh" "$out" "$TOP/tools/vm/cost.config"
rd=$CACHE/profile/$(date +%Y%m%d-%H%M%S)
mkdir -p "$rd"
"$TOP/tools/vm/run.sh" -q -k "$out/arch/x86/boot/bzImage" -t $((secs * 20 + 600)) -d -c1 -r "$rd" -- \
	env PROFILE_SECONDS="$secs" PROFILE_PATHS="${PROFILE_PATHS:-}" \
	PROFILE_POLICIES="${PROFILE_POLICIES:-}" "$TOP/tools/bench/profile-guest.sh" ||
	die "guest run failed; see $rd/console.log"
grep -a '^# .*IOPS under perf' "$rd/console.log" | sed 's/^# //' || true
echo "share of CPU samples (children = with callees), $secs s per policy:"
awk -F '\t' '{ printf "  %-12s %-40s self %7s  children %7s\n", $1, $2, $3, $4 }' "$rd/series.tsv"
step "profiles in $rd"
