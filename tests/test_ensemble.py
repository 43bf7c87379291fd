"""cah_metrics.ensemble (issue 17, design 002): the design's weighted score, disagreement, consensus, outliers,
reliability and flags by hand and against NumPy, the diversity fallback chain (monkeypatched, no model needed),
strategies of every kind, the evaluator's worked example, bad input, and the ExPUNations numbers the notebook
nbs/10_ensemble.ipynb discusses (skipped when tests/data/expunations is absent). No torch: runs in a few seconds."""
import hashlib, json, math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import cah_metrics.ensemble as ens
from cah_metrics.core import load
from cah_metrics.ensemble import (DIVERSITY_CHAIN, Disagreement, DiversityResult, EnsembleEvaluator, EnsembleResult, Flag,
                                  Strategy, StrategyRun, disagreement, diversity_with_fallback, text_flags,
                                  validation_flags, weighted_score)

DATA = Path(__file__).resolve().parent / 'data' / 'expunations'


# ---- weighted score -----------------------------------------------------------------------------------------------
def test_weighted_score_by_hand():
    # w = (0.9, 0.4, 0.5), sum 1.8; sum w s = 0.72 + 0.24 + 0.10 = 1.06
    assert math.isclose(weighted_score([0.8, 0.6, 0.2], [0.9, 0.5, 1.0], [1.0, 0.8, 0.5]), 1.06 / 1.8, abs_tol=1e-12)
    assert math.isclose(weighted_score({'a': 0.8, 'b': 0.2}, {'b': 1, 'a': 3}, 1), (2.4 + 0.2) / 4, abs_tol=1e-12)
    assert weighted_score([0.8, 0.6], 0, 1) == 0.0 and weighted_score([], 1, 1) == 0.0
    assert math.isclose(weighted_score([1.7e308, 1.7e308], 1, 1), 1.7e308, rel_tol=1e-12)


@pytest.mark.parametrize('args, err, msg', [
    (([0.5, math.nan], 1, 1), ValueError, "weighted_score: scores[1] is nan"),
    (([0.5, 0.6], [1, -1], 1), ValueError, "weighted_score: confidence[1] is -1.0; weights must be >= 0"),
    (([0.5, 0.6], [1, 1, 1], 1), ValueError, "weighted_score: confidence has 3 entries but scores has 2"),
    (([0.5], 1, None), TypeError, "weighted_score: relevance must be a sequence of numbers, got NoneType"),
    ((['a'], 1, 1), TypeError, "weighted_score: scores must hold numbers"),
    (({'a': 1}, {'b': 1}, 1), ValueError, "weighted_score: confidence must have the keys of scores"),
])
def test_weighted_score_errors(args, err, msg):
    with pytest.raises(err, match=None) as e: weighted_score(*args)
    assert msg in str(e.value)


# ---- disagreement --------------------------------------------------------------------------------------------------
def test_disagreement_by_hand():
    d = disagreement({'a': 0.8, 'b': 0.6, 'c': 0.7}, {'surprise': [0.6, 0.8], 'coherence': [0.5, 0.5, 0.2], 'wit': [0.4]})
    assert (d.n, d.range, d.outliers) == (3, (0.6, 0.8), [])
    np.testing.assert_allclose([d.mean, d.variance, d.stdev, d.cv], [0.7, 0.01, 0.1, 1 / 7], atol=1e-12)
    assert math.isclose(d.consensus, 1 - 2 / 7, abs_tol=1e-12) and math.isclose(d.reliability, (1 - 2 / 7) * 0.95, abs_tol=1e-12)
    assert d.dimension_cv.keys() == {'surprise', 'coherence'}
    assert math.isclose(d.dimension_cv['coherence'], math.sqrt(0.03) / 0.4, abs_tol=1e-12)
    assert d.consensus_dimensions == pytest.approx({'surprise': 0.7, 'coherence': 0.4, 'wit': 0.4}, abs=1e-12)
    assert json.loads(json.dumps(d.to_dict()))['range'] == [0.6, 0.8]


def test_outliers_and_samuelson_bound():
    five = disagreement({'s1': 0.5, 's2': 0.5, 's3': 0.5, 's4': 0.5, 'odd': 0.9})
    assert five.outliers == ['odd'] and math.isclose(five.outlier_z['odd'], 4 / math.sqrt(5), abs_tol=1e-12)
    assert math.isclose(five.reliability, (1 - 2 * math.sqrt(0.032) / 0.58) * 0.84, abs_tol=1e-12)
    four = disagreement({'a': 1.0, 'b': 1.0, 'c': 1.0, 'd': 5 / 6})     # z = 1.5 exactly: at the bound, not an outlier
    assert math.isclose(four.outlier_z['d'], 1.5, abs_tol=1e-12) and four.outliers == []
    assert any('no outlier can be found' in n for n in four.notes)


