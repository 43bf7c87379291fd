"""Corpus chrF and chrF++: cah_metrics vs sacrebleu on the same 10,000 segments, in one run.

Sentences of 20-40 words are cut from the real text of the two card packs shipped in the package (cah_metrics/data,
read with cah_metrics.corpora.bundled_pack); each hypothesis is its reference with about a quarter of the words
replaced and sometimes one dropped (seeded), and a second reference comes from another seed. Both implementations get
the raw strings. The script checks that the scores agree (to 1e-9, on sacrebleu's scale divided by 100), then prints
the median time of each, the ratio, and the peak memory (tracemalloc) of one run.

    python bench/bench_chrf.py [--segments 10000] [--repeats 3] [--quick] [--json PATH]

--quick: 1,000 segments (a smoke run). Result rows for the README's table: chrF and chrF++ with one reference.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import make_pairs, timed, peak_mib, row, emit, segment_arguments

def main():
    ap = segment_arguments(__doc__)
    a = ap.parse_args()
    if a.quick: a.segments = min(a.segments, 1_000)
    from sacrebleu.metrics import CHRF as SacreCHRF
    from cah_metrics.chrf import corpus_chrf
    hyps, refs = make_pairs(a.segments)
    refs2 = make_pairs(a.segments, seed=1)[1]
    print(f"corpus chrF, {a.segments} segments of 20-40 words (sacrebleu {__import__('sacrebleu').__version__})")
    print(f"{'variant':22s} {'ours s':>8s} {'sacrebleu s':>12s} {'speed-up':>9s} {'ours MiB':>9s} {'sacre MiB':>10s}  |diff|")
    ok, rows, peer = True, [], f"sacrebleu {__import__('sacrebleu').__version__} `CHRF`"
    for name, word_order, streams in (('chrF, 1 ref', 0, [refs]), ('chrF++, 1 ref', 2, [refs]), ('chrF, 2 refs', 0, [refs, refs2]),
                                      ('chrF++, 2 refs', 2, [refs, refs2])):
        ours_refs = [list(r) for r in zip(*streams)]
        mine = lambda: corpus_chrf(hyps, ours_refs, word_order=word_order).score
        theirs = lambda: SacreCHRF(word_order=word_order).corpus_score(hyps, streams).score / 100
        (t_ours, s_ours), (t_sb, s_sb) = timed(mine, a.repeats), timed(theirs, a.repeats)
        diff = abs(s_ours - s_sb); ok &= diff <= 1e-9
        m_ours, m_sb = peak_mib(mine), peak_mib(theirs)
        print(f"{name:22s} {t_ours:8.3f} {t_sb:12.3f} {t_sb / t_ours:8.2f}x {m_ours:9.1f} {m_sb:10.1f}  {diff:.1e}")
        if len(streams) == 1:           # the README's table has the one-reference runs
            variant = 'chrF' if word_order == 0 else 'chrF++ (character 6-grams and word 1-2-grams)'
            rows.append(row(f"corpus {variant}, {a.segments:,} segments of 20-40 words, 1 reference (`bench/bench_chrf.py`)",
                            t_ours, peer, t_sb, ours_mib=m_ours, peer_mib=m_sb,
                            numbers=f"equal to 1e-9 (largest difference {diff:.1e})" if diff <= 1e-9 else f"DIFFER (by {diff:.1e})"))
    print('scores agree to 1e-9' if ok else 'scores DISAGREE')
    emit(rows, a.json)
    return 0 if ok else 1

if __name__ == '__main__': sys.exit(main())
