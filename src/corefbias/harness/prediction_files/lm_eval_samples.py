"""lm-evaluation-harness's ``--log_samples`` output of a task ``corefbias export-lm-eval`` wrote
(``samples_corefbias_<benchmark>_<time>.jsonl``): one JSON object a line, the ``doc`` lm-eval read (corefbias's row,
with its ``id`` and ``cloze_candidate_of``, the candidate each option names, -1 for "someone else") and per option
the log-likelihood lm-eval computed (``filtered_resps``, ``[loglikelihood, is_greedy]`` pairs). The answer is
lm-eval's ``acc`` choice, the option of the highest log-likelihood (the first of tied ones), as a decision per
candidate; the log-likelihoods are kept, so a template's "don't know" option is scored too, with the prompt the
doc's ``cloze_template`` names (a task of ``export-lm-eval --prompts`` is another prompt's). So ``corefbias score
--format lm-eval-samples`` gives an lm-eval run every bias score and significance ``corefbias run`` gives."""

from __future__ import annotations

import math
from pathlib import Path

from ...measures import validation
from .document import Document, PredictionFileError
from .file_format import FileFormat
from .jsonlines import first_keys, object_lines

NONE_OPTION = -1  # cloze_candidate_of of the "someone else" option; cloze_target where no option is right


def _loglikelihoods(record: dict, where: str) -> list[float]:
    responses = record.get("filtered_resps", record.get("resps"))
    if not isinstance(responses, list) or not responses:
        raise PredictionFileError(f"{where}: no filtered_resps (lm-eval's log-likelihood of each option)")
    found = []
    for response in responses:
        # filtered_resps: [loglikelihood, is_greedy]; resps: [[loglikelihood, is_greedy]]
        while isinstance(response, list) and response and isinstance(response[0], list):
            response = response[0]
        value = response[0] if isinstance(response, list) and response else response
        if isinstance(value, str):  # lm-eval writes some numbers as text
            try:
                value = float(value)
            except ValueError:
                value = None
        if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value):
            raise PredictionFileError(f"{where}: {response!r:.80} is not an option's [loglikelihood, is_greedy]")
        found.append(float(value))
    return found


def _template(doc: dict, where: str) -> str | None:
    """The prompt the doc was rendered with (``cloze_template``; absent in exports before it was written)."""
    name = doc.get("cloze_template")
    if name is not None and not (isinstance(name, str) and name):
        raise PredictionFileError(f"{where}: cloze_template must be a prompt's name, got {name!r:.80}")
    return name


def read(path: Path) -> list[Document]:
    documents = []
    for where, record in object_lines(path):
        doc = record.get("doc")
        if not isinstance(doc, dict) or "id" not in doc or "cloze_candidate_of" not in doc:
            raise PredictionFileError(
                f"{where}: no doc with an id and cloze_candidate_of; expected a --log_samples line of a task "
                "`corefbias export-lm-eval` wrote"
            )
        if not validation.is_id(doc["id"]):
            raise PredictionFileError(
                f"{where}: doc id must be a non-empty string or an integer, got {doc['id']!r:.80}"
            )
        candidate_of, candidates = doc["cloze_candidate_of"], doc.get("candidates")
        loglikelihoods = _loglikelihoods(record, where)
        if not isinstance(candidate_of, list) or len(candidate_of) != len(loglikelihoods):
            raise PredictionFileError(
                f"{where}: {len(loglikelihoods)} log-likelihoods for the options {candidate_of!r:.80}; expected one "
                "per option"
            )
        if not isinstance(candidates, list):
            raise PredictionFileError(f"{where}: the doc has no candidates")
        named = [c for c in candidate_of if not (validation.is_integer(c, low=NONE_OPTION) and c < len(candidates))]
        if named:
            raise PredictionFileError(
                f"{where}: cloze_candidate_of names {named[0]!r}, not one of the doc's {len(candidates)} candidates "
                f'(0 to {len(candidates) - 1}, or {NONE_OPTION} for the "someone else" option)'
            )
        chosen = max(range(len(loglikelihoods)), key=lambda option: (loglikelihoods[option], -option))
        documents.append(
            Document(
                where=f"{where} (id {doc['id']})",
                id=str(doc["id"]),
                decisions=tuple(index == candidate_of[chosen] for index in range(len(candidates))),
                loglikelihoods=tuple(loglikelihoods),
                template=_template(doc, where),
            )
        )
    return documents


FORMAT = FileFormat(
    "lm-eval-samples",
    read,
    __doc__,
    lambda line: line.lstrip().startswith("{") and {"doc_id", "doc"} <= first_keys(line),
)
