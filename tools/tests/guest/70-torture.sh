#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# A short fault torture (torture.sh): NVLAT_TORTURE_SECONDS (default 45)
# of path loss and return, ANA changes, resets, policy switches, netem
# changes and namespace removal under fio verify.  make torture runs the
# long one.
export DESCRIPTION="path loss, ANA, resets, policy switches and netem at random"
set -u
exec bash "$(dirname "$0")/torture.sh" -d "${NVLAT_TORTURE_SECONDS:-45}"
