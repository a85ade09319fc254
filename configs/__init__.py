"""Per-corpus and leaderboard TOML configuration (data files; see ``dst_eval.config``)."""
