"""Anytime-valid evidence against a privacy claim: a test supermartingale of betting e-values.

A sequential audit (:mod:`.stages.sequential`) counts, round after round, an event S that was
chosen on the outputs of earlier rounds only, on fresh outputs: a Poisson(m) number of outputs
of each input (Poissonization), of which k1 (favoured input) and k2 (the other) fall in S.  The
counts are independent Poisson(m p1) and Poisson(m p2), so for every a >= 0 with a E < 1,
E = e^eps,

    E[(1 + a)^k1 (1 - a E)^k2] = exp(m (a p1 - a E p2)) <= exp(m a delta)

whenever the claim p1 <= E p2 + delta holds, whatever S is.  The round's *e-value*

    F_a = (1 + a)^k1 (1 - a E)^k2 exp(-m a delta)

therefore has expectation at most 1 given everything before the round, and the product of the
rounds' e-values (the *wealth*) is a non-negative supermartingale under the claim: by Ville's
inequality it ever reaches 1/alpha with probability at most alpha, whenever the audit looks and
however it chose its events and when to stop (Ramdas et al., "Game-theoretic statistics and
safe anytime-valid inference", Stat. Sci. 2023; Gonzalez, Dulce-Rubio, Ramdas & Ribero,
"Sequentially auditing differential privacy", NeurIPS 2025, bet on an MMD witness; this is the
same construction on the audit's events).  At delta = 0 it is the betting form of the exact
conditional test of :mod:`.statistics` (given k1 + k2, k1 is binomial).

The bet a = c / E of a round is chosen before the round, from the outputs the event was chosen
on (:func:`bet_size`): KELLY_FRACTION (3/4) of the Kelly bet c* = (p1 - delta - E p2) /
(p1 - delta + p2) that maximises the expected log-e-value at the frequencies (p1, p2) those
outputs show (a fraction of Kelly keeps most of the growth when the frequencies are
overestimated, as those of a selected event are); an event that shows no excess gets no bet
(c = 0: the wealth does not move).  A layer that certifies two events in a round bets half its wealth on each (the
average of two e-values is one).  The bet only moves the power: any predictable bet keeps the
wealth a supermartingale under the claim.

The claim is rejected at level alpha when the wealth at its eps reaches 1/alpha; the certified
lower bound is the largest eps' of a fine grid such that the wealth at every grid point up to
eps' has reached 1/alpha (if the mechanism is eps*-DP, the first grid point at or above eps* is a
claim that holds, whose wealth reaches 1/alpha with probability at most alpha: the bound is below
eps* at confidence 1 - alpha); the p-value is 1 / (the largest wealth at the claim so far).  Below
the claim half of every eps' wealth bets the claim's stake (:class:`Wealth`), so that a rejected
claim is not undercut by bets an earlier round's event lost at some smaller eps'.
"""
from __future__ import annotations

import math

import numpy as np

#: the largest bet c (a = c / e^eps), and the fraction of the Kelly bet that is bet
MAX_BET, KELLY_FRACTION = 0.9, 0.75


def eps_grid(claim: float) -> np.ndarray:
    """The eps' values the wealth is tracked at: the claim, steps of claim / 1000 up to 4 x the
    claim, then log-spaced up to 60 (at least steps of 0.001 near 0)."""
    top = 4.0 * max(claim, 0.25)
    return np.unique(np.concatenate([[claim], np.linspace(0.0, top, 4001), np.geomspace(top, 60.0, 1500)]))


def bet_size(p1, p2, eps, delta: float) -> np.ndarray:
    """The bet c at every eps' of ``eps`` on events of frequencies p1 (favoured input), p2:
    KELLY_FRACTION of the Kelly bet (clipped to [0, MAX_BET]; 0 where an event shows no excess)."""
    e = np.exp(np.asarray(eps, dtype=np.float64))
    gain = np.asarray(p1, dtype=np.float64) - delta
    with np.errstate(divide="ignore", invalid="ignore"):
        kelly = np.where(gain + p2 > 0, (gain - e * p2) / (gain + p2), 0.0)
    return KELLY_FRACTION * np.clip(kelly, 0.0, MAX_BET)


def growth(p1, p2, eps: float, delta: float):
    """The expected log-e-value per output of each input of a round bet on events of frequencies
    p1 (favoured input), p2 (arrays or numbers), at the bet :func:`bet_size` gives them (0 where it
    bets nothing)."""
    p1, p2 = np.asarray(p1, dtype=np.float64), np.asarray(p2, dtype=np.float64)
    e, c = math.exp(eps), bet_size(p1, p2, eps, delta)
    out = p1 * np.log1p(c / e) + p2 * np.log1p(-c) - c * delta / e
    return out if out.ndim else float(out)


def log_evalue(k1, k2, m: float, c: np.ndarray, eps: np.ndarray, delta: float) -> np.ndarray:
    """log F of one round's counts (k1 favoured, k2 other, Poisson(m) outputs of each input) at bet
    c, for every eps' of ``eps``."""
    a = c / np.exp(np.asarray(eps, dtype=np.float64))
    return k1 * np.log1p(a) + k2 * np.log1p(-c) - m * a * delta


