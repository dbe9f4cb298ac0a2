# SPDX-License-Identifier: GPL-2.0
# Median, minimum and maximum over the rounds of every column of the runs
# table that tools/bench/extract.sh prints; one output line per scenario,
# policy and column: "scenario policy column median min max n".
# -v names="NAME ...": other value columns (after scenario, round, policy).
# -v long=1: instead, one line per value, "scenario policy column round
# value", for ratios taken within a round (tools/bench/report.sh).
# (mawk: no asort, so a small insertion sort.)

BEGIN {
	FS = OFS = "\t"
	if (names == "")
		names = "iops mib p50 p99 p999 cpu_us share1 share2 bshare1 bshare2 " \
			"large_mib large_p50 large_p99 large_p999 t90 t90max errors cpu_ns"
	split(names, col, " ")
}

long {
	for (i = 4; i <= NF && i - 3 in col; i++)
		if ($i != "")
			print $1, $3, col[i - 3], $2, $i
	next
}

{
	k = $1 SUBSEP $3
	if (!(k in seen)) { seen[k] = 1; order[++nk] = k }
	for (i = 4; i <= NF && i - 3 in col; i++) {
		if ($i == "") continue
		c = k SUBSEP col[i - 3]
		if (!(c in nv)) { nv[c] = 0; cols[k] = cols[k] " " col[i - 3] }
		v[c, ++nv[c]] = $i + 0
	}
}

END {
	if (long)
		exit
	for (o = 1; o <= nk; o++) {
		k = order[o]
		split(k, sp, SUBSEP)
		nc = split(cols[k], cl, " ")
		for (q = 1; q <= nc; q++) {
			c = k SUBSEP cl[q]
			n = nv[c]
			for (i = 1; i <= n; i++) a[i] = v[c, i]
			for (i = 2; i <= n; i++) {
				x = a[i]
				for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]
				a[j + 1] = x
			}
			med = n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
			print sp[1], sp[2], cl[q], med, a[1], a[n], n
		}
	}
}
