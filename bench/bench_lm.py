"""Trigram language models: cah_metrics vs nltk.lm and vs KenLM, in one run.

nltk: train a Laplace trigram model (nltk.lm.Laplace(3) and our LaplaceLM, which reproduces it) on 80 Seinfeld
episodes and score the 16 held-out ones (split by episode). Both sides get the same tokenized lines; each does its
own padding and n-gram extraction inside the timed region. The held-out perplexities must agree to 1e-9 (relative).
Scoring is timed twice: as every benchmark here times (a garbage collection before each call, so the model's tables
start out of the CPU cache) and back to back as `timeit` does (caches warm). Then time our training of every model
kind on about a million tokens (the corpus repeated), against the 5 s target.

KenLM: interpolated modified Kneser-Ney trigram training, ours (`KneserNeyLM().fit`) against KenLM's `lmplz -o 3`
on 1M, 2M and 5M tokens: the Seinfeld lines (tokenized by our Unicode tokenizer), repeated with 10% of the tokens of
each repeat replaced by random corpus tokens (seeded; pure repeats leave no singleton trigrams, and KenLM then
refuses to estimate its discounts), written one text per line. lmplz is timed as a whole process (it reads the file,
counts, sorts, estimates and writes the ARPA file to /dev/null) with its best `-S` memory setting of 64M, 256M and
1G (its default, 80% of RAM, takes over 20 s here allocating memory); ours is timed in-process on the token lists
(the garbage collector paused, as everywhere in these benchmarks) and as a whole process too (Python start, imports,
reading and splitting the file, training). Peak memory: tracemalloc in-process, peak RSS for processes. CPU seconds are printed too (lmplz runs several
threads, and ours sorts its trigram keys on two; on a loaded machine wall times say more about the neighbours than about the programs). Then the
held-out perplexity of both on the natural split (80 episodes / 16), and the scoring time of ours
(`corpus_perplexity` of the token lists) against KenLM's Python module (`Model.score` of each line, summed).
The two perplexities differ by design (sentence-start convention; see nbs/04_lm.ipynb), so the check is that they
agree within 1%, and within 0.1% on the held-out lines without unknown words.

Build KenLM once with `bash bench/build_kenlm.sh` (from its PyPI sdist, cmake and Boost from Debian; installs into
~/.cache/kenlm, or $KENLM_HOME); without it the KenLM rows are skipped with a message. CI never builds it.

    python bench/bench_lm.py [--repeats 3] [--quick] [--json PATH]
"""
import argparse, math, os, random, shutil, subprocess, sys, tempfile, time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import ROOT, timed, timed_warm, peak_mib, row, emit, fit_exponent, run_peak_rss

KENLM_HOME = Path(os.environ.get('KENLM_HOME', Path.home() / '.cache' / 'kenlm'))
LMPLZ = KENLM_HOME / 'bin' / 'lmplz'
CHILD = ("import sys\nfrom cah_metrics.lm import KneserNeyLM\n"
         "with open(sys.argv[1], encoding='utf-8') as f: KneserNeyLM().fit([l.split() for l in f])\n")

