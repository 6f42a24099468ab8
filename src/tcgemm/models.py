"""The Linear layers of one decoder layer of real models, as data (what ``tcgemm bench --model`` times).

Each :class:`ModelShapes` holds a model's source config values and the ``torch.nn.Linear`` layers of one
decoder layer, as ``(name, in_features K, out_features N, bias)``, derived from those values by one rule
per architecture family (:func:`gpt2_layers`, :func:`llama_layers`), so every odd size can be traced to
the config it comes from:

* GPT-2 (``gpt2``): qkv ``d -> 3d``, o ``d -> d``, fc1 ``d -> ff``, fc2 ``ff -> d``, all with bias.
* Llama-style (``llama3-8b``, ``llama3-70b-tp8``, ``qwen2.5-7b``): qkv ``hidden -> (heads + 2 kv_heads) x
  head_dim`` (Q, K and V fused, as inference engines store them), o ``heads x head_dim -> hidden``,
  gate_up ``hidden -> 2 x intermediate`` (gate and up fused), down ``intermediate -> hidden``. A tensor-
  parallel shard of ``tp`` GPUs (Megatron style) holds ``heads / tp`` query heads, ``kv_heads / tp`` KV
  heads and ``intermediate / tp`` of the MLP: qkv, gate_up are split by output, o and down by input.

A layer of M tokens runs ``y = x @ W.T (+ b)``: a GEMM of M x N x K with A = x row-major and
B = W.T column-major (layouts ``"rc"``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["DEFAULT_TOKENS", "MODELS", "LinearShape", "ModelShapes", "get", "names", "parse_names"]

# Token counts M per forward: decode (1, 16: a batch of sequences, one token each), small prefill
# chunks, and the prefill / training sizes where large GEMMs dominate.
DEFAULT_TOKENS: tuple[int, ...] = (1, 16, 64, 128, 512, 2048, 8192)


@dataclass(frozen=True)
class LinearShape:
    """One torch.nn.Linear of a decoder layer: ``in_features -> out_features`` (GEMM K -> N)."""

    name: str
    in_features: int  # K
    out_features: int  # N
    bias: bool

    def gemm(self, tokens: int) -> tuple[int, int, int]:
        """(M, N, K) of this layer on ``tokens`` tokens."""
        return tokens, self.out_features, self.in_features


@dataclass(frozen=True)
class ModelShapes:
    """A model's decoder layer: its Linear layers, the config values they come from, its MLP."""

    name: str
    description: str
    source: dict[str, int]  # the model config's values (hidden size, heads, ...) the layers derive from
    layers: tuple[LinearShape, ...]
    mlp: tuple[str, str]  # the MLP's two layers, in order (the training-step row runs them)
    activation: str  # "gelu_tanh" (fc1 -> gelu -> fc2) or "swiglu" (gate_up -> silu(gate) * up -> down)
    dtype: str = "bf16"
    notes: tuple[str, ...] = field(default_factory=tuple)

    def layer(self, name: str) -> LinearShape:
        for lay in self.layers:
            if lay.name == name:
                return lay
        raise KeyError(f"model {self.name!r} has no layer {name!r}; it has {', '.join(x.name for x in self.layers)}")

    def gemms(self, tokens: int) -> list[tuple[int, int, int]]:
        """(M, N, K) of each layer on ``tokens`` tokens, in layer order."""
        return [lay.gemm(tokens) for lay in self.layers]

    def weight_count(self) -> int:
        return sum(lay.in_features * lay.out_features + (lay.out_features if lay.bias else 0) for lay in self.layers)


def gpt2_layers(d_model: int, d_ff: int) -> tuple[LinearShape, ...]:
    """GPT-2's attention and MLP projections (Conv1D in the original: a Linear with bias)."""
    return (LinearShape("qkv", d_model, 3 * d_model, True), LinearShape("o", d_model, d_model, True),
            LinearShape("fc1", d_model, d_ff, True), LinearShape("fc2", d_ff, d_model, True))


