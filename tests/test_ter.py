"""TER against sacrebleu's `TER` on random text (issue #33, item 2), and what the Metric contract gives it.

Hypothesis draws texts from a few words that repeat (so that blocks match in several places and shifts pay off), with
capitals, punctuation that the `normalized` and `no_punct` options split or delete, XML escapes, possessives, digits,
CJK characters, kana and full-width punctuation (`asian_support`), and line breaks. Each hypothesis has one to three
references, some empty; the four options are drawn too. Promised and checked here (to 1e-9 on sacrebleu's scale divided
by 100, the library's promise; the arithmetic follows sacrebleu's, so the numbers are in fact equal):

- sentence and corpus scores equal sacrebleu's, and the per-segment rows [edits, average reference length] equal its
  per-segment statistics (`_extract_corpus_statistics`), which its paired tests resample;
- long pairs, where the beam and the 1,000-candidate limit of the shift search come into play, give sacrebleu's edits;
- any split of a corpus into shards merges into the one-pass score;
- the contract gives TER a bootstrap interval and a paired test (`significance`), `compare_datasets`
  (`comparison`), `cah-metrics score --metrics ter` (`cli`) and `distributed.evaluate`, with nothing written for it.
"""
import json, random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from sacrebleu.metrics import TER as SacreTER
from sacrebleu.metrics.lib_ter import translation_edit_rate


def ter():
    """The module under test, imported when a test runs, not when pytest collects this file (importing it registers
    'ter', and the registry-wide tests list the registered metrics at collection)."""
    import cah_metrics.ter
    return cah_metrics.ter


SETTINGS = settings(max_examples=200, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck))
WORDS = ['a', 'b', 'the', 'cat', 'Cat', 'CAT.', "cat's", 'b,', '(a)', 'x!', '3.5', '1-2', '&amp;', '&quot;b', '"q"',
         '猫', 'が座', 'カタカナ', 'ひら', '。', '，', '（全）', 'é', '🍕', '\n', '\n-']
text = st.lists(st.sampled_from(WORDS), max_size=14).map(' '.join)
refs = st.lists(text, min_size=1, max_size=3)
options = st.fixed_dictionaries({k: st.booleans() for k in ('normalized', 'no_punct', 'asian_support', 'case_sensitive')})


def streams(rs_list):
    "sacrebleu's layout: one stream per reference position, None where a segment has fewer references."
    k = max(map(len, rs_list))
    return [[rs[i] if i < len(rs) else None for rs in rs_list] for i in range(k)]


@SETTINGS
@given(h=text, rs=refs, o=options)
def test_sentence_equals_sacrebleu(h, rs, o):
    ours = ter().sentence_ter(h, rs, **o).score
    theirs = SacreTER(**o).sentence_score(h, rs).score
    assert abs(ours - theirs / 100) <= 1e-9, (ours, theirs)


@SETTINGS
@given(hs=st.lists(text, min_size=1, max_size=6), data=st.data(), o=options)
def test_corpus_and_rows_equal_sacrebleu(hs, data, o):
    rs = [data.draw(refs) for _ in hs]
    sb = SacreTER(**o)
    assert abs(ter().corpus_ter(hs, rs, **o).score - sb.corpus_score(hs, streams(rs)).score / 100) <= 1e-9
    assert ter().ter_stats_array(hs, rs, **o).tolist() == sb._extract_corpus_statistics(hs, streams(rs))


@settings(max_examples=40, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_long_pairs_with_many_shifts_equal_sacrebleu(data):
    "Up to 60 words of a 6-word vocabulary, rotated and shuffled: the beam (over 25 words) and the move limit matter."
    ref = data.draw(st.lists(st.integers(0, 5), max_size=60))
    k = data.draw(st.integers(0, max(0, len(ref) - 1)))
    hyp = ref[k:] + ref[:k]
    if data.draw(st.booleans()): random.Random(data.draw(st.integers(0, 9))).shuffle(hyp)
    hyp = hyp[:data.draw(st.integers(0, len(hyp) + 3))] + data.draw(st.lists(st.integers(0, 7), max_size=5))
    assert ter()._pair_edits([(hyp, ref)]) == [translation_edit_rate(list(map(str, hyp)), list(map(str, ref)))[0]]


@settings(max_examples=60, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck))
@given(hs=st.lists(text, min_size=1, max_size=8), data=st.data(), o=options)
def test_shards_merge_to_one_pass(hs, data, o):
    rs = [data.draw(refs) for _ in hs]
    cut = sorted(data.draw(st.lists(st.integers(0, len(hs)), min_size=2, max_size=2)))
    parts = [(0, cut[0]), (cut[0], cut[1]), (cut[1], len(hs))]
    shards = [ter().TER(**o, keep_items=True).update(hs[a:b], rs[a:b]) for a, b in parts]
    merged = shards[2] + shards[0] + shards[1]
    one = ter().corpus_ter(hs, rs, **o)
    assert abs(merged.compute().score - one.score) <= 1e-12 and merged.compute().signature == one.signature
    per = ter().TER(**o, keep_items=True).update(hs, rs).per_item()['ter']
    assert per == [ter().sentence_ter(h, r, **o).score for h, r in zip(hs, rs)]


