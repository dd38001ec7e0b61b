"""Running games: the game service (claim, referee, store), the local pool and the Celery app."""
