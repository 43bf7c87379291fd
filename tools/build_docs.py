"""Build the documentation site offline into `_site/`: nbdev's processed notebooks, rendered by Sphinx + myst-nb.

    python tools/build_docs.py              # nbdev processing (_proc/), staging, Sphinx -> _site/
    python tools/build_docs.py --check      # the same, then the headless-Chromium check (tools/check_site.py)

nbdev's own site needs Quarto (`nbdev-docs`, `nbdev-preview`, configured by nbs/_quarto.yml and nbs/nbdev.yml,
which stay as they are). This builder is for CI and for anyone without Quarto, and starts from the same place:

1. nbdev's processing (`nbdev.quarto.proc_nbs`, what `nbdev-proc-nbs` runs, minus its attempt to download
   Quarto) writes `_proc/`: `#| hide` cells are gone, a `show_doc` cell follows every exported name and has
   been executed, so its output is the API reference rendered from the docstring and docments, and the
   title cell has become front matter.
2. Staging (`_site_build/src/`) turns what Quarto would read into what myst-nb reads: the front matter becomes
   the page's `# title` and description, `#| output: asis` cells (show_doc) become markdown, Quarto cell
   options become myst-nb tags, and links to the published site become relative. Each page keeps the file
   name nbdev gives it (`01_bleu.ipynb` -> `bleu.html`) and every heading gets pandoc's id where Sphinx's
   differs (`bleu.html#bleu_stats_array`), so every link written for the Quarto site works here too. The home
   page gets the toctree, in the notebooks' numbered order, tutorials last.
3. Sphinx (myst-nb, execution off: the notebooks carry their outputs; the furo theme; Sphinx's search) writes
   `_site/`. Math is MathJax 3 from the django-static-mathjax wheel, copied into the site: no CDN, no network.
"""
from __future__ import annotations
import argparse, ast, json, os, re, shutil, sys, time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BUILD = ROOT/'_site_build'          # staging, doctrees and static assets (ignored)
SITE = ROOT/'_site'                 # the site (ignored)
_MATHJAX_PARTS = ['tex-chtml.js', 'input/tex/extensions', 'output/chtml/fonts/woff-v2', 'ui', 'a11y', 'sre']


def log(msg): print(f"build_docs: {msg}", flush=True)


class BuildError(Exception):
    "The site cannot be built; the message says why and what to change."


# ---------------------------------------------------------------- 1. nbdev's processing

def _imports_only(t:ast.stmt) -> bool:
    "An import, or an `if` (`if needs('sacrebleu'):`) whose branches hold only imports."
    if isinstance(t, (ast.Import, ast.ImportFrom)): return True
    return isinstance(t, ast.If) and all(_imports_only(s) for s in t.body + t.orelse)


def _eval_cells_beyond_imports(nbs_path:Path) -> list[str]:
    "Cells nbdev's docs processing will execute although they hold more than imports, exports and show_doc."
    from fastcore.nbio import read_nb
    from nbdev.process import NBProcessor
    from nbdev.processors import _do_eval
    found = []
    index = nbs_path/'index.ipynb'
    install = read_nb(index).cells[0].source if index.exists() else None
    for f in sorted(nbs_path.rglob('*.ipynb')):
        if any(p.startswith(('_', '.')) for p in f.relative_to(nbs_path).parts): continue
        nb = read_nb(f)
        NBProcessor(f, procs=[], nb=nb, rm_directives=False)      # parses each cell's directives
        if not any(c.cell_type == 'code' and (c.directives_.keys() & {'export', 'exports'} or 'show_doc(' in c.source)
                   for c in nb.cells): continue                  # no API entries: nbdev runs none of its cells
        for i, cell in enumerate(nb.cells):
            if cell.cell_type != 'code' or cell.directives_.keys() & {'export', 'exports', 'exporti', 'exec_doc'}: continue
            try: evaluated = _do_eval(cell)
            except SyntaxError: continue
            if not evaluated: continue
            if i == 0 and cell.source == install: continue       # the install cell: quiet wherever cah_metrics imports
            extra = [t for t in cell.parsed_() if not _imports_only(t)
                     and not (isinstance(t, ast.Expr) and getattr(getattr(t.value, 'func', None), 'id', None) == 'show_doc')]
            if extra:
                first = next((l for l in cell.source.splitlines() if l.strip() and not l.startswith('#|')), '')
                found.append(f"{f.relative_to(ROOT)} cell {i} (0-based): {first[:80]}")
    return found


