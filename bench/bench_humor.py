"""The CAH humor evaluator at full size, the main job as a user runs it, and the learned scorer on 40,000 texts.

1. All 500 answers of the main game against all 80 prompts (40,000 pairs): every humor metric, with the bundled
   MiniLM for coherence (and PaCS, with a two-card profile), ranked by the metrics' own overall score
   (`scorer='design'`). Target: under 60 s on this 2-core machine, with each distinct text embedded once. (The
   default scorer, 'preference', also encodes every filled card: one forward pass per pair, about 40,000 here; its
   cost per 1,000 pairs is a row of bench/bench_scorers.py.)
2. `cah-metrics humor` with its defaults (500 answers x 5 prompts): scoring, the readable table, the five files.
   Target (issue 19): under a minute on 2 CPU cores.
3. With `--learned`: the learned scorer (`HumorEvaluator(scorer='learned')`) on the 40,000 texts of the ColBERT humor
   development split (tests/data/colbert_humor/colbert_humor_dev.csv): throughput in texts per second, and its ROC AUC
   on the rows outside the 4,000-row sample it was trained on (a held-out check). Encoding dominates: about 8 minutes
   on 2 cores.

4. Issue 21, batch size: the 40,000 pairs as one batch against the same pairs as 80 batches of 500 (the peer: a user
   who splits the work), cut two ways: by prompt (each batch one prompt's 500 answers: the same 500 texts every time, so
   the evaluator computes their batch fields once and serves the other 79 from its cache) and by answer (6 or 7 answers
   x every prompt: each batch computes its own batch fields), ranked by `scorer='design'` as in 1, and batches of 5k/10k/20k/40k pairs with the fitted cost exponent (`fit_exponent`; aim: at
   most linear). The texts are embedded beforehand (untimed, as a warm evaluator has them), so this times the scoring
   and the batch diversity. The per-item fields of one batch and of the 80 batches must agree to 1e-12 (the batch
   fields differ by definition: they are over the batch).

There is no reference implementation to run beside 1-3; the script checks that every score is finite and on its scale.

    python bench/bench_humor.py [--learned] [--sizes-only] [--repeats 3] [--quick] [--json PATH]
"""
import sys, time
import numpy as np
from _common import ROOT, emit, fit_exponent, row, timed

def full_grid():
    from cah_metrics.corpora import default_pack
    from cah_metrics.humor import HumorEvaluator, SCORE_FIELDS
    pack = default_pack()
    answers, prompts = [a['text'] for a in pack.answers], [p['text'] for p in pack.prompts]
    profile = ["Old-people smell.", "A sausage festival."]
    t0 = time.perf_counter()
    ev = HumorEvaluator(scorer='design')
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

