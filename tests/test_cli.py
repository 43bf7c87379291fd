"The installed `cah-metrics` command, as a user runs it."
import json, shutil, subprocess, sys
from pathlib import Path
import pytest

EXE = shutil.which('cah-metrics')
pytestmark = pytest.mark.skipif(EXE is None, reason="cah-metrics is not installed (pip install -e .)")

def run(*args, cwd=None):
    return subprocess.run([EXE, *map(str, args)], capture_output=True, text=True, cwd=cwd)

def test_bundled_example_matches_sacrebleu(tmp_path):
    import sacrebleu
    from cah_metrics.io import bundled_example
    pred_file, ref_file = bundled_example()
    r = run('score', '--metrics', 'bleu', 'sentence_bleu')
    assert r.returncode == 0, r.stderr
    report = json.loads(r.stdout)
    assert report['n_examples'] == 8 and set(report['signatures']) == {'bleu', 'sentence_bleu'}
    assert json.loads(run('score', '--predictions', pred_file, '--references', ref_file, '--metrics', 'bleu').stdout)['bleu'] == report['bleu']
    # sacrebleu wants the same number of references per segment: compare on the first reference of each
    preds = [json.loads(l)['prediction'] for l in pred_file.read_text().splitlines()]
    first = [json.loads(l)['references'][0] for l in ref_file.read_text().splitlines()]
    (tmp_path / 'p.txt').write_text('\n'.join(preds) + '\n'); (tmp_path / 'r.txt').write_text('\n'.join(first) + '\n')
    got = json.loads(run('score', '--predictions', tmp_path / 'p.txt', '--references', tmp_path / 'r.txt', '--metrics', 'bleu').stdout)['bleu']
    assert abs(got - sacrebleu.corpus_bleu(preds, [first]).score / 100) <= 1e-9

def test_malformed_line_exit_2_and_no_output(tmp_path):
    (tmp_path / 'p.jsonl').write_text('{"prediction": "a cat"}\n{"prediction": "a dog"}\n{"prediction": 5}\n')
    (tmp_path / 'r.txt').write_text('the cat\nthe dog\nthe eel\n')
    out = tmp_path / 'scores.json'
    r = run('score', '--predictions', tmp_path / 'p.jsonl', '--references', tmp_path / 'r.txt', '--output', out)
    assert r.returncode == 2
    assert 'p.jsonl:3:' in r.stderr and 'expected a string' in r.stderr
    assert not out.exists() and list(tmp_path.glob('.scores.json*')) == []

def test_invalid_utf8_and_count_mismatch(tmp_path):
    (tmp_path / 'p.txt').write_bytes('fine\ncaf\xe9\n'.encode('latin-1'))
    (tmp_path / 'r.txt').write_text('a\nb\n')
    r = run('score', '--predictions', tmp_path / 'p.txt', '--references', tmp_path / 'r.txt')
    assert r.returncode == 2 and 'p.txt:2: not valid UTF-8' in r.stderr
    (tmp_path / 'p.txt').write_text('one\ntwo\nthree\n')
    r = run('score', '--predictions', tmp_path / 'p.txt', '--references', tmp_path / 'r.txt')
    assert r.returncode == 2 and 'has 2 references but the predictions have 3' in r.stderr

def test_output_written_atomically_and_replaces(tmp_path):
    out = tmp_path / 'scores.json'
    out.write_text('old')
    r = run('score', '--output', out)
    assert r.returncode == 0 and json.loads(out.read_text()) == json.loads(r.stdout)

def test_help_explains_every_option():
    r = run('score', '--help')
    assert r.returncode == 0
    for opt in ('--predictions', '--references', '--metrics', '--format', '--tokenizer', '--lowercase', '--smooth', '--stem', '--split', '--output',
                '--sources', '--per-example', '--bert-model', '--idf', '--detector'):
        assert opt in r.stdout

def test_import_stays_light():
    mods = "text io core bleu rouge topk perplexity corpora lm information embeddings semantics diversity humor puns bertscore cmc evaluate cli".split()
    code = ("import sys, cah_metrics, " + ", ".join(f"cah_metrics.{m}" for m in mods) + "; "
            "heavy = [m for m in ('torch', 'sklearn', 'sentence_transformers', 'transformers', 'matplotlib', 'nltk', 'pandas', "
            "'scipy', 'langdetect', 'pronouncing', 'rapidfuzz') if m in sys.modules]; print(heavy)")
    r = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.strip() == '[]', r.stdout + r.stderr

