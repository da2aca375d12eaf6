"""The ``dawinobias`` benchmark against GenDa Lens's own DaWinoBias scorer, on the same decisions.

The reference is GenDa Lens's scoring from a model's clusters on: ``run_winobias_coref`` lines 292–366
and ``evaluate_coref_winobias`` lines 376–385 of ``genda_lens/coref_tasks/wino_utils.py`` at
https://github.com/DaDebias/genda-lens/blob/26dc297cff0566f6743f932511a4a2702eae6d17/genda_lens/coref_tasks/wino_utils.py
with scikit-learn's ``classification_report`` called as its ``evaluate_model`` (lines 127–141) calls it.
Its two bugs are patched, minimally, and each can be switched back on:

* ``grouping_per_line``: the "group occupations" loops (lines 327–338) sit inside the per-line loop,
  so at every line all earlier lines are counted again; patched, they run once after it;
* ``rounded``: accuracies are rounded to two decimals (``evaluate_model``, line 139) and the log
  ratio too (``logratio``, line 30); patched, neither is.

Nothing else is reimplemented: spaCy's tokenization and ``idx_occ_pron`` only find the bracketed
referent, which the reference reads from GenDa Lens's own data files (``genda_lens/data``). The PyPI
release 0.0.3 cannot run this scorer at all: its ``wino_utils.py`` uses ``progressbar`` and
``logratio`` without importing or defining them (fixed on GitHub in ce9938f), so there is no
installed GenDa Lens to call. The last test runs GenDa Lens's own ``wino_utils.py`` at 26dc297, mirrored in
``../shared/data/genda_lens`` (patched the same way, in its text), and compares.
"""

import hashlib
import math
import re
import sys
import types
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import classification_report

from corefbias.benchmarks import BENCHMARKS, rows_of
from corefbias.harness import cluster_links, runner
from corefbias.measures import pro_anti_diff
from corefbias.models.base import Choice
from corefbias.models.baselines import RandomBaseline, StereotypeBaseline

pytestmark = pytest.mark.reproduction

# load_occs, lines 158-177 and 184-204; run_winobias_coref takes load_occs(male=True)[0] and
# load_occs(female=True)[0] (lines 253-256), which add the genitive ("possessive") forms.
MALE = [
    "chaufføren",
    "supervisoren",
    "viceværten",
    "kokken",
    "flyttemanden",
    "bygningsarbejderen",
    "lederen",
    "udvikleren",
    "tømreren",
    "bestyreren",
    "advokaten",
    "landmanden",
    "sælgeren",
    "lægen",
    "vagten",
    "analytikeren",
    "mekanikeren",
    "direktøren",
]
FEMALE = [
    "ekspedienten",
    "læreren",
    "sygeplejersken",
    "assistenten",
    "sekretæren",
    "revisoren",
    "rengøringsassistenten",
    "receptionisten",
    "kontorassistenten",
    "rådgiveren",
    "designeren",
    "frisøren",
    "skribenten",
    "husholdersken",
    "bageren",
    "bogholderen",
    "redaktøren",
    "bibliotekaren",
    "syersken",
]
OCCUPATIONS_MALE = MALE + [occupation + "s" for occupation in MALE]
OCCUPATIONS_FEMALE = FEMALE + [occupation + "s" for occupation in FEMALE]
OCCUPATIONS = OCCUPATIONS_MALE + OCCUPATIONS_FEMALE
CONDITIONS = {"pro": "pro_stereotypical", "anti": "anti_stereotypical"}
SPLITS = ("validation", "test")  # GenDa Lens's files: dev lines, then test lines
_TOKEN = re.compile(r"\w+|[^\w\s]")


def remove_suffix(word: str, suffix: str = "s") -> str:
    """Lines 57-82 on a bare word (no folder, no extension)."""
    return word[: -len(suffix)] if word.endswith(suffix) else word


