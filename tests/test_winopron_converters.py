"""WinoPron scored from a coreference system's clusters as WinoPron's own pipeline scores them.

Upstream turns a system's clusters into answers with its converters, run here from the mirror, never copied:
``scripts/convert_caw_output.py`` (CAW-coref's wl-coref jsonlines), ``scripts/evaluate_lingmess.py`` (LingMess through
fastcoref, which the test stands in for: it hands the script the clusters as fastcoref's ``get_clusters`` gives them,
the mentions' strings) and ``scripts/convert_spanbert_outputs.py`` (SpanBERT's jsonlines); its
``scripts/compute_performance.py`` scores their TSV files. Each document's clusters are made by the test: clusters of
the pronoun with one entity, with both (in the text's order and in another), without the pronoun, of one mention, a
mention holding the pronoun ("xyr confirmation"), a bare noun, a mention of both entities, two clusters holding the
pronoun, none at all. ``corefbias score`` reads the very file CAW-coref writes and, in WinoPron's default decision
mode (``first_mention``), gives every score of ``compute_performance.py`` on the converters' output to 1e-9; the
stricter ``--mode cluster`` stays available and differs where a cluster holds both entities.
"""

import csv
import io
import json
import os
import random
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import pandas as pd
import pytest
from spacy.lang.en import English

from corefbias.benchmarks.winopron import files
from corefbias.harness.prediction_files import scoring
from corefbias.measures.winopron_accuracy import FILTERS, PAIRINGS, SCORES

CONFIGS = ("double", "single", "old")
# Upstream's file names: its data files, CAW-coref's outputs, SpanBERT's and its converters' folders.
UPSTREAM = {"double": "double", "single": "single", "old": "double_old"}
# What the test makes of each instance, in turn; each kind's clusters as token spans over upstream's tokens.
KINDS = (
    "referent",  # the pronoun with its referent
    "distractor",  # the pronoun with the other entity
    "both, the text's order",  # occupation, participant, pronoun: the first other mention is the occupation
    "both, the pronoun first, the participant before the occupation",
    "no pronoun",  # the two entities in one cluster, the pronoun in none
    "one-mention clusters",  # each entity alone, then the pronoun with the participant
    "the bare noun",  # "technician" without "the", with the pronoun
    "a nested mention",  # "xyr confirmation" with the occupation, the pronoun itself in no cluster
    "a nested mention and the pronoun",  # "xyr confirmation" with the participant, the pronoun with the occupation
    "two clusters hold the pronoun",  # with the occupation, then with the participant: the last one counts
    "a mention of both",  # "The technician told the customer" with the pronoun: names both, so neither
    "no cluster",
)
# Upstream's Scorer divides 0 by 0 where a filter keeps nothing; compared as NaN, the warning not.
pytestmark = [
    pytest.mark.reproduction,
    pytest.mark.filterwarnings("ignore:invalid value encountered in scalar divide:RuntimeWarning"),
]


@pytest.fixture(scope="module")
def upstream_dir(mirror) -> Path:
    return mirror / "winopron"


@pytest.fixture(scope="module")
def work(upstream_dir, mirror, tmp_path_factory) -> Path:
    """A folder holding double.tsv, single.tsv and double_old.tsv as upstream's own scripts write them."""
    folder = tmp_path_factory.mktemp("winopron_pipeline")
    with zipfile.ZipFile(upstream_dir / "data.zip") as archive:
        archive.extractall(folder, pwd=files.password(mirror))
    for script, templates in (("verification.py", "new_templates.tsv"), ("prep_old_templates.py", "old_templates.tsv")):
        subprocess.run([sys.executable, str(upstream_dir / "scripts" / script), templates], cwd=folder, check=True)
    return folder


@pytest.fixture(scope="module")
def data_dir(exported_set) -> Path:
    return exported_set("winopron").parent


def upstream_rows(work: Path, config: str) -> list[dict]:
    text = (work / f"{UPSTREAM[config]}.tsv").read_text(encoding="utf-8")
    return list(csv.DictReader(io.StringIO(text), delimiter="\t"))


def token_span(tokens, start: int, end: int) -> list[int]:
    """The ``[first, end)`` token span covering characters ``[start, end)``."""
    covering = [index for index, token in enumerate(tokens) if token.idx < end and start < token.idx + len(token)]
    return [covering[0], covering[-1] + 1]


