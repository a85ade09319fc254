"""``dst-eval leaderboard CONFIG``: score every submission of a leaderboard, safely, reproducibly.

A TOML config (``configs/leaderboard_example.toml``) names the gold data, the profile, the
shown metrics, the ranking metric and where submissions live. Each submission is validated
(size, paths, metadata, prediction format), scored with :func:`dst_eval.evaluate` (scores
cached), ranked, and rendered as ``leaderboard.md``, ``leaderboard.json`` and
``leaderboard.html`` (byte-identical on re-run). One module per job:

=================  ======================================================================
``config``         the TOML schema, checked once (usage errors, exit 2)
``submissions``    untrusted submissions: discovery, confinement, sizes, hashes, metadata
``reads``          which files a computation read, recorded where they are opened
``cache``          plain-data cache entries, valid only while all they were computed from is
``scoring``        gold loaded once; each submission scored through the cache
``statistics``     bootstrap resample scores, intervals, paired tests, rank intervals
``board``          rows, ranks, notes: the leaderboard
``render``         Markdown, JSON, HTML and the ``--check`` report
=================  ======================================================================
"""

from dst_eval.leaderboard.board import Leaderboard, build_leaderboard
from dst_eval.leaderboard.config import LeaderboardConfig, Source, load_config
from dst_eval.leaderboard.render import check_report, leaderboard_data, write_outputs
from dst_eval.leaderboard.submissions import check_candidate

__all__ = ["Leaderboard", "LeaderboardConfig", "Source", "build_leaderboard", "check_candidate",
           "check_report", "leaderboard_data", "load_config", "write_outputs"]
