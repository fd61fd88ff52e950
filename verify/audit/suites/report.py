"""The known-answer suites as markdown: reports/audit_benchmark.md and reports/audit_planted.md.

``dpbench audit-suite`` writes :func:`write_suite` (the DP-Sniper rows, their shortfalls, the
catalog and negative controls, the planted bugs) and ``dpbench audit-suite --planted-only``
:func:`write_planted`.  Every table gives both layers of each audit (law, floating point):
which layer caught a bug, and which passed.
"""
from __future__ import annotations

import math
import os
import time
from pathlib import Path
from typing import NamedTuple

import numpy as np

from .. import statistics as st
from ..engine import audit
from ..layers import FLOATING_POINT, LAW, TITLES
from ..stages.validate import SELECT_MAX, SELECT_MIN
from . import floor as fl
from .catalog import audit_catalog
from .planted import planted_bugs
from .sniper import SUITE_N, cases, published, run_cases

TOOLS = [("ddsearch_logreg", "DD-Search LR"), ("ddsearch_mlp", "DD-Search MLP"),
         ("statdp_run1", "StatDP 1"), ("statdp_run2", "StatDP 2")]


def layer_cell(layer, eps: float) -> str:
    """One layer of a result, audited against the claim ``eps``, in a table cell: verdict and
    bound, or "not tested".  A layer that holds with a bound above the claim says why (the
    floating point's event exceeds the claim only as much as the magnitude of the outputs: the
    law's doing)."""
    if layer.status == "not tested":
        return "not tested"
    if layer.violated:
        return f"**VIOLATED** {layer.eps_lower_bound:.3f}" + (" (capped by n)" if layer.unbounded else "")
    if layer.eps_lower_bound > eps and layer.layer == FLOATING_POINT:
        return f"holds ({layer.eps_lower_bound:.3f}: the law's excess, not the arithmetic's)"
    return f"holds ({layer.eps_lower_bound:.3f})"


def caught_by(res) -> str:
    """Which layers caught a violation ("law", "floating point", "law + floating point", "**none**")."""
    names = [TITLES[lay.layer] for lay in res.layers if lay.violated]
    return " + ".join(names) if names else "**none**"


