"""Tests of the papers, one folder each (tests/papers/seed<NNN>/), beside dpbench/papers/seed<NNN>/;
the helpers here read a rendered report."""
import json
import re

from dpbench.reporting.claims import Verdict, load_claims

VERDICTS = {v.value for v in Verdict}
#: the statuses verify.regret_fits computes for the per-run bound checks
BOUND_STATUSES = {"within", "outside", "inconclusive", "not applicable"}


def claim_rows(text: str) -> dict[str, str]:
    """id -> verdict cell of the claims table of a rendered report."""
    section = text.split("## Claims of the paper and their verdicts", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        if line.startswith("| ") and not line.startswith(("| id ", "|---")):
            cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
            rows[cells[0]] = cells[-1]
    return rows


def check_verdicts(path, seed):
    """Every claim of the seed's table is a row whose verdict is one of the four, in the
    markdown and in the JSON written beside it."""
    text = path.read_text()
    claims = load_claims(seed)
    rows = claim_rows(text)
    assert set(rows) == {c.id for c in claims}
    for cid, cell in rows.items():
        word = re.match(r"\*\*([a-z ]+)\*\*", cell)
        assert word and word.group(1) in VERDICTS, (cid, cell)
    data = json.loads(path.with_name(f"seed{seed}_claims.json").read_text())
    assert {r["id"] for r in data} == set(rows) and {r["verdict"] for r in data} <= VERDICTS
    for r in data:
        if r["verdict"] in (Verdict.NOT_CHECKED.value, Verdict.UNOBSERVABLE.value):
            assert r["detail"], r                                   # always with the reason
    return text, data
