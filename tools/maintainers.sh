#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make maintainers: MAINTAINERS.snippet is part of the series (the estimator
# patch adds it after "BLOCK LAYER", where parse-maintainers.pl sorts it).
# Check that the work tree's MAINTAINERS holds it verbatim, sorted, and say
# where it is; with KSRC=<tree> on a tree without it, print where it goes.
set -eu
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"

is_kernel "$TREE" || die "no kernel tree at $TREE: run 'make tree' first"
snip=$TOP/MAINTAINERS.snippet
title=$(head -n 1 "$snip")
m=$TREE/MAINTAINERS
if line=$(grep -nxF "$title" "$m" | cut -d: -f1) && [ -n "$line" ]; then
	diff <(sed -n "$line,/^\$/p" "$m" | sed '/^$/d') "$snip" > /dev/null ||
		die "the entry at $m:$line differs from MAINTAINERS.snippet"
	prev=$(awk -v l="$line" 'NR < l && /^[A-Z0-9]/ && prev_blank { t = $0 } { prev_blank = ($0 == "") } END { print t }' "$m")
	next=$(awk -v l="$line" 'NR > l && /^[A-Z0-9]/ && prev_blank { print; exit } { prev_blank = ($0 == "") }' "$m")
	[[ "$prev" < "$title" && "$title" < "$next" ]] ||
		die "the entry at $m:$line is not sorted between '$prev' and '$next'"
	step "MAINTAINERS:$line has the entry, sorted between '$prev' and '$next'"
	if [ -x "$TREE/scripts/parse-maintainers.pl" ] || [ -f "$TREE/scripts/parse-maintainers.pl" ]; then
		tmp=$(mktemp)
		perl "$TREE/scripts/parse-maintainers.pl" --input="$m" --output="$tmp" --order > /dev/null 2>&1 &&
			{ grep -A"$(($(wc -l < "$snip") - 1))" -xF "$title" "$tmp" | diff - "$snip" > /dev/null ||
				die "parse-maintainers.pl orders the entry differently"; }
		rm -f "$tmp"
	fi
else
	after=$(awk -v t="$title" '/^[A-Z0-9]/ && prev_blank && $0 < t { last = $0 }
		{ prev_blank = ($0 == "") } END { print last }' "$m")
	step "$m has no entry; it goes after the '$after' entry:"
	cat "$snip"
fi
