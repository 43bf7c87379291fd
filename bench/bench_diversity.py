"""Diversity: Self-BLEU against the nltk definition and at scale, then semantic diversity against a plain N x N similarity
matrix, in one run.

1. Self-BLEU-4 (no smoothing, lowercased Treebank tokens) of 500 texts: ours and the definition (nltk sentence_bleu of
   each text against the 499 others); the numbers must agree to 1e-12. Then ours alone on 10,000 and 100,000 texts
   (target: 10,000 in under 5 s).
2. Semantic diversity (the design's KMeans clusters for k = 2..5 with n_init=10, their exact silhouettes, the exact
   spread, the mean similarity, the Vendi score) of N precomputed 384-d float32 embeddings (a seeded mixture of 8
   clusters), against the peer: the plain N x N cosine matrix `U @ U.T` with its diagonal zeroed, and its mean (the
   design's overall diversity), at N = 1k, 10k, 20k (and ours alone at 100k); times are medians of 3, peak memory is
   traced by tracemalloc. The design's KMeans fits (scikit-learn, 40 of them) are also timed alone: what is left of ours
   (the one distance pass, silhouettes, spread, Vendi) is compared with the N x N matrix too. The numbers must agree: the overall diversity with the peer's to 1e-6 (float32 matrix), the
   silhouette and spread with scikit-learn's silhouette_score and a full distance matrix at 1k (to 1e-9).
   The float64 products alone that the exact silhouette needs (blocks on and above the diagonal) are timed too: the floor
   of what is ours. Then the design's 40 KMeans fits on a humor batch's vectors (500 distinct answers x 80 prompts),
   from the distinct vectors weighted by their counts against scikit-learn on every row: the labels must be equal.
3. Continuity: ours at N = 9,999 / 10,000 / 10,001 / 10,002 (the old switch to MiniBatchKMeans) and 4,999 .. 5,002 (the
   old switch to a sampled silhouette and spread), and the fitted cost exponent of ours and of the peer.

    python bench/bench_diversity.py [--quick] [--json PATH] [--repeats 3] [--skip-100k]
"""
import argparse, sys, time, warnings
from pathlib import Path
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import make_texts, timed, peak_mib, row, emit, fit_exponent

def embeddings(N, d=384, seed=0):
    "N float32 vectors: a seeded mixture of 8 Gaussian clusters in d dimensions."
    rng = np.random.default_rng(seed)
    centers = rng.normal(size=(8, d))
    return (centers[rng.integers(0, 8, N)] + rng.normal(scale=1.5, size=(N, d))).astype(np.float32)

def peer(E):
    "The plain N x N matrix: unit rows, U @ U.T, diagonal zeroed, its mean (the design's overall diversity is 1 - that)."
    U = E / np.linalg.norm(E, axis=1, keepdims=True)
    S = U @ U.T; np.fill_diagonal(S, 0)
    return 1 - float(S.mean(dtype=np.float64))

def self_bleu_rows(quick):
    from nltk.translate.bleu_score import sentence_bleu
    from cah_metrics.diversity import self_bleu
    from cah_metrics.text import get_tokenizer
    texts = make_texts(10_000 if quick else 100_000)
    small = texts[:200 if quick else 500]
    toks = get_tokenizer("treebank", lowercase=True).batch(small)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        t0 = time.perf_counter()
        ref = sum(sentence_bleu(toks[:i] + toks[i + 1:], toks[i]) for i in range(len(toks))) / len(toks)
        t_ref = time.perf_counter() - t0
    t_ours, ours = timed(lambda: self_bleu(small), 3)
    ok = abs(ours.score - ref) <= 1e-12
    rows = [row(f"Self-BLEU-4 of {len(small)} texts (20-30 words, no smoothing, Treebank lowercased)", t_ours,
                'nltk sentence_bleu against the others', t_ref, aim='equal numbers, faster than nltk', met=ok and t_ours < t_ref,
                numbers='equal to 1e-12' if ok else f'DIFFER: {ours.score!r} vs {ref!r}')]
    for n in ((2_000, 10_000) if quick else (10_000, 100_000)):
        t, s = timed(lambda: self_bleu(texts[:n]), 1)
        rows.append(row(f"Self-BLEU-4 of {n:,} texts (20-30 words), ours alone", t,
                        aim='10,000 texts in under 5 s' if n == 10_000 else None, met=t < 5 if n == 10_000 else None))
    return rows, ok

