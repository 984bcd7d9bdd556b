"""The leaderboard's reads, one module per job.

- ``boards``: a day's challenge, board pages, a player's rank and neighbourhood (Redis, or PostgreSQL).
- ``ranks``: a result's place on its board, its hold, its share text, a submission's result.
- ``days``: a player's day over every game, and the day as one share.
- ``profiles``: a player's profile (statistics and latest results).
- ``stats``: a player's statistics per game (streaks, records, the distribution).
"""
