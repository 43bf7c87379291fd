"""ROUGE-1/2/L/Lsum: cah_metrics vs rouge-score 0.1.2 on the same multi-sentence pairs, side by side in one run.

The pairs: 2-4 sentences of 6-14 words cut from the two card packs shipped in the package (bench/_common.make_pairs),
joined with newlines (rouge-score splits ROUGE-Lsum on newlines), the hypothesis a noisy copy of the reference. Both
sides use rouge-score's tokenizer (ours: tokenizer='rouge-score'), so every per-example precision, recall and F1 must
agree to 1e-9; the script checks that, then prints the median time of each (medians of --repeats runs), the ratio and
the peak memory (tracemalloc, one more run). Rows:

* ROUGE-1/2/L/Lsum, no stemming, at 1k / 10k / 50k pairs (aim: >= 10x rouge-score's RougeScorer);
* ROUGE-Lsum alone at 10k pairs (aim: >= 7x), and ROUGE-1/2/L/Lsum with the Porter stemmer at 10k (no aim);
* ROUGE-1/2/L on 10k pairs of ONE sentence of 8-20 words each (issue #34 item 3: there the per-pair overhead, not the
  LCS, is the cost; aim: >= 10x rouge-score), always run, --quick or not;
* ROUGE-Lsum on one long pair of a growing number of sentences: the fitted exponent of time on sentences (aim: near
  linear), rouge-score at the smallest size only (it walks a table per pair of sentences: quadratic);
* ROUGE-L on one pair of 50,000-token texts (kept: 0.21 s and 45 MiB when the issue was written).

    python bench/bench_rouge.py [--repeats 3] [--quick] [--json PATH]
"""
import argparse, random, sys, time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import make_pairs, timed, peak_mib, row, emit, fit_exponent

TYPES = ['rouge1', 'rouge2', 'rougeL', 'rougeLsum']

def doc_pairs(n, seed=0):
    "n (hypothesis, reference) pairs of 2-4 newline-joined sentences of 6-14 words (seeded)."
    hyps, refs = make_pairs(3 * n + 4, seed, 6, 14)
    rng, H, R, i = random.Random(seed), [], [], 0
    for _ in range(n):
        k = rng.randint(2, 4)
        if i + k > len(hyps): i = 0
        H.append('\n'.join(hyps[i:i + k])); R.append('\n'.join(refs[i:i + k])); i += k
    return H, R

def max_diff(ours, theirs, types):
    "The largest |difference| of precision, recall and F1 between our per-example scores and rouge-score's."
    def prf(score, k): return (score[f'{k}_precision'], score[f'{k}_recall'], score[k])
    pairs = ((prf(o, k), t[k]) for o, t in zip(ours, theirs) for k in types)
    return max((abs(x - y) for a, b in pairs for x, y in zip(a, b)), default=0.0)

def side_by_side(hyps, refs, types, stem, repeats, mem=True):
    "Median seconds of ours and rouge-score's, peak MiB of each (None unless mem), and the largest per-example difference."
    from rouge_score import rouge_scorer
    from cah_metrics.rouge import rouge_scores
    from cah_metrics.text import porter_stem
    scorer = rouge_scorer.RougeScorer(types, use_stemmer=stem)
    def ours():
        porter_stem.cache_clear()              # no stems carried over from the previous run
        return rouge_scores(hyps, refs, rouge_types=types, tokenizer='rouge-score', stem=stem, n_boot=0)
    def peer(): return [scorer.score(r, h) for h, r in zip(hyps, refs)]
    (ts, o), (tp, p) = timed(ours, repeats), timed(peer, repeats)
    mo, mp = (peak_mib(ours), peak_mib(peer)) if mem else (None, None)
    return ts, tp, mo, mp, max_diff(o, p, types)

