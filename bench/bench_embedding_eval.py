"""Link-prediction ranking at scale (issue 18): 10,000 queries against 2,034 entities in 384 dimensions, in one run.

1. `rank_vectors` on seeded random unit vectors (the sizes of CoDEx-S's candidate set and MiniLM's vectors), two
   filtered entities per query: the ranks must equal a direct computation (the full cosine matrix, one query at a time,
   candidate counts by NumPy comparisons) on every query; median time of 3 runs and the peak traced memory, next to
   the size of the queries x entities x dimensions array that broadcasting would build (never built here).
2. `rank_metrics` on the same scores handed over as a 10,000 x 2,034 matrix (time and peak beyond the matrix).
3. `rank_vectors` with 50,000 queries (time and peak: memory grows with one block of scores, not with the queries).
4. CoDEx-S text link prediction end to end with the random baseline (3,656 queries, 2,034 candidates, filtered against
   the 36,543 known triples; tests/data/codex_s), and with --minilm the bundled MiniLM too (encoding time included).

    python bench/bench_embedding_eval.py [--queries 10000] [--entities 2034] [--dim 384] [--minilm] [--quick] [--json PATH]

--quick: 2,000 queries (a smoke run). Result rows for the README's table: `rank_vectors` at the two query counts of
1. and 3., each next to the size of the broadcast array it never builds.
"""
import argparse, resource, sys, time
from pathlib import Path
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import ROOT, timed, peak_mib, row, emit

def unit(rng, n, d):
    X = rng.standard_normal((n, d)).astype(np.float64)
    return X / np.linalg.norm(X, axis=1, keepdims=True)

def direct_ranks(Q, E, answers, filtered):
    "Optimistic and pessimistic ranks by the definition, one query at a time over the full cosine row."
    opt, pess = [], []
    for q, a, f in zip(Q, answers, filtered):
        s = E @ q; keep = np.ones(len(E), bool); keep[f] = False; keep[a] = True
        opt.append(1 + int((s[keep] > s[a]).sum())); pess.append(int((s[keep] >= s[a]).sum()))
    return np.array(opt), np.array(pess)

def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--queries', type=int, default=10_000); ap.add_argument('--entities', type=int, default=2_034)
    ap.add_argument('--dim', type=int, default=384); ap.add_argument('--minilm', action='store_true')
    ap.add_argument('--quick', action='store_true', help='2,000 queries (a smoke run)')
    ap.add_argument('--json', help='append the result rows here (JSON Lines, for bench/run_all.py)')
    a = ap.parse_args()
    if a.quick: a.queries = min(a.queries, 2_000)
    from cah_metrics.embedding_eval import link_prediction, load_codex, rank_metrics, rank_vectors
    rng = np.random.default_rng(0)
    Q, E = unit(rng, a.queries, a.dim), unit(rng, a.entities, a.dim)
    E[1] = E[0]                                                             # one exact tie, as entities with the same text have
    ans = rng.integers(0, a.entities, a.queries)
    filt = [[int(x) for x in rng.choice(a.entities, 2, replace=False) if x != t] for t in ans]
    t, r = timed(lambda: rank_vectors(Q, E, ans, filt), 3)
    opt, pess = direct_ranks(Q, E, ans, filt)
    ok = np.array_equal(r.optimistic, opt) and np.array_equal(r.pessimistic, pess)
    naive = a.queries * a.entities * a.dim * 8 / 2**30
    m = peak_mib(lambda: rank_vectors(Q, E, ans, filt))
    task = lambda n, how: (f"link prediction ranks (optimistic, pessimistic, realistic), `rank_vectors`, {n:,} queries x {a.entities:,} "
                           f"entities x {a.dim} dimensions, in chunks; {how} (`bench/bench_embedding_eval.py`)")
    peer = 'a broadcast queries x entities x dimensions array of float64 (never built; its size only)'
    rows = [row(task(a.queries, 'filtered, two known entities per query'), t, peer, ours_mib=m, peer_mib=naive * 2**10,
                numbers='ranks equal a direct per-query computation' if ok else 'DIFFER from a direct per-query computation')]
    print(f"rank_vectors, {a.queries:,} queries x {a.entities:,} entities x {a.dim} dims: {t:.2f} s, peak {m:.0f} MiB "
          f"(a broadcast queries x entities x dims array: {naive:.0f} GiB); ranks {'equal' if ok else 'DIFFER FROM'} the direct computation; "
          f"MRR {r.mrr:.5f} (chance {np.mean(1 / np.arange(1, a.entities + 1)):.5f})")
    S = (Q @ E.T)
    qs = [{'head': 0, 'relation': 0, 'tail': int(x), 'target': 'tail', 'filtered_entities': f} for x, f in zip(ans, filt)]
    t, r2 = timed(lambda: rank_metrics(S, qs, list(range(a.entities))), 3)
    ok2 = np.array_equal(r2.optimistic, opt) and np.array_equal(r2.pessimistic, pess)
    print(f"rank_metrics on the {a.queries:,} x {a.entities:,} score matrix ({S.nbytes / 2**20:.0f} MiB, given): {t:.2f} s, "
          f"peak beyond it {peak_mib(lambda: rank_metrics(S, qs, list(range(a.entities)))):.0f} MiB; ranks {'equal' if ok2 else 'DIFFER'}")
    del S
    Q5 = unit(rng, 5 * a.queries, a.dim); ans5 = rng.integers(0, a.entities, 5 * a.queries)
    t, _ = timed(lambda: rank_vectors(Q5, E, ans5), 1)
    m = peak_mib(lambda: rank_vectors(Q5, E, ans5))
    print(f"rank_vectors, {5 * a.queries:,} queries: {t:.2f} s, peak {m:.0f} MiB")
    rows.append(row(task(5 * a.queries, 'unfiltered, one run (memory grows with one block of scores, not with the queries)'), t, peer,
                    ours_mib=m, peer_mib=5 * naive * 2**10, numbers=None))
    kg = load_codex(ROOT / 'tests' / 'data' / 'codex_s')
    for name in ['random'] + (['minilm'] if a.minilm else []):
        t0 = time.perf_counter(); lp = link_prediction(name, kg, n_resamples=1000); dt = time.perf_counter() - t0
        print(f"CoDEx-S link prediction, {name}: {lp.n_queries:,} queries x {lp.n_entities:,} candidates, filtered, with a 1,000-resample MRR interval: "
              f"{dt:.1f} s end to end; MRR {lp.mrr:.4f} [{lp.mrr_ci[0]:.4f}, {lp.mrr_ci[1]:.4f}]")
    print(f"process peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")
    emit(rows, a.json)
    return 0 if ok and ok2 else 1

if __name__ == '__main__': sys.exit(main())
