"""Every notebook runs top to bottom where only the built wheel is installed (issue 15).

A user who opens a notebook in Colab, or copies one into an empty folder, has the package and its runtime
dependencies, and nothing of this repository: no nbdev, no reference libraries (sacrebleu, rouge-score ...), no
`nbs/` neighbours, no `../`. This test makes that situation and runs every notebook in it:

1. the wheel is built (`pip wheel --no-deps`) from a copy of the package's sources, so the checkout is not touched;
2. a fresh virtualenv (`python -m venv`, no system site-packages) gets `torch==2.13.0` first (the local CPU wheel: a
   bare `torch` requirement would pull a CUDA build), then the wheel with its runtime dependencies, and only what a
   notebook runner needs: nbclient and ipykernel, with a kernel registered inside the venv under its own name;
3. each notebook is copied alone into an empty folder and executed there by nbclient, every cell included (Colab
   knows no `#| slow`/`#| torch` flags; `#| eval: false` is nbdev's, nbclient runs those cells too), several notebooks
   at a time. A cell that raises fails the test naming the notebook, the cell and the error.

Cells that compare against a library the wheel does not install skip with a printed reason (`cah_metrics.notebook.needs`);
the skipped cells are listed in the test's output. The pattern itself (first cell installs the package outside the
repository, a Colab badge, the export cell) is checked on every notebook without any venv, so a new notebook that
misses it fails fast.

`CAH_NB_WORKERS` sets how many notebooks run at once (default 2), `CAH_NB_ONLY` (a substring of the notebook path)
runs only matching notebooks, `CAH_NB_KEEP=DIR` builds the venv in DIR and reuses it when it is there (for
developing notebooks; CI always builds a fresh one).
"""
import ast, json, os, re, shutil, subprocess, sys, tempfile, textwrap, time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NBS_DIR = ROOT / 'nbs'
NOTEBOOKS = sorted(p.relative_to(NBS_DIR).as_posix() for p in NBS_DIR.rglob('*.ipynb')
                   if not any(part.startswith(('_', '.')) for part in p.relative_to(NBS_DIR).parts))
ONLY = os.environ.get('CAH_NB_ONLY', '')
WORKERS = int(os.environ.get('CAH_NB_WORKERS', '2'))
KERNEL = 'cah-metrics-wheel'
REPO, BRANCH = 'cah-metrics/cah_metrics', 'main'
BADGE = 'colab-badge.svg'   # in nbs/, drawn for this project: no remote image in the docs

def cells(path): return json.loads((NBS_DIR / path).read_text(encoding='utf-8'))['cells']
def source(cell): return ''.join(cell['source'])

# ---- the pattern, checked without a venv -------------------------------------------------------------------------
INSTALL = source(cells('index.ipynb')[0])

def _dev_only() -> set[str]:
    "Import names of the packages only the `dev` extra installs (sacrebleu, rouge_score, nbdev ...): the wheel lacks them."
    import tomllib
    project = tomllib.loads((ROOT / 'pyproject.toml').read_text(encoding='utf-8'))['project']
    name = lambda req: re.match(r'[A-Za-z0-9._-]+', req)[0].lower().replace('-', '_')
    return {name(r) for r in project['optional-dependencies']['dev']} - {name(r) for r in project['dependencies']}

@pytest.mark.parametrize('nb', NOTEBOOKS)
def test_pattern(nb):
    "The install cell first, then a Colab badge linking this notebook; dev-only packages (nbdev too) imported only under `needs`."
    cs = cells(nb)
    assert source(cs[0]) == INSTALL, f"{nb}: the first cell must be the install cell of nbs/index.ipynb, as is"
    link = f'https://colab.research.google.com/github/{REPO}/blob/{BRANCH}/nbs/{nb}'
    badge = '../' * nb.count('/') + BADGE
    assert any(c['cell_type'] == 'markdown' and f'[![Open in Colab]({badge})]({link})' in source(c) for c in cs[:8]), \
        f"{nb}: no badge `[![Open in Colab]({badge})]({link})` in the first cells"
    code = [source(c) for c in cs if c['cell_type'] == 'code']
    for s in code:
        assert not (bad := _top_level_imports(s) & _dev_only()), \
            f"{nb}: a cell imports {sorted(bad)}, which the wheel does not install; import it under `if needs(...)`:\n{s[:300]}"
    assert not any(re.search(r'\.\./|Path\(["\']\.\.', s) for s in code), f"{nb}: a code cell reads a path outside the notebook's folder"

