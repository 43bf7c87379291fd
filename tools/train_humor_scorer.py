"""Build cah_metrics/data/humor_scorer.json (the learned humor scorer), humor_preference.json (the preference scorer),
humor_puns.json (the pun scorer) and humor_validity.json (how far the humor metrics can be trusted).

**The scorer.** P(humor | text) = sigmoid(E @ coef + intercept), E the bundled encoder's (all-MiniLM-L6-v2) unit
sentence vector of the text: scikit-learn's `LogisticRegression` (lbfgs, L2 penalty, tol 1e-10 and at most 10,000
iterations, so it runs to the optimum) trained on the 4,000-text ColBERT sample
`tests/data/colbert_humor/colbert_humor_4k.csv` (MIT; 2,000 jokes, 2,000 headlines). Its inverse penalty C is chosen
from the fixed grid 10^-2, 10^-1.5, ..., 10^2 by the lowest mean held-out log loss (a proper scoring rule: the
scorer is read as a probability) over 5 stratified folds (`StratifiedKFold(5, shuffle=True, random_state=0)`), each
fold's fits warm-started along the grid with tol 1e-6 (its losses agree with tol 1e-8's to 4 decimals).

**Its validity.** `humor_validity.json` holds, each as [estimate, low, high] with a 95% percentile bootstrap interval
over items (1,000 resamples, seeded), rounded to 3 decimals:
- colbert: on the 40,000 texts of `colbert_humor_dev.csv`, the ROC AUC (jokes positive) of the design's overall score
  and of its best per-text metric: the highest AUC of a metric read in its documented direction (higher = funnier),
  among the metrics that are not constant on these prompt-less texts (distinctiveness, coherence, F1 and PaCS are);
  and `learned_auc`, the scorer's stratified 5-fold cross-validated AUC on the 4k sample
  (`cah_metrics.crossval.cross_validate`, seed 16: the mean of the five folds' AUCs of out-of-fold predictions, C
  chosen again inside every training fold, so nothing is tuned on a test fold), with the crossval bootstrap
  interval (`with_interval('bootstrap')`: the test items resampled within each fold);
- expunations: on the 1,740 of the 1,899 ExPUNations puns with at least one 1-5 rating, the Spearman correlation with
  each pun's mean funniness (a rater's 0, "not a joke", counts as no rating) of the overall score, of the best design
  metric (the same rule) and of the shipped scorer's P(humor) (a transfer: it never saw a pun); and `ceiling`, the
  raters' split-half agreement: the ratings of each pun rated at least twice are split at random into two halves,
  the Spearman correlation over puns of the two halves' means is stepped up with Spearman-Brown (2r / (1 + r)), and
  that is averaged over 20 random splits. It is how well another panel of raters would agree with this one; a score
  free of the raters' noise could reach about its square root against their means. ExPUNations is CC BY-NC 4.0: the
  learned scorer is only measured on it; the preference scorer below is trained on it, so it carries that licence
  (cah_metrics/data/HUMOR_PREFERENCE_LICENSE.md).

**The preference scorer** (`humor_preference.json`, a `cah_metrics.preference.PreferenceModel` on the 384 numbers of the
bundled encoder's vector of the filled card; the texts it learns from are whole sentences with no prompt, so there
the card is the text itself) is a Bradley-Terry model fitted to two sets of human judgments at once: the 7,042
pairs of ExPUNations puns within seeded groups of 10 whose raters' mean funniness differs (the funnier one picked), and
2,000 ColBERT pairs (each joke of the 4k sample paired with a headline in a seeded order, the joke picked). Its C is
chosen from `preference.C_GRID` by the held-out log-likelihood of an inner 3-fold split (`preference.choose_C`).

**The pun scorer** (`humor_puns.json`, a `PreferenceModel` on the same 384 numbers and `log_words`, ln(1 + words)) is a
ridge regression of each of the 1,740 rated puns' mean funniness on its vector and its length, the length unpenalised
(its standardised column is scaled up `LENGTH_BOOST` times before the fit, so its penalty is a millionth of a vector
coordinate's: longer puns are rated funnier, and a shrunken length weight gives that away), the penalty chosen from
`PUN_ALPHAS` by scikit-learn's `RidgeCV` (efficient leave-one-out). Its utility is the predicted mean funniness less
the puns' mean. It reads the answer's word count, so it is never a default (`humor.LENGTH_SCORERS`); it is the scorer
for text like the puns it learned from. Trained on ExPUNations alone: CC BY-NC 4.0, as the preference scorer.

**Agreement with people** (`agreement` in humor_validity.json): every named scorer's pairwise accuracy (the share of
pairs in which it ranks higher the text people found funnier, ties half) with a 95% bootstrap interval over groups,
beside both length baselines, on three sets: the ExPUNations pairs (the preference scorer out of fold: 5 folds of the
groups of both its sets; the pun scorer out of fold: 5 folds of the puns' groups), the word pairs of the humor norms
(4,997 words rated 1-5, pairs within seeded groups of 10; `tests/data/humornorms`, not-for-profit research use, only
measured on), and ColBERT (the AUC over the 4k sample: every joke against every headline; the learned scorer
cross-validated as above, the preference scorer out of fold, the pun scorer as shipped: it never saw ColBERT).
`default` and `no_model_default` name the scorers with the best mean estimate over `RANKING_SETS`, the sets where
people compared attempts at humor, among the scorers that do not read the word count (`humor.LENGTH_SCORERS`); the library's `humor.DEFAULT_SCORER` and `NO_MODEL_SCORER` must equal them (a test
checks it).

**Beyond length** (`length_matched` in humor_validity.json): the same scorers on the ExPUNations pairs whose two puns
have the same number of words (of the pairs above), where both length baselines tie every pair (exactly 0.5). Longer
puns are rated funnier, so on all pairs a scorer that knows only length does as well as the preference scorer; on these
pairs length knows nothing, and what a scorer gets above 0.5 it gets from something else.

The design's metrics are `HumorEvaluator(encoder='cooccurrence')` on an empty context; the notebook
nbs/tutorials/humor_validity.ipynb explains and plots every number and checks it against these files.

`--check` rebuilds both and fails, naming each difference, when a number of the shipped files differs from the
fresh one by more than `TOLERANCE`: 1e-3 on the scorer's weights (refitting on sentence vectors perturbed by the
encoder's own float32 noise, 2e-7, moves them by up to 1e-4: the problem is ill-conditioned at the chosen C, and the
encoder's output depends slightly on batching and CPU), and 1e-3 plus rounding slack on the validity numbers (one
unit in the third decimal, where a value near a rounding boundary may go either way); counts, names and strings
must be equal. Deterministic; 3 to 5 minutes on 2 CPU cores (encoding 10,737 texts and the preference scorer's cross-validation).

    python tools/train_humor_scorer.py [--check]
"""
from __future__ import annotations
import argparse, csv, hashlib, json, os, re, sys, tempfile, time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / 'tests' / 'data'
SAMPLE, DEV = DATA / 'colbert_humor' / 'colbert_humor_4k.csv', DATA / 'colbert_humor' / 'colbert_humor_dev.csv'
PUNS, FUNNY = DATA / 'expunations' / 'puns.csv', DATA / 'expunations' / 'funniness_matrix.csv'
SCORER, VALIDITY = ROOT / 'cah_metrics' / 'data' / 'humor_scorer.json', ROOT / 'cah_metrics' / 'data' / 'humor_validity.json'
PREFERENCE = ROOT / 'cah_metrics' / 'data' / 'humor_preference.json'
PUNS_SCORER = ROOT / 'cah_metrics' / 'data' / 'humor_puns.json'
NORMS = DATA / 'humornorms' / 'humor_dataset.csv'
GROUP_SIZE, GROUP_SEED, PREF_FOLDS = 10, 0, 5             # judgment sets cut into seeded groups of 10; 5-fold CV by group
# The sets where people said which of two attempts at humor is funnier: the defaults are the scorers with the best mean
# pairwise accuracy there. ColBERT (a joke against a news headline) is reported beside them but does not choose: telling
# jokes from news is not ranking answers that all try to be funny.
RANKING_SETS = ('expunations', 'humornorms')

