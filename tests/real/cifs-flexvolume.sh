#!/bin/sh
# A FlexVolume driver that mounts a CIFS share as the community drivers do (fstab/cifs: the
# node's `mount -t cifs //server/share DIR -o OPTIONS`). Kubernetes has no in-tree CIFS plugin,
# so this is how a node without cifs-utils meets a CIFS mount outside CSI. tests/real/ copies it
# to the node's volume plugin dir (volmnt.io~cifs/cifs) for its run and removes it afterwards.
# Protocol: https://github.com/kubernetes/community/blob/master/contributors/devel/sig-storage/flexvolume.md
reply() { printf '%s\n' "$1"; exit "${2:-0}"; }
case "$1" in
  init) reply '{"status":"Success","capabilities":{"attach":false}}' ;;
  mount)
    dir=$2
    share=$(printf '%s' "$3" | sed -n 's/.*"share" *: *"\([^"]*\)".*/\1/p')
    [ -n "$share" ] || reply '{"status":"Failure","message":"cifs mount: no share option"}' 1
    mkdir -p "$dir"
    if out=$(mount -t cifs "$share" "$dir" -o guest,vers=3.0 2>&1); then reply '{"status":"Success"}'; fi
    out=$(printf '%s' "$out" | tr '\n"\\' "  /")
    reply "{\"status\":\"Failure\",\"message\":\"cifs mount: failed to mount the network path: mount -t cifs $share $dir: $out\"}" 1 ;;
  unmount) umount "$2" 2>/dev/null; rmdir "$2" 2>/dev/null; reply '{"status":"Success"}' ;;
  *) reply '{"status":"Not supported"}' 1 ;;
esac
