#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# A sparse that parses the kernel's headers, for make check's C=2 runs.
#
#   tools/sparse.sh     prints the directory to put first on PATH, or
#                       nothing when the installed sparse will do
#
# Debian 12's sparse (0.6.4) cannot parse 7.3's headers (__typeof_unqual__),
# and Kbuild then makes C=2 a no-op (scripts/checker-valid.sh).  In that
# case the sparse source package of $SPARSE_SUITE (default sid) is fetched
# through apt, with a deb-src list of its own on the machine's mirror, and
# built (not installed) in $CACHE/sparse, once.
set -eu
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"

SUITE=${SPARSE_SUITE:-sid}
dir=$CACHE/sparse

valid() { # valid SPARSE: Kbuild runs SPARSE on this tree
	[ "$(sh "$TREE/scripts/checker-valid.sh" "$1" -m64 2>/dev/null)" = 1 ]
}

is_kernel "$TREE" || die "no kernel tree at $TREE: run 'make tree' first"
! valid sparse || exit 0
if valid "$dir/bin/sparse"; then
	echo "$dir/bin"
	exit 0
fi
need apt-get dpkg-source make gcc
step "sparse $(sparse --version 2>/dev/null) cannot parse $TREE: building sparse from $SUITE in $dir" >&2
apt_private "$CACHE/apt-$SUITE" deb-src "$SUITE" >&2 || die "apt-get update of $SUITE (deb-src) failed"
rm -rf "$dir.new"
mkdir -p "$dir.new/bin"
log=$dir.new/build.log
(cd "$dir.new" && apt-get "${APT_OPTS[@]}" -qq source --download-only sparse) > "$log" 2>&1 ||
	{ tail -n 5 "$log" >&2; die "apt-get source sparse from $SUITE failed"; }
dpkg-source -x "$dir.new"/sparse_*.dsc "$dir.new/src" >> "$log" 2>&1 ||
	{ tail -n 5 "$log" >&2; die "dpkg-source -x failed (log: $log)"; }
# only the checker; CC=gcc: Debian's packaging names its build gcc version;
# the upstream Makefile still says 0.6.4 for 0.6.5-rc1: the package's version
ver=$(sed -n 's/^Version: //p' "$dir.new"/sparse_*.dsc)
make -C "$dir.new/src" -j"$(nproc)" CC=gcc HAVE_LLVM=no HAVE_GTK=no HAVE_SQLITE=no \
	HAVE_LIBXML=no SPARSE_VERSION="$ver" sparse >> "$log" 2>&1 ||
	{ tail -n 5 "$log" >&2; die "sparse build failed (log: $log)"; }
cp "$dir.new/src/sparse" "$dir.new/bin/"
valid "$dir.new/bin/sparse" ||
	die "sparse $("$dir.new/bin/sparse" --version) from $SUITE cannot parse $TREE either"
rm -rf "$dir"
mv "$dir.new" "$dir"
step "built sparse $("$dir/bin/sparse" --version) in $dir/bin" >&2
echo "$dir/bin"