CS = tuple(float(10 ** (k / 2)) for k in range(-4, 5))     # the grid for C: 0.01 ... 100 in half-decade steps
INNER_FOLDS, INNER_SEED = 5, 0                              # how C is chosen: StratifiedKFold(5, shuffle=True, random_state=0)
TOL, MAX_ITER = 1e-10, 10_000                               # lbfgs: run to the optimum (the default tol 1e-4 stops far from it)
SELECT_TOL = 1e-6                                           # enough to rank the grid's held-out log losses (they agree with tol 1e-8 to 4 decimals)
PUN_ALPHAS = tuple(float(10 ** (k / 2)) for k in range(13))   # the pun scorer's ridge penalties: 1 ... 10^6 in half-decades
LENGTH_BOOST = 1000.0                                       # its length column's scale-up: the length weight unpenalised
CV_SEED = 16                                                # the outer 5-fold cross-validation (as nbs/09_crossval.ipynb)
N_BOOT, BOOT_SEED, SPLITS = 1000, 0, 20                     # bootstrap resamples and seed; random split-halves for the ceiling
TOLERANCE = {'scorer': 1e-3, 'validity': 1e-3 + 1e-9}
DESIGN = ('surprisal_score', 'perplexity_score', 'ambiguity_score', 'distinctiveness_ratio', 'entropy_score',
          'semantic_coherence', 'f1_score', 'pacs_score')   # the design's per-text metrics, each documented higher = funnier