# ---- the contract: capabilities TER gets from the layers above, with nothing written for it -------------------------
def cards(n=60, seed=0):
    "n card-text segments: references, a system close to them (words dropped) and a worse one (words shuffled)."
    from cah_metrics.corpora import bundled_pack
    texts = [a['text'] for name in ('cah_main_game', 'cards_against_coffee') for a in bundled_pack(name).answers]
    rng = random.Random(seed)
    refs = [' '.join(rng.sample(texts, 3)) for _ in range(n)]
    good = [' '.join(w for w in r.split() if rng.random() > 0.1) for r in refs]
    bad = [' '.join(rng.sample(r.split(), len(r.split()))) for r in refs]
    return refs, good, bad


def test_bootstrap_interval():
    from cah_metrics.significance import bootstrap
    refs, good, _ = cards()
    r = bootstrap('ter', good, refs, n_resamples=200)
    score = ter().corpus_ter(good, refs).score
    assert r.low <= score <= r.high and r.low < r.high
    assert abs(bootstrap('ter', good, refs, n_resamples=200).low - r.low) == 0            # seeded


def test_paired_bootstrap_lower_is_better():
    from cah_metrics.significance import paired_bootstrap, paired_randomization
    refs, good, bad = cards()
    res = paired_bootstrap('ter', bad, {'good': good}, refs, n_resamples=300)
    system = res.systems[0]
    assert system.p_value < 0.05
    assert abs(system.score - ter().corpus_ter(good, refs).score) <= 1e-12
    ar = paired_randomization('ter', bad, {'good': good}, refs, trials=300, n_resamples=0)
    assert ar.systems[0].p_value < 0.05


def test_compare_datasets(tmp_path):
    from cah_metrics.comparison import compare_datasets
    refs, good, bad = cards(40)
    files = {}
    for name, lines in (('refs', refs), ('good', good), ('bad', bad)):
        files[name] = tmp_path / f"{name}.txt"
        files[name].write_text(''.join(line + '\n' for line in lines))
    out = compare_datasets(files['bad'], {'good': files['good']}, files['refs'], metrics=['ter'], n_resamples=200)
    assert abs(out['ter'].systems[0].score - ter().corpus_ter(good, refs).score) <= 1e-12


def test_score_command(tmp_path, capsys):
    from cah_metrics.cli import main
    refs, good, _ = cards(30)
    p, r = tmp_path / 'p.txt', tmp_path / 'r.txt'
    p.write_text(''.join(t + '\n' for t in good)); r.write_text(''.join(t + '\n' for t in refs))
    assert main(['score', '--predictions', str(p), '--references', str(r), '--metrics', 'ter', '--json']) == 0
    report = json.loads(capsys.readouterr().out)
    assert abs(report['ter'] - ter().corpus_ter(good, refs).score) <= 1e-12
    assert report['signatures']['ter'].startswith('ter|nrefs:1|case:lc|tok:tercom|')


def test_distributed_evaluate():
    import cah_metrics.distributed as D
    from cah_metrics.evaluate import score_dataset
    refs, good, _ = cards(50)
    cols = {'predictions': good, 'references': [[r] for r in refs]}
    got = D.evaluate(cols, ['ter'], partitions=[10, 0, 25, 15])
    want = score_dataset(good, [[r] for r in refs], metrics=['ter'])[0]
    assert abs(got['ter'] - want['ter']) <= 1e-12 and got['signatures'] == want['signatures']
    assert got['n_examples'] == want['n_examples'] == 50
