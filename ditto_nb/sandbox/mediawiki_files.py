"""The files :mod:`ditto_nb.sandbox.mediawiki` writes: router, settings, XML export; title rules.

- ``ROUTER_PHP``: the router script of PHP's built-in web server (``/wiki/<Title>`` → the
  article through ``index.php``, ``/w/<entry>.php`` → that entry point, other ``/w/`` files
  served as static files); it appends ``[<status>]: <METHOD> <URI>`` to the access log
  for every request it handles.
- :func:`settings_php`: settings appended to the installer's ``LocalSettings.php`` (short URLs,
  every writable path inside the output folder, no uploads, mail or job runs on requests).
- :func:`dump_xml`: a MediaWiki XML export (format 0.11,
  https://www.mediawiki.org/xml/export-0.11.xsd) for ``maintenance/importDump.php``.
- :func:`wiki_title`: a title as MediaWiki stores it, or None when MediaWiki cannot hold it
  (https://www.mediawiki.org/wiki/Manual:Page_title).
"""

from __future__ import annotations

import html
import re
import socket
import ssl
import xml.etree.ElementTree as ET
from collections.abc import Mapping
from pathlib import Path

ROUTER_PHP = r"""<?php
// Router of PHP's built-in web server for the ditto_nb test wiki (written by ditto_nb).
$_SERVER['HTTPS'] = 'on';  // served behind a TLS front: MediaWiki must build https URLs
$path = parse_url($_SERVER['REQUEST_URI'], PHP_URL_PATH) ?: '/';
$mw = '@MEDIAWIKI_DIR@';
$uri = $_SERVER['REQUEST_URI'];
$method = $_SERVER['REQUEST_METHOD'];
register_shutdown_function(function () use ($uri, $method) {
    // One access-log line per request: "[<status>]: <METHOD> <URI>".
    file_put_contents('@ACCESS_LOG@', sprintf("[%03d]: %s %s\n", http_response_code() ?: 200, $method, $uri),
        FILE_APPEND | LOCK_EX);
});
if ($path === '/' || $path === '/wiki' || $path === '/wiki/') {
    header('Location: /wiki/Main_Page', true, 301);
    return true;
}
if (strncmp($path, '/wiki/', 6) === 0) {
    $script = '/w/index.php';
} elseif (preg_match('#^/w/([A-Za-z_]+\.php)$#', $path, $m)) {
    $script = '/w/' . $m[1];
} elseif (strncmp($path, '/w/', 3) === 0 && substr($path, -4) !== '.php') {
    return false;  // static file (docroot/w links to the MediaWiki tree)
} else {
    $script = null;
}
$file = $script === null ? null : $mw . substr($script, 2);
if ($file === null || !is_file($file)) {
    http_response_code(404);
    header('Content-Type: text/plain; charset=utf-8');
    echo "Not found\n";
    return true;
}
$_SERVER['SCRIPT_NAME'] = $script;
$_SERVER['PHP_SELF'] = $script;
$_SERVER['SCRIPT_FILENAME'] = $file;
chdir($mw);
require $file;
return true;
"""

_NAMESPACE_PREFIXES = frozenset({
    "media", "special", "talk", "user", "user talk", "project", "project talk", "file", "file talk", "image",
    "image talk", "mediawiki", "mediawiki talk", "template", "template talk", "help", "help talk", "category",
    "category talk", "ditto wiki", "ditto wiki talk",
})
_BAD_TITLE = re.compile(r"[#<>\[\]|{}\x00-\x1f\x7f\ufffd]|%[0-9A-Fa-f]{2}|&[A-Za-z0-9#]+;|~~~|(^|/)\.\.?(/|$)")
_MARKUP = re.compile(r"[\[\]{}<>|&]|''|~~~|__|^[*#:;= -]|^-{4}")
_TIMESTAMP = "2024-01-01T00:00:00Z"


def settings_php(folder: Path) -> str:
    """The ``DittoSettings.php`` required at the end of ``LocalSettings.php``.

    Args:
        folder: the site's output folder (every writable path points inside it).

    Returns:
        PHP source. It also includes ``ServerSettings.php`` (``$wgServer`` with the current
        port, written at each start) when present.
    """
    path = str(folder).replace("\\", "\\\\").replace("'", "\\'")
    return f"""<?php
// Written by ditto_nb.sandbox.mediawiki: a local, read-only test wiki.
$wgArticlePath = '/wiki/$1';
$wgUploadDirectory = '{path}/images';
$wgCacheDirectory = '{path}/cache';
$wgTmpDirectory = '{path}/tmp';
$wgEnableUploads = false;
$wgUseInstantCommons = false;
$wgEnableEmail = false;
$wgEnableUserEmail = false;
$wgJobRunRate = 0;
$wgGroupPermissions['*']['edit'] = false;
$wgGroupPermissions['*']['createaccount'] = false;
$wgShowExceptionDetails = true;
wfLoadSkin('Vector');
$wgDefaultSkin = 'vector';
if (is_file(__DIR__ . '/ServerSettings.php')) {{
    require __DIR__ . '/ServerSettings.php';
}}
"""


