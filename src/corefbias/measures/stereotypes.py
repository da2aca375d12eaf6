"""An occupation's gender stereotype from the share of women in its workforce: its majority gender.

Every set draws the line at 50 %; they differ only on an occupation at exactly 50 %, which each set's
statistics define:
  * Winogender (Rudinger et al. 2018, Table 2): an occupation "≥ 50 % female" is female-majority, so a
    tie is ``"female"`` (``WINOGENDER_TIE``);
  * ABC as GenDa Lens uses it (Danish workforce, Perc-Da): "above 50: female, below 50: male", so a
    tie has no stereotype (``ABC_TIE = None``).
"""

from __future__ import annotations

import numpy as np

MAJORITY_PCT = 50.0
WINOGENDER_TIE = "female"
ABC_TIE = None


def majority_gender(pct_female: float | None, *, tie: str | None) -> str | None:
    """``"female"`` above 50 % women, ``"male"`` below, ``tie`` at exactly 50 %; None without a figure.

    Parameters
    ----------
    pct_female : float or None
        The share of women in the occupation's workforce, in percent.
    tie : str or None
        The stereotype of an occupation at exactly 50 % (``WINOGENDER_TIE`` or ``ABC_TIE``).

    Returns
    -------
    str or None

    Examples
    --------
    >>> majority_gender(37.9, tie=WINOGENDER_TIE), majority_gender(50.0, tie=WINOGENDER_TIE)
    ('male', 'female')
    >>> majority_gender(50.0, tie=ABC_TIE) is None, majority_gender(None, tie=ABC_TIE) is None
    (True, True)
    """
    if pct_female is None:
        return None
    if pct_female == MAJORITY_PCT:
        return tie
    return "female" if pct_female > MAJORITY_PCT else "male"


def female_majority(pct_female, *, tie: str | None) -> np.ndarray:
    """``majority_gender(...) == "female"`` for each of an array of percentages.

    Parameters
    ----------
    pct_female : array_like
        Percentages of women.
    tie : str or None
        The stereotype at exactly 50 %.

    Returns
    -------
    numpy.ndarray
        One bool per percentage.

    Examples
    --------
    >>> female_majority([37.9, 50.0, 90.0], tie=WINOGENDER_TIE).tolist()
    [False, True, True]
    >>> female_majority([50.0], tie=ABC_TIE).tolist()
    [False]
    """
    pct = np.asarray(pct_female, dtype=float)
    return (pct > MAJORITY_PCT) | ((pct == MAJORITY_PCT) & (tie == "female"))