def clusters_of(kind: str, instance: dict, tokens) -> list[list[list[int]]]:
    """One kind's clusters for an instance of ``files.instances``, as ``[start, end)`` token spans."""
    located = {role: token_span(tokens, span["start"], span["end"]) for role, span in instance["spans"].items()}
    pronoun = located.pop("pronoun")
    referent = located[instance["answer"]]
    other = [span for role, span in located.items() if role != instance["answer"]]
    occupation = located.get("occupation", referent)
    participant = located.get("participant", referent)
    nested = [pronoun[0], pronoun[1] + 1]  # the pronoun and the word after it: "xyr confirmation"
    if kind == "referent":
        return [[referent, pronoun]]
    if kind == "distractor":
        return [[other[0] if other else referent, pronoun]]
    if kind == "both, the text's order":
        return [sorted([occupation, participant, pronoun])]
    if kind == "both, the pronoun first, the participant before the occupation":
        return [[pronoun, participant, occupation]]
    if kind == "no pronoun":
        return [[occupation, participant]] if other else [[referent]]
    if kind == "one-mention clusters":
        return [[occupation], [participant], [pronoun, participant]]
    if kind == "the bare noun":
        return [[pronoun, [referent[1] - 1, referent[1]]]]
    if kind == "a nested mention":
        return [[occupation, nested]]
    if kind == "a nested mention and the pronoun":
        return [[nested, participant], [occupation, pronoun]]
    if kind == "two clusters hold the pronoun":
        return [[occupation, pronoun], [pronoun, participant]]
    if kind == "a mention of both":
        return [[[min(occupation[0], participant[0]), max(occupation[1], participant[1])], pronoun]]
    assert kind == "no cluster"
    return []


@pytest.fixture(scope="module")
def predicted(work, mirror) -> dict:
    """Per config, per instance in upstream's row order: spaCy's tokens (as ``convert_for_caw.py`` makes them) and
    the clusters of a kind drawn for it."""
    tokenizer = English().tokenizer
    draw = random.Random(50)
    made = {}
    for config in CONFIGS:
        instances = files.instances(config, mirror)
        rows = upstream_rows(work, config)
        assert [instance["text"] for instance in instances] == [row["sentence"] for row in rows]
        made[config] = []
        for instance in instances:
            tokens = tokenizer(instance["text"])
            kind = draw.choice(KINDS)
            spans = instance["spans"]
            made[config].append(
                {
                    "text": instance["text"],
                    "tokens": tokens,
                    "kind": kind,
                    "clusters": clusters_of(kind, instance, tokens),
                    "occupation_first": spans.get("occupation", spans["pronoun"])["start"]
                    < spans.get("participant", spans["pronoun"])["start"],
                }
            )
        assert {item["kind"] for item in made[config]} == set(KINDS), config
    return made


def write_caw_outputs(work: Path, predicted: dict) -> list[Path]:
    """The files CAW-coref (wl-coref's predict.py) writes: document_id, cased_words, span_clusters."""
    paths = []
    for config in CONFIGS:
        path = work / f"{UPSTREAM[config]}_output.jsonlines"
        lines = [
            json.dumps(
                {
                    "document_id": f"wb_{index}",
                    "cased_words": [token.text for token in item["tokens"]],
                    "sent_id": [0] * len(item["tokens"]),
                    "span_clusters": item["clusters"],
                }
            )
            for index, item in enumerate(predicted[config])
        ]
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        paths.append(path)
    return paths


def run_upstream(work: Path, script: Path, env: dict | None = None) -> None:
    for config in CONFIGS:
        (work / UPSTREAM[config]).mkdir(exist_ok=True)
    subprocess.run([sys.executable, str(script)], cwd=work, check=True, env=env, capture_output=True)


