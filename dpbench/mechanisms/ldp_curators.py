"""The LDP curators of Ren et al. (seed 000 Sec. 3; seed 001 Sec. 3).

* CTL(eps)    r -> r + Laplace(1/eps)                        (Curator 1, Lemma 2)
* CTB(eps)    r -> Bernoulli((r e^eps + 1 - r) / (1 + e^eps)) (Curator 3, Lemma 5; R9)
* CTL-S, CTB-S the same applied to sigmoid(r), for unbounded rewards (Curators 5/6, Lemmas 8/9)
* debias g(x; eps) = 1/2 + (x - 1/2) / tanh(eps/2)            (seed 001 M6, unbiased for mu)

One report of each curator is one compiled function, ``ctl_report`` and
``ctb_report``; the engine components ``CTL``, ``CTB`` and ``HeteroCurator``
(which draws the user's eps_t first and returns it) privatise with them
(``privatize``; ``respond`` pulls the arm and privatises each reward), and the
mechanism objects ``CTLMechanism`` / ``CTBMechanism`` (``dpbench.sampler("ctl",
eps=1.0)``, ...) sample and are audited through the same components.  ``tanh``
forms avoid overflow and cancellation: p_eps(r) = 1/2 + (r - 1/2) tanh(eps/2),
beta(eps) = coth^2(eps/2).

CTL is float-safe by default (``arithmetic="lattice"``, :mod:`.lattice`): the input in
[0, 1] (after the sigmoid for CTL-S) is rounded to the lattice g = 2^(floor(log2 min(1/eps,
16)) - 16), whose span 1/g steps is exact, and the Laplace noise is s = ceil((1/g)/(eps -
sigma)) steps: eps-LDP as implemented (``ctl_lattice_report``).  ``arithmetic="float"`` is the
paper's r + Laplace(1/eps) in floating point (``ctl_report``), not DP as implemented.  A
heterogeneous user whose level is below the smallest the lattice keeps (about 3e-4) sends
nothing, as at eps_t = 0.
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from .. import randomness as rng
from ..engine.caching import cached_njit
from ..engine.catalog import Param, real
from ..engine.components import draw, draw_sum, implements, privatize, report_each, respond
from ..engine.mechanism import CatalogMechanism, Mechanism
from ..validation import InputError
from .lattice import (
    ARITHMETIC_PARAM,
    LATTICE_PARAM,
    laplace_keeps,
    laplace_on_lattice,
    lattice_plan,
    range_plan,
    to_steps,
)
from .privacy_levels import DISCRETE, FIXED, PrivacyLevels, draw_level


# ------------------------------------------------------------- formulas
@cached_njit
def sigmoid(x):
    """s(x) = 1 / (1 + e^-x), overflow-safe."""
    if x >= 0.0:
        return 1.0 / (1.0 + math.exp(-x))
    z = math.exp(x)
    return z / (1.0 + z)


@cached_njit
def ctb_probability(r, eps):
    """P[CTB(r) = 1] = (r e^eps + 1 - r)/(1 + e^eps) = 1/2 + (r - 1/2) tanh(eps/2)."""
    return contracted(r, contraction(eps))


@cached_njit
def contracted(r, c):
    """1/2 + (r - 1/2) c: ``ctb_probability`` given c = tanh(eps/2)."""
    return 0.5 + (r - 0.5) * c


@cached_njit(inline="always")
def contraction(eps):
    """c_eps = (e^eps - 1)/(e^eps + 1) = tanh(eps/2): CTB's gap factor (Lemma 5)."""
    return math.tanh(0.5 * eps)


@cached_njit
def bernoulli_factor(eps):
    """beta(eps) = ((e^eps + 1)/(e^eps - 1))^2 = coth^2(eps/2) (Thm 6)."""
    return bernoulli_factor_contracted(contraction(eps))


