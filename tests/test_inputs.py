"""Inputs people already hold (issue 33, item 5): a pandas DataFrame, a Hugging Face `datasets.Dataset` and table
files (CSV, TSV, Parquet) as well as lists and JSON Lines, at every entry point: a metric's `compute` and `update`,
`score_dataset` (and `evaluate_datasets`), `cah-metrics score` and `distributed.evaluate`.

Every number is compared with the same entry point's on plain lists of the same items (never hard-coded): the
table's route must give the list's report exactly. The texts are real: answers of the bundled card packs scored
against prompts' text, seeded.

Also: a table where a list of texts is expected is an error that says what to give (iterating a DataFrame gives its
column names, which were scored as texts before); a pandas Series is a list; `datasets` is imported only for a
Dataset, and its absence is a message naming the pip package; `evaluate_datasets` with a corpus-level metric
(Distinct-n has no per-example values) gives its report with a note instead of NotImplementedError.
"""
import json, random, sys

import numpy as np
import pandas as pd
import pytest

from cah_metrics.core import load
from cah_metrics.corpora import bundled_pack
from cah_metrics.diversity import distinct_n
from cah_metrics.evaluate import evaluate_datasets, score_dataset
from cah_metrics.io import import_datasets, read_dataset, read_table, table_columns
from cah_metrics.text import as_texts, check_pairs, table_kind
from cah_metrics.cli import main

METRICS = ['bleu', 'chrf', 'rougeL', 'distinct_n']          # with references, and one without


def card_items(n=24, seed=3):
    "n (prediction, [two references], id) of real text: answers of the bundled packs against other answers."
    cards = [c['text'] for name in ('cah_main_game', 'cards_against_coffee')
             for c in bundled_pack(name).answers]
    rng = random.Random(seed)
    return [(rng.choice(cards), [rng.choice(cards), rng.choice(cards)], f"item-{i}") for i in range(n)]


ITEMS = card_items()
PREDS = [p for p, _, _ in ITEMS]
REFS = [r for _, r, _ in ITEMS]
IDS = [i for _, _, i in ITEMS]
FRAME = pd.DataFrame({'id': IDS, 'prediction': PREDS, 'reference': [r[0] for r in REFS],
                      'reference2': [r[1] for r in REFS]})
POOLED = {'references': ['reference', 'reference2']}


def dataset():
    datasets = pytest.importorskip('datasets')
    return datasets.Dataset.from_pandas(FRAME)


def same(a, b):
    "Reports equal: the same keys, numbers equal to the last bit."
    assert json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


# --- a metric's compute and update ---

@pytest.mark.parametrize('name', METRICS)
def test_compute_dataframe(name):
    m = load(name)
    refs = REFS if 'references' in m.inputs else None
    want = load(name).compute(PREDS, refs)
    got = load(name).compute(FRAME, columns=POOLED if refs else None)
    assert got == want
    renamed = FRAME.rename(columns={'prediction': 'hyp'})
    assert load(name).compute(renamed, columns={'predictions': 'hyp', **(POOLED if refs else {})}) == want


@pytest.mark.parametrize('name', METRICS)
def test_compute_dataset(name):
    ds = dataset()
    refs = REFS if 'references' in load(name).inputs else None
    assert load(name).compute(ds, columns=POOLED if refs else None) == load(name).compute(PREDS, refs)


@pytest.mark.parametrize('name', METRICS)
def test_compute_file(name, tmp_path):
    FRAME.assign(reference=REFS).drop(columns='reference2').to_parquet(tmp_path / 'items.parquet')
    preds, refs, _, ids = read_dataset(tmp_path / 'items.parquet', None)
    assert (preds, refs, ids) == (PREDS, REFS, IDS)                     # list cells: several references
    takes = 'references' in load(name).inputs
    assert load(name).compute(preds, refs if takes else None) == load(name).compute(PREDS, REFS if takes else None)


@pytest.mark.parametrize('name', METRICS)
def test_compute_series_is_a_list(name):
    takes = 'references' in load(name).inputs
    got = load(name).compute(FRAME['prediction'], FRAME['reference'] if takes else None)
    assert got == load(name).compute(PREDS, [r[0] for r in REFS] if takes else None)


