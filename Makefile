# SPDX-License-Identifier: GPL-2.0
# nvme-latency: latency-based path selection for NVMe native multipath,
# kept as a patch series against Linux 7.3.  See README.
#
# Work tree, build output and caches live under $(CACHE), outside the repo.
# KSRC=<kernel git tree> makes 'apply' (and 'tree') use that tree instead.

SHELL := /bin/bash
CACHE ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/nvme-latency
export NVLAT_CACHE := $(CACHE)
T := tools

.PHONY: help deps tree apply reset-tree export check-sync size kernel kernel-base profile scale test-fault \
	kunit test test-placement test-debug test-debug-planted torture demo bench bench-quick bench-switch \
	check check-selftest quilt-check send-dry-run send nvme-cli clean

help:
	@sed -n 's/^## //p' $(firstword $(MAKEFILE_LIST))

## make deps        install the Debian packages the project needs
deps:
	@$(T)/deps.sh

## make tree        7.3 work tree from Debian's linux-source-7.3, series applied
tree: deps
	@$(T)/tree.sh tree

## make apply KSRC=dir   apply the series to your own clean kernel git tree
apply:
	@$(T)/tree.sh apply

## make reset-tree  drop the work tree's commits and re-apply the series
reset-tree:
	@$(T)/tree.sh reset

## make export      regenerate patches/, series, block/, tools/model/ from the work tree
export:
	@$(T)/export.sh export

## make check-sync  fail if patches/, series and block/ disagree
check-sync:
	@$(T)/export.sh check

## make size        production lines the series adds (tests and docs aside)
size: tree
	@$(T)/series-size.sh

## make kernel      build the test bzImage (ccache, O= in the cache)
kernel: tree
	@$(T)/kernel.sh

## make kernel-base the unpatched base kernel, same config (for the bench)
kernel-base: tree
	@$(T)/bench/base-kernel.sh

## make kunit       blk-clat tests and the latency path model, natively (kunit.py, UML)
kunit: tree
	@$(T)/kunit.sh

## make test        every test on the test kernel; ends with "N passed, N failed"
test: deps
	@$(T)/test.sh

## make test-placement  the placement tests on the instruction clock, as make test runs them
test-placement: kernel
	@$(T)/tests/boot.sh -P

## make test-debug  lifetime tests and a short torture on a KASAN/lockdep/kmemleak kernel
test-debug: tree
	@$(T)/test-debug.sh

## make test-debug-planted  the debug kernel must report planted lifetime faults (tools/tests/planted-debug)
test-debug-planted: tree
	@$(T)/tests/planted-debug.sh

## make nvme-cli    Debian's nvme-cli with show-topology showing each path's latency file
nvme-cli:
	@$(T)/nvme-cli/build.sh

## make test-fault  guest tests that need fault injection (80) on a failslab kernel
test-fault: tree
	@$(T)/test-fault.sh

## make torture [TORTURE_SECONDS=600] [SEED=n]   fault torture on the debug kernel
TORTURE_SECONDS ?= 600
torture: tree
	@NVLAT_TORTURE_SECONDS=$(TORTURE_SECONDS) NVLAT_TORTURE_SEED=$(SEED) \
		NVLAT_TEST_TIMEOUT=$$(($(TORTURE_SECONDS) * 5 + 600)) \
		NVLAT_GUEST_TIMEOUT=$$(($(TORTURE_SECONDS) * 5 + 1800)) $(T)/test-debug.sh 70

## make demo [DEMO=--realtime]   three topologies under every iopolicy, instruction clock: a table and a PNG
demo: kernel
	@$(T)/demo.sh $(DEMO)

## make bench       the policy comparison behind docs/benchmarks.md (instruction clock, real-time cross-check)
bench: kernel
	@$(T)/bench/bench.sh --realtime

## make bench-quick  the same, one boot of short runs, no cross-check
bench-quick: kernel
	@$(T)/bench/bench.sh --quick

## make bench-switch  what switching to and from latency costs running I/O
bench-switch: kernel
	@$(T)/bench/switch.sh

## make scale       estimator footprint: 16 possible CPUs, 4 nodes, 128 paths
scale: tree
	@$(T)/scale.sh

## make profile [PROFILE_SECONDS=8]   perf profile of the overhead scenario per iopolicy (PROFILE_PATHS=2, PROFILE_POLICIES)
PROFILE_SECONDS ?= 8
profile: tree
	@$(T)/bench/profile.sh $(PROFILE_SECONDS)

## make check       checkpatch --strict, W=1, sparse, coccicheck, kernel-doc
check: tree
	@$(T)/check.sh

## make check-selftest  make check must fail on planted problems
check-selftest: tree
	@$(T)/check-selftest.sh

## make quilt-check the series pushes with quilt on a plain 7.3 tree
quilt-check: tree
	@$(T)/check.sh quilt

## make send-dry-run  git send-email --dry-run of the series, as you would send it
send-dry-run: tree
	@$(T)/send.sh --dry-run

## make send        send the series with git send-email, From: and Signed-off-by: you
send: tree
	@$(T)/send.sh

clean:
	rm -rf "$(CACHE)/runs" "$(CACHE)/test-logs"
