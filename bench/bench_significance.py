"""Paired bootstrap test, BLEU, 1,000 resamples: cah_metrics vs sacrebleu's `--paired-bs` on the same 10,000 segments, in one run.

The references are sentences of 20-40 words cut from the real text of the two card packs shipped in the package
(cah_metrics/data, read with cah_metrics.corpora.bundled_pack); the baseline is each reference with about a quarter of
its words replaced (bench/_common.make_pairs), the system the same reference with about a fifth replaced (seeded).
sacrebleu runs what `sacrebleu refs -i baseline system --paired-bs` runs: its command line builds `BLEU(references=...)`
(13a tokenizer, exp smoothing; the references' n-grams counted once) and calls its `PairedTest` with 1,000 resamples
and its default seed 12345; so do we here. We run `paired_bootstrap(BLEU(), ..., compat='sacrebleu')`, which must give
its numbers exactly (scores, means, ± half widths, p-values: the script checks them and exits 1 otherwise), and our
default test (centred p-value, percentile intervals) on the same resamples. Each timing starts from the raw strings,
so it includes scoring the segments (and our reference table is dropped before each run, so every run counts the
references once, as sacrebleu's `BLEU(references=...)` does); the script also times the resampling and the test alone, with each system's
per-segment statistics computed beforehand and handed back by the metric (sacrebleu: a `BLEU` whose
`_extract_corpus_statistics` returns them; ours: a `BLEU` whose `item_statistics` does). It prints the median times, the
ratios, and the peak memory (tracemalloc) of one run of each, and of the resampling step alone.

    python bench/bench_significance.py [--segments 10000] [--resamples 1000] [--systems 1] [--repeats 3] [--quick] [--json PATH]

--quick: 2,000 segments (a smoke run). Result rows for the README's table: ours with compat='sacrebleu' against
sacrebleu, from the text, and the resampling and test alone.
"""
import argparse, logging, random, sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import make_pairs, timed, peak_mib, row, emit

def make_system(refs, rate, seed):
    "Each reference with about `rate` of its words replaced by words of the references (seeded)."
    rng = random.Random(seed)
    words = ' '.join(refs).split()
    return [' '.join(w if rng.random() > rate else rng.choice(words) for w in r.split()) for r in refs]

