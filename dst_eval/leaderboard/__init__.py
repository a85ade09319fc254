"""Leaderboard scoring."""