def test_disagreement_edge_cases():
    c = disagreement({'a': 0.1, 'b': 0.1, 'c': 0.1})
    assert (c.variance, c.cv, c.consensus, c.reliability, c.outliers) == (0.0, 0.0, 1.0, 1.0, [])
    neg = disagreement({'a': -0.2, 'b': -0.4})
    assert (neg.cv, neg.consensus) == (0.0, 1.0) and any('<= 0' in n for n in neg.notes)
    with pytest.raises(ValueError, match='needs at least two strategies'): disagreement({'a': 0.5})
    with pytest.raises(ValueError, match=r"dimension_scores\['x'\] is empty"): disagreement({'a': 0.5, 'b': 0.6}, {'x': []})
    with pytest.raises(ValueError, match='overflows'): disagreement({'a': 1.7e308, 'b': -1.7e308})
    with pytest.raises(TypeError, match='keys must be strategy names'): disagreement({1: 0.5, 'b': 0.6})
    with pytest.raises(TypeError, match=r"scores_by_strategy\['b'\] must be a number"): disagreement({'a': 0.5, 'b': None})


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(-10, 10, allow_nan=False), min_size=2, max_size=8), st.floats(0.1, 10))
def test_disagreement_against_numpy(xs, c):
    d = disagreement({f's{i}': x for i, x in enumerate(xs)})
    a = np.array(xs)
    assert math.isclose(d.mean, a.mean(), abs_tol=1e-9) and math.isclose(d.variance, a.var(ddof=1), rel_tol=1e-9, abs_tol=1e-12)
    cv = d.stdev / d.mean if d.mean > 0 else 0.0
    assert math.isclose(d.cv, cv, rel_tol=1e-12, abs_tol=1e-15) and d.consensus == max(0.0, 1 - 2 * d.cv)
    assert 0 <= d.reliability <= 1 and set(d.outliers) <= set(d.outlier_z)
    scaled = disagreement({f's{i}': x * c for i, x in enumerate(xs)})          # the CV does not depend on the unit
    assert math.isclose(scaled.consensus, d.consensus, abs_tol=1e-9)


# ---- flags ---------------------------------------------------------------------------------------------------------
def test_flags():
    five = disagreement({'s1': 0.5, 's2': 0.5, 's3': 0.5, 's4': 0.5, 'odd': 0.9})
    assert [(f.name, f.severity) for f in validation_flags(five)] == [('high_ensemble_disagreement', 'medium'), ('strategy_outliers', 'medium')]
    assert validation_flags(disagreement({'a': 0.1, 'b': 0.9}))[0].severity == 'high'
    assert validation_flags(disagreement({'a': 0.8, 'b': 0.6, 'c': 0.7})) == []
    with pytest.raises(ValueError, match='high_threshold'): validation_flags(five, 0.2, 0.5)
    with pytest.raises(TypeError, match='validation_flags: result must be a Disagreement'): validation_flags({})
    assert [f.name for f in text_flags("a pun about time")] == ['repetitive_patterns']       # 1/4 > 0.2
    assert text_flags("a short pun about time") == []
    assert [f.name for f in text_flags(" ".join(f"w{i}" for i in range(20)) + " la" * 10)] == ['repetitive_patterns', 'local_entropy_drops']
    assert json.loads(json.dumps(validation_flags(five)[1].to_dict()))['details']['strategies'] == ['odd']


# ---- diversity chain -----------------------------------------------------------------------------------------------
def test_diversity_tfidf_and_word_overlap():
    from sklearn.feature_extraction.text import TfidfVectorizer
    three = ["the cat sat", "the cat ran", "stocks fell"]
    X = TfidfVectorizer(token_pattern=r"(?u)\b\w+\b").fit_transform(three).toarray()
    S = X @ X.T
    r = diversity_with_fallback(three, start='tfidf')
    assert (r.method, r.fallbacks) == ('tfidf', []) and math.isclose(r.value, 1 - (S[0, 1] + S[0, 2] + S[1, 2]) / 3, abs_tol=1e-6)
    assert math.isclose(diversity_with_fallback(["the cat", "the dog", "a bird"], start='word-overlap').value, 8 / 9, abs_tol=1e-12)
    p = diversity_with_fallback(["...", "!?"], start='tfidf')
    assert (p.method, p.value, p.fallbacks[0]['method']) == ('word-overlap', 0.0, 'tfidf')
    assert diversity_with_fallback(["one"]) == DiversityResult(0.0, 'none', [], 1)


