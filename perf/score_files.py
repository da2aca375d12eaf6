"""How long does ``corefbias score`` take on the published outputs we hold?

    python perf/score_files.py --mirror ../shared/data [--n-bootstrap 1000] [--repeats 3]

Scores Counter-GAP's BERT-base output (GAP TSV, 4 008 instances), the Danish XLM-R predictions
(AllenNLP, ABC original, 13 680 instances) and WinoBias's four gold CoNLL test files (1 584 sentences,
CoNLL F1 included) and reports, per file set, reading the files, matching documents to instances, and
the whole ``scoring.score`` call (which adds the runner's scoring and the bootstrap). Exported sets are
built before timing. The best of ``--repeats`` is kept.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from corefbias.benchmarks import resolve
from corefbias.harness import benchmark_data
from corefbias.harness.prediction_files import read, scoring
from corefbias.harness.prediction_files.matching import match

WINOBIAS = "winobias/WinoBias/wino/data/conll_format/test_type{kind}_{polarity}_stereotype.v4_auto_conll"
CASES = {
    "Counter-GAP BERT-base (gap-tsv)": (
        "counter_gap",
        None,
        "cluster",
        ["counter_gap/results/none/bert_base_output.tsv"],
    ),
    "ABC XLM-R (allennlp)": ("abc", "original", "any_cluster", ["abc_dadebias_fork/outputs/coref/xlm-r_coref_da.json"]),
    "WinoBias gold (conll)": (
        "winobias",
        None,
        "cluster",
        [WINOBIAS.format(kind=k, polarity=p) for k in (1, 2) for p in ("pro", "anti")],
    ),
}


def measure(benchmark_name, config, mode, paths, data_dir, mirror, n_bootstrap) -> dict[str, float]:
    (benchmark,) = resolve([benchmark_name])
    parts = [(config, split) for _, split in benchmark.parts] if config else list(benchmark.parts)
    started = time.perf_counter()
    documents = read(paths)
    read_s = time.perf_counter() - started
    columns = {
        part: benchmark_data.load_part(benchmark, *part, data_dir, mirror)
        .select_columns(["id", "text", "candidates"])
        .to_dict()
        for part in parts
    }
    started = time.perf_counter()
    match(documents, columns, benchmark.name)
    match_s = time.perf_counter() - started
    started = time.perf_counter()
    scoring.score(
        benchmark_name, paths, config=config, mode=mode, data_dir=data_dir, mirror=mirror, n_bootstrap=n_bootstrap
    )
    return {"documents": len(documents), "read": read_s, "match": match_s, "score": time.perf_counter() - started}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mirror", type=Path, required=True, help="upstream mirror (e.g. ../shared/data)")
    parser.add_argument("--data-dir", type=Path, default=benchmark_data.default_data_dir())
    parser.add_argument("--n-bootstrap", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    print(f"{'files':34} {'documents':>9} {'read s':>7} {'match s':>8} {'score s':>8}")
    for label, (benchmark, config, mode, relative) in CASES.items():
        paths = [args.mirror / path for path in relative]
        runs = [
            measure(benchmark, config, mode, paths, args.data_dir, args.mirror, args.n_bootstrap)
            for _ in range(args.repeats)
        ]
        best = {key: min(run[key] for run in runs) for key in ("read", "match", "score")}
        print(f"{label:34} {runs[0]['documents']:>9} {best['read']:>7.2f} {best['match']:>8.2f} {best['score']:>8.2f}")


if __name__ == "__main__":
    main()