def process_notebooks(n_workers:int) -> Path:
    "Run nbdev's docs processing into `_proc/` and return that folder."
    import warnings
    os.chdir(ROOT)
    from nbdev.config import get_config
    from nbdev.quarto import proc_nbs
    cfg = get_config()
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        risky = _eval_cells_beyond_imports(cfg.nbs_path)
    if risky:
        log(f"note: nbdev's docs processing also runs {len(risky)} cells that hold an import and more code "
            "(listed if it fails)")
    t = time.perf_counter()
    old_env = os.environ.get('PYTHONWARNINGS')
    os.environ['PYTHONWARNINGS'] = 'ignore::UserWarning'   # nbdev's "imports and other code" warning (its workers
    try:                                                   # are new processes): the cells are listed above, once
        cache = proc_nbs(n_workers=n_workers)
    except Exception as e:
        msg = str(e).strip()
        hint = ("A show_doc cell failed with a NameError: show_doc evaluates the signature's annotations (they are "
                "strings under `from __future__ import annotations`) in the notebook's namespace, so a type named "
                "there must be imported by an import cell of the notebook (a `#| hide` one will do).\n\n"
                if re.search(r'^show_doc\(', msg, re.M) and 'NameError' in msg else '')
        raise BuildError(f"nbdev's processing (what `nbdev-proc-nbs` and `nbdev-docs` run) failed, so neither "
                 f"this site nor Quarto's can be built:\n{msg}\n\n{hint}"
                 "nbdev executes only exported cells, show_doc cells and every cell that has an import statement "
                 "anywhere in it (inside an `if` too), and never a cell whose text holds `nbdev_export()`; the names "
                 "such a cell uses must come from those cells. Move the failing cell's import into a cell of its own, "
                 "or define what it needs in an exported cell. The cells it runs that hold more than imports:\n"
                 + '\n'.join('    ' + r for r in risky)) from None
    finally:
        if old_env is None: os.environ.pop('PYTHONWARNINGS', None)
        else: os.environ['PYTHONWARNINGS'] = old_env
    log(f"nbdev processing: {time.perf_counter() - t:.1f}s -> {Path(cache).relative_to(ROOT)}/")
    return Path(cache)


# ---------------------------------------------------------------- 2. staging for myst-nb

_FM = re.compile(r'^---\s*\n(.*?)\n---\s*$', re.S)
_OPT = re.compile(r'^#\|\s*([\w-]+)\s*:\s*(.*?)\s*$')


def _src(cell) -> str: return ''.join(cell['source']) if isinstance(cell['source'], list) else cell['source']


def _pandoc_id(heading:str) -> str:
    "The id pandoc (so Quarto, so the links written for nbdev's site) gives a heading."
    text = re.sub(r'\[([^\]]*)\]\([^)]*\)', r'\1', heading)            # a link: its text
    text = re.sub(r'[`*$\\]', '', text)                                  # code, emphasis and math marks
    text = re.sub(r'[^\w\s.-]', '', text).strip().lower()
    text = re.sub(r'\s+', '-', text)
    return re.sub(r'^[^a-z]+', '', text) or 'section'


def _md_cell(text:str) -> dict: return {'cell_type': 'markdown', 'metadata': {}, 'source': text}


def _show_doc_markdown(md:str) -> str:
    """show_doc's markdown as page content: without the rule it opens with (a section may not begin with one), and
    with the heading's name taken literally (`ROUGE.__init__` is no bold `init`)."""
    md = re.sub(r'^\s*---\s*\n', '', md)
    return re.sub(r'^(#{1,6} )(.*)$', lambda m: m.group(1) + re.sub(r'([_*])', r'\\\1', m.group(2)), md, count=1, flags=re.M)


