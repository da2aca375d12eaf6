"""The Space: served for real on loopback and called with gradio_client; its helpers on hand-made runs."""

import json
import socket
import threading
from pathlib import Path
from types import SimpleNamespace

import pytest

from corefbias.harness import run_outputs, runner
from corefbias.models.http_protocol import make_server
from corefbias.space import charts, explore, inputs, jobs, learn
from corefbias.space.settings import SpaceSettings
from corefbias.space.store import RunStore, score_column

gradio_client = pytest.importorskip("gradio_client")

REPO = Path(__file__).resolve().parents[1]
QUICK = ["winogender", "counter_gap"]
LIMIT, N_BOOTSTRAP, SEED = 20, 200, 3


@pytest.fixture(scope="module")
def data_dir(exported_set):
    for name in QUICK:
        exported_set(name)
    return exported_set(QUICK[0]).parent


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory):
    """Gradio's and datasets' caches under the test's tmp folder, so nothing is written elsewhere."""
    import datasets

    root = tmp_path_factory.mktemp("space")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("GRADIO_TEMP_DIR", str(root / "gradio"))
        patch.setenv("GRADIO_ANALYTICS_ENABLED", "False")
        patch.setattr(datasets.config, "HF_DATASETS_CACHE", root / "hf_datasets")
        yield root


def _settings(root: Path, data_dir: Path, mirror: Path, **overrides) -> SpaceSettings:
    return SpaceSettings(data_root=root / "data", datasets_dir=data_dir, mirror=mirror, cards_dir=REPO / "metrics", **overrides)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def served(sandbox, data_dir, mirror):
    from corefbias.space import ui

    settings = _settings(sandbox, data_dir, mirror, port=_free_port())
    demo = ui.build_app(settings)
    ui.launch(demo, settings, prevent_thread_lock=True, quiet=True)
    try:
        client = gradio_client.Client(demo.local_url, verbose=False, download_files=str(sandbox / "downloads"))
        yield SimpleNamespace(client=client, settings=settings, url=demo.local_url)
    finally:
        demo.close()


def _sections(results: dict) -> dict:
    return {name: outcome["sections"] for name, outcome in results["benchmarks"].items()}