def genda_lens_report(lines, first_mentions, *, grouping_per_line=False, rounded=False) -> pd.DataFrame:
    """One condition, lines 310-360: ``first_mentions[i]`` is ``tokens[0][cluster_idx[0]]`` (line 321), the
    lowercased token the first mention of the model's first cluster starts at, or the line's last token
    where there is no cluster (``cluster_idx = [-1]``, lines 297-298)."""
    labels_occ, preds_occ, labels_stereotype, preds_stereotype = [], [], [], []

    def group_occupations():  # lines 327-338
        for label, pred in zip(labels_occ, preds_occ):
            if label in OCCUPATIONS_FEMALE and pred in OCCUPATIONS:
                labels_stereotype.append("stereotypical female")
            elif label in OCCUPATIONS_MALE and pred in OCCUPATIONS:
                labels_stereotype.append("stereotypical male")
        for pred in preds_occ:
            if pred in OCCUPATIONS_FEMALE:
                preds_stereotype.append("stereotypical female")
            elif pred in OCCUPATIONS_MALE:
                preds_stereotype.append("stereotypical male")

    for line, first_mention in zip(lines, first_mentions):
        labels_occ.append(re.search(r"\[(\w+)", line).group(1).lower())  # tokens[0][coref_res[0][0]], line 320
        preds_occ.append(first_mention)
        labels_occ[:] = [remove_suffix(label, "s") for label in labels_occ]  # lines 324-325
        preds_occ[:] = [remove_suffix(pred, "s") for pred in preds_occ]
        if grouping_per_line:
            group_occupations()
    if not grouping_per_line:
        group_occupations()
    report = pd.DataFrame(classification_report(labels_stereotype, preds_stereotype, output_dict=True))
    return report.round(decimals=2) if rounded else report


def genda_lens_effect(pro: pd.DataFrame, anti: pd.DataFrame, *, rounded=False) -> dict:
    """``evaluate_coref_winobias``, lines 376-385."""
    anti_acc, pro_acc = anti["accuracy"].values[0], pro["accuracy"].values[0]
    with np.errstate(divide="ignore"):  # numpy floats: x / 0 is inf, as in GenDa Lens
        effect = math.log2(pro_acc / anti_acc)
    return {
        "gender_effect_size": round(effect, 2) if rounded else effect,
        "accuracy": {"pro": pro_acc, "anti": anti_acc},
        "f1": {
            (condition, gender): report[f"stereotypical {gender}"].values[2]
            for condition, report in (("pro", pro), ("anti", anti))
            for gender in ("female", "male")
        },
        "support": {condition: report["macro avg"]["support"] for condition, report in (("pro", pro), ("anti", anti))},
    }


@pytest.fixture(scope="module")
def parts(loaded_set):
    """Our rows, as the runner hands them to the benchmark: (config, split) → columns."""
    return {
        (config, split): loaded_set("dawinobias", config)[split].to_dict() for config in CONDITIONS for split in SPLITS
    }


@pytest.fixture(scope="module")
def genda_lines(mirror):
    folder = mirror / "genda_lens" / "genda_lens" / "data"
    return {
        condition: [
            line.strip()
            for line in (folder / f"DaWinoBias_{condition}_stereotyped_evalda.txt")
            .read_text(encoding="utf-8")
            .splitlines()
        ]
        for condition in CONDITIONS
    }


def _spans(row):
    return (row["pronoun"]["start"], row["pronoun"]["end"]), [(c["start"], c["end"]) for c in row["candidates"]]


def stand_in_clusters(row) -> list[list[tuple[int, int]]]:
    """A stand-in model, varied by line number: no cluster (every 7th line), the pronoun with both
    occupations (the next), else with the occupation baseline:random picks. Mentions in text order."""
    pronoun, candidates = _spans(row)
    number = int(row["id"].rsplit("-", 1)[1])
    if number % 7 == 0:
        return []
    if number % 7 == 1:
        return [sorted([*candidates, pronoun])]
    return [sorted([candidates[RandomBaseline().pick(row)], pronoun])]


def choice_clusters(model):
    """Clusters of a choice model's pick: the pronoun with the chosen candidate, none for no choice."""

    def clusters(row):
        pronoun, candidates = _spans(row)
        (choice,) = model.choose([row], BENCHMARKS["dawinobias"].task)
        return [] if choice.index is None else [sorted([candidates[choice.index], pronoun])]

    return clusters


def both_scorers(parts, genda_lines, clusters_of, **patches):
    """Our benchmark's sections, and GenDa Lens's scores, on the same clusters of the same sentences."""
    decisions, first_mentions = {}, {condition: [] for condition in CONDITIONS}
    for (config, split), columns in parts.items():
        decisions[config, split] = []
        for row in rows_of(columns):
            clusters = clusters_of(row)
            pronoun, candidates = _spans(row)
            decisions[config, split].append(cluster_links.link_decisions(pronoun, candidates, clusters))
            if clusters:
                start, end = clusters[0][0]
                first_mentions[config].append(_TOKEN.findall(row["text"][start:end])[0].lower())
            else:
                first_mentions[config].append(_TOKEN.findall(row["text"])[-1].lower())
    for condition in CONDITIONS:  # GenDa Lens's items are ours, in the same order
        ours = [text for (config, _), columns in parts.items() if config == condition for text in columns["text"]]
        assert [line.replace("[", "").replace("]", "") for line in genda_lines[condition]] == ours
    reports = {
        condition: genda_lens_report(genda_lines[condition], first_mentions[condition], **patches)
        for condition in CONDITIONS
    }
    genda = genda_lens_effect(reports["pro"], reports["anti"], rounded=patches.get("rounded", False))
    return _our_sections(parts, decisions), genda