@cached_njit(inline="always")
def bernoulli_factor_contracted(c):
    """``bernoulli_factor`` given c = ``contraction(eps)`` = tanh(eps/2): 1/c^2."""
    return 1.0 / (c * c)


def laplace_factor(eps):
    """F_L(eps) = (1 + 4/eps)^2 (Thm 4)."""
    return (1.0 + 4.0 / eps) ** 2


@cached_njit
def debias(x, eps):
    """g(x; eps) = 1/2 + (x - 1/2)/c_eps, so E[g(CTB(R; eps); eps)] = E[R] (seed 001 M6)."""
    return debias_contracted(x, contraction(eps))


@cached_njit(inline="always")
def debias_contracted(x, c):
    """``debias`` given c = ``contraction(eps)`` = tanh(eps/2) (an agent that meets the same
    levels again computes c once per level: numba calls libm's tanh as an opaque function)."""
    return 0.5 + (x - 0.5) / c


@cached_njit
def ctl_report(r, eps, sig):
    """One CTL(eps) report r + Laplace(1/eps) in floating point (Curator 1, Lemma 2: eps-LDP for
    r in [0, 1] in exact arithmetic); CTL-S with ``sig``: sigmoid(r) + Laplace(1/eps) (Curator 5,
    Lemma 8: eps-LDP on R).  The paper-literal form (``arithmetic="float"``)."""
    if sig:
        r = sigmoid(r)
    return r + rng.laplace(1.0 / eps)


@cached_njit
def ctl_plan(eps):
    """(g, s): the lattice of a CTL(eps) report and its Laplace scale in steps (``lattice.range_plan``
    on [0, 1]); s = inf below the smallest level the lattice keeps."""
    return range_plan(0.0, 1.0, eps)


@cached_njit
def ctl_lattice_report(r, sig, g, inv_g, s):
    """One float-safe CTL report: r (sigmoid(r) with ``sig``) rounded to the lattice g, plus the
    lattice Laplace of s steps (``ctl_plan``): eps-LDP as implemented."""
    if sig:
        r = sigmoid(r)
    return laplace_on_lattice(to_steps(r, inv_g), s, g)


@cached_njit
def ctb_report(r, eps, sig):
    """One CTB(eps) bit, 1 with probability (r e^eps + 1 - r)/(1 + e^eps) (Curator 3, Lemma 5);
    CTB-S with ``sig``: the same of sigmoid(r) (Curator 6, Lemma 9)."""
    return ctb_report_contracted(r, contraction(eps), sig)


@cached_njit
def ctb_report_contracted(r, c, sig):
    """``ctb_report`` given c = tanh(eps/2) (a fixed-level CTB computes it once: numba calls
    libm's tanh as an opaque function, which LLVM cannot hoist out of the simulation loop)."""
    if sig:
        r = sigmoid(r)
    return rng.bernoulli(contracted(r, c))


# ------------------------------------------------------ engine components
class Direct(NamedTuple):
    """No privacy: the agent sees the raw reward (optionally sigmoid-mapped).
    Used by UCB1 and by central-DP policies, which privatise internally."""
    sigmoid: bool


@implements(privatize, Direct)
def _direct_privatize(mech, r, public):
    return sigmoid(r) if mech.sigmoid else r


@implements(respond, Direct)
def _direct_respond(mech, env, arm, m):
    if not mech.sigmoid:
        return draw_sum(env, arm, m), 0.0
    return report_each(mech, env, arm, m), 0.0


class CTL(NamedTuple):
    """Convert-to-Laplace (sigmoid=False) or CTL-S (sigmoid=True) at level eps, on the lattice
    (``lattice``: spacing ``g``, 1/g, scale ``s`` steps, from ``ctl_plan``) or in floating point;
    build it with ``CTL.at(eps, sigmoid)``."""
    eps: float
    sigmoid: bool
    lattice: bool
    g: float
    inv_g: float
    s: float

    @classmethod
    def at(cls, eps, sigmoid, lattice=True, spacing=None, strict=False):
        """CTL at eps on its automatic lattice (or g = 2^spacing), validated (``lattice.lattice_plan``;
        ``strict``: refuse an eps the lattice does not keep exactly, as the catalog mechanism does)."""
        g, s = lattice_plan(float(eps), 1.0, span=(0.0, 1.0), lattice=spacing, strict=strict) if lattice \
            else (1.0, 0.0)
        return cls(float(eps), bool(sigmoid), bool(lattice), g, 1.0 / g, s)


