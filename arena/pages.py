"""The submission pages, served beside the dashboard (``cardarena server``) with the Arena's HTTP API.

- ``GET /arena/submit``: upload a bot's code (an archive: .tar, .tar.gz or .zip with ``cardarena.toml``):
  a new name registers a hosted bot and shows its token once; a registered bot's token submits a new
  version. The build log and the entry checks are shown on the page.
- ``GET /arena/logs``: a hosted bot's build log, or what it wrote in one game, for its author (token).

The pages are plain HTML with a little JavaScript that calls the HTTP API (``arena.http``: ``PUT
/api/v1/arena/bots/{name}/code``, ``GET .../log``, ``GET /api/v1/arena/games/{id}/output``) with the
token in the ``Authorization`` header; the token never goes into a URL. They belong to the Arena,
which writes, not to the dashboard, which only reads (``docs/design.md``, *Layers*); the dashboard's
bot and replay pages link here.
"""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import HTMLResponse

from referee.games import games

router = APIRouter(prefix="/arena", tags=["arena pages"], include_in_schema=False)

_HEAD = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title} · cardarena</title><link rel="stylesheet" href="/static/style.css"></head>
<body><header class="top"><a class="brand" href="/">cardarena</a><nav><a href="/">Seasons</a>
<a href="/ladders">Ladders</a><a href="/bots">Bots</a><a href="/games">Games</a><a href="/arena/submit">Submit</a>
<a href="/api">API</a></nav></header><main>"""
_TAIL = "</main></body></html>"

_SUBMIT = """<h1>Submit your bot's code</h1>
<p>The platform runs your bot itself, in a sandbox on its workers: no server to keep up, the same CPU for every
bot (rules §4.12). Upload your bot's files as a <code>.tar.gz</code>, <code>.tar</code> or <code>.zip</code> with
a <code>cardarena.toml</code> at its root (the guide <code>docs/writing-a-bot.md</code>, "Submit your code", says
what to write; <code>cardarena bot submit</code> does the same from a shell). A new name registers a new bot and shows its
token once; with a registered bot's token, the files become its new version.</p>
<form id="submit-form" class="filters">
<label>Bot name <input name="name" required maxlength="40" pattern="[A-Za-z0-9_.\\-]{{1,40}}"></label>
<label>Token <input name="token" type="password" autocomplete="off" placeholder="empty for a new bot"></label>
<fieldset><legend>Games</legend>{games}</fieldset>
<label>Archive <input name="archive" type="file" required accept=".tar,.gz,.tgz,.zip"></label>
<button type="submit">Submit</button>
</form>
<p id="submit-status" class="muted"></p>
<pre id="submit-result" class="log"></pre>
<script>
document.getElementById("submit-form").addEventListener("submit", async (event) => {{
  event.preventDefault();
  const form = event.target, status = document.getElementById("submit-status"),
        result = document.getElementById("submit-result");
  const games = [...form.querySelectorAll("input[name=game]:checked")].map((box) => box.value);
  const query = games.map((g) => "game=" + encodeURIComponent(g)).join("&");
  const headers = {{"Content-Type": "application/octet-stream"}};
  if (form.token.value) headers["Authorization"] = "Bearer " + form.token.value;
  status.textContent = "Building and checking (a Python bot's requirements are installed first)...";
  result.textContent = "";
  const answer = await fetch("/api/v1/arena/bots/" + encodeURIComponent(form.name.value) + "/code?" + query,
                             {{method: "PUT", headers, body: form.archive.files[0]}});
  const body = await answer.json();
  if (!answer.ok) {{
    status.textContent = "Refused (" + answer.status + "): " + body.detail;
    result.textContent = (body.report ? body.report.checks.map((c) => (c.passed ? "ok   " : "FAIL ") + c.name + "  "
      + c.detail).join("\\n") + "\\n\\n" : "") + (body.log || "");
    return;
  }}
  status.textContent = (body.changed ? "Submitted: " : "Unchanged: ") + body.bot.name + " version " + body.sha256
    + " (" + body.size + " bytes)" + (body.token ? ". Its token, shown only now: " + body.token : "");
  result.textContent = body.build_log;
}});
</script>"""

_LOGS = """<h1>Your hosted bot's logs</h1>
<p>The build log of your bot's current version, or what it wrote (stdout and stderr) in one game, shown once the
game is done and its duplicate group played. Only the bot's author, with its token, may read them.</p>
<form id="logs-form" class="filters">
<label>Bot name <input name="name" required maxlength="40"></label>
<label>Token <input name="token" type="password" autocomplete="off" required></label>
<label>Game <input name="game" inputmode="numeric" pattern="[0-9]*" placeholder="empty: the build log"></label>
<button type="submit">Show</button>
</form>
<p id="logs-status" class="muted"></p>
<pre id="logs-result" class="log"></pre>
<script>
const params = new URLSearchParams(location.search);
const logsForm = document.getElementById("logs-form");
if (params.get("bot")) logsForm.name.value = params.get("bot");
if (params.get("game")) logsForm.game.value = params.get("game");
logsForm.addEventListener("submit", async (event) => {{
  event.preventDefault();
  const form = event.target, status = document.getElementById("logs-status"),
        result = document.getElementById("logs-result");
  const headers = {{"Authorization": "Bearer " + form.token.value}};
  const name = encodeURIComponent(form.name.value);
  const url = form.game.value ? "/api/v1/arena/games/" + form.game.value + "/output?bot=" + name
                              : "/api/v1/arena/bots/" + name + "/log";
  const answer = await fetch(url, {{headers}});
  const body = await answer.json();
  if (!answer.ok) {{ status.textContent = "Refused (" + answer.status + "): " + body.detail; result.textContent = ""; return; }}
  if (form.game.value) {{
    status.textContent = "Game " + body.game_id + ": " + body.outputs.length + " seat(s)";
    result.textContent = body.outputs.map((o) => "--- seat " + o.seat + (o.truncated ? " (cut)" : "") + " ---\\n"
      + o.text).join("\\n") || "(nothing written)";
  }} else {{
    status.textContent = body.sha256 ? "Version " + body.sha256 + ", built " + body.built_at : "A remote bot: no build";
    result.textContent = body.build_log || "";
  }}
}});
</script>"""


def _page(title: str, body: str) -> HTMLResponse:
    return HTMLResponse(_HEAD.format(title=title) + body + _TAIL)


@router.get("/submit", response_class=HTMLResponse)
def submit_page() -> HTMLResponse:
    """The upload form."""
    boxes = "".join(f'<label><input type="checkbox" name="game" value="{g}"> {g}</label> ' for g in games())
    return _page("Submit a bot", _SUBMIT.format(games=boxes))


@router.get("/logs", response_class=HTMLResponse)
def logs_page() -> HTMLResponse:
    """The author's logs (``?bot=NAME&game=ID`` fill the form)."""
    return _page("Bot logs", _LOGS.format())