class Wealth:
    """One layer's wealth at every eps' of :func:`eps_grid` (and its running maximum).

    Above the claim each eps' bets as its own frequencies say (:func:`bet_size` at eps').  Below it,
    half the wealth does that and half bets the claim's own stake a = c(claim) / e^claim at every
    eps' (c = a e^eps', smaller than the claim's): that half is at least the claim's wealth, so a
    rejected claim rejects every eps' below it up to a factor 2, and the certified bound of a
    violated layer does not fall far below its claim because earlier rounds' events lost at some
    smaller eps' (both halves are test supermartingales under every claim at or below eps', so
    their average is)."""

    def __init__(self, claim: float, delta: float):
        self.claim, self.delta = claim, delta
        self.eps = eps_grid(claim)
        self.at_claim = int(np.searchsorted(self.eps, claim))
        self.below = self.eps < claim
        self.own = np.zeros(self.eps.size)                       # log wealth of each eps' own bets
        self.claims = np.zeros(self.eps.size)                    # log wealth of the claim's stake, below it
        self.log_wealth = np.zeros(self.eps.size)
        self.best = np.zeros(self.eps.size)                      # running max of the log wealth
        self.rounds = 0

    def bet(self, counts: list[tuple[int, int]], frequencies: list[tuple[float, float]], m: float) -> None:
        """One round: ``counts`` [(k1, k2)] of the event(s) the layer certifies this round (two: half
        the wealth on each), on Poisson(m) outputs of each input, bet on as ``frequencies`` [(p1, p2)]
        (estimated before the round) say."""
        stake = np.exp(self.eps[self.below] - self.claim)
        own, claims = [], []
        for (k1, k2), (p1, p2) in zip(counts, frequencies):
            own.append(log_evalue(k1, k2, m, bet_size(p1, p2, self.eps, self.delta), self.eps, self.delta))
            c = float(bet_size(p1, p2, self.claim, self.delta)) * stake
            claims.append(log_evalue(k1, k2, m, c, self.eps[self.below], self.delta))
        self.own += _average(own)
        self.claims[self.below] += _average(claims)
        self.log_wealth = self.own.copy()
        self.log_wealth[self.below] = _average([self.own[self.below], self.claims[self.below]])
        self.best = np.maximum(self.best, self.log_wealth)
        self.rounds += 1

    def rejects(self, level: float) -> bool:
        """Whether the claim has been rejected at ``level`` (the wealth at its eps reached 1 / level)."""
        return bool(self.best[self.at_claim] >= -math.log(level))

    def p_value(self) -> float:
        """min(1, 1 / the largest wealth at the claim so far): at most ``level`` exactly when rejected."""
        return float(min(1.0, math.exp(-self.best[self.at_claim])))

    def lower_bound(self, level: float, from_claim: bool = False) -> float:
        """The largest grid eps' such that the wealth at every grid point up to it reached 1 / level (0: none).

        ``from_claim``: when the claim is rejected, the grid points below it count as reached (a mechanism
        that is eps'-DP for an eps' below the claim is claim-DP, so the claim's rejection covers them; the
        first grid point at or above the true eps is still rejected with probability at most ``level``).
        Two wealths that must both reject (an intersection-union test) thus bound eps from the claim up."""
        reached = self.best >= -math.log(level)
        if from_claim and reached[self.at_claim]:
            reached[:self.at_claim] = True
        fails = np.flatnonzero(~reached)
        if fails.size == 0:
            return float(self.eps[-1])
        return float(self.eps[fails[0] - 1]) if fails[0] > 0 else 0.0


def _average(logs: list[np.ndarray]) -> np.ndarray:
    """The log of the average of e-values given by their logs (one: itself)."""
    return logs[0] if len(logs) == 1 else np.logaddexp.reduce(logs, axis=0) - math.log(len(logs))


def best_case_bound(rounds: list[float], claim: float, delta: float, level: float) -> float:
    """The largest bound rounds of these Poisson means could certify: every output of the favoured
    input in the event, none of the other's (the sequential audit's resolution)."""
    w = Wealth(claim, delta)
    for m in rounds:
        w.bet([(m, 0)], [(1.0, 0.0)], m)
    return w.lower_bound(level)


def rare_event_floor(mass: float, eps: float, delta: float, level: float) -> float:
    """The outputs per input a bet on an event of this mass under the favoured input, never produced by
    the other, needs in expectation to reach 1 / level, at the best bet (c -> 1) and with the event
    known in advance: ln(1/level) / (mass ln(1 + e^-eps) - delta e^-eps) (inf when the mass does not
    exceed delta).  No sequential audit of this kind certifies the violation with fewer."""
    rate = mass * math.log1p(math.exp(-eps)) - delta * math.exp(-eps)
    return math.log(1.0 / level) / rate if rate > 0 else math.inf