def _top_level_imports(code:str) -> set[str]:
    "The top-level packages a cell imports at its top level (imports inside functions run only when called)."
    try: tree = ast.parse(code)
    except SyntaxError: return set()      # IPython syntax (magics): not ours to judge
    return {a.name.split('.')[0] for n in tree.body if isinstance(n, ast.Import) for a in n.names} | \
           {n.module.split('.')[0] for n in tree.body if isinstance(n, ast.ImportFrom) and n.module}

def test_install_cell(monkeypatch):
    "Where cah_metrics imports the install cell does nothing; where it does not, it installs torch's CPU wheel, then the package."
    calls = []
    monkeypatch.setattr(subprocess, 'run', lambda args, **kw: calls.append(list(args)))
    exec(INSTALL, {})
    assert calls == []
    import importlib.util
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, 'find_spec', lambda name, *a: None if name in ('cah_metrics', 'torch') else real(name, *a))
    exec(INSTALL, {})
    assert [c[:4] for c in calls] == [[sys.executable, '-m', 'pip', 'install']] * 2
    assert 'https://download.pytorch.org/whl/cpu' in calls[0] and 'torch' in calls[0]
    assert any(f'github.com/{REPO}' in a for a in calls[1])

def test_badge_is_local():
    assert (NBS_DIR / BADGE).read_text(encoding='utf-8').lstrip().startswith('<svg')

# ---- the wheel, the venv, the run --------------------------------------------------------------------------------
RUNNER = textwrap.dedent('''
    import json, re, sys, time, nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError
    src, work, report = sys.argv[1:4]
    nb = nbformat.read(src, as_version=4)
    client = NotebookClient(nb, timeout=1200, kernel_name=sys.argv[4], resources={'metadata': {'path': work}})
    t, err = time.time(), None
    try: client.execute()
    except CellExecutionError as e: err = str(e)
    except Exception as e: err = f"{type(e).__name__}: {e}"
    ansi = re.compile(r'\\x1b\\[[0-9;]*m')
    failed, skips, slow = None, [], []
    for i, c in enumerate(nb.cells):
        ex = c.get('metadata', {}).get('execution', {})
        if 'iopub.execute_input' in ex and 'shell.execute_reply' in ex:
            from datetime import datetime
            dt = (datetime.fromisoformat(ex['shell.execute_reply'].rstrip('Z')) - datetime.fromisoformat(ex['iopub.execute_input'].rstrip('Z'))).total_seconds()
            if dt > 20: slow.append(f"cell {i}: {dt:.0f} s")
        for o in c.get('outputs', []):
            if o.get('output_type') == 'error' and failed is None:
                failed = dict(cell=i, source=c.source, error=f"{o.ename}: {o.evalue}",
                              traceback=ansi.sub('', '\\n'.join(o.traceback))[-3000:])
            if o.get('output_type') == 'stream': skips += [l for l in o.text.splitlines() if l.startswith('Skipped:')]
    json.dump(dict(seconds=time.time() - t, error=err and ansi.sub('', err)[-3000:], failed=failed, skips=skips, slow=slow),
              open(report, 'w'))
''')

def _run(cmd, **kw):
    r = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, **kw)
    if r.returncode: pytest.fail(f"{' '.join(map(str, cmd))} failed ({r.returncode}):\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}")
    return r

def _env():
    "The environment of the venv's processes: nothing of ours on the path, no user site, not under nbdev-test."
    env = {k: v for k, v in os.environ.items() if k not in ('PYTHONPATH', 'VIRTUAL_ENV', 'IN_TEST', 'PYTHONHOME')}
    return {**env, 'PYTHONNOUSERSITE': '1', 'PIP_DISABLE_PIP_VERSION_CHECK': '1', 'MPLBACKEND': 'agg'}

