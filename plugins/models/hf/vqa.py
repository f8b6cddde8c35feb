"""`hf-vqa`: transformers models with a VQA head (ViLT-style classifiers, BLIP-style generators).

Classifiers (a logit per answer in `config.id2label`):
- `answer`: the best label, with the top-k answer probabilities (sigmoid for multi-label
  heads such as ViLT's, softmax otherwise) as `Answer.scores`; ties go to the lower label id.
- `score_choices`: the logit of each candidate's label (exact label, else the VQA-normalized
  form); a candidate outside the label space scores OUT_OF_LABELS and is counted in
  `notes["choices_outside_labels"]`, which the run's report states (`report_notes`).
Generators (BLIP: vision encoder -> question encoder -> answer decoder):
- `answer`: decoding (greedy by default) with the question padding masked out in the
  decoder's cross-attention (transformers' own `generate` attends to padding, which makes
  answers depend on the batch), `score_choices`: the sum of candidate token log-probs
  (ending with the separator token), `explain`: decoding from a "why" prompt.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from harness.api import Option
from harness.errors import PluginError, UsageError
from harness.metrics import normalize_answer
from harness.types import Answer, Example

from .base import COMMON_OPTIONS, OUT_OF_LABELS, HFModelBase
from .families import FAMILIES
from .loading import read_config
from .pipeline import Prepared, decode, slice_inputs

__all__ = ["HFVQAModel", "GENERATOR_TYPES"]

#: model_type values answered by decoding rather than by a label classifier.
GENERATOR_TYPES = ("blip", "blip-2", "pix2struct", "git", "paligemma")

EXPLAIN_PROMPT = "why is the answer to {question} {answer}?"


class HFVQAModel(HFModelBase):
    """Any transformers VQA model from a local folder or a cached hub id."""

    name = "hf-vqa"
    description = "Hugging Face VQA model (ViLT-style classifier or BLIP-style generator), local path or cached hub id"
    options = {
        **COMMON_OPTIONS,
        "kind": Option("auto", "classifier (id2label head) or generator; auto reads the config",
                       ("auto", "classifier", "generator")),
        "scores": Option("auto", "answer scores: sigmoid (multi-label heads, ViLT) or softmax; auto picks",
                         ("auto", "sigmoid", "softmax")),
        "top_k": Option(10, "answers kept in Answer.scores (classifiers)", min=1, max=100_000),
        "max_new_tokens": Option(10, "generation: answer length limit in tokens", min=1, max=4096),
        "num_beams": Option(1, "generation: beam width (1 = greedy)", min=1, max=64),
        "explain_max_new_tokens": Option(30, "generation: explanation length limit in tokens",
                                         min=1, max=4096),
        "explain_prompt": Option(EXPLAIN_PROMPT, "generation: question text used to explain ({question}, {answer})"),
    }

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        try:  # a misspelt field is one line now, not an error on every explained example
            self.config["explain_prompt"].format(question="q", answer="a")
        except (KeyError, IndexError, ValueError) as exc:
            raise UsageError(f"model {self.name!r}: explain_prompt={self.config['explain_prompt']!r} may use only "
                             f"{{question}} and {{answer}} ({type(exc).__name__}: {exc})") from None
        cfg = read_config(self.source.folder)
        family = FAMILIES.get(str(cfg.get("model_type") or ""))
        if family is not None and cfg.get("model_type") not in GENERATOR_TYPES:
            raise UsageError(f"model {self.name!r}: {self.source.folder} is a {family.label} chat VLM (model_type "
                             f"{cfg.get('model_type')!r}), which needs a chat prompt with its image token: run it "
                             f"with hf-vlm:path={self.source.folder}")
        self.kind = self.config["kind"] if self.config["kind"] != "auto" else _infer_kind(cfg)
        if self.kind is None:
            raise UsageError(f"model {self.name!r}: cannot tell whether {self.source.folder} is a classifier or a "
                             f"generator (model_type {cfg.get('model_type')!r}); pass kind=classifier or kind=generator")

    def instance_capabilities(self) -> frozenset[str]:
        caps = super().instance_capabilities()
        return caps if self.kind == "generator" else caps - {"explain"}

    def _auto_classes(self) -> Sequence[Any]:
        import transformers  # heavy: imported on use

        classes = [transformers.AutoModelForVisualQuestionAnswering]
        if self.kind == "generator":
            classes.append(transformers.AutoModelForImageTextToText)
        return classes

    def _after_load(self) -> None:
        cfg = self.net.config
        ip = getattr(self.processor, "image_processor", None)
        # The checkpoint's own size, read once: the loaded processor is shared by every instance
        # on this checkpoint, and an earlier `image_size=` option has resized it since.
        if ip is not None and not hasattr(ip, "_harness_native_size"):
            ip._harness_native_size = _processor_size(ip)
        size = self.config["image_size"] or getattr(ip, "_harness_native_size", None) or 384
        _set_processor_size(ip, size)
        self.image_size = size
        text_cfg = getattr(cfg, "text_config", None) or cfg
        limit = getattr(text_cfg, "max_position_embeddings", None) or getattr(cfg, "max_position_embeddings", 40)
        self.max_length = self.config["max_length"] or min(int(limit), 40)
        if self.kind == "classifier":
            self.labels = [cfg.id2label[i] for i in range(len(cfg.id2label))]
            exact: dict[str, int] = {}
            normed: dict[str, int] = {}
            for i, label in enumerate(self.labels):
                exact.setdefault(label, i)
                normed.setdefault(normalize_answer(label), i)
            self._exact, self._normed = exact, normed
            multi = getattr(cfg, "problem_type", None) == "multi_label_classification" or cfg.model_type == "vilt"
            self.score_fn = self.config["scores"] if self.config["scores"] != "auto" else ("sigmoid" if multi else "softmax")
        else:
            self.blip_like = all(hasattr(self.net, a) for a in ("vision_model", "text_encoder", "text_decoder"))
            self.tokenizer = getattr(self.processor, "tokenizer", self.processor)

    def fingerprint_extra(self) -> Any:
        extra = super().fingerprint_extra()
        return {**extra, "kind": self.kind}

    def report_notes(self) -> str:
        """How many multiple-choice candidates were outside a classifier's label space (they
        score OUT_OF_LABELS, so the model can never pick them): the report says it."""
        outside = self.notes.get("choices_outside_labels", 0)
        if not outside:
            return ""
        scored = self.notes.get("choices_scored", 0)
        return (f"- Multiple choice (classifier, {len(self.labels)} answer labels): {outside} of {scored} candidate "
                f"answers scored by this process are not among the labels, neither exactly nor after VQA "
                f"normalization; each scored {OUT_OF_LABELS:g}, below every candidate the model knows, so it "
                "can never be chosen over one (cached predictions are not counted).")

    # ---------------------------------------------------------- capabilities
    def answer(self, batch: Sequence[Example]) -> list[Answer]:
        """Best answer (classifier: with top-k scores; generator: decoded text)."""
        return self._run(batch, "answer", [""] * len(batch))

    def score_choices(self, batch: Sequence[Example]) -> list[list[float]]:
        """Classifier: each candidate's label logit; generator: candidate log-likelihood."""
        return self._run(batch, "score_choices", [""] * len(batch))

    def explain(self, batch: Sequence[Example], answers: Sequence[str]) -> list[str]:
        """Generators only: decode from the `explain_prompt` built from question and answer."""
        if self.kind != "generator":
            raise UsageError(f"model {self.name!r} is a classifier and cannot explain")
        return self._run(batch, "explain", list(answers))

    # ------------------------------------------------------------ internals
    def _texts(self, batch: Sequence[Example], capability: str, extras: Sequence[str]) -> list[str]:
        if capability == "explain":
            return [self.config["explain_prompt"].format(question=ex.question, answer=a) for ex, a in zip(batch, extras)]
        return [ex.question for ex in batch]

    def _prepare(self, batch: Sequence[Example], capability: str, extras: Sequence[str], threads: int = 0) -> Prepared:
        images = decode(batch, self.image_size, threads)
        rows = [i for i, im in enumerate(images) if not isinstance(im, Exception)]
        errors = {i: im for i, im in enumerate(images) if isinstance(im, Exception)}
        texts = self._texts(batch, capability, extras)
        if not rows:
            return Prepared([], {}, errors)
        inputs = self.processor(images=[images[i] for i in rows], text=[texts[i] for i in rows], padding="longest",
                                truncation=True, max_length=self.max_length, return_tensors="pt")
        return Prepared(rows, dict(inputs), errors)

    def _forward(self, prepared: Prepared, capability: str, batch: Sequence[Example], extras: Sequence[str]) -> list[Any]:
        inputs = self._on_device(prepared)
        n = len(prepared.rows)
        if self.kind == "classifier":
            logits = self.backoff.run(n, lambda a, b: list(self._logits(slice_inputs(inputs, a, b))))
            logits = np.stack(logits) if logits else np.zeros((0, len(self.labels)), dtype=np.float32)
            if capability == "answer":
                return classifier_answers(logits, self.labels, self.score_fn, max(1, int(self.config["top_k"])))
            return [self._label_logits(row, ex.choices) for row, ex in zip(logits, batch)]
        if capability == "score_choices":
            return self.backoff.run(n, lambda a, b: self._choice_logliks(slice_inputs(inputs, a, b), batch[a:b]))
        limit = self.config["max_new_tokens"] if capability == "answer" else self.config["explain_max_new_tokens"]
        return self.backoff.run(n, lambda a, b: self._generate(slice_inputs(inputs, a, b), limit))

    # classifiers
    def _logits(self, inputs: dict[str, Any]) -> np.ndarray:
        with self._autocast():
            out = self.net(**inputs)
        return out.logits.detach().float().cpu().numpy()

    def _label_logits(self, logits: np.ndarray, choices: Sequence[str]) -> list[float]:
        out = []
        for choice in choices:
            idx = self._exact.get(choice)
            if idx is None:
                idx = self._normed.get(normalize_answer(choice))
            if idx is None:
                self.notes["choices_outside_labels"] = self.notes.get("choices_outside_labels", 0) + 1
                out.append(OUT_OF_LABELS)
            else:
                out.append(float(logits[idx]))
        self.notes["choices_scored"] = self.notes.get("choices_scored", 0) + len(choices)
        return out

    # generators
    def _left_padded(self) -> bool:
        return getattr(self.tokenizer, "padding_side", "right") == "left"

    def _encode_question(self, inputs: dict[str, Any]) -> tuple[Any, Any]:
        import torch  # heavy: torch takes seconds to import; only code that computes needs it

        net = self.net
        image_embeds = net.vision_model(pixel_values=inputs["pixel_values"])[0]
        image_mask = torch.ones(image_embeds.shape[:-1], dtype=torch.long, device=image_embeds.device)
        question = net.text_encoder(input_ids=inputs["input_ids"], attention_mask=inputs["attention_mask"],
                                    encoder_hidden_states=image_embeds, encoder_attention_mask=image_mask,
                                    return_dict=False)[0]
        return question, inputs["attention_mask"]

    def _generate(self, inputs: dict[str, Any], max_new_tokens: int) -> list[str]:
        import torch  # heavy: torch takes seconds to import; only code that computes needs it

        settings = dict(max_new_tokens=int(max_new_tokens), num_beams=int(self.config["num_beams"]), do_sample=False)
        with self._autocast():
            if not self.blip_like:
                out = self.net.generate(**inputs, **settings)
                prompt_len = inputs["input_ids"].shape[1] if not self.net.config.is_encoder_decoder else 0
                return [t.strip() for t in self.tokenizer.batch_decode(out[:, prompt_len:], skip_special_tokens=True)]
            question, mask = self._encode_question(inputs)
            tcfg = self.net.config.text_config
            texts: list[str] = [""] * question.shape[0]
            for rows, q, qmask in _length_groups(question, mask, self._left_padded()):
                bos = torch.full((q.shape[0], 1), self.net.decoder_start_token_id, device=q.device)
                out = self.net.text_decoder.generate(
                    input_ids=bos, eos_token_id=tcfg.sep_token_id, pad_token_id=tcfg.pad_token_id,
                    encoder_hidden_states=q, encoder_attention_mask=qmask, **settings,
                )
                for r, text in zip(rows, self.tokenizer.batch_decode(out, skip_special_tokens=True)):
                    texts[r] = text.strip()
        return texts

    def _choice_logliks(self, inputs: dict[str, Any], batch: Sequence[Example]) -> list[list[float]]:
        import torch  # heavy: torch takes seconds to import; only code that computes needs it

        if not self.blip_like:
            raise PluginError(f"model {self.name!r}: score_choices supports BLIP-style generators only "
                              f"({self.net.config.model_type}); use hf-vlm for chat models")
        tcfg = self.net.config.text_config
        pairs = [(r, c) for r, ex in enumerate(batch) for c in ex.choices]
        if not pairs:
            return [[] for _ in batch]
        tokens = self.tokenizer([c for _, c in pairs], add_special_tokens=False)["input_ids"]
        seqs = [[self.net.decoder_start_token_id, *t, tcfg.sep_token_id] for t in tokens]
        width = max(len(s) for s in seqs)
        dev = inputs["input_ids"].device
        ids = torch.full((len(seqs), width), tcfg.pad_token_id, dtype=torch.long)
        mask = torch.zeros((len(seqs), width), dtype=torch.long)
        for i, s in enumerate(seqs):
            ids[i, : len(s)] = torch.tensor(s)
            mask[i, : len(s)] = 1
        ids, mask = ids.to(dev), mask.to(dev)
        logits = None
        with self._autocast():
            question, qmask = self._encode_question(inputs)
            for rows, q, m in _length_groups(question, qmask, self._left_padded()):
                # Candidate rows whose question is in this group, and where each sits in `rows`.
                where = {r: j for j, r in enumerate(rows)}
                sel = [i for i, (r, _) in enumerate(pairs) if r in where]
                local = torch.tensor([where[pairs[i][0]] for i in sel], device=dev)
                part = self.net.text_decoder(input_ids=ids[sel], attention_mask=mask[sel], encoder_hidden_states=q[local],
                                             encoder_attention_mask=m[local], return_dict=True).logits.float()
                if logits is None:
                    logits = torch.zeros((len(pairs), *part.shape[1:]), device=part.device)
                logits[torch.tensor(sel, device=dev)] = part
        logp = torch.log_softmax(logits[:, :-1].float(), dim=-1)
        picked = logp.gather(-1, ids[:, 1:, None]).squeeze(-1) * mask[:, 1:]
        totals = picked.sum(-1).cpu().tolist()
        out: list[list[float]] = [[] for _ in batch]
        for (r, _), total in zip(pairs, totals):
            out[r].append(float(total))
        return out


