"""The dashboard: standings, bot pages, game lists and replays over the store (FastAPI).

``dashboard.main.create_app(settings)`` builds the app; ``cardarena server`` serves it.
"""
