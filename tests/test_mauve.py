"""MAUVE (issue 19, item 2): cah_metrics.mauve against its definition and against mauve-text 0.4.0.

- hand-checked frontiers, areas and frontier integrals on two buckets;
- properties: symmetric in P and Q (the mixture grid is symmetric), blind to the order of the buckets, in [0, 1], 1 for P = Q;
- parity with mauve-text (a dev dependency, with faiss-cpu): the frontier, area and frontier integrals on given histograms
  exactly (except the area of identical histograms: mauve-text's unstable sort of the tied points usually gives 0.75,
  ours the curve's area, 1); the whole pipeline exactly when mauve-text's faiss k-means is replaced by our scikit-learn
  k-means (identical cluster assignments); with faiss itself, to 1e-12 where the clusters are unambiguous, and
  statistically (means over ten seeds within three standard errors of their difference) on card text features;
- the registered metric: texts as state, unpaired sets of any sizes, shards merged in order equal one pass, JSON state,
  merge refusal naming the option, errors naming the function and the argument.

TF-IDF features keep this file fast and model-free; the notebook's `#| torch` cells check the bundled MiniLM.
"""
import importlib, json, math, types

import numpy as np
import pytest

from cah_metrics.core import load, metric_class
from cah_metrics.corpora import bundled_pack
from cah_metrics.embeddings import get_encoder
from cah_metrics.mauve import MAUVE, MAUVEScore, mauve, mauve_from_counts, mauve_from_features, _area, _curve, _frontier_integral, _lambdas


@pytest.fixture(scope='module', autouse=True)
def _one_blas_thread():
    "One BLAS thread: the matrices are small, and on a shared 2-core CI box OpenBLAS threads that spin-wait made PCA 100x slower."
    from threadpoolctl import threadpool_limits
    with threadpool_limits(limits=1, user_api='blas'): yield


@pytest.fixture(scope='module')
def cards():
    main = [a['text'] for a in bundled_pack('cah_main_game').answers]
    coffee = [a['text'] for a in bundled_pack('cards_against_coffee').answers]
    return main, coffee


@pytest.fixture(scope='module')
def tfidf(cards):
    "TF-IDF features of 150 main-game answers (P) and the 100 Cards Against Coffee answers (Q), one vocabulary."
    main, coffee = cards
    E = get_encoder(backend='tfidf').encode(main[:150] + coffee)
    return E[:150], E[150:]


def groups(seed=0):
    "Five well-separated groups in 32 dimensions: P even (2 each), Q mostly the first group."
    g = np.random.default_rng(seed)
    c = g.normal(size=(5, 32)) * 10
    return np.repeat(c, 2, axis=0) + g.normal(size=(10, 32)) * 0.01, c[[0] * 8 + [1, 2]] + g.normal(size=(10, 32)) * 0.01


# ---- by hand -------------------------------------------------------------------------------------------------------
def test_two_buckets_by_hand():
    P, Q = np.array([1.0, 0.0]), np.array([0.5, 0.5])
    # lambda = 1/2: R = (3/4, 1/4); KL(Q|R) = log(4/3) / 2, KL(P|R) = log(4/3); c = 1: the point (sqrt(3)/2, 3/4)
    curve = _curve(P, Q, [0.5], 1.0)
    assert np.allclose(curve, [[1, 0], [math.sqrt(3) / 2, 0.75], [0, 1]], rtol=0, atol=1e-15)
    # trapezoids by x: (sqrt3/2)(1 + 3/4)/2 + (1 - sqrt3/2)(3/4)/2 = 3/8 + sqrt3/4, and the same by y
    assert _area(curve) == pytest.approx(3 / 8 + math.sqrt(3) / 4, abs=1e-15)
    # frontier integral: bucket 1 adds 3/8 - log(2)/2, bucket 2 adds 1/8; times 2: 1 - log 2
    assert _frontier_integral(P, Q) == pytest.approx(1 - math.log(2), abs=1e-15)
    assert _frontier_integral(P, np.array([0.0, 1.0])) == 1.0 and _frontier_integral(Q, Q) == 0.0


def test_disjoint_histograms_approach_the_integral():
    "P = (1, 0), Q = (0, 1): the points ((1 - lam)^5, lam^5), area -> 5 B(5, 6) = 1/252; 25 points overestimate slightly."
    r = mauve_from_counts([4, 0], [0, 7])
    assert r['frontier_integral'] == 1.0
    assert 1 / 252 < r['mauve'] < 1 / 252 * 1.05
    assert mauve_from_counts([4, 0], [0, 7], divergence_curve_discretization_size=2000)['mauve'] == pytest.approx(1 / 252, rel=1e-3)


