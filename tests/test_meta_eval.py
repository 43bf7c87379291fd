"""Meta-evaluation (nbs/08b_meta_eval.ipynb): parity with scipy, hand-derived cases, the bootstrap, the permutation
test and every documented input error.

Parity: Kendall's tau-b and tau-c against `scipy.stats.kendalltau(variant=...)`, Spearman against `spearmanr`,
Pearson against `pearsonr`, to 1e-12, on seeded random data with ties and constant inputs, and with weights (the
data with groups repeated, as a bootstrap resample has them). acc_eq's tie calibration against a loop over every
candidate epsilon written from Deutsch et al. (2023)'s definition.
"""
import json

import numpy as np
import pytest
import scipy.stats as st
from fastcore import test as ft

from cah_metrics.io import InputError
from cah_metrics.meta_eval import (PairCounts, acc_eq, agree, kendall_tau, pair_counts, pairwise_accuracy, pearson,
                                   permutation_test, read_judgments, read_scores, spearman, tau_like, tie_calibration)
from cah_metrics import meta_eval as M


def scipy_or_none(f, x, y):
    "scipy's statistic, None where it is undefined (fewer than two items, or a constant input)."
    if len(x) < 2 or np.ptp(x) == 0 or np.ptp(y) == 0: return None
    return float(f(x, y).statistic)


STATS = [(lambda x, y: kendall_tau(x, y, 'b'), st.kendalltau),
         (lambda x, y: kendall_tau(x, y, 'c'), lambda a, b: st.kendalltau(a, b, variant='c')),
         (spearman, st.spearmanr), (pearson, st.pearsonr)]


@pytest.mark.parametrize('seed', range(5))
def test_scipy_parity_random(seed):
    g = np.random.default_rng(seed)
    for t in range(60):
        n = int(g.integers(2, 80))
        x = np.round(g.normal(size=n) * g.integers(1, 4))
        y = np.round(g.normal(size=n), 1) if t % 2 else g.normal(size=n)
        for ours, theirs in STATS:
            a, b = ours(x, y), scipy_or_none(theirs, x, y)
            assert (a is None) == (b is None)
            if a is not None: ft.test_close(a, b, eps=1e-12)


@pytest.mark.parametrize('matrix', [True, False])
def test_weighted_equals_repeated_data(matrix):
    g = np.random.default_rng(11)
    keys = [('kendall_tau_b', st.kendalltau), ('kendall_tau_c', lambda a, b: st.kendalltau(a, b, variant='c')),
            ('spearman', st.spearmanr), ('pearson', st.pearsonr)]
    for _ in range(40):
        n = int(g.integers(2, 40))
        x, y = np.round(g.normal(size=n) * 2), np.round(g.normal(size=n), 1)
        unit = np.unique(g.integers(0, 7, n), return_inverse=True)[1]
        C = g.integers(0, 4, size=(5, unit.max() + 1)).astype(float)
        res = M._pooled_stats(M.Pooled(x, y, unit, matrix=matrix), C)
        for row in range(5):
            w = C[row][unit].astype(int)
            xe, ye = np.repeat(x, w), np.repeat(y, w)
            for key, f in keys:
                theirs = scipy_or_none(f, xe, ye)
                assert np.isnan(res[key][row]) == (theirs is None)
                if theirs is not None: ft.test_close(res[key][row], theirs, eps=1e-12)


def test_three_item_group_by_hand():
    # h = (1, 2, 3), m = (0.1, 0.3, 0.2): pairs (1,2) C, (1,3) C, (2,3) D
    c = pair_counts([1, 2, 3], [0.1, 0.3, 0.2])
    ft.test_eq(c, PairCounts(2, 1, 0, 0, 0))
    ft.test_close(pairwise_accuracy(c), 2 / 3, eps=1e-15)
    ft.test_close(acc_eq(c), 2 / 3, eps=1e-15)
    ft.test_close(tau_like(c), (2 - 1) / (2 + 1), eps=1e-15)
    # h = (1, 1, 3), m = (2, 2, 1): (1,2) tied by both, (1,3) and (2,3) D
    ft.test_eq(pair_counts([1, 1, 3], [2, 2, 1]), PairCounts(0, 2, 0, 0, 1))
    # a metric tie on an ordered pair: half a point, and Discordant for tau-like
    t = pair_counts([1, 2, 3], [0, 0, 1])           # (1,2) T_m, (1,3) C, (2,3) C
    ft.test_eq(t, PairCounts(2, 0, 0, 1, 0))
    ft.test_close(pairwise_accuracy(t), 2.5 / 3, eps=1e-15)
    ft.test_close(tau_like(t), (2 - 1) / 3, eps=1e-15)


