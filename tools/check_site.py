"""Open every page of the built site in headless Chromium and fail on what a reader would see as broken.

    python tools/check_site.py [_site] [--shots _site_shots]

The site is served from a local http.server on 127.0.0.1; Debian's Chromium (`apt-get install chromium`) is
driven over the DevTools protocol by Playwright's Python package, with the system browser (no browser download).
Each page fails on:
- math left unrendered: a `$…$`, `\\(…\\)`, `\\[…\\]` or a TeX command such as `\\frac` in the visible text
  (code blocks excepted), or a math element MathJax did not typeset;
- a broken internal link (a missing page, or a `#fragment` with no such id on its page), or a link to the
  published site that should be relative;
- an image that did not load, or any local request that answered 4xx/5xx;
- a JavaScript error (console error or uncaught exception);
- any request to an address other than the local server: it is blocked and reported, so the site never
  depends on the network (a CDN, a web font, analytics);
- a page without a title (`<title>` and an `<h1>`).
It also runs a search (search.html?q=...) and expects results, and saves screenshots of the home page and two
metric pages, printing their paths.
"""
from __future__ import annotations
import argparse, functools, http.server, os, re, shutil, sys, threading, time
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

ROOT = Path(__file__).resolve().parents[1]
SHOTS = ['index.html', 'bleu.html', 'rouge.html']           # the home page and two metric pages
PUBLISHED = 'cah-metrics.github.io/cah_metrics'            # links to the published site must be relative
CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking',
                 '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic',
                 '--disable-default-apps', '--disable-extensions', '--mute-audio']


def find_chromium() -> str|None:
    "Debian's Chromium (or $CHROMIUM), or None."
    for c in (os.environ.get('CHROMIUM'), 'chromium', 'chromium-browser', 'google-chrome'):
        if c and (p := shutil.which(c)): return p
    return None


class _Ids(HTMLParser):
    def __init__(self):
        super().__init__(); self.ids = set()
    def handle_starttag(self, tag, attrs):
        for k, v in attrs:
            if k == 'id' or (k == 'name' and tag == 'a'): self.ids.add(v)


@functools.lru_cache(maxsize=None)
def _ids(path:Path) -> frozenset:
    p = _Ids(); p.feed(path.read_text(encoding='utf-8', errors='replace')); return frozenset(p.ids)


def _serve(site:Path):
    "A quiet http.server on 127.0.0.1, on a free port, in a daemon thread."
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *a): pass
    srv = http.server.ThreadingHTTPServer(('127.0.0.1', 0), functools.partial(Quiet, directory=str(site)))
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv, f"http://127.0.0.1:{srv.server_address[1]}/"


# Run in the page once it has loaded and MathJax has finished: what a reader sees.
_PAGE_JS = r"""async () => {
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) await MathJax.startup.promise;
  if (document.fonts) await document.fonts.ready;
  const skip = 'script,style,noscript,template,pre,code,kbd,samp,textarea,mjx-container,mjx-assistive-mml,.highlight,.MathJax';
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const chunks = [];
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement;
    if (!el || el.closest(skip)) continue;
    const s = getComputedStyle(el);
    if (s.display === 'none' || s.visibility === 'hidden') continue;
    chunks.push(n.nodeValue);
  }
  const untypeset = [...document.querySelectorAll('.math, span.math, div.math')]
      .filter(e => !e.querySelector('mjx-container')).map(e => e.textContent.trim().slice(0, 80));
  const images = [...document.images].filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.getAttribute('src'));
  const links = [...document.querySelectorAll('a[href]')].map(a => a.getAttribute('href'));
  const h1 = document.querySelector('h1');
  return {text: chunks.join('\u0001'), untypeset, images, links, title: document.title.trim(),
          h1: h1 ? h1.textContent.trim() : ''};
}"""

# raw TeX a reader should never see; `$` pairs within one text node (money like "$3 and $4" is written \$ in prose)
_RAW_MATH = [re.compile(r'(?<![\\$\w])\$(?=\S)[^$\u0001\n]{1,200}?(?<=\S)\$(?!\w)'),
             re.compile(r'\$\$'), re.compile(r'\\\(|\\\)|\\\[|\\\]'),
             re.compile(r'\\(?:frac|dfrac|sum|prod|text|mathrm|mathbf|mathcal|begin|end|left|right|cdot|log|exp|'
                        r'alpha|beta|gamma|lambda|sigma|mu|le|ge|ne|in|sqrt|hat|bar|big|Big|mid|times|infty)(?![A-Za-z])')]


