"""What a reader sees first: a report's front page and its claims in detail.

The front page (:func:`render`) counts the outcomes per category (the paper's own claims, spec
checks, errata, ambiguity-register entries, negative controls), then lists the paper's claims
grouped by the figure or theorem they are about (:func:`location`), one short line each: the
claim, its verdict, a one-line cause where it is not reproduced, and links to its figure and to
its entry in the details.  The other categories follow, one short table each.  Every long
number (the measurement, every comparison the rule decided) is in the claim's entry of
:func:`details` and in ``<paper>_claims.json``.

A smoke build (``--quick``) decides nothing from its runs: :func:`smoke` makes every row that a
random comparison decided *inconclusive*, saying so; exact computations keep their verdict.
"""
from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from pathlib import Path

from .claims import CATEGORIES, RULE, TESTS, ClaimResult, Verdict, counts, scope_text

#: at most this many characters of a claim's statement or cause on the front page
SHORT = 110
SMOKE_CAUSE = "smoke build: quick-mode sizes decide nothing"


# ------------------------------------------------------------------ smoke builds
def smoke(results: Sequence[ClaimResult]) -> list[ClaimResult]:
    """The rows of a ``--quick`` build: a verdict decided by a random comparison becomes
    *inconclusive* (the cause says why, the detail keeps what the numbers showed)."""
    out = []
    for r in results:
        decisive = r.verdict in (Verdict.REPRODUCED, Verdict.CONTRADICTED)
        if decisive and any(getattr(d.comparison, "random", True) for d in r.decisions):
            r = dataclasses.replace(r, verdict=Verdict.INCONCLUSIVE, cause=SMOKE_CAUSE,
                                    detail=f"smoke build (--quick): at these sizes the evidence read "
                                           f"'{r.verdict.value}', which decides nothing; {r.detail}")
        out.append(r)
    return out


# ------------------------------------------------------------------ where in the paper
_FIGURE = re.compile(r"\bFig(?:ure)?s?\.?\s*(\d+)")
_PLACES = (("Table", r"\bTable\s*(\d+)"), ("Theorem", r"\b(?:Theorem|Thm\.?)\s*(\d+(?:\.\d+)?)"),
           ("Lemma", r"\bLemma\s*(\d+)"), ("Corollary", r"\b(?:Corollary|Cor\.)\s*(\d+)"),
           ("Proposition", r"\bProposition\s*(\d+)"), ("Remark", r"\bRemark\s*(\d+)"),
           ("Algorithm", r"\b(?:Algorithm|Alg\.)\s*(\d+)"), ("Sec.", r"\b(?:Sec\.|Section)\s*(\d+(?:\.\d+)*)"),
           ("App.", r"\b(?:App\.|Appendix)\s*([A-Z]\b|\d+)"))
_ORDER = ["Fig.", *[kind for kind, _ in _PLACES], "Other"]


def location(where: str) -> str:
    """The figure or theorem a claim's ``where`` names first: ``"Sec. 8, Fig. 4(a)"`` -> ``"Fig. 4"``,
    ``"v000 Thm 6 Remark i"`` -> ``"Theorem 6"``; ``"Other"`` if none."""
    m = _FIGURE.search(where)
    if m:
        return f"Fig. {m.group(1)}"
    for kind, pattern in _PLACES:
        m = re.search(pattern, where)
        if m:
            return f"{kind} {m.group(1)}"
    return "Other"


def _location_key(name: str):
    kind, _, number = name.partition(" ")
    order = _ORDER.index(kind) if kind in _ORDER else len(_ORDER)
    parts = [int(p) if p.isdigit() else p for p in re.split(r"[.]", number) if p]
    return order, [(0, p) if isinstance(p, int) else (1, p) for p in parts]


# ------------------------------------------------------------------ short cells
def short(text: str, limit: int = SHORT) -> str:
    text = " ".join(str(text).split())
    if len(text) <= limit:
        return text
    cut = text[:limit - 1].rsplit(" ", 1)[0].rstrip(",;:")
    return cut + "…"


