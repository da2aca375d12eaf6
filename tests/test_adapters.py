"""Cluster-model adapters: each library's documented output → our end-exclusive character spans.

fastcoref and maverick-coref are not installed here (torch, weights): their conversions are tested
on outputs in the libraries' own documented format, and their ``load`` wiring against stand-in
modules. The spaCy adapter runs for real on a small pipeline saved to disk.
"""

import sys
import types

import numpy as np
import pytest
import spacy
from spacy.language import Language
from spacy.tokens import Doc

from corefbias.models import fastcoref_adapter, hub_weights, maverick_adapter, spacy_adapter
from corefbias.models.base import ModelError
from corefbias.models.registry import load_model

EMOJI_TEXT = "Zoë 🙂 said she would come."  # "she" is at code points 11-14 (bytes 14-17, UTF-16 units 12-15)


def strings(text, clusters):
    return [[text[start:end] for start, end in cluster] for cluster in clusters]


# --- fastcoref -----------------------------------------------------------------------------------

# Texts and get_clusters(as_strings=False / True) expected by fastcoref's own tests/test_fcoref.py.
FASTCOREF_TEXTS = [
    "We are so happy to see you using our coref package. This package is very fast!",
    "The man tried to put the boot on his foot but it was too small.",
]
FASTCOREF_OUTPUT = [[[(0, 2), (33, 36)], [(33, 50), (52, 64)]], [[(0, 7), (33, 36)], [(33, 41), (46, 48)]]]
FASTCOREF_STRINGS = [[["We", "our"], ["our coref package", "This package"]], [["The man", "his"], ["his foot", "it"]]]


def test_fastcoref_offsets_are_end_exclusive_as_upstream_tests_expect():
    clusters = fastcoref_adapter.clusters_from_fastcoref(FASTCOREF_TEXTS, FASTCOREF_OUTPUT, "fastcoref:test")
    assert clusters == FASTCOREF_OUTPUT
    assert [strings(text, text_clusters) for text, text_clusters in zip(FASTCOREF_TEXTS, clusters)] == FASTCOREF_STRINGS


def test_fastcoref_unicode_numpy_offsets_and_unaligned_mentions():
    # Offsets count code points; numpy integers become ints; a None mention (a special token) is dropped.
    output = [[[(np.int64(0), np.int64(3)), None, (np.int64(11), np.int64(14))], [None]], []]
    clusters = fastcoref_adapter.clusters_from_fastcoref([EMOJI_TEXT, "Nothing here."], output, "fastcoref:test")
    assert clusters == [[[(0, 3), (11, 14)]], []]
    assert all(type(x) is int for x in clusters[0][0][1])
    assert strings(EMOJI_TEXT, clusters[0]) == [["Zoë", "she"]]


@pytest.mark.parametrize(
    "output, message",
    [
        ([[[("0", "2")]]], "text 0: mention ('0', '2') is not a (start, end) pair"),
        ([[[(0, 2, 4)]]], "is not a (start, end) pair"),
        ([None], "text 0: clusters must be a list"),
        ([[[(70, 90)]]], "outside the text"),
        ([[], []], "expected clusters for 1 texts, got 2"),
    ],
)
def test_fastcoref_malformed_output_is_a_model_error(output, message):
    with pytest.raises(ModelError, match="^fastcoref:test: ") as error:
        fastcoref_adapter.clusters_from_fastcoref([FASTCOREF_TEXTS[0]], output, "fastcoref:test")
    assert message in str(error.value)


class _FakeCorefResult:
    def __init__(self, clusters):
        self.clusters = clusters

    def get_clusters(self, as_strings=True):
        assert as_strings is False, "the adapter must ask for character offsets"
        return self.clusters


@pytest.fixture
def fake_fastcoref(monkeypatch):
    """A stand-in ``fastcoref`` module recording how the adapter builds and calls the model."""
    calls = []

    def model_class(class_name):
        class Model:
            def __init__(self, **kwargs):
                calls.append((class_name, kwargs))

            def predict(self, texts, max_tokens_in_batch):
                calls.append(("predict", texts, max_tokens_in_batch))
                return [_FakeCorefResult(FASTCOREF_OUTPUT[FASTCOREF_TEXTS.index(text)]) for text in texts]

        return Model

    module = types.SimpleNamespace(FCoref=model_class("FCoref"), LingMessCoref=model_class("LingMessCoref"))
    monkeypatch.setitem(sys.modules, "fastcoref", module)
    return calls


