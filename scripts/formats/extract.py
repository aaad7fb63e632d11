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
literals joined (Go). Strings with fewer than two words of letters are left out (paths, bare
verbs). Nothing here runs or builds the program.
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


class ConstStr(str):
    """A format that a call names by a constant: a literal argument of the same call wins."""


def go_consts(text):
    """{name: value} of the string constants a Go file declares (`const X = "..."`, and each
    `X = "..."` or `X string = "..."` of a `const ( ... )` block)."""
    toks = [t for t in go_tokens(text) if t[0] != "comment"]
    out, i = {}, 0
    while i < len(toks):
        if toks[i][1] != "const":
            i += 1
            continue
        block = i + 1 < len(toks) and toks[i + 1][1] == "("
        j = i + 2 if block else i + 1
        depth = 1 if block else 0
        while j < len(toks):
            t = toks[j][1]
            if block and t == ")" and depth == 1:
                break
            if t in "([{":
                depth += 1
            elif t in ")]}":
                depth -= 1
            # NAME [string] = "lit" [+ "lit"...], ending the line (the next token on a new line).
            if toks[j][0] == "ident" and depth == (1 if block else 0) and (j == 0 or toks[j - 1][2] < toks[j][2] or toks[j - 1][1] in ("(", "const")):
                k = j + 1
                if k < len(toks) and toks[k][1] == "string":
                    k += 1
                if k < len(toks) and toks[k][1] == "=":
                    k += 1
                    lits = []
                    while k < len(toks) and toks[k][0] in ("str", "raw"):
                        lits.append(go_unquote(toks[k][1]))
                        k += 1
                        if k < len(toks) and toks[k][1] == "+" and k + 1 < len(toks) and toks[k + 1][0] in ("str", "raw"):
                            k += 1
                            continue
                        break
                    if lits and (k >= len(toks) or toks[k][2] > toks[k - 1][2] or toks[k][1] in (")", ";")):
                        out[toks[j][1]] = "".join(lits)
            if not block and toks[j][2] > toks[i][2]:
                break
            j += 1
        i = j + 1
    return out


def go_calls(text, names, consts=None):
    """(line, callee, [first string literal of each argument]) for calls to `names`. An argument
    that is only the name of a string constant in `consts` (`VolumeOperationAlreadyExists`,
    `util.ErrFmt`) counts as its literal."""
    consts = consts or {}
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

        def arg_value():
            if cur_lits and pure:
                return "".join(cur_lits)
            # A constant's name alone (`Fmt` or `pkg.Fmt`) stands for its value.
            if (len(cur) == 1 or (len(cur) == 3 and cur[1] == ".")) and cur[-1] in consts:
                return ConstStr(consts[cur[-1]])
            return None

        while j < len(toks):
            k, t, _ = toks[j]
            if t in "([{":
                depth += 1
                if depth > 1:
                    pure = False
                    cur.append(t)
            elif t in ")]}":
                depth -= 1
                if depth == 0:
                    args.append(arg_value())
                    break
                cur.append(t)
            elif t == "," and depth == 1:
                args.append(arg_value())
                cur, cur_lits, pure = [], [], True
            elif depth == 1:
                cur.append(t)
                if k in ("str", "raw"):
                    cur_lits.append(go_unquote(t))
                elif t != "+":
                    pure = False
            else:
                cur.append(t)
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


def c_calls(text, names):
    toks = list(c_tokens(text))
    out = []
    for i, (kind, tok, line) in enumerate(toks):
        if kind != "ident" or tok not in names:
            continue
        if i + 1 >= len(toks) or toks[i + 1][1] != "(":
            continue
        depth, j, args, lits, pure = 0, i + 1, [], [], True
        while j < len(toks):
            k, t, _ = toks[j]
            if t in "([{":
                depth += 1
                # `_("...")` inside the call: its literal is the argument's.
                if depth > 1 and not (toks[j - 1][1] in ("_", "N_", "gettext", "P_")):
                    pure = False
            elif t in ")]}":
                depth -= 1
                if depth == 0:
                    args.append("".join(lits) if lits and pure else None)
                    break
            elif t == "," and depth == 1:
                args.append("".join(lits) if lits and pure else None)
                lits, pure = [], True
            elif depth >= 1:
                if k == "str":
                    lits.append(c_unquote(t))
                elif k == "ident" and t in C_STRING_MACROS:
                    pass
                elif k == "ident" and t in C_MACRO_TEXT:
                    lits.append(C_MACRO_TEXT[t])
                elif k == "ident" and t in ("_", "N_", "gettext", "P_"):
                    pass
                elif depth == 1:
                    pure = False
            j += 1
        out.append((line, tok, args))
    return out


