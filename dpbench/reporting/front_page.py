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

from .claims import CATEGORIES, RULE, TESTS, ClaimResult, Verdict, counts, location, scope_text
from .claims.model import PLACE_ORDER

#: at most this many characters of a claim's statement or cause on the front page
SHORT = 110
SMOKE_CAUSE = "smoke build: quick-mode sizes decide nothing"


# ------------------------------------------------------------------ smoke builds
def smoke(results: Sequence[ClaimResult]) -> list[ClaimResult]:
    """The rows of a ``--quick`` build: a verdict decided by a random comparison becomes
    *inconclusive* (the cause says why, the detail keeps what the numbers showed)."""
    decisive = (Verdict.REPRODUCED, Verdict.CONTRADICTED, Verdict.DEPENDS, Verdict.CONSISTENT)
    out = []
    for r in results:
        if r.verdict in decisive and any(getattr(d.comparison, "random", True) for d in r.decisions):
            readings = tuple(dataclasses.replace(
                x, verdict=Verdict.INCONCLUSIVE, cause=SMOKE_CAUSE,
                detail=f"smoke build (--quick): at these sizes the evidence read '{x.verdict.value}', which "
                       f"decides nothing; {x.detail}") for x in r.readings)
            r = dataclasses.replace(r, readings=readings, verdict=Verdict.INCONCLUSIVE, cause=SMOKE_CAUSE)
        out.append(r)
    return out


# ------------------------------------------------------------------ where in the paper
def _location_key(name: str):
    kind, _, number = name.partition(" ")
    order = PLACE_ORDER.index(kind) if kind in PLACE_ORDER else len(PLACE_ORDER)
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


def _count_cells(rows) -> list[str]:
    c = counts(rows)
    return [str(sum(c.values()))] + [str(c[v]) if c[v] else "" for v in Verdict]


SECTION_ANCHOR = {cat: f"category-{cat}" for cat in CATEGORIES}
#: at most this many lines of findings open a front page
MAX_FINDINGS = 10


# ------------------------------------------------------------------ findings
def _ids(rows, limit: int = 4) -> str:
    ids = [f"[{r.claim.id}](#{anchor(r.claim.id)})" for r in rows]
    return ", ".join(ids[:limit]) + (f" and {len(ids) - limit} more" if len(ids) > limit else "")


def _groups(rows) -> dict[str, list[ClaimResult]]:
    """Rows grouped as one finding: the same figure or theorem and the same test (one comparison
    under several modes or algorithms is one finding with its sub-results)."""
    out: dict[str, list[ClaimResult]] = {}
    for r in rows:
        out.setdefault(f"{location(r.claim.where)} ({r.claim.test})", []).append(r)
    return out


def findings(results: Sequence[ClaimResult], sizes: Sequence[str] = (), choices=None,
             extra: Sequence[str] = ()) -> list[str]:
    """At most :data:`MAX_FINDINGS` lines: what held, what failed and under which reading, what the
    readings decide, the paper's own findings (``extra``: its report's ``findings`` hook, computed
    from the runs), what is open and which way it leans, the horizons and repetitions against the
    paper's, and the caveats."""
    paper = [r for r in results if r.category == "paper"]
    if not paper:
        return []
    by = {v: [r for r in paper if r.verdict is v] for v in Verdict}
    empirical = [r for r in by[Verdict.REPRODUCED] if not r.exact]
    exact = [r for r in by[Verdict.REPRODUCED] if r.exact]
    from_runs = sum(1 for r in paper if not r.exact)
    lines = [f"- **Held:** {len(empirical)} of the paper's {from_runs} claims decided from runs reproduced under "
             f"every plausible reading" + (f" ({_ids(empirical, 3)})" if empirical else "")
             + (f"; {len(exact)} of {len(paper) - from_runs} exact-arithmetic claims hold" if exact else "")
             + (f"; {len(by[Verdict.CONSISTENT])} consistent only (the check cannot fail)"
                if by[Verdict.CONSISTENT] else "") + "."]
    failed = _groups(by[Verdict.CONTRADICTED])
    if failed:
        parts = [f"{name}: {_ids(rows, 3)}" for name, rows in failed.items()]
        lines.append(f"- **Contradicted under every plausible reading:** {len(by[Verdict.CONTRADICTED])} "
                     f"claims in {len(failed)} findings: " + "; ".join(parts[:4])
                     + (f"; and {len(parts) - 4} more" if len(parts) > 4 else "") + ".")
    else:
        lines.append("- **Contradicted under every plausible reading:** none.")
    if by[Verdict.DEPENDS]:
        shown = [f"{r.claim.id} ({short(r.cause, 90)})" for r in by[Verdict.DEPENDS][:2]]
        lines.append(f"- **Depends on the reading:** {len(by[Verdict.DEPENDS])} claims, e.g. " + "; ".join(shown)
                     + ".")
    lines += [f"- {line}" for line in extra]
    open_ = by[Verdict.INCONCLUSIVE]
    if open_:
        leans = {}
        for r in open_:
            lean = next((x.lean for x in r.readings if x.lean), "")
            leans[lean or "no lean"] = leans.get(lean or "no lean", 0) + 1
        lines.append(f"- **Inconclusive:** {len(open_)} claims (" + ", ".join(f"{n} {k}" for k, n in leans.items())
                     + "); each row says what would decide it.")
    if by[Verdict.UNOBSERVABLE]:
        lines.append(f"- **Unobservable at the run's horizon:** {len(by[Verdict.UNOBSERVABLE])} claims "
                     f"({_ids(by[Verdict.UNOBSERVABLE], 3)}); each row gives the horizon it needs.")
    if by[Verdict.NOT_CHECKED]:
        lines.append(f"- **Not checked:** {len(by[Verdict.NOT_CHECKED])} claims, each with its reason.")
    lines += [f"- {s}" for s in sizes][:2]
    if choices:
        open_choices = ", ".join(f"{c.id} ({len(c.plausible)} reading{'' if len(c.plausible) == 1 else 's'})"
                                 for c in choices.values())
        lines.append(f"- **Readings:** the paper leaves open {open_choices}; every claim that depends on them is "
                     "decided under each ([readings](#readings)).")
    return lines[:MAX_FINDINGS]


