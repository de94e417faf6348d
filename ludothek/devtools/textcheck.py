"""Every text key the code uses is in every catalogue: ``python -m ludothek.devtools.textcheck``.

The ``.po`` catalogues are the only home of the interface texts, and `ludothek.texts.t` shows the
key itself for a text nobody wrote.  This check finds that gap before a visitor does: it reads the
Python code (by its syntax tree) and the Jinja templates (by pattern) under ``ludothek/`` and
collects every key that reaches a text function (`TEXT_FUNCTIONS`):

- a literal key: ``t("new_game", lang)``, ``tn("tc_move", n, lang)``, ``{{ tr('login') }}``,
  ``{{ trn('friends_count', n) }}``;
- a key built from a prefix and a value: ``t("bot_level_" + bot, lang)``, ``t(f"err_{key}", lang)``,
  ``tr('report_' ~ r)``.  Each prefix needs an entry in `FAMILIES` naming where its values are
  written (module constants, keyword arguments, class attributes), found anywhere in the tree by
  name so that moving code around does not break the check; an undeclared prefix is an error;
- keys kept in a constant and passed on in a variable (`KEY_CONSTANTS`, e.g. the replay speeds).

It also reads the catalogues themselves: a count (a placeholder of `COUNT_PLACEHOLDERS`, such as
``{n}`` or ``{seconds}``) followed by a word in a message without plural forms would read "1 seconds"
or "1 Tage" for some count, so such a message must be a plural entry used through ``tn``/``trn``
(`counts_outside_plurals`).  Words that never change after a number (`INVARIANT_AFTER_COUNT`: unit
abbreviations, "bis", "or") are allowed.

Exit status 1 when a key is missing from a language's catalogue (except in an optional family, whose
missing keys fall back by design and are only listed), when a prefix is undeclared, when a
declared source is found nowhere, or when a count stands before a word in a non-plural message.  ``--verbose`` also lists those refusals and the catalogue keys
nothing seems to use (information only: a key may be used in a way this check cannot see).
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import ludothek
from ludothek.texts import LANGS, catalogs

ROOT = Path(ludothek.__file__).parent

#: The functions that take a text key first: `t`/`tn` in Python, `tr`/`trn` (and `t`/`tn`) in templates.
TEXT_FUNCTIONS = ("t", "tn", "tr", "trn")
#: Functions that take a text key further along their arguments: name -> the key's position
#: (``redirect_with_notice(request, "/account", "mail_prefs_saved")`` shows it on the next page).
KEY_ARGUMENT_FUNCTIONS = {"redirect_with_notice": 2}


@dataclass(frozen=True)
class Family:
    """Where the values of a ``prefix + value`` key are written down."""

    #: Module-level constants (tuple, list, set, or dict: its values) holding the values.
    constants: tuple[str, ...] = ()
    #: Keyword arguments (``left_as="resigned"``) or ``params["name"] = "value"`` items with the values.
    keywords: tuple[str, ...] = ()
    #: Class attributes (``code = "not_found"``) with the values.
    class_attributes: tuple[str, ...] = ()
    #: A missing key falls back by design (a refusal shows the store's English message instead).
    optional: bool = False


#: Every prefix the code builds keys from, and where the values of the rest are written.
FAMILIES: dict[str, Family] = {
    "bot_level_": Family(constants=("PORTAL_BOTS", "BOT_LEVELS")),
    "report_": Family(constants=("REPORT_REASONS",)),
    "mail_turns_": Family(constants=("TURN_MODES",)),
    "rules_": Family(constants=("RULE_MODES",)),
    "left_": Family(keywords=("left_as",)),
    "webhook_status_": Family(constants=("WEBHOOK_STATUSES",)),
    "webhook_reason_": Family(constants=("WEBHOOK_REASONS",)),
    "webhook_format_": Family(constants=("WEBHOOK_FORMATS",)),
    "channel_": Family(constants=("CHANNEL_NAMES",)),
    "notice_kind_": Family(constants=("NOTICE_KINDS",)),
    "result_left_": Family(keywords=("left_as",)),
    "err_": Family(constants=("CODE_KEYS",), keywords=("code_key",), class_attributes=("code",), optional=True),
}

#: Constants whose key-shaped strings (not "0.5") reach a text function through a variable (``tr(key)``).
KEY_CONSTANTS = ("SPEEDS",)

#: Placeholders that carry a count; before a word they need a plural entry (see `counts_outside_plurals`).
COUNT_PLACEHOLDERS = frozenset({
    "n", "count", "minutes", "seconds", "days", "hours", "age", "entries", "undos", "limit", "max", "left",
    "start", "length", "total", "most", "add", "games", "moves", "people",
})
#: Words a count may stand before in a non-plural message: unit abbreviations and words that do not
#: change with the number ("{d} d {h} h", "{low} bis {high}", "{n} or more").
INVARIANT_AFTER_COUNT = frozenset({
    "d", "h", "min", "s", "T.", "Std.", "Min.", "bis", "to", "or", "oder", "and", "und", "of", "von",
    "der", "die", "das", "the", "×", "are", "fit", "on", "per", "pro", "werden", "passen", "angehalten",
})
#: A count before a noun: German writes every noun with a capital, so the German catalogue shows them all.
_COUNT_BEFORE_WORD = re.compile(r"\{(\w+)\}\s+([^\W\d_][\w.]*)")
NOUN_LANG = "de"

KEY = r"[A-Za-z][A-Za-z0-9_]*"
KEY_SHAPE = re.compile(KEY)
_CALL = rf"(?<![\w.])(?:{'|'.join(TEXT_FUNCTIONS)})\(\s*"
TEMPLATE_LITERAL = re.compile(rf"{_CALL}(['\"])({KEY})\1\s*[,)]")
TEMPLATE_PREFIX = re.compile(rf"{_CALL}(['\"])({KEY})\1\s*~")
TEMPLATE_CHOICE = re.compile(rf"{_CALL}(['\"])({KEY})\1\s+if\s[^()]*?\selse\s+(['\"])({KEY})\3")


@dataclass
class Usage:
    """What the tree does with text keys."""

    keys: dict[str, set[str]] = field(default_factory=dict)  # key -> places ("file:line")
    prefixes: dict[str, set[str]] = field(default_factory=dict)  # prefix -> places
    constants: dict[str, set[str]] = field(default_factory=dict)  # constant name -> its strings
    keywords: dict[str, set[str]] = field(default_factory=dict)  # keyword / params item -> literal values
    class_attributes: dict[str, set[str]] = field(default_factory=dict)  # attribute -> literal values

    def use(self, key: str, place: str) -> None:
        self.keys.setdefault(key, set()).add(place)

    def use_prefix(self, prefix: str, place: str) -> None:
        self.prefixes.setdefault(prefix, set()).add(place)


@dataclass
class Report:
    """The outcome of a check; `failed` when a key is missing or a prefix undeclared."""

    missing: dict[str, dict[str, set[str]]]  # lang -> key -> places
    optional_missing: dict[str, set[str]]  # lang -> keys (fall back by design)
    undeclared: dict[str, set[str]]  # prefix -> places
    unfound: list[str]  # declared sources found nowhere
    unused: set[str]  # catalogue keys nothing seems to use
    counts: dict[str, set[str]] = field(default_factory=dict)  # lang -> "key: {n} word" outside plural entries

    @property
    def failed(self) -> bool:
        return bool(any(self.missing.values()) or self.undeclared or self.unfound or any(self.counts.values()))


def strings_in(value: object) -> Iterator[str]:
    """The strings in a literal: a dict's values, a sequence's items, nested."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings_in(item)
    elif isinstance(value, list | tuple | set | frozenset):
        for item in value:
            yield from strings_in(item)