def batch_sizes(repeats=3, quick=False):
    "One batch against many of 500, and the cost exponent over batch sizes; the result rows."
    from cah_metrics.corpora import default_pack
    from cah_metrics.humor import HumorEvaluator, ITEM_FIELDS
    pack = default_pack()
    answers, prompts = [a['text'] for a in pack.answers], [p['text'] for p in pack.prompts]
    if quick: prompts = prompts[:24]       # 12,000 pairs: above the 5,000 texts where the silhouette starts sampling (see the report)
    profile = ["Old-people smell.", "A sausage festival."]
    T, C = [a for p in prompts for a in answers], [p for p in prompts for _ in answers]
    ev = HumorEvaluator(scorer='design')
    ev.embed(list(dict.fromkeys(T + C + profile)))   # every distinct text embedded once, untimed
    def run(texts, contexts, size):
        ev._div.clear()
        return [ev.evaluate_batch(texts[s:s + size], contexts[s:s + size], profile) for s in range(0, len(texts), size)]
    N = len(T)
    t_one, one = timed(lambda: run(T, C, N), repeats)
    t_many, many = timed(lambda: run(T, C, 500), repeats)
    # the same pairs in another order: by answer, so each batch of 500 holds 6 or 7 answers x every prompt, and no two
    # batches hold the same texts (above, each batch is one prompt's 500 answers: the same texts every time, so their
    # batch fields are computed once and served from the evaluator's cache 79 times)
    by_answer = sorted(range(N), key=lambda i: (i % len(answers), i // len(answers)))
    Ta, Ca = [T[i] for i in by_answer], [C[i] for i in by_answer]
    t_mixed, mixed = timed(lambda: run(Ta, Ca, 500), repeats)
    import pandas as pd
    many, mixed = pd.concat(many, ignore_index=True), pd.concat(mixed, ignore_index=True)
    back = np.argsort(by_answer)
    err = max(max(float(np.abs(one[0][k].to_numpy() - many[k].to_numpy()).max()),
                  float(np.abs(one[0][k].to_numpy() - mixed[k].to_numpy()[back]).max())) for k in ITEM_FIELDS)
    ok = err <= 1e-12
    sizes = [n for n in ((6000, 12_000) if quick else (5000, 10_000, 20_000, 40_000))]
    secs = [timed(lambda: run(T[:n], C[:n], n), repeats)[0] for n in sizes]
    k = fit_exponent(sizes, secs)
    print(f"humor, {N:,} pairs: one batch {t_one:.2f} s, {N // 500} batches of 500 {t_many:.2f} s ({t_many / t_one:.2f}x; every batch "
          f"the same 500 answers), {N // 500} batches of 500 by answer {t_mixed:.2f} s ({t_mixed / t_one:.2f}x; no two batches alike); "
          f"item fields agree to {err:.1e} -> {'ok' if ok else 'DIFFER'}")
    print("batch sizes " + ', '.join(f"{n:,}: {t:.2f} s" for n, t in zip(sizes, secs)) + f"; fitted exponent {k:.2f} (aim <= 1.1)")
    return ok, [row(f"HumorEvaluator.evaluate_batch, {N:,} CAH pairs ({len(answers)} answers x {len(prompts)} prompts, MiniLM vectors ready): one batch "
                    f"vs {N // 500} batches of 500", t_one, f'{N // 500} batches of 500', t_many, aim='one batch no slower than many',
                    met=t_one <= t_many, numbers='item fields equal to 1e-12'),
                row(f"HumorEvaluator.evaluate_batch, the same {N:,} pairs: one batch vs {N // 500} batches of 500 taken by answer (each "
                    f"holds {len(answers) * 500 // N} or {len(answers) * 500 // N + 1} answers x every prompt, so every batch computes its own batch fields; above, "
                    f"each batch is one prompt's {len(answers)} answers, the same texts, whose batch fields are computed once and then cached)",
                    t_one, f'{N // 500} batches of 500 by answer', t_mixed, aim='one batch no slower than many', met=t_one <= t_mixed,
                    numbers='item fields equal to 1e-12'),
                row(f"HumorEvaluator.evaluate_batch, batches of {', '.join(f'{n:,}' for n in sizes)} pairs: fitted cost exponent {k:.2f} "
                    f"({', '.join(f'{t:.1f}' for t in secs)} s); ours is the largest", secs[-1], aim='exponent <= 1.1 (linear)', met=k <= 1.1)]

def main(argv):
    import argparse
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--learned', action='store_true'); ap.add_argument('--sizes-only', action='store_true')
    ap.add_argument('--repeats', type=int, default=3); ap.add_argument('--quick', action='store_true'); ap.add_argument('--json')
    a = ap.parse_args(argv)
    ok, rows = batch_sizes(1 if a.quick else a.repeats, a.quick)
    emit(rows, a.json)
    if a.sizes_only or a.quick: return 0 if ok else 1
    oks = [ok, full_grid(), main_job()] + ([learned()] if a.learned else [])
    return 0 if all(oks) else 1

if __name__ == '__main__': sys.exit(main(sys.argv[1:]))
