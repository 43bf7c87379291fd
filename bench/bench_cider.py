"""Corpus CIDEr-D: cah_metrics vs pycocoevalcap's `Cider` on the same 10,000 items, each with five references, in one run.

Sentences of 20-40 words are cut from the real text of the two card packs shipped in the package (cah_metrics/data,
read with cah_metrics.corpora.bundled_pack, as bench_chrf.py does); each item's candidate is its hidden sentence with
about a quarter of the words replaced and sometimes one dropped, and its five references are five more such noisy
copies (seeded), so that the references of an item share most of their n-grams, as the captions of one image do. The
text is pre-tokenised (whitespace-separated words), which is what pycocoevalcap's Python part takes; both get the same
strings. The script checks that the corpus scores and every item's score agree to 1e-9, then prints the median time of
each, the ratio, and the peak memory (tracemalloc) of one run.

    python bench/bench_cider.py [--items 10000] [--refs 5] [--repeats 3] [--quick] [--json PATH]

--quick: 1,000 items (a smoke run). Result row for the README's table: CIDEr-D with five references.
"""
import argparse, random, sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import make_pairs, timed, peak_mib, row, emit


def noisy(words, rng, pool):
    "A copy of `words` with about a quarter replaced from `pool` and sometimes one dropped."
    out = [w if rng.random() > 0.25 else rng.choice(pool) for w in words]
    if len(out) > 1 and rng.random() < 0.3: del out[rng.randrange(len(out))]
    return ' '.join(out)


def make_items(n, k, seed=0):
    "n candidates and k references each: noisy copies of n hidden sentences of 20-40 card-text words."
    hyps, hidden = make_pairs(n, seed)
    pool = ' '.join(hidden).split()
    rng = random.Random(seed + 1)
    return hyps, [[noisy(ref.split(), rng, pool) for _ in range(k)] for ref in hidden]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--items', type=int, default=10_000); ap.add_argument('--refs', type=int, default=5)
    ap.add_argument('--repeats', type=int, default=3)
    ap.add_argument('--quick', action='store_true', help='1,000 items (a smoke run)')
    ap.add_argument('--json', help='append the result rows here (JSON Lines, for bench/run_all.py)')
    a = ap.parse_args()
    if a.quick: a.items = min(a.items, 1_000)
    import numpy as np
    from importlib.metadata import version
    from pycocoevalcap.cider.cider import Cider
    from cah_metrics.cider import corpus_cider
    hyps, refs = make_items(a.items, a.refs)
    peer = f"pycocoevalcap {version('pycocoevalcap')} `Cider`"

    def theirs():
        return Cider().compute_score({i: rs for i, rs in enumerate(refs)}, {i: [h] for i, h in enumerate(hyps)})
    mine = lambda: corpus_cider(hyps, refs)
    print(f"corpus CIDEr-D, {a.items} items of 20-40 words, {a.refs} references each ({peer})")
    (t_ours, s_ours), (t_coco, (s_coco, per_coco)) = timed(mine, a.repeats), timed(theirs, a.repeats)
    diff = max(abs(s_ours.value - float(s_coco)), float(np.max(np.abs(s_ours.scores - per_coco))))
    ok = diff <= 1e-9
    m_ours, m_coco = peak_mib(mine), peak_mib(theirs)
    print(f"{'':14s} {'ours s':>8s} {'pycoco s':>9s} {'speed-up':>9s} {'ours MiB':>9s} {'pycoco MiB':>11s}  |diff|")
    print(f"{'CIDEr-D':14s} {t_ours:8.3f} {t_coco:9.3f} {t_coco / t_ours:8.2f}x {m_ours:9.1f} {m_coco:11.1f}  {diff:.1e}")
    print(f"score {s_ours.value:.6f} (pycocoevalcap {float(s_coco):.6f})")
    print('scores agree to 1e-9 (corpus and every item)' if ok else 'scores DISAGREE')
    numbers = (f"equal to 1e-9, corpus and per item (largest difference {diff:.1e})" if ok
               else f"DIFFER (by {diff:.1e})")
    rows = [row(f"corpus CIDEr-D, {a.items:,} items of 20-40 words, {a.refs} references each (`bench/bench_cider.py`)",
                t_ours, peer, t_coco, ours_mib=m_ours, peer_mib=m_coco, numbers=numbers)]
    emit(rows, a.json)
    return 0 if ok else 1


if __name__ == '__main__': sys.exit(main())