def _literal_strings(node: ast.expr) -> set[str]:
    try:
        return set(strings_in(ast.literal_eval(node)))
    except (ValueError, TypeError):  # not a literal: ``tuple(sorted(...))``
        return set()


def scan_python(source: str, place: str, usage: Usage) -> None:
    """Collect keys, prefixes and value sources from one Python module."""
    tree = ast.parse(source)
    wanted_constants = {c for f in FAMILIES.values() for c in f.constants} | set(KEY_CONSTANTS)
    wanted_keywords = {k for f in FAMILIES.values() for k in f.keywords}
    wanted_attributes = {a for f in FAMILIES.values() for a in f.class_attributes}
    for stmt in tree.body:  # module-level constants
        name, value = _assignment(stmt)
        if name in wanted_constants and value is not None:
            usage.constants.setdefault(name, set()).update(_literal_strings(value))
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            for stmt in node.body:
                name, value = _assignment(stmt)
                if name in wanted_attributes and isinstance(value, ast.Constant) and isinstance(value.value, str):
                    usage.class_attributes.setdefault(name, set()).add(value.value)
        elif isinstance(node, ast.Call):
            at = f"{place}:{node.lineno}"
            for kw in node.keywords:
                if kw.arg in wanted_keywords and isinstance(kw.value, ast.Constant) and isinstance(kw.value.value, str):
                    usage.keywords.setdefault(kw.arg, set()).add(kw.value.value)
            if isinstance(node.func, ast.Name) and node.func.id in TEXT_FUNCTIONS and node.args:
                _scan_key_argument(node.args[0], at, usage)
            elif isinstance(node.func, ast.Name) and len(node.args) > KEY_ARGUMENT_FUNCTIONS.get(node.func.id, 99):
                _scan_key_argument(node.args[KEY_ARGUMENT_FUNCTIONS[node.func.id]], at, usage)
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            for target in node.targets:  # params["code_key"] = "chat_rate"
                if (isinstance(target, ast.Subscript) and isinstance(target.slice, ast.Constant)
                        and target.slice.value in wanted_keywords):
                    usage.keywords.setdefault(str(target.slice.value), set()).add(node.value.value)