@pytest.mark.parametrize('exc, reason', [(ImportError("No module named 'sentence_transformers'"), 'not installed'),
                                         (ValueError("embeddings: model 'x' is not available offline (OSError)"), 'not available offline')])
def test_diversity_falls_through(monkeypatch, exc, reason):
    real = ens.get_encoder
    def fake(model='x', backend='auto', use_gpu=False):
        if backend == 'sentence-transformers': raise exc
        return real(model, backend, use_gpu)
    monkeypatch.setattr(ens, 'get_encoder', fake)
    r = diversity_with_fallback(["the cat sat", "the cat ran", "stocks fell"])
    assert r.method == 'tfidf' and r.fallbacks[0]['method'] == 'sentence-transformers' and reason in r.fallbacks[0]['reason']
    assert json.loads(json.dumps(r.to_dict()))['fallbacks'][0]['method'] == 'sentence-transformers'


def test_diversity_stays_in_range():
    "Issue 31: identical texts gave -1.34e-07 (float32 unit vectors: mean cosine 1 + 1e-7)."
    assert diversity_with_fallback(['same text', 'same text'], start='tfidf').value == 0.0
    for texts in (['same text'] * 7, ['a b', 'a b', 'b a'], ['x y z', 'x y z', 'q']):
        for start in ('tfidf', 'word-overlap'):
            assert 0.0 <= diversity_with_fallback(texts, start=start).value <= 1.0
    # sentence-embedding cosines can be negative: [0, 1 + 1/(N - 1)] (mean cosine >= -1/(N - 1))
    D = ens._embedding_diversity
    assert D(np.array([[1.0, 0.0], [-1.0, 0.0]]), 't') == 2.0                  # 1 - (-1)
    assert D(np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0]]), 't') == 1 + 1 / 3   # cos -1, 0, 0
    assert D(np.array([[1.0, 0.0], [1.0, 0.0]], np.float32), 't') == 0.0


def test_diversity_errors():
    with pytest.raises(ValueError, match='start must be one of'): diversity_with_fallback(["a", "b"], start='bert')
    with pytest.raises(TypeError, match=r'texts\[1\] must be a str'): diversity_with_fallback(["a", None])


# ---- strategies ----------------------------------------------------------------------------------------------------
HYPS = ["the cat sat on the mat", "a dog barked", "completely different words"]
REFS = ["the cat sat on the mat", "the dog barked loudly", "nothing in common here"]


def test_metric_strategies():
    rc = Strategy('chrf', 'chrf').run(HYPS, references=REFS)
    assert rc.overall[0] == 1.0
    for i in range(3): assert math.isclose(rc.overall[i], load('chrf').compute(predictions=[HYPS[i]], references=[REFS[i]]).value, abs_tol=1e-12)
    assert math.isclose(rc.corpus, load('chrf').compute(predictions=HYPS, references=REFS).value, abs_tol=1e-12)
    rd = Strategy('d', 'distinct_n').run(["a a b", "x y"])                     # no per_item: one item at a time
    assert rd.overall == pytest.approx([2 / 3, 1.0], abs=1e-12)
    raw, sc = Strategy('p', 'lm_perplexity').run(HYPS), Strategy('p', 'lm_perplexity', scale=(1, 1000)).run(HYPS)
    assert sc.overall == pytest.approx([1 - (p - 1) / 999 for p in raw.overall], abs=1e-12)
    assert Strategy('sb', 'self_bleu').to_dict()['flip'] == {'self_bleu': True}
    with pytest.raises(ValueError, match="metric chrf needs references"): Strategy('chrf', 'chrf').run(HYPS)
    with pytest.raises(ValueError, match="flip=True needs a scale"): Strategy('p', 'lm_perplexity', flip=True)


