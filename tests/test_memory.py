"""Bounded memory (issue 14): each case that once ran out of memory or never finished runs here in a child process
whose address space is capped at 2 GiB (`RLIMIT_AS`), and must finish, or stop early with the `ValueError` of a
limit the docs state. Before the fixes: BERTScore on one 100 MB line peaked at 15.4 GiB, the ROUGE bootstrap of 100k
pairs at 3.1 GiB, the co-occurrence `evaluate_batch` of a 50k-token text at 18.6 GiB, the tutorial `rouge_l` of two
50k-token texts raised `MemoryError`, `rougeLsum` was quadratic in the number of sentences, and an unbounded `max_n`
hung.

The child prints what the case computed and the parent checks it against a value derived by hand (about 40 s in all).
"""
import os, resource, subprocess, sys, textwrap

import pytest

CAP = 2 * 1024 ** 3        # bytes of address space for the child

def capped(code:str, timeout:int=300) -> str:
    "Run `code` in a fresh Python capped at `CAP` bytes of address space; its stdout (stripped), or fail with its stderr."
    def limit(): resource.setrlimit(resource.RLIMIT_AS, (CAP, CAP))
    env = {**os.environ, 'TOKENIZERS_PARALLELISM': 'false', 'OMP_NUM_THREADS': '1'}
    r = subprocess.run([sys.executable, '-c', textwrap.dedent(code)], capture_output=True, text=True,
                       preexec_fn=limit, timeout=timeout, env=env)
    assert r.returncode == 0, f"exit {r.returncode} under a 2 GiB cap:\n{r.stderr[-3000:]}"
    return r.stdout.strip().splitlines()[-1]

def test_capped_child_really_is_capped():
    "The cap bites: allocating 3 GiB in the child fails (else every case below would prove nothing)."
    with pytest.raises(AssertionError, match='MemoryError'): capped("bytearray(3 * 1024 ** 3)")

def test_bertscore_one_100mb_line():
    # BERTScore truncates a candidate to the model's 512 positions (as bert-score does); it now clips the text before
    # tokenizing it, so 25M copies of 'cat ' score exactly as 600 copies (past the limit either way) do.
    out = capped("""
        import numpy as np
        from cah_metrics.bertscore import bert_score
        r = bert_score(['cat ' * 25_000_000, 'cat ' * 600], ['the cat', 'the cat'])
        print(bool(np.allclose(r.precision[0], r.precision[1], atol=1e-6) and np.allclose(r.recall[0], r.recall[1], atol=1e-6)))
    """)
    assert out == 'True'

def test_encoder_one_100mb_line():
    # The sentence encoder clips to its maximum sequence length before it tokenizes the rest, so a 100 MB line costs
    # what its first 256 tokens cost: its embedding equals the embedding of a text that is already that short.
    out = capped("""
        import numpy as np
        from cah_metrics.embeddings import get_encoder
        e = get_encoder()
        a, b = e.encode(['cat ' * 25_000_000, 'cat ' * 300])
        print(bool(np.allclose(a, b, atol=1e-5)), a.shape)
    """)
    assert out == 'True (384,)'

def test_rouge_bootstrap_100k_pairs():
    # Identical pairs: every resample of every measure is 1, so the interval is (1, 1).
    out = capped("""
        from cah_metrics.rouge import corpus_rouge
        preds = [f'the cat number {i} sat' for i in range(100_000)]
        a = corpus_rouge(preds, preds, rouge_types=['rougeL'])
        print(a.n, a['rougeL'], a['rougeL_low'], a['rougeL_high'])
    """, timeout=600)
    assert out == '100000 1.0 1.0 1.0', out

