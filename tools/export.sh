#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make export: regenerate patches/, series and the copies of the files the
# series adds (block/, include/, drivers/) from the work tree's commits, and
# tools/model/ from its test-only top commits (the path model).
# make check-sync: fail when patches/, series and those copies disagree
# (and, if the work tree exists, when its commits differ from patches/).
set -eu
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"

BASE_TAG=${BASE_TAG:-nvlat-base}
COVER="$TOP/tools/cover-letter.txt"

# list_patches: the patch files in patches/, cover letter aside, in order
list_patches() {
	local f
	for f in "$TOP"/patches/[0-9]*.patch; do
		case "${f##*/}" in 0000-cover-letter.patch) ;; *) echo "${f##*/}" ;; esac
	done
}

# added_files DIR...: paths the series adds, read from the patches
added_files() {
	series_patches | xargs -r grep -h -B3 '^new file mode' |
		sed -n 's|^diff --git a/\(.*\) b/.*|\1|p' | sort -u
}

# readme_patches: README with its patch list made from the patches' subjects
readme_patches() {
	python3 - "$TOP/README" "$TOP/patches" "$TOP/series" <<'PY'
import email, re, sys
readme, pdir, series = sys.argv[1:]
subjects = []
for name in open(series).read().split():
    msg = email.message_from_file(open(pdir + '/' + name))
    subj = re.sub(r'\s+', ' ', msg['Subject'])
    subjects.append('  ' + re.sub(r'^\[PATCH[^]]*\] ', '', subj))
text = open(readme).read()
head = 'A patch series against Linux 7.3 (patches/, in quilt order in series):\n\n'
i = text.index(head) + len(head)
j = text.index('\n\n', i)
sys.stdout.write(text[:i] + '\n'.join(subjects) + text[j:])
PY
}

