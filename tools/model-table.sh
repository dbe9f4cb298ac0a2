#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The latency path model's results as a markdown table, from the console
# of a boot that ran the nvme-latency-model KUnit suite (make test, or
# tools/tests/boot.sh):
#
#   tools/model-table.sh [CONSOLE_LOG] > docs/path-model.md
#
# Without an argument, the newest console.log under $CACHE/runs.
set -eu
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"

# shellcheck disable=SC2012 # run directories are ours, named by date
log=${1:-$(ls -t "$CACHE"/runs/*/console.log 2>/dev/null |
	while read -r f; do grep -q 'model: ' "$f" && { echo "$f"; break; }; done)}
[ -f "$log" ] || die "no console log with the path model's rows"
grep -q 'model: ' "$log" || die "$log has no path model rows"
cat <<HDR
# Path model: every policy against a clairvoyant placement

From the KUnit suite nvme-latency-model (tools/model/mpath-latency-model.c, a
test-only patch on top of the series), run at boot of the test kernel
(HZ=250): a discrete-event simulation on a simulated clock that drives the
real blk-clat estimator and the real pricing of the latency iopolicy.
Paths are a round trip in front of a FIFO bottleneck (servers x service time,
jittered uniformly 0.5-1.5x); see the test file for each scenario.  The
simulation is deterministic: a second run gives the same numbers.
"latency/ctrl-inflight" is the latency policy fed per-controller in-flight
counts instead of per-namespace ones.  "weighted-2026" is the weighted
round-robin of the "latency" iopolicy posted in May 2026, written from its
published description (EWMA weight 1/8 folded every 15 s, weights from
inverse latency normalised to 64, per-CPU credits); "weighted/50ms" is the
same rule folded every 50 ms.  "service-time" is the iopolicy posted in June
2026, likewise from its description: dm's service-time rule, the least
(bytes in flight on the controller + the I/O's size) / relative throughput,
with the throughputs at their default (equal), as no scenario sets them.

Kernel: $(sed -n 's/.*Linux version \([^ ]*\).*/\1/p' "$log" | head -n 1); series: $(git -C "$TOP" rev-parse --short HEAD).

| scenario | policy | IOPS | x oracle | mean latency | share per path (%) |
|---|---|---:|---:|---:|---|
HDR
sed -n 's/.*model: \(.*\)$/\1/p' "$log" | tr -d '\r' |
	awk -F' [|] ' 'NF == 6 {
		sub(/ IOPS$/, "", $3); sub(/ x oracle$/, "", $4); sub(/ mean$/, "", $5); sub(/ %$/, "", $6)
		printf "| %s | %s | %s | %s | %s |%s |\n", $1, $2, $3, $4, $5, $6 }'
echo
echo "Adaptation:"
echo
sed -n 's/.*model: \(.*\)$/\1/p' "$log" | tr -d '\r' | awk -F' [|] ' 'NF == 3 { printf "- %s: %s\n", $1, $3 }'
echo
echo "Black hole (one path silent for 20 s, then failed over):"
echo
echo "| scenario | policy | I/Os sent into it | longest pause | back after |"
echo "|---|---|---:|---:|---:|"
sed -n 's/.*model: \(black-hole.*\)$/\1/p' "$log" | tr -d '\r' |
	awk -F' [|] ' 'NF == 5 { sub(/ sent into the hole$/, "", $3); sub(/^longest gap /, "", $4)
		sub(/^back after /, "", $5); printf "| %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5 }'
