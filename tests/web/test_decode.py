"""Charset precedence: header, BOM, meta, detection (never a Latin-1 default)."""

from __future__ import annotations

import codecs

from ditto_nb.web.decode import charset_of, decode_html, media_type_of


def test_header_charset_wins() -> None:
    body = '<meta charset="utf-8"><p>caf\u00e9</p>'.encode("cp1252")
    text, codec = decode_html(body, "text/html; charset=windows-1252")
    assert "caf\u00e9" in text and codec == "cp1252"


def test_utf8_without_any_charset_is_not_latin1() -> None:
    text, codec = decode_html("<p>It\u2019s here</p>".encode(), "text/html")
    assert "\u2019" in text and codec == "utf-8"
    assert "\u00e2\u20ac" not in text  # the mojibake a Latin-1 guess would produce


def test_bom_beats_meta() -> None:
    body = codecs.BOM_UTF8 + '<meta charset="gb2312"><p>\u2019</p>'.encode()
    text, codec = decode_html(body, "text/html")
    assert codec == "utf-8" and "\u2019" in text and not text.startswith("\ufeff")
    utf16 = codecs.BOM_UTF16_LE + "<p>h\u00e9</p>".encode("utf-16-le")
    assert decode_html(utf16, None)[0] == "<p>h\u00e9</p>"


def test_meta_charset_gb2312_with_bare_header() -> None:
    body = '<html><head><meta charset=gb2312><title>\u94dc\u9547</title></head></html>'.encode("gb2312")
    text, codec = decode_html(body, "text/html")
    assert "<title>\u94dc\u9547</title>" in text and codec == "gbk"


def test_meta_http_equiv() -> None:
    body = '<meta http-equiv="Content-Type" content="text/html; charset=Shift_JIS"><p>\u65e5\u672c</p>'.encode("shift_jis")
    assert "\u65e5\u672c" in decode_html(body, None)[0]


def test_detection_for_undeclared_legacy_bytes() -> None:
    sentence = "\u0417\u0434\u0440\u0430\u0432\u0441\u0442\u0432\u0443\u0439\u0442\u0435, \u044d\u0442\u043e \u0442\u0435\u043a\u0441\u0442 \u043d\u0430 \u0440\u0443\u0441\u0441\u043a\u043e\u043c \u044f\u0437\u044b\u043a\u0435. "
    body = ("<p>" + sentence * 8 + "</p>").encode("cp1251")
    text, codec = decode_html(body, "text/html")
    assert sentence.strip() in text, codec


def test_unknown_header_charset_falls_through() -> None:
    text, _ = decode_html("<p>\u2019</p>".encode(), "text/html; charset=bogus-charset")
    assert "\u2019" in text


def test_content_type_helpers() -> None:
    assert media_type_of("Text/HTML; charset=UTF-8") == "text/html"
    assert media_type_of(None) is None and media_type_of("  ") is None
    assert charset_of('text/html; charset="ISO-8859-1"') == "iso-8859-1"
    assert charset_of("text/html") is None
