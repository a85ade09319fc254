"""Open an HTML page in headless Chromium as a person would: load it, screenshot it, and
collect every error it raises.

How errors are caught (two independent channels; a test fails on either):

1. **An in-page probe.** :func:`render` loads a copy of the page with a small script
   inserted right after ``<head>``, i.e. *before* the page's own Content-Security-Policy
   ``<meta>``: a meta CSP governs only what follows it, so the probe runs while the page
   itself stays script-free. The probe records uncaught exceptions and failed resource
   loads (``window`` ``error`` events in the capture phase), unhandled promise
   rejections, CSP violations (= any attempt to load something) and ``console.error`` /
   ``console.warn`` calls. On ``load`` (and on every later error) it writes them, with
   what it measured (title, rendered plots and their size, page width), as JSON into a
   ``<script type="application/json" id="dst-eval-probe">`` element; ``--dump-dom`` prints
   the DOM after loading and we parse that element. No element = the page never loaded.
2. **Chromium's own log.** ``--enable-logging=stderr --v=0`` logs every console message
   as a ``CONSOLE`` line (``INFO:CONSOLE(12)`` or ``INFO:CONSOLE:12`` depending on the
   version). The pages log nothing, so any such line, or any ``Uncaught``, is a failure.

The network is cut (``--host-resolver-rules=MAP * ~NOTFOUND``): a page that needs a CDN,
web font or remote image shows it as errors in both channels.

Chromium: ``$DST_EVAL_CHROMIUM`` or ``chromium`` / ``chromium-browser`` /
``google-chrome`` on PATH. Tests skip without it unless ``DST_EVAL_REQUIRE_BROWSER=1``
(CI), where a missing browser fails. ``$DST_EVAL_SCREENSHOT_DIR``, when set, receives a
copy of every screenshot (CI artifacts).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import struct
import subprocess
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

PROBE_ID = "dst-eval-probe"
PROBE = """<script>
(function () {
  var errors = [];
  function text(v) { try { return String(v); } catch (e) { return "?"; } }
  function report() {
    var plots = Array.prototype.map.call(document.querySelectorAll("figure.plot svg"),
      function (svg) {
        var box = svg.getBoundingClientRect();
        return {width: box.width, height: box.height,
                texts: svg.querySelectorAll("text").length,
                shapes: svg.querySelectorAll("path, rect").length};
      });
    var data = {loaded: true, errors: errors, title: document.title, plots: plots,
                sections: Array.prototype.map.call(document.querySelectorAll("section[id]"),
                  function (s) { return s.id; }),
                tables: document.querySelectorAll("table").length,
                text: document.body.innerText,
                scrollWidth: document.documentElement.scrollWidth,
                innerWidth: window.innerWidth};
    var node = document.getElementById("PROBE_ID");
    if (!node) {
      node = document.createElement("script");
      node.type = "application/json";
      node.id = "PROBE_ID";
      document.body.appendChild(node);
    }
    node.textContent = JSON.stringify(data).replace(/</g, "\\\\u003c");  // no closing tag in text
  }
  window.addEventListener("error", function (e) {
    var t = e.target;
    errors.push(t && t !== window ? "resource failed: <" + t.tagName + "> " +
                (t.src || t.href || "") : "uncaught: " + e.message);
    if (document.readyState === "complete") report();
  }, true);
  window.addEventListener("unhandledrejection", function (e) {
    errors.push("unhandled rejection: " + text(e.reason));
  });
  document.addEventListener("securitypolicyviolation", function (e) {
    errors.push("CSP violation: " + e.violatedDirective + " " + e.blockedURI);
    if (document.readyState === "complete") report();
  });
  ["error", "warn"].forEach(function (level) {
    var original = console[level];
    console[level] = function () {
      errors.push("console." + level + ": " + Array.prototype.map.call(arguments, text).join(" "));
      return original.apply(console, arguments);
    };
  });
  window.addEventListener("load", report);
})();
</script>
""".replace("PROBE_ID", PROBE_ID)

CONSOLE_LINE = re.compile(r":CONSOLE[(:]\d*|Uncaught")
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-quic", "--no-first-run", "--disable-component-update", "--disable-sync",
         "--disable-extensions", "--host-resolver-rules=MAP * ~NOTFOUND",
         "--enable-logging=stderr", "--v=0", "--hide-scrollbars")


@dataclass
class BrowserRun:
    probe: dict[str, Any]
    """What the in-page probe wrote (``errors``, ``plots``, ``title``...)."""
    console: list[str]
    """Console lines from Chromium's log (none expected)."""
    screenshot: Path
    stderr: str


