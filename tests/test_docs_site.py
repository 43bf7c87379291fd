"""The documentation site: built offline from the notebooks (tools/build_docs.py), then opened page by page in
headless Chromium (tools/check_site.py). The build tests run everywhere; the browser tests skip only where
Chromium is not installed (.ci/run installs it, so CI never skips them)."""
import html, json, os, re, subprocess, sys, time
from html.parser import HTMLParser
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SITE, SHOTS = ROOT/'_site', ROOT/'_site_shots'
sys.path.insert(0, str(ROOT/'tools'))
import check_site  # noqa: E402

CHROMIUM = check_site.find_chromium()
# skipped only on a machine without Chromium; under CI (CI=true) a missing browser fails instead of skipping
needs_chromium = pytest.mark.skipif(CHROMIUM is None and not os.environ.get('CI'), reason=(
    "Chromium is not installed, so the site is not checked in a browser: `apt-get install -y chromium` "
    "(.ci/run installs it)"))

# Sphinx writes smart quotes and dashes where the notebooks have plain ones
_PLAIN_QUOTES = str.maketrans({'\u2018': "'", '\u2019': "'", '\u201c': '"', '\u201d': '"', '\u2013': '--', '\u2014': '---'})


def _notebooks() -> list[Path]:
    nbs = ROOT/'nbs'
    return sorted(p for p in nbs.rglob('*.ipynb') if not any(s.startswith(('_', '.')) for s in p.relative_to(nbs).parts))


