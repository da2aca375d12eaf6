"""Export the data sets the way the Hugging Face Hub serves them: Parquet files plus a dataset card.

``datasets`` 5 runs no loading scripts, so each set is a ``datasets.GeneratorBasedBuilder`` class in its set's
folder, ``corefbias/benchmarks/<name>/builder.py`` (a declarer's own builders folder may also name it
``<name>/<name>.py``), that this module runs (offline, from the upstream mirror) and turns into::

    <out>/<name>/README.md                                       the card: YAML configs + dataset_info
    <out>/<name>/data/<config>/<split>-00000-of-00001.parquet    one file per config and split

after which ``datasets.load_dataset("<out>/<name>", "<config>")`` works offline, and the folder can
be uploaded to the Hub as it is. Re-running the export writes the same bytes.

The card's prose comes from ``<name>/card.md`` beside the builder (optional YAML front matter such as
``pretty_name``, ``language`` or ``tags`` is merged into the card's metadata); the export adds the
configurations, features, row counts, source (repository, commit, license) and citation. A
config built from another source's files than the set's ``UPSTREAM_DATASET`` names it in
the builder's ``CONFIG_SOURCES`` (see ``corefbias.data.builder_base.UpstreamBuilder``); a set whose builder
names no upstream source, or a source without a commit, is one ``corefbias`` generates rather than downloads.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import re
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

import datasets
import yaml

from . import set_files, spans, upstream

# The package's own builders live in its set folders.
SCRIPTS_DIR = set_files.BUILT_IN
BUILDER_FILE = "builder.py"
DATA_FILE = "data/{config}/{split}-00000-of-00001.parquet"
# Free-text upstream licenses → Hub license identifiers; anything else is "other" with its name.
_HUB_LICENSES = {
    "MIT License": "mit",
    "Apache License 2.0": "apache-2.0",
    "GNU Affero General Public License v3.0": "agpl-3.0",
    "BSD-3-Clause": "bsd-3-clause",
    "CC BY 4.0": "cc-by-4.0",
    "CC BY-SA 3.0": "cc-by-sa-3.0",
    "CC BY-SA 4.0": "cc-by-sa-4.0",
}
# What the registry says, and the Hub's identifier, when nobody could find out the license.
UNKNOWN_LICENSE = "unknown"
_VALIDATED_AT_ONCE = 50_000  # rows whose spans are checked per slice converted to Python


class DatasetBuildError(RuntimeError):
    """A builder failed: bad upstream data (e.g. an offset that does not match its text)."""


def _builder_file(root: Path, name: str) -> Path | None:
    return next((path for path in (root / name / BUILDER_FILE, root / name / f"{name}.py") if path.is_file()), None)


def available(scripts_dir: str | os.PathLike | None = None) -> list[str]:
    """Names of the sets with a builder in ``<name>/builder.py`` (or ``<name>/<name>.py``).

    Examples
    --------
    >>> "gap" in available()
    True
    """
    root = Path(scripts_dir) if scripts_dir is not None else SCRIPTS_DIR
    return sorted(folder.name for folder in root.iterdir() if folder.is_dir() and _builder_file(root, folder.name))


def builder_class(name: str, scripts_dir: str | os.PathLike | None = None) -> type[datasets.GeneratorBasedBuilder]:
    """The builder class defined in ``<name>/builder.py`` (or ``<name>/<name>.py``) of ``scripts_dir``.

    A declarer's folder (``scripts_dir``) is read for its sets' facts too (``corefbias.data.set_files``).
    """
    root = Path(scripts_dir) if scripts_dir is not None else SCRIPTS_DIR
    path = _builder_file(root, name)
    if path is None:
        raise DatasetBuildError(
            f"no builder for {name!r}: {root / name / BUILDER_FILE} does not exist; known: {available(root)}"
        )
    set_files.add_folder(root)
    module = _builder_module(path, name)
    module_name = module.__name__
    found = [
        value
        for value in vars(module).values()
        if isinstance(value, type)
        and issubclass(value, datasets.GeneratorBasedBuilder)
        and value.__module__ == module_name
    ]
    if len(found) != 1:
        raise DatasetBuildError(f"{path} must define exactly one GeneratorBasedBuilder, found {len(found)}")
    return found[0]


def _builder_module(path: Path, name: str):
    """The module of a builder file: by its name where it is one of the package's sets (so that it is imported
    once), else loaded from its path under a name of its own, registered because ``datasets`` re-imports a
    builder's module by name (streaming support)."""
    if path.resolve().is_relative_to(set_files.BUILT_IN):
        package_parent = set_files.BUILT_IN.parents[1]
        return importlib.import_module(".".join(path.resolve().relative_to(package_parent).with_suffix("").parts))
    module_name = f"corefbias_datasets_scripts.{name}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    return module