@pytest.mark.parametrize('name', METRICS)
def test_update_in_batches(name):
    "Batches of a DataFrame and shards of a Dataset add up to the lists' score."
    takes = 'references' in load(name).inputs
    cols = POOLED if takes else None
    want = load(name).compute(PREDS, REFS if takes else None)
    m = load(name)
    for start in range(0, len(FRAME), 10): m.update(FRAME.iloc[start:start + 10], columns=cols)
    assert m.compute() == want
    ds, m = dataset(), load(name)
    for start in range(0, len(ds), 7): m.update(ds.select(range(start, min(start + 7, len(ds)))), columns=cols)
    assert m.compute() == want


def test_compute_table_errors():
    with pytest.raises(TypeError, match="bleu: predictions is a table, which gives the other inputs too"):
        load('bleu').compute(FRAME, REFS)
    with pytest.raises(ValueError, match="bleu: the table has no column for references"):
        load('bleu').compute(FRAME[['prediction']])
    with pytest.raises(TypeError, match="bleu: columns is for a table"):
        load('bleu').compute(PREDS, REFS, columns={'predictions': 'x'})
    with pytest.raises(TypeError, match="pick a split"):
        load('chrf').compute(pytest.importorskip('datasets').DatasetDict({'test': dataset()}))


# --- score_dataset and evaluate_datasets ---

def test_score_dataset_inputs(tmp_path):
    want = score_dataset(PREDS, REFS, metrics=METRICS, per_example=True)
    same(score_dataset(FRAME, metrics=METRICS, columns=POOLED, per_example=True), want)
    same(score_dataset(dataset(), metrics=METRICS, columns=POOLED, per_example=True), want)
    FRAME.to_csv(tmp_path / 'items.csv', index=False)
    preds, refs, srcs, _ = read_dataset(tmp_path / 'items.csv', None, columns=POOLED)
    same(score_dataset(preds, refs, srcs, metrics=METRICS, per_example=True), want)
    with pytest.raises(TypeError, match="score_dataset: predictions is a table"):
        score_dataset(FRAME, REFS, metrics=['bleu'])


def test_score_dataset_sources_column():
    "A source conversation column (here `thread`) reaches code-mixing coverage as the list does."
    srcs = [f"{r[0]} yaar {r[1]}" for r in REFS]
    opts = {'detector': 'script'}
    want = score_dataset(PREDS, REFS, srcs, metrics=['code_mixing_coverage', 'chrf'], options=opts)
    got = score_dataset(FRAME.assign(thread=srcs), metrics=['code_mixing_coverage', 'chrf'], options=opts,
                        columns=POOLED)
    same(got, want)


def test_evaluate_datasets_tables_and_corpus_metrics():
    "A dataset may be a table; Distinct-n (no per-example values) is reported with a note, not NotImplementedError."
    want = evaluate_datasets({'cards': {'predictions': PREDS, 'references': [r[0] for r in REFS]}}, METRICS)
    same(evaluate_datasets({'cards': FRAME.drop(columns='reference2')}, METRICS), want)
    rep, per = score_dataset(PREDS, metrics=['distinct_n'], per_example=True)
    assert per == {} and rep['notes'] == ["distinct_n: no per-example values (it scores the corpus as a whole)"]
    assert want[0]['cards']['distinct_n_distinct'] == load('distinct_n').compute(PREDS).value


# --- cah-metrics score ---

def run_score(tmp_path, *args):
    out = tmp_path / 'report.json'
    assert main(['score', *args, '--metrics', *METRICS, '--output', str(out)]) == 0
    return json.loads(out.read_text())


@pytest.mark.parametrize('fmt', ['csv', 'tsv', 'parquet'])
def test_cli_table_files(fmt, tmp_path, capsys):
    want = json.loads(json.dumps(score_dataset(PREDS, REFS, metrics=METRICS)[0]))
    path = tmp_path / f'items.{fmt}'
    table = FRAME.rename(columns={'prediction': 'hyp'})
    if fmt == 'parquet': table.to_parquet(path)
    else: table.to_csv(path, sep=',' if fmt == 'csv' else '\t', index=False)
    cols = ['--columns', 'predictions=hyp', 'references=reference', 'references=reference2']
    same(run_score(tmp_path, '--predictions', str(path), *cols), want)


