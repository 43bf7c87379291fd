"""WER, CER, MER and WIL against jiwer 4.0 on random text (issue 33, item 1), their memory on a 100,000-word pair, and
what the Metric contract gives them with no edit elsewhere.

Hypothesis draws short texts from a small alphabet built to make every rule fire: a few words that repeat (so hits,
substitutions, deletions and insertions all occur, and equal-cost alignments with different splits too), capitals,
every kind of whitespace jiwer treats differently (one space, runs of spaces, a lone tab or newline, which does not
split words, a no-break space, leading and trailing whitespace), accents and an emoji; empty texts come up often.
Promised and checked here, with jiwer run live:

- each item's WER, MER, WIL and CER equal jiwer's of that pair (bit for bit; the library's promise is 1e-12), and its
  counts S, D, I, H equal jiwer's `process_words` / `process_characters`;
- the corpus equals jiwer's list input with one reference per item; with several references, it equals jiwer's corpus
  of the references our rule chooses (per item the first with the fewest errors, each scored by jiwer alone);
- `lowercase=True` equals jiwer with `ToLowerCase` before its default transform;
- shards merge into the one-pass state, and each item's per-item value is the measure of that item alone;
- a 100,000-word pair aligns in a child process whose address space is capped at 2 GiB, with its peak resident memory
  (ru_maxrss) printed and checked, and the same counts as jiwer;
- the contract: a bootstrap interval and a paired test (`significance`), `compare_datasets`, `cah-metrics score` and
  `distributed.evaluate` take the four metrics by name, with the numbers of the metric itself.
"""
import json, os, random, resource, subprocess, sys, textwrap

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

jiwer = pytest.importorskip('jiwer')
from jiwer.transformations import cer_default, wer_default

NAMES = ('wer', 'mer', 'wil', 'cer')


def W():
    """The module under test, imported when a test runs, not when pytest collects this file: importing it registers
    the four names, and the registry-wide tests list the registered metrics at collection."""
    import cah_metrics.wer
    return cah_metrics.wer


SETTINGS = settings(max_examples=300, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck))
TOKENS = ['a', 'b', 'c', 'ab', 'A', 'B', 'É', 'é', '🍕', ' ', ' ', '  ', '   ', '\t', '\n', ' \t', '\u00a0', '.', "'"]
text = st.lists(st.sampled_from(TOKENS), max_size=14).map(''.join)
refs = st.lists(text, min_size=1, max_size=3)


def jiwer_of(name, reference, hypothesis, lowercase=False):
    "jiwer's measure `name` of one pair or of two lists, with its default transforms (lowercased first on request)."
    f = {'wer': jiwer.wer, 'mer': jiwer.mer, 'wil': jiwer.wil, 'cer': jiwer.cer}[name]
    if not lowercase: return f(reference, hypothesis)
    t = jiwer.Compose([jiwer.ToLowerCase(), cer_default if name == 'cer' else wer_default])
    return f(reference, hypothesis, reference_transform=t, hypothesis_transform=t)


def jiwer_counts(name, reference, hypothesis):
    out = (jiwer.process_characters if name == 'cer' else jiwer.process_words)(reference, hypothesis)
    return [out.substitutions, out.deletions, out.insertions, out.hits]


def chosen(name, hyp, rs, lowercase):
    "The reference our rule picks, by jiwer's own counts: the first with the fewest errors."
    low = (lambda t: t.lower()) if lowercase else (lambda t: t)
    errors = [sum(jiwer_counts(name, low(r), low(hyp))[:3]) for r in rs]
    return rs[errors.index(min(errors))]


def metric(name, **options):
    from cah_metrics.core import load
    W()
    return load(name, **options)


@SETTINGS
@given(h=text, r=text, lowercase=st.booleans())
def test_one_pair_equals_jiwer(h, r, lowercase):
    for name in NAMES:
        ours = metric(name, lowercase=lowercase).compute([h], [r])
        assert ours[name] == jiwer_of(name, r, h, lowercase), (name, h, r)
        if not lowercase:
            unit = 'char' if name == 'cer' else 'word'
            assert W().edit_stats_array(h, r, unit=unit)[0].tolist() == jiwer_counts(name, r, h)


@SETTINGS
@given(hs=st.lists(text, min_size=1, max_size=6), data=st.data(), lowercase=st.booleans())
def test_corpus_equals_jiwer(hs, data, lowercase):
    rs_list = [data.draw(refs) for _ in hs]
    one = [rs[0] for rs in rs_list]
    for name in NAMES:
        assert metric(name, lowercase=lowercase).compute(hs, one)[name] == jiwer_of(name, one, hs, lowercase)
        best = [chosen(name, h, rs, lowercase) for h, rs in zip(hs, rs_list)]
        m = metric(name, lowercase=lowercase, keep_items=True).update(hs, rs_list)
        assert m.compute()[name] == jiwer_of(name, best, hs, lowercase), (name, hs, rs_list)
        assert m.per_item()[name] == [jiwer_of(name, b, h, lowercase) for h, b in zip(hs, best)]