# ---- properties ----------------------------------------------------------------------------------------------------
def test_properties_of_the_score():
    rng = np.random.default_rng(0)
    for _ in range(200):
        k = int(rng.integers(1, 10))
        p, q = rng.integers(0, 6, k), rng.integers(0, 6, k)
        if not p.sum() or not q.sum(): continue
        a, b = mauve_from_counts(p, q), mauve_from_counts(q, p)
        assert 0 <= a['mauve'] <= 1 + 1e-12 and 0 <= a['frontier_integral'] <= 1 + 1e-12 and 0 <= a['mauve_star'] <= 1 + 1e-12
        assert a['mauve'] == pytest.approx(b['mauve'], abs=1e-12) and a['frontier_integral'] == pytest.approx(b['frontier_integral'], abs=1e-12)
        perm = rng.permutation(k)
        assert mauve_from_counts(p[perm], q[perm])['mauve'] == pytest.approx(a['mauve'], abs=1e-12)
        assert mauve_from_counts(p, 3 * p)['mauve'] == pytest.approx(1.0, abs=1e-12)      # the same proportions


def test_result_record():
    r = mauve_from_counts([2, 0], [1, 1])
    assert isinstance(r, MAUVEScore) and r['num_buckets'] == 2 and r.pca_dim is None and r.divergence_curve.shape == (27, 2)
    assert r.p_hist.tolist() == [1.0, 0.0] and r.q_hist.tolist() == [0.5, 0.5]
    d = json.loads(json.dumps(r.to_dict()))
    assert d == {**dict(r), 'signature': 'mauve|emb:counts|curve:25|c:5|version:0.1.0'} and list(r) == list(MAUVE.keys)
    assert repr(r) == f"mauve = {r['mauve']:.4f} | mauve|emb:counts|curve:25|c:5|version:0.1.0"


def test_features_recover_groups():
    P, Q = groups()
    r = mauve_from_features(P, Q, num_buckets=5)
    assert sorted(r.p_hist.tolist()) == [0.2] * 5 and sorted(r.q_hist.tolist()) == [0, 0, 0.1, 0.1, 0.8] and r.pca_dim == 4
    assert r['mauve'] == mauve_from_counts([2] * 5, [8, 1, 1, 0, 0])['mauve']
    assert mauve_from_features(P, P + 1e-3, num_buckets=5)['mauve'] == pytest.approx(1.0, abs=1e-12)
    assert mauve_from_features(P, Q)['num_buckets'] == 2                         # 'auto': max(2, round(10 / 10))


# ---- mauve-text ----------------------------------------------------------------------------------------------------
@pytest.fixture(scope='module')
def mt():
    pytest.importorskip('faiss')
    pytest.importorskip('mauve')
    return importlib.import_module('mauve.compute_mauve')


def _their_area(curve):
    from sklearn.metrics import auc
    x, y = curve.T; i, j = np.argsort(x), np.argsort(y)
    return 0.5 * (auc(x[i], y[i]) + auc(y[j], x[j]))


def test_parity_on_histograms(mt):
    rng = np.random.default_rng(11)
    ties = 0
    for _ in range(400):
        k, m, c = int(rng.integers(1, 14)), int(rng.integers(1, 50)), float(rng.choice([0.2, 1, 5, 12]))
        p, q = rng.integers(0, 5, k) * (rng.random(k) < 0.7), rng.integers(0, 5, k)
        if not p.sum() or not q.sum(): continue
        ours = mauve_from_counts(p, q, m, c)
        assert np.array_equal(ours.divergence_curve, mt.get_divergence_curve_for_multinomials(p / p.sum(), q / q.sum(), _lambdas(m), c))
        for A, B, mv, fi in ((p / p.sum(), q / q.sum(), ours['mauve'], ours['frontier_integral']),
                             ((p + .5) / (p + .5).sum(), (q + .5) / (q + .5).sum(), ours['mauve_star'], ours['frontier_integral_star'])):
            assert fi == mt.get_fronter_integral(A, B)
            theirs = _their_area(mt.get_divergence_curve_for_multinomials(A, B, _lambdas(m), c))
            if np.array_equal(A, B): ties += 1; assert mv == pytest.approx(1.0, abs=1e-12)   # documented: theirs is 0.5, 0.75 or 1
            else: assert mv == theirs
    assert ties > 0


def test_identical_histograms_documented_difference(mt):
    h = np.array([0.75, 0.25, 0.0])
    assert _their_area(mt.get_divergence_curve_for_multinomials(h, h, _lambdas(25), 5)) == pytest.approx(0.75, abs=1e-12)
    assert mauve_from_counts([3, 1, 0], [30, 10, 0])['mauve'] == pytest.approx(1.0, abs=1e-12)


