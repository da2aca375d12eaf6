"""What every corefbias ``datasets`` builder shares: its info from the upstream registry, the
mirror passed as ``data_dir``, and examples keyed by a unique upstream id."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

import datasets

from . import upstream


class UpstreamBuilder(datasets.GeneratorBasedBuilder):
    """Base of the sets' builders (``<set>/builder.py``); subclasses set the class attributes above
    ``CONFIG_SOURCES``.

    ``CONFIG_DESCRIPTIONS`` (config name → description) gives the configs, each at the builder's ``VERSION``; the
    first is the default unless ``DEFAULT_CONFIG_NAME`` names another.

    ``UPSTREAM_DATASET`` names the upstream source the set is built from, as its ``upstream.json`` pins it
    (``corefbias.data.upstream``); a config built from another source's files says so in ``CONFIG_SOURCES``
    (config name → source), so that its info and the exported card name the right repository, commit and
    license. Configs too large to build with the others (a generated design of millions of rows) are named in
    ``ON_REQUEST_CONFIGS``: an export builds them only when asked to (``corefbias export-datasets --config``).
    """

    UPSTREAM_DATASET: str
    DESCRIPTION: str
    FEATURES: datasets.Features
    CITATION: str
    VERSION: datasets.Version
    CONFIG_DESCRIPTIONS: dict[str, str]
    CONFIG_SOURCES: dict[str, str] = {}
    ON_REQUEST_CONFIGS: tuple[str, ...] = ()

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if not getattr(cls, "CONFIG_DESCRIPTIONS", None):
            raise TypeError(f"{cls.__name__} sets no CONFIG_DESCRIPTIONS (config name → description): name its configs")
        cls.BUILDER_CONFIGS = [
            datasets.BuilderConfig(name=name, version=cls.VERSION, description=description)
            for name, description in cls.CONFIG_DESCRIPTIONS.items()
        ]
        cls.DEFAULT_CONFIG_NAME = cls.__dict__.get("DEFAULT_CONFIG_NAME") or next(iter(cls.CONFIG_DESCRIPTIONS))

    @classmethod
    def upstream_dataset_of(cls, config: str) -> str:
        """The upstream source whose files the config is built from."""
        return cls.CONFIG_SOURCES.get(config, cls.UPSTREAM_DATASET)

    def _info(self):
        source = upstream.dataset_source(self.upstream_dataset_of(self.config.name))
        return datasets.DatasetInfo(
            description=self.DESCRIPTION,
            features=self.FEATURES,
            homepage=f"https://github.com/{source['repository']}",
            license=source["license"],
            citation=self.CITATION,
        )

    def _split_generators(self, dl_manager):
        """One ``test`` split whose examples take no arguments; a set with other splits or files overrides it."""
        return [datasets.SplitGenerator(name=datasets.Split.TEST, gen_kwargs={})]

    @property
    def mirror(self) -> str | None:
        """The upstream mirror given as ``data_dir`` (None: ``$COREFBIAS_MIRROR`` or the cache)."""
        return self.config.data_dir or None


def enumerate_unique(examples: Iterable[dict], path: str):
    """``(key, example)`` pairs; an id that occurs twice upstream is a build error."""
    examples = list(examples)
    duplicates = [key for key, count in Counter(example["id"] for example in examples).items() if count > 1]
    if duplicates:
        raise ValueError(f"{path}: duplicate IDs {duplicates[:5]}")
    return enumerate(examples)
