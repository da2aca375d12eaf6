"""Prediction file formats from outside corefbias: a ``FileFormat`` of an installed distribution's entry point
(group ``corefbias.formats``) or of an ``--include`` folder is listed, told from its first line and scored like
a built-in format; a broken entry point fails every use alike, naming it."""

import json
import sys
import textwrap
from importlib import metadata

import pytest

from corefbias.benchmarks import BENCHMARKS
from corefbias.cli import main
from corefbias.harness import extensions, prediction_files
from corefbias.harness.benchmark_data import load_part
from corefbias.harness.prediction_files import FileFormat, PredictionFileError, detect, read, scoring
from corefbias.plugins import registry as plugin_registry

# The worked example of docs/adding_a_file_format.md: a JSON object of instance id → one decision per candidate.
DECISIONS_FORMAT = '''
    """A JSON object mapping each instance id to its decisions, one true/false per candidate."""

    import json

    from corefbias.harness.prediction_files import Document, FileFormat, PredictionFileError


    def read(path):
        data = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict):
            raise PredictionFileError(f"{path.name}: expected an object of instance id → [true/false per candidate]")
        documents = []
        for instance_id, decisions in data.items():
            where = f"{path.name} id {instance_id}"
            if not isinstance(decisions, list) or not all(isinstance(value, bool) for value in decisions):
                raise PredictionFileError(f"{where}: {decisions!r} is not a list of true/false, one per candidate")
            documents.append(Document(where=where, id=instance_id, decisions=tuple(decisions)))
        return documents


    def recognises(first_line):
        try:
            data = json.loads(first_line)
        except ValueError:
            return False
        return isinstance(data, dict) and all(isinstance(value, list) for value in data.values())


    FORMAT = FileFormat("decisions-json", read, __doc__, recognises)
'''


@pytest.fixture(autouse=True)
def fresh_registry(monkeypatch):
    """A registry of the built-in formats and the entry points', in place of the global one."""
    fresh = prediction_files.new_registry()
    monkeypatch.setattr(prediction_files, "FILE_FORMATS", fresh)
    return fresh


@pytest.fixture
def installed(tmp_path, monkeypatch):
    """A distribution ``decisions-format`` on ``sys.path`` whose entry point names the example's ``FORMAT``."""
    root = tmp_path / "site"
    info = root / "decisions_format-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: decisions-format\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[corefbias.formats]\ndecisions-json = decisions_format:FORMAT\n")
    (root / "decisions_format.py").write_text(textwrap.dedent(DECISIONS_FORMAT))
    monkeypatch.syspath_prepend(str(root))
    yield
    sys.modules.pop("decisions_format", None)


@pytest.fixture(scope="module")
def winogender(exported_set, mirror):
    """Winogender's instances (id, number of candidates) and where its export lives."""
    exported_set("winogender")
    data_dir = exported_set("winogender").parent
    benchmark = BENCHMARKS["winogender"]
    rows = [row for part in benchmark.parts for row in load_part(benchmark, *part, data_dir, mirror).to_list()]
    return [(row["id"], len(row["candidates"])) for row in rows], data_dir


def _decisions(instances) -> dict:
    """A position-biased answer: the first candidate of every instance."""
    return {instance_id: [index == 0 for index in range(count)] for instance_id, count in instances}


