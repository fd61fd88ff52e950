"""The papers: one package per paper, everything of that paper in one folder.

::

    dpbench/papers/seed002/
        __init__.py     what the paper is; imports bounds.py (registers the paper's bounds)
        claims.toml     every claim of the paper and every check of its spec, one [[claim]] row each
        experiments/    the experiment files of its figures (``dpbench run seed002_fig4``)
        checks/         experiment files of the report's own checks (runs the paper has no figure for)
        bounds.py       its theorems as :class:`verify.bounds.Bound` objects, registered with
                        :func:`verify.bounds.register`
        report.py       its measurements and the report assembly: ``write(ctx)`` builds
                        ``reports/seed002.md`` (``dpbench report 002``)

A paper is found through the entry-point group ``dpbench.papers`` of ``pyproject.toml``
(``seed002 = "dpbench.papers.seed002"``), read by :mod:`dpbench.plugins` (``paper_packages``,
``paper_folder``, ``load_papers``): the bounds registry imports every paper package the first
time a bound is looked up, the experiment runner lists the ``experiments/`` folders, the report
builder imports ``report.py``.  The generic machinery (claim kinds and the decision rule,
measurements of regret runs, markdown, figures, the runner, the bounds registry) lives in
:mod:`dpbench.reporting`, :mod:`dpbench.experiments` and :mod:`verify` and imports no paper.

Papers import none of each other (an import-linter contract), with one exception: seed 001 is
the revised version of seed 000's paper (Ren et al.) and builds on its definitions
(``dpbench.papers.seed000``: bounds, curator checks, distribution-free experiments).
"""
