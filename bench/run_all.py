"""Run every benchmark, one after the other, and write the README's performance table from what they measured.

Each script in `SCRIPTS` runs in its own process with `--json`, and hands back its result rows (`_common.row`): the task,
our time and memory, the reference implementation's, the ratio, the aim the issue set and whether this run met it,
and how the numbers agreed. The rows go to `bench/results.jsonl` (with the date and the machine) and each script's
printout to `bench/results/<script>.txt`; the table in the "Performance" cell of `nbs/index.ipynb` is then rewritten
from `bench/results.jsonl` between its two markers, and README.md is made again (tools/make_readme.py). No figure
in the table is typed by hand: to change one, run its benchmark again.

    python bench/run_all.py                       # every script, full size (about an hour on 2 cores)
    python bench/run_all.py --only bench_bleu     # rerun some; the other scripts' rows are kept
    python bench/run_all.py --quick               # smoke run: small sizes, writes bench/results.quick.jsonl, no table
    python bench/run_all.py --render              # rewrite the table from bench/results.jsonl without running anything
    python bench/run_all.py --rows FILE           # take the rows of a script run by hand with --json FILE (a long run;
                                                  # rows of other tasks, such as the 10M run's, are kept)
    python bench/run_all.py --check               # exit 1 when the table is not what bench/results.jsonl gives (CI runs this)

Some rows need what CI does not install: KenLM (bench/build_kenlm.sh builds it from its PyPI sdist); a script that
cannot run its reference prints why, and its rows say so.
"""
import argparse, datetime, json, os, platform, re, subprocess, sys, tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RESULTS, LOGS = HERE / 'results.jsonl', HERE / 'results'
INDEX = ROOT / 'nbs' / 'index.ipynb'
BEGIN, END = '<!-- bench/run_all.py: table begin -->', '<!-- bench/run_all.py: table end -->'
# (script, extra arguments of the full-size run), in the order of the table. bench_distributed runs 200,000 pairs here: its
# default, 1M pairs, takes about 25 minutes on 2 cores; run that by hand with --json FILE and take its rows with --rows FILE.
SCRIPTS = [('bench_bleu', []), ('bench_chrf', []), ('bench_tokenizers', []), ('bench_cider', []), ('bench_wer', []), ('bench_ter', []), ('bench_rouge', []), ('bench_score_cli', []), ('bench_significance', []),
           ('bench_lm', []), ('bench_diversity', []), ('bench_humor', []), ('bench_scorers', []), ('bench_encode', []), ('bench_bertscore', []),
           ('bench_agreement', []), ('bench_embedding_eval', []), ('bench_distributed', ['--n', '200000']), ('bench_growth', [])]

def machine() -> dict:
    import numpy
    return {'cpus': os.cpu_count(), 'python': platform.python_version(), 'numpy': numpy.__version__,
            'cpu': next((l.split(':', 1)[1].strip() for l in open('/proc/cpuinfo') if l.startswith('model name')), platform.processor())}

def _env() -> dict:
    "The scripts' environment: this checkout's package first on the path (installed or not), output unbuffered."
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get('PYTHONPATH')) if p)
    return {**os.environ, 'PYTHONUNBUFFERED': '1', 'PYTHONPATH': path}

def run(script:str, extra:list, quick:bool) -> tuple[list[dict], int, float]:
    "Run one script with --json; (its rows, its exit status, seconds). Its printout goes to bench/results/<script>.txt."
    import time
    with tempfile.TemporaryDirectory() as d:
        out = Path(d) / 'rows.jsonl'
        cmd = [sys.executable, str(HERE / f'{script}.py'), '--json', str(out), *(['--quick'] if quick else extra)]
        t = time.perf_counter()
        with open(LOGS / f"{script}{'.quick' if quick else ''}.txt", 'w') as log:
            rc = subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT, cwd=ROOT, env=_env()).returncode
        secs = time.perf_counter() - t
        rows = [json.loads(l) for l in out.read_text().splitlines()] if out.exists() else []
    return rows, rc, secs