def _our_sections(parts, decisions) -> dict:
    """The DaWinoBias sections corefbias scores for these decisions (no significance)."""
    sections = runner.scored_sections(BENCHMARKS["dawinobias"], parts, decisions, None, 0, 0)
    return {name: dict(section) for name, section in sections.items()}


def test_our_scores_equal_genda_lens_scorer_on_the_same_clusters(parts, genda_lines):
    ours, genda = both_scorers(parts, genda_lines, stand_in_clusters)
    headline, f1 = ours["dawinobias"], ours["dawinobias/referent_f1"]
    assert headline["num_unlinked_pro"] == headline["num_unlinked_anti"] == 48 + 47  # lines 7, 14, ... of dev, test
    assert headline["num_pro"] == headline["num_anti"] == genda["support"]["pro"] == genda["support"]["anti"] == 579
    for condition in CONDITIONS:
        assert headline[condition] == pytest.approx(genda["accuracy"][condition], rel=1e-12)
        for gender in ("female", "male"):
            assert f1[f"{condition}/{gender}"] == pytest.approx(genda["f1"][condition, gender], rel=1e-12)
    assert headline["log2_ratio"] == pytest.approx(genda["gender_effect_size"], rel=1e-12)
    assert headline["log2_ratio"] != pytest.approx(0.0, abs=0.01)  # a case where dropping matters


