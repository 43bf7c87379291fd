"""Every registered metric against the promises of the metric core (issue 13).

On real text (the Cards Against Humanity main game embedded in the package, CC BY-NC-SA 2.0, see
cah_metrics/data/CAH_LICENSE.md), for each name of `cah_metrics.list_metrics()`:
- shards from random contiguous splits (1 to 8 parts) merged in order equal the one-pass result (integers bit for bit,
  floats within 1e-12), and in any order when the state holds no ordered (list) part;
- `state_dict()` survives a JSON round trip and loads into a fresh metric that computes the same score;
- merging metrics made with different options raises ValueError naming each option that differs;
- `compute(predictions=..., ...)` in one call equals update + compute;
- the signature has the declared keys in order, the library version last, and a tokenizer's casing as used;
- bad items raise TypeError/ValueError naming the metric, the argument and the index.
"""
import json, math, random
from collections.abc import Mapping
from functools import lru_cache

import numpy as np
import pytest

import cah_metrics
from cah_metrics import __version__
from cah_metrics.core import Score, Signature, metric_class
from cah_metrics.corpora import default_pack
from cah_metrics.text import WhitespaceTokenizer

N = 96                                    # items per metric: enough for every metric's machinery, small enough for CI
NAMES = [m.name for m in cah_metrics.list_metrics()]
HEAVY = {'bertscore', 'semantic_diversity', 'humor', 'mauve'}     # load the bundled MiniLM


@lru_cache(maxsize=1)
def cards():
    p = default_pack()
    return [a['text'] for a in p.answers], [q['text'] for q in p.prompts]


def dataset(name, n=N, seed=0):
    "Inputs for `n` items of metric `name`, from real card text (numbers for the metrics of numbers)."
    rng = random.Random(seed)
    answers, prompts = cards()
    cls, _ = metric_class(name)
    if name == 'top_k_accuracy':
        r = np.random.default_rng(seed)
        return {'predictions': r.random((n, 5)), 'references': r.integers(0, 5, n)}
    if name == 'perplexity':
        r = np.random.default_rng(seed)
        return {'predictions': [np.log(r.uniform(1e-3, 1, r.integers(0, 12))).tolist() for _ in range(n)]}
    preds = [rng.choice(answers) for _ in range(n)]
    out = {'predictions': preds}
    if name == 'mauve': out['references'] = [rng.choice(answers) for _ in range(n)]   # a set of human texts, not paired with the predictions
    elif 'references' in cls.inputs:
        out['references'] = [[rng.choice(answers) for _ in range(rng.randint(1, 2))] if i % 3 else p for i, p in enumerate(preds)]
    if 'sources' in cls.inputs: out['sources'] = [rng.choice(prompts) + ' ' + rng.choice(answers) for _ in range(n)]
    if 'contexts' in cls.inputs: out['contexts'] = [rng.choice(prompts) for _ in range(n)]
    return out


def part(d, lo, hi): return {k: v[lo:hi] for k, v in d.items()}


def assert_same(a: Score, b: Score, tol=1e-12):
    "Two scores agree: same keys and signature, integers equal, floats within `tol` (relative for large values)."
    da, db = a.to_dict(), b.to_dict()
    assert set(da) == set(db) and da['signature'] == db['signature']
    def same(x, y, where):
        if isinstance(x, list):
            assert isinstance(y, list) and len(x) == len(y), where
            for i, (p, q) in enumerate(zip(x, y)): same(p, q, f"{where}[{i}]")
        elif isinstance(x, dict):
            assert x.keys() == y.keys(), where
            for k in x: same(x[k], y[k], f"{where}.{k}")
        elif isinstance(x, bool) or isinstance(x, int) and isinstance(y, int): assert x == y, (where, x, y)
        elif isinstance(x, float) or isinstance(y, float):
            assert (math.isnan(x) and math.isnan(y)) or math.isclose(x, y, rel_tol=tol, abs_tol=tol), (where, x, y)
        else: assert x == y, (where, x, y)
    for k in da: same(da[k], db[k], k)