def _assignment(stmt: ast.stmt) -> tuple[str | None, ast.expr | None]:
    """``NAME = value`` or ``NAME: type = value`` -> (NAME, value)."""
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
        return stmt.targets[0].id, stmt.value
    if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
        return stmt.target.id, stmt.value
    return None, None


def _scan_key_argument(arg: ast.expr, place: str, usage: Usage) -> None:
    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
        usage.use(arg.value, place)
    elif isinstance(arg, ast.JoinedStr) and arg.values and isinstance(arg.values[0], ast.Constant):
        usage.use_prefix(str(arg.values[0].value), place)  # f"err_{key}"
    elif (isinstance(arg, ast.BinOp) and isinstance(arg.op, ast.Add)
          and isinstance(arg.left, ast.Constant) and isinstance(arg.left.value, str)):
        usage.use_prefix(arg.left.value, place)  # "bot_level_" + bot
    elif isinstance(arg, ast.IfExp):  # "a" if cancelled else "b"
        _scan_key_argument(arg.body, place, usage)
        _scan_key_argument(arg.orelse, place, usage)


def scan_template(source: str, place: str, usage: Usage) -> None:
    """Collect keys and prefixes from one Jinja template."""
    for number, line in enumerate(source.splitlines(), 1):
        for m in TEMPLATE_LITERAL.finditer(line):
            usage.use(m.group(2), f"{place}:{number}")
        for m in TEMPLATE_PREFIX.finditer(line):
            usage.use_prefix(m.group(2), f"{place}:{number}")
        for m in TEMPLATE_CHOICE.finditer(line):  # tr('a' if cancelled else 'b')
            usage.use(m.group(2), f"{place}:{number}")
            usage.use(m.group(4), f"{place}:{number}")


def scan(root: Path = ROOT) -> Usage:
    """How the tree under ``root`` uses text keys (the devtools, this check among them, aside)."""
    usage = Usage()
    for path in sorted(root.rglob("*.py")):
        if "devtools" not in path.relative_to(root).parts:
            scan_python(path.read_text(encoding="utf-8"), str(path.relative_to(root.parent)), usage)
    for path in sorted(root.rglob("*.html")):
        scan_template(path.read_text(encoding="utf-8"), str(path.relative_to(root.parent)), usage)
    return usage


def family_keys(prefix: str, family: Family, usage: Usage) -> tuple[set[str], list[str]]:
    """The keys of a family, and the declared sources that were found nowhere."""
    values: set[str] = set()
    unfound: list[str] = []
    sources = [(name, usage.constants) for name in family.constants]
    sources += [(name, usage.keywords) for name in family.keywords]
    sources += [(name, usage.class_attributes) for name in family.class_attributes]
    for name, found in sources:
        if name in found:
            values |= found[name]
        else:
            unfound.append(f"{prefix}: {name}")
    return {prefix + v for v in values}, unfound


