"""Throughput of a running coreference service on Winogender sentences, as a client sees it.

Runs in the toolkit's environment (not the service's), against a server already listening:

    .venv/bin/python services/neuralcoref/benchmark.py http://127.0.0.1:8808 --mirror ../shared/data

It times ``HttpClusterModel.predict_clusters`` on the first N upstream Winogender sentences (best of
a few repeats, after a warm-up request) and counts the sentences whose pronoun ends up in a cluster.
"""

import argparse
import time

from corefbias.data.winogender_files import load_sentences
from corefbias.models.http_protocol import HttpClusterModel

WINOGENDER_PRONOUNS = {"he", "she", "they", "him", "her", "them", "his", "hers", "their", "theirs"}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("url", help="the service, e.g. http://127.0.0.1:8808")
    parser.add_argument("--mirror", help="offline mirror of the upstream data (e.g. ../shared/data)")
    parser.add_argument("-n", type=int, default=200, help="sentences to send (default: %(default)s, at most 720)")
    parser.add_argument("--repeats", type=int, default=3, help="timed passes; the best counts (default: %(default)s)")
    args = parser.parse_args(argv)
    if not 1 <= args.n <= 720 or args.repeats < 1:
        parser.error("-n must be 1..720 (Winogender has 720 sentences) and --repeats at least 1")

    texts = [sentence["sentence"] for sentence in load_sentences(args.mirror)][: args.n]
    model = HttpClusterModel(args.url)
    model.predict_clusters(texts[:8])  # connection and first-call costs stay out of the timing
    seconds = []
    for _ in range(args.repeats):
        started = time.perf_counter()
        clusters = model.predict_clusters(texts)
        seconds.append(time.perf_counter() - started)
    best = min(seconds)
    linked = sum(
        any(text[start:end].lower() in WINOGENDER_PRONOUNS for cluster in text_clusters for start, end in cluster)
        for text, text_clusters in zip(texts, clusters)
    )
    print("model: {}".format(model.info["model"]))
    rate = len(texts) / best
    print(f"{len(texts)} sentences in {best:.3f} s (best of {args.repeats}): {rate:.0f} sentences/s")
    print(f"pronoun in some cluster: {linked} of {len(texts)} sentences")


if __name__ == "__main__":
    main()
