"""Write README.md from nbs/index.ipynb without Quarto (nbdev-readme needs Quarto, which is not installable here).

Markdown cells are copied as they are; code cells become ```python blocks, followed by their saved text output.
Cells marked `#| hide` are left out, and `#|` directive lines are dropped. A saved PNG output (a plot) is written to
`index_files/figure-commonmark/cell-<cell>-output-<output>.png`, where nbdev-readme puts it, and shown by an image link
whose alt text is the cell's `#| fig-alt:`; an image a markdown cell links relative to `nbs/` (the Colab badge) is
linked from the repository root instead. `--check` exits 1 when README.md or a figure differs, or a stale figure is left.
"""
import base64, json, os, re, sys, tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NBS = ROOT / 'nbs'
FIGS = Path('index_files') / 'figure-commonmark'     # relative to the root, as README.md links it
NOTICE = "<!-- Generated from nbs/index.ipynb by tools/make_readme.py: edit the notebook, not this file. -->\n\n"
IMAGE = re.compile(r'(!\[[^\]]*\]\()([^)\s]+)(\))')

def _text_output(o):
    if o.get('output_type') == 'stream': return ''.join(o.get('text', ''))
    data = o.get('data', {})
    if 'text/markdown' in data: return None, ''.join(data['text/markdown'])
    return ''.join(data.get('text/plain', ''))

def _root_relative(md:str) -> str:
    "Markdown image links relative to nbs/ made relative to the repository root, where README.md is."
    def fix(m):
        url = m.group(2)
        if re.match(r'[a-z][a-z0-9+.-]*:|/|#', url, re.I) or not (NBS / url).is_file(): return m.group(0)
        return m.group(1) + (NBS / url).resolve().relative_to(ROOT).as_posix() + m.group(3)
    return IMAGE.sub(fix, md)

def render(nb_path=NBS / 'index.ipynb') -> tuple[str, dict[str, bytes]]:
    "The text of README.md, and the figures it links: {path relative to the root: PNG bytes}."
    nb = json.loads(Path(nb_path).read_text(encoding='utf-8'))
    parts, figs = [], {}
    for i, c in enumerate(nb['cells']):
        lines = ''.join(c['source']).split('\n')
        directives = [l.replace(' ', '') for l in lines if l.startswith('#|')]
        if '#|hide' in directives: continue
        alt = next((l.split(':', 1)[1].strip() for l in lines if re.match(r'#\|\s*fig-alt:', l)), 'a plot')
        body = '\n'.join(l for l in lines if not l.startswith('#|')).strip('\n')
        if c['cell_type'] == 'markdown':
            parts.append(_root_relative(body))
            continue
        if body: parts.append(f"```python\n{body}\n```")
        for j, o in enumerate(c.get('outputs', [])):
            if png := o.get('data', {}).get('image/png'):
                name = (FIGS / f'cell-{i}-output-{j + 1}.png').as_posix()
                figs[name] = base64.b64decode(''.join(png))
                parts.append(f"![{alt}]({name})")
                continue
            out = _text_output(o)
            if isinstance(out, tuple): parts.append(out[1].strip('\n'))
            elif out and out.strip(): parts.append(f"```\n{out.rstrip()}\n```")
    return NOTICE + '\n\n'.join(p for p in parts if p) + '\n', figs

def _write(path:Path, data:bytes):
    "Write atomically: a temporary file in the same folder, then a rename."
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f'.{path.name}.')
    try:
        with os.fdopen(fd, 'wb') as f: f.write(data)
        umask = os.umask(0); os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)                       # mkstemp's 0600 would outlive the rename
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True); raise

def main(argv):
    text, figs = render()
    wanted = {ROOT / 'README.md': text.encode('utf-8'), **{ROOT / k: v for k, v in figs.items()}}
    stale = [p for p in (ROOT / FIGS).glob('*.png') if p not in wanted]
    if '--check' in argv:
        bad = [p for p, b in wanted.items() if not p.is_file() or p.read_bytes() != b] + stale
        if bad:
            print("README.md or its figures are out of date with nbs/index.ipynb (" + ', '.join(str(p.relative_to(ROOT)) for p in bad)
                  + "): run `python tools/make_readme.py`", file=sys.stderr)
            return 1
        return 0
    for p, b in wanted.items():
        if not p.is_file() or p.read_bytes() != b: _write(p, b)
    for p in stale: p.unlink()
    return 0

if __name__ == '__main__': sys.exit(main(sys.argv[1:]))
