"""cah_metrics.distributed (issue 20): evaluation on Dask, checked against one pass.

- every registered metric, on real text (the main game's prompts filled with answers) in uneven shards with empty ones,
  locally and on a `distributed.LocalCluster` of two worker processes (one thread each, loopback): the report equals
  `score_dataset`'s (or the metric's `compute` for non-text inputs): integer statistics bit for bit, float sums to
  1e-12; model-backed metrics on a few texts (semantic diversity to 1e-5: its vectors depend on the batch); humor is
  refused as `score_dataset` refuses it (it needs contexts);
- model-backed metrics build their metric and load their model once per worker process (BERTScore's `_load` cache,
  the module's `BUILDS` counter, `embeddings.shared_encoder`'s cache, read on every worker);
- metrics defined in this file (registered here, not in the registry's table) get the bootstrap, the
  paired test and `evaluate` on the cluster from their contract alone (issue 32);
- Distinct-n and Self-BLEU come from bucketed count tables, exactly, for any number of buckets; no partial holds text;
- ROUGE's partial is a count table whose size does not follow the number of items;
- the Poisson bootstrap decomposes exactly over partitions, its intervals on the cluster equal the one-process Poisson
  bootstrap and are close to the multinomial one; paired tests pair items by id across partitions;
- a malformed shard stops the run with the shard and line, and nothing is written; a worker killed mid-run is replaced
  and the result is unchanged;
- `import cah_metrics.distributed` does not import Dask.
"""
import json, logging, math, os, pickle, random, signal, subprocess, sys, threading, time
from collections import Counter
from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest

from cah_metrics.core import Metric, Score, StateReduction, bucket_of, list_metrics, load, register
from cah_metrics.corpora import default_pack
from cah_metrics.evaluate import metric_options, report_entry, score_dataset
from cah_metrics.io import InputError
from cah_metrics.significance import bootstrap, paired_bootstrap
import cah_metrics.distributed as D

distributed = pytest.importorskip('distributed')

TEXT_METRICS = ['bleu', 'chrf', 'chrf++', 'cider', 'rouge', 'rouge1', 'rouge2', 'rougeL', 'rougeLsum', 'sentence_bleu', 'distinct_n', 'self_bleu',
                'vocabulary_richness', 'lm_perplexity', 'code_mixing_coverage',
                'wer', 'cer', 'mer', 'wil', 'ter']
NUMERIC = ['top_k_accuracy', 'perplexity']
MODELS = ['bertscore', 'mauve', 'semantic_diversity']
REFUSED = {'humor': "humor: needs contexts, which a predictions/references dataset does not have"}
SIZES = [7, 120, 0, 1, 90, 0, 82]


# ---- data ---------------------------------------------------------------------------------------------------------
@lru_cache(maxsize=None)
def _cards():
    pack = default_pack()
    return [p['template'].replace('\n', ' ') for p in pack.prompts if p['slots'] == 1], [a['text'].rstrip('.') for a in pack.answers]

def card_items(n, seed=0, keep=0.5, system=None, noise=None):
    "n records: a prompt filled with an answer (the reference; `seed` picks them), a prediction keeping it with probability `keep`."
    prompts, answers = _cards()
    rng, noisy = random.Random(seed), random.Random(seed + 1 if noise is None else noise)
    out = []
    for i in range(n):
        t, a = prompts[i % len(prompts)], rng.choice(answers)
        out.append({'id': f"item{i}", 'prediction': t.replace('{}', a if noisy.random() < keep else noisy.choice(answers)),
                    'references': [t.replace('{}', a)], 'source': t.replace('{}', '___'), **({'system': system} if system else {})})
    return out

def write_shards(folder, records, sizes, fmt='jsonl'):
    folder = Path(folder); folder.mkdir(parents=True, exist_ok=True); paths, s = [], 0
    for i, k in enumerate(sizes):
        p = folder / f"shard-{i:03d}.{fmt}"
        if fmt == 'jsonl': p.write_text(''.join(json.dumps(r) + '\n' for r in records[s:s + k]))
        else:
            import pyarrow as pa, pyarrow.parquet as pq
            pq.write_table(pa.Table.from_pylist(records[s:s + k], schema=pa.Table.from_pylist(records[:1]).schema), p)
        paths.append(p); s += k
    assert s == len(records)
    return paths

def columns(records):
    return {'predictions': [r['prediction'] for r in records], 'references': [r['references'] for r in records],
            'sources': [r['source'] for r in records]}

def numeric_columns(n=300):
    return {'top_k_accuracy': {'predictions': np.random.default_rng(0).random((n, 5)).tolist(), 'references': np.random.default_rng(1).integers(0, 5, n).tolist()},
            'perplexity': {'predictions': [(-np.random.default_rng(i).exponential(2.0, 3 + i % 9)).tolist() for i in range(n)]}}

