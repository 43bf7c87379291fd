"""CIDEr-D against pycocoevalcap's `Cider` (issue #33, item 3), and what the Metric contract gives it.

pycocoevalcap 1.2 (a dev dependency; only its Python part, `pycocoevalcap.cider.cider.Cider`, no Java) scores
`{id: [candidate]}` against `{id: [references]}` on pre-tokenised text (it splits on whitespace). Promised and checked:

- the corpus score and every item's score equal pycocoevalcap's to 1e-9, on random texts drawn by Hypothesis from a
  small vocabulary (so n-grams repeat, clip and are shared by many items' references; one to four references per
  item) under random sigma, and on card text with several references per item;
- the document frequencies are mergeable state: any split into shards, merged in any order, and `distributed.evaluate`
  on Dask (its two passes: df up the tree, then each item scored under the corpus's df) give the one-pass Score;
- the contract gives CIDEr-D, with no edit elsewhere: a bootstrap interval and a paired test (df held fixed: the
  resampled value is the mean of the resampled items' scores), `compare_datasets`, `cah-metrics score --metrics
  cider` (with per-example scores), `score_dataset`, and Dask.
"""
import contextlib, io, json, random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from pycocoevalcap.cider.cider import Cider


def cider():
    """The module under test, imported when a test runs, not at collection (importing it registers 'cider', and the
    registry-wide tests list the registered metrics at collection)."""
    import cah_metrics.cider
    return cah_metrics.cider


def coco(hyps, refs, sigma=6.0):
    "pycocoevalcap's corpus score and per-item scores."
    score, scores = Cider(sigma=sigma).compute_score({i: list(r) for i, r in enumerate(refs)},
                                                     {i: [h] for i, h in enumerate(hyps)})
    return float(score), np.asarray(scores, float)


SETTINGS = settings(max_examples=150, deadline=None, derandomize=True, database=None,
                    suppress_health_check=list(HealthCheck))
WORDS = ['a', 'the', 'cat', 'dog', 'sat', 'on', 'mat', 'é', '🍕', 'Cat']
text = st.lists(st.sampled_from(WORDS), max_size=12).map(' '.join)
refs = st.lists(text, min_size=1, max_size=4)


@st.composite
def corpora(draw, min_size=1):
    "A corpus pycocoevalcap can score: at least one reference n-gram in all (else its max() of none fails)."
    hyps = draw(st.lists(text, min_size=min_size, max_size=12))
    rs = draw(st.lists(refs, min_size=len(hyps), max_size=len(hyps)))
    if not any(r.strip() for group in rs for r in group): rs[0] = rs[0] + ['the cat']
    return hyps, rs


@SETTINGS
@given(corpus=corpora(), sigma=st.sampled_from([6.0, 1.0, 0.3, 25.0]))
def test_equals_pycocoevalcap(corpus, sigma):
    hyps, rs = corpus
    ours = cider().corpus_cider(hyps, rs, sigma=sigma)
    want, per = coco(hyps, rs, sigma)
    assert abs(ours.value - want) <= 1e-9, (ours.value, want)
    assert np.max(np.abs(ours.scores - per)) <= 1e-9
    kept = cider().CIDErD(sigma=sigma, keep_items=True).update(hyps, rs)
    assert np.max(np.abs(np.array(kept.per_item()['cider']) - per)) <= 1e-9


@SETTINGS
@given(corpus=corpora(min_size=2), data=st.data())
def test_shards_merge_to_one_pass(corpus, data):
    hyps, rs = corpus
    one = cider().CIDErD().update(hyps, rs)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(hyps)), max_size=3)))
    bounds = [0, *cuts, len(hyps)]
    shards = [cider().CIDErD().update(hyps[a:b], rs[a:b]) for a, b in zip(bounds[:-1], bounds[1:])]
    merged = shards[0]
    for shard in shards[1:]: merged = merged + shard
    assert merged.state['df'] == one.state['df'] and merged.state['n'] == one.state['n']
    assert merged.compute() == one.compute()                  # every number, bit for bit, and the signature
    # df alone merges in any order (a Counter sum); the items' lists keep the order of the merge
    assert sum((s.state['df'] for s in reversed(shards)), start=type(one.state['df'])()) == one.state['df']


def card_corpus(n=240, seed=0):
    "Card text: a prompt filled with an answer (the candidate), two to four references filling it with others."
    from cah_metrics.corpora import bundled_pack
    from cah_metrics.text import get_tokenizer
    packs = [bundled_pack(name) for name in ('cah_main_game', 'cards_against_coffee')]
    prompts = [p['template'] for pk in packs for p in pk.prompts if p['slots'] == 1]
    answers = [a['text'].rstrip('.') for pk in packs for a in pk.answers]
    rng, tok = random.Random(seed), get_tokenizer('13a', lowercase=True)
    fill = lambda t: ' '.join(tok(t.replace('{}', rng.choice(answers)).replace('\n', ' ')))
    items = [(prompts[i % len(prompts)], rng.randint(2, 4)) for i in range(n)]
    return [fill(t) for t, _ in items], [[fill(t) for _ in range(k)] for t, k in items]


