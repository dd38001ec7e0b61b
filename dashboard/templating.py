"""Jinja2 templates and the filters the pages use (cards, numbers, times, JSON with cards drawn)."""

from __future__ import annotations

import json
import re
from datetime import datetime
from functools import lru_cache
from pathlib import Path
from typing import Any

from fastapi import Request
from fastapi.responses import HTMLResponse
from fastapi.templating import Jinja2Templates
from markupsafe import Markup, escape

from referee.games import spec

TEMPLATES_DIR = Path(__file__).resolve().parent / "templates"
SUIT_SYMBOLS = {"c": "\u2663", "d": "\u2666", "h": "\u2665", "s": "\u2660"}


def card_html(card: str) -> Markup:
    """One card as a small face: rank and suit symbol, red for hearts and diamonds."""
    if card == "Jk":
        return Markup('<span class="card joker" title="joker">JK</span>')
    if len(card) != 2 or card[1] not in SUIT_SYMBOLS:
        return Markup('<span class="card">{}</span>').format(card)
    rank = "10" if card[0] == "T" else card[0]
    colour = "red" if card[1] in "dh" else "black"
    return Markup('<span class="card {}" title="{}">{}{}</span>').format(colour, card, rank, SUIT_SYMBOLS[card[1]])


def cards_html(cards: Any) -> Markup:
    """A list of cards as faces."""
    return Markup("").join(card_html(str(c)) for c in (cards or []))


def json_html(value: Any) -> Markup:
    """Pretty JSON with every card string drawn as a card face."""
    text = str(escape(json.dumps(value, indent=1, ensure_ascii=False)))
    return Markup(re.sub(r"&#34;((?:[2-9TJQKA][cdhs])|Jk)&#34;", lambda m: str(card_html(m.group(1))), text))


def num(value: float | int | None, digits: int = 1, sign: bool = False) -> str:
    """A number for a table cell ("–" for None)."""
    if value is None:
        return "\u2013"
    return f"{value:+.{digits}f}" if sign else f"{value:.{digits}f}"


def change(value: float | int | None, game: str, digits: int = 0) -> str:
    """A score change of ``game`` for a table cell: signed (a gain or a loss) where a higher score
    is better, unsigned where it is not (penalty points, ``GameSpec.higher_score_is_better``)."""
    try:
        signed = spec(game).higher_score_is_better
    except ValueError:
        signed = True
    return num(value, digits, signed)


def lower_note(game: str) -> str:
    """`` (lower is better)`` after a score or change heading of a game whose lower score is better
    (rummy's penalty points, ``GameSpec.higher_score_is_better``); empty otherwise."""
    try:
        return "" if spec(game).higher_score_is_better else " (lower is better)"
    except ValueError:
        return ""


def probability(value: float | None) -> str:
    """A probability as a whole percentage ("–" for None); never 100% or 0% from a finite sample:
    above 99.5% reads ">99%", below 0.5% "<1%"."""
    if value is None:
        return "\u2013"
    if value >= 0.995:
        return ">99%"
    if value < 0.005:
        return "<1%"
    return f"{max(1, min(99, int(100 * value + 0.5)))}%"


def when(value: datetime | None) -> str:
    """A UTC time as ``YYYY-MM-DD HH:MM:SS``."""
    return value.strftime("%Y-%m-%d %H:%M:%S") if value else "\u2013"


def duration(seconds: float | None) -> str:
    """Seconds as ``45 s``, ``12 min 5 s``, ``3 h 20 min`` or ``2 d 4 h`` ("–" for None)."""
    if seconds is None:
        return "\u2013"
    s = max(0, int(round(seconds)))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60} s"
    if s < 86400:
        return f"{s // 3600} h {s % 3600 // 60} min"
    return f"{s // 86400} d {s % 86400 // 3600} h"


@lru_cache
def templates() -> Jinja2Templates:
    """The templates, with the filters registered (built on first use)."""
    t = Jinja2Templates(directory=str(TEMPLATES_DIR))
    t.env.filters.update(card=card_html, cards=cards_html, change=change, duration=duration, json_html=json_html, lower_note=lower_note, num=num,
                         probability=probability, when=when)
    return t


def render(request: Request, name: str, status_code: int = 200, **context: Any) -> HTMLResponse:
    """Render a page template."""
    return templates().TemplateResponse(request, name, context, status_code=status_code)


def render_error(request: Request, status: int, detail: str) -> HTMLResponse:
    """The error page: the status and the one-line message."""
    titles = {404: "Not found", 422: "Bad request", 503: "Store unavailable"}
    return render(request, "error.html", status_code=status, status=status,
                  title=titles.get(status, "Error"), detail=detail)