def one_pass(names, cols, options=None):
    "The one-process report (`score_dataset`, or each metric's `compute` for inputs that are not texts)."
    if isinstance(cols['predictions'][0], str): return score_dataset(cols['predictions'], cols.get('references'), cols.get('sources'), names, options)[0]
    report, sigs, details = {}, {}, {}
    for name in names:
        numbers, sigs[name], details[name] = report_entry(name, load(name, **metric_options(name, options)).compute(cols['predictions'], cols.get('references')))
        report.update(numbers)
    return {**report, 'n_examples': len(cols['predictions']), 'signatures': sigs, 'details': details}

def same(a, b, eps=1e-12, path='report'):
    "Equal reports: ints, str, bools exactly; floats to `eps` (relative beyond 1)."
    if isinstance(a, dict):
        assert isinstance(b, dict) and a.keys() == b.keys(), (path, sorted(a), sorted(b))
        for k in a: same(a[k], b[k], eps, f"{path}.{k}")
    elif isinstance(a, list):
        assert isinstance(b, list) and len(a) == len(b), path
        for i, (x, y) in enumerate(zip(a, b)): same(x, y, eps, f"{path}[{i}]")
    elif isinstance(a, float) and not isinstance(b, bool): assert abs(a - b) <= eps * max(1.0, abs(b)), (path, a, b)
    else: assert a == b and type(a) == type(b), (path, a, b)

@pytest.fixture(scope='module')
def items(): return card_items(300)

@pytest.fixture(scope='module')
def shards(tmp_path_factory, items): return write_shards(tmp_path_factory.mktemp('cards'), items, SIZES)

@pytest.fixture(scope='module')
def client():
    from distributed import Client, LocalCluster
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None, host='127.0.0.1',
                      silence_logs=logging.CRITICAL) as cluster, Client(cluster) as c:
        yield c


# ---- every registered metric ----------------------------------------------------------------------------------------
def test_every_registered_metric_is_covered():
    assert sorted(TEXT_METRICS + NUMERIC + MODELS + list(REFUSED)) == sorted(i.name for i in list_metrics())

def test_text_metrics_locally(shards, items):
    "Threads of this process, uneven JSON Lines shards with empty ones: `score_dataset`'s report."
    want = one_pass(TEXT_METRICS, columns(items))
    same(D.evaluate(shards, TEXT_METRICS), want)
    exact = [m for m in TEXT_METRICS if m not in ('sentence_bleu', 'lm_perplexity', 'code_mixing_coverage')]   # float sums: to rounding
    assert D.evaluate(shards, exact) == one_pass(exact, columns(items))
    assert D.evaluate(shards, ['rouge', 'rougeLsum'], options={'n_boot': 0}) == one_pass(['rouge', 'rougeLsum'], columns(items), {'n_boot': 0})   # from the table, unexpanded

def test_numeric_inputs_and_refused_locally():
    for name, cols in numeric_columns().items():
        same(D.evaluate(cols, name, partitions=SIZES), one_pass([name], cols))
    for name, msg in REFUSED.items():
        with pytest.raises(ValueError, match=msg): D.evaluate({'predictions': ['a']}, name)

def test_local_processes(shards, items):
    "workers=2 without a client: a pool of two local processes."
    same(D.evaluate(shards, ['bleu', 'rougeL', 'distinct_n', 'self_bleu'], workers=2), one_pass(['bleu', 'rougeL', 'distinct_n', 'self_bleu'], columns(items)))

def test_text_metrics_on_cluster(client, shards, items, tmp_path):
    same(D.evaluate(shards, TEXT_METRICS, client=client), one_pass(TEXT_METRICS, columns(items)))
    assert D.evaluate(shards, ['bleu', 'distinct_n'], client=client.scheduler.address, workers=2) == one_pass(['bleu', 'distinct_n'], columns(items))   # by address
    pq = write_shards(tmp_path / 'pq', items, [150, 0, 150], 'parquet')
    assert D.evaluate(pq, ['bleu', 'chrf', 'rougeL'], client=client, buckets=2) == one_pass(['bleu', 'chrf', 'rougeL'], columns(items))

def test_one_string_reference_stays_a_string(client, tmp_path, items):
    "A shard whose references are single strings: kept as strings (the metrics' fast path), the same report as lists of one."
    flat = [{**r, 'references': r['references'][0]} for r in items]
    for fmt in ('jsonl', 'parquet'):
        paths = write_shards(tmp_path / fmt, flat, [100, 200], fmt)
        part = D.read_shard(paths[0])
        assert part.references == [r['references'] for r in flat[:100]] and all(isinstance(r, str) for r in part.references)
        want = one_pass(['bleu', 'chrf', 'rougeL', 'ter', 'wer'], columns(items))
        assert D.evaluate(paths, ['bleu', 'chrf', 'rougeL', 'ter', 'wer'], client=client) == want