# ---------------------------------------------------------------- data

def read_csv(path:Path) -> list[dict]:
    if not path.is_file(): sys.exit(f"train_humor_scorer: {path.relative_to(ROOT)} is missing; run from a clone of the cah_metrics repository")
    with open(path, newline='', encoding='utf-8') as f: return list(csv.DictReader(f))

def colbert(path:Path) -> tuple[list[str], np.ndarray]:
    "Texts and labels (True = humorous) of a ColBERT file."
    rows = read_csv(path)
    return [r['text'] for r in rows], np.array([r['humor'] == 'True' for r in rows])

def expunations() -> tuple[list[str], np.ndarray]:
    "The puns and their raters' funniness, puns x 5 (NaN where a rater gave 0, 'not a joke'); puns with no rating dropped."
    puns, rows = read_csv(PUNS), read_csv(FUNNY)
    if [p['id'] for p in puns] != [r['id'] for r in rows]: sys.exit("train_humor_scorer: puns.csv and funniness_matrix.csv do not list the same puns in the same order")
    R = np.array([[float(v) for k, v in r.items() if k != 'id' and v != ''] for r in rows])      # exactly 5 filled cells a row
    R[R == 0] = np.nan
    rated = ~np.isnan(R).all(1)
    return [p['text'] for p, ok in zip(puns, rated) if ok], R[rated]


# ---------------------------------------------------------------- the bootstrap

def resamples(n:int, seed:int=BOOT_SEED, B:int=N_BOOT, chunk:int=100):
    "B bootstrap resamples of n items, as (chunk, n) arrays of item indices: `default_rng(seed).integers(0, n, (chunk, n))` chunk after chunk."
    rng = np.random.default_rng(seed)
    for b in range(0, B, chunk): yield rng.integers(0, n, (min(chunk, B - b), n))

def weighted_auc(y:np.ndarray, s:np.ndarray, W:np.ndarray) -> np.ndarray:
    "Mann-Whitney AUC of scores `s` for positives `y`, ties counting one half, with item weights W (b, n): one AUC per row."
    order = np.argsort(s, kind='stable'); ss = s[order]
    starts = np.flatnonzero(np.r_[True, ss[1:] != ss[:-1]])          # the groups of tied scores
    Wo, pos = W[:, order], y[order]
    P, N = np.add.reduceat(Wo * pos, starts, axis=1), np.add.reduceat(Wo * ~pos, starts, axis=1)
    return (P * (np.cumsum(N, axis=1) - N / 2)).sum(1) / (P.sum(1) * N.sum(1))

def auc_intervals(y:np.ndarray, scores:dict) -> dict:
    "{name: (AUC, low, high)}: every score on the same resamples of the items."
    from cah_metrics.resample import percentile_interval
    n, boot = len(y), {k: [] for k in scores}
    for idx in resamples(n):
        W = np.bincount((idx + n * np.arange(len(idx))[:, None]).ravel(), minlength=idx.size).reshape(idx.shape)   # how often each item is drawn
        for k, s in scores.items(): boot[k].append(weighted_auc(y, s, W))
    return {k: (float(weighted_auc(y, s, np.ones((1, n)))[0]), *percentile_interval(np.concatenate(boot[k]))) for k, s in scores.items()}

def _pearson_rows(a:np.ndarray, b:np.ndarray) -> np.ndarray:
    a, b = a - a.mean(-1, keepdims=True), b - b.mean(-1, keepdims=True)
    return (a * b).sum(-1) / np.sqrt((a * a).sum(-1) * (b * b).sum(-1))

def spearman_rows(a:np.ndarray, b:np.ndarray) -> np.ndarray:
    "Spearman correlation of each row of a with the same row of b (average ranks for ties)."
    from scipy.stats import rankdata
    return _pearson_rows(rankdata(a, axis=-1), rankdata(b, axis=-1))

def spearman_intervals(m:np.ndarray, scores:dict) -> dict:
    "{name: (Spearman with m, low, high)}: every score on the same resamples of the items."
    from cah_metrics.resample import percentile_interval
    boot = {k: [] for k in scores}
    for idx in resamples(len(m)):
        for k, s in scores.items(): boot[k].append(spearman_rows(s[idx], m[idx]))
    return {k: (float(spearman_rows(s, m)), *percentile_interval(np.concatenate(boot[k]))) for k, s in scores.items()}

