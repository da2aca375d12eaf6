"""What every corefbias ``evaluate`` module shares: optional per-example inputs and id columns.

``evaluate`` requires every feature column in every call. Our modules have optional per-example
inputs (``pair_ids``, ``groups``, ...), so a missing optional column is filled per example before
evaluate sees it, and ``_compute`` receives ``None`` for a column left all-empty. A ``None`` in an
optional string column (an occupation without a stereotype) travels as ``OMITTED``, because evaluate
rejects a string column that opens with ``None``, and is ``None`` again in ``_compute``. An optional string column
left out of a batch travels as ``LEFT_OUT``, so that a column given with some batches and left out of others is
refused rather than read as None entries (for ``occupation_genders`` None means "no stereotype"). Id columns
(``pair_ids``, ``quadruple_ids``, ...) take strings or integers; integers become their decimal strings. A
``pandas.Series`` is read as its values.

A ``ValueError`` of the measure inside ``compute`` leaves every added batch in place (evaluate would have consumed
them), so a call with a mistake in an option can be made again.

Every column is checked, with the measures' own checks (``corefbias.measures.validation`` and
``structured_inputs``), before evaluate casts it to the module's features: that cast would read NaN, -1 or
``[True, False]`` as True and 3.5 as 3, and would fail on a dict, a scalar or a missing column with a
``TypeError``. Options a module does not take are refused by name, not left to fail as a ``TypeError`` deep
inside evaluate.
"""

from __future__ import annotations

import inspect
import os
import re
import textwrap
from collections.abc import Callable, Mapping
from pathlib import Path

import datasets
import evaluate

from ..measures import structured_inputs, validation

# numpy's ``name : type`` at a section's indentation, its description indented below it.
_NUMPY_PARAMETER = re.compile(r"^(\w+) : (.+)$")
# The words of a numpy type that evaluate's argument lists set as code, and bracketed lists ("[bool, bool]").
_TYPE_WORDS = re.compile(r"\[[^\]]*\]|\b(?:list|str|int|float|bool|None)\b")
_WIDTH = 116

# Stands for an omitted optional string input; no id, group or label of ours is empty.
OMITTED = ""
# Stands for an optional string column left out of a batch; no id, group or label of ours holds a NUL character.
LEFT_OUT = "\x00"

# Per document, clusters of [start, end] spans (pro_anti_conll_f1's predictions and references).
CLUSTERS = datasets.List(datasets.List(datasets.List(datasets.Value("int64"))))
# Per document, per cluster, a label of each mention (conll_f1_by_mention_type's mention types).
CLUSTER_LABELS = datasets.List(datasets.List(datasets.Value("string")))


def _none_column(values) -> bool:
    return values is None or all(value is None or value == OMITTED for value in values)


def _renamed(message: str, renamed: Mapping[str, str]) -> str:
    """``message`` with each parameter name of ``renamed`` (a whole word) replaced by the module's name for it.

    >>> _renamed("keys, responses are empty; response_types[0] is bad", {"keys": "references",
    ...          "responses": "predictions", "response_types": "prediction_types"})
    'references, predictions are empty; prediction_types[0] is bad'
    """
    names = "|".join(sorted(map(re.escape, renamed), key=len, reverse=True))
    return re.sub(rf"\b({names})\b", lambda match: renamed[match[1]], message)


def check_values(name: str, feature, values, *, optional: bool, is_id: bool) -> None:
    """Refuse what evaluate could not cast to ``feature`` without changing it, with the measures' checks.

    Parameters
    ----------
    name : str
        The input's name, for the message.
    feature : datasets feature
        The input's feature in the module's ``FEATURES``.
    values : list
        The input's column, one entry per example.
    optional : bool
        An optional input, whose entries may be None (left empty).
    is_id : bool
        An id column, whose entries may be integers too.
    """
    if feature == datasets.Value("bool"):
        # None passes: the measure reads it where the column allows it (an unlinked pronoun) and refuses it elsewhere.
        validation.check_booleans(name, values, allow_none=True)
    elif feature == datasets.Value("int64"):  # counts and ranks: no integer input of ours is negative
        validation.check_integers(name, values, allow_none=optional)
    elif feature == datasets.Value("float64"):
        validation.check_numbers(name, values, allow_none=optional)
    elif feature == datasets.Value("string"):
        # An id column is optional as a whole; a None id inside it would leave its instance without a unit.
        validation.check_ids(name, values, integers=is_id, allow_none=optional and not is_id)
    elif feature == datasets.List(datasets.Value("bool")):
        validation.check_binary_pairs(name, values)
    elif feature == CLUSTERS:
        structured_inputs.check_clusters(name, values)
    elif feature == CLUSTER_LABELS:
        structured_inputs.check_clusters(name, values, spans=False)
    else:
        raise TypeError(f"no input check for the feature {feature} of {name}; add one to check_values")