def anchor(claim_id: str) -> str:
    return "claim-" + re.sub(r"[^A-Za-z0-9_.-]", "-", claim_id)


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _figures_of(report, claim_id: str) -> list:
    return [f for f in report.figure_refs if claim_id in f.claims]


def _figure_links(refs) -> str:
    """Links to figures, named by the paper's figure ("Fig. 4"; with the figure's own name when
    two share one: "Fig. 6 (fig6_1e6)")."""
    unique = list({f.anchor: f for f in refs}.values())
    labels = [f.paper_figure or f.name for f in unique]
    out = []
    for f, label in zip(unique, labels):
        if labels.count(label) > 1 and label != f.name:
            label = f"{label} ({f.name})"
        out.append(f"[{label}](#{f.anchor})")
    return " ".join(out)


def _verdict_cell(r: ClaimResult) -> str:
    return f"**{r.verdict.value}**"


def _cause(r: ClaimResult) -> str:
    """Why a row is not reproduced, in one line (with the claim's note, e.g. a reconstructed
    baseline, where it fits)."""
    if r.verdict is Verdict.REPRODUCED:
        return ""
    against = [d.text for d in r.decisions if d.verdict is Verdict.CONTRADICTED]
    text = compact_runs(r.claim, against[0] if r.verdict is Verdict.CONTRADICTED and against else
                        (r.cause or r.detail))
    text = text.replace(" (difference of means)", "")
    if r.claim.note and len(text) + len(r.claim.note) < SHORT:
        text += f" ({r.claim.note})"
    return short(text, SHORT)


def compact_runs(claim, text: str) -> str:
    """``text`` with the claim's run keys ``"(c) Instance 2, (eps, delta) = (1, 0.01) / DP-SE"``
    written ``"DP-SE (c)"`` (the panel's letter, or the whole panel when it has none)."""
    from .references import run_references
    keys = {ref.run for ref in run_references(claim) if ref.run and " / " in ref.run}
    for key in sorted(keys, key=len, reverse=True):
        panel, label = key.rsplit(" / ", 1)
        m = re.match(r"\([a-z]\)", panel)
        text = text.replace(key, f"{label} {m.group(0) if m else '[' + panel + ']'}")
    return text


def _rows(report, results) -> list[str]:
    lines = ["| claim | statement | verdict | why not reproduced | figure |", "|---|---|---|---|---|"]
    for r in results:
        lines.append("| " + " | ".join(_cell(c) for c in (
            f"[{r.claim.id}](#{anchor(r.claim.id)})", short(r.claim.statement), _verdict_cell(r), _cause(r),
            _figure_links(_figures_of(report, r.claim.id)))) + " |")
    return lines + [""]


def tally(results: Sequence[ClaimResult]) -> str:
    """``"12: 9 reproduced, 3 inconclusive"`` (outcomes with no row left out)."""
    c = counts(results)
    return f"{sum(c.values())}: " + ", ".join(f"{n} {v.value}" for v, n in c.items() if n)


def _count_cells(results, category) -> list[str]:
    c = counts(results, category)
    return [str(sum(c.values()))] + [str(c[v]) if c[v] else "" for v in Verdict]


SECTION_ANCHOR = {cat: f"category-{cat}" for cat in CATEGORIES}