def test_task_memory_on_a_nanny_worker(client, shards, items):
    "A nanny's worker has MALLOC_TRIM_THRESHOLD_ set: its partition tasks keep freed memory while they run, then hand it back."
    assert set(client.run(lambda: os.environ.get('MALLOC_TRIM_THRESHOLD_')).values()) == {'65536'}
    assert D.evaluate(shards, ['bleu', 'rougeL'], client=client) == one_pass(['bleu', 'rougeL'], columns(items))
    assert set(client.run(lambda: (D._glibc_settings() is not None, D._GLIBC_KEEPS.tasks)).values()) == {(sys.platform.startswith('linux'), 0)}

def test_task_memory_without_the_setting(monkeypatch):
    monkeypatch.delenv('MALLOC_TRIM_THRESHOLD_', raising=False)
    assert D._glibc_settings() is None
    for value in ('lots', '-1', str(2**31)):
        monkeypatch.setenv('MALLOC_TRIM_THRESHOLD_', value)
        assert D._glibc_settings() is None        # not a C int: left to glibc's own reading
    monkeypatch.setenv('MALLOC_TRIM_THRESHOLD_', '65536')
    with D._task_memory():
        with D._task_memory(): assert D._GLIBC_KEEPS.tasks == (2 if D._glibc_settings() else 0)
    assert D._GLIBC_KEEPS.tasks == 0
    with pytest.raises(ZeroDivisionError):
        with D._task_memory(): 1 / 0
    assert D._GLIBC_KEEPS.tasks == 0

def test_bag_and_dataframe_on_cluster(client, tmp_path, items):
    import dask.bag as db, dask.dataframe as dd
    for name, cols in numeric_columns().items():
        recs = [{'prediction': p, **({'reference': cols['references'][i]} if 'references' in cols else {})} for i, p in enumerate(cols['predictions'])]
        same(D.evaluate(db.from_sequence(recs, npartitions=5), name, client=client), one_pass([name], cols))
    pq = write_shards(tmp_path / 'pq', items, [100, 200], 'parquet')
    assert D.evaluate(dd.read_parquet([str(p) for p in pq]), ['bleu', 'rougeL'], client=client) == one_pass(['bleu', 'rougeL'], columns(items))

def test_model_metrics_once_per_worker(client, items):
    "BERTScore, MAUVE and semantic diversity on 24 texts; on the cluster every worker builds each metric and loads each model once."
    cols = {k: v[:24] for k, v in columns(items).items()}
    same(D.evaluate(cols, 'bertscore', partitions=[5, 0, 11, 8]), one_pass(['bertscore'], cols))
    mcols = {'predictions': cols['predictions'], 'references': [r[0] for r in cols['references']]}
    same(D.evaluate(mcols, 'mauve', partitions=[5, 0, 11, 8]), one_pass(['mauve'], mcols))
    rep = D.evaluate(cols, ['bertscore', 'semantic_diversity'], client=client, partitions=[3, 3, 3, 3, 3, 3, 6])
    same(rep['details']['bertscore'], one_pass(['bertscore'], cols)['details']['bertscore'])
    same(rep['details']['semantic_diversity'], one_pass(['semantic_diversity'], cols)['details']['semantic_diversity'], eps=1e-5)
    loads = client.run(lambda: __import__('cah_metrics.bertscore', fromlist=['_load'])._load.cache_info().misses)
    builds = client.run(lambda: dict(__import__('cah_metrics.distributed', fromlist=['BUILDS']).BUILDS))
    embeddings = lambda: __import__('cah_metrics.embeddings', fromlist=['shared_encoder'])
    encoders = client.run(lambda: embeddings().shared_encoder.cache_info().misses)
    assert set(loads.values()) == {1}, loads
    assert set(encoders.values()) == {1}, encoders
    for b in builds.values():
        assert b['bertscore:{}'] == 1, b
    vec = D.embed(cols['predictions'], client=client, partitions=4)
    from cah_metrics.embeddings import get_encoder
    assert vec.shape == (24, 384) and np.abs(vec - get_encoder().encode(cols['predictions'])).max() < 1e-5


# ---- count tables ---------------------------------------------------------------------------------------------------
def test_distinct_and_self_bleu_from_count_tables(tmp_path):
    recs = card_items(600, seed=7)
    paths = write_shards(tmp_path, recs, [90, 0, 200, 10, 150, 149, 1])
    preds = [r['prediction'] for r in recs]
    for opts in ({}, {'smooth': 'method1', 'max_n': 2}, {'smooth': 'method5'}):
        want = score_dataset(preds, metrics=['self_bleu'], options=opts)[0]
        for K in (1, 4, 9): assert D.evaluate(paths, 'self_bleu', options=opts, buckets=K) == want, (opts, K)
    for n in (1, 3):
        want = score_dataset(preds, metrics=['distinct_n'], options={'n': n})[0]
        for K in (1, 5): assert D.evaluate(paths, 'distinct_n', options={'n': n}, buckets=K) == want

