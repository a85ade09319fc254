"""``dst-eval validate PRED --gold PATH``: list every problem of a prediction file."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from dst_eval.cli.parser import (
    add_inputs,
    add_min_coverage,
    add_quiet,
    add_strict,
    make_parser,
    options_from,
    read_predictions_arg,
)
from dst_eval.errors import EXIT_OK, UsageError
from dst_eval.escape import one_line


def build_validate_parser() -> argparse.ArgumentParser:
    parser = make_parser("dst-eval validate",
                         "Check a prediction file against the gold data and list every "
                         "problem; exit 3 if any problem is an error or the predictions "
                         "match too few gold dialogues (--min-coverage), as scoring would.")
    add_inputs(parser)
    add_strict(parser)
    add_min_coverage(parser)
    add_quiet(parser)
    return parser


def run_validate(argv: Sequence[str]) -> int:
    args = build_validate_parser().parse_args(argv)
    options = options_from(args)
    if not args.gold:
        raise UsageError("validate needs --gold PATH to check the predictions against")
    from dst_eval.alignment import align
    from dst_eval.api import as_gold, check_coverage

    gold = as_gold(args.gold, options)
    from dst_eval.predictions.bind import bind_to_gold

    predictions = bind_to_gold(read_predictions_arg(args.predictions, gold.corpus, options),
                               gold)
    alignment = align(gold, predictions, strict=options.strict, missing=options.missing)
    summary = alignment.summary()
    print(f"{one_line(predictions.source)}: {predictions.format} format, "
          f"{len(predictions.dialogues)} dialogues; gold {gold.corpus}"
          f"{'/' + gold.split if gold.split else ''}: {summary['gold_dialogues']} dialogues, "
          f"{summary['gold_turns']} turns; coverage {100 * summary['coverage']:.2f}%")
    for issue in alignment.issues:
        print(f"{issue.severity}: {issue}")
    if not alignment.issues:
        print("no problems found")
    check_coverage(gold, alignment.missing_dialogues, predictions.source, options)  # as scoring
    return EXIT_OK
