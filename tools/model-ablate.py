#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Ablation of the latency iopolicy in the path model.

    tools/model-ablate.py [NAME...]

For each mechanism (all, or those NAMEd), switch it off in the work tree
($CACHE/linux, series applied) with a one-line edit, run the path model
with make kunit (tools/kunit.sh, UML), write the model's table to
$CACHE/ablate/NAME.md and print the latency policy's row per scenario;
the tree is restored after each run.  "baseline" runs it unchanged.
docs/lean-v1.md has the table this gave.
"""
import os, subprocess, sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CACHE = os.environ.get('CACHE') or os.path.join(
    os.environ.get('XDG_CACHE_HOME') or os.path.expanduser('~/.cache'), 'nvme-latency')
W = os.path.join(CACHE, 'linux') + '/'
ML = 'drivers/nvme/host/mpath-latency.c'
BC = 'block/blk-clat.c'
abl = {
 'baseline': [],
 'reads-writes-apart': [(BC, '	unsigned int weight = blk_clat_weight(clat, cpu, write);', '	unsigned int weight = blk_clat_weight(clat, cpu, write = false);'),
                        (BC, '	bool write = op_is_write(req_op(rq));\n\tunsigned int weight;', '	bool write = false;\n\tunsigned int weight;'),
                        (ML, '	struct blk_clat_est est = blk_clat_read(lat->clat, write);', '	struct blk_clat_est est = blk_clat_read(lat->clat, false);')],
 'band': [(ML, '#define NVME_LAT_BAND_SHIFT	2', '#define NVME_LAT_BAND_SHIFT	40')],
 'littles-law': [(ML, '''	in->per_req_ns = div_u64((u64)in->lat_ns << 10,
				 lat->inflight_x1024 + 1024);''', '''	in->per_req_ns = in->lat_ns;''')],
 'mean-in-flight-bound': [(ML, '			  (nr_done + inflight) << 10, U16_MAX << 10);', '			  U16_MAX << 10, U16_MAX << 10);')],
 'probes': [(ML, '''	if (!b->fresh || !in->stale || in->silent || in->tier != b->tier ||''', '''	if (1 || !b->fresh || !in->stale || in->silent || in->tier != b->tier ||''')],
 'probe-backoff': [(ML, '#define NVME_LAT_MAX_BACKOFF	4', '#define NVME_LAT_MAX_BACKOFF	0')],
 'backoff-end-on-doubling': [(ML, '	if (!outside || b->band_ns > 2ULL * s->band_ns) {', '	if (!outside) {')],
 'silence': [(ML, '''	in->silent = inflight &&''', '''	in->silent = 0 && inflight &&''')],
 'no-estimate-in-band': [(ML, '''	if (in->lat_ns > b->band_ns)
		return nvme_lat_make_price(b->band_ns, in->per_req_ns);''', '''	if (in->lat_ns > b->band_ns || !in->lat_ns)
		return nvme_lat_make_price(b->band_ns, in->per_req_ns);''')],
 'ewma-ageing': [(BC, '''					     b->est.age + windows - 1), U32_MAX));''', '''					     0), U32_MAX));''')],
 'probes-only-in-use': [(ML, '''	if (!b->fresh || !in->stale''', '''	if (!in->stale''')],
}


def run(name):
    os.makedirs(os.path.join(CACHE, 'ablate'), exist_ok=True)
    log = os.path.join(CACHE, 'ablate', name + '.log')
    with open(log, 'w') as f:
        subprocess.run([os.path.join(TOP, 'tools/kunit.sh'), '--raw_output=all'],
                       stdout=f, stderr=subprocess.STDOUT)
    md = subprocess.run([os.path.join(TOP, 'tools/model-table.sh'), log],
                        capture_output=True, text=True).stdout
    open(os.path.join(CACHE, 'ablate', name + '.md'), 'w').write(md)
    rows = [l.split('|') for l in md.splitlines() if '| latency |' in l]
    return ' '.join('%s=%s' % (r[1].strip(), r[4].strip()) for r in rows)

for name in sys.argv[1:] or list(abl):
    orig = {}
    for f, a, b in abl[name]:
        p = W + f
        cur = open(p).read()
        orig.setdefault(f, cur)
        assert cur.count(a) == 1, (name, a)
        open(p, 'w').write(cur.replace(a, b))
    try:
        print(name, run(name), flush=True)
    finally:
        for f, s in orig.items():
            open(W + f, 'w').write(s)