def test_partials_hold_no_text(items):
    "What a partition sends for Self-BLEU and Distinct-n: counts and hashed keys, never a token or a text."
    part = D.part_from_records(items[:50])
    pairs = D._specs(['self_bleu', 'distinct_n', 'bleu'], None, False, 'test')
    run = D._Run(tuple(s for s, _ in pairs), tuple(m.reduction() for _, m in pairs), 3, {}, 10, 0)
    out = D._partition_results(part, run)
    main = out['main'][None]['metrics']
    assert set(main['self_bleu']) == {'N', 'lens'} and set(main['distinct_n']) == {'n', 'total', 'ratios'}
    for k in range(3):
        for table in out['buckets']['self_bleu'][k][None]:
            assert all(isinstance(a, np.ndarray) and a.dtype.kind in 'iu' for a in table)
    words = {w for r in items[:50] for w in r['prediction'].lower().split()}
    blob = pickle.dumps((main['self_bleu'], main['bleu'], [out['buckets']['self_bleu'][k] for k in range(3)]))
    assert not any(w.encode() in blob for w in words if len(w) > 6)

def test_rouge_partial_is_a_count_table():
    recs = card_items(3000, seed=4)
    pairs = D._specs(['rougeL'], None, False, 'test')
    run = D._Run((pairs[0][0],), (pairs[0][1].reduction(),), 1, {}, 10, 0)
    u, c = D._partition_results(D.part_from_records(recs), run)['main'][None]['metrics']['rougeL']['rougeL']
    assert c.sum() == 3000 and len(u) < 1500


# ---- bootstrap ------------------------------------------------------------------------------------------------------
def test_poisson_bootstrap_decomposes():
    S = np.random.default_rng(0).integers(0, 50, (3000, 9))
    keys = D.item_keys([f"x{i}" for i in range(3000)])
    whole = D.poisson_resampled_sums(S, keys, 200, seed=3)
    cuts = [0, 1, 1, 1500, 2999, 3000]
    assert (sum(D.poisson_resampled_sums(S[a:b], keys[a:b], 200, seed=3) for a, b in zip(cuts, cuts[1:])) == whole).all()
    perm = np.random.default_rng(2).permutation(3000)
    assert (D.poisson_resampled_sums(S[perm], keys[perm], 200, seed=3) == whole).all()
    w = D.poisson_weights(D.item_keys(n=4000), 250, seed=9).ravel()
    assert abs(w.mean() - 1) < 0.01 and abs(w.var() - 1) < 0.01

def test_intervals_on_cluster(client, tmp_path):
    recs = card_items(600, seed=7)
    paths = write_shards(tmp_path, recs, [90, 0, 200, 10, 150, 149, 1])
    P, R, I = [r['prediction'] for r in recs], [r['references'] for r in recs], [r['id'] for r in recs]
    rep = D.evaluate(paths, ['bleu', 'chrf', 'rougeL', 'self_bleu'], client=client, intervals=True, n_resamples=400)
    for name in ('bleu', 'chrf'): assert rep['intervals'][name] == D.poisson_bootstrap(name, P, R, I, n_resamples=400).to_dict()
    one = D.poisson_bootstrap('rougeL', P, R, I, n_resamples=400).to_dict()
    same({k: rep['intervals']['rougeL'][k] for k in ('low', 'high', 'mean')}, {k: one[k] for k in ('low', 'high', 'mean')})
    assert 'self_bleu' not in rep['intervals'] and any(n.startswith('self_bleu: no interval') for n in rep['notes'])
    mult = bootstrap('bleu', P, R, n_resamples=2000)
    pois = D.poisson_bootstrap('bleu', P, R, I, n_resamples=2000)
    width = mult.high - mult.low
    assert abs(pois.low - mult.low) < 0.1 * width and abs(pois.high - mult.high) < 0.1 * width

def test_paired_on_cluster(client, tmp_path):
    recs = card_items(200, seed=1, keep=0.3, system='A', noise=10) + card_items(200, seed=1, keep=0.6, system='B', noise=11)
    random.Random(3).shuffle(recs)
    paths = write_shards(tmp_path / 'sys', recs, [100, 0, 250, 50])
    rep = D.evaluate(paths, ['bleu', 'chrf'], client=client, baseline='A', n_resamples=300)
    cols = {'predictions': [r['prediction'] for r in recs], 'references': [r['references'] for r in recs], 'ids': [r['id'] for r in recs],
            'systems': [r['system'] for r in recs]}
    assert D.evaluate(cols, ['bleu', 'chrf'], baseline='A', n_resamples=300, partitions=1)['paired'] == rep['paired']
    assert rep['paired']['bleu']['systems'][0]['name'] == 'B' and rep['paired']['bleu']['systems'][0]['p_value'] < 0.01
    for s in 'AB':
        mine = sorted((r for r in recs if r['system'] == s), key=lambda r: int(r['id'][4:]))
        assert {k: v for k, v in rep['systems'][s].items() if k != 'intervals'} == score_dataset(
            [r['prediction'] for r in mine], [r['references'] for r in mine], metrics=['bleu', 'chrf'])[0]
    short = write_shards(tmp_path / 'short', recs[:-1], [399])
    with pytest.raises(ValueError, match="does not have the baseline"): D.evaluate(short, 'bleu', client=client, baseline='A')