def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--segments', type=int, default=10_000); ap.add_argument('--resamples', type=int, default=1000)
    ap.add_argument('--systems', type=int, default=1); ap.add_argument('--repeats', type=int, default=3)
    ap.add_argument('--quick', action='store_true', help='2,000 segments (a smoke run)')
    ap.add_argument('--json', help='append the result rows here (JSON Lines, for bench/run_all.py)')
    a = ap.parse_args()
    if a.quick: a.segments = min(a.segments, 2_000)
    import sacrebleu
    from sacrebleu.significance import PairedTest
    from cah_metrics.bleu import BLEU, _ref_table
    import numpy as np
    from cah_metrics.significance import paired_bootstrap, resampled_sums
    logging.getLogger('sacrebleu').setLevel(logging.ERROR)         # its "tokenized period" warning, once per system
    base, refs = make_pairs(a.segments)
    systems = {f'system {i + 1}': make_system(refs, 0.20 + 0.01 * i, seed=100 + i) for i in range(a.systems)}
    named = [('baseline', base), *systems.items()]
    def theirs():
        _, res = PairedTest(named, {'BLEU': sacrebleu.BLEU(references=[refs])}, None, test_type='bs', n_samples=a.resamples)()
        return res['BLEU']
    class TheirCached(sacrebleu.BLEU):          # the per-segment statistics, computed once beforehand
        def _extract_corpus_statistics(self, hyps, references): return their_cache[id(hyps)]
    their_metric = sacrebleu.BLEU(references=[refs])
    their_cache = {id(h): their_metric._extract_corpus_statistics(h, None) for _, h in named}
    class OurCached(BLEU):
        def item_statistics(self, predictions, references=None): return our_cache[id(predictions)]
    our_cache = {id(h): BLEU(keep_items=True).update(h, refs).item_stats() for _, h in named}
    their_cached = TheirCached(references=[refs])     # its reference n-grams counted here, outside the timing
    def theirs_rest():
        _, res = PairedTest(named, {'BLEU': their_cached}, None, test_type='bs', n_samples=a.resamples)()
        return res['BLEU']
    rest = {'sacrebleu': theirs_rest,
            "cah_metrics (compat='sacrebleu')": lambda: paired_bootstrap(OurCached(), base, systems, refs, n_resamples=a.resamples, compat='sacrebleu'),
            'cah_metrics (default)': lambda: paired_bootstrap(OurCached(), base, systems, refs, n_resamples=a.resamples)}
    def cold(f):        # each run from the text starts with no reference table kept from the one before (sacrebleu builds its BLEU in the run too)
        def run(): _ref_table.cache_clear(); return f()
        return run
    runs = {
        'sacrebleu': theirs,
        "cah_metrics (compat='sacrebleu')": cold(lambda: paired_bootstrap(BLEU(), base, systems, refs, n_resamples=a.resamples, compat='sacrebleu')),
        'cah_metrics (default)': cold(lambda: paired_bootstrap(BLEU(), base, systems, refs, n_resamples=a.resamples)),
    }
    res = {k: timed(f, a.repeats) for k, f in runs.items()}
    rest_t = {k: timed(f, a.repeats) for k, f in rest.items()}
    mem = {k: peak_mib(f) for k, f in runs.items()}
    t_sacre, compat = res['sacrebleu'][1], res["cah_metrics (compat='sacrebleu')"][1]
    ours = [compat.baseline, *compat.systems]
    ok = all((s.score, s.mean, s.half_width, s.p_value) == (t.score, t.mean, t.ci, t.p_value) for s, t in zip(ours, t_sacre, strict=True))
    c_rest = rest_t["cah_metrics (compat='sacrebleu')"][1]
    ok = ok and all((s.score, s.mean, s.half_width, s.p_value) == (t.score, t.mean, t.ci, t.p_value)
                    for s, t in zip([c_rest.baseline, *c_rest.systems], rest_t['sacrebleu'][1], strict=True))
    print(f"paired bootstrap, BLEU (13a, exp smoothing), {a.segments} segments of 20-40 words, {a.resamples} resamples, "
          f"baseline + {a.systems} system(s), seed 12345")
    for s, t in zip(ours, t_sacre):
        print(f"  {s.name:10s} sacrebleu: {t.score:.6f} (μ = {t.mean:.6f} ± {t.ci:.6f}) p = {t.p_value}   "
              f"ours: {s.score:.6f} (μ = {s.mean:.6f} ± {s.half_width:.6f}) p = {s.p_value}")
    print(f"numbers: {'equal (every score, mean, ± and p-value)' if ok else 'DIFFERENT'}")
    print(f"{'':34s} {'from the text':>23s} {'resampling and test':>26s}")
    print(f"{'implementation':34s} {'median s':>9s} {'vs sacrebleu':>13s} {'median s':>12s} {'vs sacrebleu':>13s} {'peak MiB':>9s}")
    for k, (t, _) in res.items():
        r = rest_t[k][0]
        print(f"{k:34s} {t:9.3f} {res['sacrebleu'][0] / t:12.1f}x {r:12.3f} {rest_t['sacrebleu'][0] / r:12.1f}x {mem[k]:9.1f}")
    rows = np.hstack([BLEU().segment_stats(h, refs) for _, h in named])
    print(f"peak memory of the resampling alone (`resampled_sums` of the {rows.shape[1]} per-segment statistics of all systems, "
          f"{a.resamples} resamples): {peak_mib(lambda: resampled_sums(rows, a.resamples)):.1f} MiB; "
          f"indexing one system's (sacrebleu's stats[idx]) holds {a.resamples * rows.size // len(named) * 4 / 2**20:.0f} MiB of float32")
    C = "cah_metrics (compat='sacrebleu')"
    what = (f"paired bootstrap, {a.resamples:,} resamples, {a.segments:,} segments of 20-40 words, BLEU (13a, exp smoothing), "
            f"baseline + {a.systems} system{'s' * (a.systems > 1)}, seed 12345, `compat='sacrebleu'`")
    numbers = "every score, mean, interval and p-value equal (`compat='sacrebleu'`)" if ok else 'DIFFER'
    peer = f"sacrebleu {sacrebleu.__version__} `PairedTest` (`--paired-bs`)"
    emit([row(f"{what}, from the text (`bench/bench_significance.py`)", res[C][0], peer, res['sacrebleu'][0],
              ours_mib=mem[C], peer_mib=mem['sacrebleu'], numbers=numbers),
          row(f"{what}, the resampling and test alone, each system's per-segment statistics computed beforehand "
              f"(`bench/bench_significance.py`)", rest_t[C][0], peer, rest_t['sacrebleu'][0], numbers=numbers)], a.json)
    return 0 if ok else 1

if __name__ == '__main__': sys.exit(main())
