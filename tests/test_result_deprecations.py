"""One result protocol (issue #32, item 5): every metric's functional form returns a `Score` keyed as its
registered metric's `compute` is, equal to it where the options are the same; 0.1's result shapes (named tuples,
dataclasses) keep working for one release, each old access with a DeprecationWarning at the caller's line that
names the replacement and gives the same number."""
import pickle, warnings
import numpy as np
import pytest
import cah_metrics.diversity as diversity
from cah_metrics.core import Score, load
from cah_metrics.diversity import (DistinctScore, RichnessScore, SemanticDiversityScore, distinct_n,
                                   semantic_diversity, vocabulary_richness)
from test_rouge_deprecations import old     # an access's value and its warnings

TEXTS = ["the cat is on the mat", "a dog barks", "the cat", "the cat"]
E = np.array([[1, 0], [1, 0], [0, 1], [0, 1], [1, 1]], float)

def test_functions_return_their_metrics_scores():
    for n in (1, 2):
        got = distinct_n(TEXTS, n)
        assert type(got) is DistinctScore and got == load('distinct_n', n=n).compute(TEXTS)
        assert list(got) == list(load('distinct_n').keys) and got.value == got['distinct']
    words = ' '.join(TEXTS)
    rich = vocabulary_richness(words)
    assert type(rich) is RichnessScore and rich == load('vocabulary_richness').compute([words])
    assert list(rich) == list(load('vocabulary_richness').keys) and rich.value == rich['score']
    sd = semantic_diversity(E)
    assert type(sd) is SemanticDiversityScore and list(sd) == list(load('semantic_diversity').keys)
    assert sd.n == 5 and sd.labels.shape == (5,) and sd.value == sd['overall_diversity']
    assert sd.signature.options == {'emb': 'vectors', 'q': '1', 'seed': '42'}
    for score in (got, rich, sd):
        assert isinstance(score, Score) and pickle.loads(pickle.dumps(score)) == score

@pytest.mark.parametrize('make, access, new, says', [
    (lambda: distinct_n(TEXTS), lambda s: s.corpus, lambda s: s['distinct'], "use score['distinct']"),
    (lambda: distinct_n(TEXTS), lambda s: s.per_text_mean, lambda s: s['per_text_mean'], "use score['per_text_mean']"),
    (lambda: distinct_n(TEXTS), lambda s: s.distinct, lambda s: s['distinct_ngrams'], "use score['distinct_ngrams']"),
    (lambda: distinct_n(TEXTS), lambda s: s.total, lambda s: s['total_ngrams'], "use score['total_ngrams']"),
    (lambda: distinct_n(TEXTS), lambda s: s.n_texts, lambda s: s.n, "DistinctScore.n_texts is deprecated: use score.n"),
    (lambda: distinct_n(TEXTS), lambda s: s._asdict(), lambda s: {'corpus': s['distinct'], 'per_text_mean': s['per_text_mean'],
     'distinct': s['distinct_ngrams'], 'total': s['total_ngrams'], 'n_texts': s.n}, "_asdict() is deprecated"),
    (lambda: vocabulary_richness("a b a c"), lambda s: s.ttr, lambda s: s['ttr'], "RichnessScore.ttr is deprecated"),
    (lambda: vocabulary_richness("a b a c"), lambda s: s.score, lambda s: s.value, "use score['score']"),
    (lambda: vocabulary_richness("a b a c"), lambda s: s.hdd, lambda s: s['hdd'], "use score['hdd']"),
    (lambda: vocabulary_richness("a b a c"), lambda s: s._asdict(), lambda s: dict(s), "_asdict() is deprecated"),
    (lambda: semantic_diversity(E), lambda s: s.overall_diversity, lambda s: s['overall_diversity'], "use score['overall_diversity']"),
    (lambda: semantic_diversity(E), lambda s: s.vendi, lambda s: s['vendi'], "use score['vendi']"),
    (lambda: semantic_diversity(E), lambda s: s.k, lambda s: s['k'], "SemanticDiversityScore.k is deprecated"),
])
def test_old_access_warns_at_the_callers_line(make, access, new, says):
    score = make()
    value, warned = old(lambda: access(score))
    assert value == new(score)
    assert warned and {(c, f) for c, f, _ in warned} == {(DeprecationWarning, __file__)}
    assert any(says in m for _, _, m in warned), warned