def _pandoc_anchors(cells:list[dict]):
    "Before each heading whose Sphinx id differs from pandoc's, an anchor with pandoc's id (nbdev's links use it)."
    from docutils.nodes import make_id
    used = set()
    for cell in cells:
        if cell['cell_type'] != 'markdown': continue
        lines, fence, out = cell['source'].split('\n'), None, []
        for line in lines:
            if (m := re.match(r'^\s*(`{3,}|~{3,})', line)):
                fence = None if fence and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) else (fence or m.group(1))
            elif not fence and (h := re.match(r'^(#{1,6})\s+(.*?)\s*#*\s*$', line)):
                plain = re.sub(r'[`*\\]', '', re.sub(r'\[([^\]]*)\]\([^)]*\)', r'\1', h.group(2)))
                sphinx_id, pandoc_id = make_id(plain), _pandoc_id(h.group(2))
                if (sphinx_id != pandoc_id or sphinx_id in used) and pandoc_id not in used:
                    out += [f'<a id="{pandoc_id}"></a>', '']
                used |= {sphinx_id, pandoc_id}
            out.append(line)
        cell['source'] = '\n'.join(out)


def _stage_notebook(nb:dict, depth:int, doc_host:str) -> tuple[dict, str]:
    "Turn one processed notebook into the notebook myst-nb renders; returns it and its title."
    cells, out, title = nb['cells'], [], ''
    up = '../' * depth
    def relink(s:str) -> str:             # the published site's own URLs, as relative links (so a fork's work too)
        if not doc_host: return s
        return re.sub(re.escape(doc_host.rstrip('/')) + r'''(/[^\s)"'<>]*)?''',
                      lambda m: up + ((m.group(1) or '').lstrip('/') or 'index.html'), s)
    for cell in cells:
        src = _src(cell)
        if cell['cell_type'] == 'raw' and not out and (m := _FM.match(src.strip())):
            import yaml
            fm = yaml.safe_load(m.group(1)) or {}
            title = str(fm.get('title', '')).strip()
            text = f"# {title}\n" if title else ''
            if fm.get('description'): text += f"\n{{.nb-description}}\n{' '.join(str(fm['description']).split())}\n"
            if text: out.append(_md_cell(relink(text)))
            continue
        if cell['cell_type'] == 'markdown':
            if src.strip().startswith('<!-- WARNING: THIS FILE WAS AUTOGENERATED'): continue
            out.append({**cell, 'source': relink(src)})
            continue
        if cell['cell_type'] != 'code':
            out.append(cell); continue
        lines, opts = src.splitlines(), {}
        while lines and (m := _OPT.match(lines[0])):
            opts[m.group(1)] = m.group(2).strip('\'"'); lines.pop(0)
        while lines and lines[0].startswith('#|'): lines.pop(0)
        code = '\n'.join(lines).strip('\n')
        flag = {k: v.lower() for k, v in opts.items()}
        if flag.get('include') == 'false': continue
        echo = flag.get('echo') != 'false' and code.strip()
        if flag.get('output') == 'asis':                       # Quarto splices the markdown output into the page
            mds = [''.join(o['data']['text/markdown']) for o in cell.get('outputs', [])
                   if 'text/markdown' in o.get('data', {})]
            if echo: out.append({**cell, 'source': code, 'outputs': [], 'metadata': {'tags': []}})
            for md in mds: out.append(_md_cell(relink(_show_doc_markdown(md))))
            continue
        tags, meta = [], {}
        if not echo: tags.append('remove-input')
        if flag.get('output') == 'false': tags.append('remove-output')
        if flag.get('code-fold') in ('true', 'show'): tags.append('hide-input')
        if not echo and (flag.get('output') == 'false' or not cell.get('outputs')): continue
        if tags: meta['tags'] = tags
        if opts.get('fig-alt'): meta['mystnb'] = {'image': {'alt': opts['fig-alt']}}   # Quarto's alt text for a plot
        outputs = cell.get('outputs', [])
        for o in outputs:
            if 'text/html' in o.get('data', {}):
                o['data']['text/html'] = relink(''.join(o['data']['text/html']))
            if 'text/markdown' in o.get('data', {}):   # a show_doc shown as a cell's result opens with a rule too,
                md = ''.join(o['data']['text/markdown'])       # which docutils refuses inside an output
                o['data']['text/markdown'] = relink(re.sub(r'^\s*---\s*\n', '', md))
        out.append({'cell_type': 'code', 'execution_count': None, 'metadata': meta,
                    'outputs': outputs, 'source': code})
    _pandoc_anchors(out)
    meta = {'kernelspec': nb.get('metadata', {}).get('kernelspec', {'name': 'python3', 'display_name': 'Python 3', 'language': 'python'}),
            'language_info': {'name': 'python', 'pygments_lexer': 'ipython3'}}
    return {'cells': out, 'metadata': meta, 'nbformat': 4, 'nbformat_minor': 5}, title