@pytest.fixture
def fake_hub(monkeypatch, tmp_path):
    """Hub downloads answered from an empty local snapshot folder, recording what was asked for."""
    asked = []
    snapshot = tmp_path / "snapshot"
    snapshot.mkdir()
    monkeypatch.setattr(hub_weights, "_hub_files", lambda repo, revision: ["config.json", "model.safetensors"])

    def download(repo, revision, patterns):
        asked.append((repo, revision, patterns))
        return snapshot

    monkeypatch.setattr(hub_weights, "_hub_download", download)
    return asked, str(snapshot)


def test_fastcoref_load_passes_path_and_device_and_predicts(fake_fastcoref, fake_hub):
    model = load_model("lingmess:/models/lingmess-coref")
    assert fake_fastcoref == [
        (
            "LingMessCoref",
            {"model_name_or_path": "/models/lingmess-coref", "device": "cpu", "enable_progress_bar": False},
        )
    ]
    assert model.name == "lingmess:/models/lingmess-coref"
    assert model.predict_clusters(FASTCOREF_TEXTS) == FASTCOREF_OUTPUT
    assert fake_fastcoref[-1] == ("predict", FASTCOREF_TEXTS, 10000)
    assert model.predict_clusters([]) == []

    # A Hub id is downloaded first (the pinned revision, safetensors), and the library reads the local copy.
    load_model("fastcoref:biu-nlp/f-coref", device="cuda:1")
    asked, snapshot = fake_hub
    assert asked == [("biu-nlp/f-coref", None, ["*.json", "*.txt", "*.model", "*.tiktoken", "*.safetensors"])]
    assert fake_fastcoref[-1] == (
        "FCoref",
        {"model_name_or_path": snapshot, "device": "cuda:1", "enable_progress_bar": False},
    )


def test_missing_library_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "fastcoref", None)  # makes `import fastcoref` fail
    monkeypatch.setitem(sys.modules, "maverick", None)
    with pytest.raises(ModelError, match=r"pip install 'corefbias\[fastcoref\]'"):
        load_model("fastcoref:biu-nlp/f-coref")
    with pytest.raises(ModelError, match=r"pip install 'corefbias\[maverick\]'"):
        load_model("maverick:sapienzanlp/maverick-mes-ontonotes")


# --- maverick ------------------------------------------------------------------------------------

# The README of maverick-coref 1.0.7: plain-text input and its clusters_char_offsets (inclusive ends).
README_TEXT = (
    "Barack Obama is traveling to Rome. The city is sunny and the president plans to visit its most important "
    "attractions"
)
README_TOKENS = [
    "Barack",
    "Obama",
    "is",
    "traveling",
    "to",
    "Rome",
    ".",
    "The",
    "city",
    "is",
    "sunny",
    "and",
    "the",
    "president",
    "plans",
    "to",
    "visit",
    "its",
    "most",
    "important",
    "attractions",
]
README_TOKEN_CLUSTERS = [((5, 5), (7, 8), (17, 17)), ((0, 1), (12, 13))]
README_CHAR_CLUSTERS_INCLUSIVE = [[(29, 32), (35, 42), (86, 88)], [(0, 11), (57, 69)]]


def maverick_output(tokens, token_clusters):
    return {
        "tokens": tokens,
        "clusters_token_offsets": token_clusters,
        "clusters_char_offsets": None,
        "clusters_token_text": [[" ".join(tokens[a : b + 1]) for a, b in cluster] for cluster in token_clusters],
        "clusters_char_text": None,
    }


def test_maverick_inclusive_token_ends_become_exclusive_char_ends():
    output = maverick_output(README_TOKENS, README_TOKEN_CLUSTERS)
    clusters = maverick_adapter.clusters_from_maverick(README_TEXT, output, "maverick:test")
    assert clusters == [[(start, end + 1) for start, end in cluster] for cluster in README_CHAR_CLUSTERS_INCLUSIVE]
    assert strings(README_TEXT, clusters) == [["Rome", "The city", "its"], ["Barack Obama", "the president"]]