def test_semantic_diversity_asdict_keeps_the_old_fields():
    sd = semantic_diversity(E)
    fields, _ = old(lambda: sd._asdict())
    assert list(fields)[:3] == ['n', 'mean_similarity', 'overall_diversity'] and fields['labels'] is sd.labels

@pytest.mark.parametrize('name, new', [('Distinct', DistinctScore), ('Richness', RichnessScore),
                                       ('SemanticDiversity', SemanticDiversityScore)])
def test_old_names_import_with_a_warning(name, new):
    cls, warned = old(lambda: getattr(diversity, name))
    assert cls is new and warned[0][:2] == (DeprecationWarning, __file__) and new.__name__ in warned[0][2]
    with pytest.raises(AttributeError): diversity.NotAName

def test_new_code_meets_no_warning():
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        for score in (distinct_n(TEXTS), vocabulary_richness("a b a c"), semantic_diversity(E)):
            assert score.value == float(score) and json_ready_round_trip(score)
        with pytest.raises(AttributeError): distinct_n(TEXTS).nothing

def json_ready_round_trip(score) -> bool:
    "A score's plain form has its keys, its signature and n."
    plain = score.to_dict()
    return set(score) <= set(plain) and plain['signature'] == str(score.signature) and plain['n'] == score.n


# ---- MAUVE and BERTScore (no model needed: counts, and a result built by hand) ----
import cah_metrics.mauve as mauve_module
from cah_metrics.bertscore import BERTScore, BERTScoreResult
from cah_metrics.mauve import MAUVE, MAUVEScore, mauve_from_counts

def test_mauve_result_is_its_metrics_score():
    r = mauve_from_counts([2, 0, 3], [1, 1, 1])
    assert type(r) is MAUVEScore and list(r) == list(MAUVE.keys) and r.value == r['mauve']
    assert r.divergence_curve.shape == (27, 2) and r.p_hist.tolist() == [0.4, 0.0, 0.6] and r.pca_dim is None
    assert pickle.loads(pickle.dumps(r)) == r
    for name in ('mauve', 'frontier_integral', 'mauve_star', 'frontier_integral_star', 'num_buckets'):
        value, warned = old(lambda: getattr(r, name))
        assert value == r[name] and warned == [(DeprecationWarning, __file__,
                                                f"MAUVEScore.{name} is deprecated: use score[{name!r}] (0.2 drops it)")]
    cls, warned = old(lambda: mauve_module.MAUVEResult)
    assert cls is MAUVEScore and warned[0][:2] == (DeprecationWarning, __file__)
    with pytest.raises(AttributeError): mauve_module.Nothing

def test_bertscore_result_is_its_metrics_score():
    r = BERTScoreResult(np.array([.5, .7]), np.array([.6, .8]), np.array([.55, .75]), 'sig')
    assert isinstance(r, Score) and list(r) == list(BERTScore.keys) and r.n == 2 and r.value == r['f1']
    assert r['precision'] == pytest.approx(0.6, abs=1e-15) and r.f1.tolist() == [.55, .75]   # means; each example's
    means, warned = old(lambda: r.mean())
    assert means == {'precision': r['precision'], 'recall': r['recall'], 'f1': r['f1']}
    assert [w[:2] for w in warned] == [(DeprecationWarning, __file__)] and "keys" in warned[0][2]
    empty = BERTScoreResult(np.zeros(0), np.zeros(0), np.zeros(0), 'sig')
    assert dict(empty) == {'f1': 0.0, 'precision': 0.0, 'recall': 0.0} and empty.n == 0