def numpy_parameters(docstring: str) -> dict[str, tuple[str, str]]:
    """Parameter name → (type, description) of a numpy docstring's ``Parameters`` section, descriptions joined
    into one line.

    Examples
    --------
    >>> numpy_parameters('''Summary.
    ...
    ...     Parameters
    ...     ----------
    ...     x : list of bool
    ...         the x,
    ...         over two lines.
    ...     y : str, default "a"
    ...         the ``y``.
    ...
    ...     Returns
    ...     -------
    ...     int
    ...         Not a parameter.
    ...     ''')
    {'x': ('list of bool', 'the x, over two lines.'), 'y': ('str, default "a"', 'the ``y``.')}
    """
    lines = inspect.cleandoc(docstring).splitlines()
    starts = [index for index, line in enumerate(lines[:-1]) if line == "Parameters" and lines[index + 1][:3] == "---"]
    if not starts:
        return {}
    found: dict[str, tuple[str, list[str]]] = {}
    current = None
    for index in range(starts[0] + 2, len(lines)):
        line = lines[index]
        if index + 1 < len(lines) and re.fullmatch(r"-{3,}", lines[index + 1]):
            break  # the next section's title
        match = _NUMPY_PARAMETER.match(line)
        if match:
            current = match[1]
            found[current] = (match[2], [])
        elif line.startswith(" ") and current is not None:
            found[current][1].append(line.strip())
    return {name: (kind, " ".join(text)) for name, (kind, text) in found.items()}


def _evaluate_type(kind: str) -> str:
    """A numpy type as evaluate writes it: ``list of bool, optional`` → ```list` of `bool`, optional``."""
    kind = _TYPE_WORDS.sub(lambda match: f"`{match[0]}`", kind)
    return re.sub(r'default "([^"]*)"', r"default `\1`", kind)


def kwargs_description(
    function: Callable, *, returns: str, examples: str, renamed: Mapping[str, str] | None = None
) -> str:
    r"""A module's ``_KWARGS_DESCRIPTION`` whose ``Args`` are the numpy ``Parameters`` of the measure function it
    calls, so that each parameter's text is written once, in the function.

    Parameters
    ----------
    function : callable
        The measure function the module's ``_score`` calls with every argument.
    returns : str
        The module's ``Returns`` text (what its flat dict holds).
    examples : str
        The module's ``Examples`` text, with doctests that load the module.
    renamed : mapping of str to str, optional
        The module's name for a parameter the function names otherwise (``{"keys": "references"}``).

    Returns
    -------
    str
        ``Args:``, ``Returns:`` and ``Examples:`` blocks, in evaluate's layout.

    Raises
    ------
    ValueError
        If a parameter of the function has no description in its docstring.

    Examples
    --------
    >>> def measure(predictions, n_bootstrap=1000):
    ...     '''Scores.
    ...
    ...     Parameters
    ...     ----------
    ...     predictions : list of bool or None
    ...         the model's links.
    ...     n_bootstrap : int, default 1000
    ...         resamples.
    ...     '''
    >>> print(kwargs_description(measure, returns="a dict", examples="Two calls:\n  one\n  two"))
    <BLANKLINE>
    Args:
        predictions (`list` of `bool` or `None`): the model's links.
        n_bootstrap (`int`, default 1000): resamples.
    Returns:
        a dict
    Examples:
        Two calls:
          one
          two
    <BLANKLINE>
    """
    documented = numpy_parameters(function.__doc__ or "")
    renamed = dict(renamed or {})
    lines = ["", "Args:"]
    for name in inspect.signature(function).parameters:
        if name not in documented:
            raise ValueError(f"{function.__name__} documents no parameter {name!r}: add it to its numpy Parameters")
        kind, text = documented[name]
        text = text.replace("``", "`")  # reStructuredText's code, as evaluate's texts write it
        lines += textwrap.wrap(
            text,
            _WIDTH,
            initial_indent=f"    {renamed.get(name, name)} ({_evaluate_type(kind)}): ",
            subsequent_indent=" " * 8,
            break_long_words=False,
            break_on_hyphens=False,
        )
    for title, block in (("Returns:", returns), ("Examples:", examples)):
        lines += [title, textwrap.indent(textwrap.dedent(block).strip("\n"), "    ")]
    return "\n".join(lines) + "\n"


