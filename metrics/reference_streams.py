"""sacrebleu's reference layout: a list of reference streams, checked and transposed.

``corpus_bleu(hyps, [stream_a, stream_b])``: stream k holds the k-th reference of every
hypothesis (``None`` where a segment has fewer). dst-eval's internals work per segment
(:func:`~dst_eval.metrics.bleu.segment_statistics`); :func:`per_segment_references`
converts, refusing any layout it would have to guess.
"""

from __future__ import annotations

from collections.abc import Sequence

ReferenceStreams = Sequence[Sequence[str | None]]
"""sacrebleu's layout: a list of reference streams, each a list aligned with the hypotheses
(``None`` where a segment has fewer references)."""


def per_segment_references(hyps: Sequence[str], streams: ReferenceStreams
                           ) -> list[list[str]]:
    """sacrebleu reference streams -> the references of each segment (``None`` dropped).

    A string where a stream is expected (``corpus_bleu(hyps, refs)`` with a flat list of
    strings: one stream or one reference per segment?) and a stream whose length differs
    from ``len(hyps)`` are ``ValueError``s, never guessed (sacrebleu itself would zip the
    characters of the string, or silently truncate).
    """
    if isinstance(streams, str) or not isinstance(streams, Sequence):
        raise ValueError("refs must be a list of reference streams (sacrebleu layout), "
                         f"got {type(streams).__name__}")
    if not len(streams):
        raise ValueError("refs holds no reference stream")
    for k, stream in enumerate(streams):
        if isinstance(stream, str):
            raise ValueError(
                f"refs[{k}] is a string, not a reference stream: refs is a list of streams "
                "(sacrebleu layout); for one reference per hypothesis pass [refs]")
        if not isinstance(stream, Sequence):
            raise ValueError(f"refs[{k}] is a {type(stream).__name__}, not a reference stream "
                             "(a list of strings aligned with the hypotheses)")
        if len(stream) != len(hyps):
            raise ValueError(f"reference stream {k} has {len(stream)} entries for {len(hyps)} "
                             "hypotheses (sacrebleu layout: each stream aligned with hyps)")
    out = []
    for i, column in enumerate(zip(*streams, strict=True)):
        refs = [r for r in column if r is not None]
        bad = [r for r in refs if not isinstance(r, str)]
        if bad:
            raise TypeError(f"reference of segment {i}: expected a string or None, "
                            f"got {type(bad[0]).__name__}")
        out.append(refs)
    return out


def undefined(metric: str, zero_division: str | float) -> float:
    from dst_eval.metrics.canonical import check_zero_division, resolve_zero_division

    check_zero_division(zero_division)
    return resolve_zero_division(float("nan"), metric=metric, zero_division=zero_division,
                                 reason="no segments")