def card_features(features: datasets.Features) -> list:
    """The ``features`` entry of a card's ``dataset_info``, in the form the Hub and ``load_dataset`` read.

    ``datasets`` writes it only through the private ``Features._to_yaml_list`` (called by
    ``DatasetInfosDict.to_dataset_card_data`` in datasets/info.py, which writes a whole info we do not
    want); this is the one place we call it, and tests/test_datasets_export.py checks that the card's
    features read back through ``load_dataset_builder`` equal the builder's, so an upgrade that changes
    the form fails there.
    """
    return features._to_yaml_list()


def _card_parts(name: str, root: Path) -> tuple[dict, str]:
    """Front-matter metadata and body of ``<name>/card.md`` (empty when absent)."""
    path = root / name / "card.md"
    if not path.is_file():
        return {}, ""
    text = path.read_text(encoding="utf-8")
    if text.startswith("---\n"):
        header, _, body = text[4:].partition("\n---\n")
        return yaml.safe_load(header) or {}, body.strip()
    return {}, text.strip()


def _take_section(body: str, title: str) -> tuple[str, str]:
    """``body`` without its ``## <title>`` section, and that section's text (empty when it has none).

    A card that explains its license keeps the explanation, under the one License section the export writes.
    """
    section = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", body, flags=re.MULTILINE | re.DOTALL)
    if section is None:
        return body, ""
    return (body[: section.start()] + body[section.end() :]).strip(), section.group(1).strip()


def _span_rows(dataset: datasets.Dataset):
    """(index, row) of the columns the span checks read, converted from Arrow a slice at a time: in one go for
    speed (decoding row by row is ~6x slower), in slices so that a set of millions of rows is never held as
    Python objects all at once."""
    columns = [column for column in ("id", "sentid", "text", "pronoun", "candidates") if column in dataset.column_names]
    table = dataset.select_columns(columns).with_format("arrow")
    for first in range(0, len(dataset), _VALIDATED_AT_ONCE):
        for offset, row in enumerate(table[first : first + _VALIDATED_AT_ONCE].to_pylist()):
            yield first + offset, row


def _build_config(
    builder_cls, name: str, config: str, mirror: Path | None, cache: Path
) -> tuple[datasets.DatasetDict, datasets.DatasetInfo]:
    builder = builder_cls(
        cache_dir=str(cache), config_name=config, data_dir=str(mirror) if mirror else None, dataset_name=name
    )
    try:
        builder.download_and_prepare()
    except datasets.exceptions.DatasetGenerationError as error:
        cause = error.__cause__ or error
        raise DatasetBuildError(f"building {name}/{config} failed: {cause}") from error
    dataset_dict = builder.as_dataset()
    for split, dataset in dataset_dict.items():
        for index, row in _span_rows(dataset):
            try:
                spans.validate_row(row, row=str(row.get("id") or row.get("sentid") or index))
            except spans.SpanError as error:
                raise DatasetBuildError(f"{name}/{config}/{split}: {error}") from None
    return dataset_dict, builder.info