def test_a_served_run_scores_what_the_runner_scores_and_joins_the_leaderboard(served, data_dir, tmp_path):
    status, summary, winogender_plot, counter_gap_plot, pro_anti_plot, gap_plot, files = served.client.predict(
        "baseline:stereotype", QUICK, LIMIT, N_BOOTSTRAP, SEED, api_name="/run"
    )
    expected = runner.run("baseline:stereotype", QUICK, data_dir=data_dir, cache_path=tmp_path / "cache.sqlite",
                          limit=LIMIT, n_bootstrap=N_BOOTSTRAP, seed=SEED, progress=False).to_json()
    downloaded = {Path(path).name: Path(path) for path in files}
    assert set(downloaded) == {"results.json", "report.md", "summary.csv"}
    assert _sections(json.loads(downloaded["results.json"].read_text())) == _sections(json.loads(json.dumps(expected)))
    assert summary["data"] == charts.summary_frame(expected).values.tolist()
    # The stereotype baseline sends one of "she"/"he" to the stereotyped occupation: most pairs split.
    pairs_split = expected["benchmarks"]["winogender"]["sections"]["winogender"]["pairs_resolved_differently"]
    assert pairs_split > 0.5 and f"{pairs_split:.3f}" in {row[2] for row in summary["data"]}
    assert "baseline:stereotype" in status and "winogender 60" in status and "counter_gap 80" in status
    winogender = expected["benchmarks"]["winogender"]["sections"]["winogender"]
    preferences = [key for key, value in winogender.items() if key.startswith("preference/") and value is not None]
    assert winogender_plot["visible"] and len(winogender_plot["value"]["data"]) == len(preferences)
    assert counter_gap_plot["visible"] and not pro_anti_plot["visible"] and not gap_plot["visible"]

    board, _ = served.client.predict(None, True, api_name="/leaderboard")
    rows = [dict(zip(board["headers"], row)) for row in board["data"]]
    (ours,) = [row for row in rows if row["model"] == "baseline:stereotype" and row["limit"] == str(LIMIT)]
    for headline in run_outputs.summary_rows(expected):
        assert ours[score_column(headline)] == pytest.approx(headline["value"], abs=5e-5)

    note, cases_html, _ = served.client.predict(ours["run"], "winogender", 1, api_name="/explore")
    assert "Minimal pairs" in note and cases_html.count('class="case"') == min(10, round(pairs_split * LIMIT))
    assert '<b class="pronoun">' in cases_html and '<mark class="linked">' in cases_html


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("nonsense:<b>x</b>", "unknown model spec 'nonsense:&lt;b&gt;x&lt;/b&gt;'"),  # shown as text, never as markup
        ("http://127.0.0.1:1", "cannot reach http://127.0.0.1:1/v1/info"),
        ("http://:8808", "names no host"),
        ("http://user:secret@127.0.0.1:8808", "put no credentials in the endpoint URL"),
        ("baseline:best", "unknown baseline 'best'"),
        ("", "enter a model"),
    ],
)
def test_bad_models_are_readable_errors_and_the_app_keeps_serving(served, spec, message):
    with pytest.raises(gradio_client.exceptions.AppError) as raised:
        served.client.predict(spec, ["winogender"], 2, 0, 0, api_name="/run")
    assert message in str(raised.value)
    status, summary, *_ = served.client.predict("baseline:oracle", ["winogender"], 1, 0, 0, api_name="/run")
    assert "baseline:oracle" in status and summary["data"][0][:3] == ["winogender", "pairs resolved differently", "0.000"]


def test_a_failing_endpoint_model_is_a_readable_error(served):
    def predict(texts):
        raise RuntimeError("CUDA out of memory")

    server = make_server(predict, "failing")
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        with pytest.raises(gradio_client.exceptions.AppError) as raised:
            served.client.predict(f"http://127.0.0.1:{server.server_address[1]}", ["winogender"], 1, 0, 0, api_name="/run")
    finally:
        server.shutdown()
        server.server_close()
    assert "/v1/clusters answered 500: RuntimeError: CUDA out of memory" in str(raised.value)


@pytest.mark.parametrize(
    ("limit", "n_bootstrap", "message"),
    [(10_001, 0, "between 1 and 10000"), (-3, 0, "between 1 and 10000"), (2, 10**6, "bootstrap resamples must be between 0")],
)
def test_out_of_range_numbers_are_refused(served, limit, n_bootstrap, message):
    with pytest.raises(gradio_client.exceptions.AppError, match=message):
        served.client.predict("baseline:oracle", ["winogender"], limit, n_bootstrap, 0, api_name="/run")


def test_the_time_limit_stops_a_run_between_batches(sandbox, data_dir, mirror, tmp_path):
    settings = _settings(tmp_path, data_dir, mirror, time_limit_s=0.0)
    store = RunStore(settings.data_root)
    seen = []
    with pytest.raises(jobs.JobError, match="time limit of 0 s during winogender \\(0 of 15 instances\\)"):
        jobs.run_job(settings, store, "baseline:oracle", ["winogender"], 5, 0, 0, progress=lambda *step: seen.append(step))
    assert seen[-1] == ("winogender", 0, 15) and store.run_ids() == []


def test_secrets_never_reach_the_page(monkeypatch):
    monkeypatch.setenv("HF_TOKEN", "hf_abcdefghijklmnop")
    monkeypatch.setenv("GRADIO_SERVER_PORT", "7861")  # not a secret: left as it is
    assert inputs.redact("GET https://x/?t=hf_abcdefghijklmnop on 7861 failed") == "GET https://x/?t=*** on 7861 failed"
    assert jobs.readable(RuntimeError("token hf_abcdefghijklmnop rejected")) == "the run failed: RuntimeError: token *** rejected"


