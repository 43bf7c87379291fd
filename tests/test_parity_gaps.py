"""Parity gaps found from outside (issue 33, item 6), each against its reference implementation.

- correlations of a constant input are undefined: None here where SciPy gives NaN (`similarity_correlation`, the
  semantic-similarity score's Pearson r), and the score and the composite treat an undefined r as 0;
- the ensemble's outlier z-scores with zero spread: None here where `scipy.stats.zscore(ddof=1)` gives NaN;
- Fleiss' kappa from raw raters x items ratings = statsmodels' `aggregate_raters` (items x raters) + `fleiss_kappa`;
- Cohen's kappa with `incomplete='omit'` = scikit-learn's `cohen_kappa_score` on the items both raters rated;
- Krippendorff's alpha of str categories in a given order = `krippendorff.alpha(..., value_domain=...)`;
- K-fold without shuffling = scikit-learn's splitters with `shuffle=False`.
Tolerance 1e-12 absolute for every number (the same arithmetic in another order); folds must be identical.
"""
import json, math, warnings

import numpy as np
import pytest
from scipy import stats
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import cohen_kappa_score
from sklearn.model_selection import GroupKFold, KFold, StratifiedGroupKFold, StratifiedKFold, cross_val_score

from cah_metrics.agreement import cohen_kappa, fleiss_kappa_from_ratings, krippendorff_alpha
from cah_metrics.crossval import assign_folds, cross_validate
from cah_metrics.embedding_stats import cos_rows, similarity_correlation
from cah_metrics.ensemble import disagreement
from cah_metrics.kg_scores import SCORES, composite, semantic_similarity_score

EPS = 1e-12


def quiet(f, *args, **kwargs):
    "f(...) with the reference's warnings (constant input, 0/0) silenced."
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        return f(*args, **kwargs)


def same(ours, theirs):
    "None here <-> NaN there; otherwise equal within EPS."
    if ours is None: return bool(np.isnan(theirs))
    return not np.isnan(theirs) and abs(ours - theirs) < EPS


# ---- correlations of a constant input -------------------------------------------------------------------------------
def test_similarity_correlation_constant_is_none_like_scipy():
    rng = np.random.default_rng(0)
    for trial in range(60):
        n = int(rng.integers(3, 30))
        p, g = rng.uniform(-1, 1, n), rng.integers(0, 11, n) / 2
        if trial % 3 == 0: p = np.full(n, 0.25)           # a collapsed model
        if trial % 5 == 0: g = np.full(n, 2.5)            # constant gold
        r = similarity_correlation(p, g)
        refs = [quiet(f, p, g) for f in (stats.pearsonr, stats.spearmanr, stats.kendalltau)]
        for (stat, pvalue), ref in zip([('pearson', 'pearson_p'), ('spearman', 'spearman_p'),
                                        ('kendall_tau_b', 'kendall_p')], refs):
            assert same(getattr(r, stat), ref.statistic), (trial, stat)
            assert (getattr(r, pvalue) is None) == bool(np.isnan(ref.pvalue)), (trial, pvalue)
    assert json.loads(json.dumps(similarity_correlation([0.5] * 3, [1, 2, 3]).to_dict()))['spearman'] is None


def test_semantic_similarity_correlation_constant_is_none_and_counts_0():
    rng = np.random.default_rng(1)
    for trial in range(40):
        n = int(rng.integers(3, 12))
        A, B = rng.normal(size=(n, 5)), rng.normal(size=(n, 5))
        if trial % 3 == 0: A, B = np.tile(A[0], (n, 1)), np.tile(B[0], (n, 1))    # every cosine the same
        e = np.full(n, 0.4) if trial % 4 == 0 else rng.uniform(0, 1, n)
        s = semantic_similarity_score(A, B, e, n_resamples=0)
        ref = quiet(stats.pearsonr, cos_rows(A, B), e).statistic
        assert same(s.correlation, ref), trial
        c, r = cos_rows(A, B), (s.correlation or 0.0)     # the score's rule: an undefined r enters as 0
        d = np.abs(c - e)
        acc, mae = (d <= 0.1 + 1e-9).mean(), d.mean()
        assert abs(s.score - (0.4 * acc + 0.4 * r + 0.2 * (1 - mae))) < EPS
        assert abs(s.score_corrected - (0.4 * acc + 0.4 * max(r, 0.0) + 0.2 * (1 - mae))) < EPS
    flat = semantic_similarity_score([[1, 0]] * 4, [[0.6, 0.8]] * 4, [0.1, 0.5, 0.6, 0.9], n_resamples=50)
    assert flat.correlation is None and flat.ci is not None and 'correlation=None' in repr(flat)
    assert json.loads(json.dumps(flat.to_dict()))['correlation'] is None
    comp = composite({'semantic_similarity': flat, **dict.fromkeys(SCORES[1:], 0.5)})
    assert math.isclose(comp.score, (flat.score + 4 * 0.5) / 5, abs_tol=EPS)     # the composite stays a number
    with pytest.raises(TypeError, match=r"composite: scores\['semantic_similarity'\]"):
        composite({'semantic_similarity': None, **dict.fromkeys(SCORES[1:], 0.5)})


