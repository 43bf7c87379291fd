"""ROUGE on short segments (issue #34, item 3): one sentence a pair, where the batched paths of a block do the work
(ROUGE-N by n-gram ids of the whole block, ROUGE-L of a whole block in one rapidfuzz call, the joined text lowercased
only where it must be). Every per-example number equals rouge-score's RougeScorer to 1e-9, and each batched path equals the
simple form it replaces, its fallbacks included."""
import random
import numpy as np
import pytest
from cah_metrics import rouge as rouge_module
from cah_metrics.corpora import bundled_pack
from cah_metrics.rouge import ROUGE, rouge_scores
from cah_metrics.text import Vocab, ngram_overlap_ids

TYPES = ['rouge1', 'rouge2', 'rouge3', 'rougeL', 'rougeLsum']

def one_sentence_pairs(n:int, seed:int=0) -> tuple[list[str], list[str]]:
    "n pairs of one line of 1-20 words of card text, the hypothesis a noisy copy; a few odd ones mixed in."
    packs = [bundled_pack(p) for p in ('cah_main_game', 'cards_against_coffee')]
    words = ' '.join(c['text'] for pk in packs for part in (pk.prompts, pk.answers) for c in part).split()
    rng, hyps, refs = random.Random(seed), [], []
    for _ in range(n):
        start = rng.randrange(len(words) - 20)
        ref = words[start:start + rng.randint(1, 20)]
        hyp = [w if rng.random() > 0.25 else rng.choice(words) for w in ref]
        hyps.append(' '.join(hyp))
        refs.append(' '.join(ref))
    odd = [('', 'a b'), ('...', '!!!'), ('İzmir 5\u212a KELVIN', 'izmir 5k kelvin'), ('ÉCOLE Straße', 'école strasse'),
           ('the the the', 'the'), ('a', 'a')]
    return hyps + [h for h, _ in odd], refs + [r for _, r in odd]

def prf(score, t): return (score[f'{t}_precision'], score[f'{t}_recall'], score[t])

@pytest.mark.parametrize('stem', [False, True])
def test_short_segments_equal_rouge_score(stem):
    rouge_scorer = pytest.importorskip('rouge_score.rouge_scorer')
    hyps, refs = one_sentence_pairs(3000)
    scorer = rouge_scorer.RougeScorer(TYPES, use_stemmer=stem)
    got = rouge_scores(hyps, refs, rouge_types=TYPES, tokenizer='rouge-score', stem=stem, n_boot=0)
    worst = 0.0
    for h, r, g in zip(hyps, refs, got):
        exp = scorer.score(r, h)
        worst = max([worst] + [abs(a - b) for t in TYPES for a, b in zip(prf(g, t), exp[t])])
    assert worst <= 1e-9

def block_ids(hyps, refs):
    "The token ids and lengths of both sides of a block, one vocabulary, as `_block_stats` sees them."
    metric = ROUGE(['rouge1'], tokenizer='rouge-score')
    (cid, cl, cx, _), (rid, rl, rx, _) = metric._lines(hyps, refs)
    n = len(hyps)
    return cid, np.bincount(cx, cl, minlength=n).astype(np.int64), rid, np.bincount(rx, rl, minlength=n).astype(np.int64)

def test_ngram_counts_equal_the_text_core():
    cid, cl, rid, rl = block_ids(*one_sentence_pairs(2000, seed=1))
    matches, tot = rouge_module._ngram_matches(cid, cl, rid, rl, 4)
    exp = ngram_overlap_ids(cid, cl, rid, rl, np.ones(len(cl), np.int64), 4)
    assert matches.tolist() == exp[0].tolist() and tot.tolist() == exp[1].tolist()

def test_lcs_in_one_call_equals_a_call_per_pair(monkeypatch):
    from rapidfuzz.distance import LCSseq
    cid, cl, rid, rl = block_ids(*one_sentence_pairs(2000, seed=2))
    split = rouge_module._split
    exp = [LCSseq.similarity(r, c) for r, c in zip(split(rid.tolist(), rl), split(cid.tolist(), cl))]
    assert rouge_module._lcs_lengths(rid, rl, cid, cl).tolist() == exp
    monkeypatch.setattr(rouge_module, '_CODE_POINTS', 1)      # every block too big for code points: a call per pair
    assert rouge_module._lcs_lengths(rid, rl, cid, cl).tolist() == exp

def test_any_tokenizer_takes_the_same_paths():
    hyps, refs = one_sentence_pairs(500, seed=3)
    vocab = Vocab()
    tok = ROUGE(['rouge1']).tokenizer
    (cid, cl), (rid, rl) = vocab.encode(tok.batch(hyps)), vocab.encode(tok.batch(refs))
    got = ROUGE(['rouge1', 'rouge2', 'rougeL']).pair_stats(hyps, refs)
    exp = ngram_overlap_ids(cid, cl, rid, rl, np.ones(len(cl), np.int64), 2)
    assert got['rouge1'][:, 0].tolist() == exp[0][:, 0].tolist()
    assert got['rouge2'][:, 0].tolist() == exp[0][:, 1].tolist()
    from rapidfuzz.distance import LCSseq
    split = rouge_module._split
    lcs = [LCSseq.similarity(r, c) for r, c in zip(split(rid.tolist(), rl), split(cid.tolist(), cl))]
    assert got['rougeL'][:, 0].tolist() == lcs