def check_page(page, url:str, rel:str, site:Path, base:str) -> list[str]:
    "Open one page and return its problems."
    probs = []
    page.goto(url, wait_until='load', timeout=60_000)
    info = page.evaluate(_PAGE_JS)
    if not info['title'] or info['title'].lower().startswith('<no title>'): probs.append('no <title>')
    if not info['h1'] and rel not in ('search.html', 'genindex.html', 'py-modindex.html'): probs.append('no <h1> heading')
    for rx in _RAW_MATH:
        for m in rx.finditer(info['text']):
            ctx = info['text'][max(0, m.start() - 40):m.end() + 40].replace('\u0001', ' ').replace('\n', ' ')
            probs.append(f"unrendered math {m.group(0)[:40]!r} in: ...{ctx}...")
            break
    for t in info['untypeset']: probs.append(f"math element not typeset by MathJax: {t!r}")
    for src in info['images']: probs.append(f"image did not load: {src}")
    for href in dict.fromkeys(info['links']):
        if href.startswith(('mailto:', 'javascript:', 'data:')): continue
        target = urljoin(url, href)
        parts = urlsplit(target)
        if PUBLISHED in target: probs.append(f"link to the published site (make it relative): {href}"); continue
        if not target.startswith(base): continue                          # external link: not followed, never requested
        path = unquote(parts.path[len(urlsplit(base).path):]) or 'index.html'
        f = site/path
        if f.is_dir(): f = f/'index.html'
        if not f.is_file(): probs.append(f"broken link: {href} (no {f.relative_to(site)})"); continue
        if parts.fragment and f.suffix == '.html' and unquote(parts.fragment) not in _ids(f):
            probs.append(f"broken link: {href} (no id {parts.fragment!r} in {f.relative_to(site)})")
    return probs


def check(site:Path, shots:Path|None=None, pages:list[str]|None=None, search:str|None='brevity penalty',
          chromium:str|None=None, verbose:bool=True) -> dict:
    "Check every page of `site`; returns {'problems': {page: [...]}, 'pages': n, 'shots': [...], 'seconds': s}."
    from playwright.sync_api import sync_playwright
    t0 = time.perf_counter()
    site = Path(site).resolve()
    chromium = chromium or find_chromium()
    if not chromium: raise RuntimeError("Chromium is not installed: apt-get install -y chromium")
    rels = pages or sorted(p.relative_to(site).as_posix() for p in site.rglob('*.html')
                           if not p.relative_to(site).as_posix().startswith('_'))
    if not rels: raise RuntimeError(f"no pages in {site}")
    srv, base = _serve(site)
    problems, shot_paths = {}, []
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS, headless=True)
            ctx = browser.new_context(viewport={'width': 1440, 'height': 900}, service_workers='block')
            current = {'rel': None}
            def add(msg): problems.setdefault(current['rel'], []).append(msg)
            def route(r):
                u = r.request.url
                if u.startswith(base) or u.startswith(('data:', 'blob:', 'about:')): return r.continue_()
                add(f"network request blocked: {u}"); return r.abort('blockedbyclient')
            ctx.route('**/*', route)
            page = ctx.new_page()
            page.on('console', lambda m: m.type == 'error' and add(f"console error: {m.text[:300]}"))
            page.on('pageerror', lambda e: add(f"JavaScript exception: {str(e)[:300]}"))
            page.on('response', lambda r: r.status >= 400 and r.url.startswith(base) and add(f"HTTP {r.status}: {r.url[len(base):]}"))
            page.on('requestfailed', lambda r: r.url.startswith(base) and add(f"request failed: {r.url[len(base):]} ({r.failure})"))
            for rel in rels:
                current['rel'] = rel
                try: probs = check_page(page, base + rel, rel, site, base)
                except Exception as e: probs = [f"could not be checked: {type(e).__name__}: {str(e).splitlines()[0][:200]}"]
                for p in probs: add(p)
                if shots is not None and rel in SHOTS:
                    shots.mkdir(parents=True, exist_ok=True)
                    out = shots/(Path(rel).stem + '.png')
                    page.screenshot(path=str(out), full_page=False)
                    shot_paths.append(str(out))
                if verbose: print(f"  {'FAIL' if rel in problems else 'ok  '} {rel}", flush=True)
            if search and (site/'search.html').exists():
                current['rel'] = f"search.html?q={search}"
                page.goto(base + 'search.html?q=' + search.replace(' ', '+'), wait_until='load')
                try: page.wait_for_selector('#search-results ul.search li', timeout=30_000)
                except Exception: add(f"the search for {search!r} found nothing")
                if verbose: print(f"  {'FAIL' if current['rel'] in problems else 'ok  '} {current['rel']}", flush=True)
            browser.close()
    finally:
        srv.shutdown(); srv.server_close()
    return {'problems': problems, 'pages': len(rels), 'shots': shot_paths, 'seconds': round(time.perf_counter() - t0, 1)}


def report(res:dict) -> str:
    lines = [f"check_site: {res['pages']} pages in {res['seconds']}s, "
             f"{sum(map(len, res['problems'].values()))} problems on {len(res['problems'])} pages"]
    for rel, probs in res['problems'].items():
        lines.append(f"  {rel}:"); lines += [f"    - {p}" for p in probs[:25]]
        if len(probs) > 25: lines.append(f"    ... and {len(probs) - 25} more")
    for s in res['shots']: lines.append(f"screenshot: {s}")
    return '\n'.join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('site', nargs='?', default=str(ROOT/'_site'))
    ap.add_argument('--shots', default=str(ROOT/'_site_shots'), help="screenshots folder ('' for none)")
    a = ap.parse_args(argv)
    res = check(Path(a.site), Path(a.shots) if a.shots else None)
    print(report(res))
    return 1 if res['problems'] else 0


if __name__ == '__main__': sys.exit(main())
