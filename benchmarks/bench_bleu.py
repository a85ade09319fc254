"""BLEU speed: 10,000 Chinese (zh) and 10,000 Japanese (ja-mecab) segments.

dst-eval path: tokenise + count every segment once (``segment_statistics``), then corpus BLEU
and mean sentence BLEU from the cached statistics. Compared with sacrebleu:

- ``sacrebleu sentence_bleu per call``: ``mean(sentence_bleu(h, [r], tokenize=...))``, the
  JMultiWOZ official ``evaluate.py`` style (a new BLEU object and tokenizer per call);
- ``sacrebleu BLEU reused``: one ``BLEU(tokenize=..., effective_order=True)`` for all calls;
- ``sacrebleu corpus_bleu``.

Segments are synthesised from our own test sentences (``tests/data/ja_mecab_expected.json``)
and the Chinese sentences below: random number substitution, sentence pairs, character
perturbation for hypotheses; a fresh seed per repeat so no tokenizer cache is warm.
sacrebleu's ``ja-mecab`` needs mecab-python3, which dst-eval does not install: give
``--ja-python /tmp/venv-ja/bin/python`` (a venv with ``sacrebleu[ja]``) to time it there.

    python benchmarks/bench_bleu.py [--n 10000] [--repeats 3] [--ja-python PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
JA_SENTENCES = ROOT / "tests" / "data" / "ja_mecab_expected.json"
SACREBLEU_TOKENIZER = {"zh": "zh", "ja": "ja-mecab"}
OUR_TOKENIZER = {"zh": "zh", "ja": "ja-mecab-ipadic"}

ZH_SENTENCES = [
    "我想找一家北京的餐厅，价格在100元左右。",
    "为您推荐全聚德（前门店），人均消费150元，评分4.5分。",
    "请帮我预订明天晚上7点的位子，3个人。",
    "好的，已经为您预订成功，订单号是ZX2023。",
    "这家酒店有免费的Wi-Fi和停车场吗？",
    "苏州明天多云转晴，气温18℃～26℃，东南风3级。",
    "故宫的门票是60元，周一闭馆。",
    "从首都机场打车到王府井大约需要45分钟。",
    "您还需要其他帮助吗？",
    "出租车司机的电话是13800138000，车牌号京A·12345。",
    "南京路步行街附近有没有评分高一点的火锅店？",
    "我要订两间标准间，入住3天，从5月1日开始。",
    "颐和园开放时间是早上6:30到晚上6:00。",
    "上海外滩附近的酒店一晚大概需要800元。",
    "请问地铁10号线的末班车是几点？",
    "这家川菜馆的推荐菜是水煮鱼和麻婆豆腐。",
    "明天上午9点，我需要一辆出租车从酒店到火车站。",
    "天坛公园在东城区，门票15元，游玩时间约2小时。",
    "成都今天有小雨，最高气温22度，出门记得带伞。",
    "这个景点适合带小孩去吗？有没有儿童票？",
    "我想买一些北京特产，有什么推荐的商店吗？",
    "王府井百货营业时间是10:00-22:00，支持微信支付。",
    "酒店提供早餐吗？早餐是几点到几点？",
    "好的，谢谢你的帮助，再见！",
]


def _vary(text: str, rng: random.Random) -> str:
    return "".join(str(rng.randrange(10)) if c.isdigit() else c for c in text)


def _perturb(text: str, rng: random.Random, alphabet: str) -> str:
    out = []
    for char in text:
        roll = rng.random()
        if roll < 0.08:
            continue
        out.append(rng.choice(alphabet) if roll < 0.18 else char)
    return "".join(out)


def make_corpus(language: str, n: int, seed: int) -> tuple[list[str], list[str]]:
    """n (hypothesis, reference) pairs synthesised from our sentences."""
    if language == "ja":
        items = json.loads(JA_SENTENCES.read_text(encoding="utf-8"))["sentences"]
        base = [item["text"] for item in items if len(item["text"].strip()) > 3]
    else:
        base = ZH_SENTENCES
    rng = random.Random(seed)
    alphabet = "".join(sorted(set("".join(base))))
    refs, hyps = [], []
    for _ in range(n):
        ref = _vary(rng.choice(base), rng)
        if rng.random() < 0.4:
            ref += _vary(rng.choice(base), rng)
        refs.append(ref)
        hyps.append(_perturb(ref, rng, alphabet))
    return hyps, refs


class Clock:
    """Wall and CPU seconds since the last lap (CPU time is robust on a shared machine)."""

    def __init__(self) -> None:
        self.wall, self.cpu = time.perf_counter(), time.process_time()

    def lap(self) -> tuple[float, float]:
        wall, cpu = time.perf_counter(), time.process_time()
        elapsed = (wall - self.wall, cpu - self.cpu)
        self.wall, self.cpu = wall, cpu
        return elapsed


def time_dst_eval(hyps: list[str], refs: list[str], language: str) -> dict:
    from dst_eval.metrics.bleu import (
        corpus_bleu_from_stats,
        segment_statistics,
        sentence_bleu_from_stats,
    )

    clock = Clock()
    stats = segment_statistics(hyps, refs, tokenize=OUR_TOKENIZER[language])
    counting = clock.lap()
    corpus = corpus_bleu_from_stats(stats)
    sentence_mean = float(sentence_bleu_from_stats(stats).mean())
    scoring = clock.lap()
    return {
        "total": [counting[0] + scoring[0], counting[1] + scoring[1]],
        "tokenise_count": list(counting),
        "corpus": corpus,
        "sentence_mean": sentence_mean,
    }


def time_sacrebleu(hyps: list[str], refs: list[str], language: str) -> dict:
    import sacrebleu
    from sacrebleu.metrics.bleu import BLEU

    tokenize = SACREBLEU_TOKENIZER[language]
    clock = Clock()
    corpus = sacrebleu.corpus_bleu(hyps, [refs], tokenize=tokenize).score
    corpus_time = clock.lap()
    metric = BLEU(tokenize=tokenize, effective_order=True)
    reused = statistics.fmean(
        metric.sentence_score(h, [r]).score for h, r in zip(hyps, refs, strict=True)
    )
    reused_time = clock.lap()
    per_call = statistics.fmean(
        sacrebleu.sentence_bleu(h, [r], tokenize=tokenize).score
        for h, r in zip(hyps, refs, strict=True)
    )
    per_call_time = clock.lap()
    return {
        "corpus_bleu": list(corpus_time),
        "reused": list(reused_time),
        "per_call": list(per_call_time),
        "corpus": corpus,
        "sentence_mean": per_call,
        "sentence_mean_reused": reused,
    }


def _fmt(times: list[float]) -> str:
    return f"{times[0]:.2f} s wall / {times[1]:.2f} s cpu"


def sacrebleu_available(language: str) -> bool:
    if language != "ja":
        return True
    try:
        import MeCab  # noqa: F401
    except ImportError:
        return False
    return True


def run_sacrebleu(language: str, n: int, seed: int, ja_python: str | None) -> dict | None:
    if sacrebleu_available(language):
        return time_sacrebleu(*make_corpus(language, n, seed), language)
    if ja_python is None:
        return None
    command = [
        ja_python,
        __file__,
        "--sacrebleu-only",
        language,
        "--n",
        str(n),
        "--seed",
        str(seed),
    ]
    out = subprocess.run(command, capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--ja-python", help="python of a venv with sacrebleu[ja]")
    parser.add_argument("--sacrebleu-only", choices=["zh", "ja"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.sacrebleu_only:  # child mode, in the sacrebleu[ja] venv
        language = args.sacrebleu_only
        print(json.dumps(time_sacrebleu(*make_corpus(language, args.n, args.seed), language)))
        return

    print(f"load average at start: {os.getloadavg()[0]:.2f} ({os.cpu_count()} cpus)")
    for language in ("zh", "ja"):
        runs = []
        for repeat in range(args.repeats):
            seed = args.seed + repeat
            runs.append(time_dst_eval(*make_corpus(language, args.n, seed), language))
        ours = runs[-1]
        theirs = run_sacrebleu(language, args.n, args.seed + args.repeats - 1, args.ja_python)
        print(f"== {language}: {args.n} segments, tokenizer {OUR_TOKENIZER[language]}")
        print("dst-eval tokenise+count, corpus BLEU, mean sentence BLEU (fresh data each run):")
        for number, run in enumerate(runs):
            note = " (library loading included)" if number == 0 else ""
            print(
                f"  run {number + 1}: {_fmt(run['total'])}; tokenise+count "
                f"{_fmt(run['tokenise_count'])}{note}"
            )
        print(f"  corpus BLEU {ours['corpus']:.6f}, mean sentence BLEU {ours['sentence_mean']:.6f}")
        if theirs is None:
            print("  sacrebleu: ja-mecab not installed here (use --ja-python)")
            continue
        print("sacrebleu on the last run's data:")
        print(f"  corpus_bleu {_fmt(theirs['corpus_bleu'])}")
        print(f"  sentence BLEU, one reused BLEU object {_fmt(theirs['reused'])}")
        print(f"  sentence_bleu per call (JMultiWOZ evaluate.py) {_fmt(theirs['per_call'])}")
        print(
            f"  corpus BLEU {theirs['corpus']:.6f}, mean sentence BLEU "
            f"{theirs['sentence_mean']:.6f}"
        )
        same = (
            abs(theirs["corpus"] - ours["corpus"]) < 1e-9
            and abs(theirs["sentence_mean"] - ours["sentence_mean"]) < 1e-9
        )
        ratio = theirs["per_call"][1] / ours["total"][1]
        print(f"  identical to 1e-9: {same}; cpu speed-up vs sentence_bleu per call {ratio:.1f}x")


if __name__ == "__main__":
    main()
