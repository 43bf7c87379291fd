"""cah_metrics.embedding_eval and the modules it is built on (issue 18; knowledge-graph embedding
evaluation, design 003): the five scores on hand-worked vectors, ranks with ties by hand and by
definition (and against PyKEEN where it is installed), clustering metrics against scikit-learn,
correlations against SciPy, bad input, the once-per-string cache, the shipped benchmark data's
integrity, and link prediction on CoDEx-S against a direct computation. The notebooks
nbs/11a_encoders.ipynb to nbs/11e_embedding_eval.ipynb have the prose, the model comparison and the
longer checks."""
import hashlib, json, math, re, subprocess, sys
from pathlib import Path

import numpy as np
import pytest
from scipy import stats
from sklearn import metrics as skm

import cah_metrics.embedding_eval as ee
from cah_metrics.embedding_eval import (CachedEncoder, PrecomputedEncoder, RandomEncoder, TfidfLsaEncoder, clustering_agreement,
                                        clustering_score, compare_encoders, composite, embedding_quality_score, entity_recognition_score,
                                        evaluate_encoder, knowledge_graph_score, link_prediction, load_codex, load_sts, load_test_set,
                                        plot_comparison, rank_metrics, rank_vectors, score_band, semantic_similarity_score, silhouette,
                                        similarity_correlation, sts_correlation, subgraph_score, triple_classification)
from cah_metrics.kg_scores import auc

DATA = Path(__file__).resolve().parent / 'data'
X4 = np.array([[1, 0], [0.6, 0.8], [-1, 0], [-0.6, -0.8]])


@pytest.fixture(autouse=True)
def _one_thread():
    "Small products run faster on one BLAS thread than on two, far faster on a shared CPU."
    from threadpoolctl import threadpool_limits
    with threadpool_limits(1): yield


@pytest.fixture(scope='module')
def kg(): return load_codex(DATA / 'codex_s')


class Counting:
    "An encoder that records every batch it is asked for."
    name = 'counting'
    def __init__(self, dim=8): self.batches, self.dim = [], dim
    def encode(self, texts): self.batches.append(list(texts)); return RandomEncoder(self.dim).encode(texts)


# ---- the five design scores, by hand -------------------------------------------------------------------------------
def test_semantic_similarity_by_hand():
    "cosines 1, 0, 0.6 against 0.9, 0.1, 0.6: all within 0.1, MAE 0.2/3, r = 183/sqrt(114 * 294)."
    s = semantic_similarity_score([[1, 0]] * 3, [[1, 0], [0, 1], [0.6, 0.8]], [0.9, 0.1, 0.6], n_resamples=300)
    r = 183 / math.sqrt(114 * 294)
    assert math.isclose(s.accuracy, 1.0) and math.isclose(s.correlation, r, abs_tol=1e-12) and math.isclose(s.mae, 0.2 / 3, abs_tol=1e-12)
    assert math.isclose(s.score, 0.4 + 0.4 * r + 0.2 * (1 - 0.2 / 3), abs_tol=1e-12) and s.ci[0] <= s.score <= s.ci[1]
    neg = semantic_similarity_score([[1, 0]] * 3, [[1, 0], [0, 1], [0.6, 0.8]], [0.1, 0.9, 0.3], n_resamples=0)
    assert neg.correlation < 0 and math.isclose(neg.score_corrected - neg.score, -0.4 * neg.correlation, abs_tol=1e-12)


def test_clustering_by_hand():
    "Two clusters of cosine 0.6 opposite each other: silhouette 7/9, coherence 0.6, separation 1.8."
    c = clustering_score(X4, ['a', 'a', 'b', 'b'])
    assert np.allclose([c.silhouette, c.coherence, c.separation, c.ari, c.v_measure], [7 / 9, 0.6, 1.8, 1, 1], atol=1e-12)
    assert math.isclose(c.score, 0.5 * 7 / 9 + 0.3 * 0.6 + 0.2 * 1.8, abs_tol=1e-12)
    crossed = clustering_score(X4, ['a', 'b', 'a', 'b'])        # KMeans still finds the tight pairs; the themes are crossed
    assert np.allclose([crossed.silhouette, crossed.coherence, crossed.separation, crossed.ari], [7 / 9, -1, 1, -0.5], atol=1e-12)


