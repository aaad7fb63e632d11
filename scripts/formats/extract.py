#!/usr/bin/env python3
"""Regenerate one program family of volmnt's message catalogue from a source checkout.

    scripts/formats/extract.py FAMILY SOURCE_DIR [--version V] [--out FILE]

FAMILY is a file under src/diagnose/formats/ (without .yaml); its header says which language,
which paths and which print calls to read (`lang`, `paths`, `exclude`, `calls`, `prefixes`).
SOURCE_DIR is a checkout of the program at the version to pin (a git work tree, an exported
snapshot, or an unpacked Debian source package). The family file is rewritten with every format
string found: where it is (`at: file:line`), the string with its verbs (`fmt`), and its meaning
(`means`). Meanings written by hand (`by: hand`) are kept for every format string whose text is
unchanged, so a new release is one command:

    scripts/formats/extract.py ceph-csi ~/src/ceph-csi --version v3.13.0

A format string found for the first time gets a default meaning from its shape, marked
`by: shape`: `wraps` when it ends in a verb that carries another program's message (`...: %v`,
`... Output: %s`), else `symptom` (it says that the operation failed, not why). Entries of the
old file whose string is gone are dropped (a hand meaning that is dropped is printed on stderr).

What counts as a format string: the first string-literal argument of a call the family names in
`calls` (Go: fmt.Errorf, klog.Errorf, status.Errorf, errors.Wrapf, recorder.Eventf, ...; C:
printk, pr_err, xfs_warn, _(...) ...), with adjacent literals joined (C) or `+` concatenations of
literals joined (Go); in C also every literal of an array the family names in `tables` (message
tables printed by index, such as open-iscsi's iscsi_err_msgs), in Go the string constants whose
names match a regex of `tables` (the scheduler's ErrReason...), and the messages of a com_err
error table (`ec CODE, "message"` in a .et file named in `paths`). `lang: cpp` reads C++ the
same way and, for the streams named in `streams` (cerr, cout), each `<<` chain as one message
with `%s` for what is not a literal. Strings with fewer than two words of letters are left out
(paths, bare verbs). Nothing here runs or builds the program.
"""
import argparse
import os
import re
import sys

import yaml

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FORMATS = os.path.join(REPO, "src", "diagnose", "formats")


# --- Go ---------------------------------------------------------------------------------------

GO_TOKEN = re.compile(
    r"""
    (?P<comment>//[^\n]*|/\*.*?\*/)
  | (?P<raw>`[^`]*`)
  | (?P<str>"(?:\\.|[^"\\\n])*")
  | (?P<char>'(?:\\.|[^'\\\n])+')
  | (?P<ident>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<num>[0-9][0-9A-Za-z_.]*)
  | (?P<nl>\n)
  | (?P<punct>\.\.\.|[(){}\[\],;.+*&|!=<>:%^/-])
  | (?P<ws>[ \t\r]+)
    """,
    re.S | re.X,
)


def go_unquote(tok):
    if tok.startswith("`"):
        return tok[1:-1]
    body = tok[1:-1]
    out, i = [], 0
    simple = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\", "'": "'", "a": "\a",
              "b": "\b", "f": "\f", "v": "\v"}
    while i < len(body):
        c = body[i]
        if c == "\\" and i + 1 < len(body):
            n = body[i + 1]
            if n in simple:
                out.append(simple[n])
                i += 2
                continue
            if n == "x" and i + 3 < len(body) + 1:
                try:
                    out.append(chr(int(body[i + 2:i + 4], 16)))
                    i += 4
                    continue
                except ValueError:
                    pass
            if n in "uU":
                width = 4 if n == "u" else 8
                try:
                    out.append(chr(int(body[i + 2:i + 2 + width], 16)))
                    i += 2 + width
                    continue
                except ValueError:
                    pass
        out.append(c)
        i += 1
    return "".join(out)


def go_tokens(text):
    line = 1
    for m in GO_TOKEN.finditer(text):
        kind = m.lastgroup
        tok = m.group(kind)
        if kind in ("ws",):
            continue
        if kind == "comment" or kind == "raw":
            yield (kind, tok, line)
            line += tok.count("\n")
            continue
        if kind == "nl":
            line += 1
            continue
        yield (kind, tok, line)


