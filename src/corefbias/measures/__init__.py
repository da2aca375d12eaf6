"""The bias measures and their statistics: each paper's formula once (Counter-GAP, GAP acc/F1/W-Bias and
its LP weighting, Winogender, pro/anti, ABC), the bootstrap and randomization tests, input validation and
the flat result format every metric module returns.

Measures take data and return numbers: they import nothing from the rest of corefbias and do no I/O.
"""