def _build_venv(base:Path) -> Path:
    src, dist, venv = base / 'src', base / 'dist', base / 'venv'
    src.mkdir(parents=True)
    for f in ('pyproject.toml', 'README.md', *[p.name for p in ROOT.glob('LICEN[CS]E*')]): shutil.copy(ROOT / f, src / f)
    shutil.copytree(ROOT / 'cah_metrics', src / 'cah_metrics', ignore=shutil.ignore_patterns('__pycache__', '*.pyc'))
    _run([sys.executable, '-m', 'pip', 'wheel', '-q', '--no-deps', '-w', dist, src], env=_env())
    (wheel,) = dist.glob('cah_metrics-*.whl')
    _run([sys.executable, '-m', 'venv', venv])
    py = venv / 'bin' / 'python'
    _run([py, '-m', 'pip', 'install', '-q', 'torch==2.13.0'], env=_env())    # the CPU wheel, before anything pulls CUDA
    _run([py, '-m', 'pip', 'install', '-q', wheel, 'nbclient', 'ipykernel'], env=_env())
    _run([py, '-m', 'ipykernel', 'install', '--sys-prefix', '--name', KERNEL], env=_env())
    return py

@pytest.fixture(scope='module')
def scratch():
    "A folder of our own (not pytest's numbered tmp folders, which other pytest sessions on the machine prune)."
    d = Path(tempfile.mkdtemp(prefix='cah-nb-wheel-'))
    yield d
    shutil.rmtree(d, ignore_errors=True)

@pytest.fixture(scope='module')
def venv_python(scratch):
    keep = os.environ.get('CAH_NB_KEEP')
    base = Path(keep) if keep else scratch / 'wheel'
    py = base / 'venv' / 'bin' / 'python'
    if not (keep and py.exists()):
        if keep: shutil.rmtree(base, ignore_errors=True)
        t = time.time(); py = _build_venv(base); print(f"\nwheel and venv: {time.time() - t:.0f} s")
    # the kernel is the venv's python, and the repository's tools are not there
    probe = "import sys, importlib.util as u; print(sys.prefix, *[bool(u.find_spec(m)) for m in ('cah_metrics', 'nbdev', 'sacrebleu')])"
    out = _run([py, '-c', probe], env=_env(), cwd=base).stdout.split()
    assert out == [str(base / 'venv'), 'True', 'False', 'False'], out
    return py

@pytest.fixture(scope='module')
def results(venv_python, scratch):
    "Run every notebook, several at a time; the report of each, by notebook."
    base = scratch / 'runs'; base.mkdir()
    runner = base / 'run_notebook.py'; runner.write_text(RUNNER)
    def one(i, nb):
        work = base / f'nb{i}'; work.mkdir()
        shutil.copy(NBS_DIR / nb, work / Path(nb).name)      # alone in an empty folder, run from there
        report = base / f'nb{i}.json'
        r = subprocess.run([venv_python, runner, work / Path(nb).name, work, report, KERNEL], cwd=work, env=_env(),
                           capture_output=True, text=True, timeout=3600)
        if not report.exists(): return nb, dict(error=f"the runner failed ({r.returncode}): {r.stderr[-3000:]}", failed=None, skips=[], seconds=0)
        return nb, json.loads(report.read_text())
    def weight(nb):      # the likely slowest first (most `#| slow`/`#| torch` cells, then the largest), so no worker idles at the end
        text = (NBS_DIR / nb).read_text(encoding='utf-8')
        return -len(re.findall(r'#\|\s*(?:slow|torch)\b', text)), -len(text)
    todo = sorted((nb for nb in NOTEBOOKS if ONLY in nb), key=weight)
    t = time.time()
    with ThreadPoolExecutor(WORKERS) as ex: res = dict(ex.map(lambda a: one(*a), enumerate(todo)))
    print(f"\n{len(todo)} notebooks in {time.time() - t:.0f} s ({WORKERS} at a time):")
    for nb, r in sorted(res.items(), key=lambda kv: -kv[1]['seconds']):
        print(f"  {r['seconds']:6.1f} s  {nb}" + (f"  ({len(r['skips'])} cells skipped)" if r['skips'] else '')
              + (f"  (slowest: {', '.join(r.get('slow', []))})" if r.get('slow') else ''))
        for s in r['skips']: print(f"             {s}")
    return res

@pytest.mark.parametrize('nb', [nb for nb in NOTEBOOKS if ONLY in nb])
def test_notebook_runs_from_the_wheel(nb, results):
    r = results[nb]
    if f := r['failed']:
        pytest.fail(f"{nb}, cell {f['cell']} raised {f['error']}\n--- cell source:\n{f['source']}\n--- traceback:\n{f['traceback']}", pytrace=False)
    assert not r['error'], f"{nb}: {r['error']}"
