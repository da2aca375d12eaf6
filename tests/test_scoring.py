import json

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


def test_any_cluster_mode_counts_any_cluster_at_all_as_genda_lens_does():
    other = (TEXT.index("late"), TEXT.index("late") + 4)
    clusters = [[other, PRONOUN]]
    assert cluster_links.link_decisions(PRONOUN, [SMITH, ANNA], clusters) == [False, False]
    assert cluster_links.link_decisions(PRONOUN, [SMITH, ANNA], clusters, mode="any_cluster") == [True, True]
    # GenDa Lens counts a sentence whose prediction has any cluster: one of a single mention, one without the pronoun.
    assert cluster_links.link_decisions(PRONOUN, [SMITH], [[PRONOUN]], mode="any_cluster") == [True]
    assert cluster_links.link_decisions(PRONOUN, [SMITH], [[ANNA]], mode="any_cluster") == [True]
    assert cluster_links.link_decisions(PRONOUN, [SMITH], [], mode="any_cluster") == [False]


def test_first_mention_mode_reads_the_pronouns_last_cluster_as_winopron_converters_do():
    mr_smith, late = (0, SMITH[1]), (TEXT.index("late"), TEXT.index("late") + 4)
    both = [[ANNA, PRONOUN, mr_smith]]
    assert cluster_links.link_decisions(PRONOUN, [SMITH, ANNA], both) == [True, True]
    # The first other mention as listed, not in the text: Anna.
    assert cluster_links.link_decisions(PRONOUN, [SMITH, ANNA], both, mode="first_mention") == [False, True]
    # The last cluster holding the pronoun wins; one of the pronoun alone names nothing and is passed over.
    clusters = [[mr_smith, PRONOUN], [PRONOUN, late], [PRONOUN]]
    assert cluster_links.first_other_mention(PRONOUN, clusters) == late
    assert cluster_links.link_decisions(PRONOUN, [SMITH, ANNA], clusters, mode="first_mention") == [False, False]
    assert cluster_links.first_other_mention(PRONOUN, [[PRONOUN], [SMITH, ANNA]]) is None


def test_a_benchmark_is_scored_in_its_own_mode_unless_one_is_named():
    assert cluster_links.resolved_mode("default", "first_mention") == "first_mention"
    assert cluster_links.resolved_mode("any_cluster", "first_mention") == "any_cluster"
    with pytest.raises(ValueError, match=r"^toy declares the decision mode 'default'; a benchmark's decision_mode is "):
        cluster_links.resolved_mode("cluster", "default", "toy")
    with pytest.raises(ValueError, match=r"^unknown decision mode 'strict'; choose one of \('default', "):
        cluster_links.resolved_mode("strict", "cluster")


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


def test_the_audit_table_names_every_benchmark_once_with_its_declared_default_mode():
    from pathlib import Path

    from corefbias.benchmarks import BENCHMARKS

    page = (Path(__file__).resolve().parents[1] / "docs" / "scoring_files.md").read_text(encoding="utf-8")
    table = page.split("## Scored as the authors score", 1)[1]
    named = {}
    for line in table.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) == 4 and cells[0].startswith("`"):
            for name in cells[0].replace("`", "").split(", "):
                assert name not in named, name
                named[name] = cells[2]
    assert sorted(named) == sorted(BENCHMARKS)
    for name, benchmark in BENCHMARKS.items():
        declared = "—" if benchmark.clusters_cannot_express else f"`{benchmark.decision_mode}`"
        assert named[name] == declared, name
        assert benchmark.decision_mode in cluster_links.DECISION_MODES, name


def test_wl_coref_files_are_read_with_their_exclusive_word_spans(tmp_path):
    from corefbias.harness.prediction_files import PredictionFileError, read

    record = {"document_id": "wb_0", "cased_words": ["Mr", "Smith", "told", "Anna", "that", "he", "was", "late", "."]}
    path = tmp_path / "double_output.jsonlines"
    path.write_text(json.dumps({**record, "span_clusters": [[[0, 2], [5, 6]]]}) + "\n", encoding="utf-8")
    (document,) = read([path], "auto")
    assert (document.id, document.clusters) == ("wb_0", (((0, 1), (5, 5)),))
    path.write_text(json.dumps({**record, "span_clusters": [[[0, 2], [5, 5]]]}) + "\n", encoding="utf-8")
    with pytest.raises(PredictionFileError, match=r"^double_output.jsonlines line 1: \[5, 5\] is not a word span "):
        read([path], "jsonlines")
