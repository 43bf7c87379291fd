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
   (the one distance pass, silhouettes, spread, Vendi) is compared with the N x N matrix too, and the fits themselves
   with scikit-learn's KMeans called for k = 2..5 in turn (its own threads; the labels must be equal). The numbers must
   agree: the overall diversity with the peer's to 1e-6 (float32 matrix), the silhouette and spread with scikit-learn's
   silhouette_score and a full distance matrix at 1k (to 1e-9). The products alone that the exact silhouette needs
   (blocks on and above the diagonal, on every core as ours runs them) are timed too: the floor of what is ours. Then
   unstructured vectors (i.i.d. Gaussian, no clusters) at 10k: what they cost (KMeans iterating until it converges) and
   how many Lloyd steps the fits take there and on the mixture. Then the design's 40 KMeans fits on a humor batch's
   vectors (500 distinct answers x 80 prompts), from the distinct vectors weighted by their counts against
   scikit-learn on every row: the labels must be equal.
3. Continuity: ours at N = 9,999 / 10,000 / 10,001 / 10,002 (the old switch to MiniBatchKMeans) and 4,999 .. 5,002 (the
   old switch to a sampled silhouette and spread), and the fitted cost exponent of ours and of the peer.

    python bench/bench_diversity.py [--quick] [--json PATH] [--repeats 3] [--skip-100k]
