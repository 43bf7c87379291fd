"""Krippendorff's alpha on 100 raters x 100,000 items with 30% missing: cah_metrics vs the krippendorff package, in one run.

The ratings are seeded and have real agreement (an item effect plus each rater's noise): integer ratings 1-5 (a Likert
scale, every level of measurement), and a 21-point interval scale 0, 0.5, ..., 10 (not integers: our values go
through `np.unique`, not the comparisons that count a short integer scale). Each cell is missing with probability
0.3 (NaN, which both read as missing: ours with `missing=float('nan')`). `krippendorff.alpha` (0.9.0) gets the same
array with `level_of_measurement` set and its default value domain (the sorted distinct ratings); the script asserts
the two alphas agree within 1e-12 (absolute) and exits 1 otherwise, and prints the median times, their ratio, and the
peak traced memory of one run of each. Then continuous ratings (every rating its own value): ours on the full matrix,
and both on a matrix small enough for krippendorff, which holds a units x values x values array (8 N V^2 bytes: for
the full continuous matrix about 4e19 bytes). Last, ours with a 1,000-resample bootstrap interval, for scale.
Benchmarks print ratios; they are not tests.

    python bench/bench_agreement.py [--raters 100] [--items 100000] [--missing 0.3] [--repeats 3] [--quick] [--json PATH]

--quick: 10,000 items (a smoke run). Result rows for the README's table: one per scale and level compared with
krippendorff (1-5 at the four levels; 0-10 by 0.5, interval and ordinal).
"""
import argparse, sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import timed, peak_mib, row, emit

TOL = 1e-12

def ratings(raters, items, missing, kind, seed=0):
    "Raters x items with agreement, NaN where missing: 'likert' 1-5, 'halves' 0, 0.5, ..., 10, or 'continuous'."
    import numpy as np
    g = np.random.default_rng(seed)
    truth = g.normal(0, 1, items)
    X = truth + g.normal(0, 1, (raters, items))
    X = {'likert': lambda: np.clip(np.round(3 + X), 1, 5), 'halves': lambda: np.clip(np.round(2 * (5 + 2 * X)) / 2, 0, 10),
         'continuous': lambda: 5 + 2 * X}[kind]()
    X[g.random(X.shape) < missing] = np.nan
    return X

def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--raters', type=int, default=100); ap.add_argument('--items', type=int, default=100_000)
    ap.add_argument('--missing', type=float, default=0.3); ap.add_argument('--repeats', type=int, default=3)
    ap.add_argument('--quick', action='store_true', help='10,000 items (a smoke run)')
    ap.add_argument('--json', help='append the result rows here (JSON Lines, for bench/run_all.py)')
    a = ap.parse_args()
    if a.quick: a.items = min(a.items, 10_000)
    from importlib.metadata import version
    import numpy as np
    import krippendorff
    from cah_metrics.agreement import krippendorff_alpha
    NAN, ok = float('nan'), True
    print(f"Krippendorff's alpha, {a.raters} raters x {a.items:,} items, {a.missing:.0%} missing (seeded); median of {a.repeats} runs")
    print(f"{'ratings':22s} {'level':9s} {'ours':>20s} {'krippendorff':>20s} {'ours s':>8s} {'theirs s':>9s} {'speed-up':>9s} {'ours MiB':>9s} {'theirs MiB':>11s}")
    runs = [('likert', lv) for lv in ('nominal', 'ordinal', 'interval', 'ratio')] + [('halves', 'interval'), ('halves', 'ordinal')]
    data, rows, peer = {}, [], f"krippendorff {version('krippendorff')}"
    for kind, level in runs:
        X = data.setdefault(kind, ratings(a.raters, a.items, a.missing, kind))
        t_ours, ours = timed(lambda: krippendorff_alpha(X, level, missing=NAN).alpha, a.repeats)
        t_theirs, theirs = timed(lambda: float(krippendorff.alpha(X, level_of_measurement=level)), a.repeats)
        m_ours = peak_mib(lambda: krippendorff_alpha(X, level, missing=NAN))
        m_theirs = peak_mib(lambda: krippendorff.alpha(X, level_of_measurement=level))
        same = abs(ours - theirs) < TOL
        ok &= same
        label = {'likert': '1-5 (5 values)', 'halves': f"0-10 by 0.5 ({len(np.unique(X[~np.isnan(X)]))} values)"}[kind]
        print(f"{label:22s} {level:9s} {ours:20.16f} {theirs:20.16f} {t_ours:8.3f} {t_theirs:9.3f} {t_theirs / t_ours:8.1f}x "
              f"{m_ours:9.0f} {m_theirs:11.0f}" + ('' if same else '   DIFFERENT'))
        scale = {'likert': 'ratings 1-5', 'halves': 'a 21-value scale (0-10 by 0.5)'}[kind]
        rows.append(row(f"Krippendorff's alpha, {level}, {a.raters} raters x {a.items:,} items, {a.missing:.0%} missing, {scale} "
                        f"(`bench/bench_agreement.py`)", t_ours, peer, t_theirs, ours_mib=m_ours, peer_mib=m_theirs,
                        numbers=f"equal to 1e-12 (difference {abs(ours - theirs):.1e})" if same else f"DIFFER (by {abs(ours - theirs):.1e})"))
    X = ratings(a.raters, a.items, a.missing, 'continuous')
    t_cont, r = timed(lambda: krippendorff_alpha(X, 'interval', missing=NAN), a.repeats)
    t_ord, r_ord = timed(lambda: krippendorff_alpha(X, 'ordinal', missing=NAN), a.repeats)
    print(f"continuous ({np.isfinite(X).sum():,} distinct values), ours only: interval alpha {r.alpha:.6f} in {t_cont:.3f} s, "
          f"ordinal {r_ord.alpha:.6f} in {t_ord:.3f} s (krippendorff would hold 8 N V^2 = {8 * a.items * float(np.isfinite(X).sum()) ** 2:.0e} bytes)")
    small = ratings(10, 100, a.missing, 'continuous', seed=1)
    for level in ('interval', 'ordinal'):
        t_o, ours = timed(lambda: krippendorff_alpha(small, level, missing=NAN).alpha, a.repeats)
        t_t, theirs = timed(lambda: float(krippendorff.alpha(small, level_of_measurement=level)), a.repeats)
        same = abs(ours - theirs) < TOL
        ok &= same
        print(f"continuous, 10 raters x 100 items ({np.isfinite(small).sum()} values), {level}: ours {ours:.16f} in {t_o * 1e3:.1f} ms, "
              f"krippendorff {theirs:.16f} in {t_t * 1e3:.0f} ms ({t_t / t_o:.0f}x)" + ('' if same else '   DIFFERENT'))
    t_boot, rb = timed(lambda: krippendorff_alpha(data['likert'], 'ordinal', missing=NAN, n_resamples=1000), 1)
    print(f"ours with a bootstrap interval, 1-5 ordinal, 1,000 resamples of the {rb.n_pairable:,} items: {t_boot:.2f} s: {rb}")
    print(f"numbers: {'equal within 1e-12' if ok else 'DIFFERENT'}")
    emit(rows, a.json)
    return 0 if ok else 1

if __name__ == '__main__': sys.exit(main())