def test_inputs_are_checked():
    assert inputs.check_model_spec("  baseline:dist-2 ", 300) == "baseline:dist-2"
    assert inputs.check_model_spec("https://example.org:8808/coref", 300) == "https://example.org:8808/coref"
    for bad, message in [("baseline:x y", "spaces"), ("http://h:99999", "malformed endpoint URL"),
                         ("http://h/?key=1", "without \\?query"), ("b:" + "x" * 400, "the limit is 300")]:
        with pytest.raises(ValueError, match=message):
            inputs.check_model_spec(bad, 300)
    assert inputs.check_limit(0, 10) is None and inputs.check_limit(None, 10) is None and inputs.check_limit(10.0, 10) == 10
    with pytest.raises(ValueError, match="whole number"):
        inputs.check_limit(2.5, 10)
    with pytest.raises(ValueError, match="tick at least one benchmark"):
        inputs.check_benchmarks([])
    with pytest.raises(ValueError, match="unknown benchmark 'winobias3'"):
        inputs.check_benchmarks(["winobias3"])
    presets = inputs.model_presets()
    assert presets[0] == "baseline:stereotype" and "baseline:dist-1" in presets and "fastcoref:biu-nlp/f-coref" in presets


def _run(parts: dict, decisions: list, golds: list, condition_column: str | None = None):
    """A stand-in for a runner.BenchmarkRun: parts as columns, instances in the parts' row order."""
    instances = []
    rows = [(part, index) for part, columns in parts.items() for index in range(len(columns["id"]))]
    for (part, index), decision, gold in zip(rows, decisions, golds, strict=True):
        instances.append({"id": parts[part]["id"][index], "config": part[0], "split": part[1], "decision": decision, "gold": gold, "parsed": True})
    benchmark = SimpleNamespace(condition_column=condition_column)
    return SimpleNamespace(parts=parts, instances=instances, sections={"any": {}}, benchmark=benchmark)


def _columns(rows: list[dict]) -> dict:
    return {key: [row[key] for row in rows] for key in rows[0]}


def _instance(identifier, text="Ann met Bob because she was late.", **columns):
    return {"id": identifier, "text": text, "pronoun": {"start": 20, "end": 23},
            "candidates": [{"start": 0, "end": 3}, {"start": 8, "end": 11}], **columns}


def test_counter_gap_cases_rank_quadruples_by_their_own_delta_i():
    roles = ["original", "gender_controlled", "gender_swapped_1", "gender_swapped_2"]
    genders = ["male", "male", "female", "female"]
    rows = [_instance(f"{q}{i}", quadruple_id=q, role=role, gender=gender)
            for q in "ABC" for i, (role, gender) in enumerate(zip(roles, genders))]
    gold, wrong = [True, False], [False, True]
    # A: right on both male instances, wrong on both female ones: I_across 4/4, I_within 0, ΔI +1.
    # B: right on the original and swapped-1 only: I_across 2/4, I_within (1 + 1)/2, ΔI −0.5.
    # C: right everywhere: consistent, not shown.
    decisions = [gold, gold, wrong, wrong] + [gold, wrong, gold, wrong] + [gold] * 4
    run = _run({("default", "test"): _columns(rows)}, decisions, [gold] * 12)
    cases = explore.counter_gap_cases(run)
    assert [case["title"] for case in cases] == [
        "quadruple A: I_across 1.00, I_within 0.00, ΔI +1.00",
        "quadruple B: I_across 0.50, I_within 1.00, ΔI -0.50",
    ]
    assert [member["correct"] for member in cases[1]["members"]] == [True, False, True, False]
    assert cases[0]["members"][2]["label"] == "gender swapped 1 (female)"


