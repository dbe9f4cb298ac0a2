#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make send-dry-run: what `git send-email` would send for the series, with
# To (lists) and Cc (people) from get_maintainer.pl.  Always --dry-run:
# nothing is ever sent from here.  The mails go to $CACHE/send-dry-run.txt.
set -eu
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"

need git
git send-email --help > /dev/null 2>&1 || die "git send-email is missing: run 'make deps'"
is_kernel "$TREE" || die "no kernel tree at $TREE: run 'make tree' first"
gm="$TREE/scripts/get_maintainer.pl --no-git --no-git-fallback --norolestats"
out=$CACHE/send-dry-run.txt
mapfile -t p < <(printf '%s\n' "$TOP/patches/0000-cover-letter.patch"; series_patches)
# one recipient list for the whole series, so every mail reaches everyone
args=()
while read -r a; do args+=(--to="$a"); done < <(cd "$TREE" && $gm --nom --nor "${p[@]:1}")
while read -r a; do args+=(--cc="$a"); done < <(cd "$TREE" && $gm --nol "${p[@]:1}")
(cd "$TREE" && git send-email --dry-run --confirm=never --no-format-patch \
	--from="$(git config user.name) <$(git config user.email)>" \
	--suppress-cc=all "${args[@]}" --smtp-server=/bin/false "${p[@]}") > "$out" 2>&1 ||
	{ tail -n 20 "$out" >&2; die "git send-email --dry-run failed"; }
printf '  %s\n' "${args[@]}"
grep -E '^Subject:' "$out" | sed 's/^/  /'

step "dry run only, nothing sent; full output in $out"
