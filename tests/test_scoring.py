import pytest

from corefbias.data import spans
from corefbias.harness import cluster_links

TEXT = "Mr Smith told Anna that he was late."
PRONOUN = (TEXT.index("he was"), TEXT.index("he was") + 2)
SMITH = (TEXT.index("Smith"), TEXT.index("Smith") + 5)
ANNA = (TEXT.index("Anna"), TEXT.index("Anna") + 4)


def test_candidate_found_by_a_containing_mention():
    mr_smith = (0, SMITH[1])
    assert cluster_links.link_decisions(PRONOUN, [SMITH, ANNA], [[mr_smith, PRONOUN]]) == [True, False]


def test_pronoun_must_be_its_own_mention():
    he_was = (PRONOUN[0], PRONOUN[1] + 4)
    assert cluster_links.link_decisions(PRONOUN, [SMITH, ANNA], [[SMITH, he_was]]) == [False, False]


def test_crossing_spans_do_not_match():
    crossing = (SMITH[0] + 2, ANNA[0])
    assert cluster_links.link_decisions(PRONOUN, [SMITH], [[crossing, PRONOUN]]) == [False]


def test_any_cluster_mode_counts_any_cluster_with_the_pronoun():
    other = (TEXT.index("late"), TEXT.index("late") + 4)
    clusters = [[other, PRONOUN]]
    assert cluster_links.link_decisions(PRONOUN, [SMITH, ANNA], clusters) == [False, False]
    assert cluster_links.link_decisions(PRONOUN, [SMITH, ANNA], clusters, mode="any_cluster") == [True, True]
    assert cluster_links.link_decisions(PRONOUN, [SMITH], [[PRONOUN]], mode="any_cluster") == [False]


def test_token_clusters_become_character_clusters():
    tokens = TEXT.replace(".", " .").split()
    clusters = spans.token_clusters_to_char([[[0, 1], [5, 5]]], tokens, TEXT)
    assert [TEXT[s:e] for s, e in clusters[0]] == ["Mr Smith", "he"]
    exclusive = spans.token_clusters_to_char([[[0, 2], [5, 6]]], tokens, TEXT, inclusive_end=False)
    assert exclusive == clusters


def test_bad_spans_and_modes_are_errors():
    with pytest.raises(ValueError, match="decision mode"):
        cluster_links.link_decisions(PRONOUN, [SMITH], [], mode="head")
    with pytest.raises(ValueError, match="outside"):
        spans.token_clusters_to_char([[[0, 40]]], ["a", "b"])
    with pytest.raises(ValueError, match="empty"):
        cluster_links.link_decisions((3, 3), [SMITH], [])