def report(rows, n: int, seconds: tuple, command: str, controls=None, planted=None, seed: int = 0) -> str:
    """The markdown report: the suite's rows, their shortfalls, the dpbench catalog and
    negative controls, and the planted bug classes.  ``seconds``: (suite wall, suite CPU,
    controls wall, controls CPU, planted wall, planted CPU)."""
    pub = published()
    lines = ["# Audit known-answer suite: the DP-Sniper benchmark", "",
             f"Regenerate with `{command}` (one line; add `--no-controls` for the suite alone).", "",
             "Every mechanism claims eps = 0.1; bounds are certified at 90% confidence (alpha = 0.1, "
             "shared by the audit's two layers; at delta = 0 the audit's exact conditional test on Poisson "
             "counts: Poisson(n) outputs of each input, and given the two counts' sum the favoured one is "
             "binomial with the ratio of the frequencies, one one-sided Clopper-Pearson bound at the "
             "layer's whole alpha), on the input patterns of DP-Sniper's `exp_default.py`. "
             f"**One configuration for every row**: the default audit (the same statistics, no "
             f"per-row features) with the suite's one sample budget, n = {n:.0e} certification "
             "outputs per input (`SUITE_N`); selection and refinement follow the audit's default rules "
             f"(n_select = n // 8 within [{SELECT_MIN:.0e}, {SELECT_MAX:.0e}] per input and pair, "
             "n_refine = n // 4 on the chosen pairs, once more for a rare-event nominee). `ours` is the "
             "bound of the layer named beside it (the law's when it is violated, else the floating "
             "point's when it is, else the larger); where refinement could not tell two events apart, "
             "the layer certified both at half its alpha each and the witness names the other. `samples` "
             "counts every output drawn. The mechanisms add noise on a lattice of 2^-32 (Mironov's fix) "
             "so that the code that runs has the law of the published mechanism; "
             "FloatingPointLaplace is the textbook float sampler, which is not DP at all. Published "
             "columns: eps lower bounds from DP-Sniper's reference logs (DD-Search with logistic "
             "regression / MLP, two StatDP runs); `best` is the largest of them. `true eps` is the "
             "exact eps of the mechanism on these inputs where known (inf: not DP). A row below the best "
             "published figure is marked short, with its reach chance where the row's exact law is known: the "
             "chance that the best event of the family, at that law, certifies the figure at the suite's n "
             "(a row short by sampling error stays in the table as it is). The rows run one per core at "
             "once, each in a process of its own, largest first (`sniper.run_cases`); `wall s` is a row's "
             "own time, on its share of a 2-core machine, and `cpu s` the CPU time of all its threads "
             "(compilation included when the cache was cold), the steadier figure.", "",
             "| mechanism | ours eps_LB | layer | best published | DD-Search LR | DD-Search MLP | StatDP 1 "
             "| StatDP 2 | true eps | samples | wall s | cpu s | witness |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    short = []
    for case, res, secs, cpu in rows:
        p = pub.get(case.name, {})
        vals = [p.get(t, {}).get("eps_lcb") for t, _ in TOOLS]
        best = max([v for v in vals if v is not None], default=float("nan"))
        cells = ["" if v is None else f"{v:.5f}" for v in vals]
        ok = res.eps_lower_bound >= best
        if not ok:
            short.append((case, res, best))
        true = "" if case.true_eps is None else ("inf" if math.isinf(case.true_eps) else f"{case.true_eps:.5f}")
        w = res.witness
        lines.append(f"| {case.name} | **{res.eps_lower_bound:.5f}**{'' if ok else short_cell(case, res, best)} | "
                     f"{res.headline_layer.title} | {best:.5f} | " + " | ".join(cells)
                     + f" | {true} | {res.n_samples:.2e} | {secs:.1f} | {cpu:.1f} | "
                     f"x={_fmt(w['x'])}, x'={_fmt(w['x_prime'])}: {_short(w['event'])}{_hedge_text(w)} |")
    wall, cpu = seconds[0], seconds[1]
    lines += ["", f"Known-answer rows: {wall:.0f} s wall time, {cpu:.0f} s CPU time (all threads of all rows), "
                  f"{len(rows)} rows.", ""]
    lines += floor_section(rows)
    if short:
        lines += ["## Rows below the best published bound", "",
                  "Computed from each row's result: the certified event's frequencies p(x), p(x') and "
                  "the n per input at which that event's bound would reach the published figure "
                  "(expected counts), or why no n can.", ""]
        for case, res, best in short:
            lines.append(f"- **{case.name}**: {res.eps_lower_bound:.5f} vs {best:.5f} "
                         f"(short by {best - res.eps_lower_bound:.5f}). {_shortfall_reason(case, res, best)}")
        lines.append("")
    lines += above_exact_section(rows)
    if controls:
        lines += controls_section(controls, seconds[2], seconds[3])
    if planted:
        lines += planted_section(planted, seconds[4], seconds[5], seed=seed)
    return "\n".join(lines)


def _hedge_text(witness: dict) -> str:
    """The witness cell's note when the layer certified two events at half its alpha each."""
    if not witness.get("also_certified"):
        return ""
    return f" (certified beside {_short(witness['also_certified'], 60)}, each at half the alpha)"


def above_exact_section(rows) -> list[str]:
    """The rows whose certified bound exceeds the mechanism's exact eps: a false statement, which
    a bound at confidence 1 - alpha makes with probability at most alpha; named with its counts."""
    over = [(case, res) for case, res, *_ in rows if case.true_eps is not None and math.isfinite(case.true_eps)
            and res.eps_lower_bound > case.true_eps]
    if not over:
        return []
    lines = ["## Rows above their exact eps", "",
             "A certified lower bound above the mechanism's exact eps on these inputs is a false statement. A "
             "bound at confidence 1 - alpha makes one with probability at most alpha in each run (about that "
             "often on a row whose best event attains the exact eps); the slow coverage tests "
             "(`python -m pytest -m slow tests/test_audit_slow.py -k false_positive`) measure the rate over "
             "hundreds of seeds.", ""]
    for case, res in over:
        layer = res.headline_layer
        w = layer.witness
        lines.append(f"- **{case.name}**: {res.eps_lower_bound:.5f} > {case.true_eps:.5f}, certified at alpha = "
                     f"{layer.event_alpha:.3g} on {_short(w['event'], 90)}: {w['count_x']:,} of {w['n_x']:,} vs "
                     f"{w['count_x_prime']:,} of {w['n_x_prime']:,} outputs, an observed ratio of "
                     f"{w['eps_estimate']:.5f}.")
    return lines + [""]


#: the samples-over-the-floor ratio the known-answer rows are held to (issue 40, item 6)
FLOOR_RATIO_GOAL = 3.0


class FloorRow(NamedTuple):
    """A row of the samples-over-the-floor table: its cells (floor, samples / floor, perfect audit
    no better, perfect audit above the goal, best event), and the two figures the summary reads."""
    cells: tuple[str, str, str, str, str]
    ratio: float = math.nan          # samples / floor
    above: float = math.nan          # the chance that a perfect audit lands above FLOOR_RATIO_GOAL


def floor_row(case, res) -> FloorRow:
    """The certification samples per input of a row's bound against the floor of the same bound
    (:mod:`.floor`) on its witness pair, the chance that a perfect audit at the row's n certifies no
    more, and the chance that it lands above FLOOR_RATIO_GOAL times its own floor."""
    w, layer = res.witness, res.headline_layer
    law = fl.row_law(case, w["x"], w["x_prime"]) if layer.layer == LAW else None
    if law is None:
        return FloorRow(("", "law not available", "", "", ""))
    if not math.isfinite(res.eps_lower_bound):
        return FloorRow(("", "no finite bound", "", "", ""))
    chance, f = fl.reach_chance(law, res.eps_lower_bound, res.n, layer.alpha, res.delta)
    if not math.isfinite(f.n):
        why = ("no event of the family reaches this bound at the exact-arithmetic law (the row's bound "
               "exceeds its exact eps)")
        return FloorRow(("inf", "unreachable", "", "", why))
    _, above = fl.over_ratio_chance(law, FLOOR_RATIO_GOAL, res.n, layer.alpha, res.delta)
    return FloorRow((f"{f.n:.3g}", f"{res.n / f.n:.2f}", f"{1.0 - chance:.0%}",
                     "" if math.isnan(above) else f"{above:.0%}",
                     f"{_short(f.event, 70)}: p = {f.p:.4g}, p' = {f.q:.4g}"), res.n / f.n, above)


def floor_section(rows) -> list[str]:
    """Markdown lines of the samples-over-the-floor table of the known-answer rows."""
    lines = ["## Samples over the floor", "",
             "`samples`: the certification outputs per input behind the row's bound (selection and "
             "refinement drew more, see `samples` above). `floor`: the outputs per input that the best "
             "event of the family would need, at its exact frequencies p, p' on the row's witness pair, to "
             "certify the same bound at the same alpha with the same statistic (the conditional test, at "
             "the expected counts); intervals and their complements for a scalar output, "
             "every set of outcomes for a discrete one (`verify.audit.suites.floor`). `samples / floor` "
             "near 1 means selection found an event as good as the best; below 1, the row's counts fell "
             "favourably. The ratio also carries the certification's own sampling error, which no "
             "selection removes: `perfect audit no better` is the chance that a perfect audit (that best "
             "event, known in advance, certified on the row's n outputs per input at the layer's alpha; "
             "4,000 simulated certifications) certifies no more than the row did. A chance of 10% or more "
             "means a ratio this large happens to a perfect audit one run in ten: the excess is mostly "
             "the counts' luck; near 0%, it is what selection cost. `perfect audit above 3x`: the chance "
             "that such a perfect audit, at the row's n, certifies a bound whose floor is below a third of "
             "its n (the best event for each bound known in advance: a lower bound for any audit; "
             "`floor.over_ratio_chance`). Rows whose exact law is not computed here say so.", "",
             "| mechanism | eps_LB | samples | floor | samples / floor | perfect audit no better | "
             "perfect audit above 3x | best event of the family (exact p, p') |",
             "|---|---|---|---|---|---|---|---|"]
    above, costly = [], []
    for case, res, _, _ in rows:
        row = floor_row(case, res)
        lines.append(f"| {case.name} | {res.eps_lower_bound:.5f} | {res.n:.3g} | " + " | ".join(row.cells) + " |")
        if not math.isnan(row.above):
            above.append(row.above)
            if row.ratio > FLOOR_RATIO_GOAL:
                costly.append(f"{case.name} ({row.cells[1]}x; a perfect audit no better in {row.cells[2]} of runs)")
    if above:
        none = float(np.prod([1.0 - a for a in above]))
        lines += ["", f"A perfect audit stays within {FLOOR_RATIO_GOAL:g}x its floor on all {len(above)} rows "
                      f"above (each row's witness pair, independent runs) in {none:.1%} of seeds, and at three seeds "
                      f"in {none ** 3:.1%}: a row above {FLOOR_RATIO_GOAL:g}x is evidence of a selection cost only "
                      f"where `perfect audit no better` is small. Rows above {FLOOR_RATIO_GOAL:g}x here: "
                      + ("; ".join(costly) if costly else "none") + "."]
    return lines + [""]


def controls_section(controls, wall: float, cpu: float) -> list[str]:
    """Markdown lines of the catalog and negative-controls table: rows of ``catalog.audit_catalog``."""
    lines = ["## dpbench mechanisms at their claims, and negative controls", "",
             "n = 10^6 certification outputs per input, alpha = 1e-3, inputs searched over the "
             "mechanism's input range (local randomisers: any two inputs are neighbours); one default "
             "audit per mechanism, both layers from the same samples. Every catalog mechanism's law must "
             "hold; a sampler that adds its noise in plain floating point (`controls.FLOAT_UNSAFE`) is "
             "not DP as implemented, and its floating-point layer must say so; every negative control "
             "must be caught by the law layer.", "",
             "| mechanism | claim (eps, delta) | expected: law / floating point | law | floating point | "
             "witness event (headline) |", "|---|---|---|---|---|---|"]
    for name, eps, delta, res, expect in controls:
        unexpected = any(expect[lay.layer] != "either" and lay.violated != (expect[lay.layer] == "violated")
                         for lay in res.layers)
        lines.append(f"| {name} | ({eps:g}, {delta:g}) | {expect[LAW]} / {expect[FLOATING_POINT]} | "
                     f"{layer_cell(res.law, res.eps)} | {layer_cell(res.floating_point, res.eps)}"
                     f"{' **(unexpected)**' if unexpected else ''} | {_short(res.witness['event'])} |")
    return lines + ["", f"Catalog and controls: {wall:.0f} s wall, {cpu:.0f} s CPU.", ""]


def planted_section(planted, wall: float, cpu: float, sequential=None, seed: int = 0) -> list[str]:
    """Markdown lines of the planted-bug table: rows (case, buggy result, fixed result); with
    ``sequential`` (one sequential result per row), the table of samples each bug needed."""
    lines = ["## Planted bugs by class: caught by the default audit, passed once fixed", "",
             "Mechanisms written from textbook formulas and published bug classes "
             "(`verify.audit.suites.planted.planted_bugs`), audited as a new user would: n = 2e6, "
             f"alpha = 0.01, seed {seed}, every other argument at its default. `caught by`: the layers that reject "
             "the claim (`expected`: the layer the bug belongs to). `fixed`: the same mechanism with "
             "the bug removed (floating point: input and noise on the 2^-32 lattice); both its layers "
             "must hold.", "",
             "| class | case | claim | expected | caught by | law (buggy) | floating point (buggy) | "
             "fixed: law | fixed: floating point | delta_floor | witness event (buggy, headline) |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for case, bad, good in planted:
        lines.append(f"| {case.bug_class} | {case.name}: {case.why} | ({case.eps:g}, {case.delta:g}) | "
                     f"{TITLES[case.layer]} | {caught_by(bad)} | {layer_cell(bad.law, case.eps)} | "
                     f"{layer_cell(bad.floating_point, case.eps)} | {layer_cell(good.law, case.eps)} | "
                     f"{layer_cell(good.floating_point, case.eps)} | {bad.delta_floor:.2g} | "
                     f"{_short(bad.witness['event'])} |")
    caught = sum(bad.violated is True for _, bad, _ in planted)
    in_layer = sum(getattr(bad, case.layer).violated is True for case, bad, _ in planted)
    passed = sum(good.violated is False for _, _, good in planted)
    lines += ["", f"Caught {caught} of {len(planted)} bugs, {in_layer} of them by the layer the bug belongs to; "
                  f"{passed} of {len(planted)} fixed versions pass both layers (each fixed version is a correct "
                  f"mechanism: at alpha = 0.01 a sound audit flags it with probability at most 0.01). Planted "
                  f"bugs: {wall:.0f} s wall, {cpu:.0f} s CPU.", ""]
    return lines + (sequential_section(planted, sequential) if sequential is not None else [])


def sequential_section(planted, sequential) -> list[str]:
    """Markdown lines of the sequential table: the samples in all each planted bug needed to be caught."""
    from statistics import median

    from ..evalues import rare_event_floor
    from ..stages.sequential import FIRST_ROUND, GROWTH, STEPS
    lines = ["## Planted bugs caught sequentially: the samples each one needed", "",
             "The same audits with a budget (`verify.audit(..., budget=B)`, `dpbench audit --budget B`), B = "
             "the samples the fixed-n audit above drew. Round 1 draws a Poisson number of outputs of each input "
             f"(mean {FIRST_ROUND}), each later round {GROWTH:g} times as many; before a round, each layer's event is "
             "chosen on the rounds before it (selection on all but the last, refinement on the last), and the round "
             f"is bet on in {STEPS} steps: the layer's wealth is multiplied by each step's e-value of its event, and "
             "the audit stops as soon as a layer's wealth reaches 1 / (its share of alpha) (a test supermartingale: "
             "anytime-valid at alpha = 0.01 by Ville's inequality, `verify.audit.evalues`). `samples in all`: every "
             "output the audit drew (both inputs, every round and stage, the sampling-contract check); `of fixed-n`: "
             "as a fraction of the fixed-n audit's; `true eps`: the buggy mechanism's exact eps at the claimed delta; "
             "`floor`: for a bug whose violation lives on a rare event of mass m (an atom, a rare output) never "
             "produced by the other input, the outputs in all that a bet on that very event, known in advance, needs "
             "to reach the level in expectation, 2 ln(1/alpha_law) / (m ln(1 + e^-eps) - delta e^-eps): no audit of "
             "this kind catches it with fewer.", "",
             "| case | true eps | caught by | rounds | samples in all | of fixed-n | floor | law | floating point |",
             "|---|---|---|---|---|---|---|---|---|"]
    floors = {}
    for (case, bad, _), seq in zip(planted, sequential):
        run = seq.sequential
        caught = caught_by(seq) if seq.violated else f"not caught ({run.budget} spent)"
        level = seq.law.alpha if seq.law.tested else 0.01
        floors[case.name] = (2 * rare_event_floor(case.mass, case.eps, case.delta, level)
                             if case.mass is not None else None)
        floor = "" if floors[case.name] is None else f"{floors[case.name]:,.0f}"
        true = "inf" if math.isinf(case.true_eps) else f"{case.true_eps:.3f}"
        lines.append(f"| {case.name} | {true} | {caught} | {run.rounds} | {run.samples:,} | "
                     f"{run.samples / bad.n_samples:.3f} | {floor} | {layer_cell(seq.law, case.eps)} | "
                     f"{layer_cell(seq.floating_point, case.eps)} |")
    rows = list(zip(planted, sequential))
    caught = [seq for _, seq in rows if seq.violated]

    def summary(what, chosen):
        samples = [seq.sequential.samples for _, seq in chosen]
        missed = sum(not seq.violated for _, seq in chosen)
        return (f"- {what} ({len(chosen)}): samples in all median {median(samples):,.0f}, at most {max(samples):,}"
                + (f"; {missed} not caught within the budget" if missed else "") + ".")
    gross = [(c, seq) for (c, _, _), seq in rows if c.layer == "law" and c.true_eps >= 2 * c.eps and c.mass is None]
    rare = [(c, seq) for (c, _, _), seq in rows if c.layer == "law" and c.true_eps >= 2 * c.eps and c.mass is not None]
    fp = [(c, seq) for (c, _, _), seq in rows if c.layer != "law"]
    fixed = sum(bad.n_samples for (_, bad, _), seq in rows if seq.violated)
    lines += ["", f"Caught {len(caught)} of {len(sequential)} bugs sequentially; samples in all: "
                  f"{sum(seq.sequential.samples for seq in caught) / max(1, fixed):.3f} of the fixed-n audits'.", ""]
    if gross:
        lines.append(summary("Law bugs of true eps at least twice the claim whose violation is not confined to a rare "
                             "event", gross))
    if rare:
        ratio = [seq.sequential.samples / floors[c.name] for c, seq in rare if seq.violated]
        lines.append(summary("Law bugs of true eps at least twice the claim whose violation lives on a rare event",
                             rare) + (f" Their floors: median {median([floors[c.name] for c, _ in rare]):,.0f}, "
                                      f"at least {min(floors[c.name] for c, _ in rare):,.0f}; the audit drew "
                                      f"{min(ratio):.1f} to {max(ratio):.1f} times its bug's floor." if ratio else ""))
    if fp:
        lines.append(summary("Floating-point bugs", fp))
    return lines + [""]


def audit_planted(n: int = 2_000_000, alpha: float = 0.01, seed: int = 0):
    """Every planted bug of ``planted.planted_bugs`` and its fix, as a new user audits them:
    rows (case, result of the buggy mechanism, result of the fixed one)."""
    return [(c, audit(c.mechanism, c.x, c.x_prime, eps=c.eps, delta=c.delta, n=n, alpha=alpha, seed=seed),
             audit(c.fixed, c.x, c.x_prime, eps=c.eps, delta=c.delta, n=n, alpha=alpha, seed=seed))
            for c in planted_bugs()]


def audit_planted_sequential(planted, alpha: float = 0.01, seed: int = 0):
    """Every planted bug of ``planted`` (rows of :func:`audit_planted`) audited sequentially within the
    samples its fixed-n audit drew: one result per row."""
    return [audit(c.mechanism, c.x, c.x_prime, eps=c.eps, delta=c.delta, alpha=alpha, seed=seed,
                  budget=bad.n_samples) for c, bad, _ in planted]


def _short(text: str, limit: int = 160) -> str:
    text = text.replace("|", "\\|")
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _fmt(v):
    if isinstance(v, float):
        return f"{v:g}"
    return "[" + ",".join(f"{a:g}" for a in np.asarray(v).ravel()) + "]"


def _shortfall_reason(case, res, best) -> str:
    """Why a row is below the published figure, computed from its result (its headline layer)."""
    if case.true_eps is not None and best > case.true_eps:
        return (f"The published figure exceeds the mechanism's exact eps on these inputs "
                f"({case.true_eps:.5f}), so no valid lower bound can reach it.")
    return _observed_shortfall(case, res, best) + _ideal_chance(case, res, best)


def reach(case, res, best):
    """(chance, ideal floor) that a perfect selection (the best event of the family, at its exact law
    on the witness pair) certifies the published figure ``best`` at the row's n; None without a law."""
    layer = res.headline_layer
    law = fl.row_law(case, layer.witness["x"], layer.witness["x_prime"]) if layer.layer == LAW else None
    return None if law is None else fl.reach_chance(law, best, res.n, layer.alpha, res.delta)


def short_cell(case, res, best) -> str:
    """The note of a row below the published figure: short, and the chance a perfect selection reaches
    the figure at the row's n (a row short by sampling error keeps its chance beside it)."""
    found = reach(case, res, best)
    if found is None or not math.isfinite(found[1].n):
        return " (short)"
    return f" (short; reach chance {100 * found[0]:.0f}%)"


def _ideal_chance(case, res, best) -> str:
    """What the row's n allows at best: the chance that a perfect selection (the best event of the
    family, at its exact law on the witness pair) certifies the published figure at this n."""
    found = reach(case, res, best)
    if found is None:
        return ""
    chance, ideal = found
    if not math.isfinite(ideal.n):
        exact = f" (the mechanism's exact eps, {case.true_eps:.5f}, is on another pair)" if case.true_eps else ""
        return (f" At its exact law, no event on the witness pair reaches {best:.5f} at any n: the selection's "
                f"pair is weaker than the published one{exact}.")
    return (f" At n = {res.n:.2g}, even the best event of the family at its exact law ({_short(ideal.event, 60)}) "
            f"would certify {best:.5f} in {100 * chance:.0f}% of runs (its floor for that figure: "
            f"n = {ideal.n:.2g} per input).")


def _observed_shortfall(case, res, best) -> str:
    """Why the row's certified event is short, from its counts."""
    layer = res.headline_layer
    w, n = layer.witness, res.n
    p1, p2 = w["count_x"] / n, w["count_x_prime"] / n
    ratio = math.log(p1 / p2) if p1 > 0 and p2 > 0 else math.inf
    event = f"The certified event ({_short(w['event'], 80)}) has p(x) = {p1:.4g}, p(x') = {p2:.4g}"
    if ratio <= best:
        # the observed ratio is an estimate: its upper confidence bound (the conditional test with
        # the inputs swapped) says whether the event's true ratio can reach the published figure
        upper = -float(st.certifier_for(0.0).bound(w["count_x_prime"], n, w["count_x"], n, layer.event_alpha))
        exact = f" (exact eps {case.true_eps:.5f})" if case.true_eps is not None else ""
        if upper <= best:
            return (f"{event}, ratio ln(p(x)/p(x')) = {ratio:.5f}, at most {upper:.5f} at confidence "
                    f"{1 - layer.event_alpha:g}: below the published figure at any n; the selection chose a weaker "
                    f"event than the published one{exact}.")
        return (f"{event}, ratio ln(p(x)/p(x')) = {ratio:.5f} as observed, but up to {upper:.5f} at confidence "
                f"{1 - layer.event_alpha:g}: these counts cannot tell whether the event is weaker than the published "
                f"one{exact}; the bound is short by sampling error.")
    hi = fl.samples_for_bound(p1, p2, best, layer.event_alpha, res.delta)
    return (f"{event}; its certified bound reaches {best:.5f} at n = {hi:.2g} per input "
            f"({hi / n:.1f} times the suite's budget).")


def provenance_line(cmd: str) -> str:
    """Which code, libraries, machine and command wrote the report (the floating-point rows read
    the outputs' low bits, which numpy's SIMD paths can round differently on another CPU)."""
    from dpbench.engine.result import code_and_versions, machine
    return f"Provenance: {code_and_versions()}; on {machine()}; written by `{cmd}`."


def command(scale: float = 1.0, seed: int = 0, planted_only: bool = False) -> str:
    """The ``dpbench audit-suite`` command line that regenerates a report of these settings."""
    return ("dpbench audit-suite" + (" --planted-only" if planted_only else "")
            + (f" --scale {scale:g}" if scale != 1 else "") + (f" --seed {seed}" if seed else ""))


def write_planted(out, seed: int = 0) -> tuple[float, float]:
    """Audit every planted bug and its fix and write the table to ``out``; (wall, CPU) seconds."""
    t0 = time.perf_counter(), time.process_time()
    planted = audit_planted(seed=seed)
    wall, cpu = time.perf_counter() - t0[0], time.process_time() - t0[1]
    sequential = audit_planted_sequential(planted, seed=seed)
    head = ["# Planted bugs: the default audit by bug class", "",
            f"Regenerate with `{command(seed=seed, planted_only=True)}`.", ""]
    Path(out).write_text("\n".join(head + planted_section(planted, wall, cpu, sequential, seed)
                                   + ["", provenance_line(command(seed=seed, planted_only=True))]) + "\n")
    return wall, cpu


def write_suite(out, scale: float = 1.0, only=None, seed: int = 0, controls: bool = True) -> tuple:
    """Run the suite (the ``only`` mechanisms, or all with the catalog/controls and planted-bug
    tables unless ``controls`` is false) and write the report to ``out``; the seconds of each part
    (suite wall, suite CPU, controls wall, controls CPU, planted wall, planted CPU)."""
    n = max(10_000, int(SUITE_N * scale))

    def clock():          # CPU of this process and of its finished children (the rows' worker processes)
        t = os.times()
        return time.perf_counter(), t.user + t.system + t.children_user + t.children_system

    def show(case, res, secs, cpu):
        print(f"{case.name:30s} eps_LB={res.eps_lower_bound:9.5f}  {secs:6.1f}s wall {cpu:6.1f}s cpu  "
              f"{res.witness['statistic']}", flush=True)

    t0 = clock()
    rows = run_cases([c for c in cases() if not only or c.name in only], n, seed, on_row=show)
    t1 = clock()
    extra = controls and not only
    control_rows = audit_catalog(seed=seed) if extra else None
    t2 = clock()
    planted = audit_planted(seed=seed) if extra else None
    t3 = clock()
    seconds = tuple(b[i] - a[i] for a, b in ((t0, t1), (t1, t2), (t2, t3)) for i in (0, 1))
    text = report(rows, n, seconds, command(scale, seed), control_rows, planted, seed)
    Path(out).write_text(text + "\n\n" + provenance_line(command(scale, seed)) + "\n")
    return seconds

