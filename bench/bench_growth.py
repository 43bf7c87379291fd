"""Cost growth: every registered corpus metric that needs no model, timed at 1k, 10k and 100k pairs, and the fitted exponent.

The pairs are bench/_common.make_pairs (20-40 words cut from the card packs shipped in the package, the hypothesis a
noisy copy of the reference); metrics that read source conversations get the references as their sources. Each size
is a fresh `load(name)`, one `update` with every pair and one `compute` (the registry's defaults, so ROUGE includes its
bootstrap interval), timed as a median of 3 runs (1 at the largest size). The exponent is the least-squares slope of
log(time) on log(pairs): 1 is linear. Model-backed metrics (bertscore, mauve, semantic_diversity, humor) are left out:
their cost is the encoder's forward pass, one per text (bench_bertscore.py, bench_encode.py, bench_humor.py).

    python bench/bench_growth.py [--sizes 1000 10000 100000] [--only bleu chrf] [--quick] [--json PATH]
"""
import argparse, sys, warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import make_pairs, timed, row, emit, fit_exponent

MODEL_BACKED = {'bertscore', 'mauve', 'semantic_diversity', 'humor'}
NOT_TEXT = {'perplexity', 'top_k_accuracy'}      # their inputs are numbers (log-probabilities, class scores), not texts
AIM = 1.15                                       # the largest slope that still reads as linear over two decades

def corpus_metrics():
    "Registry names of the metrics whose inputs are texts and which load no model."
    from cah_metrics import list_metrics
    return [i.name for i in list_metrics() if i.name not in MODEL_BACKED | NOT_TEXT]

# the library's caches of results (not of models or compiled patterns): an earlier run's entries would make a later one cheaper
RESULT_CACHES = (('cah_metrics.bleu', '_ref_table'), ('cah_metrics.text', '_tok13a'), ('cah_metrics.text', '_stem'), ('cah_metrics.text', 'porter_stem'))

def clear_caches():
    "Forget what an earlier run left in the library's result caches, so that every run, the repeats included, counts all its work."
    import importlib
    for mod, name in RESULT_CACHES:
        f = getattr(importlib.import_module(mod), name, None)
        if callable(getattr(f, 'cache_clear', None)): f.cache_clear()

def run_once(name, preds, refs):
    from cah_metrics import load
    clear_caches()
    m = load(name)
    kw = {'predictions': preds, 'references': [[r] for r in refs], 'sources': refs}
    m.update(**{k: kw[k] for k in m.inputs})
    return m.compute()

def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--sizes', type=int, nargs='+', default=[1_000, 10_000, 100_000])
    ap.add_argument('--only', nargs='+', metavar='NAME'); ap.add_argument('--quick', action='store_true', help='1k, 3k and 10k pairs')
    ap.add_argument('--json', help='append the result rows here (JSON Lines, for bench/run_all.py)')
    a = ap.parse_args()
    sizes = [1_000, 3_000, 10_000] if a.quick else sorted(a.sizes)
    names = a.only or corpus_metrics()
    hyps, refs = make_pairs(max(sizes))
    rows = []
    print(f"{'metric':22s} " + ' '.join(f"{n:>10,d}" for n in sizes) + f" {'exponent':>9s}")
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        for name in names:
            run_once(name, hyps[:100], refs[:100])         # imports and any model of the metric's own (the LM) load here, untimed
            secs = [timed(lambda: run_once(name, hyps[:n], refs[:n]), 1 if n == max(sizes) else 3)[0] for n in sizes]
            e = fit_exponent(sizes, secs)
            print(f"{name:22s} " + ' '.join(f"{s:9.3f}s" for s in secs) + f" {e:9.2f}", flush=True)
            r = row(f"cost growth of `{name}` (registry defaults), " + ' / '.join(f"{n:,}" for n in sizes) + " pairs (`bench/bench_growth.py`)",
                    secs[-1], aim=f"exponent <= {AIM} (linear)", met=e <= AIM, numbers=f"exponent {e:.2f}")
            r['growth'] = {'sizes': sizes, 'secs': secs, 'exponent': e, 'metric': name}
            rows.append(r)
    emit(rows, a.json)
    return 0

if __name__ == '__main__': sys.exit(main())