def _length_groups(question: Any, mask: Any, left_padded: bool) -> list[tuple[list[int], Any, Any]]:
    """Rows grouped by question length, each group cut to its length: no padding at all.

    The answer decoder must not see question padding. transformers 5.x's BLIP text decoder
    ignores `encoder_attention_mask` in cross-attention (and BLIP's own `generate` passes an
    all-ones mask), so padded questions change answers with batch composition; running each
    length group unpadded makes the outputs independent of the batch.
    """
    lengths = mask.sum(dim=1).tolist()
    groups: dict[int, list[int]] = {}
    for row, length in enumerate(lengths):
        groups.setdefault(int(length), []).append(row)
    out = []
    for length, rows in sorted(groups.items()):
        index = torch_index(rows, question.device)
        cut = slice(question.shape[1] - length, None) if left_padded else slice(0, length)
        out.append((rows, question[index][:, cut], mask[index][:, cut]))
    return out


def torch_index(rows: list[int], device: Any) -> Any:
    """A LongTensor of row indices on `device`."""
    import torch  # heavy: torch takes seconds to import; only code that computes needs it

    return torch.tensor(rows, dtype=torch.long, device=device)


def _infer_kind(cfg: dict[str, Any]) -> str | None:
    archs = " ".join(cfg.get("architectures") or [])
    if cfg.get("model_type") in GENERATOR_TYPES or "Generation" in archs or cfg.get("is_encoder_decoder"):
        return "generator"
    labels = cfg.get("id2label") or {}
    if len(labels) > 2 or any(not str(v).startswith("LABEL_") for v in labels.values()):
        return "classifier"
    return None


