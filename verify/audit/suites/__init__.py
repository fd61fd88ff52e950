"""Known-answer suites and planted bugs: what the audit must find, and on what.

* :mod:`.sniper`   the 20 mechanisms of the DP-Sniper benchmark (S&P'21) and a floating-point
                   Laplace, with their published eps lower bounds and exact eps where known;
* :mod:`.planted`  mechanisms written the way users write them, each with one bug of a known
                   class (floating point, atom, rare output, add/remove, vector, scale), and
                   the same mechanism fixed;
* :mod:`.catalog`  dpbench's own mechanisms at their claims, and the negative controls of
                   :mod:`verify.audit.controls`;
* :mod:`.report`   the markdown reports (``dpbench audit-suite``).
"""
