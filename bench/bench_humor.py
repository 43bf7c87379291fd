"""The CAH humor evaluator at full size: all 500 answers of the main game against all 80 prompts (40,000 pairs).

Every metric of the design, with the bundled MiniLM for coherence (and PaCS, with a two-card profile). Target: under
60 s on this 2-core machine, with each distinct text embedded once. There is no reference implementation to run beside
it; the script checks the embedding count and that every score is finite and on its scale.

    python bench/bench_humor.py
"""
import sys, time
import numpy as np

def main():
    from cah_metrics.corpora import default_pack
    from cah_metrics.humor import HumorEvaluator
    pack = default_pack()
    answers, prompts = [a['text'] for a in pack.answers], [p['text'] for p in pack.prompts]
    profile = ["Old-people smell.", "A sausage festival."]
    t0 = time.perf_counter()
    ev = HumorEvaluator()
    t1 = time.perf_counter()
    df = ev.evaluate_batch([a for p in prompts for a in answers], [p for p in prompts for _ in answers], profile)
    t2 = time.perf_counter()
    n_texts = len(set(answers + prompts + profile))
    ok = len(df) == 40_000 and np.isfinite(df.to_numpy(float)).all() and len(ev._emb) == n_texts
    print(f"40,000 pairs ({len(answers)} answers x {len(prompts)} prompts): training {t1 - t0:.2f} s, scoring {t2 - t1:.2f} s, "
          f"total {t2 - t0:.2f} s (target < 60 s); {len(ev._emb)} texts embedded ({n_texts} distinct) -> {'ok' if ok else 'FAILED'}")
    return 0 if ok else 1

if __name__ == '__main__': sys.exit(main())
