"""Sphinx configuration of the aspectattn documentation.

Build (offline: no intersphinx, no fonts or scripts fetched)::

    pip install -e ".[docs]"
    ASPECTATTN_DATA=../shared/data \\
        python -m sphinx -W --keep-going -b html docs docs/_build/html

The command-line reference is generated from the parsers at build time
(:func:`write_cli_reference`), the API pages from the docstrings (autosummary,
numpydoc), the gallery from ``examples/`` (sphinx-gallery: the ``plot_*.py``
scripts run, the others are shown as they are).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE / "_ext"))

import aspectattn  # noqa: E402

project = "aspectattn"
author = "the aspectattn developers"
copyright = "2026, the aspectattn developers"
release = version = aspectattn.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "numpydoc",
    "myst_parser",
    "sphinx_gallery.gen_gallery",
    "generated_pages",
]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build", "auto_examples/*.ipynb", "**/*.py.md5", "**/*.zip"]
templates_path = ["_templates"]

# --------------------------------------------------------------------- offline
# No cross-project links (intersphinx fetches inventories) and no MathJax (a CDN
# script): formulas are written in Unicode.
html_theme = "pydata_sphinx_theme"
html_title = f"aspectattn {release}"
html_theme_options = {
    "navigation_with_keys": False,
    "header_links_before_dropdown": 4,
    "show_toc_level": 2,
    "navbar_end": ["navbar-icon-links"],
    "footer_start": ["copyright"],
    "footer_end": [],
    "secondary_sidebar_items": ["page-toc"],
}
html_context = {"default_mode": "light"}
html_static_path = ["_static"]
html_favicon = "_static/favicon.svg"  # (else the browser asks for /favicon.ico)
html_copy_source = False
html_show_sourcelink = False

# ----------------------------------------------------------------- API pages
autosummary_generate = True
autodoc_default_options = {"members": True, "inherited-members": False}
autodoc_typehints = "none"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
myst_heading_anchors = 3
myst_enable_extensions = ["colon_fence"]
suppress_warnings = ["config.cache"]  # sphinx-gallery's callables in the config

# ------------------------------------------------------------------- gallery
os.environ.setdefault("MPLBACKEND", "Agg")
# The gallery's scripts run in examples/: a data folder given relative to the
# repository root (as every command of the README gives it) is made absolute.
for name in ("ASPECTATTN_DATA", "NLTK_DATA"):
    if os.environ.get(name):
        os.environ[name] = str((ROOT / os.environ[name]).resolve())
sphinx_gallery_conf = {
    "examples_dirs": str(ROOT / "examples"),
    "gallery_dirs": "auto_examples",
    # run the plot_* scripts (small data, seconds); show the others as they are
    "filename_pattern": r"/plot_",
    "ignore_pattern": r"_common\.py",
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
    "show_memory": False,
    "show_signature": False,
    "line_numbers": False,
    "reset_modules": ("matplotlib",),
    "abort_on_example_error": True,
}
