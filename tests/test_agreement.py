"""Inter-rater agreement (nbs/08a_agreement.ipynb): parity with the reference packages, errors, the bootstrap.

Parity, each on real ratings with missing values (ExPUNations, tests/data/expunations/) and on seeded random matrices:
Krippendorff's alpha against `krippendorff.alpha` 0.9.0 (all four levels), the six ICCs against pingouin 0.7.0's
`intraclass_corr`, Cohen's kappa against scikit-learn's `cohen_kappa_score`, Fleiss' kappa and `rating_table` against
statsmodels 0.15.0's `fleiss_kappa` and `aggregate_raters`. Tolerances: 1e-12 absolute for alpha and the kappas, 1e-10
for the ICC table (values, F, p-values and unrounded intervals; pingouin rounds CI95 to 2 decimals unless told not to,
so its default table is compared to 0.005). The differences seen are rounding, below 1e-14.
"""
import json, math, warnings
from pathlib import Path

import numpy as np
import pytest

from cah_metrics import agreement as A
from cah_metrics.agreement import AlphaResult, ICCResult, cohen_kappa, fleiss_kappa, icc, krippendorff_alpha, rating_table
from cah_metrics.significance import DEFAULT_SEED

DATA = Path(__file__).resolve().parent / 'data' / 'expunations'
LEVELS = ('nominal', 'ordinal', 'interval', 'ratio')
EPS, ICC_EPS, NAN = 1e-12, 1e-10, float('nan')

# ---- data ---------------------------------------------------------------------------------------------------------
@pytest.fixture(scope='module')
def expun():
    "ExPUNations as raters x items matrices (NaN = missing) and its long table."
    pd = pytest.importorskip('pandas')
    funny = pd.read_csv(DATA / 'funniness_matrix.csv', index_col='id')
    joke = pd.read_csv(DATA / 'is_joke_matrix.csv', index_col='id')
    long = pd.read_csv(DATA / 'ratings_long.csv')
    fun = funny.to_numpy(np.float64).T.copy(); fun[fun == 0] = np.nan
    slot = lambda col: long.pivot(index='id', columns='slot', values=col).loc[funny.index].to_numpy(np.float64).T
    off = slot('offensive')                                 # empty offensive = missing; one stray 9 kept as a category
    return dict(fun=fun, joke=joke.to_numpy(np.float64).T, fun_slots=slot('funniness'), joke_slots=slot('is_joke'),
                offensive=off, understand=slot('understand'), funny=funny, joke_df=joke, long=long)

def random_ratings(g, k, N, kind='likert', p_missing=0.3):
    "Raters x items with agreement (item effect + noise), NaN for missing: 'likert' 1-5, 'halves', 'continuous' (>= 0), 'wide' integers."
    X = g.normal(3, 1, N) + g.normal(0, 0.8, (k, N))
    X = {'likert': lambda: np.clip(np.round(X), 1, 5), 'halves': lambda: np.clip(np.round(2 * X) / 2, 0, 6),
         'continuous': lambda: np.abs(X), 'wide': lambda: np.clip(np.round(X * 20), 0, 200)}[kind]()
    X[g.random((k, N)) < p_missing] = np.nan
    return X

def cases(n_seeds=10):
    "Random matrices with the missing patterns that matter: scattered, a rater with nothing, items with one or no rating."
    for seed in range(n_seeds):
        for kind in ('likert', 'halves', 'continuous', 'wide'):
            g = np.random.default_rng(1000 * seed + len(kind))
            X = random_ratings(g, int(g.integers(2, 9)), int(g.integers(4, 60)), kind, float(g.uniform(0, 0.6)))
            if seed % 3 == 1 and len(X) > 2: X[0] = np.nan                      # a rater who rated nothing
            if seed % 3 == 2: X[1:, 0] = np.nan; X[:, 1] = np.nan                # an item with one rating, one with none
            yield f'{kind}-{seed}', X

# ---- Krippendorff's alpha ----------------------------------------------------------------------------------------
@pytest.mark.parametrize('level', LEVELS)
def test_alpha_random_matches_krippendorff(level):
    kr = pytest.importorskip('krippendorff')
    n = 0
    for name, X in cases():
        try: theirs = float(kr.alpha(X, level_of_measurement=level))
        except ValueError: theirs = None                     # one value in the domain: theirs raises too
        if theirs is None or math.isnan(theirs):
            with pytest.raises(ValueError, match='krippendorff_alpha: '): krippendorff_alpha(X, level, missing=NAN)
            continue
        ours = krippendorff_alpha(X, level, missing=NAN)
        assert abs(ours.alpha - theirs) < EPS, (name, ours.alpha, theirs)
        n += 1
    assert n >= 35

@pytest.mark.parametrize('level', LEVELS)
def test_alpha_sparse_routes_agree(level, monkeypatch):
    "Forcing the routes for many distinct values (sparse counts, mid-ranks, pairs of raters) changes nothing."
    dense = {name: krippendorff_alpha(X, level, missing=NAN).alpha for name, X in cases(4)}
    monkeypatch.setattr(A, '_DENSE_CELLS', 0)
    for name, X in cases(4): assert abs(krippendorff_alpha(X, level, missing=NAN).alpha - dense[name]) < EPS, name

