"""What a benchmark is: one ``Benchmark`` declaration says everything corefbias does with a test set.

Its data (an exported set of corefbias's own, a builder of the declarer's, or a ready Parquet export), the
unit its scores resample, the design cells ``--limit`` keeps balanced, how decisions become scores, the
headline scores, the pro/anti condition, the bias axis calibration pushes along, the figures and the
Explore view it wants, the cloze template a language model reads, and its citation. Every part of
corefbias that treats benchmarks differently reads these fields, never a benchmark's name; a benchmark
declared outside the package (``corefbias.benchmarks.registry``) is therefore a full citizen.

A *decision* is, per instance, one boolean per candidate: is the pronoun linked to it? (A cluster
model's clusters become decisions by ``corefbias.harness.cluster_links``; a choice model's choice is
one-hot.)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from ..measures.result import MeasureResult
from ..models.base import Task
from ..models.cloze_template import ClozeTemplate
from .cloze_wording import paraphrases
from .explore import ExploreView

Part = tuple[str, str]  # (config, split)
Rows = Mapping[Part, dict]  # (config, split) → the part's rows as columns (name → values)
# (rows, per-part decisions or model outputs, n_bootstrap, seed) → section name → its scores: the measure's
# result (``MeasureResult``, which hands over the unit rows a paired comparison resamples), or a flat dict of scores.
Scorer = Callable[[Rows, Mapping[Part, list], int, int], Mapping[str, "MeasureResult | Mapping"]]


def rows_of(columns: dict[str, list]) -> list[dict]:
    """Rows of a table given as columns (name → values).

    Parameters
    ----------
    columns : dict of str to list
        Column name → one value per row.

    Returns
    -------
    list of dict

    Examples
    --------
    >>> rows_of({"id": ["a", "b"], "gender": ["female", "male"]})
    [{'id': 'a', 'gender': 'female'}, {'id': 'b', 'gender': 'male'}]
    """
    names = list(columns)
    return [dict(zip(names, values)) for values in zip(*columns.values())]


@dataclass(frozen=True)
class Headline:
    """A score shown in summary tables: the key of a section's result, and how to read it.

    Parameters
    ----------
    section : str
        The section of the benchmark's scores that holds it.
    key : str
        Its overall score's key there (``diff``).
    label : str
        Its name in tables (unique within the benchmark).
    unbiased : float or None
        The value of a model without this bias (0 for a difference, 1 for a ratio); None: not a bias score.

    Examples
    --------
    >>> Headline("sowinobias", "diff", "accuracy pro − anti", 0.0).unbiased
    0.0
    """

    section: str
    key: str
    label: str
    unbiased: float | None  # the value of a model without this bias (None: not a bias score)


@dataclass(frozen=True)
class BiasAxis:
    """The direction calibration pushes a simulated model along (``corefbias.harness.calibration``).

    Parameters
    ----------
    column : str
        The column holding each instance's side.
    sides : dict of str to int
        A side → +1 (favoured) or −1 (the other); a side left out is neither.
    direction : str
        What is favoured: ``"toward_gold"`` links the gold candidate more often on the favoured side,
        ``"toward_first"`` links the first candidate more often.
    sides_vary : bool, default True
        Whether a model without the bias may still treat the sides differently within a block, better on one side in
        one block and on the other in another (the simulated null draws effects per block and side): False where a
        headline counts any such difference as bias (Counter-GAP's ΔI, inconsistency across gender swaps), so that
        the null's blocks move both sides alike.

    Raises
    ------
    ValueError
        For another ``direction``.

    Examples
    --------
    >>> BiasAxis("gender", {"male": 1, "female": -1}, "toward_gold").sides["female"]
    -1
    >>> BiasAxis("gender", {"male": 1}, "toward_male")
    Traceback (most recent call last):
    ...
    ValueError: BiasAxis direction must be 'toward_gold' or 'toward_first', not 'toward_male'
    """

    column: str
    sides: dict[str, int]
    direction: str
    sides_vary: bool = True

    def __post_init__(self):
        if self.direction not in ("toward_gold", "toward_first"):
            raise ValueError(f"BiasAxis direction must be 'toward_gold' or 'toward_first', not {self.direction!r}")


@dataclass(frozen=True)
class Figure:
    """A figure a benchmark's run gets, in the run's plots and in the Space.

    Parameters
    ----------
    kind : str
        A drawing ``corefbias.harness.plots`` knows (``FIGURE_KINDS``); the Space shows every plot a run draws.
    section : str or None, default None
        The section it draws from (None: every section it can read, e.g. every section with pro and anti
        scores).

    Examples
    --------
    >>> Figure("weights", "gap/w").kind in FIGURE_KINDS
    True
    """

    kind: str
    section: str | None = None


FIGURE_KINDS = (
    "occupation_preference",
    "pronoun_shares",
    "inconsistency",
    "pro_anti",
    "weights",
    "accuracy_gaps",
    "distance",
    "distractors",
    "fpr_by_language",
    "headlines",
)


@dataclass(frozen=True)
class BlockDesign:
    """The blocks inside which a benchmark's instances are not independent (``corefbias.measures.blocks``): the
    columns naming them, which its scorer hands to the measures as ``block_ids``, so that every interval and
    p-value draws whole blocks. Why these blocks, from how the data were made, is said in the set's card (its
    ``## Significance`` section).

    Parameters
    ----------
    columns : tuple of str
        One column: nested blocks (every unit lies in one block: an occupation, a document); several: crossed
        factors, each unit in one level of each, or, ``linked``, one factor joining what any column shares. A column
        of lists names a block by its sorted entries (WinoBias's two occupations, whichever is the referent).
    names : tuple of str, optional
        What one block of each factor is, in words (``occupation``); default: the column names (joined with
        " or " where ``linked``).
    linked : bool, default False
        The columns are one factor: a block holds every instance that shares a value of any column with another of
        the block (the connected components: WinoBias's occupation pairs, joined where one sentence template serves
        two pairs).

    Raises
    ------
    ValueError
        With no columns, or names not one per factor.

    Examples
    --------
    >>> design = BlockDesign(("occupations",), ("occupation pair",))
    >>> design.ids({"occupations": [["nurse", "chef"], ["chef", "nurse"]]})
    ['chef + nurse', 'chef + nurse']
    >>> BlockDesign(("template_id", "declaration")).ids({"template_id": [3, 4], "declaration": ["a", "b"]})
    [(3, 'a'), (4, 'b')]
    >>> linked = BlockDesign(("occupations", "frame"), linked=True)
    >>> linked.ids({"occupations": [["a", "b"], ["c", "d"], ["e", "f"]], "frame": ["x _", "x _", "y _"]})
    ['a + b', 'a + b', 'e + f']
    """

    columns: tuple[str, ...]
    names: tuple[str, ...] = ()
    linked: bool = False

    def __post_init__(self):
        if not self.columns:
            raise ValueError("a BlockDesign names at least one column")
        if not self.names:
            object.__setattr__(self, "names", (" or ".join(self.columns),) if self.linked else tuple(self.columns))
        if len(self.names) != (1 if self.linked else len(self.columns)):
            raise ValueError(f"BlockDesign: give one name per factor, got {self.names} for {self.columns}")

    @staticmethod
    def _id(value):
        return " + ".join(sorted(map(str, value))) if isinstance(value, (list, tuple)) else value

    def ids(self, columns: Mapping[str, list]) -> list:
        """The block id of every row of a part (or of several parts' rows pooled), given as columns: one id per row
        (one factor), or a tuple of one per crossed factor.

        Parameters
        ----------
        columns : mapping of str to list
            The rows as columns, holding this design's columns.

        Returns
        -------
        list
        """
        values = [[self._id(value) for value in columns[column]] for column in self.columns]
        if self.linked:
            return _components(values)
        return values[0] if len(values) == 1 else list(zip(*values))

    def ids_by_part(self, rows: Mapping, parts) -> dict:
        """The block ids of the rows of ``parts`` (``rows[part]``: columns), computed over them pooled, as a
        scorer pooling the parts draws them: part → ids.

        Parameters
        ----------
        rows : mapping of (config, split) to columns
            Each part's rows.
        parts : sequence of (config, split)
            The parts pooled.

        Returns
        -------
        dict
        """
        pooled = {column: [value for part in parts for value in rows[part][column]] for column in self.columns}
        ids, found, start = self.ids(pooled), {}, 0
        for part in parts:
            size = len(rows[part][self.columns[0]])
            found[part] = ids[start : start + size]
            start += size
        return found

    def describe(self) -> str:
        """The blocks in words (``occupation``; ``template × declaration``).

        Returns
        -------
        str
        """
        return " × ".join(self.names)


def _components(values: list[list]) -> list:
    """Per row, its connected component over rows sharing a value of any column, named by the component's smallest
    value of the first column."""
    parent: dict = {}

    def root(node):
        while parent.setdefault(node, node) != node:
            parent[node] = parent[parent[node]]
            node = parent[node]
        return node

    for row in zip(*values):
        first = root((0, row[0]))
        for column, value in enumerate(row[1:], 1):
            parent[root((column, value))] = first
    named: dict = {}
    for value in values[0]:
        top = root((0, value))
        named[top] = min(named.get(top, value), value)
    return [named[root((0, value))] for value in values[0]]


@dataclass(frozen=True, kw_only=True)
class Benchmark:
    """One benchmark, declared once.

    Data: the exported set ``dataset`` (built by the builder of its set folder, ``corefbias/benchmarks/<dataset>/
    builder.py``, or by the declarer's own builder in ``builders/<dataset>/builder.py``, or read as is from
    ``export``, a folder holding a script-free export: ``README.md`` and ``data/<config>/<split>-*.parquet``), of
    which ``parts`` are scored.
    Every row has ``id``, ``text``, ``pronoun`` (``start``, ``end``) and ``candidates`` (``start``, ``end``,
    ``is_referent``), plus the columns the scorer reads.

    Parameters
    ----------
    name : str
        The benchmark's name, as ``--benchmark`` and the registry know it.
    dataset : str
        The exported data set (the builder's name) whose ``parts`` are scored.
    parts : tuple of (str, str)
        The ``(config, split)`` parts scored; at least one.
    language : str
        The language of the texts.
    unit : str
        The column that groups the instances a metric resamples together (limits keep units whole).
    metric_modules : tuple of str
        The evaluate modules (``metrics/<name>``) that compute its scores.
    description : str
        One line saying what the benchmark measures.
    score : Scorer
        Scores the model's decisions: ``score(rows, decisions, n_bootstrap, seed)`` returns, per section, the
        measure's ``MeasureResult`` (``corefbias.measures.result``; a flat dict of scores is read as one).
    headlines : tuple of Headline
        The scores shown first in reports.
    citation : str or None, default None
        BibTeX of the set and its scores; None: its builder's (``CITATION``).
    condition_column : str or None, default None
        Pro/anti benchmarks: the column holding ``"pro"`` or ``"anti"``.
    balance_columns : tuple of str, default ()
        ``--limit N`` keeps N units per design cell: the set of (config, split, *these columns) over a
        unit's rows (``corefbias.harness.limits``).
    limit_meaning : str, default "N units"
        What N units of ``--limit N`` are, in words.
    score_outputs : Scorer or None, default None
        Scores of the model's outputs themselves (clusters), not of decisions.
    cloze : ClozeTemplate or None, default None
        How a language model scored by log-likelihood reads an instance (``corefbias.models.cloze_template``).
    prompts : tuple of ClozeTemplate, default ()
        Other wordings of ``cloze`` (published ones, paraphrases), each with a ``name`` of its own: with ``cloze`` the
        benchmark's prompt set, which ``corefbias run --prompts`` runs (``corefbias.harness.prompt_sets``).
    bias_axis : BiasAxis or None, default None
        None: calibration cannot simulate a biased model on it.
    figures : tuple of Figure, default ()
        The figures its report draws (kinds from ``FIGURE_KINDS``).
    explore : ExploreView or None, default None
        The Space's Explore view (``corefbias.benchmarks.explore``), None for none.
    space_default : bool, default False
        Whether the Space's Run tab offers it ticked.
    builders : Path or None, default None
        The declarer's folder of builders (``<dataset>/builder.py``, with its ``card.md``, ``upstream.json`` and
        ``citation.bib``); not with ``export``.
    export : Path or None, default None
        A folder holding a script-free export of ``dataset``; not with ``builders``.
    document_column : str or None, default None
        For questions about longer documents (GICoref): the column naming each instance's document, every
        instance of which holds the whole document as its ``text``. A predictions file then gives each document
        once (matched by this column's value, or by its text), and its clusters answer every instance of it.
    clusters_cannot_express : str or None, default None
        Why a coreference system's clusters cannot answer the set (its candidates are no mentions of the text,
        e.g. the words a model may write in a blank); ``run`` and ``score`` then refuse clusters with this reason.
        None: clusters become decisions (``corefbias.harness.cluster_links``).
    decision_mode : str, default "cluster"
        How a coreference system's clusters become its decisions unless ``--mode`` says otherwise (one of
        ``corefbias.harness.cluster_links.DECISION_MODES``): the set's authors' own conversion where they ship one
        (WinoPron's converters: ``"first_mention"``; ABC's and GenDa Lens's scorers: ``"any_cluster"``), else the
        strict ``"cluster"``; its card names it.
    blocks : BlockDesign or None, default None
        The blocks inside which its instances are not independent (templates, occupations, documents), whose ids its
        scorer hands to the measures; the calibration simulates models that vary by them. None: every unit is a
        block of its own (its units are independent).
    pooled_parts : tuple of tuple of (str, str), default ()
        The parts that some of its sections pool, one tuple per such group (WinoBias's type 1 pools
        ``type1_pro`` with ``type1_anti``): its scorers score a group's sections only when given every part of the
        group, and ``corefbias score --config`` selects a part only together with the rest of a group. A part in no
        group is scored on its own (each of BUG's and WinoPron's configs).

    Raises
    ------
    ValueError
        If ``parts`` is empty, both ``builders`` and ``export`` are given, a figure kind or the
        ``explore`` view reads a pro/anti column the declaration does not name, ``prompts`` come without a
        ``cloze`` template or repeat a name, or ``pooled_parts`` names a part not in ``parts``.

    Examples
    --------
    A pro/anti set scored by accuracy, its unit the aligned pair (``corefbias.benchmarks.link_sections``):

    >>> from corefbias.benchmarks.link_sections import pro_anti_link_scorer
    >>> toy = Benchmark(
    ...     name="toy", dataset="toy", parts=(("default", "test"),), language="en", unit="pair_id",
    ...     metric_modules=("pro_anti_diff",), description="Toy pro/anti pairs",
    ...     score=pro_anti_link_scorer({"toy": (("default", "test"),)}, score="accuracy", gold_only=True,
    ...                                condition="condition", group="pronoun_gender"),
    ...     headlines=(Headline("toy", "diff", "accuracy pro − anti", 0.0),), condition_column="condition",
    ... )
    >>> toy.task.unit
    'pair_id'
    >>> Benchmark(name="empty", dataset="toy", parts=(), language="en", unit="id", metric_modules=(),
    ...           description="", score=toy.score, headlines=())
    Traceback (most recent call last):
    ...
    ValueError: benchmark 'empty' declares no parts; give at least one (config, split)
    """

    name: str
    dataset: str
    parts: tuple[Part, ...]
    language: str
    unit: str  # the column that groups instances a metric resamples together (limits keep units whole)
    metric_modules: tuple[str, ...]  # the evaluate modules (metrics/<name>) that compute its scores
    description: str
    score: Scorer  # of decisions
    headlines: tuple[Headline, ...]
    citation: str | None = None  # BibTeX of the set and its scores; None: its builder's (``CITATION``)
    condition_column: str | None = None  # pro/anti benchmarks: the column holding "pro" or "anti"
    # ``--limit N`` keeps N units per design cell: the set of (config, split, *these columns) over a unit's rows
    # (corefbias.harness.limits); ``limit_meaning`` says in words what N units are.
    balance_columns: tuple[str, ...] = ()
    limit_meaning: str = "N units"
    # Scores of the model's outputs themselves (clusters), not of decisions.
    score_outputs: Scorer | None = None
    # How a language model scored by log-likelihood reads an instance (corefbias.models.cloze_template).
    cloze: ClozeTemplate | None = None
    prompts: tuple[ClozeTemplate, ...] = ()  # other wordings of ``cloze``: the prompt set, with it
    bias_axis: BiasAxis | None = None  # None: calibration cannot simulate a biased model on it
    figures: tuple[Figure, ...] = ()
    explore: ExploreView | None = None
    space_default: bool = False
    builders: Path | None = None
    export: Path | None = None
    document_column: str | None = None
    clusters_cannot_express: str | None = None
    decision_mode: str = "cluster"  # how clusters become decisions by default (harness.cluster_links.DECISION_MODES)
    blocks: BlockDesign | None = None
    # Groups of parts whose sections pool them: scored, and selected by ``score --config``, only whole.
    pooled_parts: tuple[tuple[Part, ...], ...] = ()

    def __post_init__(self):
        if not self.parts:
            raise ValueError(f"benchmark {self.name!r} declares no parts; give at least one (config, split)")
        if self.builders is not None and self.export is not None:
            raise ValueError(f"benchmark {self.name!r}: give its builders folder or its export folder, not both")
        unknown = [figure.kind for figure in self.figures if figure.kind not in FIGURE_KINDS]
        if unknown:
            raise ValueError(f"benchmark {self.name!r}: unknown figure kind {unknown[0]!r}; choose from {FIGURE_KINDS}")
        if self.explore is not None and self.explore.needs_condition and self.condition_column is None:
            raise ValueError(f"benchmark {self.name!r}: its Explore view reads pro/anti, so give a condition_column")
        if self.prompts and self.cloze is None:
            raise ValueError(f"benchmark {self.name!r}: its prompts reword a cloze template, so give one (cloze=...)")
        names = [template.name for template in self.prompt_set]
        if len(set(names)) != len(names):
            taken = next(name for name in names if names.count(name) > 1)
            raise ValueError(f"benchmark {self.name!r}: two of its cloze templates are named {taken!r}")
        stray = [part for group in self.pooled_parts for part in group if part not in self.parts]
        if stray:
            raise ValueError(f"benchmark {self.name!r}: pooled_parts names {stray[0]}, which is not one of its parts")

    @property
    def prompt_set(self) -> tuple[ClozeTemplate, ...]:
        """The cloze templates ``--prompts all`` runs: ``cloze`` first, our paraphrases of it where it is in a shared
        wording (``cloze_wording.paraphrases``), then ``prompts``; none without ``cloze``.

        Examples
        --------
        >>> from corefbias.benchmarks import BENCHMARKS
        >>> [template.name for template in BENCHMARKS["sowinobias"].prompt_set]
        ['main', 'the-word', 'here-means', 'who-is']
        """
        return () if self.cloze is None else (self.cloze, *paraphrases(self.cloze), *self.prompts)

    @property
    def task(self) -> Task:
        """What a choice model is told of this benchmark."""
        return Task(self.name, self.language, self.unit, self.cloze)