def test_maverick_spans_stay_right_where_its_char_offsets_would_drift():
    # Two spaces between sentences: Maverick's own char offsets assume one (off += len(sentence) + 1).
    text = "Anna left.  She was tired."
    output = maverick_output(["Anna", "left", ".", "She", "was", "tired", "."], [((0, 0), (3, 3))])
    assert maverick_adapter.clusters_from_maverick(text, output, "maverick:test") == [[(0, 4), (12, 15)]]


def test_maverick_unicode_empty_clusters_and_no_clusters():
    output = maverick_output(["Zoë", "🙂", "said", "she", "would", "come", "."], [((0, 0), (3, 3)), ()])
    assert maverick_adapter.clusters_from_maverick(EMOJI_TEXT, output, "maverick:test") == [[(0, 3), (11, 14)]]
    assert maverick_adapter.clusters_from_maverick("Hi.", maverick_output(["Hi", "."], []), "maverick:test") == []


@pytest.mark.parametrize(
    "output, message",
    [
        ({"clusters_token_offsets": []}, "expected Maverick.predict's dict with a 'tokens' list"),
        ([["Hi"], []], "expected Maverick.predict's dict"),
        (maverick_output(["Hi", "."], [((0, 2),)]), "token span [0, 2] is outside the 2 tokens"),
        (maverick_output(["Ho", "."], [((0, 0),)]), "token 0 ('Ho') not found in the text"),
        ({"tokens": ["Hi", "."], "clusters_token_offsets": [((0,),)]}, "cannot place Maverick's token clusters"),
    ],
)
def test_maverick_malformed_output_is_a_model_error(output, message):
    with pytest.raises(ModelError, match="^maverick:test: ") as error:
        maverick_adapter.clusters_from_maverick("Hi.", output, "maverick:test")
    assert message in str(error.value)


@pytest.fixture
def fake_maverick(monkeypatch):
    calls = []

    class Maverick:
        def __init__(self, **kwargs):
            calls.append(kwargs)

        def predict(self, text):
            if text == README_TEXT:
                return maverick_output(README_TOKENS, README_TOKEN_CLUSTERS)
            return maverick_output(text.replace(".", " .").split(), [])

    monkeypatch.setitem(sys.modules, "maverick", types.SimpleNamespace(Maverick=Maverick))
    return calls


def test_maverick_load_local_checkpoint_folder_and_predict(fake_maverick, fake_hub, tmp_path):
    (tmp_path / "weights.ckpt").write_bytes(b"")
    model = load_model(f"maverick:{tmp_path}")
    assert fake_maverick == [{"hf_name_or_path": str(tmp_path), "device": "cpu"}]
    clusters = model.predict_clusters([README_TEXT, "No one here."])
    assert strings(README_TEXT, clusters[0]) == [["Rome", "The city", "its"], ["Barack Obama", "the president"]]
    assert clusters[1] == []

    asked, snapshot = fake_hub
    (tmp_path / "snapshot" / "weights.ckpt").write_bytes(b"")
    load_model("maverick:sapienzanlp/maverick-mes-preco", device="cuda")
    assert asked == [("sapienzanlp/maverick-mes-preco", None, ["weights.ckpt"])]
    assert fake_maverick[-1] == {"hf_name_or_path": snapshot, "device": "cuda"}


def test_maverick_folder_without_checkpoint_is_rejected(fake_maverick, tmp_path):
    with pytest.raises(ValueError, match="folder without weights.ckpt"):
        load_model(f"maverick:{tmp_path}")
    assert fake_maverick == []


# --- spaCy ---------------------------------------------------------------------------------------


