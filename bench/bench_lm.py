"""Trigram language models: cah_metrics vs nltk.lm on the Seinfeld laugh corpus, in one run.

Train a Laplace trigram model (nltk.lm.Laplace(3) and our LaplaceLM, which reproduces it) on 80 episodes and score
the 16 held-out ones (split by episode). Both sides get the same tokenized lines; each does its own padding and
n-gram extraction inside the timed region. The held-out perplexities must agree to 1e-9 (relative). Scoring is
timed twice: as every benchmark here times (a garbage collection before each call, so the model's tables start
out of the CPU cache) and back to back as `timeit` does (caches warm). Then time
our training of every model kind on about a million tokens (the corpus repeated), against the 5 s target.

    python bench/bench_lm.py [--repeats 3]
"""
import argparse, sys, warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import timed, timed_warm, peak_mib

def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--repeats', type=int, default=3)
    a = ap.parse_args()
    from nltk.lm import Laplace
    from nltk.lm.preprocessing import padded_everygram_pipeline, pad_both_ends
    from nltk.util import ngrams
    from cah_metrics.corpora import seinfeld_episodes
    from cah_metrics.text import UnicodeWordTokenizer
    from cah_metrics.lm import LaplaceLM, NGramLM, KneserNeyLM
    tok = UnicodeWordTokenizer(lowercase=True)
    eps = seinfeld_episodes()
    train = [tok(l.text) for e in eps[:80] for l in e.lines]
    test = [tok(l.text) for e in eps[80:] for l in e.lines]
    n_train, n_test = sum(map(len, train)), sum(map(len, test))

    def nltk_fit():
        tr, vocab = padded_everygram_pipeline(3, train); m = Laplace(3); m.fit(tr, vocab); return m
    t_fit_ours, ours = timed(lambda: LaplaceLM().fit(train), a.repeats)
    t_fit_nltk, theirs = timed(nltk_fit, 1)
    t_sc_ours, p_ours = timed(lambda: ours.corpus_perplexity(test), a.repeats)
    t_sc_nltk, p_nltk = timed(lambda: theirs.perplexity([g for s in test for g in ngrams(pad_both_ends(s, n=3), 3)]), a.repeats)
    ok = abs(p_ours - p_nltk) <= 1e-9 * p_nltk
    print(f"Laplace trigram, Seinfeld: train {n_train} tokens (80 episodes), score {n_test} tokens (16 held-out episodes)")
    print(f"held-out perplexity: cah_metrics {p_ours:.9f}, nltk {p_nltk:.9f} -> {'agree to 1e-9' if ok else 'DISAGREE'}")
    print(f"{'step':10s} {'cah_metrics s':>14s} {'nltk s':>9s} {'speed-up':>9s}")
    print(f"{'training':10s} {t_fit_ours:14.3f} {t_fit_nltk:9.3f} {t_fit_nltk / t_fit_ours:8.1f}x")
    print(f"{'scoring':10s} {t_sc_ours:14.4f} {t_sc_nltk:9.3f} {t_sc_nltk / t_sc_ours:8.1f}x")
    w_ours = timed_warm(lambda: ours.corpus_perplexity(test), 2 * a.repeats + 1)
    w_nltk = timed_warm(lambda: theirs.perplexity([g for s in test for g in ngrams(pad_both_ends(s, n=3), 3)]), a.repeats)
    print(f"{'  warm':10s} {w_ours:14.4f} {w_nltk:9.3f} {w_nltk / w_ours:8.1f}x   (back-to-back calls, caches warm; the rows above start each call after a collection)")
    print(f"peak MiB while training: cah_metrics {peak_mib(lambda: LaplaceLM().fit(train)):.0f}, nltk {peak_mib(nltk_fit):.0f}")
    big = [s for e in eps for l in e.lines for s in [tok(l.text)]] * 4
    n_big = sum(map(len, big))
    print(f"training on {n_big} tokens (the whole corpus x4), target < 5 s:")
    for name, make in (('design NGramLM', NGramLM), ('LaplaceLM', LaplaceLM), ('KneserNeyLM', KneserNeyLM)):
        t, _ = timed(lambda: make().fit(big), a.repeats)
        print(f"   {name:15s} {t:6.2f} s")
    return 0 if ok else 1

if __name__ == '__main__': sys.exit(main())