def test_humor_and_callable_strategies():
    from cah_metrics.humor import HumorEvaluator
    ev = HumorEvaluator(["the cat sat on the mat", "a dog barked at the moon", "why did the chicken cross the road"], encoder='cooccurrence')
    texts, ctx = ["a dog sat", "the moon barked loudly"], ["why?", "what now?"]
    want = ev.evaluate_batch(texts, ctx)
    r = Strategy('h', ev, dimensions={'ambiguity_score': 'ambiguity'}).run(texts, contexts=ctx)
    assert r.overall == pytest.approx((want['overall_humor_score'] / 10).tolist(), abs=1e-12)
    assert [d['ambiguity'] for d in r.dimensions] == pytest.approx((want['ambiguity_score'] / 10).tolist(), abs=1e-12)
    with pytest.raises(ValueError, match='needs contexts'): Strategy('h', ev).run(texts)
    f = Strategy('f', lambda t, context: (len(t) / 10, {'c': 1.0 if context else 0.0})).run(["abc", "abcdefgh"], contexts=["x", ""])
    assert (f.overall, f.dimensions) == ([0.3, 0.8], [{'c': 1.0}, {'c': 0.0}])
    with pytest.raises(ValueError, match="item 0: overall must be a finite number"): Strategy('n', lambda t: math.inf).run(["a"])


# ---- the evaluator -------------------------------------------------------------------------------------------------
def _worked():
    return EnsembleEvaluator({'a': Strategy('a', lambda t: 0.8, confidence=2), 'b': lambda t: {'overall': 0.6, 'wit': 0.5},
                              'c': lambda t, context: (0.7 if context else 0.1, {'wit': 0.7})}, diversity='word-overlap')


def test_evaluator_worked_example():
    res = _worked().evaluate(["a short pun about time", "time flies, time flies"], contexts=["Why?", ""])
    assert isinstance(res, EnsembleResult)
    i0, i1 = res.items
    assert i0.flags == [] and math.isclose(i0.ensemble_score, (2 * 0.8 + 0.6 + 0.7) / 4, abs_tol=1e-12)
    assert math.isclose(i0.disagreement.dimension_cv['wit'], math.sqrt(0.02) / 0.6, abs_tol=1e-12)
    assert math.isclose(i1.disagreement.variance, 0.13, abs_tol=1e-12) and i1.disagreement.reliability == 0.0
    assert [(f.name, f.severity) for f in i1.flags] == [('high_ensemble_disagreement', 'high'), ('repetitive_patterns', 'medium')]
    assert res.corpus_scores == pytest.approx({'a': 0.8, 'b': 0.6, 'c': 0.4}, abs=1e-12)
    assert math.isclose(res.corpus.consensus, 1 / 3, abs_tol=1e-12)
    d = json.loads(json.dumps(res.to_dict()))
    assert d['summary']['flag_counts'] == {'high_ensemble_disagreement': 1, 'repetitive_patterns': 1}
    assert d['diversity']['method'] == 'word-overlap' and d['strategies'][0]['scale'] == {'callable': None}
    assert list(res.to_frame().columns[:4]) == ['a', 'b', 'c', 'ensemble_score']


def test_evaluator_metrics_by_hand():
    res = EnsembleEvaluator({'bleu': 'bleu', 'chrf': 'chrf', 'rougeL': 'rougeL', 'distinct': 'distinct_n'},
                            diversity=None, text_checks=False).evaluate(HYPS, references=REFS)
    d0 = res.items[0].disagreement      # scores 1, 1, 1, 5/6: mean 23/24, variance 1/144, cv 2/23
    assert (d0.mean, d0.variance, d0.cv, d0.consensus) == pytest.approx((23 / 24, 1 / 144, 2 / 23, 19 / 23), abs=1e-12)
    assert math.isclose(d0.reliability, 19 / 23 * (1 - 5 / 144) + 0.1, abs_tol=1e-12) and res.items[0].flags == []
    assert math.isclose(res.corpus_scores['bleu'], load('bleu').compute(predictions=HYPS, references=REFS).value, abs_tol=1e-12)


@pytest.mark.parametrize('make, err, msg', [
    (lambda: EnsembleEvaluator({'only': 'chrf'}), ValueError, "needs at least two strategies"),
    (lambda: EnsembleEvaluator({'a': 'chrf', 'b': 'blue'}), ValueError, "EnsembleEvaluator: strategies['b']"),
    (lambda: EnsembleEvaluator('chrf'), TypeError, "EnsembleEvaluator: strategies must be"),
    (lambda: EnsembleEvaluator({'a': 'chrf', 'b': 'bleu'}, diversity='bert'), ValueError, "diversity must be None or one of"),
    (lambda: _worked().evaluate([]), ValueError, "EnsembleEvaluator.evaluate: predictions is empty"),
    (lambda: _worked().evaluate(["a", "b"], contexts=["x"]), ValueError, "got 2 predictions but 1 contexts"),
    (lambda: _worked().evaluate(["a"]), TypeError, "strategy 'c': item 0"),
    (lambda: Strategy('x', 5), TypeError, "Strategy: spec must be"),
    (lambda: Strategy('x', 'bleu', dimensions=['wit']), ValueError, "dimensions names 'wit'"),
])
def test_errors(make, err, msg):
    with pytest.raises(err) as e: make()
    assert msg in str(e.value)


