"""ROUGE's 0.1 result shapes keep working for one release, each with a DeprecationWarning that points at the caller's
line and names the replacement; new code meets plain `Score` keys and floats (issue #32, item 5)."""
import pickle, warnings
import pytest
from cah_metrics.rouge import ROUGE, ROUGEScore, corpus_rouge, rouge_from_stats, rouge_scores

HYPS, REFS = ["the cat is on the mat", "a dog barks", "hello"], ["a cat sat on the mat", "the dog barks", "goodbye"]

def old(access):
    "The value of `access()` and its warnings as (category, file, message)."
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        value = access()
    return value, [(w.category, w.filename, str(w.message)) for w in caught]

def test_one_result_type():
    score = corpus_rouge(HYPS, REFS)
    assert type(score) is ROUGEScore and score == ROUGE().compute(HYPS, REFS)
    assert list(score) == list(ROUGE.keys)
    for i, one in enumerate(rouge_scores(HYPS, REFS)):
        assert type(one) is ROUGEScore and one == ROUGE().compute(HYPS[i:i + 1], REFS[i:i + 1])

@pytest.mark.parametrize('access, new, says', [
    (lambda s, e: s['rouge1'].mean.fmeasure, lambda s, e: s['rouge1'], "score['rouge1'].mean is deprecated"),
    (lambda s, e: s['rouge1'].low.fmeasure, lambda s, e: s['rouge1_low'], "use score['rouge1_low']"),
    (lambda s, e: s['rougeL'].high.fmeasure, lambda s, e: s['rougeL_high'], "use score['rougeL_high']"),
    (lambda s, e: s['rouge2'].fmeasure, lambda s, e: s['rouge2'], "score['rouge2'] is the F1 itself"),
    (lambda s, e: s['rouge1'].n, lambda s, e: s.n, "use score.n"),
    (lambda s, e: s.aggregates['rougeL'].mean.recall, lambda s, e: s['rougeL_recall'], "ROUGEScore.aggregates"),
    (lambda s, e: e['rouge1'].precision, lambda s, e: e['rouge1_precision'], "use score['rouge1_precision']"),
    (lambda s, e: e['rougeL'].recall, lambda s, e: e['rougeL_recall'], "use score['rougeL_recall']"),
])
def test_old_access_warns_at_the_callers_line(access, new, says):
    score, example = corpus_rouge(HYPS, REFS), rouge_scores(HYPS, REFS)[0]
    value, warned = old(lambda: access(score, example))
    assert value == new(score, example)
    assert warned and {(c, f) for c, f, _ in warned} == {(DeprecationWarning, __file__)}
    assert any(says in m for _, _, m in warned), warned

def test_old_names_import_with_a_warning():
    import cah_metrics.rouge as rouge
    RougeScore, warned = old(lambda: rouge.RougeScore)
    assert warned[0][:2] == (DeprecationWarning, __file__) and 'ROUGEScore' in warned[0][2]
    mean, low, high = rouge_from_stats([[4, 6, 6], [2, 3, 4]], n_boot=0)
    assert isinstance(mean, RougeScore) and old(lambda: mean.fmeasure)[0] == mean[2]
    RougeAggregate, warned = old(lambda: rouge.RougeAggregate)
    assert warned[0][0] is DeprecationWarning and isinstance(corpus_rouge(HYPS, REFS)['rouge1'], RougeAggregate)
    with pytest.raises(AttributeError): rouge.RougeScorer

def test_new_code_meets_plain_floats():
    score = corpus_rouge(HYPS, REFS)
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        assert {type(v) for v in score.values()} == {float} and type(score['rouge1'] * 1) is float
        assert pickle.loads(pickle.dumps(score['rouge1'])) == score['rouge1']
        assert pickle.loads(pickle.dumps(score)) == score
        assert f"{score['rouge1']:.4f}" == f"{score.value:.4f}" and repr(score['rouge1']) == repr(score.value)
