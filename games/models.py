# Models for games, daily challenges and attempts.