def _processor_size(ip: Any) -> int | None:
    size = getattr(ip, "size", None)
    if isinstance(size, dict):
        return size.get("shortest_edge") or size.get("height")
    return getattr(size, "shortest_edge", None) or getattr(size, "height", None)


def _set_processor_size(ip: Any, size: int) -> None:
    """Make the processor keep our fixed square size (so it neither resizes nor pads)."""
    current = getattr(ip, "size", None)
    if current is None:
        return
    keys = dict(current) if isinstance(current, dict) else {k: getattr(current, k) for k in ("shortest_edge", "height", "width") if getattr(current, k, None)}
    new = {k: size for k in keys if k in ("shortest_edge", "height", "width")}
    if new:
        try:
            ip.size = type(current)(**new) if not isinstance(current, dict) else new
        except Exception:
            ip.size = new


def classifier_answers(logits: np.ndarray, labels: Sequence[str], score_fn: str, k: int) -> list[Answer]:
    """Per row of a (examples x labels) logit matrix: the argmax label (ties to the lowest
    id) with the `k` most probable labels' probabilities, in float64, most probable first
    (ties in label order). The whole batch at once, and only the top `k` sorted: a full sort
    of about 3,000 VQA answers per example cost as much as a tenth of a small model's forward."""
    x = logits.astype(np.float64)
    if score_fn == "sigmoid":
        probs = 1.0 / (1.0 + np.exp(-x))
    else:
        shifted = np.exp(x - x.max(axis=1, keepdims=True))
        probs = shifted / shifted.sum(axis=1, keepdims=True)
    best = np.argmax(logits, axis=1)
    out = []
    for row, b in zip(probs, best):
        if 0 < k < row.size:  # every label at least as probable as the k-th, in label order
            top = np.flatnonzero(row >= np.partition(row, row.size - k)[row.size - k])
        else:
            top = np.arange(row.size)
        if top.size < k and top.size < row.size:  # NaN scores: the full sort puts them last
            top = np.arange(row.size)
        order = top[np.argsort(-row[top], kind="stable")][:k]
        out.append(Answer(labels[int(b)], {labels[int(i)]: float(row[int(i)]) for i in order}))
    return out