"""
import argparse, os, sys, time, warnings
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

def sklearn_fits(X, seed=42):
    "scikit-learn's own KMeans (its default threads) for k = 2..5 in turn: the labels and the best start's Lloyd steps of each."
    from sklearn.cluster import KMeans
    fits = [KMeans(k, random_state=seed, n_init=10).fit(X) for k in range(2, min(5, len(X) // 2) + 1)]
    return [(km.n_clusters, km.labels_) for km in fits], [km.n_iter_ for km in fits]

def kmeans_row(X, what, repeats):
    "The design's 40 KMeans fits as ours runs them (scikit-learn, one thread per fit, the k side by side) against scikit-learn's KMeans in turn."
    from cah_metrics.diversity import _kmeans_labels
    t_o, ours = timed(lambda: _kmeans_labels(X), repeats)
    t_p, (fits, steps) = timed(lambda: sklearn_fits(X), repeats)
    same = [k for k, _ in ours] == [k for k, lab in fits if len(np.unique(lab)) > 1] and all(
        np.array_equal(lab, dict(fits)[k]) for k, lab in ours)
    return t_o, row(f"the design's 40 KMeans fits (k = 2..5, n_init = 10) of {what}: ours (scikit-learn's KMeans, one thread per fit, "
               f"the four k side by side; the best starts took {', '.join(map(str, steps))} Lloyd steps)", t_o,
               "scikit-learn KMeans for k = 2..5 in turn (its own threads)", t_p, aim='within 1.1x, the same labels',
               met=same and t_p / t_o >= 1 / 1.1, numbers='labels equal for every k' if same else 'labels DIFFER'), steps

def semantic_rows(quick, repeats=3, skip_100k=False):
    from sklearn.metrics import silhouette_score
    from cah_metrics.diversity import semantic_diversity, _kmeans_labels
    sizes = (500, 1_000, 2_000) if quick else (1_000, 10_000, 20_000)
    reps = 1 if quick else repeats
    rows, ok, ours_t, peer_t, mixture_steps = [], True, [], [], None
    semantic_diversity(embeddings(50))                   # untimed: the first call imports scikit-learn
    for N in sizes:
        E = embeddings(N)
        t_o, sd = timed(lambda: semantic_diversity(E), reps)
        t_p, p = timed(lambda: peer(E), reps)
        m_o, m_p = peak_mib(lambda: semantic_diversity(E)), peak_mib(lambda: peer(E))
        agree = abs(sd['overall_diversity'] - p) <= 1e-6
        if N == sizes[0]:                     # the silhouette and spread against scikit-learn and a full distance matrix
            X = E.astype(np.float64); sq = (X * X).sum(1)
            D = np.sqrt(np.maximum(sq[:, None] + sq[None] - 2 * X @ X.T, 0)); np.fill_diagonal(D, 0)
            spread = min(1.0, D.sum() / (N * (N - 1)) / np.sqrt(X.shape[1]) / 2)
            agree &= abs(sd['silhouette'] - silhouette_score(X, sd.labels)) <= 1e-9 and abs(sd['semantic_spread'] - spread) <= 1e-9
        ok &= agree; ours_t.append(t_o); peer_t.append(t_p)
        no_matrix = m_o < N * N * 4 / 2**20 or N <= 2_048    # below 2,048 texts the inputs' float64 copies outweigh that matrix
        rows.append(row(f"semantic diversity of {N:,} x 384 float32 embeddings (KMeans k=2..5, n_init=10, exact silhouette and spread, Vendi)",
                        t_o, 'plain N x N cosine matrix and its mean (numpy, float32)', t_p, ours_mib=m_o, peer_mib=m_p,
                        aim='<= the N x N time, no N x N matrix', met=t_o <= t_p and no_matrix,
                        numbers=('overall diversity equal to 1e-6' + (', silhouette and spread equal to sklearn to 1e-9' if N == sizes[0] else ''))
                                if agree else 'DIFFER'))
        if N >= 10_000:                       # the design's 40 KMeans fits alone, beside scikit-learn's own
            t_k, k_row, steps = kmeans_row(E.astype(np.float64), f"{N:,} x 384 embeddings (a mixture of 8 clusters)", reps)
            ok &= k_row['numbers'] == 'labels equal for every k'
            mixture_steps = mixture_steps or steps
        else: t_k, _ = timed(lambda: _kmeans_labels(E.astype(np.float64)), reps)
        print(f"N = {N:,}: the design's KMeans fits (scikit-learn, k = 2..5 x n_init = 10) take {t_k:.3f} s of ours {t_o:.3f} s")
        if N >= 10_000:                       # below, the fits are nearly all of it: a difference of noise
            rows.append(row(f"semantic diversity of {N:,} x 384 embeddings, all but the design's KMeans fits (ours {t_o:.2f} s minus "
                            f"the 40 scikit-learn fits, {t_k:.2f} s: one distance pass for every silhouette and the spread, Vendi)",
                            t_o - t_k, 'plain N x N cosine matrix and its mean (numpy, float32)', t_p,
                            aim='<= the N x N time (what is ours)', met=t_o - t_k <= t_p))
        t_g, _ = timed(lambda: _products(E.astype(np.float64)), reps)
        rows.append(row(f"the float64 distance products alone that the exact silhouette needs at N = {N:,} (the blocks on and above the "
                        f"diagonal, norms folded in: N^2 (d + 2) / 2 multiply-adds on every core, nothing else), the floor of ours "
                        f"without the KMeans fits", t_g, 'plain N x N cosine matrix and its mean (numpy, float32)', t_p))
        if N >= 10_000: rows.append(k_row)
    if not quick:
        rows += unstructured_rows(reps, mixture_steps)
    rows.append(repeats_row(quick))
    if not quick and not skip_100k:
        E = embeddings(100_000)
        t_o, m_o = timed(lambda: peak_mib(lambda: semantic_diversity(E)), 1)    # one call, timed and traced
        ours_t.append(t_o); sizes = sizes + (100_000,)
        rows.append(row("semantic diversity of 100,000 x 384 float32 embeddings, ours alone, one call (an N x N float32 matrix would be "
                        "37 GiB)", t_o, ours_mib=m_o, aim='no N x N matrix', met=True))
    print(f"fitted exponent of time in N: ours {fit_exponent(sizes, ours_t):.2f} ({', '.join(f'{n:,}' for n in sizes)}), "
          f"peer {fit_exponent(sizes[:len(peer_t)], peer_t):.2f} ({', '.join(f'{n:,}' for n in sizes[:len(peer_t)])})")
    return rows, ok

def unstructured_rows(repeats, mixture_steps, N=10_000):
    "Unstructured vectors (i.i.d. Gaussian: no clusters to find): the whole function, and its KMeans fits against scikit-learn's."
    from cah_metrics.diversity import semantic_diversity, _kmeans_labels
    E = np.random.default_rng(1).normal(size=(N, 384)).astype(np.float32)
    t_o, _ = timed(lambda: semantic_diversity(E), 1)          # seconds each: one call
    t_p, _ = timed(lambda: peer(E), repeats)
    t_k, k_row, steps = kmeans_row(E.astype(np.float64), f"{N:,} x 384 unstructured vectors", 1)
    why = (f"with no clusters the centres keep drifting and each start runs until they move less than tol: the best starts took "
           f"{', '.join(map(str, steps))} Lloyd steps for k = 2..5, against {', '.join(map(str, mixture_steps))} on the 8-cluster mixture")
    return [row(f"semantic diversity of {N:,} x 384 unstructured vectors (i.i.d. Gaussian, one call): ours {t_o:.2f} s, of which the "
                f"design's 40 KMeans fits {t_k:.2f} s ({why}); all but the fits {t_o - t_k:.2f} s", t_o,
                'plain N x N cosine matrix and its mean (numpy, float32)', t_p), k_row]

def _products(X, block=None):
    "Only the products of the distance pass (`diversity._distance_sums`) as it runs them: the lifted blocks on and above the diagonal (`_block_pairs`: diagonal blocks halved twice), a thread per core."
    from cah_metrics.diversity import BLOCK, _block_pairs, _lifted, _ordered_map
    from cah_metrics.resample import one_thread
    left, right = _lifted(X)
    pairs = _block_pairs(len(X), block or BLOCK)
    def product(pair): return left[pair[0]:pair[1]] @ right[pair[2]:pair[3]].T
    with one_thread():
        for _ in _ordered_map(product, pairs, min(len(pairs), os.cpu_count() or 1)): pass

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