export_series() {
	local out subject
	is_kernel "$TREE" || die "no work tree at $TREE: run 'make tree' first"
	tree_clean "$TREE" || die "$TREE has uncommitted changes: commit them first"
	[ "$(git -C "$TREE" rev-list --count "$BASE_TAG..HEAD")" -gt 0 ] ||
		die "$TREE has no commits on $BASE_TAG"
	# the top commits are the test-only patches, as many as tools/model/ has
	ntest=$(test_patches | wc -l)
	top=HEAD~$ntest
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	git -C "$TREE" format-patch -q -o "$tmp" --cover-letter --zero-commit \
		--no-signature --no-base "$BASE_TAG..$top"
	mkdir -p "$tmp/model"
	git -C "$TREE" format-patch -q -o "$tmp/model" --zero-commit \
		--no-signature --no-base "$top..HEAD"
	# the cover letter: subject and blurb from tools/cover-letter.txt, date
	# of the last patch, so that nothing changes from one export to the next
	out="$tmp/0000-cover-letter.patch"
	subject=$(head -n 1 "$COVER")
	python3 - "$out" "$COVER" "$subject" "$(git -C "$TREE" log -1 --format=%aD)" \
		"$TOP/docs/benchmarks.md" <<'PY'
import os, re, sys
path, cover, subject, date, bench = sys.argv[1:]
text = open(path).read()
blurb = open(cover).read().split('\n', 1)[1].strip('\n')
# the numbers: the block of docs/benchmarks.md between the cover markers
numbers = '(docs/benchmarks.md has not been generated yet: make bench)'
if os.path.exists(bench):
    m = re.search(r'<!-- cover-begin -->\n(.*?)<!-- cover-end -->', open(bench).read(), re.S)
    if m:
        # without the markdown code fence around it
        numbers = '\n'.join(l for l in m.group(1).split('\n')
                             if l.strip() != '```').strip('\n')
blurb = blurb.replace('@BENCH@', numbers)
text = text.replace('*** SUBJECT HERE ***', subject)
text = text.replace('*** BLURB HERE ***', blurb)
text = re.sub(r'^Date: .*$', 'Date: ' + date, text, count=1, flags=re.M)
open(path, 'w').write(text)
PY
	rm -f "$TOP"/patches/*.patch "$TOP"/tools/model/*.patch "$TOP"/tools/model/*.c
	mkdir -p "$TOP/patches" "$TOP/tools/model"
	cp "$tmp"/*.patch "$TOP/patches/"
	cp "$tmp"/model/*.patch "$TOP/tools/model/" 2> /dev/null || true
	list_patches > "$TOP/series"
	readme_patches > "$tmp/README" && mv "$tmp/README" "$TOP/README"
	# copies of the added files, in kernel-tree paths; the test-only
	# patches' .c files in tools/model/
	git -C "$TREE" diff --name-only --diff-filter=A "$BASE_TAG..$top" > "$tmp/added"
	rm -rf "$TOP/block" "$TOP/drivers" "$TOP/include"
	while read -r f; do
		mkdir -p "$TOP/$(dirname "$f")"
		git -C "$TREE" show "$top:$f" > "$TOP/$f"
	done < "$tmp/added"
	git -C "$TREE" diff --name-only --diff-filter=A "$top..HEAD" -- '*.c' |
		while read -r f; do cp "$TREE/$f" "$TOP/tools/model/"; done
	step "exported $(wc -l < "$TOP/series") patches, $ntest test-only, and $(wc -l < "$tmp/added") added files"
}

check_sync() {
	local f bad=0
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	# series names exactly the patches in patches/, cover letter aside
	list_patches > "$tmp/have"
	grep -v -e '^#' -e '^$' "$TOP/series" > "$tmp/want" || true
	if ! cmp -s "$tmp/have" "$tmp/want"; then
		echo "series and patches/ disagree:"; diff "$tmp/want" "$tmp/have" || true
		bad=1
	fi
	[ -f "$TOP/patches/0000-cover-letter.patch" ] || { echo "no cover letter in patches/"; bad=1; }
	readme_patches | cmp -s - "$TOP/README" ||
		{ echo "README's patch list is not the series' (run make export)"; bad=1; }
	# the copies equal what the series produces
	git -C "$tmp" init -q
	added_files > "$tmp/added"
	if [ -s "$tmp/added" ]; then
		args=()
		while read -r f; do args+=(--include="$f"); done < "$tmp/added"
		mapfile -t p < <(series_patches)
		for f in "${p[@]}"; do
			git -C "$tmp" apply "${args[@]}" "$f" ||
				{ echo "cannot replay $f"; bad=1; }
		done
	fi
	while read -r f; do
		cmp -s "$tmp/$f" "$TOP/$f" || { echo "$f differs from what the series adds (run make export)"; bad=1; }
	done < "$tmp/added"
	for f in $(cd "$TOP" && find block drivers include -type f 2>/dev/null); do
		grep -qxF "$f" "$tmp/added" || { echo "$f is not added by the series"; bad=1; }
	done
	# the test-only patches' .c files in tools/model/, after the series
	mapfile -t p < <(test_patches)
	for f in "${p[@]}"; do
		git -C "$tmp" apply --include='*.c' "$f" || { echo "cannot replay $f"; bad=1; }
	done
	for f in $(cd "$tmp" && git ls-files -o --exclude-standard -- '*.c' | grep -vxF -f "$tmp/added"); do
		cmp -s "$tmp/$f" "$TOP/tools/model/${f##*/}" ||
			{ echo "tools/model/${f##*/} differs from what the test-only patches add (run make export)"; bad=1; }
	done
	# the work tree, if there is one, holds what patches/ and tools/model/ hold
	if [ -d "$TREE/.git" ] && git -C "$TREE" rev-parse -q --verify "$BASE_TAG" > /dev/null &&
		[ "$(git -C "$TREE" rev-list --count "$BASE_TAG..HEAD")" -gt 0 ]; then
		a=$(git -C "$TREE" log --reverse -p "$BASE_TAG..HEAD" | git patch-id --stable | cut -d' ' -f1)
		b=$(tree_patches | xargs -r cat | git patch-id --stable | cut -d' ' -f1)
		[ "$a" = "$b" ] || { echo "$TREE has commits that are not in patches/ or tools/model/ (run make export)"; bad=1; }
	fi
	[ "$bad" = 0 ] || die "patches/, series and the copies are out of sync"
	step "check-sync: patches/, series and the added files agree"
}

case "${1:-export}" in
export) export_series ;;
check) check_sync ;;
*) die "usage: $0 [export|check]" ;;
esac