def has_list_state(m): return any(isinstance(v, list) for v in m.state.values())


@pytest.mark.parametrize('name', NAMES)
def test_random_shards_merge_to_one_pass(name):
    d = dataset(name)
    one = cah_metrics.load(name).update(**d)
    want = one.compute()
    rng = random.Random(hash(name) % 1000)
    for parts in sorted({1, 2, rng.randint(3, 8), 8}):
        cuts = sorted(rng.sample(range(1, N), parts - 1)) if parts > 1 else []
        bounds = list(zip([0] + cuts, cuts + [N]))
        shards = [cah_metrics.load(name).update(**part(d, lo, hi)) for lo, hi in bounds]
        merged = shards[0]
        for s in shards[1:]: merged = merged + s
        assert_same(merged.compute(), want)
        if not has_list_state(one):                               # an order-free state merges in any order
            rng.shuffle(shards)
            acc = cah_metrics.load(name)
            for s in shards: acc.merge(s)
            assert_same(acc.compute(), want)
    assert_same(cah_metrics.load(name).compute(**d), want)        # one call, HF evaluate's form


@pytest.mark.parametrize('name', NAMES)
def test_state_dict_json_round_trip(name):
    d = dataset(name, seed=1)
    for keep in (False, True):
        m = cah_metrics.load(name, keep_items=keep).update(**d)
        saved = json.loads(json.dumps(m.state_dict()))
        back = cah_metrics.load(name, keep_items=keep).load_state_dict(saved)
        assert_same(back.compute(), m.compute(), tol=0.0)
        if keep: assert json.dumps(back.state_dict()) == json.dumps(m.state_dict())


def other_options(name):
    "An option that changes the number, for the merge-refusal test."
    cls, fixed = metric_class(name)
    alt = {'bleu': {'smooth': 'floor'}, 'sentence_bleu': {'smooth': 'floor'}, 'top_k_accuracy': {'k': 2}, 'perplexity': {'base': 2},
           'distinct_n': {'n': 2}, 'self_bleu': {'max_n': 2}, 'vocabulary_richness': {'window': 50}, 'semantic_diversity': {'seed': 1},
           'bertscore': {'idf': True}, 'code_mixing_coverage': {'detector': 'script'},
           'chrf': {'beta': 3}, 'chrf++': {'beta': 3}, 'mauve': {'seed': 1},
           'cider': {'sigma': 3}, 'ter': {'case_sensitive': True}}
    alt.update(dict.fromkeys(('wer', 'cer', 'mer', 'wil'), {'lowercase': True}))   # issue 33: the edit rates
    if name.startswith('rouge'): return {'stem': True}
    if name == 'lm_perplexity':
        from cah_metrics.lm import KneserNeyLM
        return {'model': KneserNeyLM().fit(cards()[1])}
    if name == 'humor':
        from cah_metrics.humor import HumorEvaluator
        return {'evaluator': HumorEvaluator(encoder='cooccurrence')}
    return alt[name]


@pytest.mark.parametrize('name', NAMES)
def test_merging_different_options_names_the_option(name):
    d = part(dataset(name, n=12), 0, 12)
    a, b = cah_metrics.load(name).update(**d), cah_metrics.load(name, **other_options(name)).update(**d)
    differ = a.signature().diff(b.signature())
    assert differ
    with pytest.raises(ValueError) as e: a.merge(b)
    assert name.split('_')[0] in str(e.value) or a.name in str(e.value)
    for k in differ: assert repr(k) in str(e.value), (k, str(e.value))
    with pytest.raises(ValueError): a.load_state_dict(b.state_dict())


