"""Fuzzing the public API (issue 14): every public function, class and method, and every registered metric.

Each target is called with arguments drawn by Hypothesis: for each parameter either a plausible value (chosen by the
parameter's name: texts, references, n-gram orders, weights ...) or junk (None, NaN and infinities, huge and negative
numbers, empty, huge and odd Unicode strings, bytes, nested and deeply nested lists, dicts, arrays with NaN, objects).
The promise checked: a call returns, or raises `TypeError`/`ValueError` whose message names what was wrong (one of
the junk arguments, the file, or the function/metric). Any other exception, a hang (over `TIMEOUT` seconds), or a
message that names nothing fails the test and prints the call.

Bounded by default (CI: 150 examples per target, a quarter of that for the model-backed ones; about two minutes on
2 cores); deeper with
`CAH_FUZZ_EXAMPLES=500 python -m pytest tests/test_fuzz.py` (or any number).
"""
import importlib, inspect, math, os, reprlib, signal, sys
from dataclasses import is_dataclass
from functools import lru_cache

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, settings, strategies as st

import cah_metrics
from cah_metrics.core import metric_class, Metric
from cah_metrics.io import InputError

EXAMPLES = int(os.environ.get('CAH_FUZZ_EXAMPLES', '150'))   # CI's bounded profile: about two minutes on 2 cores
TIMEOUT = int(os.environ.get('CAH_FUZZ_TIMEOUT', '30'))   # seconds per call: a hang is a failure
HEAVY_TIMEOUT = 4 * TIMEOUT     # the model-backed targets: a valid default call may run the whole main job (about 20 s on 2 idle cores)
MODULES = ['text', 'io', 'core', 'bleu', 'chrf', 'rouge', 'crossval', 'significance', 'topk', 'perplexity', 'corpora', 'lm', 'information', 'semantics',
           'embeddings', 'diversity', 'mauve', 'humor', 'puns', 'bertscore', 'cmc', 'agreement', 'ensemble', 'embedding_eval', 'evaluate', 'distributed', 'cli']
HEAVY = {'bertscore', 'semantic_diversity', 'humor', 'Encoder', 'encode', 'bert_score', 'load_encoder', 'HumorEvaluator',
         'rank_answers', 'write_humor_outputs', 'humor_summary', 'humor_outputs', 'load_transformer', 'Semantics',
         'diversity_with_fallback', 'EnsembleEvaluator', 'mauve', 'MAUVE', 'embed'}
SKIP = {('cli', 'main'),}     # the CLI is driven through its own tests (tests/test_cli.py) with real files
ABSTRACT = {'Tokenizer', 'Metric'}   # base classes: their methods are the subclasses' to define

# ---- values -------------------------------------------------------------------------------------------------------
WORDS = ['the', 'cat', 'sat', 'a', 'Ünïcödé', 'кот', '猫', '🍕', 'naïve', "don't", '', ' ', '\t\n', 'x' * 300]
word = st.sampled_from(WORDS)
text = st.lists(word, min_size=0, max_size=8).map(' '.join)
texts3 = st.lists(text, min_size=3, max_size=3)
refs3 = st.lists(st.one_of(text, st.lists(text, min_size=1, max_size=3)), min_size=3, max_size=3)
tokens = st.lists(word.filter(bool), min_size=0, max_size=10)

def deep(n):            # a list nested n deep: [[[...]]]
    v = 'x'
    for _ in range(n): v = [v]
    return v

JUNK = st.one_of(
    st.none(), st.booleans(), st.integers(-2**70, 2**70), st.sampled_from([0, -1, 10**9, 2**63]),
    st.floats(allow_nan=True, allow_infinity=True), st.sampled_from([math.nan, math.inf, -math.inf, -0.0, 1e308]),
    st.text(max_size=20), st.sampled_from(['', '\x00', '\ud800', 'a' * 200_000, '../../..', 'no_such_file.jsonl']),
    st.binary(max_size=10), st.lists(st.one_of(st.none(), st.integers(), st.floats(), st.text(max_size=5)), max_size=4),
    st.just(deep(3)), st.builds(deep, st.just(5000)), st.dictionaries(st.text(max_size=5), st.integers(), max_size=3),
    st.tuples(st.integers(), st.text(max_size=3)), st.just(np.array([[np.nan, 1.0], [np.inf, -1.0]])),
    st.just(np.zeros((0,))), st.just(object()), st.builds(lambda: [[]]), st.builds(list), st.builds(dict),
)