def semantic_rows(quick, repeats=3, skip_100k=False):
    from sklearn.metrics import silhouette_score
    from cah_metrics.diversity import semantic_diversity, BLOCK, _kmeans_labels     # up to BLOCK texts the one block of distances is the N x N matrix
    sizes = (500, 1_000, 2_000) if quick else (1_000, 10_000, 20_000)
    rows, ok, ours_t, peer_t = [], True, [], []
    semantic_diversity(embeddings(50))                   # untimed: the first call imports scikit-learn
    for N in sizes:
        E = embeddings(N)
        t_o, sd = timed(lambda: semantic_diversity(E), 1 if quick else repeats)
        t_p, p = timed(lambda: peer(E), 1 if quick else repeats)
        m_o, m_p = peak_mib(lambda: semantic_diversity(E)), peak_mib(lambda: peer(E))
        agree = abs(sd['overall_diversity'] - p) <= 1e-6
        if N == sizes[0]:                     # the silhouette and spread against scikit-learn and a full distance matrix
            X = E.astype(np.float64); sq = (X * X).sum(1)
            D = np.sqrt(np.maximum(sq[:, None] + sq[None] - 2 * X @ X.T, 0)); np.fill_diagonal(D, 0)
            spread = min(1.0, D.sum() / (N * (N - 1)) / np.sqrt(X.shape[1]) / 2)
            agree &= abs(sd['silhouette'] - silhouette_score(X, sd.labels)) <= 1e-9 and abs(sd['semantic_spread'] - spread) <= 1e-9
        ok &= agree; ours_t.append(t_o); peer_t.append(t_p)
        rows.append(row(f"semantic diversity of {N:,} x 384 float32 embeddings (KMeans k=2..5, n_init=10, exact silhouette and spread, Vendi)",
                        t_o, 'plain N x N cosine matrix and its mean (numpy, float32)', t_p, ours_mib=m_o, peer_mib=m_p,
                        aim='<= the N x N time, no N x N matrix', met=t_o <= t_p and (m_o < N * N * 4 / 2**20 or N <= BLOCK),
                        numbers=('overall diversity equal to 1e-6' + (', silhouette and spread equal to sklearn to 1e-9' if N == sizes[0] else ''))
                                if agree else 'DIFFER'))
        t_k, _ = timed(lambda: _kmeans_labels(E.astype(np.float64)), 1 if quick else repeats)   # the design's 40 KMeans fits alone
        print(f"N = {N:,}: the design's KMeans fits (scikit-learn, k = 2..5 x n_init = 10) take {t_k:.3f} s of ours {t_o:.3f} s")
        rows.append(row(f"semantic diversity of {N:,} x 384 embeddings, all but the design's KMeans fits (ours {t_o:.2f} s minus the "
                        f"40 scikit-learn fits, {t_k:.2f} s: one distance pass for every silhouette and the spread, Vendi)",
                        max(t_o - t_k, 1e-9), 'plain N x N cosine matrix and its mean (numpy, float32)', t_p,
                        aim='<= the N x N time (what is ours)', met=t_o - t_k <= t_p))
        t_g, _ = timed(lambda: _products(E.astype(np.float64)), 1 if quick else repeats)
        rows.append(row(f"the float64 distance products alone that the exact silhouette needs at N = {N:,} (the blocks on and above the "
                        f"diagonal: N^2 d / 2 multiply-adds, nothing else), the floor of ours without the KMeans fits", t_g,
                        'plain N x N cosine matrix and its mean (numpy, float32)', t_p))
    rows.append(repeats_row(quick))
    if not quick and not skip_100k:
        E = embeddings(100_000)
        t_o, sd = timed(lambda: semantic_diversity(E), 1)
        ours_t.append(t_o); sizes = sizes + (100_000,)
        rows.append(row("semantic diversity of 100,000 x 384 float32 embeddings, ours alone (an N x N float32 matrix would be 37 GiB)",
                        t_o, ours_mib=peak_mib(lambda: semantic_diversity(E)), aim='no N x N matrix', met=True))
    print(f"fitted exponent of time in N: ours {fit_exponent(sizes, ours_t):.2f} ({', '.join(f'{n:,}' for n in sizes)}), "
          f"peer {fit_exponent(sizes[:len(peer_t)], peer_t):.2f} ({', '.join(f'{n:,}' for n in sizes[:len(peer_t)])})")
    return rows, ok

