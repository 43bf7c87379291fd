"""ROUGE-1, ROUGE-2 and ROUGE-L: cah_metrics vs rouge-score on the same 5,000 pairs, stemmer off and on, in one run.

The pairs are those of bench_bleu.py (20-40-word sentences cut from the two card packs shipped in the package,
cah_metrics/data, the hypothesis a noisy copy of the reference). Both sides use rouge-score's tokenizer (ours: tokenizer='rouge-score'),
so every per-example precision, recall and F1 must agree to 1e-9; the script checks that, then prints the median
time of each, the ratio, and the peak memory (tracemalloc) of one run.

    python bench/bench_rouge.py [--pairs 5000] [--repeats 5]
"""
import argparse, sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import make_pairs, timed, peak_mib

TYPES = ['rouge1', 'rouge2', 'rougeL']

def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--pairs', type=int, default=5000); ap.add_argument('--repeats', type=int, default=5)
    a = ap.parse_args()
    from rouge_score import rouge_scorer
    from cah_metrics.rouge import rouge_scores
    from cah_metrics.text import porter_stem
    hyps, refs = make_pairs(a.pairs)
    ok = True
    print(f"ROUGE-1/2/L per example, {a.pairs} pairs of 20-40 words, rouge-score's tokenizer on both sides")
    print(f"{'stemmer':8s} {'implementation':14s} {'median s':>9s} {'vs ours':>8s} {'peak MiB':>9s}")
    for stem in (False, True):
        scorer = rouge_scorer.RougeScorer(TYPES, use_stemmer=stem)
        def ours():
            porter_stem.cache_clear()          # no stems carried over from the previous run
            return rouge_scores(hyps, refs, rouge_types=TYPES, tokenizer='rouge-score', stem=stem, n_boot=0)
        runs = {'cah_metrics': ours, 'rouge-score': lambda: [scorer.score(r, h) for h, r in zip(hyps, refs)]}
        for f in runs.values(): f()                  # warm up: imports, caches of the first call
        res = {k: timed(f, a.repeats) for k, f in runs.items()}
        mem = {k: peak_mib(f) for k, f in runs.items()}
        diff = max(abs(x - y) for o, t in zip(res['cah_metrics'][1], res['rouge-score'][1])
                   for k in TYPES for x, y in zip(o[k], t[k]))
        ok &= diff <= 1e-9
        for k, (t, _) in res.items():
            print(f"{'on' if stem else 'off':8s} {k:14s} {t:9.3f} {t / res['cah_metrics'][0]:7.2f}x {mem[k]:9.1f}")
        print(f"{'':8s} max |difference| over {len(hyps) * len(TYPES) * 3} numbers: {diff:.1e}")
    return 0 if ok else 1

if __name__ == '__main__': sys.exit(main())