@pytest.fixture(scope='module')
def built():
    "Build the site as the README says (incremental: fast when .ci/run has just built it); its summary."
    t = time.perf_counter()
    r = subprocess.run([sys.executable, 'tools/build_docs.py'], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, f"python tools/build_docs.py failed:\n{r.stdout[-3000:]}\n{r.stderr[:6000]}"
    info = json.loads((ROOT/'_site_build'/'build.json').read_text())
    info['wall'] = time.perf_counter() - t
    return info


class _Text(HTMLParser):
    "The text of a page's article (code included, tags dropped), and of its code blocks alone."
    def __init__(self):
        super().__init__(convert_charrefs=True); self.in_pre = 0; self.text = []; self.code = []
    def handle_starttag(self, tag, attrs): self.in_pre += tag == 'pre'
    def handle_endtag(self, tag): self.in_pre -= tag == 'pre' and self.in_pre > 0
    def handle_data(self, d):
        self.text.append(d)
        if self.in_pre: self.code.append(d)


def _page_text(page:Path) -> tuple[str, str]:
    h = page.read_text(encoding='utf-8')
    p = _Text(); p.feed(h[h.index('<article'):h.rindex('</article>')]); return ''.join(p.text), ''.join(p.code)


_NOT_SHOWN = {'hide', 'export', 'exporti'}   # directives that keep a cell's source off the page


def _cells(nb:Path):
    for c in json.loads(nb.read_text(encoding='utf-8'))['cells']:
        src = ''.join(c['source'])
        dirs = {m.group(1) for m in re.finditer(r'^#\|\s*([\w-]+)', src, re.M)}
        yield c['cell_type'], dirs, src


def test_every_notebook_is_a_page_in_numbered_order(built):
    nbs = [p.relative_to(ROOT/'nbs').as_posix() for p in _notebooks()]
    assert sorted(built['pages']) == sorted(nbs), "every notebook (nbs/ and nbs/tutorials/) becomes exactly one page"
    assert built['pages']['index.ipynb'] == 'index.html'
    for nb, page in built['pages'].items():
        title = next(src for kind, _, src in _cells(ROOT/'nbs'/nb) if kind == 'markdown' and src.lstrip().startswith('# '))
        title = title.lstrip()[2:].splitlines()[0].strip()
        shown = html.unescape(re.search(r'<title>(.*?)</title>', (SITE/page).read_text(encoding='utf-8'), re.S).group(1))
        assert title.replace('`', '') in shown.translate(_PLAIN_QUOTES), f"{page}: <title> {shown!r} lacks {title!r}"
    # the sidebar lists the pages in the notebooks' numbered order, tutorials after the modules
    home = (SITE/'index.html').read_text(encoding='utf-8')
    nav = home[home.index('sidebar-tree'):]
    hrefs = [h for h in re.findall(r'class="reference internal" href="([^"#]+)"', nav)]
    order = [built['pages'][nb] for nb in sorted(built['pages'], key=lambda n: (n.count('/'), n)) if nb != 'index.ipynb']
    assert [h for h in hrefs if h in order][:len(order)] == order


def test_hidden_cells_are_not_shown_and_visible_ones_are(built):
    "`#| hide` cells are gone, as on nbdev's site; plain code cells and their prose are on the page."
    checked_hidden = checked_shown = 0
    for nb, page in built['pages'].items():
        text, code = _page_text(SITE/page)
        cells = list(_cells(ROOT/'nbs'/nb))
        # a hidden line that also occurs in a shown cell (whole, or as part of a longer line) says nothing
        # (a cell with only a test flag such as `#| torch` or `#| slow` is shown too)
        shown_source = '\n'.join(' '.join(src.split()) for kind, d, src in cells
                                  if kind == 'code' and not d & _NOT_SHOWN)
        for kind, dirs, src in cells:
            lines = [l.strip() for l in src.splitlines() if len(l.strip()) >= 30 and not l.strip().startswith('#')]
            if kind == 'code' and 'hide' in dirs:
                for l in lines:
                    if ' '.join(l.split()) in shown_source: continue
                    assert l not in code, f"{page} shows a line of a `#| hide` cell of {nb}: {l!r}"
                    checked_hidden += 1
            elif kind == 'code' and not dirs and lines and not lines[0].startswith('show_doc('):
                assert lines[0] in code, f"{page} lacks the code cell of {nb} that starts {lines[0]!r}"
                checked_shown += 1
    assert checked_hidden > 50 and checked_shown > 50, (checked_hidden, checked_shown)


def test_api_reference_from_docstrings_and_docments(built):
    "Each public function and class has its show_doc entry: nbdev's anchor, its docstring and its docments."
    import importlib, inspect
    from cah_metrics._modidx import d
    checked = 0
    for mod, entries in d['syms'].items():
        m = importlib.import_module(mod)
        for name in getattr(m, '__all__', []):
            if f"{mod}.{name}" not in entries: continue             # constants: nbdev documents no show_doc for them
            url = entries[f"{mod}.{name}"][0]
            page, _, anchor = url.partition('#')
            f = SITE/page
            assert f.is_file(), f"{mod}.{name}: no page {page}"
            assert anchor in check_site._ids(f), f"{mod}.{name}: no API entry #{anchor} on {page}"
            obj = getattr(m, name)
            doc = (inspect.getdoc(obj) or '').split('\n')[0].strip()
            text, _ = _page_text(f)
            flat = ' '.join(text.translate(_PLAIN_QUOTES).split())          # Sphinx's smart quotes, undone
            doc = ' '.join(doc.replace('`', '').split())[:50]    # as rendered: code spans without their backticks
            if doc: assert doc in flat, f"{mod}.{name}: its docstring is not on {page}: {doc!r}"
            checked += 1
    assert checked > 100, checked
    text, _ = _page_text(SITE/'bleu.html')          # docments: the parameters' comments, from the signature
    assert "# the candidate's tokens" in text and '# highest n-gram order' in text


def test_no_cdn_and_bundled_mathjax(built):
    "Every script, stylesheet and font comes from the site itself; MathJax is bundled."
    assert (SITE/'_static'/'mathjax'/'tex-chtml.js').is_file()
    for page in SITE.rglob('*.html'):
        h = page.read_text(encoding='utf-8')
        tags = [t for t in re.findall(r'<(?:script|link|img|iframe|source|video|audio)\b[^>]*>', h) if 'rel="canonical"' not in t]
        remote = [u for t in tags for u in re.findall(r'\b(?:src|href)="((?:https?:)?//[^"]+)"', t)]
        assert not remote, f"{page.relative_to(SITE)} loads {remote[:3]}"
    assert 'mathjax/tex-chtml.js' in (SITE/'bleu.html').read_text(encoding='utf-8')


@needs_chromium
def test_every_page_in_chromium(built, capsys):
    "Every page in headless Chromium: math rendered, links and images whole, no JS error, no network, a title."
    res = check_site.check(SITE, SHOTS, verbose=False)
    with capsys.disabled():
        print(f"\n[docs site] {len(built['pages'])} notebook pages ({res['pages']} HTML pages) built in "
              f"{built['seconds']['total']}s (this run {built['wall']:.1f}s); browser check {res['seconds']}s")
        for s in res['shots']: print(f"[docs site] screenshot: {s}")
    assert not res['problems'], check_site.report(res)
    assert sorted(Path(s).name for s in res['shots']) == ['bleu.png', 'index.png', 'rouge.png']


@needs_chromium
def test_the_check_fails_on_broken_pages(tmp_path):
    "The browser check is not vacuous: a small site with one fault per page, each reported."
    ok = ('<!doctype html><html><head><meta charset="utf-8"><title>{t}</title></head>'
          '<body><article><h1>{t}</h1>{body}</article></body></html>')
    pages = {
        'index.html': ('Home', '<p id="here">fine <a href="math.html">m</a> <a href="index.html#here">h</a></p>'),
        'math.html': ('Math', '<p>the score $x$ and \\frac{a}{b} left raw</p>'),
        'link.html': ('Link', '<p><a href="nowhere.html">x</a> <a href="index.html#nosuch">y</a></p>'),
        'image.html': ('Image', '<img src="missing.png" alt="">'),
        'network.html': ('Net', '<img src="https://cdn.example.org/lib.png" alt="">'),
        'js.html': ('JS', '<script>undefinedFunction()</script>'),
        'untitled.html': ('', '<p>no title, no heading</p>'),
    }
    for name, (t, body) in pages.items(): (tmp_path/name).write_text(ok.format(t=t, body=body))
    res = check_site.check(tmp_path, None, search=None, verbose=False)
    got = {k: ' | '.join(v) for k, v in res['problems'].items()}
    assert 'index.html' not in got, got.get('index.html')
    assert "unrendered math '$x$'" in got['math.html'] and "'\\\\frac'" in got['math.html']
    assert 'broken link: nowhere.html' in got['link.html'] and "no id 'nosuch'" in got['link.html']
    assert 'image did not load: missing.png' in got['image.html'] and 'HTTP 404' in got['image.html']
    assert 'network request blocked: https://cdn.example.org/lib.png' in got['network.html']
    assert 'JavaScript exception: undefinedFunction is not defined' in got['js.html']
    assert 'no <title>' in got['untitled.html'] and 'no <h1>' in got['untitled.html']