def test_rougelsum_many_sentences():
    # 2,000 one-word sentences each side, the reference's the candidate's in reverse: the union LCS of each reference
    # sentence with the candidate is that word alone, so every candidate word is hit once: P = R = F = 1.
    out = capped("""
        from cah_metrics.rouge import rouge_scores
        words = [f'w{i}' for i in range(2000)]
        s = rouge_scores(['\\n'.join(words)], ['\\n'.join(reversed(words))], rouge_types=['rougeLsum', 'rougeL'])[0]
        print(round(s['rougeLsum'], 6), round(s['rougeL'], 6))
    """)
    # rougeL over the whole text: the LCS of a sequence of distinct words and its reverse is 1 word, F = 1/2000.
    assert out == f"1.0 {round(1 / 2000, 6)}"

def test_tutorial_rouge_l_two_50k_token_texts():
    # a = 50k tokens; b = a with every other token replaced by a token a lacks: LCS = 25k, P = R = F = 1/2.
    out = capped("""
        from cah_metrics.rouge import rouge_l
        a = [f't{i}' for i in range(50_000)]
        b = [t if i % 2 == 0 else 'x' for i, t in enumerate(a)]
        print(rouge_l(a, b))
    """)
    assert out == '(0.5, 0.5, 0.5)'

def test_cooccurrence_evaluate_batch_50k_tokens():
    # The old code built a tokens x tokens matrix of the text against its context (50k x 50k floats: 18.6 GiB) when
    # both are long, so the context is the same 50k-token text. Only that it finishes under the cap with a full row
    # of finite scores; the values are tested in 06_humor.
    out = capped("""
        import math
        from cah_metrics.humor import HumorEvaluator
        ev = HumorEvaluator(encoder='cooccurrence')
        text = ' '.join(['cat', 'sat', 'on', 'the', 'mat'] * 10_000)
        df = ev.evaluate_batch([text], [text])
        print(df.shape, all(math.isfinite(v) for v in df.iloc[0]))
    """)
    assert out.endswith('True') and out.startswith('(1, ')

@pytest.mark.parametrize('call, message', [
    ("from cah_metrics.bleu import sentence_bleu; sentence_bleu('a b', 'a b', max_n=10**9)", 'max_n'),
    ("from cah_metrics.bleu import bleu; bleu(['a'], [['a']], max_n=2**63)", 'max_n'),
    ("from cah_metrics.diversity import distinct_n; distinct_n(['a b'], n=10**9)", ' n '),
    ("from cah_metrics.diversity import self_bleu; self_bleu(['a', 'b'], max_n=2**63)", 'max_n'),
    ("from cah_metrics.rouge import ROUGE; ROUGE(rouge_types=['rouge1000000'])", 'rouge_types'),
])
def test_unbounded_order_is_refused(call, message):
    # An order above the documented maximum is a ValueError at once, not a hang or an allocation.
    out = capped(f"""
        try: {call}
        except ValueError as e: print('ValueError:', e)
        else: print('no error')
    """, timeout=60)
    assert out.startswith('ValueError:') and message in out, out

def test_ngrams_long_order_is_window_by_window():
    # 60k tokens, n = 30k: 30,001 windows; the old code held n shifted copies of the list (1.35 billion pointers, 11 GB).
    out = capped("""
        from cah_metrics.text import ngrams
        toks = [f'w{i % 7}' for i in range(60_000)]
        g = ngrams(toks, 30_000)
        first = next(g); rest = sum(1 for _ in g)
        print(len(first), rest + 1)
    """, timeout=120)
    assert out == '30000 30001'

def test_ngram_entropy_huge_order_is_linear():
    # n larger than the text: no n-gram at all, entropy 0 -- computed without building 10**6-long tuples.
    out = capped("""
        from cah_metrics.information import ngram_entropy
        print(ngram_entropy(' '.join(f'w{i}' for i in range(200_000)), n=10**6))
    """, timeout=120)
    assert out == '0.0'

def test_language_ratios_one_huge_word():
    # One 10 MB word of romanised Hindi: a single word, so one language has all of it.
    out = capped("""
        from cah_metrics.cmc import language_ratios
        print(language_ratios('kal' * 3_333_334))
    """, timeout=120)
    assert out.startswith('{') and out.endswith(': 1.0}'), out