def go_calls(text, names):
    """(line, callee, [first string literal of each argument]) for calls to `names`."""
    toks = [t for t in go_tokens(text) if t[0] != "comment"]
    out = []
    for i, (kind, tok, line) in enumerate(toks):
        if kind != "ident":
            continue
        # `status.Errorf` is named as such or as `Errorf`; the qualifier is kept for `grpc`.
        qual = toks[i - 2][1] + "." + tok if i >= 2 and toks[i - 1][1] == "." else tok
        if tok not in names and qual not in names:
            continue
        if i + 1 >= len(toks) or toks[i + 1][1] != "(":
            continue
        # Skip declarations (`func Errorf(`).
        if i > 0 and toks[i - 1][1] == "func":
            continue
        # Arguments at depth 1, each as the joined literals of a `"a" + "b"` expression.
        depth, j, args, cur, cur_lits, pure = 0, i + 1, [], [], [], True
        while j < len(toks):
            k, t, _ = toks[j]
            if t in "([{":
                depth += 1
                if depth > 1:
                    pure = False
            elif t in ")]}":
                depth -= 1
                if depth == 0:
                    args.append(("".join(cur_lits) if cur_lits and pure else None))
                    break
            elif t == "," and depth == 1:
                args.append(("".join(cur_lits) if cur_lits and pure else None))
                cur_lits, pure = [], True
            elif depth == 1:
                if k in ("str", "raw"):
                    cur_lits.append(go_unquote(t))
                elif t != "+":
                    pure = False
            j += 1
        out.append((line, qual, args))
    return out


# --- C ----------------------------------------------------------------------------------------

C_TOKEN = re.compile(
    r"""
    (?P<comment>//[^\n]*|/\*.*?\*/)
  | (?P<str>L?"(?:\\.|[^"\\\n])*")
  | (?P<char>'(?:\\.|[^'\\\n])+')
  | (?P<pp>\#[^\n]*(?:\\\n[^\n]*)*)
  | (?P<ident>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<num>[0-9][0-9A-Za-z_.]*)
  | (?P<nl>\n)
  | (?P<punct>->|\.\.\.|[(){}\[\],;.+*&|!=<>:%^/?~-])
  | (?P<ws>[ \t\r\f\v]+|\\\n)
    """,
    re.S | re.X,
)


def c_unquote(tok):
    body = tok[tok.index('"') + 1:-1]
    simple = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\", "'": "'", "a": "\a",
              "b": "\b", "f": "\f", "v": "\v", "?": "?"}
    out, i = [], 0
    while i < len(body):
        c = body[i]
        if c == "\\" and i + 1 < len(body):
            n = body[i + 1]
            if n in simple:
                out.append(simple[n])
                i += 2
                continue
            m = re.match(r"[0-7]{1,3}", body[i + 1:])
            if m:
                out.append(chr(int(m.group(0), 8)))
                i += 1 + len(m.group(0))
                continue
        out.append(c)
        i += 1
    return "".join(out)


def c_tokens(text):
    line = 1
    for m in C_TOKEN.finditer(text):
        kind = m.lastgroup
        tok = m.group(kind)
        n = tok.count("\n")
        if kind not in ("ws", "comment", "nl", "pp"):
            yield (kind, tok, line)
        line += n


# Macros that expand to a string literal in the middle of a format (kernel log levels and the
# like): they are dropped, and the literals around them joined.
C_STRING_MACROS = {
    "KERN_EMERG", "KERN_ALERT", "KERN_CRIT", "KERN_ERR", "KERN_WARNING", "KERN_NOTICE",
    "KERN_INFO", "KERN_DEBUG", "KERN_DEFAULT", "KERN_CONT", "PRIu64", "PRId64", "PRIx64",
    "PRIu32", "PRId32", "PRIx32", "PRIu16", "PRIu8", "PRIi64", "PRIi32", "SCNu64",
}
# Macros whose literal value is known, substituted where they stand in a format.
C_MACRO_TEXT = {"DRV_NAME": "{driver}", "PROGNAME": "{program}"}


GETTEXT = ("_", "N_", "gettext", "P_")


UPPER = re.compile(r"[A-Z][A-Z0-9_]*$")