def test_winogender_and_pro_anti_cases():
    wino = [
        _instance(f"p{n}.{gender}", pair_id=f"p{n}", gender=gender, occupation="nurse", participant="patient",
                  bls_pct_female=90.0)
        for n in (1, 2) for gender in ("female", "male", "neutral")
    ]
    occupation, participant = [True, False], [False, True]
    decisions = [occupation, participant, participant] + [participant] * 3  # p1 splits by gender, p2 does not
    (case,) = explore.winogender_cases(_run({("default", "test"): _columns(wino)}, decisions, [occupation] * 6))
    assert case["title"].startswith("nurse / patient (p1; 90% of nurses are women, BLS): female → occupation, male → participant")
    assert [member["label"] for member in case["members"]] == [
        "female pronoun → occupation", "male pronoun → participant", "neutral pronoun → participant"]

    gold, wrong = [True, False], [False, True]
    parts = {}
    for kind in ("type1", "type2"):  # the same pair ids in both types: pairs are per type
        for polarity in ("pro", "anti"):
            parts[(f"{kind}_{polarity}", "test")] = _columns(
                [_instance(f"{kind}-{polarity}-{n}", pair_id=str(n), polarity=polarity, pronoun_gender="female") for n in (1, 2)])
    decisions = [
        gold, wrong,  # type1 pro: pair 1 right, pair 2 wrong
        wrong, gold,  # type1 anti: pair 1 wrong, pair 2 right
        gold, gold, gold, gold,  # type2: all right, nothing to show
    ]
    cases = explore.pro_anti_cases(_run(parts, decisions, [gold] * 8, condition_column="polarity"))
    assert [case["title"] for case in cases] == [
        "pair 1 (female pronoun): pro ✓, anti ✗", "pair 2 (female pronoun): pro ✗, anti ✓"]
    # SoWinoBias's layout: one config, pro/anti in "condition", "polarity" is the adjective's.
    sowinobias = {("default", "test"): _columns([
        _instance(f"so-{condition}", pair_id="3", condition=condition, polarity="negative", pronoun_gender="male")
        for condition in ("anti", "pro")
    ])}
    (case,) = explore.pro_anti_cases(_run(sowinobias, [wrong, gold], [gold] * 2, condition_column="condition"))
    assert case["title"] == "pair 3 (male pronoun): pro ✓, anti ✗"
    assert [member["label"] for member in case["members"]] == ["anti (so-anti)", "pro (so-pro)"]


def test_cases_render_as_escaped_html_marking_pronoun_gold_and_links():
    member = {"label": "original <x>", "correct": False, "text": "<i>Ann</i> met Bob & she left.",
              "pronoun": [21, 24], "candidates": [{"start": 3, "end": 6, "gold": True, "linked": False},
                                                  {"start": 15, "end": 18, "gold": False, "linked": True}]}
    shown = explore.render([{"title": "t <script>", "members": [member]}])
    assert "&lt;i&gt;<span class=\"candidate\"><u>Ann</u></span>&lt;/i&gt; met <mark class=\"linked\">Bob</mark> &amp; " \
           "<b class=\"pronoun\"><u>she</u></b> left." in shown
    assert "<script>" not in shown and 'original &lt;x&gt;<br><span class="incorrect">✗ incorrect</span>' in shown


def test_leaderboard_sorts_by_any_score_with_missing_scores_last(tmp_path):
    store = RunStore(tmp_path)
    for name, value in [("a", 0.2), ("b", None), ("c", 0.7)]:
        folder = store.runs / f"20260101-00000{len(name + str(value))}-{name * 8}"
        folder.mkdir()
        sections = {} if value is None else {"counter_gap": {"delta_i": value}}
        (folder / "results.json").write_text(json.dumps({
            "model": f"baseline:{name}", "settings": {"limit": None, "n_bootstrap": 0},
            "benchmarks": {"counter_gap": {"sections": sections}}}))
    assert store.leaderboard("counter_gap: ΔI")["model"].tolist() == ["baseline:c", "baseline:a", "baseline:b"]
    assert store.leaderboard("counter_gap: ΔI", descending=False)["model"].tolist() == ["baseline:a", "baseline:c", "baseline:b"]
    with pytest.raises(ValueError, match="cannot sort by 'nope'"):
        store.leaderboard("nope")
    with pytest.raises(ValueError, match="no run '../x'"):
        store.results("../x")
    csv_lines = store.leaderboard_csv().read_text().splitlines()
    assert csv_lines[0] == "model,benchmarks,limit,n_bootstrap,date,counter_gap: Acc_Diff (M − F),counter_gap: accuracy,counter_gap: ΔI,run"
    assert len(csv_lines) == 4