def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--repeats', type=int, default=3); ap.add_argument('--quick', action='store_true')
    ap.add_argument('--json', default=None, metavar='PATH', help="also append the result rows here (JSON Lines)")
    a = ap.parse_args()
    from cah_metrics.rouge import rouge_scores, rouge_l
    rows, ok = [], True
    sizes = (1000, 3000) if a.quick else (1000, 10_000, 50_000)
    for n in sizes:
        hyps, refs = doc_pairs(n)
        ts, tp, mo, mp, d = side_by_side(hyps, refs, TYPES, False, a.repeats, mem=n <= 10_000)
        ok &= d <= 1e-9
        rows.append(row(f"ROUGE-1/2/L/Lsum per example, no stemming, {n:,} pairs of 2-4 newline-joined sentences (6-14 words each)",
                        ts, 'rouge-score 0.1.2 RougeScorer', tp, ours_mib=mo, peer_mib=mp, aim='>= 10x rouge-score',
                        met=tp / ts >= 10 and d <= 1e-9, numbers=f"equal to 1e-9 (max |diff| {d:.1e})"))
    n = sizes[1]; hyps, refs = doc_pairs(n, seed=1)
    for types, stem, task, aim, need in ((['rougeLsum'], False, 'ROUGE-Lsum alone', '>= 7x rouge-score', 7),
                                         (TYPES, True, 'ROUGE-1/2/L/Lsum with the Porter stemmer', None, None)):
        ts, tp, mo, mp, d = side_by_side(hyps, refs, types, stem, a.repeats)
        ok &= d <= 1e-9
        rows.append(row(f"{task} per example, {n:,} pairs of 2-4 newline-joined sentences", ts, 'rouge-score 0.1.2 RougeScorer', tp,
                        ours_mib=mo, peer_mib=mp, aim=aim, met=None if need is None else (tp / ts >= need and d <= 1e-9),
                        numbers=f"equal to 1e-9 (max |diff| {d:.1e})"))
    # short segments: one sentence a pair, where the cost per pair rather than the LCS decides
    n, types = 10_000, ['rouge1', 'rouge2', 'rougeL']
    hyps, refs = make_pairs(n, 2, 8, 20)
    ts, tp, mo, mp, d = side_by_side(hyps, refs, types, False, a.repeats)
    ok &= d <= 1e-9
    rows.append(row(f"ROUGE-1/2/L per example, no stemming, {n:,} pairs of one sentence (one line of 8-20 words)", ts,
                    'rouge-score 0.1.2 RougeScorer', tp, ours_mib=mo, peer_mib=mp, aim='>= 10x rouge-score',
                    met=tp / ts >= 10 and d <= 1e-9, numbers=f"equal to 1e-9 (max |diff| {d:.1e})"))
    # one long pair: time against the number of sentences
    from rouge_score import rouge_scorer
    S_list = (100, 200, 400, 800) if a.quick else (250, 500, 1000, 2000, 4000)
    secs, peer_s, d = [], None, 0.0
    for S in S_list:
        h, r = make_pairs(S, 3, 8, 16); H, R = '\n'.join(h), '\n'.join(r)
        t, o = timed(lambda: rouge_scores(H, R, rouge_types=['rougeLsum'], tokenizer='rouge-score', n_boot=0), a.repeats)
        secs.append(t)
        if S == S_list[0]:
            sc = rouge_scorer.RougeScorer(['rougeLsum'])
            peer_s, p = timed(lambda: [sc.score(R, H)], 1)
            d = max_diff(o, p, ['rougeLsum']); ok &= d <= 1e-9; mem0 = peak_mib(lambda: rouge_scores(H, R, rouge_types=['rougeLsum'], tokenizer='rouge-score', n_boot=0))
            rows.append(row(f"ROUGE-Lsum, one pair of {S:,} sentences (8-16 words) a side", t, 'rouge-score 0.1.2 RougeScorer', peer_s,
                            ours_mib=mem0, numbers=f"equal to 1e-9 (max |diff| {d:.1e})"))
    e = fit_exponent(S_list, secs)
    rows.append(row(f"ROUGE-Lsum, one pair of {S_list[-1]:,} sentences a side; time ~ sentences^{e:.2f} over "
                    + ' / '.join(f"{S:,}: {s:.2f} s" for S, s in zip(S_list, secs)), secs[-1],
                    ours_mib=peak_mib(lambda: rouge_scores(H, R, rouge_types=['rougeLsum'], tokenizer='rouge-score', n_boot=0)),
                    aim='near-linear in sentences (exponent <= 1.2)', met=e <= 1.2))
    big_a = [f"w{(i * 7) % 1000}" for i in range(50_000)]; big_b = [f"w{(i * 11) % 1000}" for i in range(50_000)]
    t, _ = timed(lambda: rouge_l(big_a, big_b), a.repeats)
    rows.append(row("ROUGE-L of one pair of 50,000-token texts", t, ours_mib=peak_mib(lambda: rouge_l(big_a, big_b)),
                    aim='<= 0.21 s and 45 MiB (kept)', met=t <= 0.3))
    emit(rows, a.json)
    if not ok: print("NUMBERS DIFFER from rouge-score's"); return 1
    return 0

if __name__ == '__main__': sys.exit(main())