VALID = {   # a plausible value for a parameter of this name
    **dict.fromkeys(['text', 'hypothesis', 'summary', 'sentence', 'context', 'reference', 'word', 'candidate_text'], text),
    **dict.fromkeys(['texts', 'predictions', 'hypotheses', 'contexts', 'sources', 'corpus', 'cards', 'answers',
                     'prompts', 'candidates', 'cands'], texts3),
    **dict.fromkeys(['references', 'refs'], refs3),
    **dict.fromkeys(['tokens', 'candidate', 'words', 'hyp'], tokens),
    **dict.fromkeys(['n', 'max_n', 'orders', 'order', 'k', 'window', 'min_len', 'n_boot', 'batch_size', 'draws',
                     'n_texts', 'min_count', 'top', 'n_prompts', 'layer'], st.integers(1, 5)),
    **dict.fromkeys(['seed'], st.integers(0, 2**31)),
    **dict.fromkeys(['base'], st.sampled_from([2, math.e, 10])),
    **dict.fromkeys(['confidence', 'threshold', 'alpha', 'gamma', 'q', 'beta'], st.floats(0.05, 0.95)),
    **dict.fromkeys(['lowercase', 'keep_items', 'effective_order', 'stem', 'idf', 'progress', 'use_gpu'], st.booleans()),
    'weights': st.lists(st.floats(0, 1), min_size=4, max_size=4),
    'smooth': st.sampled_from(['none', 'floor', 'add-k', 'exp', 'method1', 'method3', 'method5', 'method7']),
    'tokenizer': st.sampled_from(['13a', 'none', 'whitespace', 'words', None]),
    'rouge_types': st.sampled_from([['rouge1'], ['rouge2', 'rougeL'], ['rougeLsum']]),
    'rouge_type': st.sampled_from(['rouge1', 'rougeL']),
    **dict.fromkeys(['name', 'metric'], st.sampled_from(['text', 'BLEU', 'predictions[0]'])),   # the validators' labels
}

def value_for(name):
    "A strategy for parameter `name`: mostly plausible where we know the name, else junk."
    return st.one_of(VALID[name], VALID[name], JUNK) if name in VALID else JUNK

# ---- targets ------------------------------------------------------------------------------------------------------
def _is_record(cls):
    "A plain record (dataclass / NamedTuple / exception / str or dict subclass): its constructor validates nothing."
    return (is_dataclass(cls) and '__init__' not in cls.__dict__) or hasattr(cls, '_fields') or issubclass(cls, BaseException)

@lru_cache(maxsize=None)
def targets():
    out = []
    for m in MODULES:
        mod = importlib.import_module(f'cah_metrics.{m}')
        for name in getattr(mod, '__all__', []):
            obj = getattr(mod, name)
            if (m, name) in SKIP or getattr(obj, '__module__', '').split('.')[0] != 'cah_metrics': continue
            if inspect.isclass(obj):
                if not _is_record(obj): out.append((m, name, None))
                for meth, f in vars(obj).items():
                    if not meth.startswith('_') and callable(f) and not isinstance(f, (staticmethod, classmethod)):
                        out.append((m, name, meth))
            elif callable(obj): out.append((m, name, None))
    return out

@lru_cache(maxsize=None)
def instance(m, name):
    "A default-constructed instance to call methods on (None when the class needs arguments)."
    cls = getattr(importlib.import_module(f'cah_metrics.{m}'), name)
    if name in ABSTRACT: return None
    try: return cls()
    except Exception: return None

def params(f):
    try: sig = inspect.signature(f)
    except (TypeError, ValueError): return []
    return [p for p in sig.parameters.values() if p.name not in ('self', 'cls')
            and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]

# ---- the check ----------------------------------------------------------------------------------------------------
class Hang(Exception): pass

def _alarm(*_): raise Hang()

