#!/usr/bin/env python3
"""Render a chart as `helm template RELEASE CHART -n NAMESPACE [--set k=v ...]` prints it.

Uses the `helm` binary when it is on the PATH; otherwise Helm's own engine through the
helm-python-sdk package (installed by scripts/deps/helm.sh into ~/.cache/volmnt/helm-sdk).
Exit 3 when neither is there.
"""
import os
import shutil
import subprocess
import sys


def main(argv):
    if len(argv) < 2:
        print("usage: helm-template.py RELEASE CHART [-n NS] [--set k=v]...", file=sys.stderr)
        return 2
    release, chart = argv[0], argv[1]
    ns, sets = "default", []
    rest = argv[2:]
    while rest:
        a = rest.pop(0)
        if a in ("-n", "--namespace"):
            ns = rest.pop(0)
        elif a == "--set":
            sets.append(rest.pop(0))
        else:
            print(f"helm-template.py: unknown argument {a}", file=sys.stderr)
            return 2
    helm = shutil.which("helm")
    if helm:
        cmd = [helm, "template", release, chart, "-n", ns]
        for s in sets:
            cmd += ["--set", s]
        return subprocess.call(cmd)
    sdk = os.environ.get("VOLMNT_HELM_SDK_DIR") or os.path.expanduser("~/.cache/volmnt/helm-sdk")
    sys.path.insert(0, sdk)
    try:
        import helm_python as hp
    except ImportError:
        print(
            "helm-template.py: no helm binary on the PATH and no helm-python-sdk in "
            f"{sdk}; run scripts/deps/helm.sh",
            file=sys.stderr,
        )
        return 3
    values = {}
    for s in sets:
        values = deep_merge(values, hp.parse_set_string(s))
    with hp.Chart.load(chart) as c:
        rendered = c.render(values, name=release, namespace=ns)
    # `helm template` prints each non-empty manifest after `---` and a `# Source:` line, in
    # file-name order.
    for path in sorted(rendered):
        body = rendered[path]
        if not body.strip() or os.path.basename(path).startswith("_") or path.endswith("NOTES.txt"):
            continue
        print("---")
        print(f"# Source: {path}")
        print(body.rstrip("\n"))
    return 0


def deep_merge(a, b):
    """Merge the values of one --set into those of the earlier ones, as helm does: maps key by
    key, lists index by index (`--set env[0].name=A --set env[0].value=B` is one entry; a
    missing earlier index is None)."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = dict(a)
        for k, v in b.items():
            out[k] = deep_merge(out[k], v) if k in out else v
        return out
    if isinstance(a, list) and isinstance(b, list):
        out = list(a) + [None] * max(0, len(b) - len(a))
        for i, v in enumerate(b):
            if v is not None:
                out[i] = deep_merge(out[i], v) if out[i] is not None else v
        return out
    return b


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