def test_cli_lists_as_files(tmp_path, capsys):
    "The list route of the CLI: JSON Lines files paired by id, as before."
    want = json.loads(json.dumps(score_dataset(PREDS, REFS, metrics=METRICS)[0]))
    (tmp_path / 'p.jsonl').write_text(''.join(json.dumps({'id': i, 'prediction': p}) + '\n' for i, p in zip(IDS, PREDS)))
    (tmp_path / 'r.jsonl').write_text(''.join(json.dumps({'id': i, 'references': r}) + '\n' for i, r in zip(IDS, REFS)))
    same(run_score(tmp_path, '--predictions', str(tmp_path / 'p.jsonl'), '--references', str(tmp_path / 'r.jsonl')), want)


def test_cli_table_errors(tmp_path, capsys):
    FRAME.to_csv(tmp_path / 'items.csv', index=False)
    assert main(['score', '--predictions', str(tmp_path / 'items.csv'), '--columns', 'prediction=x']) == 2
    assert "--columns: expected INPUT=COLUMN" in capsys.readouterr().err
    (tmp_path / 'p.txt').write_text('a\n')
    assert main(['score', '--predictions', str(tmp_path / 'p.txt')]) == 2
    assert "or a table file" in capsys.readouterr().err
    assert main(['score', '--predictions', str(tmp_path / 'items.csv'), '--columns', 'predictions=hyp']) == 2
    assert "columns['predictions']: no column 'hyp'" in capsys.readouterr().err


# --- distributed.evaluate ---

@pytest.fixture(scope='module')
def dist_want():
    pytest.importorskip('dask')
    from cah_metrics.distributed import evaluate
    return evaluate({'predictions': PREDS, 'references': REFS, 'ids': IDS}, METRICS, partitions=3)


def test_distributed_inputs(dist_want, tmp_path):
    from cah_metrics.distributed import evaluate
    import dask, dask.dataframe as dd
    same(evaluate(FRAME, METRICS, partitions=3, columns=POOLED), dist_want)
    same(evaluate(dataset(), METRICS, partitions=2, columns=POOLED), dist_want)
    pooled = FRAME.assign(reference=REFS).drop(columns='reference2')
    with dask.config.set({'dataframe.convert-string': False}):          # else dask turns list cells into str
        frame = dd.from_pandas(pooled.rename(columns={'prediction': 'hyp'}), npartitions=3)
    same(evaluate(frame, METRICS, columns={'predictions': 'hyp'}), dist_want)
    for k, start in enumerate(range(0, len(pooled), 10)):                 # Parquet shards: the file route
        pooled.iloc[start:start + 10].to_parquet(tmp_path / f'shard-{k}.parquet')
    same(evaluate(str(tmp_path), METRICS), dist_want)
    with pytest.raises(TypeError, match="columns is for a table source"):
        evaluate({'predictions': PREDS}, METRICS, columns={'predictions': 'x'})


# --- a table where a list of texts is expected ---

def test_dataframe_as_texts_is_an_error():
    "Iterating a DataFrame gives its column names: every validator refuses one, with what to give instead."
    assert list(FRAME) == ['id', 'prediction', 'reference', 'reference2']            # what was scored before
    for call in (lambda: as_texts(FRAME, 'predictions', 'bleu'), lambda: check_pairs(PREDS, FRAME, 'chrf'),
                 lambda: load('bleu').compute(PREDS, FRAME), lambda: distinct_n(FRAME),
                 lambda: score_dataset(PREDS, FRAME, metrics=['rougeL'])):
        with pytest.raises(TypeError, match="must be a sequence, got a pandas DataFrame .a table.; give one of its "
                                            "columns"):
            call()
    with pytest.raises(TypeError, match="got a datasets Dataset"):
        as_texts(dataset(), 'predictions', 'bleu')
    assert as_texts(FRAME['prediction']) == PREDS                                     # a Series is a list


# --- datasets: imported only for a Dataset ---

def test_datasets_import_only_when_given(monkeypatch):
    "Lists and DataFrames never import datasets; a Dataset-like object without the package: a message naming it."
    monkeypatch.setitem(sys.modules, 'datasets', None)                    # `import datasets` now fails
    assert load('chrf').compute(FRAME, columns=POOLED) == load('chrf').compute(PREDS, REFS)
    with pytest.raises(ImportError, match=r"needs the datasets package: pip install datasets"):
        import_datasets()
    fake = type('Dataset', (), {'__module__': 'datasets.arrow_dataset'})()
    assert table_kind(fake) == 'datasets'
    with pytest.raises(ImportError, match=r"pip install datasets"):
        table_columns(fake, ('predictions',))
    with pytest.raises(ImportError, match=r"pip install datasets"):
        load('bleu').compute(fake)
