"""What each humor scorer costs, encoding included, and what learning a table's taste costs (issue 30).

1. Every named scorer (`humor.SCORERS`) ranks the 500 answers of the embedded main game against 5 seeded prompts
   (2,500 pairs) from a freshly trained evaluator (a cold sentence-vector cache: every text it needs is encoded in
   the timed call), as `rank_answers` does. Reported: seconds per 1,000 pairs, beside the design's overall score,
   the scorer the command used by default before issue 30.
2. `cah-metrics humor` with its defaults, the main job as a user runs it (the preference scorer), in a fresh process,
   beside `--scorer design` in the same run. Target: under 60 s on 2 cores.
3. `HumorEvaluator.fit_preferences` on 1,000 rounds of 10 candidates (answers of the main game, a simulated judge
   who prefers short answers about food, picking by the conditional logit): features (MiniLM vectors of 10,000 filled
   cards and of the answers), C chosen by an inner 3-fold split, the 5-fold cross-validation, the learning curve and
   the final fit. Target: under 2 minutes.

There is no reference implementation of these to run beside them; the script checks that every score is finite and
on its scale, and that the learned taste is consistent.

    python bench/bench_scorers.py [--quick] [--json PATH]
"""
import sys, time
import numpy as np
from _common import ROOT, emit, row, run_peak_rss

def scorer_costs(n_prompts):
    from cah_metrics.evaluate import rank_answers
    from cah_metrics.humor import SCORERS
    secs, ok = {}, True
    for name in SCORERS:
        t = time.perf_counter()
        run = rank_answers(n_prompts=n_prompts, scorer=name)
        secs[name] = time.perf_counter() - t
        s = run.scores['overall_humor_score']
        ok &= bool(np.isfinite(s).all() and s.between(0, 10).all())
    pairs = 500 * n_prompts
    rows = [row(f"humor scorer '{name}': 500 answers x {n_prompts} prompts ({pairs:,} pairs) from a fresh evaluator, "
                f"encoding included; {1000 * secs[name] / pairs:.2f} s per 1,000 pairs", secs[name],
                "the design's score, same run", secs['design'], numbers='every score finite, in 0-10')
            for name in SCORERS]
    return ok, rows

def main_job(quick):
    import shutil, tempfile
    cli = [shutil.which('cah-metrics'), 'humor', '--output-dir']
    with tempfile.TemporaryDirectory() as d:
        extra = ['--n-prompts', '1'] if quick else []
        ours, ours_mib = run_peak_rss(cli + [f'{d}/a', *extra], cwd=ROOT)
        design, design_mib = run_peak_rss(cli + [f'{d}/b', '--scorer', 'design', *extra], cwd=ROOT)
    return [row("cah-metrics humor with its defaults (the preference scorer; 500 answers x 5 prompts, the five files), "
                "a fresh process", ours, "cah-metrics humor --scorer design, same run", design, ours_mib=ours_mib,
                peer_mib=design_mib, aim='under 60 s', met=ours < 60)]

def simulated_rounds(ev, n_rounds, k=10, seed=0):
    from cah_metrics.corpora import default_pack
    pack, rng = default_pack(), np.random.default_rng(seed)
    answers, prompts = [a['text'] for a in pack.answers], [p['text'] for p in pack.prompts if p['slots'] == 1]
    topic = ev.embed(['food, eating and drinking'])[0]
    out = []
    for _ in range(n_rounds):
        cands = [answers[i] for i in rng.choice(len(answers), k, replace=False)]
        u = 12 * ev.embed(cands) @ topic - 0.3 * np.array([len(c.split()) for c in cands])
        p = np.exp(u - u.max())
        out.append({'prompt': prompts[rng.integers(len(prompts))], 'candidates': cands, 'pick': int(rng.choice(k, p=p / p.sum()))})
    return out

def learning(n_rounds):
    from cah_metrics.humor import HumorEvaluator
    ev = HumorEvaluator()
    rounds = simulated_rounds(ev, n_rounds)
    ev = HumorEvaluator()                                  # a cold cache: the filled cards are encoded in the timed call
    t = time.perf_counter()
    report = ev.fit_preferences(rounds)
    secs = time.perf_counter() - t
    print(report.summary())
    return report.consistent, [row(f"HumorEvaluator.fit_preferences: {n_rounds:,} rounds of 10 candidates (MiniLM card and answer "
                                   f"vectors, C chosen by an inner split, 5-fold cross-validation, learning curve, final fit); "
                                   f"accuracy {report.accuracy[0]:.3f}",
                                   secs, aim='under 120 s', met=secs < 120, numbers='the simulated taste found (interval above 0.5)')]

def main(argv):
    import argparse
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--quick', action='store_true'); ap.add_argument('--json')
    a = ap.parse_args(argv)
    ok1, rows = scorer_costs(1 if a.quick else 5)
    ok2, learn_rows = learning(100 if a.quick else 1000)
    rows += main_job(a.quick) + learn_rows
    emit(rows, a.json)
    return 0 if ok1 and ok2 else 1

if __name__ == '__main__': sys.exit(main(sys.argv[1:]))