@Language.factory(
    "corefbias_test_phrase_coref",
    assigns=["doc.spans"],
    default_config={"clusters": [], "numbers": []},
)
def make_phrase_coref(nlp, name, clusters: list, numbers: list):
    """Clusters the whole-word occurrences of fixed phrases, stored the way spacy-experimental stores
    them: ``coref_clusters_<number>``, plus keys that are not clusters and must be ignored:
    ``coref_head_clusters_<number>`` and an unnumbered ``coref_clusters`` of all mentions."""
    import re

    def component(doc):
        for number, phrases in zip(numbers, clusters):
            spans = [
                doc.char_span(match.start(), match.end())
                for phrase in phrases
                for match in re.finditer(rf"\b{re.escape(phrase)}\b", doc.text)
            ]
            if spans:
                doc.spans[f"coref_clusters_{number}"] = spans
                doc.spans[f"coref_head_clusters_{number}"] = [span[:1] for span in spans]
                doc.spans["coref_clusters"] = list(doc.spans.get("coref_clusters", [])) + spans
        return doc

    return component


class _NeuralCorefCluster:
    def __init__(self, mentions):
        self.mentions = mentions


@Language.factory("corefbias_test_neuralcoref_style", assigns=["doc._.coref_clusters"])
def make_neuralcoref_style(nlp, name):
    """NeuralCoref's layout: ``doc._.coref_clusters``, clusters with ``.mentions``; links "Anna" and "she"."""
    if not Doc.has_extension("coref_clusters"):
        Doc.set_extension("coref_clusters", default=None)

    def component(doc):
        doc._.coref_clusters = [_NeuralCorefCluster([doc[0:1], doc[-3:-2]])]
        return doc

    return component


@pytest.fixture(scope="module")
def phrase_pipeline(tmp_path_factory):
    nlp = spacy.blank("en")
    nlp.add_pipe(
        "corefbias_test_phrase_coref", config={"clusters": [["the patient", "he"], ["Zoë", "she"]], "numbers": [10, 2]}
    )
    path = tmp_path_factory.mktemp("spacy") / "phrase_coref"
    nlp.to_disk(path)
    return path


def test_spacy_pipeline_from_disk_clusters_in_key_order(phrase_pipeline):
    model = load_model(f"spacy:{phrase_pipeline}")
    assert model.name == f"spacy:{phrase_pipeline}"
    both = "Zoë said the patient knew she and he were late."
    clusters = model.predict_clusters([both, EMOJI_TEXT, "Nobody is here."])
    # coref_clusters_2 before coref_clusters_10 (numeric, not string order); head clusters ignored.
    assert clusters == [[[(0, 3), (26, 29)], [(9, 20), (34, 36)]], [[(0, 3), (11, 14)]], []]
    assert strings(both, clusters[0]) == [["Zoë", "she"], ["the patient", "he"]]


def test_spacy_neuralcoref_style_clusters(tmp_path):
    nlp = spacy.blank("en")
    nlp.add_pipe("corefbias_test_neuralcoref_style")
    nlp.to_disk(tmp_path / "neuralcoref_style")
    model = load_model(f"spacy:{tmp_path / 'neuralcoref_style'}")
    text = "Anna said that she left ."
    assert strings(text, model.predict_clusters([text])[0]) == [["Anna", "she"]]


def test_spacy_clusters_that_are_not_spans_are_rejected():
    nlp = spacy.blank("en")
    if not Doc.has_extension("coref_clusters"):
        Doc.set_extension("coref_clusters", default=None)
    doc = nlp("Anna said that she left.")
    doc._.coref_clusters = [[(0, 4), (15, 18)]]  # characters or tokens? not guessed
    with pytest.raises(ModelError, match=r"spacy:test: cluster mention \(0, 4\) is not a spaCy Span"):
        spacy_adapter.clusters_from_doc(doc, "spacy:test")


def test_spacy_pipeline_without_coreference_is_rejected(tmp_path):
    spacy.blank("en").to_disk(tmp_path / "blank")
    with pytest.raises(ValueError, match="has no component that assigns doc.spans or doc._.coref_clusters"):
        load_model(f"spacy:{tmp_path / 'blank'}")


def test_spacy_unknown_device_is_rejected(phrase_pipeline):
    with pytest.raises(ValueError, match="unknown device 'tpu'"):
        load_model(f"spacy:{phrase_pipeline}", device="tpu")
