"""cah_metrics.crossval (issue 16, item 4): the reference example's figures, parity with scikit-learn's
`cross_val_score` on the same splits, a seeded PyTorch fit function, the intervals by hand, input checks, and the
bundled ColBERT sample's integrity. The notebook nbs/09_crossval.ipynb has the prose and the longer checks."""
import hashlib, json, math
from pathlib import Path

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import (GroupKFold, KFold, RepeatedKFold, RepeatedStratifiedKFold, StratifiedKFold,
                                     cross_val_score)
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from cah_metrics.crossval import CVResult, assign_folds, cross_validate, cv_interval, fold_seeds

DATA = Path(__file__).resolve().parent / 'data' / 'colbert_humor'


@pytest.fixture(autouse=True)
def _one_thread():
    "Small models run faster on one BLAS thread than on two, far faster on a shared CPU (thread pools spin while waiting)."
    from threadpoolctl import threadpool_limits
    with threadpool_limits(1): yield


@pytest.fixture(scope='module')
def ref():
    "The reference notebook's data set."
    return make_classification(n_samples=200, n_features=5, n_informative=3, n_redundant=0, n_classes=2, random_state=42)


def test_reference_example(ref):
    "The issue's figures: fold accuracies 37, 39, 35, 35, 37 of 40; mean 183/200; population sd sqrt(0.0070/5)."
    X, y = ref
    res = cross_validate(LogisticRegression(max_iter=1000), X, y, stratify=False, seed=42)
    assert res.scores['accuracy'].tolist() == [0.925, 0.975, 0.875, 0.875, 0.925]
    assert math.isclose(res.mean['accuracy'], 183 / 200, abs_tol=1e-12)
    assert math.isclose(res.sd['accuracy'], math.sqrt(0.0070 / 5), abs_tol=1e-12)
    assert f"Mean Accuracy: {res.mean['accuracy']:.4f} ± {res.sd['accuracy']:.4f}" == "Mean Accuracy: 0.9150 ± 0.0374"


@pytest.mark.parametrize('scoring', ['accuracy', 'roc_auc'])
def test_parity_with_cross_val_score(ref, scoring):
    X, y = ref
    lr = LogisticRegression(max_iter=1000)
    cases = [(dict(stratify=False, seed=42), dict(cv=KFold(5, shuffle=True, random_state=42))),
             (dict(repeats=3, seed=0), dict(cv=RepeatedStratifiedKFold(n_splits=5, n_repeats=3, random_state=0))),
             (dict(stratify=False, repeats=2, seed=9), dict(cv=RepeatedKFold(n_splits=5, n_repeats=2, random_state=9))),
             (dict(stratify=False, groups=np.arange(200) % 40, seed=5),
              dict(cv=GroupKFold(5, shuffle=True, random_state=5), groups=np.arange(200) % 40))]
    for ours, theirs in cases:
        got = cross_validate(lr, X, y, scoring=scoring, **ours).scores[scoring]
        np.testing.assert_allclose(got, cross_val_score(lr, X, y, scoring=scoring, **theirs), rtol=0, atol=1e-12)
    pipe = make_pipeline(StandardScaler(), LogisticRegression())
    np.testing.assert_allclose(cross_validate(pipe, X, y, scoring=scoring, folds=4, seed=3).scores[scoring],
                               cross_val_score(pipe, X, y, scoring=scoring, cv=StratifiedKFold(4, shuffle=True, random_state=3)),
                               rtol=0, atol=1e-12)


def test_folds():
    "Sizes by hand (10 = 4 + 3 + 3), every item once per repeat, stratified counts, groups kept whole."
    A = assign_folds(10, 3, repeats=4, seed=1)
    assert A.shape == (4, 10) and all(np.bincount(a).tolist() == [4, 3, 3] for a in A)
    lab = np.array([1] * 30 + [0] * 60)
    S = assign_folds(90, 3, strata=lab)
    assert [int(lab[S[0] == k].sum()) for k in range(3)] == [10, 10, 10]
    grp = np.repeat(np.arange(12), 3)
    G = assign_folds(36, 4, groups=grp, strata=np.repeat(np.arange(12) % 2, 3), seed=2)
    assert all(len(set(G[0][grp == g])) == 1 for g in range(12))


def test_fold_seeds():
    assert fold_seeds(7, 4) == [int(np.random.SeedSequence(7, spawn_key=(j,)).generate_state(1)[0]) for j in range(4)]


def test_interval_by_hand():
    "Scores [0.925, 0.975, 0.875, 0.875, 0.925]: mean 0.915, s^2 = 0.007 / 4; t(4, 0.975) = 2.7764451 from a table."
    s, t4 = [0.925, 0.975, 0.875, 0.875, 0.925], 2.7764451
    lo, hi = cv_interval(s, 1 / 4)
    assert math.isclose(hi - 0.915, t4 * math.sqrt((1 / 5 + 1 / 4) * 0.00175), abs_tol=1e-6) and math.isclose(lo + hi, 2 * 0.915)
    lo, hi = cv_interval(s, 1 / 4, method='naive-t')
    assert math.isclose(hi - 0.915, t4 * math.sqrt(0.00175 / 5), abs_tol=1e-6)


