"""import-linter contract types of dpbench that the stock ones cannot state (``contract_types`` of
``[tool.importlinter]`` in pyproject.toml; .ci/lint runs them).

``papers_independence``: the papers (every package of ``dpbench.papers``) import none of each
other, except that a paper may import the papers its ``paper.toml`` says it builds on
(``builds_on = ["seed000"]``).  The exception lives in the paper's folder, so pyproject.toml names
no paper and adding one edits nothing there.
"""
from __future__ import annotations

import tomllib
from pathlib import Path

from importlinter.application import contract_utils
from importlinter.application.contract_utils import AlertLevel
from importlinter.contracts.independence import IndependenceContract
from importlinter.domain import fields

PAPERS = Path(__file__).resolve().parents[1] / "dpbench" / "papers"


def builds_on() -> dict[str, list[str]]:
    """Paper -> the papers its paper.toml says it builds on."""
    out = {}
    for folder in sorted(PAPERS.iterdir()):
        meta = folder / "paper.toml"
        if folder.is_dir() and meta.is_file():
            out[folder.name] = list(tomllib.loads(meta.read_text()).get("builds_on", []))
    return out


class PapersIndependence(IndependenceContract):
    """An independence contract over ``modules`` whose ignored imports are the papers' own
    ``builds_on`` declarations."""

    type_name = "papers_independence"

    def check(self, graph, verbose):
        parse = fields.ImportExpressionField().parse
        declared = {parse(f"dpbench.papers.{paper}.** -> dpbench.papers.{other}.**")
                    for paper, others in builds_on().items() for other in others}
        declared |= {parse(f"dpbench.papers.{paper}.** -> dpbench.papers.{other}")
                     for paper, others in builds_on().items() for other in others}
        contract_utils.remove_ignored_imports_and_report(graph=graph, ignore_imports=declared,
                                                         unmatched_alerting=AlertLevel.NONE)
        return super().check(graph, verbose)
