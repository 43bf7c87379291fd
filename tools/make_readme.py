"""Write README.md from nbs/index.ipynb without Quarto (nbdev-readme needs Quarto, which is not installable here).

Markdown cells are copied as they are; code cells become ```python blocks, followed by their saved text output.
Cells marked `#| hide` are left out, and `#|` directive lines are dropped. `--check` exits 1 when README.md differs.
"""
import json, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NOTICE = "<!-- Generated from nbs/index.ipynb by tools/make_readme.py: edit the notebook, not this file. -->\n\n"

def _text_output(o):
    if o.get('output_type') == 'stream': return ''.join(o.get('text', ''))
    data = o.get('data', {})
    if 'text/markdown' in data: return None, ''.join(data['text/markdown'])
    return ''.join(data.get('text/plain', ''))

def render(nb_path=ROOT / 'nbs' / 'index.ipynb') -> str:
    nb = json.loads(Path(nb_path).read_text(encoding='utf-8'))
    parts = []
    for c in nb['cells']:
        lines = ''.join(c['source']).split('\n')
        directives = [l.replace(' ', '') for l in lines if l.startswith('#|')]
        if '#|hide' in directives: continue
        body = '\n'.join(l for l in lines if not l.startswith('#|')).strip('\n')
        if c['cell_type'] == 'markdown':
            parts.append(body)
            continue
        if body: parts.append(f"```python\n{body}\n```")
        for o in c.get('outputs', []):
            out = _text_output(o)
            if isinstance(out, tuple): parts.append(out[1].strip('\n'))
            elif out and out.strip(): parts.append(f"```\n{out.rstrip()}\n```")
    return NOTICE + '\n\n'.join(p for p in parts if p) + '\n'

def main(argv):
    text, readme = render(), ROOT / 'README.md'
    if '--check' in argv:
        if not readme.exists() or readme.read_text(encoding='utf-8') != text:
            print("README.md is out of date with nbs/index.ipynb: run `python tools/make_readme.py`", file=sys.stderr)
            return 1
        return 0
    readme.write_text(text, encoding='utf-8')
    return 0

if __name__ == '__main__': sys.exit(main(sys.argv[1:]))