def test_rouge_from_jsonl_with_several_references(tmp_path):
    from cah_metrics.rouge import corpus_rouge
    (tmp_path / 'p.jsonl').write_text('{"id": 1, "prediction": "the cat sat on the mat"}\n{"id": 2, "prediction": "кошка спит"}\n')
    (tmp_path / 'r.jsonl').write_text('{"id": 2, "references": ["кошка спит на коврике"]}\n'
                                      '{"id": 1, "references": ["a cat sat on a mat", "the cat is on the mat"]}\n')
    out = tmp_path / 's.json'
    r = run('score', '--predictions', tmp_path / 'p.jsonl', '--references', tmp_path / 'r.jsonl',
            '--metrics', 'rouge1', 'rougeL', '--output', out)
    assert r.returncode == 0, r.stderr
    rep = json.loads(out.read_text())
    lib = corpus_rouge(["the cat sat on the mat", "кошка спит"],
                       [["a cat sat on a mat", "the cat is on the mat"], ["кошка спит на коврике"]], rouge_types=['rouge1', 'rougeL'])
    for t in ('rouge1', 'rougeL'):
        assert rep[t] == lib[t].fmeasure and rep['signatures'][t] == lib[t].signature
    assert rep['rouge1_low'] <= rep['rouge1'] <= rep['rouge1_high'] and rep['details']['rouge1']['rouge1_low'] == rep['rouge1_low']

def test_humor_main_job_small(tmp_path):
    r = run('humor', '--n-prompts', '1', '--encoder', 'cooccurrence', '--top', '1', '--output-dir', tmp_path / 'out')
    assert r.returncode == 0, r.stderr
    assert 'metric breakdown' in r.stdout
    for f in ('humor_scores.csv', 'humor_scores.json', 'humor_chart.png'): assert (tmp_path / 'out' / f).stat().st_size > 0
    rows = json.loads((tmp_path / 'out' / 'humor_scores.json').read_text())
    assert len(rows) == 500 and all(0 <= r['overall_humor_score'] <= 10 for r in rows)

def test_humor_bad_card_file(tmp_path):
    (tmp_path / 'cards.csv').write_text('id,card\n1,hello\n')
    r = run('humor', '--cards', tmp_path / 'cards.csv', '--output-dir', tmp_path / 'out')
    assert r.returncode == 2 and "cards.csv:1: no column 'text'" in r.stderr and not (tmp_path / 'out').exists()
    h = run('humor', '--help')
    for opt in ('--cards', '--prompts', '--n-prompts', '--profile', '--corpus', '--encoder', '--top', '--seed', '--output-dir'): assert opt in h.stdout


def test_design_summary_command(tmp_path):
    (tmp_path / 'predictions.jsonl').write_text('{"id": 1, "summary": "They will meet tomorrow."}\n')
    (tmp_path / 'references.jsonl').write_text('{"id": 1, "summary": "They meet tomorrow.", "thread": "kal milte hain, see you tomorrow"}\n')
    out = tmp_path / 'scores.json'
    r = run('score', '--predictions', tmp_path / 'predictions.jsonl', '--references', tmp_path / 'references.jsonl', '--output', out)
    assert r.returncode == 0, r.stderr
    rep = json.loads(out.read_text())
    assert {'rougeL', 'bertscore_f1', 'code_mixing_coverage'} <= set(rep) and set(rep['signatures']) == {'rougeL', 'bertscore', 'code_mixing_coverage'}
    (tmp_path / 'refs_bad_id.jsonl').write_text('{"id": 2, "summary": "x", "thread": "y"}\n')
    r = run('score', '--predictions', tmp_path / 'predictions.jsonl', '--references', tmp_path / 'refs_bad_id.jsonl', '--output', tmp_path / 'no.json')
    assert r.returncode == 2 and "no reference with id 1" in r.stderr and not (tmp_path / 'no.json').exists()
