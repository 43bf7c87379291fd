"""Corpus chrF and chrF++: cah_metrics vs sacrebleu on the same 10,000 segments, in one run.

Sentences of 20-40 words are cut from the real text of the two card packs shipped in the package (cah_metrics/data,
read with cah_metrics.corpora.bundled_pack); each hypothesis is its reference with about a quarter of the words
replaced and sometimes one dropped (seeded), and a second reference comes from another seed. Both implementations get
the raw strings. The script checks that the scores agree (to 1e-9, on sacrebleu's scale divided by 100), then prints
the median time of each, the ratio, and the peak memory (tracemalloc) of one run.

    python bench/bench_chrf.py [--segments 10000] [--repeats 3]
"""
import argparse, sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import make_pairs, timed, peak_mib

def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--segments', type=int, default=10_000); ap.add_argument('--repeats', type=int, default=3)
    a = ap.parse_args()
    from sacrebleu.metrics import CHRF as SacreCHRF
    from cah_metrics.chrf import corpus_chrf
    hyps, refs = make_pairs(a.segments)
    refs2 = make_pairs(a.segments, seed=1)[1]
    print(f"corpus chrF, {a.segments} segments of 20-40 words (sacrebleu {__import__('sacrebleu').__version__})")
    print(f"{'variant':22s} {'ours s':>8s} {'sacrebleu s':>12s} {'speed-up':>9s} {'ours MiB':>9s} {'sacre MiB':>10s}  |diff|")
    ok = True
    for name, word_order, streams in (('chrF, 1 ref', 0, [refs]), ('chrF++, 1 ref', 2, [refs]), ('chrF, 2 refs', 0, [refs, refs2]),
                                      ('chrF++, 2 refs', 2, [refs, refs2])):
        ours_refs = [list(r) for r in zip(*streams)]
        mine = lambda: corpus_chrf(hyps, ours_refs, word_order=word_order).score
        theirs = lambda: SacreCHRF(word_order=word_order).corpus_score(hyps, streams).score / 100
        (t_ours, s_ours), (t_sb, s_sb) = timed(mine, a.repeats), timed(theirs, a.repeats)
        diff = abs(s_ours - s_sb); ok &= diff <= 1e-9
        print(f"{name:22s} {t_ours:8.3f} {t_sb:12.3f} {t_sb / t_ours:8.2f}x {peak_mib(mine):9.1f} {peak_mib(theirs):10.1f}  {diff:.1e}")
    print('scores agree to 1e-9' if ok else 'scores DISAGREE')
    return 0 if ok else 1

if __name__ == '__main__': sys.exit(main())