def test_entity_recognition_by_hand():
    "Silhouette (5/7 + 1/11) / 2 = 31/77 of two philosophers and two works; text cosines 1, 0.8, 1, 0.8."
    E = np.array([[1, 0], [0.8, 0.6], [0, 1], [0.6, 0.8]]); T = np.array([[1., 0], [1, 0], [0, 1], [0, 1]])
    e = entity_recognition_score(E, ['P', 'P', 'W', 'W'], T)
    assert np.allclose([e.silhouette, e.similarity, e.score], [31 / 77, 0.9, 0.6 * 31 / 77 + 0.36], atol=1e-12)
    twice = entity_recognition_score(np.vstack([E, E[:1]]), ['P', 'P', 'W', 'W', 'P'], np.vstack([T, T[:1]]))
    assert math.isclose(twice.silhouette, 31 / 77, abs_tol=1e-12) and twice.n_entities == 4   # a repeated annotation is one row


def test_knowledge_graph_by_hand():
    "A triangle and a tail: coherence 0.35, density 1/3, undirected clustering 7/12, score 0.415, AUC 1."
    vec = {'A': [1, 0], 'B': [0.6, 0.8], 'C': [0, 1], 'D': [-1, 0]}
    g = knowledge_graph_score([('A', 'r', 'B'), ('B', 'r', 'C'), ('A', 'r', 'C'), ('C', 'r', 'D')], vec)
    assert np.allclose([g.coherence, g.density, g.clustering, g.score, g.score_corrected], [0.35, 1 / 3, 7 / 12, 0.415, 1.0], atol=1e-12)
    full = knowledge_graph_score([(a, 'r', b) for a in 'ABCD' for b in 'ABCD' if a != b], vec)
    assert math.isclose(full.score - 0.4 * full.coherence, 0.45, abs_tol=1e-12) and full.score_corrected == 0.5   # density capped at 0.5


def test_embedding_quality_by_hand():
    "(3, 0) and (0, 1): diversity 1, variance 5/4 (capped), norm ratio 1/2; unit variance 1/2."
    q = embedding_quality_score([[3, 0], [0, 1]])
    assert np.allclose([q.diversity, q.variance, q.norm_ratio, q.score, q.unit_variance, q.score_corrected],
                       [1, 1.25, 0.5, 0.85, 0.5, 0.7], atol=1e-12)


def test_composite_and_bands():
    c = composite(dict(zip(ee.SCORES, (0.1, 0.2, 0.3, 0.4, 0.5))))
    assert math.isclose(c.score, 0.3) and c.band == 'moderate'
    assert [score_band(x) for x in (-1, 0.29, 0.3, 0.5, 0.7)] == ['poor', 'poor', 'moderate', 'good', 'excellent']


# ---- correlations and clustering metrics against the reference libraries --------------------------------------------
def test_correlations_equal_scipy():
    rng = np.random.default_rng(3)
    for trial in range(100):
        n = int(rng.integers(3, 80))
        p, g = (rng.integers(0, 4, n) / 3 if trial % 2 else rng.normal(size=n)), rng.integers(0, 11, n) / 2
        if np.ptp(p) == 0 or np.ptp(g) == 0: continue
        r = similarity_correlation(p, g)
        np.testing.assert_allclose([r.pearson, r.pearson_p, r.spearman, r.spearman_p, r.kendall_tau_b, r.kendall_p],
                                   [*stats.pearsonr(p, g), *stats.spearmanr(p, g), *stats.kendalltau(p, g)], rtol=0, atol=1e-10)
    c = similarity_correlation([0.5] * 4, [1, 2, 3, 4])      # constant: None, not NaN or 0
    assert (c.pearson, c.spearman, c.kendall_tau_b) == (None,) * 3
    assert (c.pearson_p, c.spearman_p, c.kendall_p) == (None,) * 3
    assert set(c.to_dict()) == {'n', 'pearson', 'pearson_p', 'spearman', 'spearman_p', 'kendall_tau_b', 'kendall_p', 'mae', 'within_0.1'}
    assert json.loads(json.dumps(c.to_dict()))['pearson'] is None
    assert math.isclose(c.mae, (0.3 + 0.1 + 0.1 + 0.3) / 4)   # gold 1..4 on 0-5: 0.2, 0.4, 0.6, 0.8