def wiki_title(title: str) -> str | None:
    """Return ``title`` as MediaWiki stores it (spaces, first letter upper-case), or None.

    None when MediaWiki cannot hold it in the main namespace: empty, longer than 255 bytes,
    characters ``# < > [ ] | { }``, control characters, percent or HTML-entity sequences
    (HTML entities are unescaped first: HotpotQA has ``Etiquette &amp; Espionage``), ``~~~``,
    relative path parts, a leading colon or a namespace prefix.

    Args:
        title: a page title such as ``Kiss_and_Tell (1945 film)``.

    Returns:
        e.g. ``Kiss and Tell (1945 film)``.
    """
    text = " ".join(html.unescape(title).replace("_", " ").split())
    if not text or len(text.encode("utf-8")) > 255 or text.startswith(":") or _BAD_TITLE.search(text):
        return None
    if ":" in text and text.split(":", 1)[0].strip().lower() in _NAMESPACE_PREFIXES:
        return None
    return text[0].upper() + text[1:]


def wikitext(paragraphs: list[str]) -> str:
    """Plain paragraphs as wikitext: blank-line separated; one holding markup is wrapped in ``<nowiki>``."""
    out = []
    for paragraph in paragraphs:
        text = " ".join(paragraph.split())
        if text:
            out.append(f"<nowiki>{text}</nowiki>" if _MARKUP.search(text) else text)
    return "\n\n".join(out)


def dump_xml(pages: Mapping[str, list[str]]) -> str:
    """A MediaWiki XML export (format 0.11) with one revision per page.

    Args:
        pages: ``{title: paragraphs}`` (titles already in :func:`wiki_title` form).

    Returns:
        The XML document as text.
    """
    root = ET.Element("mediawiki", {
        "xmlns": "http://www.mediawiki.org/xml/export-0.11/", "version": "0.11",
        "{http://www.w3.org/XML/1998/namespace}lang": "en",
    })
    for title, paragraphs in pages.items():
        page = ET.SubElement(root, "page")
        ET.SubElement(page, "title").text = title
        ET.SubElement(page, "ns").text = "0"
        revision = ET.SubElement(page, "revision")
        ET.SubElement(revision, "timestamp").text = _TIMESTAMP
        ET.SubElement(ET.SubElement(revision, "contributor"), "username").text = "Admin"
        ET.SubElement(revision, "model").text = "wikitext"
        ET.SubElement(revision, "format").text = "text/x-wiki"
        text = ET.SubElement(revision, "text", {"{http://www.w3.org/XML/1998/namespace}space": "preserve"})
        text.text = wikitext(paragraphs)
    return ET.tostring(root, encoding="unicode")


def probe_api(host: str, port: int, ca_path: Path, timeout: float = 5.0) -> str:
    """Ask the wiki's API for its site info over HTTPS on 127.0.0.1 (SNI and certificate: ``host``).

    Args:
        host: the ``.test`` host name.
        port: the HTTPS port on 127.0.0.1.
        ca_path: the CA bundle that issued the server certificate.
        timeout: seconds for the connection and each read.

    Returns:
        ``""`` when the API answered HTTP 200 with a ``query`` object, else what went wrong.
    """
    context = ssl.create_default_context(cafile=str(ca_path))
    request = (
        f"GET /w/api.php?action=query&meta=siteinfo&format=json HTTP/1.1\r\nHost: {host}:{port}\r\n"
        "Connection: close\r\n\r\n"
    ).encode("ascii")
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout) as raw:
            with context.wrap_socket(raw, server_hostname=host) as tls:
                tls.sendall(request)
                reply = b""
                while chunk := tls.recv(65536):
                    reply += chunk
    except (OSError, ssl.SSLError) as exc:
        return f"{type(exc).__name__}: {exc}"
    head, _, body = reply.partition(b"\r\n\r\n")
    status = head.split(b"\r\n", 1)[0].decode("latin-1")
    if " 200 " not in f"{status} " or b'"query"' not in body:
        return f"unexpected reply {status!r}: {body[:300]!r}"
    return ""


__all__ = ["ROUTER_PHP", "dump_xml", "probe_api", "settings_php", "wiki_title", "wikitext"]
