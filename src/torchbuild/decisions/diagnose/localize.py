"""Tool messages translated by the locale put back in English (pure, once the table is read): a log built under
LANG=zh_CN, ru_RU, ja_JP, de_DE... holds gcc's, ld's, glibc's and the shell's messages in that language; the
signatures are written from English output, so the scanner reads each such line with its English msgid in place
(knowledge/data/localized.toml, made from the gettext catalogs the tools ship: scripts/gen-localized-messages)."""

from __future__ import annotations

import functools
import re

from ...knowledge import KnowledgeError, rows


def delocalize(text: str) -> str:
    """``text`` with every translated tool message of knowledge/data/localized.toml replaced by
    its English msgid, and CJK full-width colons by ``": "`` ("致命错误：cuda.h：没有那个文件或目录"
    -> "fatal error: cuda.h: No such file or directory"), so that the signatures, written from
    English output, match a log built under LANG=zh_CN, ru_RU, ja_JP...  The linker's messages that
    move their symbol or library (the ``[[pattern]]`` rows: "对‘X’未定义的引用" -> "undefined reference
    to `X'") are put back first.  The texts come from the gettext catalogs the tools ship
    (scripts/gen-localized-messages)."""
    return _delocalize(text, ascii_only=False)


#: quotes a translation may put around a placeholder ("‘%s’", "« %s »", "“%s”", "`%s'")
_QUOTES = "'\"`‘’«»“”„「」"


def _literal(text: str) -> str:
    """A regex for ``text`` in which each run of white space (French puts no-break spaces inside
    « ») matches any run of white space."""
    return r"\s+".join(re.escape(part) for part in re.split(r"\s+", text))


@functools.lru_cache(maxsize=2)
def _patterns(ascii_only: bool = False) -> tuple[tuple[str, re.Pattern[str], str], ...]:
    """The ``[[pattern]]`` rows of knowledge/data/localized.toml (messages whose translation moves
    their one placeholder, such as GNU ld's "对‘%s’未定义的引用" for "undefined reference to `%s'")
    as ``(fixed, regex, English replacement)``; ``ascii_only``: only the translations that are ASCII.
    ``fixed`` is the longest run of the text without white space ("’未定义的引用"): a line without it
    cannot match, so the regex is not tried there (a log in Chinese has every line delocalized).

    The placeholder matches any text up to the quote after it ("对‘operator delete(void*)’..."), or
    one word where no quote follows it ("找不到 -lc10_cuda").

    :raises KnowledgeError: a row whose texts do not each hold ``%s`` exactly once, or whose
        translation is nothing but the placeholder.
    """
    out = []
    for r in rows("localized", "pattern"):
        local, english = r["localized"], r["english"]
        if local.count("%s") != 1 or english.count("%s") != 1:
            raise KnowledgeError(f"localized.toml: pattern {local!r}: each text must hold %s exactly once")
        if ascii_only and not local.isascii():
            continue
        before, after = local.split("%s")
        quote = after.strip()[:1]
        arg = r"(.+?)" if quote and quote in _QUOTES else r"(\S+)"
        rx = re.compile(_literal(before) + arg + _literal(after))
        fixed = max((w for part in (before, after) for w in part.split()), key=len, default="")
        if not fixed:
            raise KnowledgeError(f"localized.toml: pattern {local!r}: it has no fixed text around %s")
        out.append((fixed, rx, english.replace("\\", "\\\\").replace("%s", r"\g<1>")))
    return tuple(out)


def delocalize_ascii(text: str) -> str:
    """``text`` (an ASCII line that looks like an error) with the translated tool messages that
    are themselves ASCII put back in English: "error fatal: cuda_runtime.h: No existe el fichero o
    el directorio" (gcc and glibc under LANG=es) -> "fatal error: cuda_runtime.h: No such file or
    directory".  Only the rows of knowledge/data/localized.toml marked ``ascii``; :func:`.classify.normalize`
    leaves ASCII lines alone so that an English log is scanned at grep speed, and the scanner calls
    this only on the lines its gate lets through."""
    return _delocalize(text, ascii_only=True)


def _delocalize(text: str, *, ascii_only: bool) -> str:
    """:func:`delocalize` (all rows) or :func:`delocalize_ascii` (``ascii_only``): the ``[[pattern]]``
    rows first (each tried only on a line holding its fixed text), then the ``[[text]]`` rows."""
    for fixed, rx_p, english in _patterns(ascii_only):
        if fixed in text:
            text = rx_p.sub(english, text)
    rx, table = _localized(ascii_only)
    return rx.sub(lambda m: table[m.group(0)], text)


@functools.lru_cache(maxsize=2)
def _localized(ascii_only: bool = False) -> tuple[re.Pattern[str], dict[str, str]]:
    """The localized texts (longest first, as one regex) and their English; ``ascii_only``: only the
    rows marked ``ascii``, without the CJK colon and guillemet replacements."""
    table = {r["localized"]: r["english"] for r in rows("localized", "text") if r.get("ascii") or not ascii_only}
    if not ascii_only:
        table["："] = ": "  # CJK translations put a full-width colon where the English has ": "
        table["«"], table["»"] = "‘", "’"  # GCC's quotes %< %> in ru/uk/fr catalogs are « »
    return re.compile("|".join(re.escape(k) for k in sorted(table, key=len, reverse=True))), table
