"""Issue #32, one explicit Metric contract: the layers above the metrics know a metric only by it.

`significance`, `distributed`, `evaluate` and `cli` reach a metric through `cah_metrics.core.Metric`
and the registry (`load`, `metric_class`): what it can resample (`resampling()`), how it crosses
workers (`reduction()`), whether it loads a model (`loads_model`, `device_option`), which metrics
share a pass (`pass_key()`). This test reads their sources and fails where their *code* names a
metric.

Flagged:
- a string constant equal to a registry name ('bleu', 'rougeL'), to a metric class's name
  ('DistinctN'), or naming a metric module ('cah_metrics.rouge', 'cah_metrics.rouge.ROUGE');
- a name or attribute that is a metric class's name (`ROUGE`, `x.SelfBLEUMetric`);
- an import from a metric module (`from cah_metrics.rouge import ...`, `from .bleu import ...`).

Allowed, as configuration or text rather than dispatch:
- docstrings, comments and messages (a constant is flagged only when it *equals* a name, so prose
  never is);
- default values of a function's parameters (`metrics=('bleu',)`) and of an option (a `default=`
  keyword, as argparse's `add_argument(..., default=['bleu'])`): a user's choice, loaded by name;
- a module-level assignment of a literal to a public UPPER_CASE name (`DEFAULT_METRICS = ('rougeL',
  ...)`): documented configuration, not a table of behaviour (a private table such as
  `_SACRE = {'bleu': ...}` is flagged); and `__all__`, whose strings name the module's own
  functions;
- a string equal to the name of a function the module itself defines at its top level and exports
  in `__all__`: that function's own name, not a metric's. cli's `humor` command is such a function:
  the command's name, its messages (`humor: --top ...`) and its place in `main`'s table of commands
  name the command, which runs the humor evaluator as a whole, and never dispatch on the `humor`
  metric;
- an import, from a metric module, of evaluator classes only (`EVALUATORS`): a class that is no
  `Metric` but the model an evaluator command trains and runs as a whole (`HumorEvaluator`, which
  `cah-metrics humor --learn` fits). Importing a metric class or a metric's function stays flagged.

`PENDING` lists the modules whose move to the contract is another change of issue #32: they are
expected to fail until it lands (strict: once one passes, its entry must go).
"""
import ast, importlib, inspect
from pathlib import Path

import pytest

import cah_metrics
from cah_metrics.core import METRICS, Metric, import_all_metrics, registered

ROOT = Path(cah_metrics.__file__).parent
LAYERS = ('significance', 'distributed', 'evaluate', 'cli')
PENDING: dict[str, str] = {}    # module -> why it still names metrics on this branch
EVALUATORS = {'HumorEvaluator'}   # classes of metric modules that are evaluators, not metrics


def _metric_names() -> tuple[set[str], set[str], set[str]]:
    "(registry names, metric class names, metric module names) of the library's metrics."
    import_all_metrics()
    modules = {e.module for e in METRICS.values()}
    classes = {e.cls for e in METRICS.values()}
    ours = [c for c, _ in registered().values() if c.__module__.startswith('cah_metrics.')]
    classes |= {c.__name__ for c in ours}
    for mod in modules:
        m = importlib.import_module(f'cah_metrics.{mod}')
        classes |= {k for k, v in vars(m).items() if inspect.isclass(v) and issubclass(v, Metric)
                    and v is not Metric and v.__module__ == m.__name__}
    return set(METRICS), classes, modules


def _configuration(node:ast.stmt) -> ast.expr|None:
    "The value of a module-level assignment of a literal to public UPPER_CASE names (or `__all__`)."
    targets = (node.targets if isinstance(node, ast.Assign) else
               [node.target] if isinstance(node, ast.AnnAssign) else [])
    public = lambda t: (isinstance(t, ast.Name)
                        and (t.id == '__all__' or t.id.isupper() and not t.id.startswith('_')))
    if not targets or not all(map(public, targets)) or node.value is None: return None
    try: ast.literal_eval(node.value)
    except ValueError: return None
    return node.value


def _allowed(tree:ast.Module) -> set[int]:
    "ids of the nodes whose subtrees are configuration or text (see the module's docstring)."
    out = set()
    def take(node):
        if node is not None: out.update(id(n) for n in ast.walk(node))
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            for d in node.args.defaults + node.args.kw_defaults: take(d)
        body = getattr(node, 'body', None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            if isinstance(body[0].value, ast.Constant): take(body[0])                 # a docstring
        if isinstance(node, ast.keyword) and node.arg == 'default': take(node.value)
    for node in tree.body: take(_configuration(node))
    return out


def _own_functions(tree:ast.Module) -> set[str]:
    "The functions a module defines at its top level and exports in `__all__` (cli's commands)."
    defined = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    exported = set()
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == '__all__'
                                                for t in node.targets):
            exported |= set(ast.literal_eval(node.value))
    return defined & exported


