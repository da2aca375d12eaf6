"""Test-set weights that balance identified properties across two groups (Kocijan et al., 2021, Sec. 2).

The problem (Sec. 2.2). Examples ``1..n`` fall into two groups A and B (e.g. feminine and masculine).
Each *property* gives every example a value (or ``None``: the example is in no set of that property);
every value ``v`` of a property defines the set ``S = {examples with that value}``. The weights solve

    minimize    Σ over pairs i < j in the same group of max(w_i, w_j)          (Theorem 2.1)
    subject to  Σ_{A∩S} w = Σ_{B∩S} w   for every set S,
                Σ_A w = Σ_B w,   Σ w = n,   w ≥ 0.

The objective bounds how far any subset's weighted accuracy can drift from its plain accuracy, so it
keeps the weights as even as the balance constraints allow: with the group totals fixed at n/2,
``Σ_{i<j} max(w_i, w_j) = (|G| − 1)/2 · Σ_G w + ½ Σ_{i<j} |w_i − w_j|`` within a group G, i.e. it is
the (constant-shifted) sum of absolute differences between the weights of a group.

Why a solution constant on classes is optimal. Call two examples *equivalent* when they share their
group and the value of every property (their *signature*); the equivalence classes partition the data.
Let π be any permutation of the examples that maps every class onto itself. (i) Every constraint sums
weights over a group, a set S, or everything — each a union of whole classes — so w is feasible iff
π(w) is. (ii) π maps same-group pairs onto same-group pairs, so the objective f satisfies
f(π(w)) = f(w). (iii) f is convex: a sum of maxima of linear functions. Let w* be optimal and w̄ the
average of π(w*) over all such π. By (i) and convexity of the feasible set w̄ is feasible; by (ii) and
Jensen's inequality f(w̄) ≤ mean f(π(w*)) = f(w*), so w̄ is optimal as well; and w̄ is constant on
every class (each entry is its class's mean of w*). So searching over class-constant weights loses
nothing.

The class LP. With class weights ``v_c`` and class sizes ``s_c``, the objective becomes

    Σ_c C(s_c, 2) · v_c  +  Σ over class pairs c < d of one group of  s_c · s_d · max(v_c, v_d)

(the pairs inside a class all cost ``v_c``; the ``s_c·s_d`` pairs across two classes share one max).
One auxiliary ``m_cd ≥ v_c, m_cd ≥ v_d`` per pair of *classes* makes it a linear program whose size
depends on the number of distinct signatures, not on n: for GAP test (1773 examples, 167 classes)
about 7 000 pair variables instead of the ~785 000 of the paper's one-variable-per-example-pair LP
(:func:`per_pair_lp_weights`, kept as the reference the tests and the benchmark compare against).

Solving its dual. The class LP has two inequality rows per pair but only one row per class in its
dual: each pair's cost ``s_c·s_d`` is split between its two classes (``μ`` to the first, the rest to
the second, ``0 ≤ μ ≤ s_c·s_d``), and every class row says that the cost charged to it, plus its own
``C(s_c, 2)``, covers the prices of the sets and the group it belongs to:

    maximize    ½ (z_A + z_B)
    subject to  for every class c:  Σ_{S ∋ c} ±s_c·y_S + s_c·z_{group(c)} − Σ_{pairs (c, d)} μ_cd
                                    + Σ_{pairs (d, c)} μ_dc  ≤  C(s_c, 2) + Σ_{pairs (d, c)} s_d·s_c,
                0 ≤ μ_cd ≤ s_c·s_d,   y, z free,

(``+`` for group A, ``−`` for B; pairs ordered (first, second) as generated). It is always feasible
(all zero), its basis has one row per class, and by LP duality the multipliers of its class rows are
an optimal ``v``. HiGHS's simplex solves it in well under a second for GAP test, with the balance
constraints met to ~1e-12. An unbounded dual means no feasible weights exist.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import optimize, sparse

from . import structured_inputs, validation

# Tight HiGHS tolerances: the weights must meet every balance constraint to ~1e-9 of n.
_HIGHS_OPTIONS = {"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10}


class InfeasibleBalanceError(ValueError):
    """No non-negative weights balance all the given sets while each group keeps half the total.

    The message names the sets that cannot be balanced together (a Farkas certificate's).

    Examples
    --------
    Every f example has 2 names and no m example has: the set names=2 forces f's weights to 0:

    >>> try:
    ...     balance_weights(["f", "f", "m", "m"], {"names": [2, 2, 1, 1]})
    ... except InfeasibleBalanceError as error:
    ...     print(str(error)[:60])
    no non-negative weights give 'f' and 'm' half of the total w
    """


@dataclass(frozen=True)
class BalancedWeights:
    """Per-example weights (``Σ = n``), their objective value, and the size of the LP solved.

    Attributes
    ----------
    weights : numpy.ndarray
        One weight per example; they sum to the number of examples.
    objective : float
        Σ over same-group pairs of max(w_i, w_j) (:func:`pairwise_max_objective`).
    num_classes : int
        The LP's weight variables: signature classes, or examples for the per-pair LP.
    num_sets : int
        The property sets balanced.

    Examples
    --------
    >>> solved = balance_weights(["f", "f", "m", "m"], {"names": [1, 2, 1, 2]})
    >>> solved.weights.tolist(), solved.num_classes, solved.num_sets
    ([1.0, 1.0, 1.0, 1.0], 4, 2)
    """

    weights: np.ndarray
    objective: float
    num_classes: int
    num_sets: int


@dataclass(frozen=True)
class _Problem:
    """Groups and property sets encoded as integers."""

    in_group_a: np.ndarray  # (n,) bool
    group_labels: tuple[Hashable, Hashable]
    set_codes: np.ndarray  # (n, properties) int: the example's set for each property, -1 for none
    set_names: list[str]


def _encode(groups: Sequence, properties: Mapping[str, Sequence]) -> _Problem:
    validation.check_column("groups", groups)
    structured_inputs.check_label_values("groups", groups)
    if not isinstance(properties, Mapping):
        raise ValueError(
            f"properties must map each property's name to its values (one per example), got {type(properties).__name__}"
        )
    for name, values in properties.items():
        validation.check_column(f"property {name!r}", values)
        # NaN is unequal to itself: every NaN would make a set of its own, whose weight is forced to 0.
        structured_inputs.check_label_values(f"property {name!r}", values, allow_none=True)
    labels = list(dict.fromkeys(groups))
    if len(labels) != 2:
        raise ValueError(
            f"weighting balances exactly two groups, but groups has {len(labels)} distinct label(s) "
            f"{labels[:5]!r}; pass one of two labels per example (e.g. 'female'/'male')"
        )
    n = len(groups)
    set_names: list[str] = []
    columns = []
    for name, values in properties.items():
        if len(values) != n:
            raise ValueError(
                f"property {name!r} has {len(values)} values but there are {n} examples; pass one value per example"
            )
        index: dict = {}
        codes = np.full(n, -1, dtype=np.int64)
        for position, value in enumerate(values):
            if value is None:
                continue
            if value not in index:
                index[value] = len(set_names)
                set_names.append(f"{name}={value}")
            codes[position] = index[value]
        columns.append(codes)
    set_codes = np.column_stack(columns) if columns else np.empty((n, 0), dtype=np.int64)
    in_group_a = np.asarray([label == labels[0] for label in groups], dtype=bool)
    return _Problem(in_group_a, (labels[0], labels[1]), set_codes, set_names)


def pairwise_max_objective(weights, groups: Sequence) -> float:
    """Σ over same-group pairs of max(w_i, w_j), via sorting: the i-th smallest of a group is the max of i−1 pairs.

    Parameters
    ----------
    weights : sequence of float
        One weight per example.
    groups : sequence
        One group label per example.

    Returns
    -------
    float

    Examples
    --------
    Group f's pair costs max(1, 3) = 3; group m's three pairs 2 + 2 + 2:

    >>> pairwise_max_objective([1.0, 3.0, 2.0, 2.0, 0.0], ["f", "f", "m", "m", "m"])
    9.0
    """
    validation.check_lengths(weights=weights, groups=groups)
    weights = np.asarray(validation.check_numbers("weights", weights), dtype=float)
    groups = np.asarray(groups, dtype=object)
    total = 0.0
    for label in dict.fromkeys(groups.tolist()):
        ordered = np.sort(weights[groups == label])
        total += float(ordered @ np.arange(len(ordered)))
    return total


def balance_residuals(weights, groups: Sequence, properties: Mapping[str, Sequence]) -> dict[str, float]:
    """How far weights are from every constraint: ``Σ_A − Σ_B`` per set and for the groups, ``Σ w − n``.

    Parameters
    ----------
    weights : sequence of float
        One weight per example.
    groups : sequence
        One of two group labels per example.
    properties : mapping of str to sequence
        Property name → one value per example (None: in no set of it).

    Returns
    -------
    dict of str to float
        ``total`` (Σ w − n), ``groups`` (Σ_A − Σ_B) and ``<property>=<value>`` per set.

    Examples
    --------
    >>> balance_residuals([1.0, 1.0, 1.0, 1.0], ["f", "f", "m", "m"], {"names": [1, 2, 1, 1]})
    {'total': 0.0, 'groups': 0.0, 'names=1': -1.0, 'names=2': 1.0}
    """
    validation.check_lengths(weights=weights, groups=groups)
    weights = np.asarray(validation.check_numbers("weights", weights), dtype=float)
    problem = _encode(groups, properties)
    signed = np.where(problem.in_group_a, weights, -weights)
    residuals = {"total": float(weights.sum() - len(weights)), "groups": float(signed.sum())}
    for column in problem.set_codes.T:
        member = column >= 0
        sums = np.bincount(column[member], weights=signed[member], minlength=len(problem.set_names))
        for index in np.unique(column[member]):
            residuals[problem.set_names[index]] = float(sums[index])
    return residuals


def _equalities(
    problem: _Problem, set_codes: np.ndarray, in_a: np.ndarray, sizes: np.ndarray
) -> tuple[sparse.csr_matrix, np.ndarray]:
    """Balance rows over items (examples or classes of ``sizes`` examples), scaled by 1/n.

    One row per set, ``Σ_{A∩S} − Σ_{B∩S} = 0``, then ``Σ_A = ½`` and ``Σ_B = ½`` (together the balance
    between the groups and ``Σ w = n``).
    """
    n = sizes.sum()
    signed = np.where(in_a, sizes, -sizes) / n
    items, properties = np.nonzero(set_codes >= 0)
    sets = sparse.csr_matrix(
        (signed[items], (set_codes[items, properties], items)), shape=(len(problem.set_names), len(sizes))
    )
    groups = sparse.csr_matrix(np.vstack([np.where(in_a, sizes, 0.0), np.where(in_a, 0.0, sizes)]) / n)
    return sparse.vstack([sets, groups]).tocsr(), np.concatenate([np.zeros(len(problem.set_names)), [0.5, 0.5]])


def _same_group_pairs(in_a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Index pairs (first < second) of items in the same group."""
    firsts, seconds = [], []
    for members in (np.flatnonzero(in_a), np.flatnonzero(~in_a)):
        i, j = np.triu_indices(len(members), k=1)
        firsts.append(members[i])
        seconds.append(members[j])
    return np.concatenate(firsts), np.concatenate(seconds)


def balance_weights(groups: Sequence, properties: Mapping[str, Sequence]) -> BalancedWeights:
    """Optimal weights of Sec. 2.2 for two groups and any number of property labelings.

    ``groups``: one of two labels per example. ``properties``: name → one value per example (``None``
    puts the example in no set of that property; as the other sets of the property and the group
    totals are balanced, the ``None`` examples of a property end up balanced too, as if ``None`` were
    a value of its own). Exact optimum of the paper's LP, solved over signature classes through the
    dual of the class LP (see the module docstring). Raises :class:`InfeasibleBalanceError` naming
    the sets that cannot be balanced together.

    Parameters
    ----------
    groups : sequence
        One of two group labels per example.
    properties : mapping of str to sequence
        Property name → one value per example (None: in no set of it).

    Returns
    -------
    BalancedWeights

    Raises
    ------
    InfeasibleBalanceError
        If no non-negative weights balance every set.
    ValueError
        If there are not exactly two groups, or a property's values are not one per example or not labels.

    Examples
    --------
    Group f has names 1, 1, 2 and group m names 1, 2, 2: the weights give each group's names=1 and names=2 sets the
    same total, at the least Σ max(w_i, w_j) (7.5; equal weights, 6, balance nothing):

    >>> groups, properties = ["f", "f", "f", "m", "m", "m"], {"names": [1, 1, 2, 1, 2, 2]}
    >>> solved = balance_weights(groups, properties)
    >>> round(solved.objective, 6), round(float(solved.weights.sum()), 6)
    (7.5, 6.0)
    >>> {name: round(residual, 9) for name, residual in balance_residuals(solved.weights, groups, properties).items()}
    {'total': 0.0, 'groups': 0.0, 'names=1': 0.0, 'names=2': 0.0}
    """
    problem = _encode(groups, properties)
    n = len(problem.in_group_a)
    keys = np.column_stack([problem.in_group_a.astype(np.int64), problem.set_codes])
    class_of = np.zeros(n, dtype=np.int64)
    for column in keys.T:  # one integer per signature, kept compact by re-numbering after each column
        _, class_of = np.unique(class_of * (column.max() + 2) + column + 1, return_inverse=True)
    _, first, sizes = np.unique(class_of, return_index=True, return_counts=True)
    class_keys = keys[first]
    sizes = sizes.astype(float)
    class_in_a = class_keys[:, 0].astype(bool)
    equalities, rhs = _equalities(problem, class_keys[:, 1:], class_in_a, sizes)
    firsts, seconds = _same_group_pairs(class_in_a)
    # Costs in units of n² so that they stay O(1) however large n is.
    pair_costs = sizes[firsts] * sizes[seconds] / n**2
    class_costs = sizes * (sizes - 1) / 2 / n**2
    num_classes, num_pairs = len(sizes), len(firsts)
    shares = sparse.csr_matrix(
        (
            np.concatenate([-np.ones(num_pairs), np.ones(num_pairs)]),
            (np.concatenate([firsts, seconds]), np.tile(np.arange(num_pairs), 2)),
        ),
        shape=(num_classes, num_pairs),
    )
    dual = optimize.linprog(
        np.concatenate([np.zeros(num_pairs), -rhs]),
        A_ub=sparse.hstack([shares, equalities.T]).tocsr(),
        b_ub=class_costs + np.bincount(seconds, weights=pair_costs, minlength=num_classes),
        bounds=np.column_stack(
            [
                np.concatenate([np.zeros(num_pairs), np.full(len(rhs), -np.inf)]),
                np.concatenate([pair_costs, np.full(len(rhs), np.inf)]),
            ]
        ),
        method="highs-ds",
        options=_HIGHS_OPTIONS,
    )
    if dual.status == 3:
        raise InfeasibleBalanceError(_infeasibility_message(problem, equalities))
    if dual.status != 0:
        raise RuntimeError(f"the weighting LP was not solved: {dual.message}")
    weights = np.maximum(-dual.ineqlin.marginals, 0.0)[class_of]
    return BalancedWeights(weights, pairwise_max_objective(weights, groups), num_classes, len(problem.set_names))


def per_pair_lp_weights(
    groups: Sequence, properties: Mapping[str, Sequence], *, time_limit: float | None = None
) -> BalancedWeights:
    """The paper's LP as written in Sec. 2.2: one weight per example and one ``m_ij`` per same-group pair.

    (Its two balance rows are written ``Σ_A w = Σ_B w = n/2``, equivalent to ``Σ_A w = Σ_B w, Σ w = n``.)

    The reference that :func:`balance_weights` is checked against (tests) and timed against
    (benchmark); solved with HiGHS's interior-point method, as the paper used Matlab's.

    Parameters
    ----------
    groups : sequence
        One of two group labels per example.
    properties : mapping of str to sequence
        Property name → one value per example (None: in no set of it).
    time_limit : float, optional
        Seconds after which HiGHS stops.

    Returns
    -------
    BalancedWeights

    Raises
    ------
    TimeoutError
        If HiGHS stops at ``time_limit``.
    InfeasibleBalanceError
        If no non-negative weights balance every set.

    Examples
    --------
    The same objective as :func:`balance_weights` on a small problem:

    >>> groups, properties = ["f", "f", "f", "m", "m", "m"], {"names": [1, 1, 2, 1, 2, 2]}
    >>> per_pair, by_class = per_pair_lp_weights(groups, properties), balance_weights(groups, properties)
    >>> round(per_pair.objective, 6), round(by_class.objective, 6)
    (7.5, 7.5)
    """
    problem = _encode(groups, properties)
    n = len(problem.in_group_a)
    equalities, rhs = _equalities(problem, problem.set_codes, problem.in_group_a, np.ones(n))
    firsts, seconds = _same_group_pairs(problem.in_group_a)
    num_pairs = len(firsts)
    # Rows w_i − m_p ≤ 0 and w_j − m_p ≤ 0 for each pair p, over the variables [w, m].
    max_rows = sparse.csr_matrix(
        (
            np.tile([1.0, -1.0], 2 * num_pairs),
            (
                np.repeat(np.arange(2 * num_pairs), 2),
                np.column_stack([np.concatenate([firsts, seconds]), n + np.tile(np.arange(num_pairs), 2)]).ravel(),
            ),
        ),
        shape=(2 * num_pairs, n + num_pairs),
    )
    options = dict(_HIGHS_OPTIONS)
    if time_limit is not None:
        options["time_limit"] = float(time_limit)
    result = optimize.linprog(
        np.concatenate([np.zeros(n), np.ones(num_pairs)]),
        A_ub=max_rows,
        b_ub=np.zeros(2 * num_pairs),
        A_eq=sparse.hstack([equalities, sparse.csr_matrix((equalities.shape[0], num_pairs))]).tocsr(),
        b_eq=rhs,
        bounds=(0, None),
        method="highs-ipm",
        options=options,
    )
    if result.status == 1:
        raise TimeoutError(
            f"the per-pair LP ({n} weights, {num_pairs} pair variables) hit the time limit: {result.message}"
        )
    if result.status == 2:
        raise InfeasibleBalanceError(_infeasibility_message(problem, equalities))
    if result.status != 0:
        raise RuntimeError(f"the per-pair LP was not solved: {result.message}")
    weights = np.maximum(result.x[:n], 0.0)
    return BalancedWeights(weights, pairwise_max_objective(weights, groups), n, len(problem.set_names))


def _infeasibility_message(problem: _Problem, equalities: sparse.csr_matrix) -> str:
    """Name the sets in a sparsest-in-L1 Farkas certificate of infeasibility.

    ``equalities`` holds the set rows, then the two group rows ``a·v = ½`` and ``b·v = ½``. The
    system has no solution ``v ≥ 0`` iff multipliers ``y`` (sets) and ``α, β`` (groups) exist with
    ``Σ y_S·row_S + α·a + β·b ≥ 0`` on every item and ``α + β < 0``; the sets with ``y_S ≠ 0`` are
    the ones whose balance cannot hold together.
    """
    num_sets = len(problem.set_names)
    sets, group_rows = equalities[:num_sets], equalities[num_sets:]
    combined = sparse.vstack([sets, -sets, group_rows]).T.tocsr()
    certificate = optimize.linprog(
        np.concatenate([np.ones(2 * num_sets), [0.0, 0.0]]),
        A_ub=sparse.vstack([-combined, sparse.csr_matrix(np.concatenate([np.zeros(2 * num_sets), [1.0, 1.0]]))]),
        b_ub=np.concatenate([np.zeros(combined.shape[0]), [-1.0]]),
        bounds=[(0, None)] * (2 * num_sets) + [(None, None)] * 2,
        method="highs",
    )
    multipliers = certificate.x[:num_sets] - certificate.x[num_sets : 2 * num_sets]
    offending = np.flatnonzero(np.abs(multipliers) > 1e-9)
    counts = np.zeros((num_sets, 2), dtype=int)
    for column in problem.set_codes.T:
        member = column >= 0
        np.add.at(counts, (column[member], (~problem.in_group_a[member]).astype(int)), 1)
    a, b = problem.group_labels
    listing = "; ".join(
        f"{problem.set_names[index]} ({a}: {counts[index, 0]}, {b}: {counts[index, 1]})" for index in offending
    )
    return (
        f"no non-negative weights give {a!r} and {b!r} half of the total weight each while balancing these "
        f"sets: {listing}. A set with examples of only one group forces their weights to 0; remove or merge "
        f"such property values (e.g. trim rare values) so that each group keeps some weight"
    )