@pytest.mark.parametrize('scale', [1e-300, 1e-170, 1.0, 1e160, 1e200, 1e300])
def test_correlations_any_scale(scale):
    "Issue 31: x 1e-300 gave Pearson -1.0 (squares underflowed), x 1e200 -0.0 (overflowed)."
    x, g = [v * scale for v in [1, 3, 2, 4]], [1, 2, 3, 1]
    r = similarity_correlation(x, g)
    # deviations: (-1.5, .5, -.5, 1.5) and (-.75, .25, 1.25, -.75): r = -0.5 / sqrt(5 x 2.75)
    assert math.isclose(r.pearson, -0.5 / math.sqrt(13.75), abs_tol=1e-12)
    ours = [r.pearson, r.pearson_p, r.spearman, r.spearman_p, r.kendall_tau_b, r.kendall_p]
    scipy_ = [*stats.pearsonr(x, g), *stats.spearmanr(x, g), *stats.kendalltau(x, g)]
    np.testing.assert_allclose(ours, scipy_, rtol=0, atol=1e-10)
    rng = np.random.default_rng(7)
    X, y = rng.normal(size=(24, 3)), np.arange(24) % 3
    X[y == 0] += 1.5
    for metric in ('cosine', 'euclidean'):   # sklearn's own is 0.0 at 1e160: unscaled reference
        ref = skm.silhouette_score(X, y, metric=metric)
        assert math.isclose(silhouette(X * scale, y, metric), ref, abs_tol=1e-10)
    A, B = rng.normal(size=(10, 4)), rng.normal(size=(10, 4))
    e = rng.uniform(0, 1, 10)
    sim = semantic_similarity_score(A * scale, B * scale, e, n_resamples=0).score
    assert math.isclose(sim, semantic_similarity_score(A, B, e, n_resamples=0).score, abs_tol=1e-12)
    q, q1 = (embedding_quality_score(M, n_resamples=50) for M in (A * scale, A))
    assert math.isclose(q.norm_ratio, q1.norm_ratio, abs_tol=1e-12)
    assert math.isclose(q.diversity, q1.diversity, abs_tol=1e-12) and np.isfinite(q.boot).all()
    if scale > 1e155: assert q.variance == math.inf     # the design's variance is in squared units
    if scale < 1e-155: assert q.variance == 0.0


def test_clustering_metrics_equal_sklearn():
    rng = np.random.default_rng(4)
    for trial in range(80):
        n = int(rng.integers(3, 50))
        X = rng.normal(size=(n, int(rng.integers(1, 6))))
        y = rng.integers(0, int(rng.integers(2, n)), n); y[:2] = [0, 1]
        for metric in ('cosine', 'euclidean'):
            assert math.isclose(silhouette(X, y, metric), skm.silhouette_score(X, y, metric=metric), abs_tol=1e-10)
        t, p = rng.integers(0, int(rng.integers(1, 6)), n), rng.integers(0, int(rng.integers(1, 6)), n)
        a = clustering_agreement(list(t), list(p))
        want = (*skm.homogeneity_completeness_v_measure(t, p), skm.normalized_mutual_info_score(t, p), skm.adjusted_rand_score(t, p))
        np.testing.assert_allclose([a.homogeneity, a.completeness, a.v_measure, a.nmi, a.ari], want, rtol=0, atol=1e-10)
    P, N = rng.integers(0, 5, 60) / 4, rng.integers(0, 5, 50) / 4
    want = skm.roc_auc_score([1] * 60 + [0] * 50, np.concatenate([P, N]))
    assert math.isclose(auc(P, N), want, abs_tol=1e-12)


# ---- ranks -------------------------------------------------------------------------------------------------------------
QUERIES = [{'head': 'x', 'relation': 'r', 'tail': 'c', 'target': 'tail', 'filtered_entities': ['a']},
           {'head': 'a', 'relation': 'r', 'tail': 'y', 'target': 'head'},
           {'head': 'x', 'relation': 's', 'tail': 'e', 'target': 'tail'}]
SCORES3 = [[0.9, 0.5, 0.5, 0.9, 0.1], [0.2] * 5, [0.1, 0.2, 0.3, 0.4, 0.5]]