def _write_if_changed(path:Path, text:str):
    "Write only real changes, so Sphinx's incremental build rebuilds only the pages that changed."
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.read_text(encoding='utf-8') != text: path.write_text(text, encoding='utf-8')


def stage(proc:Path, src:Path, doc_host:str) -> list[tuple[str, str, str]]:
    "Stage `proc` into `src` for myst-nb; returns (docname, title, notebook) per page in the notebooks' order."
    pages, staged_nbs = [], {}
    nbs = sorted((p for p in proc.rglob('*.ipynb') if not any(s.startswith(('_', '.')) for s in p.relative_to(proc).parts)),
                 key=lambda p: (len(p.relative_to(proc).parts), str(p.relative_to(proc))))
    for f in nbs:
        rel = f.relative_to(proc)
        nb = json.loads(f.read_text(encoding='utf-8'))
        first = _src(nb['cells'][0]) if nb['cells'] else ''
        fm = _FM.match(first.strip())
        out_file = re.search(r'^output-file:\s*(\S+)', fm.group(1), re.M) if fm else None
        stem = Path(out_file.group(1)).stem if out_file else rel.stem
        docname = (rel.parent/stem).as_posix()
        staged, title = _stage_notebook(nb, len(rel.parts) - 1, doc_host)
        if not title: raise BuildError(f"{rel} has no title: start it with a `# Title` cell, as nbdev expects")
        pages.append((docname, title, str(rel)))
        staged_nbs[docname] = staged
    home = [p for p in pages if p[0] == 'index']
    if not home: raise BuildError("there is no nbs/index.ipynb, the home page")
    top = [p for p in pages if p[0] != 'index' and '/' not in p[0]]
    sections = {}
    for p in pages:
        if '/' in p[0]: sections.setdefault(p[0].split('/')[0], []).append(p)
    toc = "```{toctree}\n:hidden:\n:caption: Modules\n:maxdepth: 1\n\n" + ''.join(f"{d}\n" for d, _, _ in top) + "```\n"
    for sec, ps in sections.items():
        toc += f"\n```{{toctree}}\n:hidden:\n:caption: {sec.replace('_', ' ').title()}\n:maxdepth: 1\n\n" + ''.join(f"{d}\n" for d, _, _ in ps) + "```\n"
    staged_nbs['index']['cells'].append(_md_cell(toc))
    for staged in staged_nbs.values():
        for i, c in enumerate(staged['cells']): c['id'] = f"c{i}"      # nbformat 4.5 wants an id on every cell
    for docname, staged in staged_nbs.items():
        _write_if_changed(src/f"{docname}.ipynb", json.dumps(staged, indent=1, ensure_ascii=False) + '\n')
    for other in proc.rglob('*'):                 # images and data a page links to travel with it
        if other.is_file() and other.suffix.lower() in {'.png', '.jpg', '.jpeg', '.gif', '.svg', '.csv', '.json'} \
                and not any(s.startswith(('_', '.')) for s in other.relative_to(proc).parts):
            dst = src/other.relative_to(proc); dst.parent.mkdir(parents=True, exist_ok=True); shutil.copy2(other, dst)
    for old in src.rglob('*.ipynb'):              # a notebook that was removed or renamed
        if old.relative_to(src).with_suffix('').as_posix() not in staged_nbs: old.unlink()
    return pages


