"""Tests of the papers, one folder each (tests/papers/seed<NNN>/), beside dpbench/papers/seed<NNN>/;
the helpers here read a rendered report."""
import json
import re

from dpbench.reporting.claims import Verdict, load_claims

VERDICTS = {v.value for v in Verdict}
#: the statuses verify.regret_fits computes for the per-run bound checks
BOUND_STATUSES = {"within", "outside", "inconclusive", "not applicable"}


def claim_rows(text: str) -> dict[str, str]:
    """id -> verdict cell of the front page of a rendered report (every category's short table)."""
    front = text.split("## Figures", 1)[0]
    rows = {}
    for line in front.splitlines():
        m = re.match(r"\| \[([^\]]+)\]\(#claim-[^)]*\) \|", line)
        if m:
            cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
            rows[m.group(1)] = cells[2]
    return rows


def check_verdicts(path, seed):
    """Every claim of the seed's table is a row of the front page whose verdict is one of the seven,
    with a link to its entry in the details, and in the JSON written beside it, with its category;
    a row that is not reproduced says why in one line."""
    text = path.read_text()
    claims = load_claims(f"{seed}")
    rows = claim_rows(text)
    assert set(rows) == {c.id for c in claims}
    for cid, cell in rows.items():
        word = re.match(r"\*\*([a-z ()]+)\*\*", cell)
        assert word and word.group(1) in VERDICTS, (cid, cell)
        assert f'<a id="claim-{cid}"></a>' in text, cid
    data = json.loads(path.with_name(f"seed{seed}_claims.json").read_text())
    assert {r["id"] for r in data} == set(rows) and {r["verdict"] for r in data} <= VERDICTS
    categories = {c.id: c.category for c in claims}
    for r in data:
        assert r["category"] == categories[r["id"]]
        if r["verdict"] != Verdict.REPRODUCED.value:
            assert r["detail"] and r["cause"], r                    # always with the reason, in one line
        assert r["readings"] and all(x["verdict"] in VERDICTS for x in r["readings"]), r["id"]
        assert isinstance(r["can_contradict"], bool)
    assert "**Decision rule.**" in text and "The families of this report are its claim groups" in text
    assert text.index("## Findings") < text.index("## At a glance")
    return text, data