def test_ranks_with_ties_by_hand():
    "Filtered: (2, 3), (1, 5), (1, 1) optimistic/pessimistic; raw: query 1 gets (3, 4)."
    r = rank_metrics(SCORES3, QUERIES, list('abcde'))
    assert r.optimistic.tolist() == [2, 1, 1] and r.pessimistic.tolist() == [3, 5, 1] and r.realistic.tolist() == [2.5, 3, 1]
    b = r.metrics['both']
    assert np.allclose([b['realistic']['mrr'], b['realistic']['hits@1'], b['realistic']['hits@3'], b['realistic']['hits@10'], b['realistic']['mean_rank']],
                       [(0.4 + 1 / 3 + 1) / 3, 1 / 3, 1, 1, 6.5 / 3], atol=1e-12)
    assert np.allclose([b['optimistic']['mrr'], b['pessimistic']['mrr'], r.metrics['tail']['realistic']['mrr'], r.metrics['head']['realistic']['mrr']],
                       [5 / 6, 23 / 45, 0.7, 1 / 3], atol=1e-12)
    raw = rank_metrics(SCORES3, QUERIES, list('abcde'), setting='raw')
    assert raw.optimistic.tolist() == [3, 1, 1] and raw.pessimistic.tolist() == [4, 5, 1]


def test_rank_vectors_equals_rank_metrics_on_cosines():
    rng = np.random.default_rng(5)
    Q, E = rng.normal(size=(40, 6)), rng.normal(size=(25, 6)); E[7] = E[3] * 2          # a duplicate direction: an exact tie
    ans, filt = rng.integers(0, 25, 40), [list(rng.choice(25, 3, replace=False)) for _ in range(40)]
    S = (Q / np.linalg.norm(Q, axis=1, keepdims=True)) @ (E / np.linalg.norm(E, axis=1, keepdims=True)).T
    S[:, 7] = S[:, 3]
    qs = [{'head': 0, 'relation': 0, 'tail': int(a), 'target': 'tail', 'filtered_entities': [int(x) for x in f]} for a, f in zip(ans, filt)]
    a, b = rank_vectors(Q, E, ans, filt), rank_metrics(S, qs, list(range(25)))
    assert a.optimistic.tolist() == b.optimistic.tolist() and a.pessimistic.tolist() == b.pessimistic.tolist()


def test_ranks_equal_pykeen():
    pytest.importorskip('pykeen')
    torch = pytest.importorskip('torch')
    from pykeen.evaluation import RankBasedEvaluator
    rng = np.random.default_rng(6)
    for _ in range(10):
        nq, ne = int(rng.integers(2, 30)), int(rng.integers(2, 20))
        S, true = rng.integers(0, 4, (nq, ne)) / 3.0, rng.integers(0, ne, nq)
        filt = [sorted(set(rng.choice(ne, int(rng.integers(0, ne)), replace=False).tolist()) - {int(t)}) for t in true]
        side = np.where(rng.random(nq) < 0.5, 'head', 'tail')
        ours = rank_metrics(S, [{'head': int(t), 'relation': 0, 'tail': int(t), 'target': str(s), 'filtered_entities': f} for t, f, s in zip(true, filt, side)], list(range(ne)))
        ev = RankBasedEvaluator(filtered=True)
        for sd in ('head', 'tail'):
            m = side == sd
            if not m.any(): continue
            sc = torch.tensor(S[m])
            for i, f in enumerate([filt[j] for j in np.flatnonzero(m)]): sc[i, f] = float('nan')    # PyKEEN's filter
            ev.process_scores_(hrt_batch=torch.zeros((int(m.sum()), 3), dtype=torch.long), target=sd, scores=sc,
                               true_scores=sc[torch.arange(len(sc)), torch.tensor(true[m])][:, None])
        res = ev.finalize()
        for s in ours.metrics:
            for rt in ee.RANK_TYPES:
                mo = ours.metrics[s][rt]
                for name, key in (('inverse_harmonic_mean_rank', 'mrr'), ('hits_at_1', 'hits@1'), ('hits_at_10', 'hits@10'), ('arithmetic_mean_rank', 'mean_rank')):
                    assert abs(res.get_metric(f'{s}.{rt}.{name}') - mo[key]) < 1e-6       # PyKEEN keeps ranks in float32