def c_calls(text, names, macros=None, first_arg=None):
    """(line, callee, [first string literal of each argument]) for calls to `names`. An argument
    that is not a plain literal but holds translated literals (`cond ? _("a") : _("b")`) gives
    one call per literal, each with that literal alone. An upper-case macro next to a literal
    (`RBD_DRV_NAME ": ..."`) is a string: its text from `macros`, else `%s`. `first_arg` keeps
    only the calls of a name whose first argument starts so (`cifs_dbg(VFS, ...)`)."""
    macros = {**C_MACRO_TEXT, **(macros or {})}
    first_arg = first_arg or {}
    toks = list(c_tokens(text))
    out = []
    for i, (kind, tok, line) in enumerate(toks):
        if kind != "ident" or tok not in names:
            continue
        if i + 1 >= len(toks) or toks[i + 1][1] != "(":
            continue
        depth, j, args, lits, pure = 0, i + 1, [], [], True
        groups, gdepth = [], None          # the `_("...")` groups of the current argument
        alts = None                        # the groups of the first argument with no plain literal

        def end_arg():
            nonlocal alts
            if lits and pure:
                args.append("".join(lits))
            else:
                args.append(None)
                if alts is None and not any(args[:-1]) and groups:
                    alts = [g for g in groups if g[1]]

        first = []                         # the tokens of the first argument
        while j < len(toks):
            k, t, tl = toks[j]
            if len(args) == 0 and depth >= 1 and not (depth == 1 and t in ",)"):
                first.append(t)
            if t in "([{":
                depth += 1
                # `_("...")` inside the call: its literal is the argument's.
                if depth > 1 and toks[j - 1][1] in GETTEXT:
                    if gdepth is None:
                        gdepth = depth
                        groups.append((tl, []))
                elif depth > 1:
                    pure = False
            elif t in ")]}":
                if gdepth is not None and depth == gdepth:
                    gdepth = None
                depth -= 1
                if depth == 0:
                    end_arg()
                    break
            elif t == "," and depth == 1:
                end_arg()
                lits, pure, groups = [], True, []
            elif depth >= 1:
                if k == "str":
                    lits.append(c_unquote(t))
                    if gdepth is not None:
                        groups[-1][1].append(c_unquote(t))
                elif k == "ident" and t in C_STRING_MACROS:
                    pass
                elif k == "ident" and (t in macros or (
                        UPPER.match(t) and (toks[j - 1][0] == "str" or
                                            (j + 1 < len(toks) and toks[j + 1][0] == "str")))):
                    lits.append(macros.get(t, "%s"))
                    if gdepth is not None:
                        groups[-1][1].append(macros.get(t, "%s"))
                elif k == "ident" and t in GETTEXT:
                    pass
                elif depth == 1:
                    pure = False
            j += 1
        if tok in first_arg and not " ".join(first).startswith(first_arg[tok]):
            continue
        if alts and not any(args):
            for gl, g in alts:
                out.append((gl, tok, ["".join(g)]))
        else:
            out.append((line, tok, args))
    return out


def c_tables(text, names):
    """(line, table, [literal]) for every string literal in the initializer of an array named
    in `names` (`static char *iscsi_err_msgs[] = { "unknown error", ... }`): message tables
    that a program prints by index. Adjacent literals are joined."""
    out = []
    for m in re.finditer(r"\b(%s)\s*\[[^\]]*\]\s*=\s*\{" % "|".join(map(re.escape, names)), text):
        line0 = text.count("\n", 0, m.start()) + 1
        toks = list(c_tokens(text[m.end():]))
        depth, cur, cur_line = 1, [], None
        for k, t, l in toks:
            if t == "{":
                depth += 1
            elif t == "}":
                depth -= 1
                if depth == 0:
                    break
            if k == "str":
                if not cur:
                    cur_line = line0 + l - 1
                cur.append(c_unquote(t))
            elif cur:
                out.append((cur_line, m.group(1), ["".join(cur)]))
                cur = []
        if cur:
            out.append((cur_line, m.group(1), ["".join(cur)]))
    return out


def c_streams(text, names):
    """(line, stream, [message]) for each C++ stream statement `std::cerr << "rbd: " << x <<
    " failed" << std::endl;` on a stream named in `names`: the literals joined (a `%` in them
    written `%%`), `std::endl` a newline, every other operand a `%s`."""
    toks = list(c_tokens(text))
    out = []
    i = 0
    while i < len(toks):
        kind, tok, line = toks[i]
        if not (kind == "ident" and tok in names and i + 2 < len(toks)
                and toks[i + 1][1] == "<" and toks[i + 2][1] == "<"):
            i += 1
            continue
        j, depth, parts, operand, has_lit = i + 3, 0, [], [], False

        def flush():
            nonlocal operand, has_lit
            if not operand:
                return
            texts = [t for k, t in operand]
            if all(k == "str" for k, t in operand):
                # A literal `%` is not a verb: written `%%` as in a printf format.
                parts.append("".join(c_unquote(t) for t in texts).replace("%", "%%"))
                has_lit = True
            elif texts[-1] == "endl":
                parts.append("\n")
            elif texts[-1] not in ("dendl", "flush"):
                parts.append("%s")
            operand = []

        while j < len(toks):
            k, t, _ = toks[j]
            if t in "([{":
                depth += 1
            elif t in ")]}":
                depth -= 1
                if depth < 0:
                    break
            if depth == 0 and t == ";":
                break
            if depth == 0 and t == "<" and j + 1 < len(toks) and toks[j + 1][1] == "<":
                flush()
                j += 2
                continue
            operand.append((k, t))
            j += 1
        flush()
        if has_lit:
            out.append((line, tok, ["".join(parts)]))
        i = j
    return out