class _SklearnKmeans:
    "faiss.Kmeans's interface over the k-means `_quantize` runs: mauve-text with our cluster assignments."
    def __init__(self, d, k, niter, verbose, nredo, update_index, seed):
        from sklearn.cluster import KMeans
        self.km = KMeans(k, init='random', n_init=nredo, max_iter=niter, tol=0.0, random_state=seed, algorithm='lloyd')
    def train(self, x):
        km = self.km.fit(x)
        self.index = types.SimpleNamespace(search=lambda z, n: (None, km.predict(z)[:, None]))


@pytest.mark.parametrize('kw', [{}, dict(num_buckets=7, kmeans_explained_var=0.5, kmeans_num_redo=2, seed=3),
                                dict(divergence_curve_discretization_size=10, mauve_scaling_factor=2, kmeans_max_iter=3)])
def test_parity_pipeline_with_same_clusters(mt, tfidf, monkeypatch, kw):
    import mauve as mauve_text
    monkeypatch.setattr(mt, 'faiss', types.SimpleNamespace(Kmeans=_SklearnKmeans))
    G = np.random.default_rng(4).normal(size=(130, 16)).astype(np.float32)
    for P, Q in (tfidf, (G[:60], G[60:] + 0.3), groups()):
        ours, theirs = mauve_from_features(P, Q, **kw), mauve_text.compute_mauve(p_features=P, q_features=Q, **kw)
        assert (ours['mauve'], ours['frontier_integral'], ours['mauve_star'], ours['frontier_integral_star'], ours['num_buckets']) == \
               (theirs.mauve, theirs.frontier_integral, theirs.mauve_star, theirs.frontier_integral_star, theirs.num_buckets)
        assert np.array_equal(ours.p_hist, theirs.p_hist) and np.array_equal(ours.q_hist, theirs.q_hist)
        assert np.array_equal(ours.divergence_curve, theirs.divergence_curve)


def test_parity_with_faiss_on_unambiguous_clusters(mt):
    import mauve as mauve_text
    P, Q = groups(1)
    ours, theirs = mauve_from_features(P, Q, num_buckets=5), mauve_text.compute_mauve(p_features=P, q_features=Q, num_buckets=5)
    assert ours['mauve'] == pytest.approx(theirs.mauve, abs=1e-12) and ours['mauve_star'] == pytest.approx(theirs.mauve_star, abs=1e-12)
    assert ours['frontier_integral'] == pytest.approx(theirs.frontier_integral, abs=1e-12)
    assert sorted(ours.q_hist) == sorted(theirs.q_hist)


def test_parity_with_faiss_statistically(mt, tfidf):
    "Different k-means draws reach different optima: over ten seeds the means agree within 3 standard errors."
    import mauve as mauve_text
    P, Q = tfidf
    ours = np.array([mauve_from_features(P, Q, seed=s)['mauve'] for s in range(10)])
    theirs = np.array([mauve_text.compute_mauve(p_features=P, q_features=Q, seed=s).mauve for s in range(10)])
    se = math.sqrt(ours.var(ddof=1) / 10 + theirs.var(ddof=1) / 10)
    assert abs(ours.mean() - theirs.mean()) < 3 * se + 1e-3, (ours.mean(), theirs.mean(), se)


# ---- the text form and the metric ------------------------------------------------------------------------------------
def test_text_form_is_the_features_form(cards):
    main, coffee = cards
    a = main[:100]
    E = get_encoder(backend='tfidf').encode(a + coffee)
    r = mauve(coffee, a, backend='tfidf')
    f = mauve_from_features(E[:100], E[100:])
    assert dict(r) == dict(f) and all(np.array_equal(getattr(r, k), getattr(f, k)) for k in ('p_hist', 'q_hist', 'divergence_curve'))
    assert r == load('mauve', backend='tfidf').compute(coffee, a) and r.n == f.n == len(coffee)
    assert mauve(coffee[:30], a, backend='tfidf')['num_buckets'] == 3                      # unequal sizes: min(100, 30) / 10