def stage_static(static:Path):
    "MathJax 3 (the django-static-mathjax wheel's copy) into `static/mathjax/`: only the parts the site loads."
    import importlib.util
    spec = importlib.util.find_spec('mathjax')
    es5 = Path(spec.origin).parent/'static'/'mathjax'/'es5' if spec and spec.origin else None
    if not es5 or not (es5/'tex-chtml.js').exists():
        raise BuildError("MathJax is missing: `pip install django-static-mathjax==3.2.2.1` "
                 "(a dev dependency: `pip install -e '.[dev]'`)")
    dst = static/'mathjax'
    stamp = f"{es5}:{(es5/'tex-chtml.js').stat().st_size}"
    if (dst/'.stamp').exists() and (dst/'.stamp').read_text() == stamp: return
    shutil.rmtree(dst, ignore_errors=True)
    for part in _MATHJAX_PARTS:
        s, d = es5/part, dst/part
        if s.is_dir(): shutil.copytree(s, d)
        else: d.parent.mkdir(parents=True, exist_ok=True); shutil.copy2(s, d)
    shutil.copy2(es5.parent/'LICENSE', dst/'LICENSE')
    (dst/'.stamp').write_text(stamp)


# ---------------------------------------------------------------- 3. Sphinx

def sphinx(src:Path, out:Path, jobs:str, strict:bool) -> int:
    from sphinx.cmd.build import build_main
    args = ['-b', 'html', '-c', str(ROOT/'docs'), '-d', str(BUILD/'doctrees'), '-j', jobs, '-q']
    if strict: args += ['-W', '--keep-going']
    return build_main(args + [str(src), str(out)])


def build(out:Path=SITE, jobs:str='auto', strict:bool=True, n_workers:int|None=None, skip_proc:bool=False) -> dict:
    "Build the whole site; returns what was built and how long each step took."
    t0 = time.perf_counter()
    from nbdev.config import get_config
    os.chdir(ROOT)
    cfg = get_config()
    proc = ROOT/'_proc' if skip_proc else process_notebooks(n_workers or min(2, os.cpu_count() or 1))
    t1 = time.perf_counter()
    doc_host = (cfg.get('doc_host', '') + cfg.get('doc_baseurl', '')).rstrip('/') + '/' if cfg.get('doc_host') else ''
    pages = stage(proc, BUILD/'src', doc_host)
    stage_static(BUILD/'static')
    t2 = time.perf_counter()
    rc = sphinx(BUILD/'src', out, jobs, strict)
    if rc:                                       # read every page again next time, so its warnings show again
        shutil.rmtree(BUILD/'doctrees', ignore_errors=True)
        raise BuildError(f"Sphinx failed (exit {rc}); its warnings are above")
    (out/'.nojekyll').write_text('')             # GitHub Pages: serve _static/ as it is
    if (out/'_sources').is_dir() and not any((out/'_sources').iterdir()): (out/'_sources').rmdir()
    t3 = time.perf_counter()
    info = {'pages': {nb: f"{d}.html" for d, _, nb in pages}, 'out': str(out), 'seconds': {
        'nbdev': round(t1 - t0, 1), 'stage': round(t2 - t1, 1), 'sphinx': round(t3 - t2, 1), 'total': round(t3 - t0, 1)}}
    (BUILD/'build.json').write_text(json.dumps(info, indent=1) + '\n')
    log(f"{len(pages)} notebook pages -> {out.relative_to(ROOT) if out.is_relative_to(ROOT) else out}/ in "
        f"{info['seconds']['total']}s (nbdev {info['seconds']['nbdev']}s, staging {info['seconds']['stage']}s, "
        f"Sphinx {info['seconds']['sphinx']}s)")
    return info


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--out', type=Path, default=SITE, help='output folder (default _site/)')
    ap.add_argument('--jobs', default='auto', help="Sphinx's -j (default auto)")
    ap.add_argument('--allow-warnings', action='store_true', help="don't fail on Sphinx warnings")
    ap.add_argument('--skip-proc', action='store_true', help="reuse _proc/ as it is (no nbdev processing)")
    ap.add_argument('--check', action='store_true', help='then open every page in headless Chromium (tools/check_site.py)')
    a = ap.parse_args(argv)
    try: info = build(a.out.resolve(), a.jobs, not a.allow_warnings, skip_proc=a.skip_proc)
    except BuildError as e: sys.exit(f"build_docs: {e}")
    if a.check:
        sys.path.insert(0, str(ROOT/'tools'))
        import check_site
        sys.exit(check_site.main([str(a.out)]))
    return info


if __name__ == '__main__': main()