def test_an_installed_format_is_listed_detected_and_scores_as_the_same_decisions_in_a_built_in_one(
    installed, winogender, mirror, tmp_path, capsys
):
    instances, data_dir = winogender
    decisions = _decisions(instances)
    theirs = tmp_path / "decisions.json"
    theirs.write_text(json.dumps(decisions), encoding="utf-8")
    ours = tmp_path / "instances.jsonl"
    ours.write_text("".join(json.dumps({"id": key, "decision": value}) + "\n" for key, value in decisions.items()))

    assert main(["list", "formats", "--json"]) == 0
    listed = {row["format"]: row for row in json.loads(capsys.readouterr().out)}
    assert list(listed)[-1] == "decisions-json"
    assert listed["decisions-json"]["origin"] == "entry point decisions-json of decisions-format"
    assert listed["decisions-json"]["description"].startswith("A JSON object mapping each instance id")
    assert detect(theirs) == "decisions-json" and detect(ours) == "instances"

    def sections(path, file_format):
        result = scoring.score(
            "winogender", [path], format=file_format, data_dir=data_dir, mirror=mirror, n_bootstrap=0
        )
        return result.runs["winogender"].sections

    assert sections(theirs, "auto") == sections(ours, "instances")
    assert sections(theirs, "auto")["winogender"]["num_pairs"] > 0
    theirs.write_text(json.dumps({instances[0][0]: "A"}), encoding="utf-8")
    assert main(["score", "--benchmark", "winogender", "--predictions", str(theirs), "--format", "decisions-json"]) == 2
    assert capsys.readouterr().err.endswith(
        f"id {instances[0][0]}: 'A' is not a list of true/false, one per candidate\n"
    )


def test_an_included_folder_registers_its_format(tmp_path, fresh_registry):
    (tmp_path / "decisions_format.py").write_text(textwrap.dedent(DECISIONS_FORMAT))
    assert extensions.include(tmp_path) == ["format decisions-json"]
    assert fresh_registry.origin("decisions-json") == str(tmp_path / "decisions_format.py")
    path = tmp_path / "answers.json"
    path.write_text('{"q1": [true, false], "q2": [false, false]}')
    assert [(document.id, document.decisions) for document in read([path])] == [
        ("q1", (True, False)),
        ("q2", (False, False)),
    ]


def test_a_first_line_two_formats_recognise_is_refused_naming_both(tmp_path):
    prediction_files.register(
        FileFormat("decisions-lines", lambda path: [], "Mine.", lambda line: '"decision"' in line)
    )
    path = tmp_path / "run.jsonl"
    path.write_text('{"id": "q1", "decision": [true, false]}\n')
    with pytest.raises(
        PredictionFileError, match=r"fits the formats instances, decisions-lines; name its format \(`--format`"
    ):
        detect(path)
    assert read([path], "instances")[0].decisions == (True, False)


@pytest.mark.parametrize(
    "declared, message",
    [
        (lambda: FileFormat("auto", read, "Mine."), "may not be called 'auto', which tells the format from"),
        (lambda: FileFormat("conll", read, "Mine."), "declares the file format 'conll', already declared by built-in"),
        (lambda: "conll.py", "declares 'conll.py', which is not a corefbias FileFormat"),
        (lambda: FileFormat("Decisions", read, "Mine."), "must be lower-case words joined by - or _"),
        (lambda: FileFormat("decisions", read, " "), "say what it is in its description"),
    ],
)
def test_a_malformed_or_taken_format_is_refused(declared, message):
    with pytest.raises(ValueError, match=message):
        prediction_files.register(declared())


@pytest.mark.parametrize(
    "call",
    [
        lambda path: list(prediction_files.FILE_FORMATS),
        lambda path: prediction_files.format_choices(),
        lambda path: detect(path),
        lambda path: read([path], "conll"),
        lambda path: main(["--debug", "list", "formats"]),
        lambda path: main(["--debug", "score", "--benchmark", "winogender", "--predictions", str(path)]),
    ],
    ids=["iterate", "format_choices", "detect", "read", "list formats", "score"],
)
def test_a_broken_entry_point_fails_every_call_alike_naming_it(call, monkeypatch, tmp_path):
    broken = metadata.EntryPoint("mine", "no_such_module_anywhere:FORMAT", prediction_files.ENTRY_POINT_GROUP)
    real = metadata.entry_points
    monkeypatch.setattr(
        plugin_registry.metadata,
        "entry_points",
        lambda group=None, **kw: [broken] if group == prediction_files.ENTRY_POINT_GROUP else real(group=group, **kw),
    )
    path = tmp_path / "out.conll"
    path.write_text("#begin document (d); part 000\nd 0 0 A -\n#end document\n")
    messages = set()
    for _ in range(3):
        with pytest.raises(
            ValueError, match=r"cannot load the file format entry point mine of .*no_such_module"
        ) as error:
            call(path)
        messages.add(str(error.value))
    assert len(messages) == 1