def test_card_text_equals_pycocoevalcap():
    hyps, rs = card_corpus()
    ours = cider().corpus_cider(hyps, rs)
    want, per = coco(hyps, rs)
    assert abs(ours.value - want) <= 1e-9 and np.max(np.abs(ours.scores - per)) <= 1e-9
    assert 0.1 < want < 10


def test_hand_derived():
    "The notebook's worked example: two items, 2.5 each (see nbs/01e_cider.ipynb for the arithmetic)."
    hyps, rs = ["a cat", "a dog"], [["a cat", "the dog"], ["a dog"]]
    assert np.allclose(cider().corpus_cider(hyps, rs).scores, [2.5, 2.5], rtol=0, atol=1e-12)
    assert np.allclose(coco(hyps, rs)[1], [2.5, 2.5], rtol=0, atol=1e-12)


def test_dask_two_passes_equal_one_pass():
    from cah_metrics import distributed
    from cah_metrics.evaluate import score_dataset
    hyps, rs = card_corpus(120, seed=1)
    one = cider().CIDErD().compute(hyps, rs)
    for partitions in (1, 4, [50, 0, 3, 67]):
        report = distributed.evaluate({'predictions': hyps, 'references': rs}, ['cider'], partitions=partitions)
        assert report['cider'] == one['cider'], (partitions, report['cider'], one['cider'])   # bit for bit
        assert report['signatures']['cider'] == str(one.signature)
    two_buckets = distributed.evaluate({'predictions': hyps, 'references': rs}, ['cider'], partitions=5, buckets=2)
    assert two_buckets['cider'] == one['cider']
    table, _ = score_dataset(hyps, rs, metrics=['cider'])
    assert table['cider'] == one['cider']


def test_dask_intervals_are_declined_with_a_reason():
    "Poisson intervals would resample rows scored under one partition's df: evaluate says why there is none."
    from cah_metrics import distributed
    hyps, rs = card_corpus(60, seed=2)
    report = distributed.evaluate({'predictions': hyps, 'references': rs}, ['cider', 'bleu'], partitions=3,
                                  intervals=True, n_resamples=50)
    assert 'cider' not in report['intervals'] and 'bleu' in report['intervals']
    assert any('cider' in note and 'no partition holds' in note for note in report['notes'])
    assert report['cider'] == cider().CIDErD().compute(hyps, rs)['cider']


def test_bootstrap_and_paired_hold_df_fixed():
    from cah_metrics.significance import bootstrap, paired_bootstrap, resample_keys
    hyps, rs = card_corpus(150, seed=3)
    worse = [' '.join(h.split()[:3]) for h in hyps]              # a system that stops after three words
    assert resample_keys('cider') == ('cider',)
    interval = bootstrap('cider', hyps, rs, n_resamples=300)
    full = cider().corpus_cider(hyps, rs)
    assert interval.score == full.value and interval.low < interval.score < interval.high
    # df fixed: a resample's value is the mean of its items' scores, which the plan's rows are
    plan = cider().CIDErD().resampling().plan(cider().CIDErD(keep_items=True).update(hyps, rs).item_stats(), 'cider')
    assert np.array_equal(plan.rows[:, 0], full.scores)
    paired = paired_bootstrap('cider', hyps, {'short': worse}, rs, n_resamples=300)
    short = paired.systems[0]
    assert short.score == cider().corpus_cider(worse, rs).value < paired.baseline.score
    assert short.p_value < 0.05


def test_compare_and_the_command_line(tmp_path):
    from cah_metrics.cli import main
    from cah_metrics.comparison import compare_datasets
    hyps, rs = card_corpus(80, seed=4)
    worse = [' '.join(h.split()[:3]) for h in hyps]
    write = lambda name, rows: (tmp_path / name).write_text(''.join(json.dumps(r) + '\n' for r in rows))
    write('base.jsonl', hyps)
    write('short.jsonl', worse)
    write('refs.jsonl', rs)
    result = compare_datasets(tmp_path / 'base.jsonl', [tmp_path / 'short.jsonl'], tmp_path / 'refs.jsonl',
                              metrics=['cider'], n_resamples=200)
    assert result['cider'].baseline.score == cider().corpus_cider(hyps, rs).value
    out, per = tmp_path / 'out.json', tmp_path / 'per.jsonl'
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()) as err:
        rc = main(['score', '--predictions', str(tmp_path / 'base.jsonl'), '--references', str(tmp_path / 'refs.jsonl'),
                   '--metrics', 'cider', '--output', str(out), '--per-example', str(per)])
    assert rc == 0, err.getvalue()
    report = json.loads(out.read_text())
    assert report['cider'] == cider().corpus_cider(hyps, rs).value and report['n_examples'] == len(hyps)
    assert report['signatures']['cider'].startswith('cider|n:4|sigma:6|tok:whitespace-v1|case:mixed|norm:none|idf:refs|')
    lines = [json.loads(line) for line in per.read_text().splitlines()]
    assert len(lines) == len(hyps)
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()) as err:
        rc = main(['score', '--predictions', str(tmp_path / 'base.jsonl'), '--references', str(tmp_path / 'refs.jsonl'),
                   '--metrics', 'cider', '--tokenizer', '13a', '--lowercase', '--output', str(out)])
    assert rc == 0, err.getvalue()
    assert '|tok:13a-v1|case:lc|' in json.loads(out.read_text())['signatures']['cider']
