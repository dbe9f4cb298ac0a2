#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make send / make send-dry-run: the series as its sender sends it.  A patch
# is signed off by the person who sends it, so the mails are made from
# patches/ with the sender's git identity (`git var GIT_AUTHOR_IDENT`) as
# From: and Signed-off-by:, in place of the repository's author and that
# author's sign-off (other trailers stay); without an identity it stops with
# one line.  To (lists) and Cc (people) come from get_maintainer.pl.
#
#   send.sh -n     git send-email --dry-run, output in $CACHE/send-dry-run.txt
#   send.sh        git send-email for real, asking before each mail
#                  (--confirm=always; SMTP from your sendemail.* config)
#
# The mails are kept in $CACHE/send/ (the cover letter first).
set -eu
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"

dry=
case "${1:-}" in
-n | --dry-run) dry=1 ;;
'') ;;
*) die "usage: ${0##*/} [-n|--dry-run]" ;;
esac
need git
ident=$(git var GIT_AUTHOR_IDENT 2> /dev/null) || no_identity "to sign the series off with"
sender=${ident% * *} # drop the time stamp and zone
git send-email --help > /dev/null 2>&1 || die "git send-email is missing: run 'make deps'"
is_kernel "$TREE" || die "no kernel tree at $TREE: run 'make tree' first"

# as_sender PATCH OUT: PATCH with the sender as its author (the From:
# header, folded or not, and the cover letter's shortlog) and as signer in
# place of the author's
as_sender() {
	local info name email
	info=$(git mailinfo /dev/null /dev/null < "$1")
	name=$(sed -n 's/^Author: //p' <<< "$info")
	email=$(sed -n 's/^Email: //p' <<< "$info")
	[ -n "$email" ] || die "no author in $1"
	awk -v who="$sender" -v tail="<$email>" -v name="$name (" \
		-v me="${sender% <*} (" '
		hdr && /^$/ { hdr = 0 }
		hdr && skip && /^[ \t]/ { next }
		{ skip = 0 }
		hdr && /^From: / { print "From: " who; skip = 1; next }
		!hdr && /^Signed-off-by: / && substr($0, length($0) - length(tail) + 1) == tail {
			if (!signed++) print "Signed-off-by: " who
			next
		}
		!hdr && index($0, name) == 1 && /\):$/ { $0 = me substr($0, length(name) + 1) }
		{ print }' hdr=1 "$1" > "$2"
}

dir=$CACHE/send
rm -rf "$dir"
mkdir -p "$dir"
p=()
while read -r f; do
	as_sender "$f" "$dir/${f##*/}"
	p+=("$dir/${f##*/}")
done < <(printf '%s\n' "$TOP/patches/0000-cover-letter.patch"; series_patches)
for f in "${p[@]:1}"; do
	grep -qxF "Signed-off-by: $sender" "$f" || die "$f is not signed off by the sender"
done

gm="$TREE/scripts/get_maintainer.pl --no-git --no-git-fallback --norolestats"
# one recipient list for the whole series, so every mail reaches everyone
args=()
while read -r a; do args+=(--to="$a"); done < <(cd "$TREE" && $gm --nom --nor "${p[@]:1}")
while read -r a; do args+=(--cc="$a"); done < <(cd "$TREE" && $gm --nol "${p[@]:1}")
if [ -z "$dry" ]; then
	git send-email --confirm=always --no-format-patch --from="$sender" \
		--suppress-cc=all "${args[@]}" "${p[@]}"
	exit
fi
out=$CACHE/send-dry-run.txt
git send-email --dry-run --confirm=never --no-format-patch --from="$sender" \
	--suppress-cc=all "${args[@]}" --smtp-server=/bin/false "${p[@]}" > "$out" 2>&1 ||
	{ tail -n 20 "$out" >&2; die "git send-email --dry-run failed"; }
printf '  %s\n' "${args[@]}"
grep -E '^Subject:' "$out" | sed 's/^/  /'
step "dry run only, nothing sent, from $sender; mails in $dir, output in $out"