@pytest.mark.parametrize('name', NAMES)
def test_signature_as_used(name):
    cls, fixed = metric_class(name)
    m = cah_metrics.load(name)
    sig = m.signature()
    assert isinstance(sig, Signature) and sig.metric == m.name and sig.version == __version__
    assert str(sig).endswith(f"|version:{__version__}") and Signature.parse(str(sig)) == sig
    assert list(sig.options) == list(cls.signature_keys), (list(sig.options), cls.signature_keys)
    assert cah_metrics.load(name).signature() == sig                        # equal options, equal signature
    assert cah_metrics.load(name, **other_options(name)).signature() != sig   # other options, another signature
    import inspect
    if 'tokenizer' in inspect.signature(cls.__init__).parameters and 'tokenizer' not in fixed:
        mixed = cah_metrics.load(name, tokenizer=WhitespaceTokenizer()).signature().options
        lower = cah_metrics.load(name, tokenizer=WhitespaceTokenizer(lowercase=True)).signature().options
        assert (mixed['tok'], mixed['case'], lower['case']) == ('whitespace-v1', 'mixed', 'lc')
    if 'smooth' in inspect.signature(cls.__init__).parameters:
        assert cah_metrics.load(name, smooth='floor').signature().options['smooth'].startswith('floor')


@pytest.mark.parametrize('name', NAMES)
def test_bad_items_are_named(name):
    d = dataset(name, n=4)
    bad = dict(d)
    if name == 'top_k_accuracy': bad['predictions'] = [[0.1, 0.2]] * 4
    elif name == 'perplexity': bad['predictions'] = [[-0.1], [-0.2], ['x'], [-0.3]]
    else: bad['predictions'] = list(d['predictions'][:2]) + [None] + list(d['predictions'][3:])
    with pytest.raises((TypeError, ValueError)) as e: cah_metrics.load(name).update(**bad)
    msg = str(e.value)
    assert cah_metrics.load(name).name in msg or name in msg, msg
    assert 'predictions' in msg, msg
    if name not in ('top_k_accuracy',): assert '[2]' in msg, msg
    if 'references' in d and name not in ('top_k_accuracy', 'mauve'):      # MAUVE's two sets are unpaired by design
        with pytest.raises(ValueError) as e: cah_metrics.load(name).update(d['predictions'], d['references'][:-1])
        assert 'references' in str(e.value)


def test_registry_lists_every_metric_with_its_facts():
    infos = {i.name: i for i in cah_metrics.list_metrics()}
    want = {'bleu', 'sentence_bleu', 'rouge', 'rouge1', 'rouge2', 'rougeL', 'rougeLsum', 'top_k_accuracy', 'perplexity', 'lm_perplexity',
            'distinct_n', 'self_bleu', 'vocabulary_richness', 'semantic_diversity', 'bertscore', 'code_mixing_coverage', 'humor', 'chrf', 'chrf++', 'mauve',
            'wer', 'cer', 'mer', 'wil', 'ter', 'cider'}
    assert want <= set(infos), want - set(infos)
    for i in infos.values():
        assert i.summary and i.inputs[0] == 'predictions' and len(i.value_range) == 2 and i.keys and i.signature_keys, i
    with pytest.raises(ValueError, match="unknown metric 'bleurt'"): cah_metrics.load('bleurt')


def test_hf_evaluate_style_call():
    import sacrebleu
    preds = ["the cat is on the mat", "a dog barks loudly"]
    refs = [["there is a cat on the mat", "a cat is on the mat"], ["the dog barks", "a dog is barking"]]
    s = cah_metrics.load('bleu').compute(predictions=preds, references=refs)
    assert isinstance(s, Mapping) and set(cah_metrics.load('bleu').keys) <= set(s)
    sb = sacrebleu.corpus_bleu(preds, [[r[0] for r in refs], [r[1] for r in refs]])
    assert abs(s['bleu'] - sb.score / 100) < 1e-12 and abs(float(s) - s['bleu']) == 0
    assert dict(s)['translation_length'] == sb.sys_len and s['reference_length'] == sb.ref_len
