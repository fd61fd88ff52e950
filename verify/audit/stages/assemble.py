"""Stage 5, assemble: the layers' verdicts, witnesses in output space, and the result.

Each tested layer becomes a :class:`~verify.audit.result.LayerResult` (verdict, bound and its
cap, p-value, witness described with the output labels, the fix its feature names); a layer
with no statistic for these outputs is "not tested" with the reason.  The headline layer's
figures are repeated at the top of the :class:`~verify.audit.result.AuditResult`.
"""
from __future__ import annotations

from verify.inference import p_text

from .. import tradeoff
from ..inputs import as_input
from ..layers import FLOATING_POINT, LAW, LAYERS, TITLES
from ..result import LIMITED_COUNT, NOT_REJECTED, NOT_TESTED, VIOLATED, AuditResult, LayerResult, eps_estimate
from ..source import SampleSource
from .certify import Certification, Certified
from .validate import AuditPlan

#: labels shown in the result's info (number -> label)
SHOWN_LABELS = 64


def assemble(plan: AuditPlan, source: SampleSource, cert: Certification | None, *, seconds: float,
             select_seconds: float, no_power: str = "") -> AuditResult:
    """The result of an audit from its plan, its sample source and its certification (None: the
    audit had no power, for the reason ``no_power``)."""
    layers_certified = cert.layers if cert is not None else {}
    layer_results = {layer: (layer_result(plan, source, layers_certified[layer], cert.n)
                             if layer in layers_certified else untested(plan, layer, no_power))
                     for layer in LAYERS}
    eps_ceiling, delta_floor = plan.eps_ceiling, plan.delta_floor
    if cert is not None and cert.eps_ceiling is not None:    # a sequential audit: what its rounds resolve
        eps_ceiling, delta_floor = cert.eps_ceiling, cert.delta_floor
    law = layer_results[LAW]
    if law.tested and not law.violated and delta_floor >= 1.0:    # no violating event could have shown
        layer_results[LAW] = untested(plan, LAW, without_power(plan, cert))
    law, fp = layer_results[LAW], layer_results[FLOATING_POINT]
    tested = [lay for lay in (law, fp) if lay.tested]
    headline = next((lay for lay in (law, fp) if lay.violated),
                    max(tested, key=lambda lay: lay.eps_lower_bound, default=law))
    failed = LAW if law.violated else FLOATING_POINT if fp.violated else None
    status = (VIOLATED if failed else NOT_TESTED if not tested or any(lay.no_power for lay in (law, fp))
              else NOT_REJECTED)
    n = cert.n if cert is not None else 0
    fixed_n = cert is not None and cert.sequential is None
    notes = [f"only n={n} certification samples: the bound is weak"] if fixed_n and 0 < n < 1000 and law.tested else []
    if plan.alpha > 0.5:
        notes.append(f"alpha = {plan.alpha:g}: a correct mechanism may be rejected in a fraction {plan.alpha:g} of "
                     f"runs, so a violation is weak evidence (an alpha of 0.05 or less is usual)")
    n_samples = source.drawn
    info = {"select_seconds": select_seconds, "contract_check_samples": source.contract_samples,
            "output_labels": {repr(k): v for k, v in list(source.labels.items())[:SHOWN_LABELS]}}
    curve = tradeoff.Certified(fpr=[], fnr=[], mu_lower_bound=0.0, eps=[], alpha_per_event=0.0, events=0)
    if cert is not None:
        top = cert.layers[headline.layer if headline.tested else LAW]
        curve = cert.curve if law.tested else curve          # the law's curve: none where it had no power
        info.update({"certify_seconds": cert.seconds, "certification_floor": plan.certification_floor,
                     "certify_samples_per_second": 2 * n / cert.seconds if cert.seconds > 0 else float("inf"),
                     "fast_path": bool(source.fast_path(plan.pairs[top.refined.pair][0])
                                       and top.event.statistic.compiled),
                     "curve_alpha_per_event": curve.alpha_per_event, "curve_events": curve.events,
                     "selection_proxy": top.refined.selection_proxy,
                     "refined_proxy": top.event.proxy if plan.n_refine else None, "n_refine": plan.n_refine,
                     "rare_nominee": (None if top.refined.nominee is None
                                      else top.refined.nominee.describe(source.labels)),
                     "rare_nominee_chosen": top.refined.nominee_chosen,
                     "contender": None if top.refined.contender is None else top.refined.contender.statistic.name,
                     "contender_chosen": top.refined.contender_chosen})
    return AuditResult(
        status=status, mechanism=source.name, eps=plan.eps, delta=plan.delta, alpha=plan.alpha,
        eps_lower_bound=headline.eps_lower_bound, p_value=headline.p_value,
        violated=True if failed else None if status == NOT_TESTED else False,
        witness=headline.witness, curve_delta=plan.delta_grid.tolist(), curve_eps=curve.eps, n=n,
        n_select=cert.n_select if cert is not None and cert.n_select is not None else plan.n_select,
        n_samples=n_samples, seconds=seconds,
        samples_per_second=n_samples / seconds if seconds > 0 else float("inf"),
        eps_ceiling=eps_ceiling, delta_floor=delta_floor, pairs_tried=len(plan.pairs), seed=plan.seed,
        law=law, floating_point=fp, layer_failed=failed, headline=headline.layer,
        tradeoff_fpr=curve.fpr, tradeoff_fnr=curve.fnr, gdp_mu_lower_bound=curve.mu_lower_bound,
        warnings=notes + source.warnings, info=info, sequential=None if cert is None else cert.sequential)