def child(cmd, env=None):
    """Wall seconds and peak RSS (MiB) of `cmd` in a fresh process, and its CPU seconds (user + system; None without
    /usr/bin/time). The peak comes from /usr/bin/time where present:
    `run_peak_rss` reads the child's ru_maxrss, which on Linux also holds the parent's resident size at the fork
    (exec records the old address space's high-water mark), so a large benchmark parent inflates it."""
    if not Path('/usr/bin/time').exists(): return (*run_peak_rss(cmd, env=env), None)
    with tempfile.NamedTemporaryFile('r') as out:
        t = time.perf_counter()
        p = subprocess.run(['/usr/bin/time', '-f', '%M %U %S', '-o', out.name, *cmd], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
        secs = time.perf_counter() - t
        if p.returncode: raise RuntimeError(f"{cmd[0]} failed ({p.returncode}): {p.stderr.decode()[-2000:]}")
        rss, user, system = out.read().split()[-3:]
        return secs, int(rss) / 1024, float(user) + float(system)

def median_child(cmd, repeats, env=None):
    runs = sorted(child(cmd, env) for _ in range(repeats))
    return runs[len(runs) // 2]

def nltk_rows(a, eps, tok):
    from nltk.lm import Laplace
    from nltk.lm.preprocessing import padded_everygram_pipeline, pad_both_ends
    from nltk.util import ngrams
    from cah_metrics.lm import LaplaceLM, NGramLM, KneserNeyLM
    n_tr, n_te = (20, 4) if a.quick else (80, 16)
    train = [tok(l.text) for e in eps[:n_tr] for l in e.lines]
    test = [tok(l.text) for e in eps[n_tr:n_tr + n_te] for l in e.lines]
    n_train, n_test = sum(map(len, train)), sum(map(len, test))

    def nltk_fit():
        tr, vocab = padded_everygram_pipeline(3, train); m = Laplace(3); m.fit(tr, vocab); return m
    t_fit_ours, ours = timed(lambda: LaplaceLM().fit(train), a.repeats)
    t_fit_nltk, theirs = timed(nltk_fit, 1)
    t_sc_ours, p_ours = timed(lambda: ours.corpus_perplexity(test), a.repeats)
    t_sc_nltk, p_nltk = timed(lambda: theirs.perplexity([g for s in test for g in ngrams(pad_both_ends(s, n=3), 3)]), a.repeats)
    ok = abs(p_ours - p_nltk) <= 1e-9 * p_nltk
    print(f"Laplace trigram, Seinfeld: train {n_train} tokens ({n_tr} episodes), score {n_test} tokens ({n_te} held-out episodes)")
    print(f"held-out perplexity: cah_metrics {p_ours:.9f}, nltk {p_nltk:.9f} -> {'agree to 1e-9' if ok else 'DISAGREE'}")
    print(f"{'step':10s} {'cah_metrics s':>14s} {'nltk s':>9s} {'speed-up':>9s}")
    print(f"{'training':10s} {t_fit_ours:14.3f} {t_fit_nltk:9.3f} {t_fit_nltk / t_fit_ours:8.1f}x")
    print(f"{'scoring':10s} {t_sc_ours:14.4f} {t_sc_nltk:9.3f} {t_sc_nltk / t_sc_ours:8.1f}x")
    w_ours = timed_warm(lambda: ours.corpus_perplexity(test), 2 * a.repeats + 1)
    w_nltk = timed_warm(lambda: theirs.perplexity([g for s in test for g in ngrams(pad_both_ends(s, n=3), 3)]), a.repeats)
    print(f"{'  warm':10s} {w_ours:14.4f} {w_nltk:9.3f} {w_nltk / w_ours:8.1f}x   (back-to-back calls, caches warm; the rows above start each call after a collection)")
    m_ours, m_nltk = peak_mib(lambda: LaplaceLM().fit(train)), peak_mib(nltk_fit)
    print(f"peak MiB while training: cah_metrics {m_ours:.0f}, nltk {m_nltk:.0f}")
    num = 'held-out perplexity equal to 1e-9' if ok else f'perplexity DIFFERS: {p_ours} vs {p_nltk}'
    rows = [row(f"Laplace trigram LM, train on {n_train} tokens ({n_tr} Seinfeld episodes)", t_fit_ours, 'nltk.lm.Laplace(3)', t_fit_nltk,
                ours_mib=m_ours, peer_mib=m_nltk, numbers=num),
            row(f"Laplace trigram LM, held-out perplexity of {n_test} tokens ({n_te} episodes)", t_sc_ours, 'nltk.lm.Laplace(3)', t_sc_nltk, numbers=num)]
    big = [s for e in eps for l in e.lines for s in [tok(l.text)]] * (1 if a.quick else 4)
    n_big = sum(map(len, big))
    print(f"training on {n_big} tokens (the whole corpus x{1 if a.quick else 4}), target < 5 s:")
    for name, make in (('design NGramLM', NGramLM), ('LaplaceLM', LaplaceLM), ('KneserNeyLM', KneserNeyLM)):
        t, _ = timed(lambda: make().fit(big), a.repeats)
        print(f"   {name:15s} {t:6.2f} s")
        rows.append(row(f"{name} training on {n_big} tokens (Seinfeld x{1 if a.quick else 4})", t, aim='< 5 s', met=t < 5))
    return rows, ok

def corpus(base, n_tokens, seed=0):
    "Token lists with exactly `n_tokens` tokens: `base`, then repeats of it with 10% of the tokens replaced at random."
    words, rng, out, n = [w for s in base for w in s], random.Random(seed), [], 0
    while n < n_tokens:
        for s in base if not out else ([w if rng.random() > 0.1 else rng.choice(words) for w in s] for s in base):
            s = s[:n_tokens - n]; out.append(s); n += len(s)
            if n >= n_tokens: break
    return out

def lmplz(path, repeats, tmp, fallback=True):
    "Median wall time and peak RSS of lmplz -o 3 on `path` with its fastest -S of 64M, 256M, 1G (tried once each)."
    cmd = lambda mem: [str(LMPLZ), '-o', '3', '-S', mem, '-T', tmp, '--text', str(path), '--arpa', '/dev/null'] + ['--discount_fallback'] * fallback
    best = min(('64M', '256M', '1G'), key=lambda mem: child(cmd(mem))[0])
    return (*median_child(cmd(best), repeats), best)

def cpu_seconds(fn):
    "CPU seconds (user + system) of one call of `fn` in this process, the garbage collector paused."
    import gc
    gc.collect(); gc.disable()
    try: t = time.process_time(); fn(); return time.process_time() - t
    finally: gc.enable()

def kenlm_rows(a, eps, tok):
    from cah_metrics.lm import KneserNeyLM
    if not LMPLZ.exists():
        print(f"KenLM rows skipped: {LMPLZ} not found. Build KenLM with `bash bench/build_kenlm.sh` (or set $KENLM_HOME).")
        return [], True
    rows, ok = [], True
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get('PYTHONPATH', '')]))
    base = [s for s in (tok(l.text) for e in eps for l in e.lines) if s]
    sizes = (100_000, 200_000, 500_000) if a.quick else (1_000_000, 2_000_000, 5_000_000)
    tmp = tempfile.mkdtemp(prefix='bench_lm_')
    try:
        print(f"\nKneser-Ney trigram training, ours vs KenLM lmplz -o 3 ({LMPLZ}); load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
        print(f"{'tokens':>9s} {'ours in-process s':>18s} {'MiB':>5s} {'ours process s':>15s} {'RSS MiB':>8s} {'lmplz s':>8s} {'RSS MiB':>8s} {'-S':>5s} {'lmplz/ours':>11s}"
              f"  {'CPU s: ours':>11s} {'lmplz':>6s}")
        t_ours, t_lm = [], []
        for n in sizes:
            sents = corpus(base, n)
            path = Path(tmp) / f'train_{n}.txt'
            path.write_text('\n'.join(map(' '.join, sents)) + '\n', encoding='utf-8')
            t_in, _ = timed(lambda: KneserNeyLM().fit(sents), a.repeats)
            m_in = peak_mib(lambda: KneserNeyLM().fit(sents))
            c_in = cpu_seconds(lambda: KneserNeyLM().fit(sents))
            t_pr, m_pr, _ = median_child([sys.executable, '-c', CHILD, str(path)], a.repeats, env)
            t_k, m_k, c_k, mem = lmplz(path, a.repeats, tmp)
            t_ours.append(t_in); t_lm.append(t_k)
            print(f"{n:9d} {t_in:18.3f} {m_in:5.0f} {t_pr:15.3f} {m_pr:8.0f} {t_k:8.3f} {m_k:8.0f} {mem:>5s} {t_k / t_in:10.2f}x  {c_in:11.3f} {c_k or math.nan:6.3f}")
            label = f"{n / 1e6:g}M tokens (Seinfeld lines, repeats 10% perturbed)"
            rows.append(row(f"Kneser-Ney trigram LM, train on {label}: ours in-process (token lists) vs lmplz -o 3 -S {mem} whole process",
                            t_in, 'KenLM lmplz', t_k, ours_mib=m_in, peer_mib=m_k, aim='faster than lmplz', met=t_in < t_k,
                            numbers='same corpus; perplexities compared on the natural split'))
            rows.append(row(f"Kneser-Ney trigram LM, train on {label}: ours as a whole process (python start, import, read file, fit) vs lmplz",
                            t_pr, 'KenLM lmplz', t_k, ours_mib=m_pr, peer_mib=m_k,
                            numbers='peak RSS both; ours pays about 0.4 s to start Python and import numpy'))
            del sents
        e_ours, e_lm = fit_exponent(sizes, t_ours), fit_exponent(sizes, t_lm)
        print(f"fitted exponent of training time over {', '.join(f'{n / 1e6:g}M' for n in sizes)} tokens: ours {e_ours:.2f}, lmplz {e_lm:.2f}")
        rows.append(row(f"Kneser-Ney training cost exponent over {'/'.join(f'{n / 1e6:g}M' for n in sizes)} tokens: ours {e_ours:.2f}, lmplz {e_lm:.2f} (time at the largest size)",
                        t_ours[-1], 'KenLM lmplz', t_lm[-1], aim='exponent <= 1.1 (linear)', met=e_ours <= 1.1))
        r, ok = kenlm_perplexity_rows(a, eps, tok, tmp)
        rows += r
    finally: shutil.rmtree(tmp, ignore_errors=True)
    return rows, ok

def kenlm_perplexity_rows(a, eps, tok, tmp):
    from cah_metrics.lm import KneserNeyLM
    try: import kenlm
    except ImportError:
        print("KenLM scoring rows skipped: the kenlm Python module is missing (bash bench/build_kenlm.sh installs it).")
        return [], True
    train = [s for s in (tok(l.text) for e in eps[:80] for l in e.lines) if s]
    test = [s for s in (tok(l.text) for e in eps[80:] for l in e.lines) if s]
    path, arpa = Path(tmp) / 'seinfeld80.txt', Path(tmp) / 'seinfeld80.arpa'
    path.write_text('\n'.join(map(' '.join, train)) + '\n', encoding='utf-8')
    subprocess.run([str(LMPLZ), '-o', '3', '-S', '256M', '-T', tmp, '--text', str(path), '--arpa', str(arpa)], check=True, stderr=subprocess.DEVNULL)
    k, ours = kenlm.Model(str(arpa)), KneserNeyLM().fit(train)
    rows, ok = [], True
    known = [s for s in test if all(ours.vocab.get(w, ours.unk_id) != ours.unk_id for w in s)]
    for what, texts, tol in (('all', test, 0.01), ('no unknown words', known, 0.001)):
        lines = [' '.join(s) for s in texts]
        def theirs(): return math.exp(-math.log(10) * sum(k.score(l, bos=True, eos=True) for l in lines) / sum(len(s) + 1 for s in texts))
        t_o, p_o = timed(lambda: ours.corpus_perplexity(texts), 2 * a.repeats + 1)
        t_k, p_k = timed(theirs, 2 * a.repeats + 1)
        d = p_o / p_k - 1; ok &= abs(d) <= tol
        n_tok = sum(len(s) + 1 for s in texts)
        w_o, w_k = timed_warm(lambda: ours.corpus_perplexity(texts), 2 * a.repeats + 1), timed_warm(theirs, 2 * a.repeats + 1)
        print(f"held-out perplexity, Seinfeld 80/16 episodes, {what} ({len(texts)} lines, {n_tok} scored tokens): ours {p_o:.4f}, KenLM {p_k:.4f} ({100 * d:+.3f}%)"
              f"; scoring ours {t_o * 1e3:.1f} ms, KenLM Model.score {t_k * 1e3:.1f} ms -> {t_k / t_o:.2f}x"
              f" (back to back, caches warm: {w_o * 1e3:.1f} ms, {w_k * 1e3:.1f} ms -> {w_k / w_o:.2f}x)")
        rows.append(row(f"Kneser-Ney held-out perplexity, Seinfeld 80/16 episodes, {what} ({len(texts)} lines, {n_tok} tokens): ours {p_o:.3f} vs KenLM {p_k:.3f} ({100 * d:+.2f}%); "
                        f"ours corpus_perplexity(token lists) vs kenlm Model.score per line", t_o, 'kenlm Python module', t_k, aim='faster than KenLM', met=t_o < t_k,
                        numbers=f'perplexity within {100 * tol:g}% of KenLM (sentence-start convention, see nbs/04_lm)' if abs(d) <= tol else f'perplexity off by {100 * d:+.3f}%'))
    return rows, ok

def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--repeats', type=int, default=3)
    ap.add_argument('--quick', action='store_true', help='smaller sizes, one repeat: a smoke run under a minute')
    ap.add_argument('--json', help='append the result rows here as JSON Lines')
    a = ap.parse_args()
    if a.quick: a.repeats = 1
    from cah_metrics.corpora import seinfeld_episodes
    from cah_metrics.text import UnicodeWordTokenizer
    tok, eps = UnicodeWordTokenizer(lowercase=True), seinfeld_episodes()
    rows, ok = nltk_rows(a, eps, tok)
    r, ok2 = kenlm_rows(a, eps, tok)
    emit(rows + r, a.json)
    return 0 if ok and ok2 else 1

if __name__ == '__main__': sys.exit(main())
