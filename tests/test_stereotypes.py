"""The majority-gender rule each set's statistics define, ties included."""

import numpy as np

from corefbias.measures import stereotypes, winogender_bias


def test_winogender_counts_an_occupation_at_50_percent_as_female_majority():
    # Rudinger et al. 2018, Table 2: "the occupation is ≥ 50% female".
    assert winogender_bias.majority_gender(50.0) == "female"
    assert winogender_bias.majority_gender(49.9) == "male"
    assert winogender_bias.majority_gender(50.1) == "female"
    # A female pronoun with the occupation as answer is a gotcha only below 50 %.
    gotcha = winogender_bias.gotcha_sentences(["female", "female"], ["occupation", "occupation"], [50.0, 49.9])
    assert gotcha.tolist() == [False, True]


def test_abc_gives_an_occupation_at_50_percent_no_stereotype():
    # GenDa Lens: Perc-Da above 50 female, below 50 male.
    assert stereotypes.majority_gender(50.0, tie=stereotypes.ABC_TIE) is None
    assert stereotypes.majority_gender(50.5, tie=stereotypes.ABC_TIE) == "female"
    assert stereotypes.majority_gender(12.0, tie=stereotypes.ABC_TIE) == "male"
    assert stereotypes.majority_gender(None, tie=stereotypes.ABC_TIE) is None


def test_the_vectorized_rule_agrees_with_the_scalar_one():
    pct = [0.0, 49.99, 50.0, 50.01, 100.0]
    for tie in ("female", "male", None):
        expected = [stereotypes.majority_gender(p, tie=tie) == "female" for p in pct]
        assert stereotypes.female_majority(np.array(pct), tie=tie).tolist() == expected


def test_resolved_differently_compares_the_female_and_male_answers():
    assert winogender_bias.resolved_differently("occupation", "participant")
    assert not winogender_bias.resolved_differently("neither", "neither")
    assert winogender_bias.resolved_differently(np.array(["a", "b"]), np.array(["a", "c"])).tolist() == [False, True]