def test_learn_pages_come_from_the_metric_cards():
    pages = dict(learn.metric_pages(REPO / "metrics"))
    assert set(pages) >= {"Counter-GAP ΔI", "Winogender Bias", "GAP acc-Bias"}
    counter_gap = pages["Counter-GAP ΔI"]
    card = (REPO / "metrics" / "counter_gap_delta_i" / "README.md").read_text()
    assert "**ΔI = I_across − I_within** (Eq. 4)" in counter_gap and "xie-etal-2023-counter" in counter_gap
    assert counter_gap.split("### Citation", 1)[1].strip() == card.split("## Citation", 1)[1].strip()
    assert "| counter_gap | ΔI | 0 | `counter_gap_delta_i` | en |" in learn.headline_table()
    assert learn.metric_pages(None) == []


def test_gap_weight_histogram_counts_the_weighted_examples_by_gender():
    weights = [0.0, 0.5, 1.0, 1.0, 2.0, 0.0]  # weight 0: the example is left out by the balancing
    genders = ["female", "female", "female", "male", "male", "male"]
    run = SimpleNamespace(sections={"gap/w": {"weights": weights}}, parts={("default", "test"): {"gender": genders}})
    frame, width = charts.gap_weights_frame(SimpleNamespace(runs={"gap": run}), bins=3)
    # Bins [0.5, 1.0), [1.0, 1.5), [1.5, 2.0] over the positive weights, given by their centres.
    assert width == 0.5
    assert frame.values.tolist() == [
        [0.75, 1, "female"], [1.25, 1, "female"], [1.75, 0, "female"],
        [0.75, 0, "male"], [1.25, 1, "male"], [1.75, 1, "male"],
    ]
    assert charts.gap_weights_frame(SimpleNamespace(runs={})) is None


def test_compare_tab_tests_the_differences_between_stored_runs(served):
    for spec in ("baseline:oracle", "baseline:random"):
        served.client.predict(spec, QUICK, LIMIT, N_BOOTSTRAP, SEED, api_name="/run")
    board, _ = served.client.predict(None, True, api_name="/leaderboard")
    rows = [dict(zip(board["headers"], row)) for row in board["data"]]
    ids = {row["model"]: row["run"] for row in rows if row["limit"] == str(LIMIT)}
    note, table, forest, files = served.client.predict(
        [ids["baseline:random"], ids["baseline:oracle"]], api_name="/compare"
    )
    assert "Holm" in note and "Pearson" not in note and "r with BLS % female: not a sum over pair_id units" in note
    differences = [dict(zip(table["headers"], row)) for row in table["data"]]
    assert {row["A"] for row in differences} == {"baseline:random"} and len(differences) == 6
    (split,) = [row for row in differences if row["score"] == "pairs resolved differently"]
    assert split["B value"] == "0.000" and split["A − B"].rstrip("*") == split["A value"]
    assert split["A − B"].endswith("*") == (float(split["p (Holm)"]) < 0.05)
    assert forest["visible"] and Path(forest["value"]).read_bytes()[:4] == b"\x89PNG"
    assert {Path(path).name for path in files} == {"comparison.json", "comparison.md", "forest.png"}
    with pytest.raises(gradio_client.exceptions.AppError, match="pick at least two runs"):
        served.client.predict([ids["baseline:oracle"]], api_name="/compare")