def metric_mentions(source:str) -> list[tuple[int, str]]:
    "(line, what) of each place the code names a metric."
    names, classes, modules = _metric_names()
    tree = ast.parse(source)
    allowed = _allowed(tree)
    names = names - _own_functions(tree)
    def is_module(s):
        return any(s == f'cah_metrics.{m}' or s.startswith(f'cah_metrics.{m}.') for m in modules)
    out = []
    for node in ast.walk(tree):
        if id(node) in allowed: continue
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if node.value in names or node.value in classes or is_module(node.value):
                out.append((node.lineno, f"string {node.value!r}"))
        elif isinstance(node, ast.Name) and node.id in classes:
            out.append((node.lineno, f"name {node.id}"))
        elif isinstance(node, ast.Attribute) and node.attr in classes:
            out.append((node.lineno, f"attribute .{node.attr}"))
        elif isinstance(node, ast.ImportFrom):
            mod = node.module or ''
            evaluators = all(a.name in EVALUATORS for a in node.names)
            if ((node.level and mod.split('.')[0] in modules) or is_module(mod)) and not evaluators:
                out.append((node.lineno, f"import from {'.' * node.level}{mod}"))
        elif isinstance(node, ast.Import):
            out += [(node.lineno, f"import {a.name}") for a in node.names if is_module(a.name)]
    return sorted(out)


def test_the_scan_finds_what_it_should():
    "The scan itself, on code that names metrics and on code that only configures or mentions them."
    bad = ("from .rouge import ROUGE\nimport cah_metrics.bleu\n_T = {'bleu': 1}\n"
           "def f(m):\n    if m.name == 'distinct_n': return ROUGE\n"
           "    return x.SelfBLEUMetric, 'cah_metrics.rouge.ROUGE'\n")
    assert metric_mentions(bad) == [
        (1, 'import from .rouge'), (2, 'import cah_metrics.bleu'), (3, "string 'bleu'"),
        (5, 'name ROUGE'), (5, "string 'distinct_n'"), (6, 'attribute .SelfBLEUMetric'),
        (6, "string 'cah_metrics.rouge.ROUGE'")]
    ok = ('"Scores BLEU and ROUGE."\n'
          "DEFAULT_METRICS = ('rougeL', 'bleu')\n__all__ = ['humor']\n"
          "def f(metrics=('bleu',)):\n    \"The 'bleu' metric.\"\n"
          "    p.add_argument('--m', default=['chrf'])\n"
          "    raise ValueError(f'{m}: unlike bleu, ...')\n")
    assert metric_mentions(ok) == []
    command = ("__all__ = ['humor']\nfrom cah_metrics.humor import HumorEvaluator\n"
               "def humor(opts): return HumorEvaluator(), 'humor'\n"
               "def main(): return {'humor': humor}\n")
    assert metric_mentions(command) == []          # a command of its own, and the evaluator it runs
    assert metric_mentions("def humor(): return 'humor'\n") == [(1, "string 'humor'")]  # unexported
    assert metric_mentions("from cah_metrics.humor import HumorEvaluator, HumorScores\n") == [
        (1, 'import from cah_metrics.humor')]


def test_evaluators_are_not_metrics():
    "What `EVALUATORS` lets a layer import from a metric module is no `Metric`."
    import_all_metrics()
    found = {name: value for mod in {e.module for e in METRICS.values()}
             for name, value in vars(importlib.import_module(f'cah_metrics.{mod}')).items()
             if name in EVALUATORS}
    assert set(found) == EVALUATORS, found
    assert not any(inspect.isclass(v) and issubclass(v, Metric) for v in found.values()), found


@pytest.mark.parametrize('module', [
    pytest.param(m, marks=pytest.mark.xfail(reason=PENDING[m], strict=True)) if m in PENDING else m
    for m in LAYERS])
def test_layers_name_no_metric(module):
    found = metric_mentions((ROOT / f'{module}.py').read_text())
    where = '\n'.join(f"  line {n}: {w}" for n, w in found)
    assert not found, f"cah_metrics/{module}.py names metrics in code:\n{where}"
