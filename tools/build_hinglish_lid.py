"""Build cah_metrics/data/hinglish_lid.json: the character n-gram model behind `cmc.HinglishDetector`.

Two word lists, each turned into counts of the character 1- to 4-grams of `^word$`:
- romanised Hindi: the keys of dhvani 0.2.5's `lexicon/correction_map.json` (MIT): about a million Latin
  spellings of the words of Hindi Wikipedia and other Hindi text, each a variant someone might type;
- English: every all-letter word of the CMU Pronouncing Dictionary (through `pronouncing`, BSD-style license).
The file keeps, for each n-gram seen at least `MIN_COUNT` times in all, the log-likelihood ratio
ln P(g | Hindi) - ln P(g | English) with add-one smoothing, rounded to 4 decimals, and the ratio of an n-gram
neither list has. Deterministic: the same inputs give the same bytes.

    pip install dhvani==0.2.5 && python tools/build_hinglish_lid.py [--check]
"""
import argparse, json, math, re, sys
from collections import Counter
from importlib import resources
from pathlib import Path

from cah_metrics.cmc import _char_ngrams       # the detector's own feature function

OUT = Path(__file__).resolve().parent.parent / 'cah_metrics' / 'data' / 'hinglish_lid.json'
N, MIN_COUNT = 4, 3

def word_lists():
    try: path = resources.files('dhvani') / 'lexicon' / 'correction_map.json'
    except ModuleNotFoundError: sys.exit("build_hinglish_lid: needs dhvani 0.2.5 (pip install dhvani==0.2.5)")
    hindi = sorted(w for w in json.loads(path.read_text(encoding='utf-8')) if re.fullmatch('[a-z]+', w))
    import pronouncing
    pronouncing.init_cmu()
    english = sorted({w for w, _ in pronouncing.pronunciations if re.fullmatch('[a-z]+', w)})
    return hindi, english

def build() -> str:
    hindi, english = word_lists()
    ch, ce = (Counter(g for w in ws for g in _char_ngrams(w, N)) for ws in (hindi, english))
    nh, ne, V = sum(ch.values()), sum(ce.values()), len(ch.keys() | ce.keys())
    def llr(a, b): return round(math.log((a + 1) / (nh + V)) - math.log((b + 1) / (ne + V)), 4)
    model = {'format': 'cah_metrics.hinglish-lid', 'version': 1, 'n': N, 'min_count': MIN_COUNT,
             'sources': {'hindi': f'dhvani 0.2.5 correction_map.json keys ({len(hindi)} words)',
                         'english': f'CMU Pronouncing Dictionary via pronouncing ({len(english)} words)'},
             'unseen': llr(0, 0),
             'llr': {g: llr(ch[g], ce[g]) for g in sorted(ch.keys() | ce.keys()) if ch[g] + ce[g] >= MIN_COUNT}}
    return json.dumps(model, ensure_ascii=True, separators=(',', ':'), sort_keys=False) + '\n'

if __name__ == '__main__':
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--check', action='store_true', help='fail if the shipped file differs from a fresh build')
    a = ap.parse_args()
    text = build()
    if a.check:
        same = OUT.exists() and OUT.read_text() == text
        print(f"{OUT.name}: {'up to date' if same else 'DIFFERS from a fresh build'}"); sys.exit(0 if same else 1)
    OUT.write_text(text); print(f"wrote {OUT} ({len(text) / 1e6:.1f} MB)")
