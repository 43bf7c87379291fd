"The benchmarks' plumbing (their measurements run by hand, `python bench/run_all.py`): every script is in run_all's list, takes --json and --quick, and the table renders."
import json, subprocess, sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / 'bench'
sys.path.insert(0, str(BENCH))
import run_all, _common

SCRIPTS = sorted(p.stem for p in BENCH.glob('bench_*.py'))

def test_every_script_is_run():
    assert sorted(s for s, _ in run_all.SCRIPTS) == SCRIPTS

@pytest.mark.parametrize('script', SCRIPTS)
def test_script_takes_json_and_quick(script):
    out = subprocess.run([sys.executable, str(BENCH / f'{script}.py'), '--help'], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert '--json' in out.stdout and '--quick' in out.stdout, f"{script} --help lists no --json or --quick"

def test_table_renders_rows(tmp_path):
    rows = [_common.row('corpus X, 10 pairs', 0.5, 'peer 1.0', 2.0, ours_mib=3, peer_mib=4, aim='>= 3x', met=True, numbers='equal'),
            _common.row('corpus Y', 2.0, 'peer', 1.0, aim='>= 3x', met=False)]
    g = _common.row('growth of `x`', 1.0, aim='exponent <= 1.15', met=True)
    g['growth'] = {'sizes': [10, 100], 'secs': [0.1, 1.0], 'exponent': _common.fit_exponent([10, 100], [0.1, 1.0]), 'metric': 'x'}
    table = run_all.render_table(json.loads(json.dumps(rows + [g])))
    assert '| corpus X, 10 pairs | 0.5 s, 3 MiB | peer 1.0: 2 s, 4 MiB | 4.00x | >= 3x: met | equal |' in table
    assert '| corpus Y | 2 s | peer: 1 s | 0.50x | >= 3x: **not met** |  |' in table
    assert '| `x` | 0.1 s | 1 s | 1.00 | exponent <= 1.15: met |' in table

def test_fit_exponent():
    assert abs(_common.fit_exponent([1e3, 1e4, 1e5], [1, 10, 100]) - 1) < 1e-12
    assert abs(_common.fit_exponent([1e3, 1e4, 1e5], [1, 100, 1e4]) - 2) < 1e-12

def test_date_span():
    assert run_all.date_span('', '2026-11-29') == '2026-11-29'
    assert run_all.date_span('2026-11-29', '2026-11-29') == '2026-11-29'
    span = "2026-11-25 to 2026-11-29 (each script's rows from its last run)"
    assert run_all.date_span("2026-11-25 to 2026-11-28 (each script's rows from its last run)", '2026-11-29') == span
    assert run_all.date_span(span, '2026-11-29') == span

def test_a_script_that_crashed_keeps_its_old_rows(tmp_path, monkeypatch):
    "bench_bleu crashes before writing a row: its old row stays; bench_chrf's new row replaces its old one."
    results = tmp_path / 'results.jsonl'
    def row(bench, task): return {'bench': bench, 'task': task, 'ratio': None}
    old = [{'meta': True, 'date': '2026-11-25'}, row('bench_bleu', 'a'), row('bench_chrf', 'b')]
    results.write_text(''.join(json.dumps(r) + '\n' for r in old))
    fresh = {'bench_bleu': ([], 1, 0.0), 'bench_chrf': ([row('bench_chrf', 'b, again')], 0, 0.0)}
    for name, value in [('RESULTS', results), ('LOGS', tmp_path), ('SCRIPTS', [('bench_bleu', []), ('bench_chrf', [])]),
                        ('run', lambda script, extra, quick: fresh[script]), ('machine', dict),
                        ('write_table', lambda rows, meta, check=False: 0)]:
        monkeypatch.setattr(run_all, name, value)
    monkeypatch.setattr(sys, 'argv', ['run_all.py'])
    assert run_all.main() == 1                                  # a script failed
    header, *rows = run_all.load_rows(results)
    assert [r['task'] for r in rows] == ['a', 'b, again']
    assert header['date'].startswith('2026-11-25 to ')          # bench_bleu's row is older than today