def call_checked(label, f, kwargs, junk, names, shown=None, timeout=TIMEOUT) -> str|None:
    "Call `f(**kwargs)`: None if it returns or raises a TypeError/ValueError naming what was wrong, else what went wrong."
    old = signal.signal(signal.SIGALRM, _alarm); signal.alarm(timeout)
    shown = kwargs if shown is None else shown
    labels = [v for k, v in shown.items() if k in ('name', 'metric') and isinstance(v, str) and v]   # a validator names what its caller calls the value
    try: f(**kwargs)
    except Hang: return f"{label}: no answer within {timeout} s for {short(shown)}"
    except (TypeError, ValueError) as e:
        msg = str(e)
        if isinstance(e, UnicodeError) and not any(n in msg for n in junk):
            return f"{label}: raw {type(e).__name__} {msg[:200]!r} for {short(shown)}"
        if not isinstance(e, InputError) and not any(n in msg for n in [*junk, *names, *labels]):   # an InputError names its file:line
            return f"{label}: {type(e).__name__} {msg[:200]!r} names none of {sorted(junk) or names} for {short(shown)}"
    except RecursionError as e: return f"{label}: RecursionError for {short(shown)}"
    except Exception as e: return f"{label}: {type(e).__name__}: {str(e)[:200]!r} for {short(shown)}"
    finally:
        signal.alarm(0); signal.signal(signal.SIGALRM, old)
    return None

def fuzz(heavy, strategy, one_call):
    "Run `one_call(example) -> failure or None` over examples of `strategy`; fail once at the end with each distinct failure."
    failures = {}
    @_settings(heavy)
    @given(strategy)
    def run(example):
        bad = one_call(example)
        if bad: failures.setdefault(bad.split(' for ')[0][:120], bad)
    run()
    if failures: pytest.fail(f"{len(failures)} kind(s) of failure:\n" + '\n'.join(failures.values()), pytrace=False)

_REPR = reprlib.Repr()
_REPR.maxlevel, _REPR.maxstring, _REPR.maxother, _REPR.maxlist = 4, 40, 40, 4

def short(kwargs):
    def s(v):
        r = _REPR.repr(v)
        return r if len(r) <= 60 else r[:57] + '...'
    return '{' + ', '.join(f'{k}={s(v)}' for k, v in kwargs.items()) + '}'

def kwargs_for(ps):
    "A strategy of keyword arguments: every required parameter, and any subset of the optional ones."
    req = {p.name: value_for(p.name) for p in ps if p.default is p.empty}
    opt = {p.name: value_for(p.name) for p in ps if p.default is not p.empty}
    return st.fixed_dictionaries(req, optional=opt)

def _settings(heavy): return settings(max_examples=max(2, EXAMPLES // 4) if heavy else EXAMPLES, deadline=None, derandomize=True,
                                      suppress_health_check=list(HealthCheck), database=None, phases=[Phase.generate])

@pytest.fixture(scope='module', autouse=True)
def _warm():
    "Import the model stack once, outside any alarm: an import cut short by the hang timer would break it for later tests."
    import transformers, sentence_transformers
    transformers.BertModel, transformers.PreTrainedModel

@pytest.fixture(autouse=True)
def _in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)      # a junk path that is valid writes here, never into the repository

@pytest.mark.parametrize('target', targets(), ids=lambda t: '.'.join(x for x in t if x))
def test_public_api(target):
    m, name, meth = target
    obj = getattr(importlib.import_module(f'cah_metrics.{m}'), name)
    if meth is None: f, label = obj, f'{m}.{name}'
    else:
        inst = instance(m, name)
        if inst is None: pytest.skip(f'{name}() is abstract or needs arguments')
        f, label = getattr(inst, meth), f'{m}.{name}.{meth}'
    ps = params(f)
    heavy = name in HEAVY or meth in HEAVY
    def one(kwargs): return call_checked(label, f, kwargs, set(kwargs), [name, meth or name, m], timeout=HEAVY_TIMEOUT if heavy else TIMEOUT)
    fuzz(heavy, kwargs_for(ps), one)

# ---- registered metrics: options and inputs ----------------------------------------------------------------------
METRICS = [i.name for i in cah_metrics.list_metrics()]

@pytest.mark.parametrize('metric', METRICS)
def test_registered_metric(metric):
    cls, defaults = metric_class(metric)
    init_ps = [p for p in params(cls.__init__) if p.name not in defaults]
    opt_ps = [p.replace(default=None) if p.default is p.empty else p for p in init_ps]
    def one(ex):
        opts, inputs = ex
        def go():
            mt = cah_metrics.load(metric, **opts)
            mt.update(**inputs)
            mt.compute()
        return call_checked(f'load({metric!r})', go, {}, [*opts, *inputs], [metric], shown={**opts, **inputs},
                            timeout=HEAVY_TIMEOUT if metric in HEAVY else TIMEOUT)
    fuzz(metric in HEAVY, st.tuples(kwargs_for(opt_ps), st.fixed_dictionaries({k: value_for(k) for k in cls.inputs})), one)