def config_sources(name: str, builder_cls) -> dict[str, list[str]]:
    """Registry entry → the configs built from its files, in config order.

    A builder without ``upstream_dataset_of`` (not a ``builders.UpstreamBuilder``) is its own registry entry.
    """
    configs = list(builder_cls.builder_configs)
    strays = sorted(set(getattr(builder_cls, "CONFIG_SOURCES", {})) - set(configs))
    if strays:
        raise DatasetBuildError(
            f"{name}: CONFIG_SOURCES names {strays}, which are not configs of the builder; its configs are {configs}"
        )
    upstream_dataset_of = getattr(builder_cls, "upstream_dataset_of", lambda config: name)
    sources: dict[str, list[str]] = {}
    for config in configs:
        sources.setdefault(upstream_dataset_of(config), []).append(config)
    return sources


def _is_unknown(license_text: str | None) -> bool:
    return not license_text or license_text.strip().lower() == UNKNOWN_LICENSE


def _hub_license(licenses: list[str | None]) -> str:
    """One Hub identifier for all sources' licenses: theirs when they agree on a listed one, else "other"."""
    ids = {UNKNOWN_LICENSE if _is_unknown(text) else _HUB_LICENSES.get(text) for text in licenses}
    return ids.pop() if len(ids) == 1 and None not in ids else "other"


def _provenance(source: dict) -> str:
    home = f"https://github.com/{source['repository']}"
    if source.get("commit"):
        return (
            f"built by `corefbias` from the files of {home} at commit `{source['commit']}`, every file checked "
            "against its sha256"
        )
    # A registry entry without a commit has nothing to download from: corefbias generates the set.
    return (
        f"generated by `corefbias`, no upstream file read; {home}, the original set's home, is named for reference only"
    )


def _license_statement(source: dict) -> str:
    home = f"https://github.com/{source['repository']}"
    if _is_unknown(source.get("license")):
        return (
            f"unknown: the license of the original data ({home}) could not be determined, so whether and how "
            "this set may be reused is unclear"
        )
    return f"as stated for the upstream data ({home}): {source['license']}"


def _per_source(sources: dict[str, dict], configs_of: dict[str, list[str]], describe) -> str:
    """``describe(source)`` as one sentence for a single source; else one bullet per source naming its configs."""
    if len(sources) == 1:
        text = describe(next(iter(sources.values())))
        return f"{text[0].upper()}{text[1:]}."
    return "Per configuration:\n\n" + "\n".join(
        f"- {', '.join(f'`{config}`' for config in configs_of[entry])}: {describe(source)}."
        for entry, source in sources.items()
    )


def _loading(default: str, configs: list[str]) -> list[str]:
    """The card's lines on loading the set: without a config name ``load_dataset`` returns the default one only."""
    if len(configs) == 1:
        return ["```python", "import datasets", 'ds = datasets.load_dataset("<this folder or Hub repository>")', "```"]
    return [
        f"`load_dataset` without a config name loads only the default config, `{default}`; name a config to load "
        f"another, or load each in turn for the whole set ({len(configs)} configs):",
        "",
        "```python",
        "import datasets",
        "",
        'folder = "<this folder or Hub repository>"',
        f'default = datasets.load_dataset(folder)  # the "{default}" config only',
        f'one = datasets.load_dataset(folder, "{configs[-1]}")',
        "every = {name: datasets.load_dataset(folder, name) for name in datasets.get_dataset_config_names(folder)}",
        "```",
    ]