@pytest.fixture(scope="module")
def scorer_class(upstream_dir):
    """compute_performance.py's Scorer, imported from the mirror."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "winopron_compute_performance", upstream_dir / "scripts" / "compute_performance.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.Scorer


def upstream_scores(scorer_class, tsv: Path) -> dict:
    """Every score compute_performance.py prints for one converter's TSV, by corefbias's key names."""
    scorer = scorer_class(pd.read_csv(tsv, sep="\t"))
    found = {}
    for pairing in PAIRINGS:
        scorer.pairing = pairing
        for kept in FILTERS:
            scorer.filtering = kept
            prefix = "" if pairing is None else f"paired_{pairing}/"
            suffix = "" if kept is None else f"/{kept}"
            for score in SCORES:
                found[f"{prefix}{score}{suffix}"] = getattr(scorer, f"get_{score}")()
    return found


def assert_equal_scores(ours, theirs: dict) -> None:
    assert len(theirs) == 96
    differing = {
        key: (ours[key], value) for key, value in theirs.items() if ours[key] != pytest.approx(value, abs=1e-9)
    }
    assert differing == {}


@pytest.fixture(scope="module")
def caw_files(work, predicted) -> list[Path]:
    return write_caw_outputs(work, predicted)


@pytest.fixture(scope="module")
def ours(caw_files, data_dir, mirror) -> dict:
    """``corefbias score`` of CAW-coref's own files, in WinoPron's default mode and in the strict one."""
    return {
        mode: scoring.score("winopron", caw_files, data_dir=data_dir, mirror=mirror, n_bootstrap=0, mode=mode)
        for mode in ("default", "cluster")
    }


def test_corefbias_reads_caw_coref_files_as_winopron_converter_does(work, caw_files, ours, upstream_dir, scorer_class):
    run_upstream(work, upstream_dir / "scripts" / "convert_caw_output.py")
    sections = ours["default"].runs["winopron"].sections
    for config in CONFIGS:
        assert_equal_scores(
            sections[f"winopron/{config}"], upstream_scores(scorer_class, work / UPSTREAM[config] / "caw_coref.tsv")
        )
    assert ours["default"].settings["decision_mode"] == "default"


def test_corefbias_reads_lingmess_clusters_as_winopron_evaluate_lingmess_does(
    work, predicted, ours, upstream_dir, scorer_class, tmp_path
):
    # fastcoref stood in: its get_clusters() gives each cluster's mentions as the strings of the text, as listed.
    def mention(item: dict, first: int, end: int) -> str:
        return item["tokens"][first:end].text  # a spaCy span's text: the characters of the sentence it covers

    calls = [
        [[mention(item, *span) for span in cluster] for cluster in item["clusters"]]
        for config in CONFIGS
        for item in predicted[config]
    ]
    (tmp_path / "calls.json").write_text(json.dumps(calls), encoding="utf-8")
    (tmp_path / "fastcoref.py").write_text(
        textwrap.dedent(
            f"""
            import json

            _CALLS = json.load(open({str(tmp_path / "calls.json")!r}, encoding="utf-8"))


            class _Prediction:
                def __init__(self, clusters):
                    self._clusters = clusters

                def get_clusters(self):
                    return [list(cluster) for cluster in self._clusters]


            class LingMessCoref:
                def __init__(self, device=None):
                    self.calls = 0

                def predict(self, texts):
                    self.calls += 1
                    return [_Prediction(_CALLS[self.calls - 1])]
            """
        ),
        encoding="utf-8",
    )
    run_upstream(
        work, upstream_dir / "scripts" / "evaluate_lingmess.py", env={**os.environ, "PYTHONPATH": str(tmp_path)}
    )
    sections = ours["default"].runs["winopron"].sections
    for config in CONFIGS:
        assert_equal_scores(
            sections[f"winopron/{config}"], upstream_scores(scorer_class, work / UPSTREAM[config] / "lingmess.tsv")
        )


def test_the_strict_reading_stays_selectable_and_differs_where_the_pronoun_meets_both_entities(predicted, ours):
    by_mode = {mode: result.runs["winopron"].instances for mode, result in ours.items()}
    items = [item for config in CONFIGS for item in predicted[config]]
    assert len(items) == len(by_mode["default"]) == len(by_mode["cluster"])
    for item, default, strict in zip(items, by_mode["default"], by_mode["cluster"]):
        # [occupation, participant]: strict links both (no single antecedent), WinoPron's converters the first other
        # mention the system listed in the last cluster holding the pronoun.
        differing = {
            "both, the text's order": [item["occupation_first"], not item["occupation_first"]],
            "both, the pronoun first, the participant before the occupation": [False, True],
            "two clusters hold the pronoun": [False, True],
        }
        kind = item["kind"]
        if default["config"] != "single" and kind in differing:
            assert (strict["decision"], default["decision"]) == ([True, True], differing[kind]), default["id"]
        else:
            assert strict["decision"] == default["decision"], default["id"]
    accuracy = {mode: result.runs["winopron"].sections["winopron/double"]["accuracy"] for mode, result in ours.items()}
    assert accuracy["cluster"] < accuracy["default"]


SPANBERT_SAFE = (
    "referent",
    "distractor",
    "both, the text's order",
    "both, the pronoun first, the participant before the occupation",
    "the bare noun",
    "a mention of both",
)


def write_spanbert_outputs(work: Path, predicted: dict, rows: dict, kept) -> None:
    """SpanBERT's output files as convert_spanbert_outputs.py reads them: the subtokens of one sentence between
    [CLS] and [SEP] (here spaCy's tokens, no word split into pieces), inclusive subtoken spans, the stimulus row."""
    (work / "spanbert").mkdir(exist_ok=True)
    for config in CONFIGS:
        lines = []
        for item, row in zip(predicted[config], rows[config]):
            if not kept(item):
                continue
            clusters = [[[start + 1, end] for start, end in cluster] for cluster in item["clusters"]]  # after [CLS]
            sentence = ["[CLS]", *(token.text for token in item["tokens"]), "[SEP]"]
            lines.append(json.dumps({"sentences": [sentence], "predicted_clusters": clusters, "stimulus": row}))
        for size in ("base", "large"):
            (work / "spanbert" / f"{UPSTREAM[config]}_{size}_res.jsonlines").write_text("\n".join(lines) + "\n")


def test_spanberts_converter_agrees_where_its_two_slips_cannot_act(work, predicted, ours, upstream_dir, scorer_class):
    # convert_spanbert_outputs.py gathers the mentions of every cluster so far (its list is never emptied) and keeps
    # the previous document's answer where no cluster holds the pronoun. On documents whose one cluster holds the
    # pronoun it reads clusters as the other two converters do.
    rows = {config: upstream_rows(work, config) for config in CONFIGS}
    write_spanbert_outputs(work, predicted, rows, lambda item: item["kind"] in SPANBERT_SAFE)
    run_upstream(work, upstream_dir / "scripts" / "convert_spanbert_outputs.py")
    instances = ours["default"].runs["winopron"].instances
    for config in CONFIGS:
        kept = [item["kind"] in SPANBERT_SAFE for item in predicted[config]]
        decisions = [instance["decision"] for instance in instances if instance["config"] == config]
        frame = pd.read_csv(work / UPSTREAM[config] / "spanbert_base.tsv", sep="\t")
        # Upstream's answer per row, the one noun the generation names, read by its Scorer; kept in the file's order.
        scored = scorer_class(frame.assign(row=range(len(frame))))._df.sort_values("row")
        theirs = [noun if isinstance(noun, str) else None for noun in scored["verbalized_token"]]
        mine = []
        for row, decision, keep in zip(rows[config], decisions, kept):
            if keep:
                nouns = [row["occupation"], row["participant"]] if len(decision) == 2 else [row["answer"]]
                linked = [noun for noun, link in zip(nouns, decision) if link]
                mine.append(linked[0] if len(linked) == 1 else None)
        assert len(theirs) == len(mine) > 100
        assert theirs == mine, config


def test_a_cluster_of_the_pronoun_alone_names_no_antecedent_where_upstream_stops(work, upstream_dir, mirror, tmp_path):
    # WinoPron's converters take the first mention left once the pronoun is removed: of a cluster of the pronoun
    # alone there is none, and they stop with an IndexError (no coreference system writes such a cluster).
    instance = files.instances("double", mirror)[0]
    tokens = English().tokenizer(instance["text"])
    pronoun = token_span(tokens, instance["spans"]["pronoun"]["start"], instance["spans"]["pronoun"]["end"])
    for config in CONFIGS:
        rows = (work / f"{UPSTREAM[config]}.tsv").read_text(encoding="utf-8").splitlines()[:2]
        (tmp_path / f"{UPSTREAM[config]}.tsv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    write_caw_outputs(
        tmp_path,
        {config: [{"tokens": tokens, "clusters": [[pronoun]]}] for config in CONFIGS},
    )
    with pytest.raises(subprocess.CalledProcessError) as stopped:
        run_upstream(tmp_path, upstream_dir / "scripts" / "convert_caw_output.py")
    assert "IndexError: list index out of range" in stopped.value.stderr.decode()
    from corefbias.harness.cluster_links import link_decisions

    spans = instance["spans"]
    candidates = [(spans[role]["start"], spans[role]["end"]) for role in ("occupation", "participant")]
    he = (spans["pronoun"]["start"], spans["pronoun"]["end"])
    assert link_decisions(he, candidates, [[he]], "first_mention") == [False, False]