def go_tables(text, patterns):
    """(line, name, [literal]) for each Go constant or variable whose name matches one of
    `patterns` (regexes) and whose value is a string literal: the messages a program keeps in
    named constants (`ErrReasonBindConflict ConflictReason = "node(s) didn't find ..."`)."""
    out = []
    for m in re.finditer(r'^[ \t]*(?:const[ \t]+|var[ \t]+)?([A-Za-z_]\w*)[ \t]+(?:[\w.]+[ \t]+)?=[ \t]*'
                         r'("(?:\\.|[^"\\\n])*"|`[^`]*`)[ \t]*(?://.*)?$', text, re.M):
        if any(re.fullmatch(p, m.group(1)) for p in patterns):
            out.append((text.count("\n", 0, m.start(2)) + 1, m.group(1), [go_unquote(m.group(2))]))
    return out


def et_entries(text):
    """(line, code, [message]) for each `ec CODE, "message"` of a com_err error table
    (compile_et's .et source: e2fsprogs' ext2_err.et.in); the codes are what com_err() prints."""
    out = []
    for m in re.finditer(r'^ec\s+(\w+),\s*\n?\s*("(?:\\.|[^"\\\n])*")', text, re.M):
        out.append((text.count("\n", 0, m.start(2)) + 1, m.group(1), [c_unquote(m.group(2))]))
    return out


# --- what is kept -----------------------------------------------------------------------------

WORD = re.compile(r"[A-Za-z]{2,}")
VERB = re.compile(r"%[-+ #0]*(\*|\d+)?(\.(\*|\d+))?(hh|h|ll|l|L|q|j|z|t)?[a-zA-Z%]")


def is_message(s):
    """Two words of letters outside the verbs, and not a path or a flag's name."""
    # A verb before `()` is a function's name, as good as a word: "%s() failed: %m".
    bare = VERB.sub(" ", re.sub(r"%s\(\)", " call ", s))
    words = WORD.findall(bare)
    if len(words) < 2:
        return False
    if re.fullmatch(r"[\w./{}%-]+", s.strip()) and "/" in s:
        return False
    return True


def default_meaning(fmt):
    """`wraps` when the string ends in a verb that carries another message, else `symptom`."""
    s = fmt.rstrip().rstrip(".\n")
    if re.search(r"(:|=|Output|output|error|err|desc|because|reason)\s*['\"\[(]?%[-+ #0]*[vsqw]['\"\])]?$", s):
        return "wraps"
    if re.search(r"%[vw]$", s):
        return "wraps"
    # `%m` is strerror(errno): the errno family's text, read on its own.
    if re.search(r"(:|error|err)\s*['\"\[(]?%m['\"\])]?$", s):
        return "wraps"
    return "symptom"


def walk(root, paths, exclude, exts):
    for p in paths:
        base = os.path.join(root, p)
        if os.path.isfile(base):
            yield base
            continue
        for d, dirs, files in os.walk(base):
            rel = os.path.relpath(d, root)
            dirs[:] = sorted(x for x in dirs
                             if not any(re.search(e, os.path.join(rel, x) + "/") for e in exclude))
            for f in sorted(files):
                full = os.path.join(d, f)
                relf = os.path.relpath(full, root)
                if not f.endswith(exts):
                    continue
                if any(re.search(e, relf) for e in exclude):
                    continue
                yield full