def test_torch_fit_function_is_reproducible(ref):
    "A PyTorch fit function seeded by its split's seed gives the same scores twice, and a different seed other weights."
    torch = pytest.importorskip('torch')
    X, y = ref
    Xs = StandardScaler().fit_transform(X)
    threads = torch.get_num_threads(); torch.set_num_threads(1)
    def fit(X_train, y_train, seed):
        g = torch.Generator().manual_seed(seed)
        net = torch.nn.Sequential(torch.nn.Linear(5, 16), torch.nn.ReLU(), torch.nn.Linear(16, 2)).double()
        with torch.no_grad():
            for p in net.parameters(): p.uniform_(-0.4, 0.4, generator=g)
        opt, Xt, yt = torch.optim.Adam(net.parameters(), lr=0.01), torch.as_tensor(X_train), torch.as_tensor(y_train)
        for _ in range(50):
            opt.zero_grad(); torch.nn.functional.cross_entropy(net(Xt), yt).backward(); opt.step()
        return lambda Z: net(torch.as_tensor(Z)).detach().numpy()
    try: a, b = (cross_validate(fit, Xs, y, stratify=False, seed=42) for _ in range(2))
    finally: torch.set_num_threads(threads)
    assert a.scores['accuracy'].tolist() == b.scores['accuracy'].tolist() and a.scores['roc_auc'].tolist() == b.scores['roc_auc'].tolist()
    assert a.model == 'fit' and a.splitter == 'KFold'


def test_result_repr_and_json(ref):
    X, y = ref
    res = cross_validate(LogisticRegression(max_iter=1000), X, y, stratify=False, seed=42)
    assert repr(res).splitlines()[:2] == [
        'CVResult(LogisticRegression: KFold, 5 folds x 1 repeat, n = 200, seed 42)',
        '  accuracy  0.9150 ± 0.0374  95% corrected-t [0.8371, 0.9929]  splits: 0.9250 0.9750 0.8750 0.8750 0.9250']
    d = json.loads(json.dumps(res.to_dict()))
    assert d['scores']['accuracy'] == [0.925, 0.975, 0.875, 0.875, 0.925] and d['interval'] == 'corrected-t'
    b = res.with_interval('bootstrap', n_resamples=200)
    assert isinstance(b, CVResult) and b.scores == res.scores and b.ci['accuracy'][0] <= 0.915 <= b.ci['accuracy'][1]


JUNK = [None, 'x', -1, 0, 10**12, math.nan, math.inf, [], [[1, 2], [3]], {'a': 1}, object(), np.array([[np.nan, 1.0]])]
ARGS = ['model', 'X', 'y', 'folds', 'scoring', 'stratify', 'groups', 'repeats', 'seed', 'interval', 'confidence', 'n_resamples',
        'shuffle']


@pytest.mark.parametrize('arg', ARGS)
def test_junk_names_the_argument(ref, arg):
    "Junk in any argument: a TypeError or ValueError that names cross_validate, and no other exception."
    X, y = ref
    good = dict(model=LogisticRegression(), X=X, y=y, interval='bootstrap' if arg == 'n_resamples' else 'corrected-t')
    for junk in JUNK:
        try: cross_validate(**{**good, arg: junk})
        except (TypeError, ValueError) as e: assert 'cross_validate' in str(e), (arg, junk, e)
        else: assert (arg, junk) in [('groups', None), ('seed', 0)], f"cross_validate accepted {arg}={junk!r}"


@pytest.mark.parametrize('f, kwargs', [(assign_folds, dict(n=10)), (fold_seeds, dict(seed=0, count=3)), (cv_interval, dict(scores=[0.5, 0.6], test_fraction=0.25))])
def test_junk_in_helpers(f, kwargs):
    for k in kwargs:
        for junk in JUNK:
            try: f(**{**kwargs, k: junk})
            except (TypeError, ValueError) as e: assert f.__name__ in str(e) and k in str(e), (k, junk, e)


def test_colbert_sample():
    "The bundled sample is the file its README describes: 4,000 rows, 2,000 of each label, no duplicate texts."
    import pandas as pd
    path = DATA / 'colbert_humor_4k.csv'
    readme = (DATA / 'README.md').read_text(encoding='utf-8')
    assert hashlib.sha256(path.read_bytes()).hexdigest() in readme
    df = pd.read_csv(path, keep_default_na=False)
    assert list(df.columns) == ['row', 'text', 'humor'] and len(df) == 4000
    assert df.humor.value_counts().to_dict() == {True: 2000, False: 2000} and not df.text.duplicated().any()
    assert (DATA / 'LICENSE').read_text(encoding='utf-8').count('MIT License') >= 1
