#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# One TSV line per bench run from the files tools/bench/bench-guest.sh wrote:
#
#   tools/bench/extract.sh RESULTS_DIR [TAG]
#
# Columns: scenario round policy iops mib p50 p99 p99.9 cpu_us share1
# share2 bshare1 bshare2 large_mib large_p50 large_p99 large_p99.9 t90
# t90max errors cpu_ns.  Latencies are fio `lat` (submission + completion)
# in us, of reads, or of writes in a job without reads; cpu_us is fio's
# usr + sys CPU time per I/O; cpu_ns is the guest's CPU time per I/O in
# the run's .win window (all CPUs, busy = elapsed - idle; under -icount
# with one vCPU that is instructions per I/O); share = % of completed I/Os
# (bshare: of sectors) per path, from the path disks' stat over the whole
# run.  t90, t90max: of the delay moves of a `shifting` run, the (upper)
# median and the longest time in seconds from a move until a 0.5 s window
# has >= 90% of its I/O on the new fast path (99 = never).
# mixed: iops and latencies of the 4 KiB job, large_* of the 128 KiB job;
# two-namespaces: of the job named nvlat (not the load job).
# TAG, when given, is appended to the policy name (e.g. "@base").
set -eu
# shellcheck source-path=SCRIPTDIR source=common.sh
. "$(dirname "$0")/common.sh"

res=${1:?results dir}
tag=${2:-}
ncpu=$(awk '$1 == "nproc" { print $2 }' "$res/meta")

# fio_fields JSON: iops mib p50 p99 p99.9 cpu_us lmib lp50 lp99 lp999 errors
fio_fields() {
	fio_json "$1" | jq -r '
		def pct($p): ((.lat_ns.percentile[$p] // 0) / 1e3);
		def lat: [pct("50.000000"), pct("99.000000"), pct("99.900000")];
		def cpu($j): [$j[] | .usr_cpu + .sys_cpu] | add;
		def dir: if .read.total_ios > 0 then .read else .write end;
		.jobs as $j
		| ([$j[] | select(.jobname != "large" and .jobname != "load")] | .[0]) as $s
		| ([$j[] | select(.jobname == "large")] | .[0]) as $l
		| ([$j[] | .read.iops + .write.iops] | add) as $all
		| ($s | dir) as $d
		| [$d.iops, $d.bw / 1024] + ($d | lat)
		+ [if $all > 0 then cpu($j) / 100 * 1e6 / $all else 0 end]
		+ (if $l then [$l.read.bw / 1024] + ($l.read | lat) else [0, 0, 0, 0] end)
		+ [[$j[] | .error] | add]
		| map(tostring) | join("\t")'
}

# shares STAT: share1 share2 bshare1 bshare2 (I/Os, sectors per path)
shares() {
	awk '{ l[NR] = $0 } END {
		n = NR / 2
		for (i = 1; i <= n; i++) {
			split(l[i], a); split(l[i + n], b)
			d[i] = b[1] - a[1]; s[i] = b[2] - a[2]; td += d[i]; ts += s[i]
		}
		for (i = 1; i <= 2; i++) printf "%.1f\t", td ? 100 * d[i] / td : 0
		for (i = 1; i <= 2; i++) printf "%.1f%s", ts ? 100 * s[i] / ts : 0, i < 2 ? "\t" : "\n"
	}' "$1"
}

# t90 SAMPLES MOVES: seconds to >= 90% on the new fast path, median and
# longest over the moves
t90() {
	awk 'NR == FNR { m[++nm] = $1; f[nm] = $2; next }
		{ t[++n] = $1; a[n] = $2; b[n] = $3 }
		END {
			for (k = 1; k <= nm; k++) {
				r = 99
				end = k < nm ? m[k + 1] : t[n]
				for (i = 1; i <= n && r == 99; i++) {
					if (t[i] < m[k] || t[i] + 0.5 > end) continue
					for (j = i; j < n && t[j] < t[i] + 0.5; j++) ;
					da = a[j] - a[i]; db = b[j] - b[i]
					new = f[k] == 1 ? da : db
					if (da + db > 0 && new / (da + db) >= 0.9) r = t[i] - m[k]
				}
				for (i = k - 1; i >= 1 && s[i] > r; i--) s[i + 1] = s[i]
				s[i + 1] = r
			}
			if (nm == 0) { printf "99.00\t99.00\n"; exit }
			# the upper median: a policy that stays put on half the moves
			# reads 99, not the mean of 99 and a stay-put 0
			printf "%.2f\t%.2f\n", s[int(nm / 2) + 1], s[nm]
		}' "$2" "$1"
}

for dir in "$res"/*/; do
	s=$(basename "$dir")
	[ -f "$dir/policies" ] || continue
	for j in "$dir"/r*-*.json; do
		[ -e "$j" ] || continue
		b=${j%.json}
		r=${b##*/r}
		p=${r#*-}
		r=${r%%-*}
		f=$(fio_fields "$j")
		sh=$(shares "$b.stat")
		if [ -s "$b.moves" ]; then tt=$(t90 "$b.samples" "$b.moves"); else tt=$(printf '\t'); fi
		# .win: TIME_US IDLE_CS IOS, twice
		cns=$(awk -v n="$ncpu" '{ t[NR] = $1; i[NR] = $2; o[NR] = $3 }
			END { if (NR == 2 && o[2] > o[1])
				printf "%.1f", (n * (t[2] - t[1]) * 1000 - (i[2] - i[1]) * 1e7) / (o[2] - o[1]) }' \
			"$b.win" 2>/dev/null || true)
		# fio_fields: iops mib p50 p99 p999 cpu lmib lp50 lp99 lp999 err
		IFS=$'\t' read -r iops mib p50 p99 p999 cpu lmib lp50 lp99 lp999 err <<< "$f"
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' \
			"$s" "$r" "$p$tag" "$iops" "$mib" "$p50" "$p99" "$p999" "$cpu" "$sh" \
			"$lmib" "$lp50" "$lp99" "$lp999" "$tt" "$err" "$cns"
	done
done