def _products(X, block=1024):
    "Only the products of the distance pass (`diversity._distance_sums`): X[a] @ X[b].T for the blocks on and above the diagonal."
    for a in range(0, len(X), block):
        for b in range(a, len(X), block): X[a:a + block] @ X[b:b + block].T

def repeats_row(quick):
    "A humor batch's vectors (500 distinct answers, each filling every prompt): the design's KMeans fits from the distinct vectors vs on every row."
    from cah_metrics.diversity import _distinct_rows, _kmeans_labels
    n, reps = (200, 20) if quick else (500, 80)
    X = embeddings(n)[np.tile(np.arange(n), reps)].astype(np.float32 if n * reps * 384 > 10_000_000 else np.float64)  # semantic_diversity's dtype
    rows = _distinct_rows(X)
    t_w, ours = timed(lambda: _kmeans_labels(X, 42, rows), 1 if quick else 3)
    t_f, full = timed(lambda: _kmeans_labels(X, 42), 1)
    same = [k for k, _ in ours] == [k for k, _ in full] and all(np.array_equal(a, b) for (_, a), (_, b) in zip(ours, full))
    print(f"KMeans k = 2..5 x n_init = 10 on {len(X):,} rows holding {n} distinct vectors: from the distinct vectors {t_w:.2f} s, "
          f"on every row {t_f:.2f} s; labels {'equal' if same else 'DIFFER'}")
    return row(f"the design's 40 KMeans fits of semantic diversity on {len(X):,} x 384 rows holding {n} distinct vectors (a humor batch: "
               f"{n} answers x {reps} prompts): distinct vectors weighted by their counts, scikit-learn's seeding replayed on every row",
               t_w, f'scikit-learn KMeans on every row', t_f, aim='the same labels', met=same,
               numbers='labels equal for every k' if same else 'labels DIFFER')

def continuity_rows(quick, repeats=3):
    from cah_metrics.diversity import semantic_diversity
    rows = []
    for base in ((5_000,) if quick else (5_000, 10_000)):
        ns = (base - 1, base, base + 1, base + 2)
        ts = [timed(lambda: semantic_diversity(embeddings(N)), 1 if quick else repeats)[0] for N in ns]
        smooth = max(ts) / min(ts) < 1.25
        rows.append(row(f"semantic diversity at N = {', '.join(f'{n:,}' for n in ns)} (the old method switch at {base:,}): "
                        + ', '.join(f'{t:.2f} s' for t in ts), float(np.median(ts)), aim='continuous in N (max / min < 1.25)', met=smooth))
    return rows

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--quick', action='store_true', help='smaller sizes, one repeat: a smoke run')
    ap.add_argument('--json', help='append the result rows here as JSON Lines')
    ap.add_argument('--repeats', type=int, default=3, help='timed calls per size (the median is reported); 1 on a crowded machine')
    ap.add_argument('--skip-100k', action='store_true', help='leave out the 100,000-embedding row (minutes on 2 busy cores)')
    args = ap.parse_args()
    r2, ok2 = semantic_rows(args.quick, args.repeats, args.skip_100k)
    emit(r2, args.json)                                   # each part's rows as soon as it is done
    emit(continuity_rows(args.quick, args.repeats), args.json)
    rows, ok1 = self_bleu_rows(args.quick)
    emit(rows, args.json)
    return 0 if ok1 and ok2 else 1

if __name__ == '__main__': sys.exit(main())