# ---- bad input ---------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize('call, message', [
    (lambda: clustering_score(np.zeros((0, 2)), []), "clustering_score: X must have at least 1 row"),
    (lambda: clustering_score(X4, ['a'] * 4), "clustering_score: labels must name at least 2 clusters, got 1"),
    (lambda: clustering_score(X4, ['a', 'a', 'a', 'b']), "clustering_score: cluster 'b' has one member"),
    (lambda: silhouette(X4, [0, 0, 0, 0]), "silhouette: labels must form at least 2 clusters"),
    (lambda: entity_recognition_score(X4, ['W'] * 4, X4), "entity_recognition_score: the silhouette needs at least 2 entity types"),
    (lambda: knowledge_graph_score([('A', 'r', 'Z')], {'A': [1, 0]}), "knowledge_graph_score: vectors has no vector for entity 'Z'"),
    (lambda: knowledge_graph_score([], {}), "knowledge_graph_score: triplets is empty"),
    (lambda: semantic_similarity_score([[1, np.nan]] * 2, [[1, 0]] * 2, [0.5, 0.5]), "semantic_similarity_score: A must be finite"),
    (lambda: semantic_similarity_score([[1, 0]] * 2, [[1, 0, 0]] * 2, [0.5, 0.5]), "semantic_similarity_score: A and B must have the same shape"),
    (lambda: embedding_quality_score([[np.inf, 0], [0, 1]]), "embedding_quality_score: X must be finite"),
    (lambda: rank_metrics(SCORES3, [*QUERIES[:2], {**QUERIES[2], 'tail': 'z'}], list('abcde')), "rank_metrics: queries[2]['tail'] 'z' is not one of entities"),
    (lambda: rank_vectors([[1, 0, 0]], [[1, 0]], [0]), "rank_vectors: query_vectors and entity_vectors must have the same dimension"),
    (lambda: clustering_agreement([], []), "clustering_agreement: labels_true and labels_pred are empty"),
    (lambda: evaluate_encoder('bert'), "evaluate_encoder: encoder must be one of minilm, tfidf, random"),
    (lambda: CachedEncoder('minilm'), "CachedEncoder: encoder must have an encode(texts) method, got str"),
    (lambda: PrecomputedEncoder({'a': [1, 2], 'b': [3]}), "PrecomputedEncoder: vectors is not a rectangular array"),
    (lambda: load_test_set({'concept_pairs': []}), "load_test_set: the test set has no clusters"),
])
def test_bad_input(call, message):
    with pytest.raises((TypeError, ValueError)) as e: call()
    assert message in str(e.value)


def test_test_set_errors_name_the_field():
    d = json.loads((Path(ee.__file__).parent / 'data' / 'kg_test_set.json').read_text(encoding='utf-8'))
    d['texts'][2]['entities'][0][1] = 'PERSON'
    with pytest.raises(ValueError, match=re.escape("texts[2].entities[0] has the unknown type 'PERSON'")): load_test_set(d)
    d = json.loads((Path(ee.__file__).parent / 'data' / 'kg_test_set.json').read_text(encoding='utf-8'))
    d['clusters']['logic'] = ['syllogism']
    with pytest.raises(ValueError, match=re.escape("clusters['logic'] must hold at least 2 strings, got 1")): load_test_set(d)


# ---- each string once, results as JSON -----------------------------------------------------------------------------------
def test_each_string_encoded_once_and_precomputed_equal():
    ts, enc = load_test_set(), Counting(16)
    r = evaluate_encoder(enc, ts, n_resamples=0)
    assert len(enc.batches) == 1 and len(enc.batches[0]) == len(set(enc.batches[0])) == len(set(ts.strings())) == r.n_texts
    vec = dict(zip(ts.strings(), RandomEncoder(16).encode(ts.strings())))
    assert evaluate_encoder(vec, ts, n_resamples=0, name='counting').to_dict() | {'seconds': 0} == r.to_dict() | {'seconds': 0}
    assert json.loads(json.dumps(r.to_dict()))['composite'] == r.composite
    assert '0x' not in repr(r) and repr(r) == repr(evaluate_encoder(Counting(16), ts, n_resamples=0))


