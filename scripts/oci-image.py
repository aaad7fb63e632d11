#!/usr/bin/env python3
"""Write an OCI image archive (image-layout 1.0.0 in a tar) from files, with no base image, no
registry and no container engine: one layer (a gzip'd tar built here), the image config, the
manifest and the index, each stored as a blob named by its sha256. `ctr images import`,
`podman load`, `skopeo copy oci-archive:...` and `docker load` (25+) read it.

usage: oci-image.py --out FILE --name NAME:TAG --entrypoint PATH [--cmd ARG]... [--user U:G]
                    [--file SRC:DEST[:MODE]]... [--busybox PATH] [--arch amd64]

  --file SRC:DEST       a file of this machine into the image at DEST (mode from SRC unless given)
  --busybox PATH        a static busybox at /bin/busybox and a symlink per applet in /bin, so the
                        image has `sh` (volmnt's node probe is a sh script run in this image)
The layer is reproducible: entries sorted, mtime 0, owner 0:0, gzip without a timestamp; the
same inputs give the same digests.
"""
import argparse
import gzip
import hashlib
import io
import json
import os
import subprocess
import sys
import tarfile

CREATED = "1970-01-01T00:00:00Z"


def sha(data):
    return "sha256:" + hashlib.sha256(data).hexdigest()


def tar_add(t, name, data=None, mode=0o644, kind=tarfile.REGTYPE, link=""):
    ti = tarfile.TarInfo(name)
    ti.type, ti.mode, ti.mtime, ti.uid, ti.gid, ti.uname, ti.gname = kind, mode, 0, 0, 0, "root", "root"
    if kind == tarfile.SYMTYPE:
        ti.linkname = link
    if data is not None:
        ti.size = len(data)
        t.addfile(ti, io.BytesIO(data))
    else:
        t.addfile(ti)


def build_layer(files, busybox):
    """files: [(dest, bytes, mode)]. Returns the uncompressed layer tar."""
    dirs = {"etc": 0o755, "tmp": 0o1777, "bin": 0o755, "usr": 0o755, "usr/local": 0o755, "usr/local/bin": 0o755}
    entries = {}
    for dest, data, mode in files:
        rel = dest.lstrip("/")
        parts = rel.split("/")[:-1]
        for i in range(1, len(parts) + 1):
            dirs.setdefault("/".join(parts[:i]), 0o755)
        entries[rel] = ("file", data, mode)
    entries.setdefault("etc/passwd", ("file", b"root:x:0:0:root:/root:/bin/sh\nnonroot:x:65532:65532:nonroot:/home/nonroot:/bin/false\n", 0o644))
    entries.setdefault("etc/group", ("file", b"root:x:0:\nnonroot:x:65532:\n", 0o644))
    if busybox:
        entries["bin/busybox"] = ("file", open(busybox, "rb").read(), 0o755)
        apps = subprocess.run([busybox, "--list"], capture_output=True, text=True, check=True).stdout.split()
        for a in sorted(set(apps)):
            if a != "busybox" and "/" not in a and f"bin/{a}" not in entries:
                entries[f"bin/{a}"] = ("link", "busybox", 0o777)
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as t:
        for d in sorted(dirs):
            tar_add(t, d + "/", mode=dirs[d], kind=tarfile.DIRTYPE)
        for name in sorted(entries):
            kind, data, mode = entries[name]
            if kind == "link":
                tar_add(t, name, mode=mode, kind=tarfile.SYMTYPE, link=data)
            else:
                tar_add(t, name, data, mode)
    return buf.getvalue()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--name", required=True, help="image name with tag, e.g. docker.io/library/volmnt:0.1.0")
    ap.add_argument("--entrypoint", required=True)
    ap.add_argument("--cmd", action="append", default=[])
    ap.add_argument("--user", default="")
    ap.add_argument("--file", action="append", default=[])
    ap.add_argument("--busybox")
    ap.add_argument("--arch", default="amd64")
    a = ap.parse_args()
    if ":" not in a.name.rsplit("/", 1)[-1]:
        sys.exit(f"oci-image.py: --name {a.name}: give a tag (NAME:TAG)")
    files = []
    for spec in a.file:
        parts = spec.split(":")
        if len(parts) not in (2, 3):
            sys.exit(f"oci-image.py: --file {spec}: want SRC:DEST[:MODE]")
        src, dest = parts[0], parts[1]
        mode = int(parts[2], 8) if len(parts) == 3 else os.stat(src).st_mode & 0o7777
        files.append((dest, open(src, "rb").read(), mode))

    layer = build_layer(files, a.busybox)
    gz = gzip.compress(layer, compresslevel=9, mtime=0)
    config = {
        "architecture": a.arch,
        "os": "linux",
        "created": CREATED,
        "config": {
            "Env": ["PATH=/usr/local/bin:/bin"],
            "Entrypoint": [a.entrypoint],
            "Cmd": a.cmd,
            "WorkingDir": "/",
            **({"User": a.user} if a.user else {}),
        },
        "rootfs": {"type": "layers", "diff_ids": [sha(layer)]},
        "history": [{"created": CREATED, "created_by": "scripts/oci-image.py (no base image)"}],
    }
    cfg = json.dumps(config, sort_keys=True, separators=(",", ":")).encode()
    manifest = {
        "schemaVersion": 2,
        "mediaType": "application/vnd.oci.image.manifest.v1+json",
        "config": {"mediaType": "application/vnd.oci.image.config.v1+json", "digest": sha(cfg), "size": len(cfg)},
        "layers": [{"mediaType": "application/vnd.oci.image.layer.v1.tar+gzip", "digest": sha(gz), "size": len(gz)}],
    }
    man = json.dumps(manifest, sort_keys=True, separators=(",", ":")).encode()
    tag = a.name.rsplit(":", 1)[1]
    index = {
        "schemaVersion": 2,
        "mediaType": "application/vnd.oci.image.index.v1+json",
        "manifests": [{
            "mediaType": "application/vnd.oci.image.manifest.v1+json",
            "digest": sha(man),
            "size": len(man),
            "platform": {"architecture": a.arch, "os": "linux"},
            # containerd names the imported image from the first, other tools from the second.
            "annotations": {"io.containerd.image.name": a.name, "org.opencontainers.image.ref.name": tag},
        }],
    }
    idx = json.dumps(index, sort_keys=True, separators=(",", ":")).encode()

    tmp = a.out + ".part"
    with tarfile.open(tmp, "w", format=tarfile.PAX_FORMAT) as t:
        tar_add(t, "blobs/", mode=0o755, kind=tarfile.DIRTYPE)
        tar_add(t, "blobs/sha256/", mode=0o755, kind=tarfile.DIRTYPE)
        for blob in (gz, cfg, man):
            tar_add(t, "blobs/sha256/" + sha(blob)[7:], blob)
        tar_add(t, "oci-layout", json.dumps({"imageLayoutVersion": "1.0.0"}).encode())
        tar_add(t, "index.json", idx)
    os.replace(tmp, a.out)
    print(f"{a.out}: {a.name}")
    print(f"  manifest {sha(man)} ({len(man)} B)")
    print(f"  config   {sha(cfg)} ({len(cfg)} B)")
    print(f"  layer    {sha(gz)} ({len(gz)} B gzip, diff_id {sha(layer)}, {len(layer)} B)")


if __name__ == "__main__":
    main()
