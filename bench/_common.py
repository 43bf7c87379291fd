"Shared by the benchmarks: the sentence pairs and the timing helpers."
import gc, random, statistics, time, tracemalloc
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