def test_compare_encoders_encodes_each_string_once_per_run():
    "One cache per encoder for the test set and every benchmark: each distinct string reaches the encoder exactly once."
    enc = Counting(8)
    c = compare_encoders({'counting': enc}, data_dir=DATA, n_resamples=0, max_triples=20)
    sent = [t for b in enc.batches for t in b]
    assert len(sent) == len(set(sent)) and set(load_test_set().strings()) <= set(sent)
    assert set(c.benchmarks['counting']) == set(ee.BENCHMARKS) and c.benchmarks['counting']['link_prediction'].n_queries == 40


def test_design_score_intervals():
    "Every design score and the composite get an interval with n_resamples > 0, none with 0; shown in the table and to_dict."
    r = evaluate_encoder(RandomEncoder(16), n_resamples=200)
    for k in ee.SCORES: assert getattr(r, k).ci[0] <= getattr(r, k).score <= getattr(r, k).ci[1], k
    assert r.composite_ci[0] <= r.composite <= r.composite_ci[1]
    d = json.loads(json.dumps(r.to_dict()))
    assert all(len(d[k]['ci']) == 2 and 'boot' not in d[k] for k in ee.SCORES) and len(d['composite_ci']) == 2
    r0 = evaluate_encoder(RandomEncoder(16), n_resamples=0)
    assert r0.composite_ci is None and all(getattr(r0, k).ci is None for k in ee.SCORES)
    assert r0.composite == r.composite                                     # the resamples move only the intervals
    c = compare_encoders({'rnd': RandomEncoder(16)}, n_resamples=100)
    assert '[95% CI]' in c.table() and f"{c.results['rnd'].composite:.3f} [" in c.table()


def test_raw_setting_ignores_filtered_entities():
    "raw: filtered_entities is not read, so labels that are not entities raise nothing; filtered: they are an error."
    bad = [{**q, 'filtered_entities': ['zz', None]} for q in QUERIES]
    raw = rank_metrics(SCORES3, bad, list('abcde'), setting='raw')
    assert raw.optimistic.tolist() == [3, 1, 1] and raw.pessimistic.tolist() == [4, 5, 1] and raw.n_options.tolist() == [5, 5, 5]
    with pytest.raises(ValueError, match=re.escape("rank_metrics: queries[0]['filtered_entities'] holds 'zz', which is not one of entities")):
        rank_metrics(SCORES3, bad, list('abcde'))


def test_random_and_tfidf_encoders():
    r = RandomEncoder(dim=5)
    assert np.array_equal(r.encode(['a', 'b'])[[1, 0]], r.encode(['b', 'a']))
    t = TfidfLsaEncoder(corpus=['kant reason', 'reason duty', 'cake recipe', 'recipe cake'])
    assert t.encode(['reason']).shape == (1, 3) and t.encode([]).shape == (0, 3)


def test_compare_encoders_table_json_and_chart(tmp_path):
    c = compare_encoders({'tfidf': 'tfidf', 'rnd': RandomEncoder(seed=1)}, data_dir=DATA, benchmarks=['sts', 'link_prediction'],
                         n_resamples=100, max_triples=60)
    assert list(c.results) == ['tfidf', 'rnd'] and set(c.benchmarks['rnd']) == {'sts', 'link_prediction'}
    assert c.benchmarks['rnd']['link_prediction'].n_queries == 120
    back = json.loads(json.dumps(c.to_dict()))
    assert back['benchmarks']['tfidf']['sts']['correlation']['n'] == 375 and 'optimistic' not in back['benchmarks']['tfidf']['link_prediction']
    assert 'STS Spearman' in repr(c) and 'recommended:' in repr(c)
    fig = plot_comparison(c, tmp_path / 'chart.png')
    assert (tmp_path / 'chart.png').read_bytes()[:8] == b'\x89PNG\r\n\x1a\n' and len(fig.axes) == 2
    assert not list(tmp_path.glob('.*.tmp'))                                  # written atomically: no temporary file left


# ---- the shipped benchmark data -------------------------------------------------------------------------------------------
@pytest.mark.parametrize('folder', ['sts', 'codex_s'])
def test_data_matches_its_readme(folder):
    "Every sha256 in the folder's README is that of the file it names; every data file is listed."
    readme = (DATA / folder / 'README.md').read_text(encoding='utf-8')
    listed = dict(re.findall(r"`([\w.-]+\.(?:txt|jsonl))`[^\n]*?`([0-9a-f]{64})`", readme))
    data_files = {p.name for p in (DATA / folder).iterdir() if p.suffix in ('.txt', '.jsonl') and not p.name.startswith('ORIGINAL')}
    assert data_files <= set(listed), data_files - set(listed)
    for name, digest in listed.items(): assert hashlib.sha256((DATA / folder / name).read_bytes()).hexdigest() == digest, name
    assert (DATA / folder / 'LICENSE').is_file()