# ---- issue 32: a metric from the contract alone --------------------------------------------------
def contract_metrics():
    "Two metrics known by their contract alone (local classes: workers get them by value)."
    class ExactMatch(Metric):
        "The share of predictions equal to one of their references: a plain sum of per-item hits."
        name, summary = 'test_exact_match', 'predictions equal to one of their references'
        inputs, keys = ('predictions', 'references'), ('rate', 'hits')
        def empty_state(self): return {'n': 0, 'hits': 0}
        def item_statistics(self, predictions, references=None):
            refs = [[r] if isinstance(r, str) else r for r in references]
            return {'hits': np.array([p in r for p, r in zip(predictions, refs)], np.int64)}
        def score_state(self, state):
            rate = state['hits'] / state['n'] if state['n'] else 0.0
            return Score({'rate': rate, 'hits': state['hits']}, self.signature(), n=state['n'])

    class LastWordBuckets(StateReduction):
        "Distinct last words across workers: sets merged in hashed buckets, which send their sizes."
        stages = 1
        def local(self, metric, predictions, inputs, context):
            state = super().local(metric, predictions, inputs, context)
            pieces = [set() for _ in range(context.buckets)]
            for word in state['words']: pieces[bucket_of((word,), context.buckets)].add(word)
            return {'n': state['n']}, pieces
        def bucket_merge(self, payloads): return set().union(*payloads)
        def bucket_final(self, payload, context): return len(payload)
        def score(self, metric, payload, finals):
            distinct = sum(f or 0 for f in finals)
            return Score({'distinct': distinct}, metric.signature(), n=payload['n'])
        def warm(self, metric, context): os.environ['CAH_TEST_WARMED'] = metric.name

    class DistinctLastWords(Metric):
        "How many distinct last words the predictions have; it says it loads a model (to warm)."
        name, summary, inputs = 'test_distinct_last_words', 'distinct last words', ('predictions',)
        keys, value_range, loads_model = ('distinct',), (0.0, math.inf), True
        def empty_state(self): return {'n': 0, 'words': Counter()}
        def item_statistics(self, predictions, references=None):
            return {'last': [p.split()[-1:] for p in predictions]}
        def reduce_items(self, stats):
            words = Counter(w for ws in stats['last'] for w in ws)
            return {'n': len(stats['last']), 'words': words}
        def score_state(self, state):
            return Score({'distinct': len(state['words'])}, self.signature(), n=state['n'])
        def reduction(self): return LastWordBuckets()

    return ExactMatch, DistinctLastWords

@pytest.fixture
def contract_classes():
    "The two metrics, registered by name from this module for the test (and only for it)."
    from cah_metrics.core import _REGISTERED
    classes = contract_metrics()
    for cls in classes: register()(cls)
    try: yield classes
    finally:
        for cls in classes: _REGISTERED.pop(cls.name, None)

def details(score):
    "What a report's `details` holds of a score."
    return {k: v for k, v in score.to_dict().items() if k not in ('signature', 'n')}

def test_a_metric_from_the_contract_alone(client, contract_classes, tmp_path):
    Exact, Last = contract_classes
    recs = (card_items(300, seed=2, keep=0.5, system='A', noise=20)
            + card_items(300, seed=2, keep=0.7, system='B', noise=21))
    col = lambda s, f: [r[f] for r in recs if r['system'] == s]
    PA, PB = col('A', 'prediction'), col('B', 'prediction')
    R, I = col('A', 'references'), col('A', 'id')                   # the same items in both systems
    both = lambda P: {'test_exact_match': details(Exact().compute(P, R)),
                      'test_distinct_last_words': details(Last().compute(P))}
    # one process, by registry name: the bootstrap and the paired test
    b = bootstrap('test_exact_match', PA, R, n_resamples=300)
    assert b.score == Exact().compute(PA, R)['rate'] and b.low < b.score < b.high
    pb = paired_bootstrap('test_exact_match', PA, {'B': PB}, R, n_resamples=300)
    assert pb.systems[0].score == Exact().compute(PB, R)['rate'] and pb.systems[0].p_value < 0.01
    # distributed, in this process, by registry name
    names = ['test_exact_match', 'test_distinct_last_words']
    cols = {'predictions': PA, 'references': R, 'ids': I}
    rep = D.evaluate(cols, names, partitions=[100, 0, 150, 50], intervals=True, n_resamples=200,
                     buckets=3)
    assert rep['details'] == both(PA)
    want = D.poisson_bootstrap(Exact(), PA, R, I, n_resamples=200).to_dict()
    assert rep['intervals']['test_exact_match'] == want
    assert any(n.startswith('test_distinct_last_words: no interval') for n in rep['notes'])
    # on the cluster, as objects: two systems paired by id across shards, the "model" warmed
    random.Random(4).shuffle(recs)
    paths = write_shards(tmp_path, recs, [150, 0, 250, 200])
    on = D.evaluate(paths, [Exact(), Last()], client=client, baseline='A', n_resamples=200,
                    buckets=4)
    assert on['systems']['A']['details'] == both(PA) and on['systems']['B']['details'] == both(PB)
    field = lambda f: [r[f] for r in recs]
    here = {'predictions': field('prediction'), 'references': field('references'),
            'ids': field('id'), 'systems': field('system')}
    one = D.evaluate(here, [Exact(), Last()], baseline='A', n_resamples=200, partitions=1)
    assert one['paired'] == on['paired']
    assert on['paired']['test_exact_match']['systems'][0]['p_value'] < 0.01
    warmed = client.run(lambda: os.environ.get('CAH_TEST_WARMED'))
    assert set(warmed.values()) == {'test_distinct_last_words'}

