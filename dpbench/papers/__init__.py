"""The papers: one package per paper, everything of that paper in one folder.

::

    dpbench/papers/seed002/
        __init__.py     what the paper is; imports bounds.py (registers the paper's bounds)
        claims.toml     every claim of the paper and every check of its spec, one [[claim]] row each
        experiments/    the experiment files of its figures (``dpbench run seed002_fig4``)
        paper.toml      title, citation, intro; how each figure is drawn ([figures.KEY])
        checks/         experiment files of the report's own checks (runs the paper has no figure for)
        bounds.py       its theorems as :class:`verify.bounds.Bound` objects, registered with
                        :func:`verify.bounds.register`
        report.py       its measurements and report hooks (``MEASUREMENTS``, ``measure``, ``plan``,
                        ``figures``, ``sections``: :mod:`dpbench.reporting.paper`)
        cli.py          optional: commands of its own, ``register(subparsers)`` as every
                        ``dpbench.cli`` module (seed002's ``dpbench feasibility``); the command
                        line finds it in every installed paper (:func:`dpbench.cli.paper_commands`)

A folder of this package holding a ``claims.toml`` is a paper: :mod:`dpbench.plugins` finds it
by its folder (``paper_packages``, ``paper_folder``), with nothing to declare in ``pyproject.toml``;
a paper in a package of its own is found through the entry-point group ``dpbench.papers``.  The
application loads the papers (:func:`load`: the command line and every report's build do), and
each registers its bounds as it loads; the experiment runner lists the ``experiments/`` folders,
and ``dpbench report 002`` builds the paper by the path every paper takes, a user's folder too
(``dpbench report ./mypaper``, :mod:`dpbench.reporting.paper`).  The generic machinery (claim
kinds and the decision rule, measurements of regret runs, markdown, figures, the runner, the
bounds registry) lives in :mod:`dpbench.reporting`, :mod:`dpbench.experiments` and :mod:`verify`
and imports no paper.

Papers import none of each other (an import-linter contract, ``tests/lint_contracts.py``), except
a paper that says in its ``paper.toml`` which papers it builds on (``builds_on = ["seed000"]``):
seed 001 is the revised version of seed 000's paper (Ren et al.) and builds on its definitions
(bounds, curator checks, distribution-free experiments).
"""


def load() -> None:
    """Load every paper (each registers its bounds with :func:`verify.bounds.register`), once.

    Python code that asks :mod:`verify.bounds` or :mod:`verify.regret_fits` for the papers'
    bounds calls this first (the command line and the reports do)."""
    from ..plugins import load_papers
    load_papers()