def counts_outside_plurals(lang: str) -> set[str]:
    """``"key: {n} word"`` for each message of ``lang`` without plural forms whose count stands before a word.

    "Warte {seconds} Sekunden" says "1 Sekunden" when the count is 1: the message must be a plural
    entry (``msgid_plural``, one form per plural category) and be used through ``tn``/``trn``.
    """
    found = set()
    for message in catalogs.read_catalog(lang):
        if not message.id or not isinstance(message.id, str) or not isinstance(message.string, str):
            continue
        for m in _COUNT_BEFORE_WORD.finditer(message.string):
            noun = m.group(2)[0].isupper() if lang == NOUN_LANG else True
            if m.group(1) in COUNT_PLACEHOLDERS and noun and m.group(2) not in INVARIANT_AFTER_COUNT:
                found.add(f"{message.id}: {m.group(0)}")
    return found


def check(root: Path = ROOT, langs: Sequence[str] = LANGS) -> Report:
    """Compare what the tree under ``root`` uses with the catalogues of ``langs``."""
    usage = scan(root)
    required = {k: set(places) for k, places in usage.keys.items()}
    optional: set[str] = set()
    unfound: list[str] = []
    undeclared = {p: places for p, places in usage.prefixes.items() if p not in FAMILIES}
    for prefix, family in FAMILIES.items():
        if prefix not in usage.prefixes:
            continue
        keys, missing_sources = family_keys(prefix, family, usage)
        unfound += missing_sources
        if family.optional:
            optional |= keys
        else:
            for key in keys:
                required.setdefault(key, set()).update(usage.prefixes[prefix])
    for name in KEY_CONSTANTS:
        if name not in usage.constants:
            unfound.append(name)
        for key in usage.constants.get(name, ()):
            if KEY_SHAPE.fullmatch(key):
                required.setdefault(key, set()).add(name)
    present = {lang: catalogs.keys(lang) for lang in langs}
    missing = {lang: {k: required[k] for k in required if k not in present[lang]} for lang in langs}
    optional_missing = {lang: optional - present[lang] - set(required) for lang in langs}
    seen = set(required) | optional
    unused = {k for k in set.union(set(), *present.values())
              if k not in seen and not any(k.startswith(p) for p in usage.prefixes)}
    counts = {lang: counts_outside_plurals(lang) for lang in langs}
    return Report(missing, optional_missing, undeclared, unfound, unused, counts)


def _lines(title: str, items: Iterable[str]) -> list[str]:
    items = sorted(items)
    return [f"{title} ({len(items)}):", *(f"  {i}" for i in items)] if items else []


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ludothek.devtools.textcheck", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="also list refusals without a text and catalogue keys nothing seems to use")
    parser.add_argument("--root", type=Path, default=ROOT, help="the package to scan (default: ludothek)")
    args = parser.parse_args(argv)
    report = check(args.root)
    out: list[str] = []
    for lang, missing in report.missing.items():
        out += _lines(f"missing from the {lang} catalogue (add them to every .po file)",
                      (f"{k}  <- {', '.join(sorted(places)[:3])}" for k, places in missing.items()))
    out += _lines("keys built from an undeclared prefix (declare its values in textcheck.FAMILIES)",
                  (f"{p}  <- {', '.join(sorted(places)[:3])}" for p, places in report.undeclared.items()))
    out += _lines("declared sources of key values found nowhere (textcheck.FAMILIES / KEY_CONSTANTS)",
                  report.unfound)
    for lang, counts in report.counts.items():
        out += _lines(f"counts before a word in {lang} messages without plural forms (make them plural entries, use tn)",
                      counts)
    if args.verbose:
        for lang, keys in report.optional_missing.items():
            out += _lines(f"refusals without a {lang} text (they show the store's English message)", keys)
        out += _lines("catalogue keys nothing seems to use (information only)", report.unused)
    for line in out:
        print(line)
    print("text keys: " + ("MISSING, see above" if report.failed else "every used key is in every catalogue"))
    return 1 if report.failed else 0


if __name__ == "__main__":
    sys.exit(main())
