"""Diversity: exact Self-BLEU against the nltk definition, then Self-BLEU and semantic diversity at scale, in one run.

1. Self-BLEU-4 (no smoothing, lowercased Treebank tokens) of 500 texts: ours and the definition (nltk sentence_bleu of
   each text against the 499 others); the numbers must agree to 1e-12.
2. Ours alone on 10,000 and 100,000 texts of 20-30 words (target: 10,000 in under 5 s).
3. Semantic diversity (the design's KMeans/silhouette clusters, 1 - mean similarity) and the Vendi score of 100,000
   precomputed 384-d embeddings (a seeded mixture of 8 clusters; target: under 10 s and 2 GB, no N x N matrix).

    python bench/bench_diversity.py
"""
import resource, sys, time, tracemalloc, warnings
from pathlib import Path
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import make_texts, timed, peak_mib

def main():
    from nltk.translate.bleu_score import sentence_bleu
    from cah_metrics.diversity import self_bleu, semantic_diversity, vendi_score
    from cah_metrics.text import get_tokenizer
    texts = make_texts(100_000)
    small = texts[:500]
    toks = get_tokenizer("treebank", lowercase=True).batch(small)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        t0 = time.perf_counter()
        ref = sum(sentence_bleu(toks[:i] + toks[i + 1:], toks[i]) for i in range(len(toks))) / len(toks)
        t_ref = time.perf_counter() - t0
    t_ours, ours = timed(lambda: self_bleu(small), 3)
    ok = abs(ours.score - ref) <= 1e-12
    print(f"Self-BLEU-4, 500 texts: ours {ours.score:.15f} in {t_ours:.3f} s, nltk definition {ref:.15f} in {t_ref:.1f} s "
          f"-> {'agree to 1e-12' if ok else 'DISAGREE'} ({t_ref / t_ours:.0f}x)")
    for n in (10_000, 100_000):
        t, s = timed(lambda: self_bleu(texts[:n]), 1)
        print(f"Self-BLEU-4, {n:7d} texts: {t:6.2f} s (score {s.score:.4f})")
    rng = np.random.default_rng(0)
    centers = rng.normal(size=(8, 384))
    E = (centers[rng.integers(0, 8, 100_000)] + rng.normal(scale=1.5, size=(100_000, 384))).astype(np.float32)
    t, sd = timed(lambda: semantic_diversity(E), 1)
    print(f"semantic diversity of 100,000 x 384 embeddings: {t:.2f} s (k={sd.k}, silhouette {sd.silhouette:.3f}, "
          f"1 - mean sim {1 - sd.mean_similarity:.4f}, design overall {sd.overall_diversity:.4f}, Vendi {sd.vendi:.2f})")
    t, v = timed(lambda: vendi_score(E), 3)
    print(f"Vendi score alone: {t:.3f} s")
    print(f"peak traced memory of semantic diversity: {peak_mib(lambda: semantic_diversity(E)):.0f} MiB; "
          f"process peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")
    return 0 if ok else 1

if __name__ == '__main__': sys.exit(main())
