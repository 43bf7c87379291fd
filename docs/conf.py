# Sphinx configuration for the offline docs site (`python tools/build_docs.py`).
# The sources are not here: tools/build_docs.py stages nbdev's processed notebooks (`_proc/`) into
# `_site_build/src/` and runs Sphinx with this folder as its configuration directory. Quarto users keep
# nbdev's own path (`nbdev-docs`, configured by nbs/_quarto.yml and nbs/nbdev.yml); this file does not touch it.
import os, sys, tomllib
from pathlib import Path

_root = Path(__file__).resolve().parents[1]
_pyproject = tomllib.loads((_root/'pyproject.toml').read_text())
_nbdev = _pyproject['tool']['nbdev']
_urls = _pyproject['project']['urls']

project = _nbdev.get('title', _pyproject['project']['name'])
author = 'cah_metrics developers'
copyright = 'cah_metrics developers, Apache-2.0'
sys.path.insert(0, str(_root))
try:
    from cah_metrics import __version__ as release
except ImportError: release = ''
version = release

extensions = ['myst_nb']
root_doc = 'index'
exclude_patterns = ['_build', '**.ipynb_checkpoints']

# The notebooks carry their outputs, and nbdev's processing has already run the show_doc cells: never execute.
nb_execution_mode = 'off'
nb_merge_streams = True
nb_render_markdown_format = 'myst'    # show_doc's markdown outputs may hold math too
myst_enable_extensions = ['dollarmath', 'amsmath', 'attrs_block', 'attrs_inline', 'colon_fence', 'html_image']
myst_dmath_allow_digits = False       # "$3.50 or $4" is money, not math (as in Quarto/pandoc)
# Links are written as nbdev/Quarto writes them (`bleu.html#bleu_stats_array`); the staged pages keep those
# file names and anchors, so the links are kept verbatim and the browser check verifies every one.
myst_all_links_external = True

# Math without a CDN: MathJax 3 from the django-static-mathjax wheel (a dev dependency), copied by
# tools/build_docs.py into `_site_build/static/mathjax/` and from there into the site's `_static/mathjax/`;
# Sphinx loads it only on pages with math.
mathjax_path = 'mathjax/tex-chtml.js'

html_theme = 'furo'
html_title = project
html_short_title = project
# docs/_static (our CSS) and the builder's staged static folder (MathJax), both copied into the site's _static/
html_static_path = ['_static'] + [str(p) for p in [_root/'_site_build'/'static'] if p.is_dir()]
html_css_files = ['cah_site.css']
html_copy_source = False              # no _sources/*.ipynb.txt copies: the notebooks live in the repository
html_show_sourcelink = False
html_last_updated_fmt = None
html_baseurl = os.environ.get('DOCS_BASE_URL') or _urls.get('Documentation', '')   # a fork's Pages address in CI
html_theme_options = {'navigation_with_keys': True}
highlight_language = 'text'          # a fence without a language is shown as it is (code cells are Python)
pygments_style = 'sphinx'
pygments_dark_style = 'monokai'
# show_doc writes `###` entries straight under a page's `#` title, as Quarto allows
suppress_warnings = ['myst.header']
