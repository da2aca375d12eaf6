"""GICoref (Cao & Daumé, ACL 2020): 91 annotated documents by and about trans and non-binary people.

One row per question: a third-person pronoun of a document (*he*/*she*, *they*, or a neopronoun such as *ze*,
*hir*, *xe*, *ey*) and the people it may refer to (``corefbias.benchmarks.gicoref.mentions.questions``). Every
row of a document carries the whole document as its ``text`` and all of the document's gold clusters, so that a
coreference system reads each document whole and is scored on it with CoNLL F1, as the paper scores it.

Run by ``corefbias.data.hub_export`` (``datasets`` 5 runs no loading scripts). The upstream file is read through
``corefbias.data.upstream.fetch`` from the mirror given as ``data_dir`` (else ``$COREFBIAS_MIRROR``, else the
checksummed download cache).
"""

from __future__ import annotations

import datasets

from corefbias.benchmarks.gicoref import files as gicoref_files
from corefbias.benchmarks.gicoref import mentions
from corefbias.data import builder_base, citations, features

_DESCRIPTION = """\
GICoref is an English coreference corpus of 91 annotated documents (87 texts: four are annotated twice) about
people whose gender is in some way not binary: Wikipedia articles from its list of people with non-binary gender
identities, articles of LGBTQ+ periodicals found by searching for neopronouns, and fan fiction from Archive of Our
Own tagged with gender-neutral pronouns. Its two authors annotated every mention of a person and grouped the
mentions into entities. Here each third-person pronoun of a document whose referent is named nearby becomes a
question (which of the people named in its sentence and the three before does it refer to?), and each row also
holds its whole document and the document's gold clusters, which CoNLL F1 scores.
"""

FEATURES = features.common_features(
    id=datasets.Value("string"),
    document=datasets.Value("string"),
    text_id=datasets.Value("string"),
    source=datasets.Value("string"),
    pronoun_type=datasets.Value("string"),
    excerpt=datasets.Value("string"),
    excerpt_start=datasets.Value("int32"),
    clusters=datasets.List(datasets.List(dict(features.SPAN))),
    mention_types=datasets.List(datasets.List(datasets.Value("string"))),
)


def _span(text: str, span: tuple[int, int]) -> dict:
    return {"text": text[span[0] : span[1]], "start": span[0], "end": span[1]}


def document_rows(document: gicoref_files.Document) -> list[dict]:
    """The rows of one document: one per question, each with the document's text and gold clusters."""
    text, offsets = mentions.text_and_offsets(document)
    clusters = document.clusters()
    gold = [[_span(text, mentions.mention_span(mention, offsets)) for mention in cluster] for cluster in clusters]
    types = [[mentions.mention_type(mention, document) for mention in cluster] for cluster in clusters]
    last_token = {sentence: index for index, sentence in enumerate(document.sentences)}
    rows = []
    for question in mentions.questions(document):
        start = offsets[question.window_start][0]
        end = offsets[last_token[document.sentences[question.pronoun.first]]][1]
        rows.append(
            {
                "id": f"{document.name}/{question.pronoun.first}",
                "text": text,
                "pronoun": _span(text, mentions.mention_span(question.pronoun, offsets)),
                "candidates": [
                    {
                        **_span(text, mentions.mention_span(candidate, offsets)),
                        "is_referent": candidate.entity == question.pronoun.entity,
                    }
                    for candidate in question.candidates
                ],
                "document": document.name,
                "text_id": document.text_id,
                "source": document.source,
                "pronoun_type": question.pronoun_type,
                "excerpt": text[start:end],
                "excerpt_start": start,
                "clusters": gold,
                "mention_types": types,
            }
        )
    return rows


class Gicoref(builder_base.UpstreamBuilder):
    """GICoref's documents as pronoun questions, each row with its whole document and gold clusters."""

    UPSTREAM_DATASET = gicoref_files.DATASET
    DESCRIPTION = _DESCRIPTION
    FEATURES = FEATURES
    CITATION = citations.cite("cao-daume-iii-2020-toward")
    VERSION = datasets.Version("1.0.0")
    CONFIG_DESCRIPTIONS = {
        "default": "GICoref/coref.combo.conll: 91 documents, every third-person pronoun whose referent is "
        "named in its sentence or the three before, with the document and its gold clusters.",
    }

    def _generate_examples(self):
        rows = [row for document in gicoref_files.load_documents(self.mirror) for row in document_rows(document)]
        yield from builder_base.enumerate_unique(rows, gicoref_files.CONLL_FILE)