def test_codex_counts_and_sts(kg):
    assert (len(kg.labels), len(kg.relations), *map(len, (kg.splits[s] for s in ee.KG_SPLITS))) == (2034, 42, 32888, 1827, 1828, 1827, 1828)
    assert sum(v is None for v in kg.labels.values()) == 197
    sts = load_sts(DATA / 'sts')
    assert len(sts.score) == 375 and 0 <= sts.score.min() and sts.score.max() <= 5
    r = sts_correlation('random', sts, n_resamples=200)
    assert r.spearman_ci[0] < 0 < r.spearman_ci[1]
    same = {t: [1.0, 2.0] for t in set(sts.sentence1 + sts.sentence2)}   # every cosine 1: undefined
    c = sts_correlation(same, sts, n_resamples=50, name='constant')
    assert (c.spearman, c.pearson, c.spearman_ci, c.pearson_ci) == (None, None, None, None)
    assert 'Spearman undefined' in repr(c) and ee._bench_cells({'sts': c})[0] == 'undefined'
    best = ee._bench_recommendations({'constant': {'sts': c}, 'random': {'sts': r}})
    assert best['sentence similarity (STS-B)'] == 'random'


def test_link_prediction_equals_a_direct_computation(kg):
    "The first 40 test triples, both sides, random vectors: ranks from the full cosine matrix and the known-true triples."
    res = link_prediction('random', kg, max_triples=40, n_resamples=0)
    ids = list(kg.labels); text = {e: kg.labels[e] or ', '.join(kg.types[e]) for e in ids}
    rnd, col = RandomEncoder(), {e: i for i, e in enumerate(ids)}
    E = rnd.encode([text[e] for e in ids])
    known = set(kg.splits['train'] + kg.splits['valid'] + kg.splits['test'])
    opt, pess = [], []
    for h, r, t in kg.splits['test'][:40]:
        rel = kg.relations[r]
        for q, ans, other in ((f"{text[h]}, {rel}", t, lambda x: (h, r, x)), (f"{rel}, {text[t]}", h, lambda x: (x, r, t))):
            s = E @ rnd.encode([q])[0]
            keep = np.array([x == ans or other(x) not in known for x in ids])
            opt.append(1 + int((s[keep] > s[col[ans]]).sum())); pess.append(int((s[keep] >= s[col[ans]]).sum()))
    assert res.optimistic.tolist() == opt and res.pessimistic.tolist() == pess
    assert res.target.tolist()[:2] == ['tail', 'head']


def test_triple_classification_and_subgraph(kg):
    tc = triple_classification('random', kg, n_resamples=200)
    assert (tc.n_positive, tc.n_negative, tc.n_skipped) == (1828, 1828, 8) and tc.auc_ci[0] < 0.5 < tc.auc_ci[1]
    g = subgraph_score('random', kg, n_triples=200)
    assert g.n_edges == 200 and g.density < 0.01


def test_names_importable_from_embedding_eval():
    "Every public name of embedding_eval from before its split into layers is still public there."
    import cah_metrics.embedding_benchmarks as bench, cah_metrics.embedding_stats as stats_
    import cah_metrics.encoders as enc, cah_metrics.kg_scores as kg
    layers = (enc, stats_, kg, bench)
    below = {n for m in layers for n in m.__all__}
    own = {'USE_CASES', 'BENCHMARKS', 'EvaluationResult', 'evaluate_encoder', 'recommend',
           'Comparison', 'compare_encoders', 'plot_comparison'}
    assert len(below) == 44 and set(ee.__all__) == below | own
    for m in layers:
        for n in m.__all__: assert getattr(ee, n) is getattr(m, n), (m.__name__, n)


def test_import_is_light():
    "Importing the module loads no heavy backend."
    code = ("import sys, cah_metrics.embedding_eval; "
            "print([m for m in ('torch', 'sentence_transformers', 'networkx', 'sklearn', 'scipy', 'matplotlib') if m in sys.modules])")
    assert subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, check=True).stdout.strip() == '[]'