# ---- failures -------------------------------------------------------------------------------------------------------
def test_malformed_shard(client, tmp_path, items):
    paths = write_shards(tmp_path / 'in', items, [100, 200])
    lines = paths[1].read_text().splitlines()
    lines[41] = lines[41][:-1]                                                   # line 42 loses its closing brace
    paths[1].write_text('\n'.join(lines) + '\n')
    out = tmp_path / 'out' / 'report.json'
    for c in (None, client):
        with pytest.raises(InputError, match=f"{paths[1]}:42: invalid JSON") as e: D.evaluate(paths, ['bleu', 'self_bleu'], client=c, output=out)
        assert (e.value.path, e.value.line) == (str(paths[1]), 42)
    assert not (tmp_path / 'out').exists()                                        # nothing written, not even the folder
    lines[41] = json.dumps({'prediction': 'x', 'references': ['y', 3]})
    paths[1].write_text('\n'.join(lines) + '\n')
    with pytest.raises(InputError, match=f"{paths[1]}:42: expected a string or a list of strings for the reference"): D.evaluate(paths, 'bleu', client=client)
    (tmp_path / 'in' / 'bad.parquet').write_bytes(b'PAR1 not really')
    with pytest.raises(InputError, match="bad.parquet: not a readable Parquet file"): D.evaluate([paths[0], tmp_path / 'in' / 'bad.parquet'], 'bleu', client=client)
    with pytest.raises(InputError, match="missing.jsonl: no such file"): D.evaluate([paths[0], tmp_path / 'missing.jsonl'], 'bleu', client=client)
    nosrc = write_shards(tmp_path / 'src', [{k: v for k, v in r.items() if k != 'source' or i >= 50} for i, r in enumerate(items)], [50, 250])
    with pytest.raises(InputError, match="shard-000.jsonl: has no source conversations"): D.evaluate(nosrc, 'code_mixing_coverage', client=client)
    assert not list(tmp_path.rglob('*.tmp'))

def test_worker_killed_mid_run(client, tmp_path):
    "SIGKILL a worker process while it scores a partition: the nanny restarts it, the lost tasks run again, the report is unchanged."
    paths = write_shards(tmp_path, card_items(4000, seed=3), [250] * 16)
    metrics = ['bleu', 'chrf', 'rougeL', 'distinct_n', 'self_bleu']
    want = D.evaluate(paths, metrics)
    pids, box = client.run(os.getpid), {}
    def run():
        try: box['result'] = D.evaluate(paths, metrics, client=client, intervals=True, n_resamples=50)
        except Exception as e: box['error'] = e
    th = threading.Thread(target=run, daemon=True); th.start()
    victim, deadline = None, time.time() + 60
    while victim is None and time.time() < deadline:
        victim = next((w for w, keys in client.processing().items() if any('_run_partition' in str(k) for k in keys)), None)
        time.sleep(0.005)
    assert victim is not None and th.is_alive()
    os.kill(pids[victim], signal.SIGKILL)
    th.join(300)
    assert 'error' not in box, box.get('error')
    got = box['result']
    assert {k: v for k, v in got.items() if k != 'intervals' and k != 'notes'} == want
    recs = [json.loads(l) for p in paths for l in p.read_text().splitlines()]
    assert got['intervals']['bleu'] == D.poisson_bootstrap('bleu', [r['prediction'] for r in recs], [r['references'] for r in recs],
                                                           [r['id'] for r in recs], n_resamples=50).to_dict()
    client.wait_for_workers(2, timeout=120)
    assert pids[victim] not in client.run(os.getpid).values()


# ---- import cost ----------------------------------------------------------------------------------------------------
def test_import_does_not_load_dask():
    code = "import sys, cah_metrics.distributed; print(sorted(m for m in ('dask', 'distributed', 'torch', 'pandas') if m in sys.modules))"
    assert subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, check=True).stdout.strip() == '[]'


# ---- issue 31: empty resamples, zero items, duplicate ids across shards -------------------------------------------
def _chrf_of_resample(preds, refs, w):
    "sacrebleu's corpus chrF (0-1) of a resample: item i repeated w[i] times (an independent scorer of the same statistics)."
    import sacrebleu
    p = [x for x, k in zip(preds, w) for _ in range(k)]
    r = [x for x, k in zip(refs, w) for _ in range(k)]
    return sacrebleu.corpus_chrf(p, [r]).score / 100