def _card(name: str, builder_cls, built: dict, root: Path, configs_of: dict[str, list[str]]) -> str:
    """README.md: YAML metadata (configs, dataset_info, license) and the prose of the card.

    ``configs_of`` is ``config_sources(name, builder_cls)``: which registry entry each config comes from.
    """
    extra, body = _card_parts(name, root)
    body, license_notes = _take_section(body, "License")
    sources = {entry: upstream.dataset_source(entry) for entry in configs_of}
    first = next(iter(built.values()))[1]
    metadata: dict = {"pretty_name": extra.pop("pretty_name", name)}
    metadata["license"] = _hub_license([source["license"] for source in sources.values()])
    if metadata["license"] == "other":
        metadata["license_name"] = name
        if len(sources) == 1:
            metadata["license_link"] = f"https://github.com/{next(iter(sources.values()))['repository']}"
    metadata.update(extra)
    default = getattr(builder_cls, "DEFAULT_CONFIG_NAME", None) or next(iter(built))
    metadata["configs"] = []
    metadata["dataset_info"] = []
    for config, (dataset_dict, info) in built.items():
        entry = {
            "config_name": config,
            "data_files": [
                {"split": split, "path": DATA_FILE.format(config=config, split=split).replace("-00000-of-00001", "-*")}
                for split in dataset_dict
            ],
        }
        if config == default:
            entry["default"] = True
        metadata["configs"].append(entry)
        metadata["dataset_info"].append(
            {
                "config_name": config,
                "features": card_features(info.features),
                "splits": [
                    {"name": split, "num_bytes": info.splits[split].num_bytes, "num_examples": len(dataset)}
                    for split, dataset in dataset_dict.items()
                ],
                "dataset_size": sum(info.splits[split].num_bytes for split in dataset_dict),
            }
        )
    header = yaml.safe_dump(metadata, sort_keys=False, allow_unicode=True, width=100)

    configs = "\n".join(
        f"| `{config}` | {', '.join(f'{split} ({len(ds)})' for split, ds in dataset_dict.items())} | "
        f"{(builder_cls.builder_configs[config].description or '').strip()} |"
        for config, (dataset_dict, _) in built.items()
    )
    lines = [
        f"# {metadata['pretty_name']}",
        "",
        (first.description or "").strip(),
        "",
        body,
        "",
        "## Configurations",
        "",
        "| config | splits (rows) | content |",
        "|---|---|---|",
        configs,
        "",
        *_loading(default, list(built)),
        "",
        "## Source",
        "",
        _per_source(sources, configs_of, _provenance),
        "",
        "Character offsets (`start`, `end`) are Python string indices into `text`, end exclusive; "
        "`text[start:end]` equals the span's `text` for every span (checked when the set is built).",
        "",
        "## License",
        "",
        _per_source(sources, configs_of, _license_statement),
        *(["", license_notes] if license_notes else []),
        "",
        "## Citation",
        "",
        "```bibtex",
        (first.citation or "").strip(),
        "```",
        "",
    ]
    return f"---\n{header}---\n\n" + "\n".join(lines).replace("\n\n\n", "\n\n")