# --- what is kept -----------------------------------------------------------------------------

WORD = re.compile(r"[A-Za-z]{2,}")
VERB = re.compile(r"%[-+ #0]*(\*|\d+)?(\.(\*|\d+))?(hh|h|ll|l|L|q|j|z|t)?[a-zA-Z%]")


def is_message(s):
    """Two words of letters outside the verbs, and not a path or a flag's name."""
    bare = VERB.sub(" ", s)
    words = WORD.findall(bare)
    if len(words) < 2:
        return False
    if re.fullmatch(r"[\w./{}%-]+", s.strip()) and "/" in s:
        return False
    return True


FAILURE_WORDS = re.compile(
    r"fail|error|unable|cannot|can't|could not|couldn't|\bnot\b|invalid|denied|timed? ?out|refused|"
    r"missing|unsupported|no such|\bno\b|exceed|conflict|retry", re.I)


def default_meaning(fmt, info_call=False):
    """`info` for a progress call's string that names no failure (`info_calls`); else `wraps`
    when the string ends in a verb that carries another message, else `symptom`."""
    if info_call and not FAILURE_WORDS.search(VERB.sub(" ", fmt)):
        return "info"
    s = fmt.rstrip().rstrip(".\n")
    if re.search(r"(:|=|Output|output|error|err|desc|because|reason)\s*['\"\[(]?%[-+ #0]*[vsqw]['\"\])]?$", s):
        return "wraps"
    if re.search(r"%[vw]$", s):
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
    names = set(header["calls"])
    exclude = header.get("exclude", []) + (
        [r"_test\.go$", r"(^|/)vendor/", r"(^|/)testdata/", r"(^|/)test/", r"(^|/)e2e/",
         r"zz_generated", r"\.pb\.go$", r"(^|/)hack/"] if lang == "go" else
        [r"(^|/)tests?/", r"(^|/)po/", r"(^|/)Documentation/"])
    exts = (".go",) if lang == "go" else (".c", ".h")
    found = {}
    consts = {}
    if lang == "go":
        # String constants of the paths read, by name; a name two packages give different
        # values is left out (which one a call means is not known here).
        for path in walk(root, header["paths"], exclude, exts):
            try:
                text = open(path, encoding="utf-8", errors="replace").read()
            except OSError:
                continue
            for name, value in go_consts(text).items():
                consts[name] = value if consts.get(name, value) == value else None
        consts = {k: v for k, v in consts.items() if v is not None}
    for path in walk(root, header["paths"], exclude, exts):
        try:
            text = open(path, encoding="utf-8", errors="replace").read()
        except OSError:
            continue
        rel = os.path.relpath(path, root)
        prefix_for = header.get("prefixes", {})
        calls = go_calls(text, names, consts) if lang == "go" else c_calls(text, names)
        for line, callee, args in calls:
            fmt = (next((a for a in args if a and not isinstance(a, ConstStr)), None)
                   or next((a for a in args if a), None))
            if fmt is None:
                continue
            fmt = fmt.rstrip("\n")
            if "\n" in fmt.strip("\n") and len(fmt) > 400:
                continue
            if not is_message(fmt):
                continue
            suffix_for = header.get("suffixes", {})
            suf = suffix_for.get(callee, suffix_for.get(callee.rsplit(".", 1)[-1]))
            if suf:
                fmt += suf
            pre = prefix_for.get(callee, prefix_for.get(callee.rsplit(".", 1)[-1]))
            if pre is None:
                pre = file_prefix(header, rel)
            entry = {"at": f"{rel}:{line}", "fmt": fmt}
            if pre:
                entry["prefix"] = pre
            if callee in header.get("grpc", []):
                entry["grpc"] = True
            if callee in header.get("info_calls", []) or callee.rsplit(".", 1)[-1] in header.get("info_calls", []):
                entry["_info"] = True
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
        info_call = e.pop("_info", False)
        h = hand.get(key)
        if h:
            e["means"] = h["means"]
            e["by"] = "hand"
            for k in ("why", "note"):
                if k in h:
                    e[k] = h[k]
        else:
            e["means"] = default_meaning(e["fmt"], info_call)
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
