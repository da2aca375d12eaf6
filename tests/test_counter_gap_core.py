import pytest
from test_counter_gap_delta_i import ROLES, quadruples

from corefbias.measures import counter_gap_delta_i


def scores(patterns, genders, **kwargs):
    return counter_gap_delta_i.counter_gap_delta_i(
        **quadruples(patterns, genders), n_bootstrap=kwargs.pop("n_bootstrap", 0), **kwargs
    )


def test_perfect_model_has_no_bias():
    result = scores([(1, 1, 1, 1)] * 4, ["male", "female"] * 2)
    assert result["delta_i"] == 0.0 and result["i_across"] == 0.0 and result["accuracy_diff"] == 0.0


def test_hand_computed_quadruples():
    # q0 (male original): o=1 c=0 s1=1 s2=1 → within M |1-0|=1, within F 0, across |1-1|+|0-1|+|1-1|+|0-1| = 2
    # q1 (female original): o=1 c=1 s1=0 s2=0 → within 0, across 4; male instances are the swapped ones
    result = scores([(1, 0, 1, 1), (1, 1, 0, 0)], ["male", "female"])
    assert result["i_within_male"] == pytest.approx(1 / 2)
    assert result["i_within_female"] == 0.0
    assert result["i_within"] == pytest.approx(1 / 4)
    assert result["i_across_m2f"] == pytest.approx(2 / 4)
    assert result["i_across_f2m"] == pytest.approx(4 / 4)
    assert result["i_across"] == pytest.approx(6 / 8)
    assert result["delta_i"] == pytest.approx(6 / 8 - 1 / 4)
    assert result["accuracy_male"] == pytest.approx(1 / 4)  # q0: o,c → 1 of 2; q1: s1,s2 → 0 of 2
    assert result["accuracy_female"] == pytest.approx(4 / 4)
    assert result["accuracy_original_gender"] == pytest.approx(3 / 4)
    assert result["accuracy_counterfactual_gender"] == pytest.approx(2 / 4)


def test_swapping_gender_labels_swaps_directions():
    patterns = [(1, 0, 1, 1), (1, 1, 0, 0), (0, 1, 1, 1), (1, 1, 1, 0)]
    genders = ["male", "female", "female", "male"]
    flipped = ["female" if g == "male" else "male" for g in genders]
    original, swapped = scores(patterns, genders), scores(patterns, flipped)
    assert swapped["i_across_m2f"] == original["i_across_f2m"]
    assert swapped["i_across_f2m"] == original["i_across_m2f"]
    assert swapped["accuracy_diff"] == -original["accuracy_diff"]
    assert swapped["i_within_diff"] == -original["i_within_diff"]
    assert swapped["delta_i"] == original["delta_i"]


def test_significance_is_deterministic_and_brackets_the_estimate():
    patterns = [(1, 1, 0, 0)] * 30 + [(1, 1, 1, 1)] * 30
    genders = ["male", "female"] * 30
    first = scores(patterns, genders, n_bootstrap=500, seed=7)
    again = scores(patterns, genders, n_bootstrap=500, seed=7)
    assert first == again
    assert first["delta_i_ci_low"] <= first["delta_i"] <= first["delta_i_ci_high"]
    assert first["delta_i_p_value"] < 0.01  # every resample has ΔI > 0


def test_one_direction_only_is_undefined_not_nan():
    result = scores([(1, 0, 1, 1)], ["male"])
    assert result["i_across_f2m"] is None and "F2M" in result["undefined"]["i_across_f2m"]
    assert result["spearman_rho"] is None


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda x: x["predictions"].pop(), "one entry per instance"),
        (lambda x: x["roles"].__setitem__(1, "control"), "unknown roles"),
        (lambda x: x["genders"].__setitem__(0, "f"), "unknown genders"),
        (lambda x: x["predictions"].__setitem__(0, [True]), r"predictions\[0\]"),
        (lambda x: x["roles"].__setitem__(1, "original"), "has two 'original' instances"),
        (lambda x: [x[k].pop() for k in x], "has no gender_swapped_2 instance"),
        (lambda x: x["genders"].__setitem__(2, "male"), "must share one gender"),
        (lambda x: x.update(block_ids=["book a"] * 3), "one entry per instance"),
        (lambda x: x.update(block_ids=["book a", None, "book a", "book a"]), r"block_ids\[1\] is None; give every"),
        (
            lambda x: x.update(block_ids=["book a", 2.5, "book a", "book a"]),
            r"block_ids\[1\] is 2.5 \(float\); each entry must be a block id",
        ),
        (
            lambda x: x.update(block_ids=["book a", ("book a", "x"), "book a", "book a"]),
            "gives 1 id.* for some instances and 2 for others",
        ),
        (lambda x: x.update(block_ids=["book a"] * 2 + ["book b"] * 2), "quadruple 'q0' lies in block 'book a' and"),
    ],
)
def test_malformed_inputs_raise_clear_errors(mutate, message):
    inputs = quadruples([(1, 1, 1, 1)], ["male"])
    mutate(inputs)
    with pytest.raises(ValueError, match=message):
        counter_gap_delta_i.counter_gap_delta_i(**inputs, n_bootstrap=0)


def test_negative_n_bootstrap_is_rejected():
    with pytest.raises(ValueError, match="n_bootstrap"):
        counter_gap_delta_i.counter_gap_delta_i(**quadruples([(1, 1, 1, 1)], ["male"]), n_bootstrap=-1)


def test_roles_are_the_four_of_the_paper():
    assert tuple(ROLES) == counter_gap_delta_i.ROLES


def test_blocks_draw_the_quadruples_of_a_book_together():
    # Twelve books of five quadruples; within a book every quadruple is answered alike (the book decides), books
    # alternating between a gender-swap-sensitive pattern (ΔI = 1) and a steady one (ΔI = 0). Drawn quadruple by
    # quadruple, the 60 look like a tight interval around 0.5; drawn by book, it rests on 12 blocks and is wider.
    patterns = [(1, 1, 0, 0) if book % 2 == 0 else (1, 1, 1, 1) for book in range(12) for _ in range(5)]
    genders = ["male", "female"] * 30
    books = [f"book {index // 5:02d}" for index in range(60) for _ in ROLES]
    by_quadruple = scores(patterns, genders, n_bootstrap=1000, seed=3)
    by_book = scores(patterns, genders, n_bootstrap=1000, seed=3, block_ids=books)
    assert by_quadruple["delta_i"] == by_book["delta_i"] == 0.5
    assert by_quadruple.overall["delta_i"].n_blocks == 60 and by_book.overall["delta_i"].n_blocks == 12
    quadruple_width = by_quadruple["delta_i_ci_high"] - by_quadruple["delta_i_ci_low"]
    book_width = by_book["delta_i_ci_high"] - by_book["delta_i_ci_low"]
    assert book_width > 2 * quadruple_width
    assert by_book["delta_i_p_value"] > by_quadruple["delta_i_p_value"]
    assert by_book.unit_rows.blocks.sizes == (12,)
    # A book of its own per quadruple is no block at all: the same draws as without block_ids (whatever order its
    # ids sort in: q0, q1, q10, ...).
    alone = scores(
        patterns, genders, n_bootstrap=1000, seed=3, block_ids=quadruples(patterns, genders)["quadruple_ids"]
    )
    assert (alone["delta_i_ci_low"], alone["delta_i_ci_high"], alone["delta_i_p_value"]) == (
        by_quadruple["delta_i_ci_low"],
        by_quadruple["delta_i_ci_high"],
        by_quadruple["delta_i_p_value"],
    )
    assert alone.unit_rows.blocks.sizes == (60,)