def chromium_path() -> str | None:
    for candidate in (os.environ.get("DST_EVAL_CHROMIUM"), "chromium", "chromium-browser",
                      "google-chrome"):
        if candidate and (found := shutil.which(candidate)):
            return found
    return None


def chromium_or_skip() -> str:
    """The browser, or skip (fail under ``DST_EVAL_REQUIRE_BROWSER=1``)."""
    path = chromium_path()
    if path is None:
        reason = ("no Chromium found (install Debian's `chromium` or set DST_EVAL_CHROMIUM) "
                  "for the browser test of the HTML pages")
        if os.environ.get("DST_EVAL_REQUIRE_BROWSER") == "1":
            pytest.fail(reason + "; DST_EVAL_REQUIRE_BROWSER=1 forbids skipping")
        pytest.skip(reason)
    return path


def with_probe(page: str) -> str:
    """``page`` with the probe script inserted right after ``<head>``."""
    head = re.search(r"<head[^>]*>", page)
    if head is None:
        raise ValueError("the page has no <head>")
    return page[: head.end()] + "\n" + PROBE + page[head.end():]


def render(chromium: str, page: str, workdir: Path, *, name: str = "page",
           size: tuple[int, int] = (1280, 2000), timeout: float = 120) -> BrowserRun:
    """Load ``page`` (HTML text) in headless Chromium; screenshot it and collect errors."""
    workdir.mkdir(parents=True, exist_ok=True)
    html_path = workdir / f"{name}.probed.html"
    html_path.write_text(with_probe(page), encoding="utf-8")
    screenshot = workdir / f"{name}.png"
    command = [chromium, *FLAGS, f"--user-data-dir={workdir / f'{name}-profile'}",
               f"--window-size={size[0]},{size[1]}", f"--screenshot={screenshot}",
               "--virtual-time-budget=3000", "--dump-dom", html_path.resolve().as_uri()]
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout,
                          check=False, stdin=subprocess.DEVNULL)
    if done.returncode != 0:
        raise AssertionError(f"chromium exited with {done.returncode}: "
                             f"{done.stderr[-2000:]}")
    match = re.search(rf'<script type="application/json" id="{PROBE_ID}">(.*?)</script>',
                      done.stdout, re.S)
    probe = json.loads(match.group(1)) if match else {"loaded": False, "errors": []}
    console = [line for line in done.stderr.splitlines() if CONSOLE_LINE.search(line)]
    if target := os.environ.get("DST_EVAL_SCREENSHOT_DIR"):
        Path(target).mkdir(parents=True, exist_ok=True)
        if screenshot.exists():
            shutil.copy(screenshot, Path(target) / screenshot.name)
    return BrowserRun(probe=probe, console=console, screenshot=screenshot, stderr=done.stderr)


def png_size_and_colours(path: Path) -> tuple[int, int, int]:
    """``(width, height, distinct byte values in the decompressed image data)`` of a PNG;
    a blank screenshot has only a handful of distinct values."""
    data = path.read_bytes()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise AssertionError(f"{path} is not a PNG")
    width, height = struct.unpack(">II", data[16:24])
    position, idat = 8, b""
    while position < len(data):
        length = struct.unpack(">I", data[position:position + 4])[0]
        kind = data[position + 4:position + 8]
        if kind == b"IDAT":
            idat += data[position + 8:position + 8 + length]
        position += 12 + length
    return width, height, len(set(zlib.decompress(idat)))
