"""Corpus WER and CER: cah_metrics vs jiwer on the same 10,000 pairs, in one run; and the peak memory of aligning a
100,000-word pair, ours and jiwer's, each in a fresh process.

Sentences of 20-40 words are cut from the real text of the two card packs shipped in the package (cah_metrics/data,
read with cah_metrics.corpora.bundled_pack); each hypothesis is its reference with about a quarter of the words
replaced and sometimes one dropped (seeded). Both implementations get the raw strings and their default transforms.
The script checks that the scores agree (to 1e-12), then prints the median time of each, the ratio, and the peak
traced memory (tracemalloc) of one run. The long pair: 100,000 card words against a copy with a quarter replaced and
2% dropped; each side aligns it in a child process, whose peak resident memory (ru_maxrss, the whole interpreter
included) is read by `wait4`; the issue's aim is under 2 GiB.

    python bench/bench_wer.py [--segments 10000] [--repeats 3] [--quick] [--json PATH]

--quick: 1,000 segments and a 20,000-word pair (a smoke run). Result rows for the README's table: WER and CER on the
segments, WER of the long pair.
"""
import json, sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import ROOT, make_pairs, timed, peak_mib, row, emit, run_peak_rss, segment_arguments

CHILD = """
import json, random, sys, time
sys.path.insert(0, {root!r})
from cah_metrics.corpora import bundled_pack
packs = [bundled_pack(name) for name in ('cah_main_game', 'cards_against_coffee')]
words = ' '.join(c['text'] for pk in packs for part in (pk.prompts, pk.answers) for c in part).split()
rng = random.Random(0)
ref = [rng.choice(words) for _ in range({n})]
hyp = [w if rng.random() > 0.25 else rng.choice(words) for w in ref]
hyp = ' '.join(w for w in hyp if rng.random() > 0.02)
ref = ' '.join(ref)
if sys.argv[1] == 'ours':
    from cah_metrics.wer import corpus_wer
    t = time.perf_counter(); value = corpus_wer([hyp], [ref]).value
else:
    import jiwer
    t = time.perf_counter(); value = jiwer.wer(ref, hyp)
secs = time.perf_counter() - t
with open(sys.argv[2], 'w') as f: json.dump([value, secs], f)
"""


def long_pair(n):
    "(ours, jiwer): (alignment seconds, whole-process peak RSS in MiB, WER) of the n-word pair, each in a child."
    import tempfile
    out = {}
    with tempfile.TemporaryDirectory() as d:
        script = Path(d) / 'child.py'
        script.write_text(CHILD.format(root=str(ROOT), n=n))
        for side in ('ours', 'jiwer'):
            _, mib = run_peak_rss([sys.executable, str(script), side, Path(d) / 'out.json'])
            value, secs = json.loads((Path(d) / 'out.json').read_text())
            out[side] = (secs, mib, value)
    return out['ours'], out['jiwer']


def main():
    ap = segment_arguments(__doc__, '1,000 segments and a 20,000-word pair (a smoke run)')
    ap.add_argument('--long-words', type=int, default=100_000, help='words of the long pair')
    a = ap.parse_args()
    if a.quick: a.segments, a.long_words = min(a.segments, 1_000), min(a.long_words, 20_000)
    import jiwer
    from importlib.metadata import version
    from cah_metrics.wer import corpus_cer, corpus_wer
    peer = f"jiwer {version('jiwer')}"
    hyps, refs = make_pairs(a.segments)
    print(f"corpus WER and CER, {a.segments} pairs of 20-40 words ({peer})")
    print(f"{'measure':10s} {'ours s':>8s} {'jiwer s':>8s} {'speed-up':>9s} {'ours MiB':>9s} {'jiwer MiB':>10s}  |diff|")
    ok, rows = True, []
    for name, ours_f, theirs_f in (('WER', corpus_wer, jiwer.wer), ('CER', corpus_cer, jiwer.cer)):
        mine = lambda: ours_f(hyps, refs).value
        theirs = lambda: theirs_f(refs, hyps)
        (t_ours, s_ours), (t_peer, s_peer) = timed(mine, a.repeats), timed(theirs, a.repeats)
        diff = abs(s_ours - s_peer); ok &= diff <= 1e-12
        m_ours, m_peer = peak_mib(mine), peak_mib(theirs)
        print(f"{name:10s} {t_ours:8.3f} {t_peer:8.3f} {t_peer / t_ours:8.2f}x {m_ours:9.1f} {m_peer:10.1f}  {diff:.1e}")
        rows.append(row(f"corpus {name}, {a.segments:,} pairs of 20-40 words, 1 reference (`bench/bench_wer.py`)",
                        t_ours, peer + (' `wer`' if name == 'WER' else ' `cer`'), t_peer, ours_mib=m_ours, peer_mib=m_peer,
                        numbers=f"equal to 1e-12 (largest difference {diff:.1e})" if diff <= 1e-12 else f"DIFFER (by {diff:.1e})"))
    (t_ours, mib_ours, v_ours), (t_peer, mib_peer, v_peer) = long_pair(a.long_words)
    diff = abs(v_ours - v_peer); ok &= diff <= 1e-12
    print(f"WER of one {a.long_words:,}-word pair: ours {t_ours:.2f} s, peak RSS {mib_ours:.0f} MiB | "
          f"jiwer {t_peer:.2f} s, {mib_peer:.0f} MiB | |diff| {diff:.1e}")
    met = mib_ours < 2048
    rows.append(row(f"WER of one {a.long_words:,}-word pair (Hirschberg alignment; peak RSS of the whole process) "
                    f"(`bench/bench_wer.py`)", t_ours, peer + ' `wer`', t_peer, ours_mib=mib_ours, peer_mib=mib_peer,
                    aim='under 2 GiB of memory', met=met,
                    numbers=f"equal to 1e-12 (difference {diff:.1e})" if diff <= 1e-12 else f"DIFFER (by {diff:.1e})"))
    print('scores agree to 1e-12' if ok else 'scores DISAGREE')
    emit(rows, a.json)
    return 0 if ok and met else 1


if __name__ == '__main__': sys.exit(main())
