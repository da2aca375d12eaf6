"""The unbiased-by-design GAP baselines of Kocijan et al. (2021, Sec. 3.2, Table 1), on name spans.

Both pick one personal name of the example and mark a candidate coreferent iff the picked name is
the name span the candidate is matched to (``corefbias.measures.gap_properties``: the closest name sharing a
character with it), so each needs only the number of names and the candidates' ranks:

  * **Random**: a name uniformly at random. Returned as the *expected* predictions
    (``1 / num_names`` for a candidate matched to a name, else 0); every GAP count is linear in the
    predictions, so scoring them gives the scores of the expected counts exactly — what an average
    of counts over infinitely many repetitions gives, rather than the paper's 10 000.
  * **Dist-k**: the k-th closest name (no answer when there are fewer than k names), i.e. the
    candidate whose rank is k.
"""

from __future__ import annotations

import numpy as np

from .gap_properties import NameProperties


def random_expected_predictions(properties: NameProperties) -> np.ndarray:
    """``(n, 2)`` probabilities that a uniformly picked name is candidate A / B.

    Parameters
    ----------
    properties : NameProperties
        Each example's number of names and candidates' ranks.

    Returns
    -------
    numpy.ndarray
        ``1 / num_names`` for a candidate matched to a name, else 0.

    Examples
    --------
    >>> properties = NameProperties(np.array([4, 2]), np.array([[1, 3], [2, 0]]))
    >>> random_expected_predictions(properties).tolist()
    [[0.25, 0.25], [0.5, 0.0]]
    """
    matched = properties.candidate_ranks > 0
    names = np.maximum(properties.num_names, 1)[:, None]
    return matched / names


def dist_k_predictions(properties: NameProperties, k: int) -> np.ndarray:
    """``(n, 2)`` booleans: the k-th closest name is candidate A / B.

    Parameters
    ----------
    properties : NameProperties
        Each example's number of names and candidates' ranks.
    k : int
        The rank picked (1: the closest name).

    Returns
    -------
    numpy.ndarray

    Raises
    ------
    ValueError
        If ``k`` is below 1.

    Examples
    --------
    >>> properties = NameProperties(np.array([4, 2]), np.array([[1, 3], [2, 0]]))
    >>> dist_k_predictions(properties, 1).tolist(), dist_k_predictions(properties, 2).tolist()
    ([[True, False], [False, False]], [[False, False], [True, False]])
    """
    if k < 1:
        raise ValueError(f"k must be at least 1 (the closest name), got {k}")
    return properties.candidate_ranks == k