# ---- the ensemble's outlier z-scores --------------------------------------------------------------------------------
def test_outlier_z_zero_spread_is_none_like_scipy_zscore():
    rng = np.random.default_rng(2)
    cases = [[0.1] * 3, [1 / 3] * 6, [2.0, 2.0], [0.5] * 4 + [0.9], [0.8, 0.6, 0.7],
             *rng.uniform(0, 1, (30, 5)).round(1).tolist(), *rng.normal(0, 5, (10, 7)).tolist()]
    for case in cases:
        z = disagreement({f's{i}': v for i, v in enumerate(case)}).outlier_z
        ref = np.abs(quiet(stats.zscore, case, ddof=1))
        assert all(same(v, t) for v, t in zip(z.values(), ref)), case
    const = disagreement({'a': 0.7, 'b': 0.7, 'c': 0.7, 'd': 0.7, 'e': 0.7})
    assert const.outliers == [] and json.loads(json.dumps(const.to_dict()))['outlier_z']['a'] is None


# ---- Fleiss' kappa from raw ratings ---------------------------------------------------------------------------------
def test_fleiss_kappa_from_ratings_equals_statsmodels():
    ir = pytest.importorskip('statsmodels.stats.inter_rater')
    worst = 0.0
    for seed in range(40):
        g = np.random.default_rng(seed)
        q = int(g.integers(2, 6))
        R = g.integers(0, q, (int(g.integers(2, 9)), int(g.integers(1, 50))))     # raters x items
        S = np.array([f"cat {v}" for v in R.ravel()]).reshape(R.shape)
        for method in ('fleiss', 'randolph'):
            theirs = quiet(ir.fleiss_kappa, ir.aggregate_raters(R.T)[0], method)
            if np.isnan(theirs):
                with pytest.raises(ValueError, match='fleiss_kappa_from_ratings: .*kappa is 0/0'):
                    fleiss_kappa_from_ratings(R, method)
                continue
            worst = max(worst, abs(fleiss_kappa_from_ratings(R, method) - theirs),
                        abs(fleiss_kappa_from_ratings(S, method) - quiet(ir.fleiss_kappa, ir.aggregate_raters(S.T)[0], method)),
                        abs(fleiss_kappa_from_ratings(R.tolist(), method) - theirs))
            # every category offered, one never used: statsmodels' n_cat
            offered = fleiss_kappa_from_ratings(R, method, categories=list(range(q + 1)))
            worst = max(worst, abs(offered - quiet(ir.fleiss_kappa, ir.aggregate_raters(R.T, n_cat=q + 1)[0], method)))
    assert worst < EPS
    with pytest.raises(ValueError, match=r"ratings\[1\]\[0\] is missing"): fleiss_kappa_from_ratings([[1, 2], [None, 2]])


# ---- Cohen's kappa with skipped items -------------------------------------------------------------------------------
def test_cohen_kappa_omit_equals_sklearn_on_kept_items():
    worst, checked = 0.0, 0
    for seed in range(80):
        g = np.random.default_rng(seed)
        L, n = int(g.integers(2, 7)), int(g.integers(3, 80))
        a = g.integers(0, L, n).astype(object)
        b = np.where(g.random(n) < 0.6, a, g.integers(0, L, n)).astype(object)
        if seed % 3 == 0: a, b = np.array([f"c{v}" for v in a], object), np.array([f"c{v}" for v in b], object)
        skip_a, skip_b = g.random(n) < 0.25, g.random(n) < 0.15
        a[skip_a], b[skip_b] = (None if seed % 2 else math.nan), math.nan       # None and NaN are missing
        kept = ~(skip_a | skip_b)
        if not kept.any(): continue
        labels = sorted(set(a[kept]) | set(b[kept]) | ({'c9'} if seed % 3 == 0 else {9})) if seed % 4 == 1 else None
        for w in (None, 'linear', 'quadratic'):
            theirs = quiet(cohen_kappa_score, list(a[kept]), list(b[kept]), weights=w, labels=labels)
            if np.isnan(theirs):
                with pytest.raises(ValueError, match='kappa is 0/0'): cohen_kappa(list(a), list(b), w, labels, 'omit')
                continue
            worst, checked = max(worst, abs(cohen_kappa(list(a), list(b), w, labels, incomplete='omit') - theirs)), checked + 1
    assert checked > 150 and worst < EPS
    x, y = np.array([1.0, 2, np.nan, 3, 3]), np.array([1.0, 3, 2, np.nan, 3])   # arrays with NaN
    assert abs(cohen_kappa(x, y, incomplete='omit') - cohen_kappa_score([1, 2, 3], [1, 3, 3])) < EPS
    with pytest.raises(ValueError, match=r"a\[2\] is missing \(nan\).*incomplete='omit'"): cohen_kappa(x, y)