def llama_layers(hidden: int, intermediate: int, heads: int, kv_heads: int, head_dim: int, tp: int = 1,
                 qkv_bias: bool = False) -> tuple[LinearShape, ...]:
    """Llama-style fused qkv and gate_up, o and down, for one shard of ``tp``-way tensor parallelism."""
    for what, value in (("heads", heads), ("kv_heads", kv_heads), ("intermediate", intermediate)):
        if value % tp:
            raise ValueError(f"{what}={value} does not split over tp={tp} shards; use a tp that divides it")
    q, kv, ff = heads // tp, kv_heads // tp, intermediate // tp
    return (LinearShape("qkv", hidden, (q + 2 * kv) * head_dim, qkv_bias),
            LinearShape("o", q * head_dim, hidden, False),
            LinearShape("gate_up", hidden, 2 * ff, False),
            LinearShape("down", ff, hidden, False))


def _gpt2() -> ModelShapes:
    src = {"d_model": 768, "n_head": 12, "d_ff": 3072}
    return ModelShapes("gpt2", "GPT-2 small (124M): d_model 768, 12 heads, MLP 3072, biases everywhere", src,
                       gpt2_layers(src["d_model"], src["d_ff"]), ("fc1", "fc2"), "gelu_tanh")


def _llama(name: str, description: str, src: dict[str, int], qkv_bias: bool = False,
           notes: tuple[str, ...] = ()) -> ModelShapes:
    layers = llama_layers(src["hidden_size"], src["intermediate_size"], src["num_attention_heads"],
                          src["num_key_value_heads"], src["head_dim"], src.get("tp", 1), qkv_bias)
    return ModelShapes(name, description, src, layers, ("gate_up", "down"), "swiglu", notes=notes)


MODELS: dict[str, ModelShapes] = {m.name: m for m in (
    _gpt2(),
    _llama("llama3-8b", "Llama-3-8B: hidden 4096, MLP 14336, 32 query heads, 8 KV heads (GQA), head_dim 128",
           {"hidden_size": 4096, "intermediate_size": 14336, "num_attention_heads": 32,
            "num_key_value_heads": 8, "head_dim": 128}),
    _llama("llama3-70b-tp8", "One tensor-parallel-8 shard of Llama-3-70B: hidden 8192, MLP 28672, 64 query "
           "heads, 8 KV heads, head_dim 128, split over 8 GPUs",
           {"hidden_size": 8192, "intermediate_size": 28672, "num_attention_heads": 64,
            "num_key_value_heads": 8, "head_dim": 128, "tp": 8},
           notes=("per shard: 8 query heads, 1 KV head, MLP 3584; the all-reduce after o and down is not timed",)),
    _llama("qwen2.5-7b", "Qwen2.5-7B: hidden 3584, MLP 18944, 28 query heads, 4 KV heads, head_dim 128, "
           "bias on qkv only", {"hidden_size": 3584, "intermediate_size": 18944, "num_attention_heads": 28,
                                "num_key_value_heads": 4, "head_dim": 128}, qkv_bias=True),
)}


def names() -> list[str]:
    return list(MODELS)


def get(name: str) -> ModelShapes:
    try:
        return MODELS[name]
    except KeyError:
        raise ValueError(f"--model {name!r} is not known; use one of {', '.join(MODELS)} or all") from None


def parse_names(text: str) -> list[str]:
    """'all' -> every model; 'gpt2,llama3-8b' -> those two (checked, duplicates dropped, order kept)."""
    out: list[str] = []
    for token in (t.strip().lower() for t in text.split(",")):
        if not token:
            continue
        for name in MODELS if token == "all" else [get(token).name]:
            if name not in out:
                out.append(name)
    if not out:
        raise ValueError(f"--model {text!r} names no model; use one of {', '.join(MODELS)} or all")
    return out