JUNK = st.one_of(st.none(), st.booleans(), st.integers(-2**70, 2**70), st.floats(), st.text(max_size=5), st.binary(max_size=3),
                 st.lists(st.one_of(st.none(), st.floats(), st.text(max_size=3)), max_size=3),
                 st.dictionaries(st.text(max_size=3), st.one_of(st.floats(), st.none(), st.text(max_size=2)), max_size=3),
                 st.just(np.array([[np.nan, 1.0]])), st.just(object()))


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(['weighted_score', 'disagreement', 'validation_flags', 'text_flags', 'diversity', 'Strategy', 'evaluate']), JUNK, JUNK)
def test_junk_gives_clear_errors(target, x, y):
    "Junk in any argument: a result, or a TypeError/ValueError that names the function."
    calls = {'weighted_score': (lambda: weighted_score(x, y, 1), 'weighted_score'),
             'disagreement': (lambda: disagreement(x, y), 'disagreement'),
             'validation_flags': (lambda: validation_flags(x, y), 'validation_flags'),
             'text_flags': (lambda: text_flags(x), 'text_flags'),
             'diversity': (lambda: diversity_with_fallback(x, start='tfidf' if y is None else y), 'diversity_with_fallback'),
             'Strategy': (lambda: Strategy('s', x, scale=y), 'Strategy'),
             'evaluate': (lambda: _worked().evaluate(x, contexts=y), 'EnsembleEvaluator')}
    f, name = calls[target]
    try: f()
    except (TypeError, ValueError) as e: assert name in str(e), (target, str(e))


# ---- ExPUNations ---------------------------------------------------------------------------------------------------
needs_data = pytest.mark.skipif(not (DATA / 'puns.csv').is_file(), reason='tests/data/expunations is not here')


@needs_data
def test_expunations_integrity():
    want = {'funniness_matrix.csv': '767cbbfa47c7ad9ca29e5aff885d7113bb23e8b419d7315adda8dc5b8d36575a',
            'is_joke_matrix.csv': '26187dbc1327eddf75992a403e8789c87c627686c8e26df11148554126d3c418',
            'puns.csv': 'b13f793824cfb61624d86ce789fd8f1010573ce86e63a5aee3a9bd45dae59298'}
    for name, sha in want.items(): assert hashlib.sha256((DATA / name).read_bytes()).hexdigest() == sha, name


@needs_data
def test_expunations_raters_as_strategies():
    "The notebook's claims on the same matrix: our variance is NumPy's; alpha ignores a shift that moves consensus a lot."
    import pandas as pd
    from cah_metrics.agreement import krippendorff_alpha
    F = pd.read_csv(DATA / 'funniness_matrix.csv').drop(columns='id').to_numpy(float)
    F = np.where(F > 0, F, np.nan)
    rows = [r[~np.isnan(r)] for r in F if (~np.isnan(r)).sum() >= 2]
    assert len(rows) == 1588
    per = [disagreement({f'r{j}': v for j, v in enumerate(r)}) for r in rows]
    np.testing.assert_allclose([d.variance for d in per], [np.var(r, ddof=1) for r in rows], atol=1e-12)
    shifted = [disagreement({f'r{j}': v + 10 for j, v in enumerate(r)}) for r in rows]
    as_ratings = lambda G: [[None if np.isnan(v) else float(v) for v in row] for row in G.T]
    a, a10 = krippendorff_alpha(as_ratings(F), level='interval').alpha, krippendorff_alpha(as_ratings(F + 10), level='interval').alpha
    assert abs(a) < 0.05 and math.isclose(a, a10, abs_tol=1e-9)
    assert np.mean([d.consensus for d in shifted]) - np.mean([d.consensus for d in per]) > 0.5
    assert np.mean([d.reliability == 0 for d in per]) > 0.8                # 1-5 ratings: 5 x variance >= 1 for most items
    assert not any(d.outliers for d, r in zip(per, rows) if len(r) <= 4)   # Samuelson: no outlier with 4 raters or fewer
