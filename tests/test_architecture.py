"""The shape of the package, read from its sources: floors in the notebooks' order, no private names across modules,
lines a reader can follow. These tests read files; they import nothing of the package except where they say so."""
import ast, json, re, subprocess, sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / 'cah_metrics'


def _modules() -> dict[str, str]:
    "Module name -> the number of its notebook (`00a`, `08`, `85`...), from each notebook's `default_exp`."
    out = {}
    for nb in sorted((ROOT / 'nbs').glob('*.ipynb')):
        for cell in json.loads(nb.read_text())['cells']:
            m = re.search(r'#\| default_exp (\S+)', ''.join(cell['source']))
            if m:
                out[m.group(1)] = nb.name.split('_')[0]
                break
    return out


def _package_imports(path: Path):
    "(line, imported module, imported name) of every import of the package in a module, nested imports included."
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level == 1 and node.module: mods = [node.module.split('.')[0]]
            elif node.level == 1: mods = [a.name for a in node.names]
            elif (node.module or '').startswith('cah_metrics.'): mods = [node.module.split('.')[1]]
            elif node.module == 'cah_metrics': mods = [a.name for a in node.names]
            else: continue
            for mod in mods:
                for a in node.names: yield node.lineno, mod, a.name
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.startswith('cah_metrics.'): yield node.lineno, a.name.split('.')[1], None


def test_no_module_imports_a_higher_floor():
    "A module imports only modules of its own floor or below, in the order of the notebooks' numbers."
    floor = _modules()
    assert len(floor) > 25, floor
    bad = []
    for mod, number in floor.items():
        for line, other, _ in _package_imports(PKG / f'{mod}.py'):
            if other in floor and floor[other] > number:
                bad.append(f"{mod} ({number}) imports {other} ({floor[other]}) at line {line}")
    assert not bad, '\n'.join(bad)


def test_the_statistics_floors():
    "significance imports no metric module; agreement and crossval import neither significance nor an evaluator."
    metric_modules = {'bleu', 'chrf', 'cider', 'rouge', 'topk', 'perplexity', 'lm', 'diversity', 'mauve', 'bertscore', 'cmc',
                      'humor'}
    evaluators = {'humor', 'ensemble', 'embedding_eval', 'evaluate'}
    imported = {mod: {other for _, other, _ in _package_imports(PKG / f'{mod}.py')}
                for mod in ('significance', 'agreement', 'crossval')}
    assert not imported['significance'] & metric_modules, imported['significance']
    for mod in ('agreement', 'crossval'):
        assert not imported[mod] & ({'significance'} | evaluators), (mod, imported[mod])


def test_no_private_name_crosses_a_module():
    "What several modules share is public: no module imports an underscore name of another."
    bad = [f"{path.stem}:{line} imports {name} from {other}"
           for path in sorted(PKG.glob('*.py')) if path.name != '_modidx.py'
           for line, other, name in _package_imports(path)
           if name and name.startswith('_') and not name.startswith('__')]
    assert not bad, '\n'.join(bad)


# Exported code has no line over 100 characters and no `;`-chained statement (issue #32 took 2,917 and about
# 400 down to none).
def test_lines_a_reader_can_follow():
    "Exported code: no `;`-chained statements and no line over 100 characters."
    long, chained = [], []
    for path in sorted(PKG.glob('*.py')):
        if path.name == '_modidx.py': continue
        text = path.read_text()
        tree = ast.parse(text)
        doc = tree.body[0].end_lineno if tree.body and isinstance(tree.body[0], ast.Expr) else 0
        # nbdev writes the module docstring from the title, and wraps `__all__` at 120 characters
        written_by_nbdev = {i for node in tree.body if isinstance(node, ast.Assign)
                            and any(getattr(t, 'id', None) == '__all__' for t in node.targets)
                            for i in range(node.lineno, node.end_lineno + 1)}
        for i, line in enumerate(text.splitlines(), 1):
            if len(line) > 100 and i > doc and i not in written_by_nbdev:
                long.append(f"{path.name}:{i} ({len(line)})")
        for node in ast.walk(tree):
            body = getattr(node, 'body', None)
            if isinstance(body, list):
                lines = [s.lineno for s in body if hasattr(s, 'lineno')]
                chained += [f"{path.name}:{n}" for n in sorted(set(lines)) if lines.count(n) > 1]
    assert not long, f"{len(long)} lines over 100 characters, e.g. {long[:10]}"
    assert not chained, f"{len(chained)} `;`-chained lines, e.g. {chained[:10]}"


def test_load_imports_only_the_metrics_floors():
    "`load('bleu')` imports bleu and the floors below it, not the other metric modules."
    code = ("import sys, cah_metrics; cah_metrics.load('bleu'); "
            "print(sorted(m for m in sys.modules if m.startswith('cah_metrics.')))")
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, check=True, cwd=ROOT)
    loaded = set(eval(out.stdout))
    assert 'cah_metrics.bleu' in loaded
    assert not loaded & {f'cah_metrics.{m}' for m in ('rouge', 'chrf', 'cider', 'diversity', 'humor', 'bertscore', 'mauve')}, loaded


def test_no_notebook_directive_in_exported_code():
    "A `#| export` written twice in one cell ends up in the module as a stray comment."
    stray = [f"{path.name}:{i}" for path in sorted(PKG.glob('*.py'))
             for i, line in enumerate(path.read_text().splitlines(), 1) if line.startswith('#| ')]
    assert not stray, f"notebook directives in exported code: {stray}"
