"""Refuse pickled checkpoints that would run code when loaded, without loading them.

A pickle runs code by importing a callable (a *global*) and calling it: ``os.system``,
``builtins.exec``, or any function of an installed package. ``torch.load(weights_only=True)``
refuses every global outside a short allow-list of tensor rebuilders and plain containers. The
model libraries behind our adapters load checkpoints their own way (Lightning's
``load_from_checkpoint`` for Maverick), so :func:`check_checkpoint` applies the same rule before
they see the file: it reads the pickle's opcodes with :mod:`pickletools` — nothing is imported,
called or built — and names the first global that is not on :data:`ALLOWED_GLOBALS`.

Formats: torch's zip archives (every ``*.pkl`` member, e.g. ``archive/data.pkl``), the legacy
torch format (five pickles, then raw tensor bytes), and plain pickle files. Standard library only.
"""

from __future__ import annotations

import _compat_pickle
import io
import pickletools
import zipfile
from pathlib import Path

from .cluster_format import ModelError

_TORCH_STORAGES = ("Double", "Float", "Half", "BFloat16", "Long", "Int", "Short", "Char", "Byte", "Bool")
_TORCH_DTYPES = ("float64", "float32", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint8", "bool")
_OMEGACONF_NODES = (
    "AnyNode",
    "StringNode",
    "IntegerNode",
    "FloatNode",
    "BooleanNode",
    "EnumNode",
    "PathNode",
    "BytesNode",
)

# What torch.load(weights_only=True) accepts for tensors and containers, plus the plain
# configuration objects a Lightning checkpoint (Maverick's) keeps its hyper-parameters in.
ALLOWED_GLOBALS = frozenset(
    {
        ("collections", "OrderedDict"),
        ("collections", "defaultdict"),
        ("_codecs", "encode"),
        *(
            ("builtins", name)
            for name in (
                "dict",
                "list",
                "tuple",
                "set",
                "frozenset",
                "int",
                "float",
                "complex",
                "bool",
                "str",
                "bytes",
                "bytearray",
                "slice",
                "range",
            )
        ),
        *(
            ("torch._utils", name)
            for name in ("_rebuild_tensor", "_rebuild_tensor_v2", "_rebuild_parameter", "_rebuild_parameter_with_state")
        ),
        *(("torch", f"{kind}Storage") for kind in _TORCH_STORAGES),
        *(("torch", dtype) for dtype in _TORCH_DTYPES),
        ("torch", "Size"),
        ("torch", "device"),
        ("torch.storage", "UntypedStorage"),
        ("numpy", "dtype"),
        ("numpy.core.multiarray", "scalar"),
        ("numpy._core.multiarray", "scalar"),
        ("typing", "Any"),
        ("omegaconf.dictconfig", "DictConfig"),
        ("omegaconf.listconfig", "ListConfig"),
        ("omegaconf.base", "ContainerMetadata"),
        ("omegaconf.base", "Metadata"),
        *(("omegaconf.nodes", name) for name in _OMEGACONF_NODES),
        ("pytorch_lightning.utilities.parsing", "AttributeDict"),
        ("lightning.fabric.utilities.data", "AttributeDict"),
        ("lightning_fabric.utilities.data", "AttributeDict"),
    }
)

_STRING_PUSHES = {"SHORT_BINUNICODE", "BINUNICODE", "BINUNICODE8", "UNICODE", "SHORT_BINSTRING", "BINSTRING", "STRING"}
_MEMO_PUTS = {"PUT", "BINPUT", "LONG_BINPUT"}
_MEMO_GETS = {"GET", "BINGET", "LONG_BINGET"}
_LEGACY_TORCH_PICKLES = 5  # magic number, protocol, system info, the object, storage keys


class UnsafeCheckpointError(ModelError):
    """A checkpoint that would import something other than tensors and plain data when unpickled."""


def pickle_globals(stream) -> list[tuple[str, str]]:
    """Every ``(module, name)`` one pickle in ``stream`` imports, read from its opcodes alone.

    A ``STACK_GLOBAL`` whose operands are not plain strings pushed just before it is reported as
    ``("?", "?")``: what it imports cannot be told without running the pickle.
    """
    found, memo, pushed = [], {}, []
    for opcode, argument, _ in pickletools.genops(stream):
        name = opcode.name
        if name in ("GLOBAL", "INST"):
            module, _, attribute = argument.partition(" ")
            found.append(_python3_name(module, attribute))
        elif name == "STACK_GLOBAL":
            operands = pushed[-2:]
            strings = len(operands) == 2 and all(isinstance(value, str) for value in operands)
            found.append(_python3_name(*operands) if strings else ("?", "?"))
        elif name in ("EXT1", "EXT2", "EXT4"):  # the copyreg extension registry: another way to import
            found.append(("copyreg extension", str(argument)))
        if name in _STRING_PUSHES:
            pushed.append(argument if isinstance(argument, str) else argument.decode("latin-1"))
        elif name in _MEMO_GETS:
            pushed.append(memo.get(argument))
        elif name in _MEMO_PUTS or name == "MEMOIZE":
            memo[argument if name != "MEMOIZE" else len(memo)] = pushed[-1] if pushed else None
        else:
            pushed.append(None)  # anything else may change the stack: its top is no longer a known string
    return found


def _python3_name(module: str, name: str) -> tuple[str, str]:
    """The name the unpickler imports for a protocol 2 pickle's Python 2 name (``__builtin__`` → ``builtins``)."""
    if (module, name) in _compat_pickle.NAME_MAPPING:
        return _compat_pickle.NAME_MAPPING[(module, name)]
    return _compat_pickle.IMPORT_MAPPING.get(module, module), name


def _pickles(path: Path):
    """``(where, stream)`` for each pickle in the checkpoint file."""
    if zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as archive:
            for member in archive.namelist():
                if member.endswith(".pkl"):
                    yield f"{path.name}:{member}", io.BytesIO(archive.read(member))
        return
    with open(path, "rb") as handle:
        for _ in range(_LEGACY_TORCH_PICKLES):
            start = handle.tell()
            if not handle.read(1):
                return
            handle.seek(start)
            yield path.name, handle


def check_checkpoint(path) -> None:
    """Raise UnsafeCheckpointError unless every pickle in ``path`` imports allowed globals only."""
    path = Path(path)
    try:
        for where, stream in _pickles(path):
            for module, name in pickle_globals(stream):
                if (module, name) not in ALLOWED_GLOBALS:
                    raise UnsafeCheckpointError(
                        f"refused to load {path}: {where} would import {module}.{name} when unpickled, which can "
                        "run code; only tensors and plain data are loaded (torch.load(weights_only=True) rules). "
                        "Use a safetensors checkpoint, or re-save this one as a plain state dict"
                    )
    except (ValueError, EOFError, zipfile.BadZipFile, UnicodeDecodeError) as error:
        raise UnsafeCheckpointError(
            f"refused to load {path}: it is not a readable pickle checkpoint ({error})"
        ) from None