def split_halves(R:np.ndarray, splits:int=SPLITS, seed:int=BOOT_SEED) -> list[tuple[np.ndarray, np.ndarray]]:
    "For each of `splits` random splits, the two halves' mean ratings of every pun rated at least twice (R: puns x raters, NaN = missing)."
    R = R[(~np.isnan(R)).sum(1) >= 2]
    k, rng, out = (~np.isnan(R)).sum(1), np.random.default_rng(seed), []
    for _ in range(splits):
        order = np.argsort(np.where(np.isnan(R), np.inf, rng.random(R.shape)), axis=1)   # each pun's ratings, shuffled, missing last
        S = np.take_along_axis(R, order, axis=1)
        first = np.arange(R.shape[1]) < (k // 2)[:, None]                                  # halves of floor(k/2) and ceil(k/2) ratings
        rest = ~first & ~np.isnan(S)
        out.append((np.where(first, S, 0).sum(1) / first.sum(1), np.where(rest, S, 0).sum(1) / rest.sum(1)))
    return out

def spearman_brown(r): return 2 * r / (1 + r)

def ceiling(R:np.ndarray) -> tuple[float, float, float]:
    "The raters' split-half agreement: Spearman-Brown-corrected Spearman of the halves' means, averaged over random splits, with its bootstrap interval over puns."
    from cah_metrics.resample import percentile_interval
    halves = split_halves(R)
    A, B = np.stack([a for a, _ in halves]), np.stack([b for _, b in halves])       # splits x puns
    boot = [np.mean([spearman_brown(spearman_rows(a[idx], b[idx])) for a, b in halves], axis=0) for idx in resamples(A.shape[1])]
    return float(spearman_brown(spearman_rows(A, B)).mean()), *percentile_interval(np.concatenate(boot))


# ---------------------------------------------------------------- the design's metrics

def design_scores(texts:list[str]) -> tuple[dict, list[str]]:
    "The design's per-text metrics that vary over `texts` (empty contexts) and its overall score; and the names of the constant ones."
    from cah_metrics.humor import HumorEvaluator, ITEM_FIELDS, overall_score
    items = HumorEvaluator(encoder='cooccurrence').item_scores(texts, [''] * len(texts))
    constant = [k for k in DESIGN if np.ptp(items[k]) == 0]
    out = {k: items[k] for k in DESIGN if k not in constant}
    out['overall_humor_score'] = np.array([overall_score(*(float(items[k][i]) for k in ITEM_FIELDS[:6]), 0.0) for i in range(len(texts))])
    return out, constant

def best(intervals:dict) -> str:
    "The design metric with the highest estimate, read in its documented direction (the overall score is reported on its own)."
    return max((k for k in intervals if k in DESIGN), key=lambda k: intervals[k][0])


# ---------------------------------------------------------------- the scorer

def encode(texts:list[str]) -> np.ndarray:
    from cah_metrics.embeddings import get_encoder
    return get_encoder(backend='sentence-transformers').encode(texts, progress=False).astype(np.float64)

def choose_C(E:np.ndarray, y:np.ndarray) -> float:
    "The C of `CS` with the lowest mean held-out log loss over `INNER_FOLDS` stratified folds."
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import log_loss
    from sklearn.model_selection import StratifiedKFold
    loss = np.zeros(len(CS))
    for train, test in StratifiedKFold(INNER_FOLDS, shuffle=True, random_state=INNER_SEED).split(E, y):
        m = LogisticRegression(tol=SELECT_TOL, max_iter=MAX_ITER, warm_start=True)
        for i, C in enumerate(CS): loss[i] += log_loss(y[test], m.set_params(C=C).fit(E[train], y[train]).predict_proba(E[test])[:, 1], labels=[0, 1])
    return CS[int(np.argmin(loss))]

def fit_scorer(E:np.ndarray, y:np.ndarray):
    "The scorer's procedure: choose C, then fit the logistic regression on all of (E, y)."
    from sklearn.linear_model import LogisticRegression
    return LogisticRegression(C=choose_C(E, y), tol=TOL, max_iter=MAX_ITER).fit(E, y)

def scorer_procedure(X, y, seed):
    "`fit_scorer` as a `cross_validate` fit function (deterministic: the seed is not needed)."
    return fit_scorer(X, y).predict_proba

def p_humor(scorer:dict, E:np.ndarray) -> np.ndarray:
    "The shipped scorer's P(humor | text) for sentence vectors E."
    return 1 / (1 + np.exp(-(E @ np.array(scorer['coef']) + scorer['intercept'])))


# ---------------------------------------------------------------- the preference scorer and agreement with people

def humornorms() -> tuple[list[str], np.ndarray]:
    "The 4,997 words of the humor norms and their mean funniness (1-5)."
    rows = read_csv(NORMS)
    return [r['word'] for r in rows], np.array([float(r['mean']) for r in rows])

def rated_groups(n:int) -> np.ndarray:
    "Each item's group: a seeded shuffle of the items cut into groups of `GROUP_SIZE`."
    groups = np.empty(n, int)
    groups[np.random.default_rng(GROUP_SEED).permutation(n)] = np.arange(n) // GROUP_SIZE
    return groups

def group_pairs(rating:np.ndarray, groups:np.ndarray, keep=None) -> tuple[np.ndarray, np.ndarray]:
    "(funnier, other) item indices of every pair in a group whose ratings differ (only items in `keep`)."
    keep = np.ones(len(rating), bool) if keep is None else keep
    better, worse = [], []
    for g in np.unique(groups[keep]):
        idx = np.flatnonzero((groups == g) & keep)
        i, j = np.triu_indices(len(idx), 1)
        a, b = idx[i], idx[j]
        differ = rating[a] != rating[b]
        a, b = a[differ], b[differ]
        up = rating[a] > rating[b]
        better.append(np.where(up, a, b))
        worse.append(np.where(up, b, a))
    return np.concatenate(better), np.concatenate(worse)

def pair_choices(F:np.ndarray, better:np.ndarray, worse:np.ndarray):
    "Each pair as a round of two candidates, the funnier first and picked."
    from cah_metrics.preference import choices
    X = np.empty((2 * len(better), F.shape[1]))
    X[0::2], X[1::2] = F[better], F[worse]
    return choices(X, [2] * len(better), [0] * len(better))

def pairwise(score:np.ndarray, better:np.ndarray, worse:np.ndarray, groups:np.ndarray) -> list[float]:
    "How often the score ranks the funnier of a pair higher (ties half), with a 95% bootstrap interval over groups."
    from cah_metrics.preference import agreement_interval, pick_agreement
    u = np.empty(2 * len(better))
    u[0::2], u[1::2] = score[better], score[worse]
    wins, _ = pick_agreement(u, pair_choices(np.zeros((len(score), 1)), better, worse))
    _, group = np.unique(groups[better], return_inverse=True)          # the pairs of one group are resampled together
    return r3(agreement_interval(np.bincount(group, wins), np.bincount(group), seed=BOOT_SEED))

def joke_pairs(y:np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    "(joke, headline, group) of ColBERT pairs: the jokes and the headlines each in a seeded order, paired in turn; groups of 10 pairs."
    rng = np.random.default_rng(GROUP_SEED)
    jokes, heads = rng.permutation(np.flatnonzero(y)), rng.permutation(np.flatnonzero(~y))
    k = min(len(jokes), len(heads))
    groups = np.full(len(y), -1)
    groups[jokes[:k]] = groups[heads[:k]] = np.arange(k) // GROUP_SIZE
    return jokes[:k], heads[:k], groups

def union_choices(parts:list, keep=None):
    "The pairs of every judgment set as one `Choices`; `keep(set index, groups)` picks the groups to use."
    from cah_metrics.preference import choices
    rows, n = [], 0
    for i, (F, better, worse, groups) in enumerate(parts):
        use = np.ones(len(better), bool) if keep is None else keep(i, groups[better])
        X = np.empty((2 * use.sum(), F.shape[1]))
        X[0::2], X[1::2] = F[better[use]], F[worse[use]]
        rows.append(X)
    X = np.concatenate(rows)
    return choices(X, [2] * (len(X) // 2), [0] * (len(X) // 2))

def fit_preference(parts:list, keep=None):
    "The preference procedure: the pairs of every judgment set, C chosen by `choose_C`, the Bradley-Terry model on sentence vectors."
    from cah_metrics.humor import CARD_FEATURES
    from cah_metrics.preference import PreferenceModel, choose_C
    data = union_choices(parts, keep)
    return PreferenceModel.fit(data, CARD_FEATURES, choose_C(data, seed=INNER_SEED))

def preference_out_of_fold(parts:list) -> list[np.ndarray]:
    "Every item's utility, of each set, from a model fitted without its group (5 folds of the groups of all sets together)."
    from sklearn.model_selection import KFold
    ids = [(i, g) for i, (_, _, _, groups) in enumerate(parts) for g in np.unique(groups[groups >= 0])]
    out = [np.zeros(len(F)) for F, *_ in parts]
    for train, test in KFold(PREF_FOLDS, shuffle=True, random_state=CV_SEED).split(ids):
        held = [set(g for i, g in (ids[t] for t in test) if i == k) for k in range(len(parts))]
        model = fit_preference(parts, lambda i, g: ~np.isin(g, list(held[i])))
        for k, (F, _, _, groups) in enumerate(parts):
            rows = np.isin(groups, list(held[k]))
            out[k][rows] = model.utility(F[rows])
    return out

def with_length(E:np.ndarray, texts:list[str]) -> np.ndarray:
    "The pun scorer's features: the sentence vectors, then `log_words`, ln(1 + words), of each text."
    return np.column_stack([E, np.log1p([len(t.split()) for t in texts])])

def fit_puns(F:np.ndarray, rating:np.ndarray):
    "The pun scorer: ridge regression of the mean funniness on standardised features, the last (length) unpenalised."
    from sklearn.linear_model import RidgeCV
    from cah_metrics.humor import CARD_FEATURES
    from cah_metrics.preference import PreferenceModel, standardisation
    mean, scale = standardisation(F)
    boost = np.r_[np.ones(F.shape[1] - 1), LENGTH_BOOST]
    ridge = RidgeCV(alphas=PUN_ALPHAS).fit((F - mean) / scale * boost, rating)
    return PreferenceModel(CARD_FEATURES + ('log_words',), ridge.coef_ * boost, mean, scale,
                           {'alpha': float(ridge.alpha_), 'puns': len(rating)})

def puns_out_of_fold(F:np.ndarray, rating:np.ndarray, groups:np.ndarray) -> np.ndarray:
    "Every pun's pun-scorer utility from a model fitted without its group (5 folds of the groups)."
    from sklearn.model_selection import KFold
    ids, out = np.unique(groups), np.zeros(len(rating))
    for train, test in KFold(PREF_FOLDS, shuffle=True, random_state=CV_SEED).split(ids):
        held = np.isin(groups, ids[test])
        out[held] = fit_puns(F[~held], rating[~held]).utility(F[held])
    return out


# ---------------------------------------------------------------- build and check

def r3(v) -> list[float]: return [round(float(x), 3) for x in v]

def build(log=print) -> tuple[dict, dict, dict, dict, dict]:
    """The scorer's JSON, the validity JSON, the preference scorer's JSON, the pun scorer's JSON, and what was computed on
    the way (for tests and the notebook)."""
    import scipy.stats, sklearn.linear_model, sklearn.metrics, sklearn.model_selection, torch   # noqa: F401  (loaded before the limit below, which only reaches loaded libraries)
    from threadpoolctl import threadpool_limits
    from cah_metrics.crossval import cross_validate
    t0, threads = time.time(), torch.get_num_threads()
    torch.set_num_threads(1)                            # small models run faster on one thread than on two, far faster on a shared CPU
    try:
        with threadpool_limits(1):
            texts, y = colbert(SAMPLE)
            E = encode(texts); log(f"encoded the {len(texts):,} texts of the ColBERT sample ({time.time() - t0:.0f} s)")
            model = fit_scorer(E, y)
            scorer = {'model': 'all-MiniLM-L6-v2', 'features': 'unit sentence vectors of the bundled encoder',
                      'coef': [round(float(c), 7) for c in model.coef_[0]], 'intercept': round(float(model.intercept_[0]), 7),
                      'training': {'data': 'tests/data/colbert_humor/colbert_humor_4k.csv', 'sha256': hashlib.sha256(SAMPLE.read_bytes()).hexdigest(),
                                   'n': len(y), 'positives': int(y.sum()), 'model': 'sklearn LogisticRegression', 'C': model.C, 'max_iter': MAX_ITER},
                      'licence': 'trained on the ColBERT humor data (MIT); see tests/data/colbert_humor/LICENSE'}
            log(f"fitted the scorer, C = {model.C:g} ({time.time() - t0:.0f} s)")
            cv = cross_validate(scorer_procedure, E, y, folds=5, scoring='roc_auc', seed=CV_SEED, interval='bootstrap', n_resamples=N_BOOT)
            log(f"cross-validated it: AUC {cv.mean['roc_auc']:.3f} ({time.time() - t0:.0f} s)")
            dev_texts, dev_y = colbert(DEV)
            dev_scores, dev_constant = design_scores(dev_texts)
            auc = auc_intervals(dev_y, dev_scores)
            puns, R = expunations()
            m = np.nanmean(R, axis=1)
            pun_scores, pun_constant = design_scores(puns)
            E_pun = encode(puns)
            P = p_humor(scorer, E_pun)
            rho = spearman_intervals(m, {**pun_scores, 'learned': P})
            top = ceiling(R)
            log(f"measured the design metrics on {len(dev_y):,} ColBERT texts and {len(m):,} puns, the transfer and the ceiling ({time.time() - t0:.0f} s)")
            pun_groups = rated_groups(len(m))
            jokes, heads, joke_groups = joke_pairs(y)
            parts = [(E_pun, *group_pairs(m, pun_groups), pun_groups), (E, jokes, heads, joke_groups)]
            preference = fit_preference(parts)
            pun_oof, sample_oof = preference_out_of_fold(parts)
            log(f"fitted the preference scorer on the puns' and ColBERT's pairs and cross-validated it by group ({time.time() - t0:.0f} s)")
            F_pun = with_length(E_pun, puns)
            pun_scorer, pun_scorer_oof = fit_puns(F_pun, m), puns_out_of_fold(F_pun, m, pun_groups)
            log(f"fitted the pun scorer and cross-validated it by group ({time.time() - t0:.0f} s)")
            words, word_m = humornorms()
            E_words = encode(words)
            word_design, _ = design_scores(words)
            sample_design, _ = design_scores(texts)
            log(f"encoded the {len(words):,} words of the humor norms ({time.time() - t0:.0f} s)")
    finally: torch.set_num_threads(threads)
    length = lambda ts: np.array([len(t.split()) for t in ts], float)
    sets = {'expunations': (m, pun_groups, {'preference': pun_oof, 'puns': pun_scorer_oof, 'learned': P, 'design': pun_scores['overall_humor_score'],
                                            'shorter': -length(puns), 'longer': length(puns)}),
            'humornorms': (word_m, rated_groups(len(words)), {'preference': preference.utility(E_words),
                                                              'puns': pun_scorer.utility(with_length(E_words, words)), 'learned': p_humor(scorer, E_words),
                                                              'design': word_design['overall_humor_score'], 'shorter': -length(words), 'longer': length(words)})}
    agreement, pairs_of = {}, {}
    for name, (rating, groups, scores) in sets.items():
        pairs = pairs_of[name] = group_pairs(rating, groups)
        agreement[name] = {'pairs': len(pairs[0]), **{k: pairwise(v, *pairs, groups) for k, v in scores.items()}}
    better, worse = pairs_of['expunations']
    n_words = sets['expunations'][2]['longer']                     # each pun's number of words
    same = n_words[better] == n_words[worse]                       # the pairs length cannot order
    length_matched = {'expunations': {'pairs': int(same.sum()), **{k: pairwise(v, better[same], worse[same], pun_groups)
                                                                   for k, v in sets['expunations'][2].items()}}}
    sample_auc = auc_intervals(y, {'preference': sample_oof, 'puns': pun_scorer.utility(with_length(E, texts)),
                                   'design': sample_design['overall_humor_score'],
                                   'shorter': -length(texts), 'longer': length(texts)})
    agreement['colbert'] = {'pairs': int(y.sum() * (~y).sum()), **{k: r3(sample_auc[k]) for k in ('preference', 'puns')},
                            'learned': r3((cv.mean['roc_auc'], *cv.ci['roc_auc'])), **{k: r3(sample_auc[k]) for k in ('design', 'shorter', 'longer')}}
    from cah_metrics.humor import LENGTH_SCORERS, MODEL_FREE_SCORERS, SCORERS
    mean_of = lambda k: np.mean([agreement[d][k][0] for d in RANKING_SETS])
    agreement['default'] = max([k for k in SCORERS if k not in LENGTH_SCORERS], key=mean_of)
    agreement['no_model_default'] = max([k for k in MODEL_FREE_SCORERS if k not in LENGTH_SCORERS], key=mean_of)
    preference.training = {'data': ['tests/data/expunations (puns.csv, funniness_matrix.csv)', 'tests/data/colbert_humor/colbert_humor_4k.csv'],
                           'sha256': [hashlib.sha256(FUNNY.read_bytes()).hexdigest(), hashlib.sha256(SAMPLE.read_bytes()).hexdigest()],
                           'judgments': f"ExPUNations: every pair of puns in seeded groups of {GROUP_SIZE} whose mean funniness differs, the funnier "
                                        "picked; ColBERT: each joke paired with a headline in a seeded order, the joke picked",
                           **preference.training, 'licence': 'CC BY-NC 4.0 (ExPUNations annotations) and MIT (ColBERT); see HUMOR_PREFERENCE_LICENSE.md'}
    pun_scorer.training = {'data': ['tests/data/expunations (puns.csv, funniness_matrix.csv)'], 'sha256': [hashlib.sha256(FUNNY.read_bytes()).hexdigest()],
                           'judgments': "ExPUNations: each pun's mean funniness (1-5; a rater's 0, not a joke, is no rating), the puns with one at least",
                           'model': "ridge regression (scikit-learn RidgeCV, leave-one-out over PUN_ALPHAS) on the standardised features, log_words unpenalised",
                           **pun_scorer.training, 'licence': 'CC BY-NC 4.0 (ExPUNations annotations); see HUMOR_PREFERENCE_LICENSE.md'}
    bc, be = best(auc), best(rho)
    validity = {'colbert': {'n': len(dev_y), 'overall_auc': r3(auc['overall_humor_score']), 'best_design_metric': bc, 'best_design_auc': r3(auc[bc]),
                            'learned_auc': r3((cv.mean['roc_auc'], *cv.ci['roc_auc']))},
                'expunations': {'n': len(m), 'overall_spearman': r3(rho['overall_humor_score']), 'best_design_metric': be,
                                'best_design_spearman': r3(rho[be]), 'learned_spearman': r3(rho['learned']), 'ceiling': r3(top)},
                'agreement': agreement, 'length_matched': length_matched, 'source': 'tools/train_humor_scorer.py; nbs/tutorials/humor_validity.ipynb'}
    details = dict(E=E, E_pun=E_pun, y=y, model=model, cv=cv, auc=auc, dev_constant=dev_constant, rho=rho, pun_constant=pun_constant, ceiling=top,
                   preference=preference, pun_scorer=pun_scorer, seconds=time.time() - t0)
    return scorer, validity, preference.to_dict(), pun_scorer.to_dict(), details

def dumps(obj:dict) -> str:
    "Indented JSON with every list of numbers on one line."
    return re.sub(r'\[[^\[\]{}"]*\]', lambda mt: re.sub(r'\s+', ' ', mt.group()).replace('[ ', '[').replace(' ]', ']'), json.dumps(obj, indent=1)) + '\n'

def differences(shipped, fresh, tol:float, path:str='') -> list[str]:
    "Where `shipped` and `fresh` differ: numbers by more than `tol`, anything else at all."
    if isinstance(fresh, dict) and isinstance(shipped, dict):
        if shipped.keys() != fresh.keys(): return [f"{path or 'top level'}: keys {sorted(shipped)} shipped, {sorted(fresh)} fresh"]
        return [d for k in fresh for d in differences(shipped[k], fresh[k], tol, f"{path}.{k}" if path else k)]
    if isinstance(fresh, list) and isinstance(shipped, list):
        if len(shipped) != len(fresh): return [f"{path}: {len(shipped)} items shipped, {len(fresh)} fresh"]
        return [d for i, (a, b) in enumerate(zip(shipped, fresh)) for d in differences(a, b, tol, f"{path}[{i}]")]
    if isinstance(fresh, float) and isinstance(shipped, (int, float)) and not isinstance(shipped, bool):
        return [] if abs(shipped - fresh) <= tol else [f"{path}: {shipped!r} shipped, {fresh!r} fresh (|difference| {abs(shipped - fresh):.2g} > {tol:g})"]
    return [] if type(shipped) is type(fresh) and shipped == fresh else [f"{path}: {shipped!r} shipped, {fresh!r} fresh"]

def check(scorer:dict, validity:dict, preference:dict, puns:dict) -> int:
    "Compare a fresh build with the shipped files; print what differs; 0 if nothing does beyond `TOLERANCE`, else 1."
    bad = 0
    for path, fresh, tol in ((SCORER, scorer, TOLERANCE['scorer']), (VALIDITY, validity, TOLERANCE['validity']),
                             (PREFERENCE, preference, TOLERANCE['scorer']), (PUNS_SCORER, puns, TOLERANCE['scorer'])):
        diffs = differences(json.loads(path.read_text()), fresh, tol) if path.exists() else ['the file is missing']
        if diffs:
            bad = 1
            print(f"{path.name}: DIFFERS from a fresh build ({len(diffs)} difference{'s' * (len(diffs) > 1)}; rebuild with python tools/train_humor_scorer.py):")
            for d in diffs[:10]: print(f"  {d}")
            if len(diffs) > 10: print(f"  ... and {len(diffs) - 10} more")
        else: print(f"{path.name}: up to date (within {tol:.0e})")
    return bad

def write(path:Path, text:str):
    "Write atomically: a temporary file in the same folder, then a rename."
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f'.{path.name}.')
    with os.fdopen(fd, 'w', encoding='utf-8') as f: f.write(text)
    os.chmod(tmp, 0o644)                  # mkstemp makes it private; the package's data files are world-readable
    os.replace(tmp, path)

def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--check', action='store_true', help='fail if the shipped files differ from a fresh build beyond the stated tolerance')
    a = ap.parse_args(argv)
    scorer, validity, preference, puns, details = build(log=lambda s: print(f"train_humor_scorer: {s}", file=sys.stderr, flush=True))
    if a.check: return check(scorer, validity, preference, puns)
    for path, obj in ((SCORER, scorer), (VALIDITY, validity), (PREFERENCE, preference), (PUNS_SCORER, puns)):
        write(path, dumps(obj))
        print(f"wrote {path.relative_to(ROOT)}")
    print(dumps(validity), end='')
    return 0

if __name__ == '__main__': sys.exit(main())