def without_power(plan: AuditPlan, cert: Certification) -> str:
    """Why a law that was not rejected is not tested: at its n (or budget) no violating event of any
    mass is found and certified with probability 1/2 (``resolution_floor`` of 1)."""
    if cert.sequential is not None:
        size, more = f"the budget of {plan.budget}", "a larger budget"
    else:
        size = f"n={cert.n:,} outputs per input"
        more = f"n >= {plan.n_to_resolve:,}" if plan.n_to_resolve is not None else "a larger n"
    return (f"no power, because at {size} even a violating event of mass 1 is found and certified in fewer "
            f"than half of the runs (resolution: violating events of mass >= 1): not rejected here is no "
            f"evidence; use {more}")


def layer_result(plan: AuditPlan, source: SampleSource, c: Certified, n: int) -> LayerResult:
    """One tested layer's verdict, bound, witness and fix, certified on n outputs per input."""
    event = c.event
    a, b = plan.pairs[c.refined.pair]
    fwd = event.forward
    k1, k2 = c.k_favoured, c.k_other
    stat = event.statistic
    witness = {"x": as_input(a if fwd else b), "x_prime": as_input(b if fwd else a),
               "event": event.describe(source.labels), "statistic": stat.name, "feature": stat.feature.name,
               "count_x": k1, "count_x_prime": k2, "n_x": c.n_favoured, "n_x_prime": c.n_other,
               "p_x": k1 / max(c.n_favoured, 1), "p_x_prime": k2 / max(c.n_other, 1),
               "eps_estimate": eps_estimate(k1, k2)}
    if c.hedged:
        witness["also_certified"] = c.refined.hedge.describe(source.labels)
    note = ""
    claim_rejected = c.p_claim <= c.level
    if c.layer_is_fp and claim_rejected and not c.violated:
        note = (f"its event exceeds the claim only as much as the magnitude of the outputs does (within each "
                f"binade the classes tell the inputs apart no better: p-value {p_text(c.p_strata)}): the law's "
                f"doing, not the arithmetic's")
    return LayerResult(layer=c.layer, status=VIOLATED if c.violated else NOT_REJECTED, violated=c.violated,
                       eps_lower_bound=c.eps_lower_bound, p_value=c.p_value, alpha=c.level * c.events_certified,
                       p_value_scale=c.alpha / (c.level * c.events_certified), anytime=plan.budget is not None,
                       events_certified=c.events_certified, witness=witness,
                       unbounded=k2 == 0 and k1 > 0, limited_by_n=k2 <= LIMITED_COUNT < k1,
                       # the bound of an event that took all n outputs of x and none of x' (no less than the
                       # bound certified: with Poisson(n) outputs the favoured count may exceed n)
                       eps_cap=(c.eps_cap if c.eps_cap is not None
                                else max(0.0, float(plan.certifier.bound(n, n, 0, n, c.level, plan.delta)),
                                         c.eps_lower_bound)),
                       fix=stat.feature.fix_for(event) if c.violated else "", note=note,
                       strata_p_value=c.p_strata)


#: selection outputs per input below which granularity classes may not repeat (features.ranked)
FEW_TO_RANK = 10_000


def untested(plan: AuditPlan, layer: str, no_power: str = "") -> LayerResult:
    """A layer that was not tested, and why (``no_power``: the reason the layer, which applies, had
    no power; such a layer is never a pass)."""
    if layer not in plan.requested_layers:
        why = f"no {TITLES[layer]} feature asked for"
    elif no_power and layer == LAW:
        return LayerResult(layer=layer, status=NOT_TESTED, note=no_power, no_power=True)
    elif layer == FLOATING_POINT and plan.n_select < FEW_TO_RANK:
        why = (f"no floating-point statistic applied: the outputs are whole numbers (of any type) or labels, or "
               f"{plan.n_select:,} selection outputs per input are too few for a granularity class to repeat (raise n "
               f"to tell)")
    elif layer == FLOATING_POINT:
        why = "the outputs are whole numbers (of any type) or labels: no floating-point granularity to read"
    else:
        why = "no statistic of the law applies to these outputs"
    return LayerResult(layer=layer, status=NOT_TESTED, note=why)