# ---- Krippendorff's alpha of ordered str categories -----------------------------------------------------------------
def test_krippendorff_alpha_categories_equals_value_domain():
    kr = pytest.importorskip('krippendorff')
    worst = 0.0
    for seed in range(20):
        g = np.random.default_rng(seed)
        k, N = int(g.integers(2, 8)), int(g.integers(5, 60))
        X = np.clip(np.round(g.normal(3, 1, N) + g.normal(0, 0.8, (k, N))), 0, 6)     # 0..6, item effect + noise
        X[g.random((k, N)) < g.uniform(0, 0.4)] = np.nan
        if np.nanmin(X) == np.nanmax(X) or ((~np.isnan(X)).sum(0) >= 2).sum() == 0: continue
        order = [f"grade {v}" for v in g.permutation(7)]             # the words' sorted order is not their order
        S = [[np.nan if np.isnan(v) else order[int(v)] for v in row] for row in X]
        for level in ('nominal', 'ordinal', 'interval'):
            ours = krippendorff_alpha(S, level, missing=math.nan, categories=order).alpha
            if level == 'interval':      # krippendorff's interval distance subtracts the values: its alpha of the positions
                theirs = kr.alpha(X, level_of_measurement=level, value_domain=list(range(7)))
            else: theirs = kr.alpha(S, level_of_measurement=level, value_domain=order)
            worst = max(worst, abs(ours - float(theirs)))
    assert worst < EPS
    with pytest.raises(ValueError, match="krippendorff_alpha: the rating 'c' is not one of categories"):
        krippendorff_alpha([['a', 'c'], ['b', 'a']], 'ordinal', categories=['a', 'b'])
    with pytest.raises(TypeError, match='krippendorff_alpha: categories orders str ratings'):
        krippendorff_alpha([[1, 2], [2, 1]], 'ordinal', categories=[1, 2])


# ---- K-fold without shuffling ---------------------------------------------------------------------------------------
def folds_of(assignment, K):
    return [np.flatnonzero(assignment[0] == k).tolist() for k in range(K)]


@pytest.mark.parametrize('n,K', [(10, 3), (11, 5), (200, 5), (7, 7)])
def test_assign_folds_unshuffled_equal_sklearn(n, K):
    y, grp = np.arange(n) % 2, np.arange(n) // 2
    X = np.zeros((n, 1))
    assert folds_of(assign_folds(n, K, shuffle=False, seed=3), K) == [t.tolist() for _, t in KFold(K).split(X)]
    if K <= n // 2:
        assert folds_of(assign_folds(n, K, strata=y, shuffle=False), K) == [t.tolist() for _, t in StratifiedKFold(K).split(X, y)]
    if K <= grp.max() + 1:
        assert folds_of(assign_folds(n, K, groups=grp, shuffle=False), K) == [t.tolist() for _, t in GroupKFold(K).split(X, y, grp)]
        if K <= n // 2:
            want = [t.tolist() for _, t in StratifiedGroupKFold(K).split(X, y, grp)]
            assert folds_of(assign_folds(n, K, strata=y, groups=grp, shuffle=False), K) == want


def test_cross_validate_unshuffled_equals_cross_val_score():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 4))
    y = (X[:, 0] + rng.normal(0, 1, 120) > 0).astype(int)
    res = cross_validate(LogisticRegression(), X, y, stratify=False, shuffle=False)
    for s in ('accuracy', 'roc_auc'):
        np.testing.assert_allclose(res.scores[s], cross_val_score(LogisticRegression(), X, y, cv=KFold(5), scoring=s), rtol=0, atol=EPS)
    assert res.shuffle is False and res.to_dict()['shuffle'] is False and '|shuffle:no|' in str(res.signature)
    assert res.with_interval('naive-t').shuffle is False
    assert '|shuffle:' not in str(cross_validate(LogisticRegression(), X, y).signature)          # unchanged when shuffled
    with pytest.raises(ValueError, match='cross_validate: repeats=2 with shuffle=False'):
        cross_validate(LogisticRegression(), X, y, repeats=2, shuffle=False)
