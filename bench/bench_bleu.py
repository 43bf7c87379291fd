"""Corpus BLEU: cah_metrics vs sacrebleu vs nltk on the same 5,000 pairs, in one run.

Sentences of 20-40 words are cut from the real text of the two card packs shipped in the package (cah_metrics/data:
the Cards Against Humanity main game and Cards Against Coffee, read with cah_metrics.corpora.bundled_pack);
each hypothesis is its reference with about a quarter of the words replaced and sometimes one dropped (seeded).
Every implementation gets the raw strings and does its own whitespace tokenization. The script checks that the
numbers agree, then prints the median time of each, the ratios, and the peak memory (tracemalloc) of one run.

    python bench/bench_bleu.py [--pairs 5000] [--repeats 5]
"""
import argparse, sys, warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import make_pairs, timed, peak_mib

def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--pairs', type=int, default=5000); ap.add_argument('--repeats', type=int, default=5)
    a = ap.parse_args()
    import sacrebleu
    from nltk.translate.bleu_score import corpus_bleu as nltk_corpus_bleu
    from cah_metrics.bleu import corpus_bleu, _ref_table
    hyps, refs = make_pairs(a.pairs)
    runs = {
        # the references' n-gram table is cached for a second system on the same references; clear it, so that every
        # run counts its references as a single corpus score does
        'cah_metrics': lambda: (_ref_table.cache_clear(), corpus_bleu(hyps, refs, tokenizer='none').score)[1],
        'sacrebleu': lambda: sacrebleu.corpus_bleu(hyps, [refs], tokenize='none', force=True).score / 100,
        'nltk': lambda: nltk_corpus_bleu([[r.split()] for r in refs], [h.split() for h in hyps]),
    }
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        res = {k: timed(f, a.repeats if k != 'nltk' else max(1, a.repeats // 2)) for k, f in runs.items()}
        mem = {k: peak_mib(f) for k, f in runs.items()}
    ours = res['cah_metrics'][1]
    ok = all(abs(v[1] - ours) <= 1e-9 for v in res.values())
    print(f"corpus BLEU, {a.pairs} pairs of 20-40 words, tokenize='none', sacrebleu's default exp smoothing "
          f"(nltk: none; every order has matches, so it is the same number)")
    print(f"scores: " + ", ".join(f"{k} {v[1]:.12f}" for k, v in res.items()) + f" -> {'agree to 1e-9' if ok else 'DISAGREE'}")
    print(f"{'implementation':14s} {'median s':>9s} {'vs ours':>8s} {'peak MiB':>9s}")
    for k, (t, _) in res.items():
        print(f"{k:14s} {t:9.3f} {t / res['cah_metrics'][0]:7.2f}x {mem[k]:9.1f}")
    return 0 if ok else 1

if __name__ == '__main__': sys.exit(main())