def render(report, results: Sequence[ClaimResult], table: Path) -> list[str]:
    """The front page's markdown lines (see the module docstring)."""
    present = [cat for cat in CATEGORIES if any(r.category == cat for r in results)]
    lines = ['<a id="front-page"></a>', "", "## At a glance", ""]
    lines += ["| rows | total | " + " | ".join(v.value for v in Verdict) + " |",
              "|---|" + "---|" * (len(Verdict) + 1)]
    for cat in present:
        lines.append(f"| [{CATEGORIES[cat]}](#{SECTION_ANCHOR[cat]}) | " + " | ".join(_count_cells(results, cat))
                     + " |")
    lines.append("")
    family = results[0].family if results else 0
    alpha = results[0].alpha if results else 0.0
    lines += [f"Every verdict is computed by one rule ([the decision rule](#decision-rule)): a family of "
              f"m = {family} comparisons of random evidence at family-wise alpha = {alpha:g}. *Reproduced* needs "
              "evidence for the claim, *contradicted* evidence against it; a row that is neither says what would "
              f"decide it. Claims table: `{table}`; every measurement in [the claims in detail](#claims-in-detail) "
              f"and in `{report.name}_claims.json`.", ""]
    paper = [r for r in results if r.category == "paper"]
    if paper:
        lines += [f'<a id="{SECTION_ANCHOR["paper"]}"></a>', "",
                  f"## The paper's claims ({tally(paper)})", ""]
        groups: dict[str, list[ClaimResult]] = {}
        for r in paper:
            groups.setdefault(location(r.claim.where), []).append(r)
        for name in sorted(groups, key=_location_key):
            figs = [f for f in report.figure_refs if f.paper_figure == name]
            if not figs:
                figs = [f for r in groups[name] for f in _figures_of(report, r.claim.id)]
            link = _figure_links(figs)
            lines += [f"### {name} ({tally(groups[name])})" + (f" · {link}" if link else ""), ""]
            lines += _rows(report, groups[name])
    for cat in present:
        if cat == "paper":
            continue
        rows = [r for r in results if r.category == cat]
        lines += [f'<a id="{SECTION_ANCHOR[cat]}"></a>', "",
                  f"## {CATEGORIES[cat][0].upper()}{CATEGORIES[cat][1:]} ({tally(rows)})", ""]
        lines += _rows(report, rows)
    return lines


# ------------------------------------------------------------------ details
def details(report, results: Sequence[ClaimResult], table: Path) -> None:
    """Every row in full, one entry per claim under its anchor: where, statement, what was tested,
    the sizes, the measurement and every comparison the rule decided."""
    from .markdown import fmt_t
    report.lines += ['<a id="claims-in-detail"></a>', ""]
    report.section("Claims in detail")
    report.lines += ['<a id="decision-rule"></a>', ""]
    report.text(RULE, scope_text(results),
                "Counts: " + "; ".join(f"{CATEGORIES[cat]}: {tally([r for r in results if r.category == cat])}"
                                        for cat in CATEGORIES if any(r.category == cat for r in results))
                + f". Claims table: `{table}`.")
    for cat, name in CATEGORIES.items():
        rows = [r for r in results if r.category == cat]
        if not rows:
            continue
        report.section(f"{name[0].upper()}{name[1:]}", 3)
        for r in rows:
            cl, o = r.claim, r.outcome
            test = TESTS[cl.test]
            size = ", ".join(x for x in (f"T = {fmt_t(o.horizon)}" if o.horizon else "",
                                          f"R = {o.reps}" if o.reps else "",
                                          f"seed {o.seed}" if o.seed is not None else "") if x)
            figs = _figure_links(_figures_of(report, cl.id))
            head = (f'<a id="{anchor(cl.id)}"></a>**{cl.id}** · {cl.where} · {_verdict_cell(r)}'
                    + (f" ({_cause(r)})" if r.verdict is not Verdict.REPRODUCED else "")
                    + (f" · {figs}" if figs else "") + " · [front page](#front-page)")
            tested = "; ".join(x for x in (
                f"quantity: {cl.quantity or test.quantity(cl)}" if (cl.quantity or test.quantity(cl)) else "",
                f"expected: {test.expected(cl)}" if test.expected(cl) else "",
                f"test: {test.method(cl)}", size) if x)
            items = [f"tested: {tested}"]
            if o.statistic:
                items.append(f"measured: {o.statistic}")
            if r.detail:
                items.append(f"decided: {r.detail}")
            if cl.note:
                items.append(f"note: {cl.note}")
            report.lines += [head, "", cl.statement, ""]
            report.bullets([_cell(i) for i in items])