def export_dataset(
    name: str,
    out_dir: str | os.PathLike,
    mirror: str | os.PathLike | None = None,
    *,
    scripts_dir: str | os.PathLike | None = None,
    on_config: Callable[[str, str], None] | None = None,
    requested: Iterable[str] = (),
) -> Path:
    """Build every config of one set and write ``<out_dir>/<name>`` (replacing what was there).

    ``mirror`` is the upstream mirror (else ``$COREFBIAS_MIRROR``, else the download cache);
    ``on_config(name, config)`` is called after each config is written (for progress bars). The builder's
    ``ON_REQUEST_CONFIGS`` are built only where ``requested`` names them.
    """
    root = Path(scripts_dir) if scripts_dir is not None else SCRIPTS_DIR
    builder_cls = builder_class(name, root)
    chosen = exported_configs(name, builder_cls, requested)
    configs_of = {
        entry: [c for c in configs if c in chosen] for entry, configs in config_sources(name, builder_cls).items()
    }
    configs_of = {entry: configs for entry, configs in configs_of.items() if configs}
    # Absolute, for the builder that runs elsewhere; not resolved, so messages name the mirror as the user gave it
    # (through a link to it, say).
    mirror = Path(mirror).absolute() if mirror is not None else None
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / name
    staging = Path(tempfile.mkdtemp(prefix=f".{name}-", dir=out_dir))
    os.chmod(staging, 0o755)  # mkdtemp makes it private; the export is an ordinary folder
    try:
        with tempfile.TemporaryDirectory(prefix="corefbias-build-") as cache:
            built = {}
            for config in chosen:
                dataset_dict, info = _build_config(builder_cls, name, config, mirror, Path(cache) / config)
                for split, dataset in dataset_dict.items():
                    path = staging / DATA_FILE.format(config=config, split=split)
                    path.parent.mkdir(parents=True, exist_ok=True)
                    dataset.to_parquet(str(path))
                built[config] = (dataset_dict, info)
                if on_config is not None:
                    on_config(name, config)
            (staging / "README.md").write_text(_card(name, builder_cls, built, root, configs_of), encoding="utf-8")
            del built
        if target.exists():
            shutil.rmtree(target)
        os.replace(staging, target)
    finally:
        if staging.exists():
            shutil.rmtree(staging)
    return target


def exported_configs(name: str, builder_cls, requested: Iterable[str] = ()) -> list[str]:
    """The configs an export of the set writes: all but its builder's ``ON_REQUEST_CONFIGS``, and those requested.

    Examples
    --------
    >>> exported_configs("winogender", builder_class("winogender"))
    ['default']
    >>> exported_configs("winogender", builder_class("winogender"), ["full"])
    Traceback (most recent call last):
    ...
    corefbias.data.hub_export.DatasetBuildError: winogender has no config 'full' built on request; it has none
    """
    on_request = tuple(getattr(builder_cls, "ON_REQUEST_CONFIGS", ()))
    unknown = [config for config in requested if config not in on_request]
    if unknown:
        has = ", ".join(on_request) or "none"
        raise DatasetBuildError(f"{name} has no config {unknown[0]!r} built on request; it has {has}")
    return [config for config in builder_cls.builder_configs if config not in on_request or config in requested]


def export(
    names: Iterable[str] | None,
    out_dir: str | os.PathLike,
    mirror: str | os.PathLike | None = None,
    *,
    progress: bool = True,
    scripts_dir: str | os.PathLike | None = None,
    scripts_dirs: Mapping[str, str | os.PathLike | None] | None = None,
    requested: Mapping[str, Iterable[str]] | None = None,
) -> list[Path]:
    """Export the named sets (all with a builder in ``scripts_dir`` when ``names`` is None); one folder per set.

    ``scripts_dirs`` gives a set's own builders folder by name (None, or a set it does not name: ``scripts_dir``);
    ``requested`` names, per set, the configs built on request to build too (``exported_configs``).
    With ``progress``, one bar advances per config written; the ``datasets`` bars stay off.
    """
    names = list(names) if names is not None else available(scripts_dir)
    folders = {name: (scripts_dirs or {}).get(name) or scripts_dir for name in names}
    asked = {name: tuple((requested or {}).get(name, ())) for name in names}
    chosen = {name: exported_configs(name, builder_class(name, folders[name]), asked[name]) for name in names}
    total = sum(len(configs) for configs in chosen.values())
    bars_were_on = datasets.is_progress_bar_enabled()
    datasets.disable_progress_bars()
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=total, desc="export", unit="config")
    try:
        written = []
        for name in names:

            def advance(set_name, config):
                if bar is not None:
                    bar.set_postfix_str(f"{set_name}/{config}")
                    bar.update(1)

            written.append(
                export_dataset(
                    name, out_dir, mirror, scripts_dir=folders[name], on_config=advance, requested=asked[name]
                )
            )
        return written
    finally:
        if bar is not None:
            bar.close()
        if bars_were_on:
            datasets.enable_progress_bars()