def module_name(metric_class: type) -> str:
    """The name of a metric module: its file's, ``<name>`` of ``metrics/<name>/<name>.py`` (evaluate runs a copy of the
    file named as it is, in a folder of its own).

    Examples
    --------
    >>> module_name(CorefBiasMetric)
    'evaluate_modules'
    """
    return Path(inspect.getfile(metric_class)).stem


class CorefBiasMetric(evaluate.Metric):
    """Base of the corefbias metric modules.

    Subclasses set the texts and features of their card (``DESCRIPTION``, ``CITATION``,
    ``INPUTS_DESCRIPTION``, ``FEATURES``, ``HOMEPAGE``, ``REFERENCE_URLS``), name their
    ``OPTIONAL_INPUTS`` and implement ``_score``. A required string input whose entries may be None (a word a
    model did not choose) is named in ``NULLABLE_INPUTS``: its None entries travel as ``OMITTED`` too. An input
    whose entries come from a fixed set names it in ``LABELS`` (the measure's own constant), so that a wrong label is
    refused when its batch is added, not when ``compute`` has already taken every batch. ``RENAMED`` maps a name of
    the measure function's parameter to the module's name for it (``keys`` → ``references``), so that messages
    speak of what the user passed.
    """

    DESCRIPTION: str
    CITATION: str
    INPUTS_DESCRIPTION: str
    FEATURES: datasets.Features
    HOMEPAGE: str
    REFERENCE_URLS: list[str]
    OPTIONAL_INPUTS: tuple[str, ...] = ()
    ID_INPUTS: tuple[str, ...] = ()
    NULLABLE_INPUTS: tuple[str, ...] = ()
    LABELS: Mapping[str, tuple] = {}
    RENAMED: Mapping[str, str] = {}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # evaluate names a module after its class (CamelCase → snake_case); ours take the name of their file,
        # metrics/<name>/<name>.py, so that a metric copied under a new name needs no class renamed.
        name = module_name(type(self))
        if self.info.module_name != name:
            self.info.module_name = name
            self.data_dir = self._build_data_dir()  # evaluate's cache folder for the module is named after it

    def _info(self):
        return evaluate.MetricInfo(
            module_type="metric",
            description=self.DESCRIPTION,
            citation=self.CITATION,
            inputs_description=self.INPUTS_DESCRIPTION,
            features=self.FEATURES,
            homepage=self.HOMEPAGE,
            reference_urls=self.REFERENCE_URLS,
        )

    def _omitted(self, name: str):
        feature = self.FEATURES[name]
        return OMITTED if isinstance(feature, datasets.Value) and feature.dtype == "string" else None

    def _options(self) -> list[str]:
        """The keyword options of ``_score`` (``n_bootstrap``, ``seed``, ...): what ``compute`` takes besides inputs."""
        return [name for name in inspect.signature(self._score).parameters if name not in self.FEATURES]

    def _checked(self, batch: dict) -> dict:
        """The batch's inputs checked, and its optional inputs filled, before evaluate casts them.

        Names that are no input are left to evaluate, which refuses them with a ``ValueError``.
        """
        for name in ("predictions", "references"):
            if name not in self.FEATURES and batch.pop(name) is not None:
                raise ValueError(f"{self.name} takes no {name}; its inputs are {', '.join(self.FEATURES)}")
        batch = {name: validation.column_values(values) for name, values in batch.items()}
        required = [name for name in self.FEATURES if name not in self.OPTIONAL_INPUTS]
        missing = [name for name in required if batch.get(name) is None]
        if missing:
            optional = f"; optional: {', '.join(self.OPTIONAL_INPUTS)}" if self.OPTIONAL_INPUTS else ""
            raise ValueError(
                f"{self.name} is missing {', '.join(missing)}: it needs {', '.join(required)}, one entry per example "
                f"each{optional}"
            )
        for name, values in batch.items():
            if name in self.FEATURES and values is not None:
                validation.check_column(name, values)
                optional = name in self.OPTIONAL_INPUTS or name in self.NULLABLE_INPUTS
                check_values(name, self.FEATURES[name], values, optional=optional, is_id=name in self.ID_INPUTS)
                if name in self.LABELS:
                    allowed = (*self.LABELS[name], None) if optional else self.LABELS[name]
                    structured_inputs.check_labels(name, values, allowed)
        # datasets' writer drops a batch whose first column is empty, so unequal lengths must be refused here.
        lengths = {name: len(values) for name, values in batch.items() if name in self.FEATURES and values is not None}
        if len(set(lengths.values())) > 1:
            listing = ", ".join(f"{name} has {length}" for name, length in lengths.items())
            raise ValueError(
                f"{self.name}'s inputs must have one entry per example, but {listing}; pass aligned lists of equal "
                f"length"
            )
        return self._fill_optional(next(iter(lengths.values())), batch)

    def _fill_optional(self, size: int, kwargs: dict) -> dict:
        for name in self.OPTIONAL_INPUTS:
            if kwargs.get(name) is None:
                left_out = self._omitted(name)
                kwargs[name] = [LEFT_OUT if left_out == OMITTED else left_out] * size
            else:
                kwargs[name] = [self._omitted(name) if value is None else value for value in kwargs[name]]
        for name in self.NULLABLE_INPUTS:
            kwargs[name] = [self._omitted(name) if value is None else value for value in kwargs[name]]
        for name in self.ID_INPUTS:
            if kwargs.get(name) is not None:
                kwargs[name] = [validation.as_id(value) for value in kwargs[name]]
        return kwargs

    def add_batch(self, *, predictions=None, references=None, **kwargs):
        """Add a batch of per-example inputs; optional inputs may be left out."""
        return super().add_batch(**self._checked({"predictions": predictions, "references": references, **kwargs}))

    def add(self, *, prediction=None, reference=None, **kwargs):
        """Add one example; optional inputs may be left out."""
        # A batch of one, so that one example passes the same checks as a batch; None is a value of a required
        # input (an unlinked pronoun's prediction) but leaves an optional one out.
        example = {"predictions": prediction, "references": reference, **kwargs}
        return self.add_batch(
            **{
                name: None if value is None and name in self.OPTIONAL_INPUTS else [value]
                for name, value in example.items()
            }
        )

    def compute(self, *, predictions=None, references=None, **kwargs):
        """Score all examples given here and added before; optional inputs may be left out."""
        options = self._options()
        unknown = [name for name in kwargs if name not in self.FEATURES and name not in options]
        if unknown:
            raise ValueError(
                f"{self.name} takes no {', '.join(unknown)}; its inputs are {', '.join(self.FEATURES)} and its "
                f"options {', '.join(options)}"
            )
        inputs = {name: kwargs.pop(name) for name in list(kwargs) if name in self.FEATURES}
        inputs.update(predictions=predictions, references=references)
        if any(values is not None for values in inputs.values()):
            self.add_batch(**inputs)
        try:
            return super().compute(**kwargs)
        except ValueError:
            self._add_back()
            raise

    def _add_back(self) -> None:
        """Add again what evaluate read for the ``compute`` that failed, so that the batches are not lost.

        In distributed mode the other processes have already handed their data over and left; nothing is kept.
        """
        data = getattr(self, "data", None)
        if data is None or self.num_process > 1:
            return
        columns = {name: data[name][:] for name in self._feature_names()}
        self.data = None
        self.buf_writer = None
        # Cache files and their locks exist only where evaluate wrote the batches to disk: with keep_in_memory they
        # stay None (zipping them hid the measure's ValueError behind a TypeError).
        for filelock, file_path in zip(self.filelocks or [], self.file_paths or []):
            os.remove(file_path)
            filelock.release()
        self.filelocks, self.file_paths = None, None
        if len(next(iter(columns.values()))):
            super().add_batch(**columns)

    def _compute(self, **inputs):
        if not len(inputs["predictions"] if "predictions" in inputs else next(iter(inputs.values()))):
            raise ValueError(
                f"no instances given: {self.name} needs {', '.join(self.FEATURES)} with one entry per example each"
            )
        for name in self.OPTIONAL_INPUTS:
            values = inputs.get(name)
            if values is not None and LEFT_OUT in values and any(value != LEFT_OUT for value in values):
                raise ValueError(
                    f"{name} was given with some batches and left out of others; give it for every example or for none"
                )
            inputs[name] = (
                None
                if _none_column(values) or LEFT_OUT in values
                else [None if value == OMITTED else value for value in values]
            )
        for name in self.NULLABLE_INPUTS:
            inputs[name] = [None if value == OMITTED else value for value in inputs[name]]
        # The measure's result object, as the flat dict evaluate hands back (a label that would make two keys
        # collide is refused here with a ValueError).
        try:
            return dict(self._score(**inputs))
        except ValueError as error:
            if not self.RENAMED:
                raise
            raise ValueError(_renamed(str(error), self.RENAMED)) from None

    def _score(self, **inputs):
        raise NotImplementedError
