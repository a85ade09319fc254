"""The one parser factory of the ``dst-eval`` commands, and the arguments they share.

Scoring options are declared here as plain strings (no ``choices``/``type``): their one
validation is :class:`~dst_eval.options.EvalOptions` (a bad value is a usage error, exit
code 2, before any file is read). Argument names equal the option field names (``--norm``
is ``normalisation``), so :meth:`EvalOptions.from_args` takes the namespace as it is.
"""

from __future__ import annotations

import argparse

from dst_eval.errors import UsageError
from dst_eval.options import (
    BREAKDOWNS,
    DONTCARE_POLICIES,
    MAX_BOOTSTRAP,
    MISSING_POLICIES,
    MWZEVAL_RULES,
    PRED_FORMATS,
)


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one-line usage errors (exit code 2)."""

    def error(self, message: str):  # no usage dump, no SystemExit
        raise UsageError(f"{message} (see {self.prog} --help)")


def make_parser(prog: str, description: str, epilog: str | None = None) -> Parser:
    return Parser(prog=prog, description=description, epilog=epilog,
                  formatter_class=argparse.RawDescriptionHelpFormatter)


def add_inputs(parser: argparse.ArgumentParser, *, many: bool = False) -> None:
    """Predictions, gold and how to read them."""
    if many:
        parser.add_argument("predictions", nargs="+",
                            help="prediction files; the first is the baseline")
    else:
        parser.add_argument("predictions",
                            help="prediction file (JSON/JSONL), SGD-style directory, or - for "
                                 "standard input")
    parser.add_argument("--gold", help="gold data: corpus file, split directory or corpus root")
    parser.add_argument("--corpus", help="multiwoz22, multiwoz21 (multiwoz20, multiwoz24: "
                                         "the other data.json releases), sgd, crosswoz, "
                                         "risawoz, jmultiwoz (detected from --gold when "
                                         "omitted)")
    parser.add_argument("--split",
                        help="split to use when --gold is a corpus root (train, dev, test)")
    parser.add_argument("--pred-format", metavar="FORMAT",
                        help=f"prediction format: {', '.join(PRED_FORMATS)} (detected when "
                             "omitted)")


def add_strict(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--strict", action="store_true",
                        help="turn every prediction problem into an error (exit 3)")


def add_min_coverage(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--min-coverage", metavar="F",
                        help="stop (exit 3) when the predictions match less than this share "
                             "of the gold dialogues (default 0.5; 0 turns the check off)")


def add_scoring(parser: argparse.ArgumentParser, *, breakdowns: bool = True,
                bootstrap: bool = True, resources: bool = True) -> None:
    """The scoring options (each an :class:`~dst_eval.options.EvalOptions` field)."""
    parser.add_argument("--profile", help="scoring profile (default: the corpus's, strict)")
    parser.add_argument("-m", "--metrics", nargs="+", metavar="METRIC",
                        help="metric names to report, space- or comma-separated, in the "
                             "order printed (DST and response metrics; one without a value "
                             "is n/a with its reason; naming no response metric skips "
                             "scoring the responses; default: all)")
    if breakdowns:
        parser.add_argument("--by", help=f"comma-separated breakdowns: {', '.join(BREAKDOWNS)}")
    parser.add_argument("--missing", metavar="POLICY",
                        help=f"missing dialogues/turns ({'/'.join(MISSING_POLICIES)}): "
                             "wrong for every metric (default), scored as empty predictions, "
                             "or skipped as the official scorers silently do")
    add_min_coverage(parser)
    parser.add_argument("--dontcare", metavar="POLICY",
                        help=f"{'/'.join(DONTCARE_POLICIES)}: dontcare is an ordinary value "
                             "(default) or removed on both sides")
    parser.add_argument("--norm", help="value normalisation policy (strict profile), e.g. "
                                       "basic, exact, despace, nfkc+despace, or the name a "
                                       "signature's norm: field prints (basic-v1); each "
                                       "rule once")
    parser.add_argument("--mwzeval-rules", metavar="COMMIT",
                        help=f"mwzeval profile: rule tables of the published leaderboard "
                             f"({MWZEVAL_RULES[0]}, default) or of the latest mwzeval "
                             f"({MWZEVAL_RULES[1]})")
    parser.add_argument("--zero-shot-domain", metavar="DOMAIN",
                        help="zero-shot protocol (TRADE --except_domain): score only the "
                             "dialogues involving DOMAIN and only its slots (coverage is "
                             "checked on those dialogues)")
    if bootstrap:
        parser.add_argument("--bootstrap", metavar="N",
                            help="95%% confidence intervals from N dialogue-level resamples "
                                 f"(2 to {MAX_BOOTSTRAP}; below 40 a note says the interval "
                                 "is not a 95%% one)")
        parser.add_argument("--seed", help="resampling seed (default $DST_EVAL_SEED, "
                                           "$SACREBLEU_SEED or 12345; 'none' for unseeded)")
    if resources:
        group = parser.add_argument_group("response metrics (used when predictions carry "
                                          "responses)")
        group.add_argument("--db", help="database directory (MultiWOZ db/ with *_db.json; "
                                        "default: db/ next to the gold)")
        group.add_argument("--goals", help="MultiWOZ 2.1 data.json or zip with the user goals "
                                           "(needed for Inform/Success on MultiWOZ 2.2 gold)")
        group.add_argument("--references", help="reference responses file (mwzeval format) "
                                                "instead of the gold corpus's")
        group.add_argument("--gold-states", help="gold states file (mwzeval format) for the "
                                                 "policy-optimisation setting")


def add_quiet(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-q", "--quiet", action="store_true",
                        help="no progress display and no messages on stderr (errors excepted)")


def options_from(args: argparse.Namespace):
    """The validated :class:`~dst_eval.options.EvalOptions` of parsed arguments."""
    from dst_eval.options import EvalOptions

    if isinstance(getattr(args, "metrics", None), list):  # -m a b / -m a,b
        args.metrics = ",".join(args.metrics)
    return EvalOptions.from_args(args)


def read_predictions_arg(path: str, corpus: str, options):
    """The predictions named on the command line; ``-`` reads one JSON/JSONL document
    from standard input (as sacrebleu reads its input)."""
    from dst_eval.api import as_predictions

    if path != "-":
        return as_predictions(path, corpus, options)
    import sys

    from dst_eval.predictions.reader import read_predictions_data

    return read_predictions_data(sys.stdin.buffer.read(), source="<stdin>",
                                 pred_format=options.pred_format, corpus=corpus)