def test_perfect_system_interval_is_one_point():
    "3 perfect items: before issue 31 the ~5% of resamples that draw no item scored chrF 0: interval [0.0, 1.0], mean 0.958."
    p = ['the cat sat', 'a dog ran', 'hello there']
    for res in (D.evaluate({'predictions': p, 'references': p}, ['chrf'], intervals=True)['intervals']['chrf'],
                D.poisson_bootstrap('chrf', p, p).to_dict()):
        empty = int((D.poisson_weights(D.item_keys(n=3), 1000).sum(axis=1) == 0).sum())    # P(empty) = e**-3: about 50 of 1000
        assert (res['low'], res['high'], res['mean'], res['empty_resamples']) == (1.0, 1.0, 1.0, empty) and 30 <= empty <= 70
        b = bootstrap('chrf', p, p)                                                         # the multinomial bootstrap agrees
        assert (b.low, b.high) == (1.0, 1.0)

def test_empty_resamples_left_out_without_shifting_the_others():
    "The values of the non-empty resamples are sacrebleu's chrF of the same weighted corpus, at the same places of the stream."
    preds, refs, ids = ['a cat sat', 'the dog', 'rain today'], ['the cat sat', 'the dog ran', 'rain today'], ['x', 'y', 'z']
    B, seed = 300, 5
    W = D.poisson_weights(D.item_keys(ids), B, seed)
    keep = W.sum(axis=1) > 0
    vals = np.array([_chrf_of_resample(preds, refs, w) for w in W[keep]])
    for res in (D.poisson_bootstrap('chrf', preds, refs, ids, n_resamples=B, seed=seed),
                D.evaluate({'predictions': preds, 'references': refs, 'ids': ids}, 'chrf', intervals=True, n_resamples=B, seed=seed,
                           partitions=[1, 0, 2])['intervals']['chrf']):
        d = res if isinstance(res, dict) else res.to_dict()
        assert d['empty_resamples'] == B - keep.sum() > 0
        assert abs(d['mean'] - vals.mean()) <= 1e-12
        lo, hi = np.quantile(vals, [0.025, 0.975], method='linear')    # `percentile_interval`'s definition: numpy's linear quantiles
        assert abs(d['low'] - lo) <= 1e-12 and abs(d['high'] - hi) <= 1e-12

def test_paired_test_leaves_out_empty_resamples():
    "Two systems on 3 items: the same resamples are left out for both, and p counts the others (B' + 1 in the denominator)."
    preds = {'A': ['a cat', 'the dog', 'rain'], 'B': ['the cat sat', 'the dog ran', 'rain today']}
    refs, ids, B = ['the cat sat', 'the dog ran', 'rain today'], ['x', 'y', 'z'], 400
    cols = {'predictions': preds['A'] + preds['B'], 'references': refs * 2, 'ids': ids * 2, 'systems': ['A'] * 3 + ['B'] * 3}
    rep = D.evaluate(cols, 'chrf', baseline='A', n_resamples=B)
    W = D.poisson_weights(D.item_keys(ids), B)
    keep = W.sum(axis=1) > 0
    t = rep['paired']['chrf']
    assert t['empty_resamples'] == B - keep.sum() > 0
    boot = {s: np.array([_chrf_of_resample(preds[s], refs, w) for w in W[keep]]) for s in 'AB'}
    full = {s: _chrf_of_resample(preds[s], refs, [1, 1, 1]) for s in 'AB'}
    d = full['B'] - full['A']
    far = np.abs((boot['B'] - boot['A']) - d) >= abs(d) - 1e-9
    assert abs(t['systems'][0]['p_value'] - (1 + far.sum()) / (keep.sum() + 1)) <= 1e-12
    assert abs(t['baseline']['mean'] - boot['A'].mean()) <= 1e-12

def test_no_items_is_an_error_and_an_empty_shard_still_merges(tmp_path, items):
    "Before issue 31: exit 0 / a report of bleu 0.0 on 0 examples."
    with pytest.raises(ValueError, match="evaluate: no items to report on: predictions is empty"):
        D.evaluate({'predictions': [], 'references': []}, 'bleu')
    empty = write_shards(tmp_path / 'empty', [], [0, 0])
    with pytest.raises(ValueError, match="evaluate: no items to report on: every partition of the source is empty"):
        D.evaluate(empty, 'bleu', output=tmp_path / 'r.json')
    assert not (tmp_path / 'r.json').exists()
    some = write_shards(tmp_path / 'some', items[:5], [0, 5, 0])
    assert D.evaluate(some, 'bleu') == one_pass(['bleu'], columns(items[:5]))

