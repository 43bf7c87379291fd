"Shared by the benchmarks: the sentence pairs and the timing helpers."
import gc, random, statistics, sys, time, tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKS = ('cah_main_game', 'cards_against_coffee')   # the card packs shipped in the package (cah_metrics/data), in this order

def make_pairs(n, seed=0, lo=20, hi=40):
    "n (hypothesis, reference) pairs of lo-hi words cut from the text of the bundled card packs (seeded)."
    from cah_metrics.corpora import bundled_pack
    packs = [bundled_pack(name) for name in PACKS]
    cards = [c['text'] for pk in packs for part in (pk.prompts, pk.answers) for c in part]
    words = ' '.join(cards).replace('_', ' ').split()
    rng = random.Random(seed)
    hyps, refs = [], []
    for _ in range(n):
        L = rng.randint(lo, hi)
        start = rng.randrange(len(words) - L)
        ref = words[start:start + L]
        hyp = [w if rng.random() > 0.25 else rng.choice(words) for w in ref]
        if rng.random() < 0.3: del hyp[rng.randrange(len(hyp))]
        hyps.append(' '.join(hyp)); refs.append(' '.join(ref))
    return hyps, refs

def timed(fn, repeats):
    "Median wall time of `repeats` calls, and the last result; the garbage collector is paused while timing, as timeit does."
    times, out = [], None
    for _ in range(repeats):
        out = None; gc.collect(); gc.disable()
        try: t = time.perf_counter(); out = fn(); times.append(time.perf_counter() - t)
        finally: gc.enable()
    return statistics.median(times), out

def timed_warm(fn, repeats):
    "Median wall time of `repeats` back-to-back calls after an untimed one, with no collection in between (timeit's way): caches warm."
    fn(); gc.collect(); gc.disable()
    try:
        times = []
        for _ in range(repeats): t = time.perf_counter(); fn(); times.append(time.perf_counter() - t)
    finally: gc.enable()
    return statistics.median(times)

def peak_mib(fn):
    "Peak memory traced while `fn` runs, in MiB."
    tracemalloc.start(); fn(); peak = tracemalloc.get_traced_memory()[1]; tracemalloc.stop()
    return peak / 2**20

def make_texts(n, lo=20, hi=30, seed=1):
    "n texts of lo-hi words cut from the CAH card text, each with about a quarter of its words replaced (seeded)."
    hyps, _ = make_pairs(n, seed, lo, hi)
    return hyps

# ---- results every benchmark hands to bench/run_all.py, which writes the README's performance table from them ----
import json, math, os, resource, subprocess

def segment_arguments(doc, quick_help='1,000 segments (a smoke run)'):
    """The options every corpus-metric benchmark takes: --segments (10,000), --repeats (3), --quick and --json.
    A script adds its own options to the parser it gets back."""
    import argparse
    ap = argparse.ArgumentParser(description=doc.split('\n')[0])
    ap.add_argument('--segments', type=int, default=10_000)
    ap.add_argument('--repeats', type=int, default=3)
    ap.add_argument('--quick', action='store_true', help=quick_help)
    ap.add_argument('--json', help='append the result rows here (JSON Lines, for bench/run_all.py)')
    return ap

def row(task, ours_s, peer=None, peer_s=None, *, ours_mib=None, peer_mib=None, aim=None, met=None, numbers=None, bench=None):
    """One line of the performance table. `ratio` is the peer's time over ours (above 1: we are faster); `aim` is the
    issue's target in words and `met` whether this run met it (None: no target)."""
    r = dict(bench=bench or Path(sys.argv[0]).name, task=task, ours_s=ours_s, ours_mib=ours_mib, peer=peer,
             peer_s=peer_s, peer_mib=peer_mib, aim=aim, met=met, numbers=numbers)
    r['ratio'] = peer_s / ours_s if peer_s and ours_s else None
    return r

def emit(rows, path=None):
    "Print the rows; when `path` (or $CAH_BENCH_JSON) is set, append them there as JSON Lines for bench/run_all.py."
    path = path or os.environ.get('CAH_BENCH_JSON')
    for r in rows:
        fig = lambda s, m: '' if s is None else f"{s:.3f} s" + ('' if m is None else f", {m:.0f} MiB")
        print(f"[row] {r['task']}: ours {fig(r['ours_s'], r['ours_mib'])}"
              + (f" | {r['peer']} {fig(r['peer_s'], r['peer_mib'])}" if r['peer'] else '')
              + (f" | {r['ratio']:.2f}x" if r['ratio'] else '')
              + (f" | aim {r['aim']}: {'met' if r['met'] else 'NOT met'}" if r['aim'] else ''))
    if path:
        with open(path, 'a', encoding='utf-8') as f:
            for r in rows: f.write(json.dumps(r) + '\n')

def fit_exponent(ns, secs):
    "The least-squares slope of log(time) on log(size): about 1 for linear cost, 2 for quadratic."
    xs, ys = [math.log(n) for n in ns], [math.log(s) for s in secs]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)

# A small interpreter between us and the command: a process forked from a large parent starts with the parent's resident
# pages, and Linux keeps that high-water mark through exec, so the command's own peak is read where its parent is small.
_SHIM = """import os, subprocess, sys, time
t = time.perf_counter(); p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL)
_, status, ru = os.wait4(p.pid, 0)
sys.stderr.write(f"\\n@@shim {ru.ru_maxrss} {time.perf_counter() - t}\\n"); sys.exit(os.waitstatus_to_exitcode(status))"""

def run_peak_rss(cmd, **kw):
    """Run `cmd` (a list) in a fresh process; its wall time in seconds and its peak resident memory in MiB (the command's
    own, read by wait4 in a small intermediate interpreter, so that this process's memory is not counted; a command smaller
    than that interpreter, about 14 MiB, reads as its size)."""
    import tempfile
    with tempfile.TemporaryFile() as err:
        p = subprocess.run([sys.executable, '-c', _SHIM, *map(str, cmd)], stdout=subprocess.DEVNULL, stderr=err, **kw)
        err.seek(0); text = err.read().decode(errors='replace')
    last = [l for l in text.splitlines() if l.startswith('@@shim ')]
    if p.returncode != 0 or not last: raise RuntimeError(f"{cmd[0]} failed ({p.returncode}): {text[-2000:]}")
    kib, secs = last[-1].split()[1:]
    return float(secs), int(kib) / 1024