@settings(SETTINGS, max_examples=100)
@given(hs=st.lists(text, max_size=8), data=st.data())
def test_shards_merge_to_one_pass(hs, data):
    rs_list = [data.draw(refs) for _ in hs]
    cuts = sorted(data.draw(st.lists(st.integers(0, len(hs)), max_size=3)))
    bounds = list(zip([0] + cuts, cuts + [len(hs)]))
    for name in NAMES:
        one = metric(name, keep_items=True).update(hs, rs_list)
        merged = metric(name, keep_items=True)
        for a, b in bounds: merged = merged + metric(name, keep_items=True).update(hs[a:b], rs_list[a:b])
        assert merged.state['stats'].tolist() == one.state['stats'].tolist() and merged.state['n'] == one.state['n']
        assert merged.compute() == one.compute() and merged.per_item() == one.per_item()


def test_functional_forms_equal_the_metrics():
    hs, rs = ["the cat sat", "a dog", ""], [["the cat sat down", "cat"], "the dog", "x y"]
    for name in NAMES:
        f = getattr(W(), f'corpus_{name}')
        assert f(hs, rs) == metric(name).compute(hs, rs) and f(hs, rs, lowercase=True) == metric(name, lowercase=True).compute(hs, rs)


# ---- memory: a 100,000-word pair -----------------------------------------------------------------------------------
CAP = 2 * 1024 ** 3        # bytes of address space for the child


def test_100k_word_pair_runs_under_2_gib():
    """rapidfuzz aligns long sequences by Hirschberg's divide and conquer (O(N + M) memory): a pair of 100,000-word
    texts of card words, a quarter of them changed, aligns under a 2 GiB cap on the child's address space; its peak
    resident memory (ru_maxrss, read in the child after the alignment) is printed and must stay under 2 GiB too, and
    its counts are jiwer's (which aligns with the same rapidfuzz, under the same cap)."""
    code = textwrap.dedent("""
        import random, resource, sys
        from cah_metrics.corpora import bundled_pack
        from cah_metrics.wer import WER
        packs = [bundled_pack(name) for name in ('cah_main_game', 'cards_against_coffee')]
        words = ' '.join(c['text'] for pk in packs for part in (pk.prompts, pk.answers) for c in part).split()
        rng = random.Random(0)
        ref = [rng.choice(words) for _ in range(100_000)]
        hyp = [w if rng.random() > 0.25 else rng.choice(words) for w in ref]
        hyp = [w for w in hyp if rng.random() > 0.02]
        ref, hyp = ' '.join(ref), ' '.join(hyp)
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        score = WER().compute([hyp], [ref])
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        import jiwer
        out = jiwer.process_words(ref, hyp)
        same = [score[k] for k in ('substitutions', 'deletions', 'insertions', 'hits')] == [
            out.substitutions, out.deletions, out.insertions, out.hits] and score['wer'] == out.wer
        print(before, peak, score['reference_length'], score['wer'], same)
    """)
    def limit(): resource.setrlimit(resource.RLIMIT_AS, (CAP, CAP))
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = {**os.environ, 'PYTHONPATH': root + os.pathsep + os.environ.get('PYTHONPATH', '')}
    r = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, preexec_fn=limit, timeout=600, env=env)
    assert r.returncode == 0, f"exit {r.returncode} under a 2 GiB cap:\n{r.stderr[-3000:]}"
    before, peak, n, wer, same = r.stdout.split()
    print(f"100,000-word pair: peak RSS {int(peak) / 1024:.0f} MiB (before the alignment {int(before) / 1024:.0f} MiB), WER {wer}")
    assert int(n) == 100_000 and same == 'True'
    assert int(peak) * 1024 < CAP and int(peak) - int(before) < 256 * 1024      # KiB: well under 2 GiB, O(N + M) extra


# ---- the contract: what the layers above give the four metrics, by name --------------------------------------------
HYPS = [f"the cat number {i} sat on the mat" for i in range(30)]
REFS = [f"the cat number {i} sat on a mat" if i % 3 else f"a cat {i} sat on the mat today" for i in range(30)]
WORSE = [f"a dog {i} sat on mat" for i in range(30)]