def test_duplicate_ids_across_shards(client, tmp_path, items):
    "Before issue 31 the same shard twice, or id 'a' in two shards, was accepted: n_examples 4 for 2 items."
    s1 = write_shards(tmp_path / 'one', items[:2], [2])[0]
    with pytest.raises(ValueError, match=f"evaluate: shard {s1} is given twice"): D.evaluate([s1, s1], 'bleu')
    (tmp_path / 'link.jsonl').symlink_to(s1)
    with pytest.raises(ValueError, match="is given twice"): D.evaluate([s1, tmp_path / 'link.jsonl'], 'bleu')
    a, b = tmp_path / 'a.jsonl', tmp_path / 'b.jsonl'
    a.write_text(''.join(json.dumps(r) + '\n' for r in items[:4]))
    b.write_text(''.join(json.dumps(r) + '\n' for r in [items[10], items[11], items[2]]))       # item2: line 3 of a, line 3 of b
    for c in (None, client):
        with pytest.raises(InputError, match=f"{b}:3: duplicate id 'item2' \\(also on {a}:3\\)") as e:
            D.evaluate([a, b], 'bleu', client=c, buckets=3, output=tmp_path / 'out.json')
        assert (e.value.path, e.value.line) == (str(b), 3)
    assert not (tmp_path / 'out.json').exists()
    sys_a = [{**r, 'system': 'A'} for r in items[:3]]
    sys_b = [{**r, 'system': 'B'} for r in items[:3]]
    paths = write_shards(tmp_path / 'sys', sys_a + sys_b, [3, 3])                           # one id per system: not duplicates
    assert D.evaluate(paths, 'bleu')['n_examples'] == 6
    paths = write_shards(tmp_path / 'sys2', sys_a + sys_b + sys_b[1:2], [3, 3, 1])
    with pytest.raises(InputError, match="duplicate id 'item1' of system 'B'"): D.evaluate(paths, 'bleu')

def test_duplicate_keys_are_checked_against_the_ids(tmp_path, items, monkeypatch):
    "Two different ids with one 64-bit key (forced here) are not a duplicate: the driver reads both items again; a bag's are trusted to the key."
    import dask.bag as db
    paths = write_shards(tmp_path, items[:20], [10, 10])
    monkeypatch.setattr(D, '_owner_keys', lambda keys, systems: np.zeros(len(keys), np.uint64))
    assert D.evaluate(paths, 'bleu') == one_pass(['bleu'], columns(items[:20]))
    with pytest.raises(InputError, match="partition 0:2: duplicate id \\(also on partition 0:1\\)"):
        D.evaluate(db.from_sequence(items[:20], npartitions=2), 'bleu')

def test_id_keys_cost(items):
    "What a partition sends for its ids: 12 bytes an item in buckets (8 MB of keys per million items, and the lines)."
    part = D.part_from_records(card_items(25_000, seed=2))
    pieces = D._id_pieces(part, D.item_keys(part.ids), 4)
    assert sum(k.nbytes + l.nbytes for b in pieces for _, k, l in b) == 12 * 25_000

CTRL_C = '''
import sys, time
from pathlib import Path
from cah_metrics.bleu import BLEU
from cah_metrics.distributed import evaluate
marker = Path(sys.argv[1])
class Stuck(BLEU):                                   # a metric whose update, on a worker, says so and then blocks
    def update(self, predictions, references=None, **kw):
        marker.write_text('started'); time.sleep(600)
if __name__ == '__main__':
    try: evaluate({'predictions': ['a b'] * 4, 'references': ['a b'] * 4}, Stuck(), workers=2, partitions=2)
    except KeyboardInterrupt: sys.exit(130)
'''

def _group_gone(pgid, wait):
    "True once no process of group `pgid` is left (within `wait` seconds)."
    end = time.time() + wait
    while time.time() < end:
        try: os.killpg(pgid, 0)
        except ProcessLookupError: return True
        time.sleep(0.2)
    return False

def test_ctrl_c_stops_local_workers_at_once(tmp_path):
    """Ctrl-C (SIGINT to the whole foreground group, as a terminal sends it) while local worker processes are busy: before issue 31
    the workers turned it into a task error and went on while the driver waited for them (`score --workers 2` took 14 s to stop on
    60,000 pairs; a task that runs long held it as long). Now the workers ignore SIGINT and the driver terminates them.
    No timing: a readiness marker written by the worker, and generous bounds (a worker blocks 600 s unless stopped)."""
    script, marker = tmp_path / 'ctrl_c.py', tmp_path / 'started'
    script.write_text(CTRL_C)
    proc = subprocess.Popen([sys.executable, str(script), str(marker)], start_new_session=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        end = time.time() + 300
        while not marker.exists() and proc.poll() is None and time.time() < end: time.sleep(0.1)
        assert marker.exists(), proc.communicate(timeout=10)
        os.killpg(proc.pid, signal.SIGINT)
        assert proc.wait(120) == 130, proc.stderr.read()
        assert _group_gone(proc.pid, 60)                    # no worker left behind
    finally:
        if proc.poll() is None: proc.kill()
        try: os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError: pass