def test_metric_unpaired_shards_state(cards):
    main, coffee = cards
    cls, defaults = metric_class('mauve')
    assert cls is MAUVE and defaults == {}
    one = MAUVE(backend='tfidf').update(coffee[:30], main[:70]).update(coffee[30:], main[70:120]).compute()
    want = mauve(coffee, main[:120], backend='tfidf')
    assert one == want and one.n == 100 and one.value == want['mauve']
    shards = [MAUVE(backend='tfidf').update(coffee[a:b], main[c:d]) for a, b, c, d in ((0, 1, 0, 60), (1, 99, 60, 61), (99, 100, 61, 120))]
    assert (shards[0] + shards[1] + shards[2]).compute() == one
    back = MAUVE(backend='tfidf').load_state_dict(json.loads(json.dumps(shards[1].state_dict())))
    assert back.state == shards[1].state
    assert load('mauve', backend='tfidf').compute(predictions=coffee, references=main[:120]) == one
    sig = MAUVE(backend='tfidf', num_buckets=8, seed=1).signature()
    assert list(sig.options) == list(MAUVE.signature_keys) and sig.options['emb'] == 'tfidf' and sig.options['buckets'] == '8'
    with pytest.raises(ValueError, match="'seed' differs"): MAUVE().merge(MAUVE(seed=1))
    with pytest.raises(ValueError, match="'c' differs"): MAUVE().merge(MAUVE(mauve_scaling_factor=2))


# ---- errors --------------------------------------------------------------------------------------------------------
P5, Q5 = groups()

@pytest.mark.parametrize('call, exc, msg', [
    (lambda: mauve_from_features(P5[:1], Q5), ValueError, "mauve_from_features: p_features must be a 2-D array (texts x dimensions) with at least 2 texts"),
    (lambda: mauve_from_features(P5, Q5[:, :3]), ValueError, "mauve_from_features: p_features has 32 dimensions but q_features has 3"),
    (lambda: mauve_from_features(P5, np.full((3, 32), np.inf)), ValueError, "mauve_from_features: q_features must be finite"),
    (lambda: mauve_from_features(P5, [['a']]), TypeError, "mauve_from_features: q_features must hold numbers"),
    (lambda: mauve_from_features(P5, Q5, num_buckets=0), ValueError, "mauve_from_features: num_buckets must be an int >= 2 and <= 20"),
    (lambda: mauve_from_features(P5, Q5, num_buckets='many'), ValueError, "num_buckets must be 'auto' or an int"),
    (lambda: mauve_from_features(P5, Q5, kmeans_explained_var=1.5), ValueError, "kmeans_explained_var must be a finite number in (0, 1)"),
    (lambda: mauve_from_features(P5, Q5, kmeans_num_redo=10**9), ValueError, "kmeans_num_redo must be an int >= 1 and <= 1000"),
    (lambda: mauve_from_features(P5, Q5, seed=None), ValueError, "mauve_from_features: seed must be an int"),
    (lambda: mauve_from_features(P5, Q5, mauve_scaling_factor='5'), TypeError, "mauve_scaling_factor must be a number"),
    (lambda: mauve_from_counts([1, 2], [1]), ValueError, "mauve_from_counts: p_counts has 2 buckets but q_counts has 1"),
    (lambda: mauve_from_counts([0.5, 2], [1, 1]), ValueError, "mauve_from_counts: p_counts must hold non-negative whole numbers"),
    (lambda: mauve(['a'], ['b', 'c'], backend='tfidf'), ValueError, "mauve: predictions must hold at least 2 texts, got 1"),
    (lambda: mauve(['a', 'b'], [['b'], ['c']], backend='tfidf'), TypeError, "mauve: references[0] must be a str, got list"),
    (lambda: mauve(['a', 'b'], ['b', 'c'], backend='auto'), ValueError, "mauve: backend must be 'sentence-transformers' or 'tfidf'"),
    (lambda: MAUVE(num_buckets=True), ValueError, "mauve: num_buckets must be an int >= 2"),
    (lambda: MAUVE().update(['a', 'b']), TypeError, "mauve: references (the human texts) are required"),
    (lambda: MAUVE().update(['a', None, 'c'], ['b']), TypeError, "mauve: predictions[1] must be a str"),
    (lambda: MAUVE(backend='tfidf').update(['a', 'b'], ['c']).compute(), ValueError, "mauve: references must hold at least 2 texts, got 1"),
])
def test_errors_name_function_and_argument(call, exc, msg):
    with pytest.raises(exc) as e: call()
    assert msg in str(e.value), str(e.value)


def test_degenerate_inputs_give_numbers():
    assert mauve(['', '...'], ['', ' ', ''], backend='tfidf')['mauve'] == pytest.approx(1.0, abs=1e-12)      # all vectors zero
    r = mauve_from_features(np.ones((3, 4)), np.ones((2, 4)) * 7)                                         # one direction only
    assert r['mauve'] == pytest.approx(1.0, abs=1e-12) and r.pca_dim == 1
    big = mauve_from_features(P5 * 1e300, Q5 * 1e300, num_buckets=5)                                      # squares would overflow
    assert big['mauve'] == pytest.approx(mauve_from_features(P5, Q5, num_buckets=5)['mauve'], abs=1e-12)
    assert math.isfinite(mauve_from_counts([1, 0], [0, 1], mauve_scaling_factor=1e300)['mauve'])