def extract(header, root):
    lang = header["lang"]
    # `name(ARG` in `calls`: only the calls whose first argument starts with ARG.
    names, first_arg = set(), {}
    for c in header["calls"]:
        name, _, arg = c.partition("(")
        names.add(name)
        if arg:
            first_arg[name] = arg
    exclude = header.get("exclude", []) + (
        [r"_test\.go$", r"(^|/)vendor/", r"(^|/)testdata/", r"(^|/)test/", r"(^|/)e2e/",
         r"zz_generated", r"\.pb\.go$", r"(^|/)hack/"] if lang == "go" else
        [r"(^|/)tests?/", r"(^|/)po/", r"(^|/)Documentation/"])
    exts = {"go": (".go",), "c": (".c", ".h"),
            "cpp": (".cc", ".cpp", ".cxx", ".c", ".h", ".hpp")}[lang]
    found = {}
    for path in walk(root, header["paths"], exclude, exts):
        try:
            text = open(path, encoding="utf-8", errors="replace").read()
        except OSError:
            continue
        rel = os.path.relpath(path, root)
        prefix_for = header.get("prefixes", {})
        if path.endswith((".et", ".et.in")):
            calls = et_entries(text)
        elif lang == "cpp":
            calls = c_calls(text, names, header.get("macros"), first_arg)
            if header.get("streams"):
                calls += c_streams(text, set(header["streams"]))
        else:
            calls = (go_calls(text, names) if lang == "go" else
                     c_calls(text, names, header.get("macros"), first_arg))
        # `tables`: arrays of messages printed by index (C), named message constants (Go).
        if lang == "c" and header.get("tables"):
            calls += c_tables(text, header["tables"])
        if lang == "go" and header.get("tables"):
            calls += go_tables(text, header["tables"])
        for line, callee, args in calls:
            # The first literal argument, unless it is a one-word tag (an event reason such as
            # "ClaimLost") followed by a literal that is a message.
            lits = [a for a in args if a]
            fmt = lits[0] if lits else None
            if fmt is None:
                continue
            if (len(lits) > 1 and re.fullmatch(r"[A-Za-z][\w.-]*", fmt)
                    and is_message(lits[1])):
                fmt = lits[1]
            fmt = fmt.rstrip("\n")
            if "\n" in fmt.strip("\n") and len(fmt) > 400:
                continue
            if not is_message(fmt):
                continue
            pre = prefix_for.get(callee, prefix_for.get(callee.rsplit(".", 1)[-1]))
            if pre is None:
                pre = file_prefix(header, rel)
            entry = {"at": f"{rel}:{line}", "fmt": fmt}
            if pre:
                entry["prefix"] = pre
            if callee in header.get("grpc", []):
                entry["grpc"] = True
            key = (pre or "") + fmt
            found.setdefault(key, entry)
    return list(found.values())


def file_prefix(header, rel):
    for pat, pre in header.get("file_prefixes", {}).items():
        if re.search(pat, rel):
            return pre
    return None


def load(path):
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return yaml.safe_load(f)


class Dumper(yaml.SafeDumper):
    pass


def _str(dumper, s):
    style = "|" if "\n" in s else None
    if style is None and (s != s.strip() or any(c in s for c in ":#'\"{}[],&*!|>%@`") or s == ""):
        style = "'"
    return dumper.represent_scalar("tag:yaml.org,2002:str", s, style=style)


Dumper.add_representer(str, _str)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("family")
    ap.add_argument("source")
    ap.add_argument("--version", help="the version to record (default: the family's own)")
    ap.add_argument("--out", help="write here instead of src/diagnose/formats/FAMILY.yaml")
    a = ap.parse_args()
    path = os.path.join(FORMATS, a.family + ".yaml")
    old = load(path)
    if old is None:
        sys.exit(f"extract.py: no {path}: write its header first (see src/diagnose/formats/README.md)")
    header = {k: v for k, v in old.items() if k != "formats"}
    if a.version:
        header["version"] = a.version
    hand = {}
    for e in old.get("formats") or []:
        if e.get("by") == "hand":
            hand[(e.get("prefix") or "") + e["fmt"]] = e
    entries = extract(header, os.path.abspath(a.source))
    seen = set()
    for e in entries:
        key = (e.get("prefix") or "") + e["fmt"]
        seen.add(key)
        h = hand.get(key)
        if h:
            e["means"] = h["means"]
            e["by"] = "hand"
            for k in ("why", "note"):
                if k in h:
                    e[k] = h[k]
        else:
            e["means"] = default_meaning(e["fmt"])
            e["by"] = "shape"
    for k, h in hand.items():
        if k not in seen:
            print(f"extract.py: {a.family}: hand meaning dropped, its string is gone: {h['fmt']!r} ({h['means']})",
                  file=sys.stderr)
    entries.sort(key=lambda e: (e["at"].rsplit(":", 1)[0], int(e["at"].rsplit(":", 1)[1])))
    header["formats"] = entries
    text = yaml.dump(header, Dumper=Dumper, sort_keys=False, allow_unicode=True, width=100000)
    comment = "".join(l + "\n" for l in (open(path).read().split("\n")) if l.startswith("#"))
    out = a.out or path
    with open(out, "w") as f:
        f.write(comment)
        f.write(text)
    by = {}
    for e in entries:
        by[e["by"]] = by.get(e["by"], 0) + 1
    print(f"{a.family} {header.get('version')}: {len(entries)} format strings ({', '.join(f'{v} {k}' for k, v in sorted(by.items()))}) -> {os.path.relpath(out)}")


if __name__ == "__main__":
    main()