@pytest.mark.parametrize('name', NAMES)
def test_bootstrap_and_paired_test(name):
    from cah_metrics.significance import bootstrap, paired_bootstrap, paired_randomization, resample_keys
    assert resample_keys(name) == (name,)
    b = bootstrap(name, HYPS, REFS, n_resamples=300)
    assert b.score == metric(name).compute(HYPS, REFS)[name] and b.low <= b.score <= b.high and b.low < b.high
    assert b.signature.startswith(f"{name}|nrefs:1|tok:jiwer-")
    # the resampled values are the metric's own scores of the resampled items
    m = metric(name, keep_items=True).update(HYPS, REFS)
    plan = m.resampling().plan(m.item_stats(), name)
    idx = np.random.default_rng(0).integers(0, len(HYPS), len(HYPS))
    want = metric(name).compute([HYPS[i] for i in idx], [REFS[i] for i in idx])[name]
    assert plan.score(plan.rows[idx].sum(axis=0)[None])[0] == want
    p = paired_bootstrap(name, WORSE, {'better': HYPS}, REFS, n_resamples=300)
    assert p.systems[0].diff == metric(name).compute(HYPS, REFS)[name] - metric(name).compute(WORSE, REFS)[name] < 0
    assert p.systems[0].p_value < 0.01 and p.systems[0].significant
    ar = paired_randomization(name, WORSE, {'better': HYPS}, REFS, trials=300, n_resamples=0)
    assert ar.systems[0].p_value < 0.01


def test_compare_datasets(tmp_path):
    from cah_metrics.comparison import compare_datasets
    from cah_metrics.significance import paired_bootstrap
    for fname, lines in (('base.txt', WORSE), ('sys.txt', HYPS), ('refs.txt', REFS)): (tmp_path / fname).write_text('\n'.join(lines) + '\n')
    out = compare_datasets(tmp_path / 'base.txt', {'sys': tmp_path / 'sys.txt'}, tmp_path / 'refs.txt', metrics=list(NAMES), n_resamples=200)
    for name in NAMES:
        direct = paired_bootstrap(name, WORSE, {'sys': HYPS}, REFS, n_resamples=200, baseline_name='base')
        assert out[name].systems[0].diff == direct.systems[0].diff and out[name].systems[0].p_value == direct.systems[0].p_value


def test_cli_score(tmp_path, capsys):
    from cah_metrics.cli import main
    (tmp_path / 'p.txt').write_text('\n'.join(HYPS) + '\n'); (tmp_path / 'r.txt').write_text('\n'.join(REFS) + '\n')
    args = ['score', '--predictions', str(tmp_path / 'p.txt'), '--references', str(tmp_path / 'r.txt'), '--metrics', *NAMES, '--json']
    assert main(args) == 0
    report = json.loads(capsys.readouterr().out)
    for name in NAMES:
        assert report[name] == jiwer_of(name, REFS, HYPS)
        assert report['signatures'][name] == str(metric(name).compute(HYPS, REFS).signature)
    assert main(args + ['--lowercase']) == 0
    lower = json.loads(capsys.readouterr().out)
    assert lower['signatures']['wer'].split('|')[3] == 'case:lc' and lower['wer'] == jiwer_of('wer', REFS, HYPS, lowercase=True)
    per = tmp_path / 'per.jsonl'
    assert main(args[:-1] + ['--per-example', str(per)]) == 0
    rows = [json.loads(line) for line in per.read_text().splitlines()]
    assert [row['wer'] for row in rows] == [jiwer.wer(r, h) for h, r in zip(HYPS, REFS)]


def test_distributed_evaluate():
    from cah_metrics import distributed as D
    from cah_metrics.evaluate import score_dataset
    refs = [[r, f"a cat {i} sat"] for i, r in enumerate(REFS)]           # several references
    cols = {'predictions': HYPS, 'references': refs}
    rep = D.evaluate(cols, list(NAMES), partitions=[7, 0, 13, 10], intervals=True, n_resamples=200)
    one = score_dataset(HYPS, refs, metrics=list(NAMES))[0]
    for name in NAMES:
        assert rep[name] == one[name] == metric(name).compute(HYPS, refs)[name]
        iv = rep['intervals'][name]
        assert iv['low'] <= rep[name] <= iv['high']
    sys_cols = {'predictions': HYPS + WORSE, 'references': REFS + REFS, 'systems': ['A'] * 30 + ['B'] * 30,
                'ids': [f"id{i}" for i in range(30)] * 2}
    paired = D.evaluate(sys_cols, ['wer'], baseline='B', n_resamples=200, partitions=3)['paired']['wer']
    assert paired['systems'][0]['name'] == 'A' and paired['systems'][0]['diff'] < 0 and paired['systems'][0]['p_value'] < 0.01
