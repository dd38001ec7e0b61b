"""``python -m tests.workers.short_visibility BROKER NAME``: a real Celery worker (prefork, one
process) of the games app whose Redis visibility timeout is 2 s, restored every second: were a
copy of each delivered message kept in Redis (kombu's acknowledgement emulation), a game longer
than that would have its message delivered again while it is played. The store comes from
``CARDARENA_DB_URL``."""

from __future__ import annotations

import sys

from workers.celery_app import configure


def main() -> None:
    broker, name = sys.argv[1:3]
    app = configure(broker)
    app.conf.broker_transport_options = {**app.conf.broker_transport_options, "visibility_timeout": 2,
                                         "unacked_restore_interval": 1, "unacked_restore_throttle": 1}
    app.worker_main(argv=["worker", "--queues", "cardarena.games", "--loglevel", "INFO", "--hostname", name,
                          "--pool", "prefork", "--concurrency", "1"])


if __name__ == "__main__":
    main()