@implements(privatize, CTL)
def _ctl_privatize(mech, r, public):
    if mech.lattice:
        return ctl_lattice_report(r, mech.sigmoid, mech.g, mech.inv_g, mech.s)
    return ctl_report(r, mech.eps, mech.sigmoid)


@implements(respond, CTL)
def _ctl_respond(mech, env, arm, m):
    return report_each(mech, env, arm, m), mech.eps


class CTB(NamedTuple):
    """Convert-to-Bernoulli (sigmoid=False) or CTB-S (sigmoid=True) at level eps; build it with
    ``CTB.at(eps, sigmoid)``, which computes ``contraction`` = tanh(eps/2) once."""
    eps: float
    sigmoid: bool
    contraction: float

    @classmethod
    def at(cls, eps, sigmoid):
        return cls(eps, sigmoid, contraction(eps))


@implements(privatize, CTB)
def _ctb_privatize(mech, r, public):
    return ctb_report_contracted(r, mech.contraction, mech.sigmoid)


@implements(respond, CTB)
def _ctb_respond(mech, env, arm, m):
    return report_each(mech, env, arm, m), mech.eps


class HeteroCurator(NamedTuple):
    """CTL / CTB (and their -S variants) with a per-user level eps_t ~ levels (seed 001
    Curators 1 and 3, R9): ``binary`` selects CTB, else CTL.

    Order of draws per round: eps_t, then (if eps_t > 0) the reward, then the noise.
    A user with eps_t = 0 sends nothing usable: no reward or noise is drawn, the
    response is (0, 0) and every HeLDP agent discards it (it still costs regret).
    One response serves one user (m = 1: HeLDP agents pull one arm per round).
    The level distribution's fields are held flat (see ``privacy_levels.draw_level``).
    ``level_table`` holds, per level of a fixed or discrete distribution, what a report at
    that level needs (``level_row``: CTB's tanh(eps/2), the CTL lattice and scale), computed
    once instead of per user; a continuous distribution computes it per user."""
    level_kind: int
    level_values: np.ndarray
    level_mu: float
    level_sd: float
    level_lo: float
    level_hi: float
    sigmoid: bool
    binary: bool
    lattice: bool
    level_table: np.ndarray

    @classmethod
    def ctl(cls, levels: PrivacyLevels, sigmoid: bool, lattice: bool = True):
        return cls(*levels, sigmoid, False, lattice, _level_table(levels, False, lattice))

    @classmethod
    def ctb(cls, levels: PrivacyLevels, sigmoid: bool):
        return cls(*levels, sigmoid, True, False, _level_table(levels, True, False))


TABLE_C, TABLE_G, TABLE_S = 0, 1, 2


@cached_njit
def level_row(binary, lattice, eps):
    """(c, g, s) of a report at level eps: c = tanh(eps/2) for CTB; for a lattice CTL its
    lattice g and scale s in steps (``ctl_plan``), s = inf where the user sends nothing (eps = 0,
    or a level below what the lattice keeps); unused entries 1."""
    if binary:
        return contraction(eps), 1.0, 1.0
    if not lattice:
        return 1.0, 1.0, 1.0
    if eps <= 0.0:
        return 1.0, 1.0, math.inf
    g, s = ctl_plan(eps)
    if not laplace_keeps(1.0 / g, eps):        # a level the lattice cannot keep: the user sends nothing
        return 1.0, g, math.inf
    return 1.0, g, s


