"""corefbias's own model kinds (``BUILT_IN``) and the kind of a server's URL (``SERVER``), with their options.

A kind imports its adapter module only when a model of that kind is loaded (``_Adapter``), so a library that
is not installed costs nothing until it is used, and then fails with the extra to install. An option several
kinds take alike is declared once here and shared.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from importlib import import_module

from .baselines import BASELINES
from .chat import ANSWER_MODES, ORDER_MODES
from .cloze import CLOZE_NORMS
from .declaration import ModelKind, ModelOption, ServerKind, checked_call
from .pass_layouts import BY_NAME as PASS_LAYOUTS
from .pass_layouts.prefix_tree import ROW_TOKENS
from .transformers_backend import LAYOUTS, MAX_BATCH_TOKENS


@dataclass(frozen=True)
class _Adapter:
    """The ``load`` of a built-in kind: the ``load`` of its adapter module, imported on the first call."""

    module: str

    def __call__(self, argument: str, *, kind: str, **options):
        return checked_call(import_module(f".{self.module}", __package__).load, argument, kind, options)


DEVICE = ModelOption(
    "device", "torch device: cpu (default), cuda, cuda:N, mps or auto", flag="--device", space="device"
)
WORKERS = ModelOption(
    "workers", "requests in flight at once, answers kept in order (default 4)", int, flag="--concurrency", minimum=1
)
TIMEOUT = ModelOption("timeout", "seconds a request may take", float, minimum=0, exclusive=True)
RETRIES = ModelOption("retries", "times a failed request is sent again (a refused one never)", int, minimum=0)
BACKOFF = ModelOption("backoff", "seconds before the first retry, doubled before each next one", float)
TOKEN_ENV = ModelOption("token_env", "the environment variable holding the bearer token (default HF_TOKEN)")
# A secret: given by a program (the Space), never on a command line, where other users' `ps` would show it.
TOKEN = ModelOption("token", "the bearer token, before token_env's", command_line=False)
CLOZE_NORM = ModelOption(
    "cloze_norm",
    "pick the option with the highest summed log-likelihood (none, the default, lm-eval's acc) or per UTF-8 byte "
    "of the option (bytes, lm-eval's acc_norm)",
    choices=CLOZE_NORMS,
    flag="--cloze-norm",
)
BATCH_SIZE = ModelOption("batch_size", "instances per model call", int, flag="--batch-size")
REQUESTS = (WORKERS, TIMEOUT, RETRIES, BACKOFF)


def _not_served_hf(spec: str) -> str:
    repo, _, revision = spec.partition(":")[2].partition("@")
    vllm = f"vllm serve {repo}" + (f" --revision {revision}" if revision else "")
    return (
        f"an hf: model is a choice model scored by log-likelihood. To evaluate it, run `corefbias run --model {spec}` "
        f"directly; to share it over HTTP, serve it with vLLM (`{vllm}`, an OpenAI-compatible server) and run "
        f"`corefbias run --model completions:{repo} --base-url http://<host>:8000/v1` against it"
    )


def _not_served_completions(spec: str) -> str:
    return (
        "a completions: model is a choice model scored by log-likelihood, already served by its OpenAI-compatible "
        f"server; run `corefbias run --model {spec} --base-url <server>/v1` directly"
    )


_CHAT_EXAMPLE = "chat:Qwen/Qwen2.5-7B-Instruct"
_FASTCOREF = (DEVICE, ModelOption("max_tokens_in_batch", "tokens per forward pass (default 10000)", int))
_BASELINE_PRESETS = sorted(
    (f"baseline:{name.replace('<k>', '1')}" for name in BASELINES), key=lambda spec: spec != "baseline:stereotype"
)

BUILT_IN = (
    ModelKind(
        "baseline",
        _Adapter("baselines"),
        None,
        "baseline:stereotype",
        loads_by_name=False,
        options=(ModelOption("seed", "seed of baseline:random (default 0)", int),),
        space_presets=tuple(_BASELINE_PRESETS),
    ),
    ModelKind("fastcoref", _Adapter("fastcoref_adapter"), "fastcoref", "fastcoref:biu-nlp/f-coref", options=_FASTCOREF),
    ModelKind(
        "lingmess", _Adapter("fastcoref_adapter"), "fastcoref", "lingmess:biu-nlp/lingmess-coref", options=_FASTCOREF
    ),
    ModelKind(
        "maverick",
        _Adapter("maverick_adapter"),
        "maverick",
        "maverick:sapienzanlp/maverick-mes-ontonotes",
        options=(DEVICE,),
    ),
    ModelKind(
        "spacy",
        _Adapter("spacy_adapter"),
        "spacy-coref",
        "spacy:en_coreference_web_trf",
        options=(
            DEVICE,
            BATCH_SIZE,
            ModelOption("prefix", "the prefix of the Doc.spans keys holding the clusters (default coref_clusters)"),
        ),
    ),
    ModelKind(
        "chat",
        _Adapter("chat"),
        None,
        _CHAT_EXAMPLE,
        loads_by_name=False,
        options=(
            ModelOption(
                "base_url",
                "an OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1 (default: Hugging Face Inference)",
                flag="--base-url",
                space="chat_base_url",
            ),
            ModelOption(
                "answer",
                "read the answer from the first token's log-probabilities, from the reply's text, or auto "
                "(log-probabilities when the endpoint returns them; the default)",
                choices=ANSWER_MODES,
                flag="--answer",
            ),
            ModelOption(
                "orders",
                "ask each question in one rotation of its options (one, the default), or in every cyclic rotation "
                "and decide by each option's probability summed over them (all: m requests per question of m "
                "options, so m times the cost; needs --answer logprobs; undoes a preference for a letter)",
                choices=ORDER_MODES,
                flag="--orders",
            ),
            *REQUESTS,
            ModelOption("max_tokens", "most tokens of a reply (default 16)", int),
            TOKEN_ENV,
            replace(TOKEN, space="hf_token"),
        ),
        space_presets=(_CHAT_EXAMPLE,),
    ),
    ModelKind(
        "hf",
        _Adapter("hf_causal_lm"),
        "hf",
        "hf:HuggingFaceTB/SmolLM2-135M-Instruct",
        options=(
            DEVICE,
            ModelOption("dtype", "torch dtype of the weights, e.g. float32, bfloat16 (default: auto)", flag="--dtype"),
            ModelOption(
                "max_batch_tokens",
                "the tokens of one forward pass, padding included (default: "
                f"{MAX_BATCH_TOKENS['cpu']} on CPU, {MAX_BATCH_TOKENS['cuda']} on CUDA)",
                int,
                minimum=1,
            ),
            ModelOption(
                "call_size",
                "instances per call of corefbias run, batched by tokens inside (default 4096)",
                int,
                minimum=1,
            ),
            ModelOption(
                "layout",
                f"how requests fill forward passes: {', '.join(PASS_LAYOUTS)} (default: {LAYOUTS['cpu']} on CPU, "
                f"{LAYOUTS['cuda']} on CUDA)",
                choices=tuple(PASS_LAYOUTS),
            ),
            ModelOption(
                "row_tokens",
                f"the prefix-tree layout's rows, in tokens (default: {ROW_TOKENS['cpu']} on CPU, "
                f"{ROW_TOKENS['cuda']} on CUDA)",
                int,
                minimum=1,
            ),
            CLOZE_NORM,
            ModelOption("threads", "torch's CPU threads (default: one per core)", int, minimum=1),
            ModelOption("attn_implementation", "transformers' attention implementation, e.g. eager or sdpa"),
            ModelOption("low_cpu_mem_usage", "load the weights without a first random copy (from_pretrained)", bool),
            ModelOption("local_files_only", "never download: use the Hub cache only (from_pretrained)", bool),
            ModelOption("cache_dir", "the folder of the Hub cache to use (from_pretrained)"),
            ModelOption("subfolder", "the repository's folder holding the model (from_pretrained)"),
        ),
        space_note="language model, chooses by log-likelihood",
        requires=("transformers>=4.56",),
        not_served=_not_served_hf,
    ),
    ModelKind(
        "completions",
        _Adapter("completions"),
        None,
        "completions:meta-llama/Llama-3.1-8B",
        loads_by_name=False,
        options=(
            ModelOption(
                "base_url", "an OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1 (needed)", flag="--base-url"
            ),
            CLOZE_NORM,
            *REQUESTS,
            TOKEN_ENV,
            TOKEN,
        ),
        not_served=_not_served_completions,
    ),
)

SERVER = ServerKind(
    "http",
    _Adapter("http_protocol"),
    None,
    "http://127.0.0.1:8808",
    loads_by_name=False,
    options=(
        WORKERS,
        replace(TIMEOUT, space="http_timeout"),
        replace(RETRIES, space="http_retries"),
        BACKOFF,
        ModelOption(
            "opener",
            "a urllib opener every connection goes through (the Space's address guard)",
            space="endpoint_opener",
            command_line=False,
        ),
    ),
)