def render(report, results: Sequence[ClaimResult], table: Path, *, sizes: Sequence[str] = (),
           choices=None, extra: Sequence[str] = ()) -> list[str]:
    """The front page's markdown lines (see the module docstring)."""
    present = [cat for cat in CATEGORIES if any(r.category == cat for r in results)]
    lines = ['<a id="front-page"></a>', ""]
    found = findings(results, sizes, choices, extra)
    if found:
        lines += ["## Findings", "", *found, ""]
    lines += ["## At a glance", ""]
    lines += ["| rows | total | " + " | ".join(v.value for v in Verdict) + " |",
              "|---|" + "---|" * (len(Verdict) + 1)]
    for cat in present:
        rows = [r for r in results if r.category == cat]
        if cat == "paper":
            for label, part in (("from runs", [r for r in rows if not r.exact]),
                                ("exact arithmetic", [r for r in rows if r.exact])):
                if part:
                    lines.append(f"| [{CATEGORIES[cat]}](#{SECTION_ANCHOR[cat]}), {label} | "
                                 + " | ".join(_count_cells(part)) + " |")
            continue
        lines.append(f"| [{CATEGORIES[cat]}](#{SECTION_ANCHOR[cat]}) | " + " | ".join(_count_cells(rows)) + " |")
    lines.append("")
    alpha = results[0].alpha if results else 0.0
    fams = {r.family_name for r in results if r.family}
    lines += [f"Every verdict is computed by one rule ([the decision rule](#decision-rule)): each claim under every "
              f"plausible reading of what the paper leaves open, its comparisons of random evidence in the family of "
              f"its figure or theorem ({len(fams)} families) at family-wise alpha = {alpha:g}. *Reproduced* needs "
              "evidence for the claim under every reading, *contradicted* evidence against it under every reading; a "
              "row that is neither says what would decide it. Claims table: "
              f"`{table}`; every measurement in [the claims in detail](#claims-in-detail) and in "
              f"`{report.name}_claims.json`.", ""]
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
def readings_section(report, choices) -> None:
    """What the paper leaves open: every choice, its question and source, its readings (plausible
    ones decide the claims that depend on them; pruned ones with the reason)."""
    if not choices:
        return
    report.lines += ['<a id="readings"></a>', ""]
    report.section("Readings: what the paper leaves open")
    report.text("Each choice below is something the paper leaves open that a reproduction must choose. Every "
                "claim that depends on a choice is decided under each of its plausible readings (under every "
                "combination, for a claim that depends on several); pruned readings are listed with the reason.")
    for c in choices.values():
        report.lines += [f"**{c.id}**: {c.question} (source: {c.source})", ""]
        report.bullets([f"`{r.id}`: {r.text}" + (" (pruned)" if not r.plausible else "") + f": {r.why}"
                        for r in c.readings])


def details(report, results: Sequence[ClaimResult], table: Path) -> None:
    """Every row in full, one entry per claim under its anchor: where, statement, what was tested,
    the sizes, the measurement and every comparison the rule decided, per reading."""
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
            cl = r.claim
            test = TESTS[cl.test]
            figs = _figure_links(_figures_of(report, cl.id))
            head = (f'<a id="{anchor(cl.id)}"></a>**{cl.id}** · {cl.where} · {_verdict_cell(r)}'
                    + (f" ({_cause(r)})" if r.verdict is not Verdict.REPRODUCED else "")
                    + (f" · {figs}" if figs else "") + " · [front page](#front-page)")
            items = []
            for x in r.readings:
                o, c = x.outcome, x.claim
                size = ", ".join(s for s in (f"T = {fmt_t(o.horizon)}" if o.horizon else "",
                                             f"R = {o.reps}" if o.reps else "",
                                             f"seed {o.seed}" if o.seed is not None else "") if s)
                tested = "; ".join(s for s in (
                    f"quantity: {c.quantity or test.quantity(c)}" if (c.quantity or test.quantity(c)) else "",
                    f"expected: {test.expected(c)}" if test.expected(c) else "",
                    f"test: {test.method(c)}", size) if s)
                prefix = "" if r.as_stated else f"under {x.reading}: **{x.verdict.value}**; "
                items.append(f"{prefix}tested: {tested}")
                if o.statistic:
                    items.append(f"{'' if r.as_stated else '  '}measured: {o.statistic}")
                if x.detail:
                    items.append(f"{'' if r.as_stated else '  '}decided: {x.detail}")
            if r.pruned:
                items.append("readings left out: " + "; ".join(f"{p.choice}: {p.text} ({p.why})" for p in r.pruned))
            family = f"family: {r.family_name} (m = {r.family})" if r.family else ""
            for extra in (family, f"margin: {cl.margin}" if cl.margin else "",
                          f"cannot fail: {cl.cannot_fail}" if cl.cannot_fail else "",
                          f"note: {cl.note}" if cl.note else ""):
                if extra:
                    items.append(extra)
            report.lines += [head, "", cl.statement, ""]
            report.bullets([_cell(i) for i in items])