def _level_table(levels: PrivacyLevels, binary: bool, lattice: bool) -> np.ndarray:
    """``level_row`` of every value of a fixed or discrete distribution (one row of zeros for a
    continuous one, whose draws carry no index)."""
    if levels.kind not in (FIXED, DISCRETE):
        return np.zeros((1, 3))
    return np.array([level_row(binary, lattice, float(e)) for e in levels.values]).reshape(-1, 3)


@cached_njit
def hetero_level(mech):
    """The next user's privacy level eps_t (seed 001 Def. 3) and what a report at that level
    needs: (eps_t, c, g, s) (``level_row``), from ``level_table`` where the level has a row."""
    eps, j = draw_level(mech.level_kind, mech.level_values, mech.level_mu, mech.level_sd,
                        mech.level_lo, mech.level_hi)
    if j >= 0:
        return eps, mech.level_table[j, TABLE_C], mech.level_table[j, TABLE_G], mech.level_table[j, TABLE_S]
    c, g, s = level_row(mech.binary, mech.lattice, eps)
    return eps, c, g, s


@cached_njit
def hetero_report(mech, r, eps, c, g, s):
    """The report of a user at level eps > 0: CTB (c = tanh(eps/2)), or CTL at eps (on the
    lattice g with s steps)."""
    if mech.binary:
        return ctb_report_contracted(r, c, mech.sigmoid)
    if mech.lattice:
        return ctl_lattice_report(r, mech.sigmoid, g, 1.0 / g, s)
    return ctl_report(r, eps, mech.sigmoid)


@cached_njit
def hetero_silent(eps, s):
    """True if the user sends nothing: eps_t = 0, or a lattice CTL level too small to keep."""
    return eps <= 0.0 or not s < math.inf


@implements(privatize, HeteroCurator)
def _hetero_privatize(mech, r, public):
    eps, c, g, s = hetero_level(mech)
    if hetero_silent(eps, s):
        return 0.0
    return hetero_report(mech, r, eps, c, g, s)


@implements(respond, HeteroCurator)
def _hetero_respond(mech, env, arm, m):
    eps, c, g, s = hetero_level(mech)
    if hetero_silent(eps, s):
        return 0.0, 0.0
    return hetero_report(mech, draw(env, arm), eps, c, g, s), eps


# ------------------------------------------------------ mechanism objects
_SOURCES = {("ctl", False): "seed 000 Curator 1, Lemma 2", ("ctl", True): "seed 000 Curator 5, Lemma 8",
            ("ctb", False): "seed 000 Curator 3, Lemma 5", ("ctb", True): "seed 000 Curator 6, Lemma 9"}


def _curator_range(sig):
    return (-math.inf, math.inf) if sig else (0.0, 1.0)


_EPS = Param("eps", "privacy level", real(0.0, low_open=True))


class CTLMechanism(CatalogMechanism):
    """CTL(eps): r -> r + Laplace(1/eps), eps-LDP for rewards in [0, 1] (seed 000 Curator 1,
    Lemma 2), float-safe on a lattice by default (module docstring); engine component
    :class:`CTL` (LDP-UCB-L).  :class:`CTLSMechanism` is CTL-S on R."""

    NAME = "ctl"
    SUMMARY = "CTL: r + Laplace(1/eps), eps-LDP on [0,1] (input and noise on a lattice)"
    SOURCE = _SOURCES["ctl", False]
    PARAMS = (_EPS, ARITHMETIC_PARAM, LATTICE_PARAM)
    AUDIT = {"eps": 1.0}
    sigmoid = False

    def _setup(self, *, eps, arithmetic, lattice):
        self._claim(CTL.at(eps, self.sigmoid, arithmetic == "lattice", lattice, strict=True), eps=eps,
                    input_range=_curator_range(self.sigmoid),
                    params={"eps": eps, "arithmetic": arithmetic, "lattice": lattice}, arithmetic=arithmetic)