def test_tie_calibration_by_hand_and_by_loops():
    # (dh, dm) = (1, .5), (0, .1), (0, -.3), (2, -.2): right at eps 0: 1; 0.1: 2; 0.2: 2; 0.3: 3; 0.5: 2 of 4
    ft.test_eq(tie_calibration([1, 0, 0, 2], [0.5, 0.1, -0.3, -0.2]), (0.3, 0.75))
    g = np.random.default_rng(3)
    for _ in range(200):
        n = int(g.integers(1, 25))
        dh, dm = g.integers(-2, 3, n).astype(float), np.round(g.normal(size=n), 1)
        best = (-1.0, None)
        for e in sorted({0.0, *np.abs(dm).tolist()}):
            right = sum((h == 0 and abs(d) <= e) or (h != 0 and abs(d) > e and (h > 0) == (d > 0)) for h, d in zip(dh, dm))
            if right / n > best[0] + 1e-15: best = (right / n, e)
        e, a = tie_calibration(dh, dm)
        ft.test_eq(e, best[1])
        ft.test_close(a, best[0], eps=1e-12)


def test_constant_inputs_are_none():
    for f in (lambda x, y: kendall_tau(x, y), lambda x, y: kendall_tau(x, y, 'c'), spearman, pearson):
        assert f([1, 2, 3], [4, 4, 4]) is None
        assert f([2, 2, 2], [1, 2, 3]) is None
    assert pairwise_accuracy(PairCounts(0, 0, 2, 0, 1)) is None
    sc = [{'id': i, 'score': 1.0, 'group': i // 3} for i in range(6)]
    r = agree(sc, [{'id': i, 'rating': i} for i in range(6)], n_resamples=20)
    for name in ('kendall_tau_b', 'spearman', 'pearson', 'pearson_mean_per_group', 'spearman_of_group_means'):
        assert r[name].value is None, name
    ft.test_eq(r.undefined_groups, 2)


SCORES = [{'id': i, 'score': s, 'group': g} for i, s, g in
          [(1, .1, 'p'), (2, .3, 'p'), (3, .2, 'p'), (4, 2, 'q'), (5, 2, 'q'), (6, 1, 'q'), (7, 9, 'r')]]
RATINGS = [{'id': i, 'rating': r} for i, r in [(1, 1), (2, 2), (3, 3), (4, 1), (5, 1), (6, 3), (7, 5)]]


def test_agree_table_and_groups():
    r = agree(SCORES, RATINGS, n_resamples=200)
    ft.test_close(r['pairwise_accuracy'].value, 2 / 5, eps=1e-15)     # C = 2, D = 3
    ft.test_close(r['acc_eq'].value, 3 / 6, eps=1e-15)                # + the pair tied by both
    ft.test_eq((r.n_groups, r.left_out), (3, 1))
    ft.test_close(r['spearman_mean_per_group'].value, (0.5 - 1) / 2, eps=1e-12)
    means_h, means_m = [2, 5 / 3], [0.2, 5 / 3]
    ft.test_close(r['pearson_of_group_means'].value, np.sign(np.corrcoef(means_h, means_m)[0, 1]), eps=1e-12)
    ft.test_close(r['kendall_tau_c'].value, st.kendalltau([1, 2, 3, 1, 1, 3, 5], [.1, .3, .2, 2, 2, 1, 9], variant='c').statistic, eps=1e-12)
    ft.test_eq(repr(r), repr(agree(SCORES, RATINGS, n_resamples=200)))
    d = json.loads(json.dumps(r.to_dict()))
    ft.test_eq([s['name'] for s in d['stats']][:3], ['pairwise_accuracy', 'acc_eq', 'tau_like'])
    lo, hi = r['pairwise_accuracy'].low, r['pairwise_accuracy'].high
    assert lo <= hi
    assert 'statistic' in r.format() and '95% interval' in r.format()


def test_agree_bca_and_files(tmp_path):
    s, j = tmp_path / 's.jsonl', tmp_path / 'j.jsonl'
    s.write_text(''.join(json.dumps(x) + '\n' for x in SCORES))
    j.write_text(''.join(json.dumps(x) + '\n' for x in RATINGS))
    a, b = agree(s, j, n_resamples=100, method='bca'), agree(SCORES, RATINGS, n_resamples=100, method='bca')
    ft.test_eq(a.stats, b.stats)


def test_agree_picks_and_preferences():
    picks = [{'group': 'p', 'candidates': [1, 2, 3], 'pick': 2}, {'group': 'q', 'candidates': [4, 5, 6], 'pick': 6}]
    r = agree(SCORES, picks, n_resamples=50)
    ft.test_close(r['top1_accuracy'].value, 0.5, eps=1e-15)
    ft.test_close(r['ndcg@3'].value, (1 + 1 / np.log2(4)) / 2, eps=1e-15)   # round q: the pick is third
    # tied top: candidates 4 and 5 share the top score 2; picking 4 earns half
    ft.test_close(agree(SCORES, [{'group': 'q', 'candidates': [4, 5, 6], 'pick': 4}], n_resamples=5)['top1_accuracy'].value, 0.5, eps=1e-15)
    prefs = [{'group': 'p', 'preferred': 2, 'other': 1}, {'group': 'q', 'preferred': 6, 'other': 4}, {'group': 'q', 'preferred': 4, 'other': 5}]
    r = agree(SCORES, prefs, n_resamples=50)
    ft.test_close(r['pairwise_accuracy'].value, (1 + 0 + 0.5) / 3, eps=1e-15)
    ft.test_close(r['tau_like'].value, (1 - 2) / 3, eps=1e-15)


def test_permutation_test_known_p_values():
    ft.test_eq(permutation_test(SCORES, SCORES, RATINGS).p_value, 1.0)
    two = [{'id': i, 'score': i, 'group': i // 2} for i in range(6)]
    neg = [{**s, 'score': -s['score']} for s in two]
    rates = [{'id': i, 'rating': i} for i in range(6)]
    p = permutation_test(two, neg, rates)         # exact: |A* - B*| >= 1 in 2 of the 8 swaps
    ft.test_eq((p.diff, p.p_value, p.exact), (1.0, 0.25, True))
    q = permutation_test(two, neg, rates, n_permutations=5)
    assert not q.exact and 0 < q.p_value <= 1


ERRORS = [
    ([{'id': 'a', 'score': 1}, {'id': 'a', 'score': 2}], [{'id': 'a', 'rating': 1}], '<scores>:2: duplicate id'),
    ([{'id': 'a', 'score': 'x'}], [{'id': 'a', 'rating': 1}], '<scores>:1: score must be a finite number'),
    ([{'id': 'a', 'score': True}], [{'id': 'a', 'rating': 1}], '<scores>:1: score must be a finite number'),
    ([{'id': 'a', 'score': 1}], [{'id': 'b', 'rating': 1}], '<judgments>:1: unknown id'),
    ([{'id': 'a', 'score': 1}], [{'id': 'a', 'rating': 1}, {'id': 'a', 'rating': 2}], '<judgments>:2: duplicate id'),
    ([{'id': 'a', 'score': 1}, {'id': 'b', 'score': 1}], [{'group': 1, 'candidates': ['a', 'b'], 'pick': 'z'}], 'is not among the candidates'),
    ([{'id': 'a', 'score': 1}], [{'group': 1, 'candidates': ['a'], 'pick': 'a'}], 'a single candidate'),
    ([{'id': 'a', 'score': 1}, {'id': 'b', 'score': 1}], [{'id': 'a', 'rating': 1}, {'group': 1, 'preferred': 'a', 'other': 'b'}], '<judgments>:2: a preference judgment, but line 1'),
    ([{'id': 'a', 'score': 1}], [{'group': 1, 'preferred': 'a'}], "missing field 'other'"),
    ([{'id': 'a', 'score': 1}], [{'id': 'a'}], "a judgment needs `rating`"),
    ([{'id': 'a', 'score': 1}], [], '<judgments>: no judgments'),
    ([{'id': 'a', 'score': 1}], [{'id': 'a', 'rating': float('nan')}], 'rating must be a finite number'),
]


@pytest.mark.parametrize('scores,judgments,msg', ERRORS)
def test_input_errors(scores, judgments, msg):
    ft.test_fail(lambda: agree(scores, judgments, n_resamples=5), contains=msg)
    with pytest.raises(InputError): agree(scores, judgments, n_resamples=5)


def test_file_errors_name_the_line(tmp_path):
    s, j = tmp_path / 's.jsonl', tmp_path / 'j.jsonl'
    s.write_text('{"id": 1, "score": 0.5}\n{"id": 2, "score": 0.7}\n')
    j.write_text('{"id": 1, "rating": 2}\n{"id": 3, "rating": 1}\n')
    ft.test_fail(lambda: agree(s, j), contains=f'{j}:2: unknown id 3')
    j.write_text('{"id": 1, "rating": 2}\n\n')
    ft.test_fail(lambda: agree(s, j), contains=f'{j}:2: blank line')
    ft.test_fail(lambda: agree(s, tmp_path / 'missing.jsonl'), contains='no such file')
    ft.test_fail(lambda: agree(s, j, method='x'), contains="agree: method must be")
