"""Corpus BLEU: cah_metrics vs sacrebleu (and nltk) on the same pairs, in one run: time with the 13a tokenizer at three
corpus sizes, peak traced memory at the largest, and time with tokenize='none'.

Sentences of 20-40 words are cut from the real text of the two card packs shipped in the package (cah_metrics/data:
the Cards Against Humanity main game and Cards Against Coffee, read with cah_metrics.corpora.bundled_pack);
each hypothesis is its reference with about a quarter of the words replaced and sometimes one dropped (seeded).
Every implementation gets the raw strings and tokenizes them itself. The script checks that the scores agree to
1e-9, then prints the median time of each (3 runs; nltk's at the largest size: 1 run), the ratios, the fitted cost
exponent of each over the three sizes, and the peak memory traced by tracemalloc during one run.

Our reference table is cached for a second system on equal references; it is cleared before every run, so each run
counts its references as a single corpus score does (sacrebleu builds its tokenizer and caches anew in every call).

    python bench/bench_bleu.py [--quick] [--json PATH] [--repeats 3]
"""
import argparse, logging, sys, time, warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import make_pairs, timed, peak_mib, row, emit, fit_exponent

def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--repeats', type=int, default=3)
    ap.add_argument('--quick', action='store_true', help='smaller sizes (a smoke run, under a minute)')
    ap.add_argument('--json', default=None, help='append the result rows here as JSON Lines (bench/run_all.py)')
    a = ap.parse_args()
    import sacrebleu, nltk
    from nltk.translate.bleu_score import corpus_bleu as nltk_corpus_bleu
    from cah_metrics.bleu import corpus_bleu, _ref_table
    from cah_metrics.text import _tok13a
    logging.getLogger('sacrebleu').setLevel(logging.ERROR)        # its "tokenized period" warning
    warnings.simplefilter('ignore')                                # nltk's warnings on zero counts (none happen at these sizes)
    # quick: the memory size stays above one chunk of 10,000 pairs, where streaming starts to pay
    sizes, mem_n, none_n = ((200, 1_000, 5_000), 30_000, 1_000) if a.quick else ((1_000, 10_000, 100_000), 100_000, 5_000)
    R, SB, NL = a.repeats, f'sacrebleu {sacrebleu.__version__}', f'nltk {nltk.__version__}'
    def ours(hyps, refs, **kw):
        def run(): _ref_table.cache_clear(); _tok13a.cache_clear(); return corpus_bleu(hyps, refs, **kw).score
        return run
    rows, ok_all, t_ours, t_sacre = [], True, [], []
    print(f"corpus BLEU, 13a tokenizer (the default), exp smoothing; pairs of 20-40 words from the card packs; medians of {R}")
    print(f"{'pairs':>8s} {'ours s':>8s} {'sacrebleu s':>12s} {'ratio':>7s}  scores")
    for n in sizes:
        hyps, refs = make_pairs(n)
        (to, so), (ts, ss) = timed(ours(hyps, refs), R), timed(lambda: sacrebleu.corpus_bleu(hyps, [refs]).score / 100, R)
        ok = abs(so - ss) <= 1e-9; ok_all &= ok
        t_ours.append(to); t_sacre.append(ts)
        print(f"{n:8,d} {to:8.3f} {ts:12.3f} {ts / to:6.2f}x  ours {so:.12f}, sacrebleu {ss:.12f} -> {'agree to 1e-9' if ok else 'DISAGREE'}")
        rows.append(dict(task=f"corpus BLEU, 13a tokenizer (default), {n:,} pairs of 20-40 words", ours_s=to, peer=SB, peer_s=ts,
                         aim='>= 3x sacrebleu', met=ok and ts / to >= 3, numbers='equal to 1e-9' if ok else 'DIFFER'))
    eo, es = fit_exponent(sizes, t_ours), fit_exponent(sizes, t_sacre)
    print(f"fitted cost exponent over {'/'.join(f'{n:,}' for n in sizes)} pairs: ours {eo:.2f}, sacrebleu {es:.2f} (1 = linear)")
    rows[-1]['task'] += f" (cost exponent over {'/'.join(f'{n:,}' for n in sizes)} pairs: ours {eo:.2f}, sacrebleu {es:.2f})"

    n = mem_n; hyps, refs = make_pairs(n)               # memory: nltk has no 13a, so the like-for-like row uses whitespace tokens
    nltk_run = lambda: nltk_corpus_bleu([[r.split()] for r in refs], [h.split() for h in hyps])
    t_nltk, s_nltk = timed(nltk_run, 1)
    t_none, s_none = timed(ours(hyps, refs, tokenizer='none', smooth='none'), R)
    ok = abs(s_nltk - s_none) <= 1e-9; ok_all &= ok
    mem = {'ours': peak_mib(ours(hyps, refs, tokenizer='none', smooth='none')), 'ours 13a': peak_mib(ours(hyps, refs)),
           'nltk': peak_mib(nltk_run)}
    if not a.quick: mem['sacrebleu 13a'] = peak_mib(lambda: sacrebleu.corpus_bleu(hyps, [refs]).score)   # quick: not traced (slow)
    sacre_mib = f"{mem['sacrebleu 13a']:.0f} MiB" if 'sacrebleu 13a' in mem else 'not traced (--quick)'
    print(f"peak traced memory (tracemalloc), {n:,} pairs: " + ", ".join(f"{k} {v:.0f} MiB" for k, v in mem.items())
          + f"; nltk's score {s_nltk:.12f}, ours on the same whitespace tokens {s_none:.12f} -> {'agree to 1e-9' if ok else 'DISAGREE'}")
    rows.append(dict(task=f"corpus BLEU, {n:,} pairs, whitespace tokens, no smoothing (nltk has no 13a): time and peak traced memory "
                          f"(tracemalloc); with 13a ours peaks at {mem['ours 13a']:.0f} MiB, sacrebleu {sacre_mib}; nltk: 1 run",
                     ours_s=t_none, peer=NL, peer_s=t_nltk, ours_mib=mem['ours'], peer_mib=mem['nltk'], aim='<= nltk peak traced memory',
                     met=max(mem['ours'], mem['ours 13a']) <= mem['nltk'], numbers='equal to 1e-9' if ok else 'DIFFER'))

    hyps, refs = make_pairs(none_n)
    runs = {'ours': ours(hyps, refs, tokenizer='none'), SB: lambda: sacrebleu.corpus_bleu(hyps, [refs], tokenize='none', force=True).score / 100,
            NL: lambda: nltk_corpus_bleu([[r.split()] for r in refs], [h.split() for h in hyps])}
    res = {k: timed(f, R) for k, f in runs.items()}
    mem = {k: peak_mib(f) for k, f in runs.items()}
    ok = all(abs(v[1] - res['ours'][1]) <= 1e-9 for v in res.values()); ok_all &= ok
    print(f"corpus BLEU, {none_n:,} pairs, tokenize='none' (nltk: no smoothing; every order has matches, so the same number): "
          + ", ".join(f"{k} {v[0]:.3f} s {mem[k]:.0f} MiB" for k, v in res.items()) + f" -> {'agree to 1e-9' if ok else 'DISAGREE'}")
    for peer in (SB, NL):
        rows.append(dict(task=f"corpus BLEU, tokenize='none', {none_n:,} pairs of 20-40 words", ours_s=res['ours'][0], peer=peer,
                         peer_s=res[peer][0], ours_mib=mem['ours'], peer_mib=mem[peer], numbers='equal to 1e-9' if ok else 'DIFFER'))
    rows = [row(r.pop('task'), r.pop('ours_s'), r.pop('peer'), r.pop('peer_s'), **r) for r in rows]
    emit(rows, a.json)
    return 0 if ok_all else 1

if __name__ == '__main__': sys.exit(main())