class CTLSMechanism(CTLMechanism):
    """CTL-S(eps): sigmoid(r) + Laplace(1/eps), eps-LDP on R (seed 000 Curator 5, Lemma 8);
    engine component :class:`CTL` with ``sigmoid`` (LDP-UCB-LS)."""

    NAME = "ctl_s"
    SUMMARY = "CTL-S: sigmoid(r) + Laplace(1/eps), eps-LDP on R (input and noise on a lattice)"
    SOURCE = _SOURCES["ctl", True]
    sigmoid = True


class CTBMechanism(CatalogMechanism):
    """CTB(eps): r -> Bernoulli((r e^eps + 1 - r)/(1 + e^eps)), eps-LDP for rewards in [0, 1]
    (seed 000 Curator 3, Lemma 5; R9); engine component :class:`CTB` (LDP-UCB-B).
    :class:`CTBSMechanism` is CTB-S on R.  Its reports are bits (``arithmetic="none"``)."""

    NAME = "ctb"
    SUMMARY = "CTB: Bernoulli((r e^eps + 1 - r)/(1 + e^eps)), eps-LDP on [0,1]"
    SOURCE = _SOURCES["ctb", False]
    PARAMS = (_EPS,)
    AUDIT = {"eps": 1.0}
    sigmoid = False

    def _setup(self, *, eps):
        self._claim(CTB.at(eps, self.sigmoid), eps=eps, input_range=_curator_range(self.sigmoid),
                    output_kind="bits", params={"eps": eps})


class CTBSMechanism(CTBMechanism):
    """CTB-S(eps): CTB applied to sigmoid(r), eps-LDP on R (seed 000 Curator 6, Lemma 9)."""

    NAME = "ctb_s"
    SUMMARY = "CTB-S: CTB applied to sigmoid(r), eps-LDP on R"
    SOURCE = _SOURCES["ctb", True]
    sigmoid = True


class HeteroCuratorMechanism(Mechanism):
    """The heterogeneous-privacy curator of seed 001 (Def. 3; Curators 1 and 3): each user
    draws eps_t ~ ``levels`` and reports CTB (``binary``) or CTL at eps_t, or nothing (0.0)
    at eps_t = 0.  The report alone (without eps_t) is a mixture over the levels, hence
    eps_max-LDP: that is the claim (a fixed level eps gives exactly CTL/CTB(eps)).
    Engine component :class:`HeteroCurator` (HeLDP-UCB-*), one user per response."""

    max_batch = 1

    def __init__(self, *, levels: PrivacyLevels, binary: bool, sigmoid: bool = False, arithmetic: str = "lattice"):
        if not isinstance(levels, PrivacyLevels):
            raise InputError(f"levels must be a PrivacyLevels (privacy_levels.fixed/discrete/"
                             f"truncated_gaussian); got {levels!r}")
        if arithmetic not in ARITHMETIC_PARAM.check.options:
            raise InputError(f"arithmetic must be one of {', '.join(ARITHMETIC_PARAM.check.options)} "
                             f"(got {arithmetic!r})")
        lattice = arithmetic == "lattice" and not binary
        comp = HeteroCurator.ctb(levels, bool(sigmoid)) if binary else HeteroCurator.ctl(levels, bool(sigmoid), lattice)
        kind = "ctb" if binary else "ctl"
        super().__init__(comp, eps=float(levels.hi), name=f"hetero_{kind}{'_s' if sigmoid else ''}",
                         input_range=_curator_range(bool(sigmoid)), output_kind="bits" if binary else "real",
                         params={"levels": levels, "binary": bool(binary), "arithmetic": arithmetic},
                         source="seed 001 Def. 3, " + _SOURCES[kind, bool(sigmoid)],
                         arithmetic="none" if binary else arithmetic)


for _mechanism in (CTLMechanism, CTBMechanism, CTLSMechanism, CTBSMechanism):
    _mechanism.register()
