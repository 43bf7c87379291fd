"""The CAH humor evaluator at full size, the main job as a user runs it, and the learned scorer on 40,000 texts.

1. All 500 answers of the main game against all 80 prompts (40,000 pairs): every metric of the design, with the bundled
   MiniLM for coherence (and PaCS, with a two-card profile). Target: under 60 s on this 2-core machine, with each
   distinct text embedded once.
2. `cah-metrics humor` with its defaults (500 answers x 5 prompts): scoring, the readable table, the five files.
   Target (issue 19): under a minute on 2 CPU cores.
3. With `--learned`: the learned scorer (`HumorEvaluator(scorer='learned')`) on the 40,000 texts of the ColBERT humor
   development split (tests/data/colbert_humor/colbert_humor_dev.csv): throughput in texts per second, and its ROC AUC
   on the rows outside the 4,000-row sample it was trained on (a held-out check). Encoding dominates: about 8 minutes
   on 2 cores.

There is no reference implementation to run beside these; the script checks that every score is finite and on its scale.

    python bench/bench_humor.py [--learned]
"""
import sys, time
import numpy as np
from _common import ROOT

def full_grid():
    from cah_metrics.corpora import default_pack
    from cah_metrics.humor import HumorEvaluator, SCORE_FIELDS
    pack = default_pack()
    answers, prompts = [a['text'] for a in pack.answers], [p['text'] for p in pack.prompts]
    profile = ["Old-people smell.", "A sausage festival."]
    t0 = time.perf_counter()
    ev = HumorEvaluator()
    t1 = time.perf_counter()
    df = ev.evaluate_batch([a for p in prompts for a in answers], [p for p in prompts for _ in answers], profile)
    t2 = time.perf_counter()
    n_texts = len(set(answers + prompts + profile))
    ok = len(df) == 40_000 and list(df.columns) == list(SCORE_FIELDS) and np.isfinite(df.to_numpy(float)).all() and len(ev._emb) == n_texts
    print(f"40,000 pairs ({len(answers)} answers x {len(prompts)} prompts): training {t1 - t0:.2f} s, scoring {t2 - t1:.2f} s, "
          f"total {t2 - t0:.2f} s (target < 60 s); {len(ev._emb)} texts embedded ({n_texts} distinct) -> {'ok' if ok else 'FAILED'}")
    return ok

def main_job():
    from cah_metrics.evaluate import humor_outputs, humor_summary, humor_table, rank_answers
    t0 = time.perf_counter()
    run = rank_answers()
    t1 = time.perf_counter()
    files, text, tab = humor_outputs(run), humor_summary(run), humor_table(run)
    t2 = time.perf_counter()
    ok = len(tab) == 2500 and all(tab[c].nunique() > 1 for c in tab.columns) and len(files) == 5
    print(f"cah-metrics humor defaults (500 answers x 5 prompts, MiniLM): scoring {t1 - t0:.2f} s, report and five files {t2 - t1:.2f} s, "
          f"total {t2 - t0:.2f} s (target < 60 s) -> {'ok' if ok else 'FAILED'}")
    return ok

def learned():
    import pandas as pd
    from sklearn.metrics import roc_auc_score
    from cah_metrics.humor import HumorEvaluator
    data = ROOT / 'tests' / 'data' / 'colbert_humor'
    dev = pd.read_csv(data / 'colbert_humor_dev.csv', keep_default_na=False)
    train_rows = set(pd.read_csv(data / 'colbert_humor_4k.csv', keep_default_na=False)['row'])
    texts, y = dev['text'].tolist(), dev['humor'].astype(str).eq('True').to_numpy()
    ev = HumorEvaluator(scorer='learned')
    ev.learned_scores(texts[:8], [''] * 8)                  # load the model once, untimed
    ev._emb.clear()
    t0 = time.perf_counter()
    s = ev.learned_scores(texts, [''] * len(texts))
    dt = time.perf_counter() - t0
    held = np.array([i not in train_rows for i in range(len(texts))])
    auc = roc_auc_score(y[held], s[held])
    ok = s.shape == (len(texts),) and np.isfinite(s).all() and ((s >= 0) & (s <= 10)).all()
    print(f"learned scorer on {len(texts):,} ColBERT texts: {dt:.1f} s, {len(texts) / dt:,.0f} texts/s on this machine; "
          f"ROC AUC on the {held.sum():,} rows it was not trained on: {auc:.4f} -> {'ok' if ok else 'FAILED'}")
    return ok

def main(argv):
    oks = [full_grid(), main_job()] + ([learned()] if '--learned' in argv else [])
    return 0 if all(oks) else 1

if __name__ == '__main__': sys.exit(main(sys.argv[1:]))