@pytest.mark.parametrize('which,level', [('fun', 'ordinal'), ('fun', 'interval'), ('fun', 'ratio'), ('joke', 'nominal'),
                                         ('fun_slots', 'ordinal'), ('offensive', 'nominal'), ('understand', 'nominal')])
def test_alpha_expunations_matches_krippendorff(expun, which, level):
    kr = pytest.importorskip('krippendorff')
    X = expun[which]
    assert abs(krippendorff_alpha(X, level, missing=NAN).alpha - float(kr.alpha(X, level_of_measurement=level))) < EPS

def test_alpha_krippendorff_example():
    "Krippendorff (2011): 4 coders x 12 units; nominal 1 - 39 * 8 / 1216 by hand; his published ordinal, interval, ratio values."
    R = [[1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None], [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
         [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None], [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None]]
    r = krippendorff_alpha(R)
    assert abs(r.alpha - (1 - 39 * 8 / 1216)) < EPS and (r.n_pairable, r.n_items, r.n_values) == (11, 12, 40)
    for level, published in (('ordinal', 0.815), ('interval', 0.849), ('ratio', 0.797)):
        assert abs(krippendorff_alpha(R, level).alpha - published) < 5e-4

def test_alpha_inputs_are_equivalent():
    "A list with None, an array with NaN, str categories, another marker, an int array, a tuple of tuples: one answer."
    X = random_ratings(np.random.default_rng(5), 4, 30)
    as_list = [[None if np.isnan(v) else int(v) for v in row] for row in X]
    ref = krippendorff_alpha(as_list).alpha
    assert krippendorff_alpha(X, missing=NAN).alpha == pytest.approx(ref, abs=EPS)
    assert krippendorff_alpha(tuple(map(tuple, as_list))).alpha == pytest.approx(ref, abs=EPS)
    assert krippendorff_alpha([[f'v{v}' if v is not None else None for v in row] for row in as_list]).alpha == pytest.approx(ref, abs=EPS)
    assert krippendorff_alpha(np.nan_to_num(X, nan=-1).astype(int), missing=-1).alpha == pytest.approx(ref, abs=EPS)
    assert krippendorff_alpha(np.array([[v if v is not None else '' for v in map(lambda x: x and str(x), row)] for row in as_list]),
                              missing='').alpha == pytest.approx(ref, abs=EPS)
    assert krippendorff_alpha([np.array(r, dtype=object) for r in as_list]).alpha == pytest.approx(ref, abs=EPS)
    assert X.flags.writeable and np.isnan(X).any()        # the caller's array is never changed
    Y = np.nan_to_num(X, nan=0); krippendorff_alpha(Y, missing=0); assert not np.isnan(Y).any()

def test_alpha_bootstrap():
    X = random_ratings(np.random.default_rng(2), 5, 80)
    for level in LEVELS:
        r = krippendorff_alpha(X, level, missing=NAN, n_resamples=500)
        assert r.low <= r.alpha <= r.high and r.n_resamples == 500 and r.seed == DEFAULT_SEED and r.confidence == 0.95
        assert r == krippendorff_alpha(X, level, missing=NAN, n_resamples=500)                      # reproducible
        assert r.alpha == pytest.approx(krippendorff_alpha(X, level, missing=NAN).alpha, abs=EPS)   # the point does not move
        other = krippendorff_alpha(X, level, missing=NAN, n_resamples=500, seed=7)
        assert (other.low, other.high) != (r.low, r.high) and other.alpha == r.alpha
        narrow = krippendorff_alpha(X, level, missing=NAN, n_resamples=500, confidence=0.5)
        assert r.low <= narrow.low <= narrow.high <= r.high
    assert krippendorff_alpha(X, missing=NAN, n_resamples=50, seed=None).seed is None

@pytest.mark.parametrize('level', LEVELS)
def test_alpha_bootstrap_is_alpha_of_resampled_items(level):
    "Each resample's alpha from summed item statistics equals alpha recomputed from the raw ratings of the resampled items."
    X = random_ratings(np.random.default_rng(11), 4, 25, 'likert', 0.2)
    P = (~np.isnan(X)).sum(0) >= 2
    Xp, B = X[:, P], 40
    idx = np.random.default_rng(DEFAULT_SEED).integers(0, Xp.shape[1], (B, Xp.shape[1]))     # resampled_sums' draws
    rows, values = A._alpha_rows(Xp, ~np.isnan(Xp), level, B, 't')
    from cah_metrics.significance import resampled_sums
    boot = A._alpha_from_sums(resampled_sums(rows, B), level, values)[0]
    for b in range(B):
        try: direct = krippendorff_alpha(Xp[:, idx[b]], level, missing=NAN).alpha
        except ValueError: direct = np.nan                    # a resample without variation
        assert (np.isnan(direct) and np.isnan(boot[b])) or abs(direct - boot[b]) < 1e-10

def test_alpha_bootstrap_counts_undefined_resamples():
    "Two items, one with variation: about a quarter of the resamples hold only the other item and have no alpha."
    r = krippendorff_alpha([[1, 1], [1, 2]], n_resamples=400)
    assert 0 < r.n_undefined < 400 and r.low <= r.alpha <= r.high
    with pytest.raises(ValueError, match='krippendorff_alpha: every pairable rating is the same value'):
        krippendorff_alpha([[1, 1], [1, 1]], n_resamples=10)

def test_alpha_bootstrap_refuses_too_many_values(monkeypatch):
    X = random_ratings(np.random.default_rng(0), 3, 40, 'continuous')
    for level in ('nominal', 'ordinal', 'ratio'):
        monkeypatch.setattr(A, '_DENSE_CELLS', 100)
        with pytest.raises(ValueError, match=f'krippendorff_alpha: the bootstrap of {level} alpha keeps'):
            krippendorff_alpha(X, level, missing=NAN, n_resamples=10)
    assert krippendorff_alpha(X, 'interval', missing=NAN, n_resamples=10).low is not None    # interval needs no counts

def test_alpha_ratio_limit(monkeypatch):
    monkeypatch.setattr(A, '_RATIO_VALUES', 10)
    with pytest.raises(ValueError, match='krippendorff_alpha: ratio alpha compares every pair of distinct values'):
        krippendorff_alpha(random_ratings(np.random.default_rng(0), 3, 40, 'continuous'), 'ratio', missing=NAN)

def test_alpha_result_is_plain():
    r = krippendorff_alpha([[1, 2, 3, None], [1, 2, 2, 4]], 'ordinal', n_resamples=100)
    d = json.loads(json.dumps(r.to_dict(), allow_nan=False))
    assert d['alpha'] == r.alpha and d['level'] == 'ordinal' and d['signature'].startswith('krippendorff_alpha|level:ordinal|')
    assert float(r) == r.alpha and '0x' not in repr(r) and repr(r).startswith('alpha = ')
    assert isinstance(r, AlphaResult)

ALPHA_ERRORS = [
    (dict(ratings=[[1, 2, 3]]), ValueError, "ratings has 1 rater (row)"),
    (dict(ratings=[[1, None], [None, 2]]), ValueError, "no item has 2 or more ratings"),
    (dict(ratings=[[None, None], [None, None]]), ValueError, "every rating is missing"),
    (dict(ratings=[[2, 2], [2, 2]]), ValueError, "every pairable rating is the same value (2)"),
    (dict(ratings=[['a', 'a'], ['a', None]]), ValueError, "every pairable rating is the same value ('a')"),
    (dict(ratings=[[1, 2], [1]]), ValueError, "ratings[1] has 1 ratings but ratings[0] has 2"),
    (dict(ratings=[[1, 2], 3]), TypeError, "ratings[1] must be a row of ratings"),
    (dict(ratings=[[1, NAN], [1, 2]]), ValueError, "ratings[0][1] is NaN; mark a missing rating with None, or pass missing=float('nan')"),
    (dict(ratings=np.array([[1, np.nan], [1, 2]])), ValueError, "ratings[0][1] is NaN"),
    (dict(ratings=[[1, math.inf], [1, 2]]), ValueError, "ratings[0][1] is inf; ratings must be finite"),
    (dict(ratings=[['a', 'b'], ['a', 'a']], level='interval'), TypeError, "ratings[0][0] is a str; interval alpha needs numbers"),
    (dict(ratings=np.array([['a', 'b'], ['a', 'a']]), level='ordinal'), TypeError, "ratings holds strings (dtype <U1); ordinal alpha needs numbers"),
    (dict(ratings=[[1, 'a'], [1, 2]]), TypeError, "the ratings mix numbers and strings"),
    (dict(ratings=[[1, -2], [1, 2]], level='ratio'), ValueError, "ratings[0][1] is -2; ratio ratings must be >= 0"),
    (dict(ratings=[[1, 2], [1, 2]], level='nominl'), ValueError, "level must be one of 'nominal', 'ordinal', 'interval', 'ratio'"),
    (dict(ratings=[[1, 2], [1, 2]], level=None), ValueError, "level must be one of"),
    (dict(ratings=[]), ValueError, "ratings is empty"),
    (dict(ratings=[[], []]), ValueError, "ratings has no items"),
    (dict(ratings=np.zeros((0, 3))), ValueError, "ratings is empty"),
    (dict(ratings=np.ones(3)), ValueError, "ratings must be 2-D, raters x items"),
    (dict(ratings=None), TypeError, "ratings must be a raters x items matrix"),
    (dict(ratings='abc'), TypeError, "ratings must be a raters x items matrix"),
    (dict(ratings=[[[1]], [[2]]]), TypeError, "ratings[0][0] is [1] (list); a rating must be a number or a str"),
    (dict(ratings=[[1 + 2j, 1], [1, 2]]), TypeError, "ratings[0][0] is (1+2j) (complex)"),
    (dict(ratings=np.array([[1 + 2j, 1], [1, 2]])), TypeError, "ratings must hold numbers (or str categories), got dtype complex128"),
    (dict(ratings=[[10**400, 1], [1, 2]]), ValueError, "ratings[0][0] is too large for a float64"),
    (dict(ratings=[[1, 2], [1, 2]], missing=[0]), TypeError, "missing must be None, float('nan'), a finite number or a str"),
    (dict(ratings=[[1, 2], [1, 2]], missing=math.inf), TypeError, "missing must be None"),
    (dict(ratings=[[1, 2], [1, 2]], n_resamples=-1), ValueError, "n_resamples must be an int >= 0"),
    (dict(ratings=[[1, 2], [1, 2]], n_resamples=2.5), ValueError, "n_resamples must be an int"),
    (dict(ratings=[[1, 2], [1, 2]], confidence=1.0), ValueError, "confidence must be a finite number in (0, 1)"),
    (dict(ratings=[[1, 2], [1, 2]], confidence='high'), TypeError, "confidence must be a number"),
    (dict(ratings=[[1, 2], [1, 2]], seed=-1), ValueError, "seed must be an int >= 0"),
    (dict(ratings=[[1, 2], [1, 2]], seed=1.5), ValueError, "seed must be an int"),
]

@pytest.mark.parametrize('kwargs,exc,msg', ALPHA_ERRORS, ids=[m[:40] for *_, m in ALPHA_ERRORS])
def test_alpha_errors(kwargs, exc, msg):
    with pytest.raises(exc) as e: krippendorff_alpha(**kwargs)
    assert str(e.value).startswith('krippendorff_alpha: ') and msg in str(e.value), str(e.value)

# ---- ICC ---------------------------------------------------------------------------------------------------------
def long_table(X):
    import pandas as pd
    r, i = np.nonzero(~np.isnan(X))
    return pd.DataFrame({'item': i, 'rater': r, 'rating': X[r, i]})

def assert_same_as_pingouin(ours, theirs, ci_eps=ICC_EPS):
    assert len(theirs) == 6
    for f, (_, row) in zip(ours.forms, theirs.iterrows()):
        assert (f.label, f.df1, f.df2) == (row.Type, row.df1, row.df2)
        for a, b in ((f.icc, row.ICC), (f.F, row.F), (f.pval, row.pval)): assert abs(a - b) < ICC_EPS, (f, row)
        assert abs(f.low - row.CI95[0]) < ci_eps and abs(f.high - row.CI95[1]) < ci_eps, (f, row)

@pytest.fixture()
def pingouin_unrounded():
    pg = pytest.importorskip('pingouin')
    old = pg.options.get('round.column.CI95')
    pg.options['round.column.CI95'] = None
    yield pg
    pg.options['round.column.CI95'] = old

def test_icc_random_matches_pingouin(pingouin_unrounded):
    pg = pingouin_unrounded
    for seed in range(12):
        g = np.random.default_rng(seed); k, n = int(g.integers(2, 8)), int(g.integers(3, 50))
        X = g.normal(size=(k, n)) + g.normal(size=n) * g.uniform(0, 2) + g.normal(size=(k, 1)) * g.uniform(0, 1)
        assert_same_as_pingouin(icc(X), pg.intraclass_corr(long_table(X), 'item', 'rater', 'rating'))
        X[g.random(X.shape) < 0.1] = np.nan
        if (~np.isnan(X)).all(0).sum() >= 2 and (~np.isnan(X)).any(1).all():
            assert_same_as_pingouin(icc(X, missing=NAN, incomplete='omit'),
                                    pg.intraclass_corr(long_table(X), 'item', 'rater', 'rating', nan_policy='omit'))

def test_icc_confidence_level(pingouin_unrounded):
    "confidence=0.9: pingouin has no option for it, so the check is that the interval narrows and holds the value."
    X = np.random.default_rng(1).normal(size=(4, 30)) + np.random.default_rng(2).normal(size=30)
    wide, narrow = icc(X), icc(X, confidence=0.9)
    for w, n in zip(wide.forms, narrow.forms): assert w.low < n.low <= n.icc <= n.high < w.high

def test_icc_expunations_matches_pingouin(expun, pingouin_unrounded):
    pg, long = pingouin_unrounded, expun['long']
    assert_same_as_pingouin(icc(expun['fun_slots']), pg.intraclass_corr(long, 'id', 'slot', 'funniness'))
    jokes = np.where(expun['fun_slots'] == 0, np.nan, expun['fun_slots'])
    ours = icc(jokes, missing=NAN, incomplete='omit')
    assert (ours.n_items, ours.n_omitted) == (576, 1323)
    assert_same_as_pingouin(ours, pg.intraclass_corr(long[long.funniness > 0], 'id', 'slot', 'funniness', nan_policy='omit'))
    off = expun['offensive']                                          # missing where the rater did not understand the pun
    assert_same_as_pingouin(icc(off, missing=NAN, incomplete='omit'),
                            pg.intraclass_corr(long, 'id', 'slot', 'offensive', nan_policy='omit'))

def test_icc_pingouin_default_rounding(expun):
    pg = pytest.importorskip('pingouin')
    assert pg.options['round.column.CI95'] == 2
    assert_same_as_pingouin(icc(expun['fun_slots']), pg.intraclass_corr(expun['long'], 'id', 'slot', 'funniness'), ci_eps=0.005 + 1e-12)

def test_icc_shrout_fleiss():
    "Shrout & Fleiss (1979), Table 2: their six values to two decimals, and the mean squares as exact fractions."
    SF = [[9, 6, 8, 7, 10, 6], [2, 1, 4, 1, 5, 2], [5, 3, 6, 2, 6, 4], [8, 2, 8, 6, 9, 7]]
    r = icc(SF)
    assert [round(f.icc, 2) for f in r.forms] == [0.17, 0.29, 0.71, 0.44, 0.62, 0.91]
    assert abs(r.msb - 1349 / 120) < EPS and abs(r.msj - 2339 / 72) < EPS and abs(r.mse - 367 / 360) < EPS and abs(r.msw - 2706 / 432) < EPS
    d = json.loads(json.dumps(r.to_dict(), allow_nan=False))
    assert [f['form'] for f in d['forms']] == ['ICC1', 'ICC2', 'ICC3', 'ICC1k', 'ICC2k', 'ICC3k'] and isinstance(r, ICCResult)
    assert r['ICC(C,k)'] is r['ICC3k'] and '0x' not in repr(r)
    with pytest.raises(KeyError, match='ICCResult: no form'): r['ICC4']
    frame = r.to_frame()
    assert frame.Type.tolist() == [f.label for f in r.forms] and frame.loc['ICC2', 'ICC'] == r['ICC2'].icc

ICC_ERRORS = [
    (dict(ratings=[[1, 2, None], [1, 2, 3]]), ValueError, "item 2 (column 2 of ratings) has 1 missing rating(s), and 1 of 3 items are incomplete"),
    (dict(ratings=[[1, 2], [2, 3]], incomplete='drop'), ValueError, "incomplete must be 'raise' or 'omit', got 'drop'"),
    (dict(ratings=[[1, 2, 3]]), ValueError, "ratings has 1 rater (row)"),
    (dict(ratings=[[1], [2]]), ValueError, "the ICC needs at least 2 complete items, got 1 of 1"),
    (dict(ratings=[[1, None], [2, 3]], incomplete='omit'), ValueError, "the ICC needs at least 2 complete items, got 1 of 2"),
    (dict(ratings=[[2, 2], [2, 2]]), ValueError, "every rating is the same value (2)"),
    (dict(ratings=[[1, 2, 3], [1, 2, 3]]), ValueError, "no residual variation (MSE = 0"),
    (dict(ratings=[[1, 2, 3], [2, 3, 4]]), ValueError, "no residual variation (MSE = 0"),
    (dict(ratings=[[1, 2], [2, 1]]), ValueError, "every item has the same mean rating (MSB = 0)"),
    (dict(ratings=[['a', 'b'], ['b', 'a']]), TypeError, "ratings[0][0] is a str; the ICC needs numbers"),
    (dict(ratings=[[1, 2], [1, NAN]]), ValueError, "ratings[1][1] is NaN; mark a missing rating with None"),
    (dict(ratings=[[1, 2], [2, 4]], confidence=0), ValueError, "confidence must be a finite number in (0, 1)"),
    # ICC2k at or past its pole (issue 31): MSB + (MSJ - MSE)/n = 7/6 + (0 - 7/2)/3 = 0, and
    # 3/2 + (1/6 - 49/6)/3 = -7/6 < 0 (pingouin: 1.05e16, our old code -1.05e16, and 5.71)
    (dict(ratings=[[3, 3, 2], [2, 1, 5]]), ValueError,
     "ICC2k is undefined for these ratings: its denominator MSB + (MSJ - MSE)/n is zero"),
    (dict(ratings=[[5, 1, 5], [4, 5, 1]]), ValueError, "the formula gives 5.71429 (pingouin"),
    (dict(ratings=5), TypeError, "ratings must be a raters x items matrix"),
]

@pytest.mark.parametrize('kwargs,exc,msg', ICC_ERRORS, ids=[m[:40] for *_, m in ICC_ERRORS])
def test_icc_errors(kwargs, exc, msg):
    with pytest.raises(exc) as e: icc(**kwargs)
    assert str(e.value).startswith('icc: ') and msg in str(e.value), str(e.value)

def test_icc2k_interval_at_the_pole(pingouin_unrounded):
    "ICC2's lower end left of -1/(k-1) made ICC2k's interval [16.75, 0.98]; now [-inf, g(u)]."
    R = [[3, 4, 4, 4], [1, 5, 3, 5]]
    r = icc(R)
    # by hand: MSB = 67/24, MSJ = 1/8, MSE = 9/8, n = 4: (67/24 - 27/24) / (67/24 - 6/24) = 40/61
    assert abs(r['ICC2k'].icc - 40 / 61) < EPS
    l2, u2 = r['ICC2'].CI95
    assert l2 < -1 and r['ICC2k'].low == -math.inf
    assert abs(r['ICC2k'].high - 2 * u2 / (1 + u2)) < EPS                # g(u), k = 2
    pg = pingouin_unrounded.intraclass_corr(
        long_table(np.array(R, float)), 'item', 'rater', 'rating')
    lo, hi = pg.set_index('Type').loc['ICC(A,k)', 'CI95']
    assert lo > 16 and abs(r['ICC2k'].high - hi) < ICC_EPS     # pingouin: [16.75, 0.98]
    for f, (_, row) in zip(r.forms, pg.iterrows()):
        if f.form == 'ICC2k': continue
        assert abs(f.low - row.CI95[0]) < ICC_EPS and abs(f.high - row.CI95[1]) < ICC_EPS
    assert json.loads(json.dumps(r.to_dict()))['forms'][4]['low'] == -math.inf

def test_icc_never_inverted_on_small_matrices():
    "Every interval low <= high, every ICC in its range, on small random matrices (or an error)."
    g, inverted, defined = np.random.default_rng(31), 0, 0
    for _ in range(400):
        k, n = int(g.integers(2, 5)), int(g.integers(2, 7))
        try: r = icc(g.integers(1, 6, (k, n)))
        except ValueError as e:
            assert str(e).startswith('icc: '); continue
        defined += 1
        inverted += not all(f.low <= f.high <= 1 for f in r.forms)
        assert all(f.icc <= 1 for f in r.forms)
        assert min(r['ICC1'].icc, r['ICC3'].icc) >= -1 / (k - 1) - EPS
        if n * k - n - k > 0: assert r['ICC2'].icc >= -n / (n * k - n - k) - EPS   # n = k = 2: none
    assert inverted == 0 and defined > 200

SF = np.array([[9, 6, 8, 7, 10, 6], [2, 1, 4, 1, 5, 2],
               [5, 3, 6, 2, 6, 4], [8, 2, 8, 6, 9, 7]], float)        # Shrout & Fleiss, Table 2

@pytest.mark.parametrize('scale', [1e-300, 1e-170, 1e160, 1e300])
def test_icc_and_alpha_any_scale(scale):
    "Issue 31 (squares of raw ratings): the ICCs, interval and ratio alpha are scale-free."
    for a, b in zip(icc(SF * scale).forms, icc(SF).forms):
        assert abs(a.icc - b.icc) < EPS and abs(a.low - b.low) < EPS and abs(a.high - b.high) < EPS
        assert abs(a.F - b.F) < 1e-9
    kr = pytest.importorskip('krippendorff')
    for lv in ('interval', 'ratio'):
        ref = kr.alpha(SF, level_of_measurement=lv)
        assert abs(krippendorff_alpha(SF * scale, lv).alpha - ref) < EPS

def test_alpha_ratio_near_the_largest_float():
    "c + k overflowed to inf near 1.8e308 and made those ratio distances 0 (0.6684, not 0.6520)."
    kr = pytest.importorskip('krippendorff')
    R = np.array([[1e308, 1e308, 1e308, 5.0], [1e308, 1.7e308, 1.0, 3.0], [1e308, 1e308, 2.0, 4.0]])
    ref = kr.alpha(R / 1e300, level_of_measurement='ratio')           # theirs overflows at R itself
    assert abs(krippendorff_alpha(R, 'ratio').alpha - ref) < EPS
    big = krippendorff_alpha([[1e300, -1e300, 0], [-1e300, 1e300, 1e300]], 'interval')
    assert big.alpha == krippendorff_alpha([[1, -1, 0], [-1, 1, 1]], 'interval').alpha
    assert big.observed == math.inf                     # D_o in squared units: beyond float64

# ---- Cohen's kappa -----------------------------------------------------------------------------------------------
def test_cohen_matches_sklearn():
    from sklearn.metrics import cohen_kappa_score
    n = 0
    for seed in range(80):
        g = np.random.default_rng(seed); L, m = int(g.integers(2, 7)), int(g.integers(2, 80))
        a = g.integers(0, L, m); b = np.where(g.random(m) < 0.6, a, g.integers(0, L, m))
        if seed % 3 == 0: a, b = [f'c{v}' for v in a], [f'c{v}' for v in b]
        elif seed % 3 == 1: a, b = a * 10 + 5, b * 10 + 5                            # values that are not positions
        labels = None
        if seed % 2:
            labels = sorted(set(np.concatenate([np.asarray(a), np.asarray(b)]).tolist()))
            labels = labels + ['zz'] if isinstance(labels[0], str) else [-1] + labels      # an unused category moves the positions
            g.shuffle(labels)
        for w in (None, 'linear', 'quadratic'):
            with warnings.catch_warnings():
                warnings.simplefilter('ignore'); theirs = cohen_kappa_score(a, b, weights=w, labels=labels)
            if np.isnan(theirs):
                with pytest.raises(ValueError, match='cohen_kappa: both raters put every item in one category'): cohen_kappa(a, b, w, labels)
                continue
            assert abs(cohen_kappa(a, b, w, labels) - theirs) < EPS; n += 1
    assert n > 200

def test_cohen_expunations(expun):
    from sklearn.metrics import cohen_kappa_score
    f, j = expun['funny'].to_numpy(), expun['joke_df'].to_numpy()
    rated = ~np.isnan(f)
    for p, q in ((0, 1), (6, 7), (2, 9)):         # 950, 949 and 63 shared puns
        both = rated[:, p] & rated[:, q]
        assert both.sum() > 50
        assert abs(cohen_kappa(j[both, p], j[both, q]) - cohen_kappa_score(j[both, p], j[both, q])) < EPS
        for w in ('linear', 'quadratic'):
            assert abs(cohen_kappa(f[both, p], f[both, q], w) - cohen_kappa_score(f[both, p], f[both, q], weights=w)) < EPS

COHEN_ERRORS = [
    (dict(a=[1, 2, 3], b=[1, 2]), ValueError, "a has 3 ratings but b has 2"),
    (dict(a=[], b=[]), ValueError, "a and b are empty"),
    (dict(a=[1, None], b=[1, 2]), ValueError, "a[1] is missing (None)"),
    (dict(a=[1, 2], b=np.array([1, np.nan])), ValueError, "b[1] is missing (nan)"),
    (dict(a=[1, 1], b=[1, 1]), ValueError, "both raters put every item in one category (1)"),
    (dict(a=['x', 'x'], b=['x', 'x'], labels=['x', 'y']), ValueError, "both raters put every item in one category ('x')"),
    (dict(a=[1, 2], b=[1, 2], weights='square'), ValueError, "weights must be None, 'linear' or 'quadratic', got 'square'"),
    (dict(a=[1, 2], b=[1, 2], weights=[0.5, 1]), ValueError, "weights must be None"),
    (dict(a=[1, 2], b=[1, 3], labels=[1, 2]), ValueError, "the rating 3.0 is not one of labels [1, 2]"),
    (dict(a=[1, 2], b=[1, 2], labels=[1, 1, 2]), ValueError, "labels has a category twice"),
    (dict(a=[1, 2], b=[1, 2], labels=[]), TypeError, "labels must be a non-empty list"),
    (dict(a=[1, 2], b=[1, 2], labels='12'), TypeError, "labels must be a non-empty list"),
    (dict(a=['a', 'b'], b=['a', 'b'], labels=[1, 2]), TypeError, "labels must hold str, like the ratings"),
    (dict(a=[1, 2], b=[1, 2], labels=[1, NAN]), TypeError, "labels must hold numbers, like the ratings"),
    (dict(a='ab', b='ab'), TypeError, "a must be a sequence of ratings (one per item), got str"),
    (dict(a=[1, 2], b=5), TypeError, "b must be a sequence of ratings"),
    (dict(a=np.ones((2, 2)), b=[1, 2]), ValueError, "a must be 1-D (one rating per item)"),
    (dict(a=[1, 'a'], b=[1, 2]), TypeError, "the ratings mix numbers and strings"),
    (dict(a=[[1], 2], b=[1, 2]), TypeError, "a[0] is [1] (list)"),
]

@pytest.mark.parametrize('kwargs,exc,msg', COHEN_ERRORS, ids=[m[:40] for *_, m in COHEN_ERRORS])
def test_cohen_errors(kwargs, exc, msg):
    with pytest.raises(exc) as e: cohen_kappa(**kwargs)
    assert str(e.value).startswith('cohen_kappa: ') and msg in str(e.value), str(e.value)

# ---- Fleiss' kappa -----------------------------------------------------------------------------------------------
def test_fleiss_matches_statsmodels():
    ir = pytest.importorskip('statsmodels.stats.inter_rater')
    n = 0
    for seed in range(60):
        g = np.random.default_rng(seed)
        R = g.integers(0, int(g.integers(2, 6)), (int(g.integers(2, 9)), int(g.integers(1, 60))))
        if seed % 2: R = R * 3 - 1                                    # categories that are not 0, 1, 2
        table, cats = rating_table(R)
        theirs_table, theirs_cats = ir.aggregate_raters(R.T)
        assert (table == theirs_table).all() and (cats == theirs_cats).all()
        for method in ('fleiss', 'randolph'):
            with warnings.catch_warnings():
                warnings.simplefilter('ignore'); theirs = ir.fleiss_kappa(theirs_table, method)
            if np.isnan(theirs):
                with pytest.raises(ValueError, match="fleiss_kappa: .*kappa is 0/0"): fleiss_kappa(table, method)
                continue
            assert abs(fleiss_kappa(table, method) - theirs) < EPS; n += 1
    assert n > 100

def test_fleiss_expunations(expun):
    ir = pytest.importorskip('statsmodels.stats.inter_rater')
    J = expun['joke_slots']
    table, cats = rating_table(J)
    assert cats.tolist() == [0, 1] and (table == ir.aggregate_raters(J.T)[0]).all()
    for method in ('fleiss', 'randolph'): assert abs(fleiss_kappa(table, method) - ir.fleiss_kappa(table, method)) < EPS
    # with complete data, nominal alpha is Fleiss' kappa corrected for the n ratings: 1 - alpha = (1 - kappa)(1 - 1/n)
    assert abs((1 - krippendorff_alpha(J).alpha) - (1 - fleiss_kappa(table)) * (1 - 1 / J.size)) < EPS
    assert krippendorff_alpha(J).alpha == krippendorff_alpha(expun['joke'], missing=NAN).alpha      # rater identity does not matter

def test_fleiss_wikipedia():
    W = [[0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0], [2, 2, 8, 1, 1],
         [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2], [6, 5, 2, 1, 0], [0, 2, 2, 3, 7]]
    P, Pe = 688 / 1820, 4170 / 19600
    assert abs(fleiss_kappa(W) - (P - Pe) / (1 - Pe)) < EPS and abs(fleiss_kappa(W, 'randolph') - (P - 0.2) / 0.8) < EPS

def test_rating_table_categories():
    table, cats = rating_table([['no', 'yes', None], ['yes', 'yes', 'no']], categories=['yes', 'no', 'maybe'])
    assert table.tolist() == [[1, 1, 0], [2, 0, 0], [0, 1, 0]] and cats.tolist() == ['yes', 'no', 'maybe']
    table, cats = rating_table(np.array([[1.5, 2.0], [2.0, np.nan]]), missing=NAN)
    assert table.tolist() == [[1, 1], [0, 1]] and cats.tolist() == [1.5, 2.0]

FLEISS_ERRORS = [
    (dict(table=[[2, 1], [1, 1]]), ValueError, "row 1 of table has 2 ratings but row 0 has 3"),
    (dict(table=[[1, 0], [0, 1]]), ValueError, "every item has 1 rating(s)"),
    (dict(table=[[3, 0], [3, 0]]), ValueError, "every rating is in one category, so the chance agreement P_e is 1"),
    (dict(table=[[3], [3]], method='randolph'), ValueError, "table has one category"),
    (dict(table=[[1.5, 1.5]]), ValueError, "table[0][0] is 1.5; table holds counts of ratings: non-negative integers"),
    (dict(table=[[-1, 3]]), ValueError, "table[0][0] is -1.0"),
    (dict(table=[[np.nan, 3]]), ValueError, "table[0][0] is nan"),
    (dict(table=[]), ValueError, "table must be 2-D, items x categories"),
    (dict(table=[[1, 2], [3]]), ValueError, "table is not a rectangular array"),
    (dict(table=[[1, None]]), TypeError, "table must hold numbers"),
    (dict(table=[['a']]), TypeError, "table must hold numbers"),
    (dict(table=[[1e308, 1e308], [1e308, 1e308]]), ValueError, "too large"),
    (dict(table=[[2, 1]], method='uniform'), ValueError, "method must be 'fleiss' or 'randolph', got 'uniform'"),
]

@pytest.mark.parametrize('kwargs,exc,msg', FLEISS_ERRORS, ids=[m[:40] for *_, m in FLEISS_ERRORS])
def test_fleiss_errors(kwargs, exc, msg):
    with pytest.raises(exc) as e: fleiss_kappa(**kwargs)
    assert str(e.value).startswith('fleiss_kappa: ') and msg in str(e.value), str(e.value)

@pytest.mark.parametrize('kwargs,exc,msg', [
    (dict(ratings=[[1, 2]], categories=[1]), ValueError, "the rating 2.0 is not one of categories [1]"),
    (dict(ratings=[[None, None]]), ValueError, "every rating is missing"),
    (dict(ratings=[[1, 2]], categories=['a']), TypeError, "categories must hold numbers"),
    (dict(ratings=[[1, 2]], categories=5), TypeError, "categories must be a non-empty list"),
    (dict(ratings=[[1, 2], [3]]), ValueError, "ratings[1] has 1 ratings but ratings[0] has 2"),
])
def test_rating_table_errors(kwargs, exc, msg):
    with pytest.raises(exc) as e: rating_table(**kwargs)
    assert str(e.value).startswith('rating_table: ') and msg in str(e.value), str(e.value)

# ---- junk ----------------------------------------------------------------------------------------------------------
JUNK = [None, True, 0, -1, 2**70, math.nan, math.inf, '', 'x' * 1000, b'ab', [], [[]], [None], [[None]], [1, 2, 3], [[1, 'a'], [2]],
        {'a': 1}, (1, 'a'), np.array([[np.nan, 1.0], [np.inf, -1.0]]), np.zeros((0,)), object(), [[[[['x']]]]], [[1e308, -1e308]] * 2]

@pytest.mark.parametrize('f,arg', [(krippendorff_alpha, 'ratings'), (icc, 'ratings'), (rating_table, 'ratings'), (fleiss_kappa, 'table'),
                                   (lambda a: cohen_kappa(a, [1, 2]), 'a'), (lambda b: cohen_kappa([1, 2], b), 'b')])
def test_junk_gives_clear_errors(f, arg):
    "Every junk value: a result, or a TypeError/ValueError that names the function; never another exception."
    for junk in JUNK:
        try: f(junk)
        except (TypeError, ValueError) as e:
            assert str(e).split(':')[0] in ('krippendorff_alpha', 'icc', 'rating_table', 'fleiss_kappa', 'cohen_kappa'), (junk, e)