def load_rows(path:Path|None=None) -> list[dict]:
    path = path or RESULTS
    return [json.loads(l) for l in path.read_text().splitlines()] if path.exists() else []

def _secs(s): return '' if s is None else (f"{s:.3g} s" if s < 10 else f"{s:.1f} s")
def render_table(rows:list[dict]) -> str:
    "The markdown of the table (main rows, then the cost growth of every corpus metric)."
    main = [r for r in rows if 'growth' not in r]
    growth = [r for r in rows if 'growth' in r]
    def aim(r):
        if not r.get('aim'): return ''
        return f"{r['aim']}: {'met' if r['met'] else '**not met**'}"
    out = ['| task | cah_metrics | reference | ratio | aim | numbers |', '|---|---|---|---|---|---|']
    for r in main:
        ours = ', '.join(x for x in (_secs(r['ours_s']), None if r.get('ours_mib') is None else f"{r['ours_mib']:,.0f} MiB") if x)
        peer = '' if not r.get('peer') else r['peer'] + (': ' + ', '.join(x for x in (_secs(r.get('peer_s')), None if r.get('peer_mib') is None else f"{r['peer_mib']:,.0f} MiB") if x) if r.get('peer_s') is not None or r.get('peer_mib') is not None else '')
        ratio = '' if not r.get('ratio') else f"{r['ratio']:.2f}x"
        out.append(f"| {r['task']} | {ours} | {peer} | {ratio} | {aim(r)} | {r.get('numbers') or ''} |")
    if growth:
        sizes = growth[0]['growth']['sizes']
        out += ['', f"Cost growth of every corpus metric that loads no model (`bench/bench_growth.py`: registry defaults, a fresh metric per run; "
                f"the exponent is the slope of log time on log pairs, 1 is linear):", '',
                '| metric | ' + ' | '.join(f"{n:,} pairs" for n in sizes) + ' | exponent | aim |', '|---' * (len(sizes) + 3) + '|']
        for r in growth:
            g = r['growth']
            out.append(f"| `{g['metric']}` | " + ' | '.join(_secs(s) for s in g['secs']) + f" | {g['exponent']:.2f} | {aim(r)} |")
    return '\n'.join(out)

def write_table(rows:list[dict], meta:dict, check:bool=False) -> int:
    """Put the table into nbs/index.ipynb between the markers, then make README.md again; with `check`, write nothing
    and return 1 when the notebook's table is not the one the recorded results give."""
    nb = json.loads(INDEX.read_text(encoding='utf-8'))
    cell = next((c for c in nb['cells'] if BEGIN in ''.join(c['source'])), None)
    if cell is None: raise SystemExit(f"run_all: no cell of {INDEX} holds the marker {BEGIN!r}")
    src = ''.join(cell['source'])
    head, rest = src.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    when = meta.get('date', '?')
    body = (f"{BEGIN}\n*Generated by `python bench/run_all.py` from `bench/results.jsonl` ({when}; {meta.get('cpus')} cores, "
            f"{meta.get('cpu')}, Python {meta.get('python')}, NumPy {meta.get('numpy')}). Ratios are the reference's time over ours "
            f"(above 1: we are faster); memory is peak traced allocations (tracemalloc) unless a row says resident memory (RSS).*\n\n"
            f"{render_table(rows)}\n{END}")
    if check:
        same = head + body + tail == src
        print(f"{INDEX.relative_to(ROOT)}: the performance table {'is' if same else 'is NOT'} the one bench/results.jsonl gives"
              + ('' if same else ' (run python bench/run_all.py --render)'))
        return 0 if same else 1
    lines = (head + body + tail).split('\n')
    cell['source'] = [l + '\n' for l in lines[:-1]] + [lines[-1]]
    INDEX.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + '\n', encoding='utf-8')
    subprocess.run([sys.executable, str(ROOT / 'tools' / 'make_readme.py')], check=True, cwd=ROOT)
    return 0