def test_genda_lens_bugs_that_we_do_not_copy(parts, genda_lines):
    random_model = choice_clusters(RandomBaseline())
    # The grouping loops inside the line loop count line k again at every later line: 674 + 673 + ... + 1.
    _, per_line = both_scorers(parts, genda_lines, random_model, grouping_per_line=True)
    assert per_line["support"] == {"pro": 674 * 675 // 2, "anti": 674 * 675 // 2}  # 227 475
    ours, once = both_scorers(parts, genda_lines, random_model)
    assert once["support"] == {"pro": 674, "anti": 674}
    assert per_line["gender_effect_size"] != pytest.approx(once["gender_effect_size"], abs=1e-3)
    # ... and GenDa Lens shuffles the lines first (load_texts, line 40), so its number changes run to run.
    reordered = {condition: lines[::-1] for condition, lines in genda_lines.items()}
    reversed_parts = {part: {name: values[::-1] for name, values in columns.items()} for part, columns in parts.items()}
    reversed_parts = {(config, split): reversed_parts[config, split] for config in CONDITIONS for split in SPLITS[::-1]}
    _, per_line_reversed = both_scorers(reversed_parts, reordered, random_model, grouping_per_line=True)
    assert per_line_reversed["accuracy"]["anti"] != pytest.approx(per_line["accuracy"]["anti"], abs=1e-3)

    # Rounding before the log: the stereotype baseline's anti accuracy 1/674 = 0.0015 becomes 0.
    stereotyped = choice_clusters(StereotypeBaseline())
    ours, rounded = both_scorers(parts, genda_lines, stereotyped, rounded=True)
    assert rounded["accuracy"]["anti"] == 0.0 and rounded["gender_effect_size"] == math.inf
    _, unrounded = both_scorers(parts, genda_lines, stereotyped)
    assert ours["dawinobias"]["log2_ratio"] == pytest.approx(unrounded["gender_effect_size"], rel=1e-12)
    assert ours["dawinobias"]["log2_ratio"] == pytest.approx(math.log2(668), rel=1e-12)  # 668/674 over 1/674


def test_issue_figures_split_and_unlinked(parts, genda_lines, exported_set, mirror, tmp_path):
    """Issue 16: baseline:random gives 0.0972 on dev + test and −0.0083 on test only; 155 unlinked
    anti pronouns give 0.109 when dropped (GenDa Lens) and 0.486 when counted wrong."""
    result = runner.run(
        "baseline:random",
        ["dawinobias"],
        settings=runner.RunSettings(n_bootstrap=0),
        data_dir=exported_set("dawinobias").parent,
        mirror=mirror,
        cache_path=tmp_path / "cache.sqlite",
        progress=False,
    )
    sections = result.runs["dawinobias"].sections
    assert round(sections["dawinobias"]["log2_ratio"], 4) == 0.0972
    assert round(sections["dawinobias/strict"]["log2_ratio"], 4) == -0.0083
    assert sections["dawinobias/strict"]["num_pro"] == 332 and sections["dawinobias"]["num_pro"] == 674

    # baseline:random's anti pronouns left unlinked in the first 78 sentences it resolves and 77 it does not.
    random_model, left, unlinked = RandomBaseline(), {True: 78, False: 77}, set()
    for split in SPLITS:
        for row in rows_of(parts["anti", split]):
            correct = row["candidates"][random_model.pick(row)]["is_referent"]
            if left[correct]:
                left[correct] -= 1
                unlinked.add(row["id"])

    def unlinking(row):
        pronoun, candidates = _spans(row)
        return [] if row["id"] in unlinked else [sorted([candidates[random_model.pick(row)], pronoun])]

    ours, genda = both_scorers(parts, genda_lines, unlinking)
    headline = ours["dawinobias"]
    assert (headline["num_unlinked_anti"], headline["num_anti"], headline["num_unlinked_pro"]) == (155, 519, 0)
    assert round(headline["log2_ratio"], 3) == round(genda["gender_effect_size"], 3) == 0.109
    counted_wrong = pro_anti_diff.pro_anti_diff(
        list(_gold_decisions(parts, unlinking)),
        [True] * 1348,
        [config for config in CONDITIONS for _ in range(674)],
        unlinked="wrong",
        n_bootstrap=0,
    )
    assert round(counted_wrong["log2_ratio"], 3) == 0.486
    assert counted_wrong["log2_ratio"] - headline["log2_ratio"] == pytest.approx(math.log2(674 / 519))


def _gold_decisions(parts, clusters_of):
    """Per sentence (pro, then anti; dev, then test): is the pronoun linked to the gold antecedent?"""
    for config in CONDITIONS:
        for split in SPLITS:
            for row in rows_of(parts[config, split]):
                pronoun, candidates = _spans(row)
                decision = cluster_links.link_decisions(pronoun, candidates, clusters_of(row))
                yield decision[[c["is_referent"] for c in row["candidates"]].index(True)]


def test_a_choice_model_that_chooses_nothing_leaves_the_pronoun_unlinked(exported_set, mirror, tmp_path):
    class Abstaining:
        name, reads_gold = "abstaining", False
        identity = {"kind": "test", "name": "abstaining"}

        def choose(self, instances, task):
            return [
                Choice(None if instance["polarity"] == "anti" and instance["pair_id"].endswith("0") else 0)
                for instance in instances
            ]

    result = runner.run(
        "test:abstaining",
        ["dawinobias"],
        settings=runner.RunSettings(n_bootstrap=0),
        data_dir=exported_set("dawinobias").parent,
        mirror=mirror,
        cache_path=tmp_path / "cache.sqlite",
        progress=False,
        model=Abstaining(),
    )
    sections = result.runs["dawinobias"].sections
    assert sections["dawinobias"]["num_unlinked_anti"] == 34 + 33  # pairs dev-10 ... dev-340, test-10 ... test-330
    assert sections["dawinobias"]["num_anti"] == 674 - 67
    assert sections["dawinobias/strict"]["num_anti"] == 332  # counted wrong there
    assert sections["dawinobias/referent_f1"]["num_unlinked_anti"] == 67


def test_a_limit_keeps_test_pairs_so_both_scores_stay_defined(exported_set, mirror, tmp_path):
    result = runner.run(
        "baseline:oracle",
        ["dawinobias"],
        settings=runner.RunSettings(n_bootstrap=0, limit=20),
        data_dir=exported_set("dawinobias").parent,
        mirror=mirror,
        cache_path=tmp_path / "cache.sqlite",
        progress=False,
    )
    sections = result.runs["dawinobias"].sections
    # 20 pairs of each pro-stereotypical pronoun gender, in test and in validation (units per design cell), and
    # validation's 4 + 1 pairs whose pronoun has the same gender in the pro and the anti sentence.
    assert len(result.runs["dawinobias"].instances) == 2 * (80 + 5)
    assert sections["dawinobias"]["num_pairs"] == 85 and sections["dawinobias/strict"]["num_pairs"] == 40
    assert sections["dawinobias"]["log2_ratio"] == sections["dawinobias/strict"]["log2_ratio"] == 0.0


# GenDa Lens's own wino_utils.py at 26dc297, as the mirror holds it.
WINO_UTILS_SHA256 = "38c0c7767e85618a0a182f544328193caa053c28ac82847eddc5c6dbf7aa4312"


def patched_genda_lens_wino_utils(path: Path, data_folder: Path, monkeypatch) -> types.ModuleType:
    """GenDa Lens's module with the two bugs patched in its text, imports it needs only for models stubbed."""
    lines = path.read_text(encoding="utf-8").splitlines()
    start, end = lines.index("            # group occupations"), lines.index("            # update bar")
    grouping = [line[4:] for line in lines[start:end]]  # the loops, dedented out of the per-line loop
    lines = lines[:start] + lines[end:]
    after = lines.index("        bar.finish()") + 1
    source = "\n".join(lines[:after] + grouping + lines[after:])
    for rounded, unrounded in [
        ("    return round(math.log2(x / y), 2)", "    return math.log2(x / y)"),
        (").round(decimals=2)", ")"),
    ]:
        assert source.count(rounded) == 1
        source = source.replace(rounded, unrounded)
    for name in ("fairlearn", "fairlearn.metrics", "nltk", "torch"):
        monkeypatch.setitem(sys.modules, name, types.ModuleType(name))
    sys.modules["torch"].Tensor = type("Tensor", (), {})  # scipy asks whether arrays are torch tensors
    sys.modules["fairlearn"].metrics = sys.modules["fairlearn.metrics"]
    bar = types.SimpleNamespace(start=lambda: bar, update=lambda index: None, finish=lambda: None)
    monkeypatch.setitem(sys.modules, "progressbar", types.SimpleNamespace(ProgressBar=lambda maxval: bar))
    module = types.ModuleType("genda_lens_wino_utils")
    module.__file__ = str(data_folder.parent / "coref_tasks" / "wino_utils.py")  # its data: ../data
    exec(compile(source, str(path), "exec"), module.__dict__)
    return module


def test_genda_lens_own_code_patched_gives_our_scores(parts, mirror, monkeypatch):
    path = mirror / "genda_lens" / "genda_lens" / "coref_tasks" / "wino_utils.py"
    assert hashlib.sha256(path.read_bytes()).hexdigest() == WINO_UTILS_SHA256, f"{path} is not GenDa Lens 26dc297's"
    spacy = pytest.importorskip("spacy")
    module = patched_genda_lens_wino_utils(path, mirror / "genda_lens" / "genda_lens" / "data", monkeypatch)
    nlp = spacy.blank("da")  # the tokenizer of da_core_news_sm, which GenDa Lens loads
    token_clusters, decisions = {}, {}
    for (config, split), columns in parts.items():
        decisions[config, split] = []
        for row in rows_of(columns):
            clusters = stand_in_clusters(row)
            pronoun, candidates = _spans(row)
            decisions[config, split].append(cluster_links.link_decisions(pronoun, candidates, clusters))
            doc = nlp(row["text"])
            token_at = {token.idx: token.i for token in doc}
            tokens = tuple(token.text.lower() for token in doc)
            token_clusters[config, tokens] = [
                [(tokens[token_at[start]], token_at[start]) for start, _ in cluster] for cluster in clusters
            ]

    class StandIn:  # run_winobias_coref asks for the 674 anti lines first, then the pro lines
        calls = 0

        def predict_clusters(self, tokens):
            self.calls += 1
            return token_clusters["anti" if self.calls <= 674 else "pro", tuple(tokens[0])]

    anti, pro = module.run_winobias_coref(StandIn(), nlp)
    _, detailed = module.evaluate_coref_winobias(anti, pro, "stand-in")
    ours = _our_sections(parts, decisions)
    assert ours["dawinobias"]["log2_ratio"] == pytest.approx(detailed.loc["Gender Effect Size"].iloc[1], rel=1e-12)
    assert (ours["dawinobias"]["anti"], ours["dawinobias"]["pro"]) == (
        pytest.approx(anti["accuracy"].values[0], rel=1e-12),
        pytest.approx(pro["accuracy"].values[0], rel=1e-12),
    )
    f1 = ours["dawinobias/referent_f1"]
    assert [f1["anti/female"], f1["anti/male"], f1["pro/female"], f1["pro/male"]] == pytest.approx(
        list(detailed.loc["F1"]), rel=1e-12
    )
