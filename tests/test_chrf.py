"""chrF and chrF++ against sacrebleu's `CHRF` on random text (issue 16, item 2).

Hypothesis draws short texts from a small alphabet built to make every rule fire: letters that repeat (so every
n-gram order matches sometimes and fails sometimes), capitals (one, 'İ', lowercases to two code points), several kinds
of whitespace (sacrebleu deletes them all from character n-grams), ASCII punctuation that chrF++ splits off words and
non-ASCII punctuation that it does not, accents and an emoji. Each hypothesis has one to three references, some empty;
the options (orders, beta, case, whitespace, smoothing) are drawn too. Promised and checked here:

- sentence and corpus scores equal sacrebleu's divided by 100, bit for bit (the notebook states the 1e-9 tolerance of
  the library's promise; the arithmetic follows sacrebleu's, so the numbers are in fact equal);
- the per-segment rows equal sacrebleu's per-segment statistics (its `_extract_corpus_statistics`, a list of
  [hyp, ref, match] triples per segment), which is what its paired tests resample;
- any split of a corpus into shards merges into the one-pass state, and each segment's per-item value is its
  sentence chrF;
- counting in small chunks gives the same rows as counting in one.
"""
import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from sacrebleu.metrics import CHRF as SacreCHRF


def chrf():
    """The module under test, imported when a test runs, not when pytest collects this file: importing it registers
    'chrf' and 'chrf++', and the registry-wide tests (test_metric_core.py, test_fuzz.py) list the registered metrics
    at collection, so collecting this file first must not change what they cover."""
    import cah_metrics.chrf
    return cah_metrics.chrf


SETTINGS = settings(max_examples=300, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck))
ALPHABET = ['a', 'b', 'c', 'A', 'B', 'İ', 'é', 'É', '🍕', ' ', ' ', '  ', '\t', '\n', '\u00a0', '\u2028',
            '.', ',', '!', '(', ')', '"', "'", '-', '«', '»', '—', '¿']
text = st.lists(st.sampled_from(ALPHABET), max_size=25).map(''.join)
refs = st.lists(text, min_size=1, max_size=3)


@st.composite
def options(draw):
    nc = draw(st.integers(0, 7))
    nw = draw(st.integers(0 if nc else 1, 3))
    return dict(char_order=nc, word_order=nw, beta=draw(st.sampled_from([0, 0.5, 1, 2, 3])), lowercase=draw(st.booleans()),
                whitespace=draw(st.booleans()), eps_smoothing=draw(st.booleans()))


def streams(rs_list):
    "sacrebleu's layout: one stream per reference position, None where a segment has fewer references."
    k = max(map(len, rs_list))
    return [[rs[i] if i < len(rs) else None for rs in rs_list] for i in range(k)]


@SETTINGS
@given(h=text, rs=refs, o=options())
def test_sentence_equals_sacrebleu(h, rs, o):
    ours = chrf().sentence_chrf(h, rs, **o).score
    theirs = SacreCHRF(**o).sentence_score(h, rs).score
    assert ours == theirs / 100, (ours, theirs)


@SETTINGS
@given(hs=st.lists(text, min_size=1, max_size=6), data=st.data(), o=options())
def test_corpus_and_rows_equal_sacrebleu(hs, data, o):
    rs_list = [data.draw(refs) for _ in hs]
    sb, C = SacreCHRF(**o), chrf()
    assert C.corpus_chrf(hs, rs_list, **o).score == sb.corpus_score(hs, streams(rs_list)).score / 100
    rows = C.CHRF(**o).segment_stats(hs, rs_list)
    assert rows.tolist() == SacreCHRF(**o)._extract_corpus_statistics(hs, streams(rs_list))


@SETTINGS
@given(hs=st.lists(text, max_size=8), data=st.data(), o=options())
def test_shards_merge_to_one_pass(hs, data, o):
    rs_list = [data.draw(refs) for _ in hs]
    C = chrf()
    one = C.CHRF(**o, keep_items=True).update(hs, rs_list)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(hs)), max_size=3)))
    bounds = list(zip([0] + cuts, cuts + [len(hs)]))
    shards = [C.CHRF(**o, keep_items=True).update(hs[a:b], rs_list[a:b]) for a, b in bounds]
    merged = shards[0]
    for s in shards[1:]: merged = merged + s
    assert merged.state['stats'].tolist() == one.state['stats'].tolist() and merged.state['n'] == one.state['n']
    assert merged.compute() == one.compute()
    per = one.per_item()[C._key(o['word_order'])]
    assert per == [C.sentence_chrf(h, r, **o).score for h, r in zip(hs, rs_list)]
    stats = C.chrf_stats_from_rows(one.item_stats()['stats'], o['word_order'])
    assert stats == one.stats and one.score_stats(stats).score == one.compute().score


def test_small_chunks_count_the_same(monkeypatch):
    rng = random.Random(0)
    hs = [''.join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 60))) for _ in range(200)]
    rs_list = [[''.join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 60))) for _ in range(rng.randint(1, 3))] for _ in hs]
    C = chrf()
    whole = C.CHRF(word_order=2).segment_stats(hs, rs_list)
    monkeypatch.setattr(C, '_CHUNK', 7)
    np.testing.assert_array_equal(C.CHRF(word_order=2).segment_stats(hs, rs_list), whole)


def test_long_text_equals_sacrebleu():
    rng = random.Random(1)
    words = ['the', 'cat', 'sat,', 'on', '(the)', 'mat.', 'Ünïcödé', '🍕']
    h = ' '.join(rng.choice(words) for _ in range(3000))
    rs = [' '.join(rng.choice(words) for _ in range(2500)) for _ in range(2)]
    for o in (dict(), dict(word_order=2, eps_smoothing=True)):
        assert chrf().sentence_chrf(h, rs, **o).score == SacreCHRF(**o).sentence_score(h, rs).score / 100