def date_span(old:str, today:str) -> str:
    "The table's dates: from the earliest ISO date in `old` (the last header's) to the latest, `today` included."
    dates = sorted(set(re.findall(r'\d{4}-\d{2}-\d{2}', old)) | {today})
    return dates[0] if len(dates) == 1 else f"{dates[0]} to {dates[-1]} (each script's rows from its last run)"

def _order(r): return next((i for i, (s, _) in enumerate(SCRIPTS) if r['bench'].removesuffix('.py') == s), len(SCRIPTS))

def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--only', nargs='+', metavar='SCRIPT', help='run these scripts (names as in SCRIPTS, e.g. bench_bleu) and keep the others\' rows')
    ap.add_argument('--quick', action='store_true', help='small sizes; rows go to bench/results.quick.jsonl and the table is left alone')
    ap.add_argument('--render', action='store_true', help='only rewrite the table from bench/results.jsonl')
    ap.add_argument('--check', action='store_true', help='exit 1 when the table is not the one bench/results.jsonl gives (CI)')
    ap.add_argument('--rows', type=Path, metavar='FILE', help="rows a script wrote with --json when run by hand (a long run, "
                    "e.g. bench_distributed.py on 1M pairs): they replace the rows of the same tasks, then the table is rewritten")
    a = ap.parse_args()
    header = load_rows()
    meta = next((r for r in header if r.get('meta')), {})
    if a.render or a.check: return write_table([r for r in header if not r.get('meta')], meta, check=a.check)
    if a.rows:
        new = load_rows(a.rows)
        today = datetime.date.today().isoformat()
        meta = {'meta': True, **machine(), **meta, 'date': date_span(meta.get('date', ''), today)}
        tasks = {(r['bench'], r['task']) for r in new}     # a script's other rows (the 10M run) stay
        rows = sorted([r for r in header if not r.get('meta') and (r['bench'], r['task']) not in tasks] + new, key=_order)
        RESULTS.write_text(''.join(json.dumps(r) + '\n' for r in [meta] + rows))
        return write_table(rows, meta)
    LOGS.mkdir(exist_ok=True)
    todo = [(s, x) for s, x in SCRIPTS if not a.only or s in a.only]
    unknown = set(a.only or ()) - {s for s, _ in SCRIPTS}
    if unknown: raise SystemExit(f"run_all: no benchmark {sorted(unknown)}; known: {', '.join(s for s, _ in SCRIPTS)}")
    got, failed = {}, []
    for script, extra in todo:
        if not (HERE / f'{script}.py').exists(): print(f"{script}: not found, skipped", flush=True); continue
        rows, rc, secs = run(script, extra, a.quick)
        print(f"{script}: {len(rows)} rows, exit {rc}, {secs:.0f} s", flush=True)
        for r in rows: print(f"    {r['task'][:100]}: {r['ratio'] and round(r['ratio'], 2)}x {'' if not r.get('aim') else ('met' if r['met'] else 'NOT MET')}")
        if rc != 0: failed.append(script)
        if rows or rc == 0: got[script] = rows        # a script that crashed before its rows keeps its old ones
    meta = {'meta': True, 'date': datetime.date.today().isoformat(), **machine()}
    if a.quick:
        (HERE / 'results.quick.jsonl').write_text(''.join(json.dumps(r) + '\n' for r in [meta] + [r for rs in got.values() for r in rs]))
        return 1 if failed else 0
    kept = [r for r in header if not r.get('meta') and r['bench'].removesuffix('.py') not in got]
    rows = sorted(kept + [r for rs in got.values() for r in rs], key=_order)
    old = next((r['date'] for r in header if r.get('meta')), '')
    if len(got) < len(SCRIPTS): meta['date'] = date_span(old, meta['date'])   # some rows are older
    RESULTS.write_text(''.join(json.dumps(r) + '\n' for r in [meta] + rows))
    write_table(rows, meta)
    if failed: print(f"failed (rows they wrote were kept; a script that wrote none kept its old ones): {', '.join(failed)}")
    return 1 if failed else 0

if __name__ == '__main__': sys.exit(main())
