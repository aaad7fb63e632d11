# volmnt node probe, output format version 1 (documented in src/parse/probe.rs).
#
# Read-only: it reads files and lists two directories; it writes nothing, loads nothing, mounts
# nothing. POSIX sh (dash, busybox ash, bash). Sent on stdin (`sh -s`); every input comes from
# the environment, never from text pasted into a command line:
#   VOLMNT_ROOT          host root to read (default /)
#   VOLMNT_LIVE          1: /proc, /sys and the processes are the host's own (default 1 when
#                        VOLMNT_ROOT is /, else 0: a mounted tree, read files only)
#   VOLMNT_KUBELET_ROOT  kubelet root dir as a host path (default: kubelet's --root-dir when
#                        live, else /var/lib/kubelet)
#   VOLMNT_STEP_TIMEOUT  seconds each external command may take (default 5)
#   VOLMNT_LOG_MATCH     literal strings, one per line (a pod's UID, its volume and PV names):
#                        when set, kubelet's log lines that contain one of them, and the kernel's
#                        lines about storage, are printed too (the last VOLMNT_LOG_BYTES of each
#                        log, default 8 MiB; at most 2000 lines each)
#   VOLMNT_KERNEL_LOG    1: print the kernel's lines about storage even without VOLMNT_LOG_MATCH
#   VOLMNT_DMESG         1: in a probe pod (root not /), also read the kernel ring buffer (the
#                        pod then has CAP_SYSLOG: `doctor pod --probe-kernel-log`); on the node
#                        itself (ssh, local) it is always tried
#   VOLMNT_POD_UID       the pod's UID: `df` of its (non-network) volume mounts
#   VOLMNT_NFS_SERVERS   NFS server names or addresses, one per line: does each answer from
#                        here (rpcinfo -p, showmount -e, a TCP connect to 2049; 3 s each)
# What cannot be read is said (`unavailable` records), never skipped silently: the kernel ring
# buffer under kernel.dmesg_restrict=1 without CAP_SYSLOG, journal files without journalctl,
# block devices (never opened: a hung device would block; their TYPE/UUID come from udev's
# database and blkid's cache instead).
# It never lists, stats or reads anything inside a network filesystem (nfs, cifs, glusterfs,
# ceph, fuse): a dead server makes that hang forever. Every external command runs under
# `timeout` when the system has it.

LC_ALL=C
export LC_ALL
PATH=/usr/sbin:/usr/bin:/sbin:/bin:${PATH:-}
exec 3>&1

TAB=$(printf '\t')
CR=$(printf '\r')
NL='
'

# --- output helpers ---------------------------------------------------------------------------

# repl STRING FROM TO: replace every FROM (a literal) by TO; result in R_OUT.
repl() {
    _s=$1 _o=
    while :; do
        case $_s in
            *"$2"*) _o=$_o${_s%%"$2"*}$3; _s=${_s#*"$2"} ;;
            *) break ;;
        esac
    done
    R_OUT=$_o$_s
}

# repl_bs STRING TO: replace every backslash by TO (patterns spelled out: some shells mishandle
# a backslash that comes from a variable in a pattern).
repl_bs() {
    _s=$1 _o=
    while :; do
        case $_s in
            *\\*) _o=$_o${_s%%\\*}$2; _s=${_s#*\\} ;;
            *) break ;;
        esac
    done
    R_OUT=$_o$_s
}

# esc VALUE: record escaping (\\ \t \n \r); result in ESC.
esc() {
    case $1 in
        *\\* | *"$TAB"* | *"$NL"* | *"$CR"*)
            repl_bs "$1" '\\'
            repl "$R_OUT" "$TAB" '\t'
            repl "$R_OUT" "$NL" '\n'
            repl "$R_OUT" "$CR" '\r'
            ESC=$R_OUT
            ;;
        *) ESC=$1 ;;
    esac
}

# rec KEY FIELD...: one record, fields tab-separated and escaped.
rec() {
    _line=$1
    shift
    for _f in "$@"; do
        esc "$_f"
        _line=$_line$TAB$ESC
    done
    printf '%s\n' "$_line" >&3
}

# --- time limits ------------------------------------------------------------------------------

STEP=${VOLMNT_STEP_TIMEOUT:-5}
case $STEP in '' | *[!0-9]*) STEP=5 ;; esac
TO=
if command -v timeout >/dev/null 2>&1; then
    if timeout 2 true >/dev/null 2>&1; then
        TO="timeout $STEP"
    elif timeout -t 2 true >/dev/null 2>&1; then
        # busybox before 1.30
        TO="timeout -t $STEP"
    fi
fi
HAVE_AWK=
command -v awk >/dev/null 2>&1 && HAVE_AWK=1
HAVE_READLINK=
command -v readlink >/dev/null 2>&1 && HAVE_READLINK=1

# run STEP CMD ARG...: run a command under the step time limit; a timeout is recorded.
run() {
    _step=$1
    shift
    if [ -n "$TO" ]; then
        $TO "$@"
    else
        "$@"
    fi
    _rc=$?
    if [ -n "$TO" ] && { [ "$_rc" -eq 124 ] || [ "$_rc" -eq 143 ]; }; then
        rec error "$_step" "timed out after ${STEP}s"
    fi
    return "$_rc"
}

# dump FILE: print each line of a regular file prefixed with `|` (a FIFO or device is never
# opened: it could block).
dump() {
    [ -f "$1" ] && [ -r "$1" ] || return 1
    if [ -n "$HAVE_AWK" ]; then
        run "read $1" awk 'NR <= 200000 { print "|" $0 }' "$1"
    else
        while IFS= read -r _l || [ -n "$_l" ]; do
            printf '|%s\n' "$_l"
        done <"$1"
    fi
}

# --- where to read ----------------------------------------------------------------------------

ROOT=${VOLMNT_ROOT:-/}
R=$ROOT
while :; do
    case $R in
        */) R=${R%/} ;;
        *) break ;;
    esac
done
# R is the prefix for host paths: "" for /, "/host" for /host.
LIVE=${VOLMNT_LIVE:-}
if [ -z "$LIVE" ]; then
    if [ -z "$R" ]; then LIVE=1; else LIVE=0; fi
fi
[ "$LIVE" = 1 ] || LIVE=0

printf 'volmnt-probe 1\n'
rec root "$ROOT"
rec live "$LIVE"
rec step_timeout "$STEP" "${TO:+timeout}"

if [ ! -d "$R/" ]; then
    rec error root "not a directory"
    printf 'end\n'
    exit 0
fi

# --- the mount table, and the network mounts never to touch -----------------------------------

MI=
if [ "$LIVE" = 1 ]; then
    for _f in /proc/1/mountinfo /proc/self/mountinfo; do
        if [ -f "$_f" ] && [ -r "$_f" ]; then MI=$_f; break; fi
    done
else
    for _f in "$R/proc/1/mountinfo" "$R/proc/self/mountinfo"; do
        if [ -f "$_f" ] && [ -r "$_f" ]; then MI=$_f; break; fi
    done
fi

# netfs_points FILE: mount points (still octal-escaped) of network filesystems in a mountinfo.
netfs_points() {
    [ -n "$1" ] && [ -f "$1" ] && [ -r "$1" ] || return 0
    if [ -n "$HAVE_AWK" ]; then
        run "netfs $1" awk '{
            t = ""
            for (i = 7; i < NF; i++) if ($i == "-") { t = $(i + 1); break }
            if (t ~ /^(nfs|nfs4|cifs|smb3|smbfs|glusterfs|ceph|9p|afs|fuse)$/ || t ~ /^fuse\./) print $5
        }' "$1"
    else
        while read -r _id _p _mm _r _mp _o _rest; do
            _x=" $_rest"
            _x=${_x#* - }
            case ${_x%% *} in
                nfs | nfs4 | cifs | smb3 | smbfs | glusterfs | ceph | 9p | afs | fuse | fuse.*)
                    printf '%s\n' "$_mp"
                    ;;
            esac
        done <"$1"
    fi
}

# The probe's own view (real paths, $R included) and the host's table (host paths).
SELF_NET=
[ -r /proc/self/mountinfo ] && SELF_NET=$(netfs_points /proc/self/mountinfo)
HOST_NET=$(netfs_points "$MI")

# mi_esc PATH: the path as mountinfo writes it; result in R_OUT.
mi_esc() {
    repl_bs "$1" '\134'
    repl "$R_OUT" ' ' '\040'
    repl "$R_OUT" "$TAB" '\011'
    repl "$R_OUT" "$NL" '\012'
}

# under LIST PATH: is PATH at or below one of the (escaped) mount points in LIST? A network
# filesystem mounted at / is ignored (a diskless node runs from it; nothing else could be read).
under() {
    mi_esc "$2"
    _p=$R_OUT
    _save=$IFS
    IFS=$NL
    set -f
    for _m in $1; do
        [ "$_m" = / ] && continue
        case $_p in
            "$_m" | "$_m"/*)
                IFS=$_save
                set +f
                NET_MP=$_m
                return 0
                ;;
        esac
    done
    IFS=$_save
    set +f
    return 1
}

# safe STEP HOSTPATH: may the probe touch HOSTPATH (read as $R/HOSTPATH)? Records why not.
safe() {
    if under "$SELF_NET" "$R$2" || under "$HOST_NET" "$2"; then
        rec skipped "$1" "$2" "on a network filesystem mounted at $NET_MP"
        return 1
    fi
    return 0
}

if [ -n "$MI" ]; then
    rec mountinfo_source "$MI"
    printf '[mountinfo]\n'
    dump "$MI"
else
    rec mountinfo_source ""
fi

# --- OS, host name, kernel ----------------------------------------------------------------------

if safe os-release /etc; then
    for _f in /etc/os-release /usr/lib/os-release; do
        if [ -f "$R$_f" ]; then
            rec os_release_source "$_f"
            printf '[os-release]\n'
            dump "$R$_f"
            break
        fi
    done
    if [ -f "$R/etc/hostname" ] && [ -r "$R/etc/hostname" ]; then
        IFS= read -r _h <"$R/etc/hostname" || true
        [ -n "${_h:-}" ] && rec hostname "$_h" etc
    fi
fi
if [ "$LIVE" = 1 ] && [ -r /proc/sys/kernel/hostname ]; then
    IFS= read -r _h </proc/sys/kernel/hostname && rec hostname "$_h" live
fi

KREL=
if [ "$LIVE" = 1 ]; then
    KREL=$(uname -r 2>/dev/null)
    [ -n "$KREL" ] && rec kernel "$KREL" uname
    _a=$(uname -m 2>/dev/null)
    [ -n "$_a" ] && rec arch "$_a"
elif [ -f "$R/proc/sys/kernel/osrelease" ]; then
    IFS= read -r KREL <"$R/proc/sys/kernel/osrelease"
    rec kernel "$KREL" tree:proc
fi

# Module directories: the running kernel's when live; else every kernel the tree has.
MODDIRS=
for _base in /lib/modules /usr/lib/modules; do
    safe modules "$_base" || continue
    [ -d "$R$_base" ] || continue
    if [ -n "$KREL" ]; then
        [ -d "$R$_base/$KREL" ] && MODDIRS="$MODDIRS$NL$R$_base/$KREL"
    else
        for _d in "$R$_base"/*; do
            [ -f "$_d/modules.dep" ] || [ -f "$_d/modules.builtin" ] || continue
            rec kernel_tree "${_d##*/}" "${_base}"
            MODDIRS="$MODDIRS$NL$_d"
        done
    fi
done
[ -z "$KREL" ] && [ -z "$MODDIRS" ] && rec kernel_unknown "not live, and the tree has no kernel modules"

# --- helpers and tools --------------------------------------------------------------------------

DIRS=
for _d in /sbin /usr/sbin /bin /usr/bin /usr/local/sbin /usr/local/bin; do
    safe programs "$_d" || continue
    [ -d "$R$_d" ] && DIRS="$DIRS $_d"
done

# find_prog NAME: the first executable NAME in DIRS, as a host path; result in FOUND.
find_prog() {
    for _d in $DIRS; do
        _f=$R$_d/$1
        if [ -n "$R" ] && [ -L "$_f" ] && [ -n "$HAVE_READLINK" ]; then
            # An absolute link inside a mounted tree points into the tree, not at our /.
            _t=$(readlink "$_f" 2>/dev/null)
            case $_t in /*) _f=$R$_t ;; esac
        fi
        if [ -f "$_f" ] && [ -x "$_f" ]; then
            FOUND=$_d/$1
            return 0
        fi
    done
    return 1
}

rec searched $DIRS
for _n in mount.nfs mount.nfs4 mount.cifs mount.smb3 mount.glusterfs mount.ceph mount.fuse.ceph; do
    if find_prog "$_n"; then rec helper "$_n" "$FOUND"; else rec helper_missing "$_n" "$DIRS"; fi
done
for _n in ceph-fuse rbd rbd-nbd iscsiadm multipath multipathd mkfs.ext4 fsck.ext4 e2fsck \
    mkfs.xfs fsck.xfs xfs_repair systemd-run mount umount findmnt showmount rpc.statd rpcbind \
    blkid modprobe nsenter; do
    if find_prog "$_n"; then rec tool "$_n" "$FOUND"; else rec helper_missing "$_n" "$DIRS"; fi
done

# --- kernel: filesystems and modules ------------------------------------------------------------

PROC=
if [ "$LIVE" = 1 ]; then PROC=/proc; elif [ -d "$R/proc" ]; then PROC=$R/proc; fi
if [ -n "$PROC" ] && [ -f "$PROC/filesystems" ]; then
    printf '[filesystems]\n'
    dump "$PROC/filesystems"
fi

# A live kernel without /proc/modules cannot load modules: what /proc/filesystems lacks, it lacks.
[ "$LIVE" = 1 ] && [ ! -f /proc/modules ] && rec modules_loadable no

# Each module: loaded, builtin, available or missing (no record when not known).
for _m in nfs nfsv3 nfsv4 rbd libceph ceph cifs iscsi_tcp scsi_transport_iscsi fuse nbd xfs ext4 \
    btrfs dm_multipath dm_mod loop nvme_tcp; do
    repl "$_m" _ '[_-]'
    _pat=$R_OUT
    _state=
    if [ -n "$PROC" ] && [ -f "$PROC/modules" ] &&
        run "modules $_m" grep -Eq "^${_pat} " "$PROC/modules"; then
        _state=loaded
    fi
    if [ -z "$_state" ] && [ -n "$MODDIRS" ]; then
        _known=
        _save=$IFS
        IFS=$NL
        set -f
        for _d in $MODDIRS; do
            # (the list is split at newlines; commands inside need the usual IFS)
            IFS=$_save
            if [ -f "$_d/modules.builtin" ]; then
                _known=1
                if run "modules $_m" grep -Eq "(^|/)${_pat}\.ko$" "$_d/modules.builtin"; then
                    _state=builtin
                    break
                fi
            fi
            if [ -f "$_d/modules.dep" ]; then
                _known=1
                if run "modules $_m" grep -Eq "(^|/)${_pat}\.ko(\.[a-z0-9]+)?:" "$_d/modules.dep"; then
                    _state=available
                    break
                fi
            fi
        done
        set +f
        IFS=$_save
        [ -z "$_state" ] && [ -n "$_known" ] && _state=missing
    fi
    [ -n "$_state" ] && rec module "$_m" "$_state"
done

# --- SELinux ------------------------------------------------------------------------------------

_se=
if [ "$LIVE" = 1 ]; then
    for _f in "$R/sys/fs/selinux/enforce" /sys/fs/selinux/enforce; do
        if [ -f "$_f" ] && [ -r "$_f" ]; then
            IFS= read -r _v <"$_f"
            case $_v in 1) _se=enforcing ;; 0) _se=permissive ;; esac
            [ -n "$_se" ] && rec selinux "$_se" live && break
        fi
    done
fi
if [ -z "$_se" ] && [ -f "$R/etc/selinux/config" ]; then
    while IFS= read -r _l || [ -n "$_l" ]; do
        case $_l in SELINUX=*) _se=${_l#SELINUX=} ;; esac
    done <"$R/etc/selinux/config"
    [ -n "$_se" ] && rec selinux "$_se" config
fi
[ -z "$_se" ] && [ "$LIVE" = 1 ] && rec selinux disabled live

# --- processes (live only) ----------------------------------------------------------------------

KPID=
if [ "$LIVE" = 1 ]; then
    _statd=no _rpcbind=no _kubelet=no _mpd=no _iscsid=no
    for _p in /proc/[0-9]*; do
        _c=
        { IFS= read -r _c <"$_p/comm"; } 2>/dev/null || continue
        case $_c in
            rpc.statd) _statd=yes ;;
            rpcbind) _rpcbind=yes ;;
            multipathd) _mpd=yes ;;
            iscsid) _iscsid=yes ;;
            # the kubelet itself, or the process that embeds it (MicroK8s' kubelite, k3s)
            kubelet | kubelite | k3s-server | k3s-agent)
                _kubelet=yes
                # a kubelet process wins over a k3s/kubelite one seen before it
                if [ -z "$KPID" ] || [ "$_c" = kubelet ]; then KPID=${_p#/proc/}; fi
                ;;
        esac
    done
    rec process rpc.statd "$_statd"
    rec process rpcbind "$_rpcbind"
    rec process kubelet "$_kubelet"
    rec process multipathd "$_mpd"
    rec process iscsid "$_iscsid"
fi

# --- kubelet root dir and pod directories -------------------------------------------------------

KROOT=
KSRC=
KCONFIG=
if [ -n "${VOLMNT_KUBELET_ROOT:-}" ]; then
    KROOT=$VOLMNT_KUBELET_ROOT
    KSRC=env
elif [ -n "$KPID" ] && [ -r "/proc/$KPID/cmdline" ]; then
    # Reading another process's cmdline can block while that process is stuck in the kernel:
    # under the time limit.
    _args=$(run kubelet-cmdline tr '\000' '\n' <"/proc/$KPID/cmdline")
    _prev=
    _save=$IFS
    IFS=$NL
    set -f
    for _a in $_args; do
        case $_a in
            --root-dir=* | -root-dir=*) KROOT=${_a#*=} ;;
            --config=* | -config=*) KCONFIG=${_a#*=} ;;
        esac
        case $_prev in
            --root-dir | -root-dir) KROOT=$_a ;;
            --config | -config) KCONFIG=$_a ;;
        esac
        _prev=$_a
    done
    set +f
    IFS=$_save
    [ -n "$KROOT" ] && KSRC=flag
fi
if [ -n "$KPID" ] && [ -r "/proc/$KPID/cmdline" ]; then
    # The kubelet's command line, for its flavour and flags; values of flags named like a
    # secret are masked here already (the parser redacts again).
    printf '[kubelet-cmdline]\n'
    run kubelet-cmdline tr '\000' ' ' <"/proc/$KPID/cmdline" | head -c 65536 |
        sed -e 's/\(-[-A-Za-z0-9]*[Tt][Oo][Kk][Ee][Nn][-A-Za-z0-9]*[= ]\)[^ ]*/\1<redacted>/g' \
            -e 's/\(-[-A-Za-z0-9]*[Pp][Aa][Ss][Ss][-A-Za-z0-9]*[= ]\)[^ ]*/\1<redacted>/g' \
            -e 's/\(-[-A-Za-z0-9]*[Ss][Ee][Cc][Rr][Ee][Tt][-A-Za-z0-9]*[= ]\)[^ ]*/\1<redacted>/g' \
            -e 's/^/|/'
    printf '\n'
    # A kubelet in a container (RKE's, kind's): its cgroup names the runtime.
    if [ -r "/proc/$KPID/cgroup" ]; then
        if run kubelet-cgroup grep -Eq 'docker|containerd|kubepods|libpod|crio|podman' "/proc/$KPID/cgroup"; then
            rec kubelet_containerized yes
        else
            rec kubelet_containerized no
        fi
    fi
fi
# MicroK8s keeps the kubelet's flags in its args file, k3s and rke2 theirs in config.yaml
# (`kubelet-arg`): only their root-dir lines are read (those files also hold join tokens).
for _f in /var/snap/microk8s/current/args/kubelet /etc/rancher/k3s/config.yaml \
    /etc/rancher/rke2/config.yaml; do
    [ -f "$R$_f" ] && [ -r "$R$_f" ] || continue
    safe kubelet-args "$_f" || continue
    printf '[kubelet-args %s]\n' "$_f"
    run "kubelet-args $_f" grep -E 'root-dir' "$R$_f" | head -n 20 | sed 's/^/|/'
    if [ -z "$KROOT" ]; then
        _l=$(grep -E 'root-dir' "$R$_f" 2>/dev/null | head -n 1)
        case $_l in
            *root-dir=*)
                _v=${_l#*root-dir=}
                _v=${_v%%[\"\' ,]*}
                _v=${_v%]}
                case $_v in
                    '${SNAP_COMMON}'*) _v=/var/snap/microk8s/common${_v#'${SNAP_COMMON}'} ;;
                    '$SNAP_COMMON'*) _v=/var/snap/microk8s/common${_v#'$SNAP_COMMON'} ;;
                esac
                case $_v in /*) KROOT=$_v KSRC=flag ;; esac
                ;;
        esac
    fi
done
if [ -z "$KROOT" ] && [ -d "$R/var/snap/microk8s/common/var/lib/kubelet" ]; then
    KROOT=/var/snap/microk8s/common/var/lib/kubelet
    KSRC=default
fi
if [ -z "$KROOT" ] && [ -d "$R/var/lib/k0s/kubelet" ]; then
    KROOT=/var/lib/k0s/kubelet
    KSRC=default
fi
# The kubelet's config file (KubeletConfiguration): its top-level settings that bear on
# volumes. It has no root dir: that is a flag only.
case ${KCONFIG:-} in
    /*)
        if [ -f "$R$KCONFIG" ] && [ -r "$R$KCONFIG" ] && safe kubelet-config "$KCONFIG"; then
            printf '[kubelet-config %s]\n' "$KCONFIG"
            run kubelet-config head -c 262144 "$R$KCONFIG" |
                grep -E '^(kind|volumePluginDir|enableSystemLogQuery|enableSystemLogHandler|containerRuntimeEndpoint|cgroupDriver|failSwapOn|protectKernelDefaults|staticPodPath|volumeStatsAggPeriod|maxPods):' |
                sed 's/^/|/'
        fi
        ;;
esac
if [ -z "$KROOT" ]; then
    KROOT=/var/lib/kubelet
    KSRC=default
fi
rec kubelet_root "$KROOT" "$KSRC"

case $KROOT in
    /*)
        if safe pods "$KROOT/pods"; then
            if [ -d "$R$KROOT/pods" ]; then
                rec pods_dir "$KROOT/pods" present
                # One directory's names, never anything below them.
                for _d in "$R$KROOT/pods"/*; do
                    _n=${_d##*/}
                    if [ "$_n" = '*' ] && [ ! -e "$_d" ] && [ ! -L "$_d" ]; then continue; fi
                    rec pod "$_n"
                done
            else
                rec pods_dir "$KROOT/pods" absent
            fi
        else
            rec pods_dir "$KROOT/pods" skipped
        fi
        ;;
    *) rec error kubelet_root "not an absolute path" ;;
esac

# --- what can be seen: the kernel log's restriction and our capabilities -------------------------

DMESG_RESTRICT=
CAPSYSLOG=
if [ "$LIVE" = 1 ]; then
    if [ -r /proc/sys/kernel/dmesg_restrict ]; then
        IFS= read -r DMESG_RESTRICT </proc/sys/kernel/dmesg_restrict || true
        [ -n "$DMESG_RESTRICT" ] && rec dmesg_restrict "$DMESG_RESTRICT"
    fi
    # CAP_SYSLOG is bit 34 of CapEff: the ninth hex digit from the right, value 4.
    _ce=
    if [ -r /proc/self/status ]; then
        while IFS= read -r _l; do
            case $_l in CapEff:*) _ce=${_l#CapEff:} ;; esac
        done </proc/self/status
    fi
    # shellcheck disable=SC2086
    _ce=$(printf '%s' $_ce)
    if [ -n "$_ce" ]; then
        while [ "${#_ce}" -gt 9 ]; do _ce=${_ce#?}; done
        CAPSYSLOG=no
        if [ "${#_ce}" -eq 9 ]; then
            case ${_ce%????????} in [4567cdefCDEF]) CAPSYSLOG=yes ;; esac
        fi
        rec cap_syslog "$CAPSYSLOG"
    fi
fi

# --- block devices: TYPE and UUID without opening any ---------------------------------------------

# Opening a block device could hang on a dead path (iSCSI, multipath, rbd), and a probe pod's
# device cgroup forbids it anyway: what udev and blkid recorded when each device appeared is read.
rec unavailable blkid "block devices are not opened by the probe (a hung device would block it; a pod cannot open them): TYPE and UUID are udev's and blkid's cache's, as of when each device appeared"
if [ -f "$R/run/blkid/blkid.tab" ] && [ -r "$R/run/blkid/blkid.tab" ]; then
    printf '[blkid-cache]\n'
    run blkid-cache head -n 4096 "$R/run/blkid/blkid.tab" | sed 's/^/|/'
fi
SYSB=
if [ "$LIVE" = 1 ]; then
    for _d in "$R/sys/class/block" /sys/class/block; do
        if [ -d "$_d" ]; then
            SYSB=$_d
            break
        fi
    done
fi
if [ -n "$SYSB" ] && [ -d "$R/run/udev/data" ]; then
    printf '[blkid-udev]\n'
    _n=0
    for _b in "$SYSB"/*; do
        [ -r "$_b/dev" ] || continue
        _n=$((_n + 1))
        [ "$_n" -gt 512 ] && break
        _mm=
        IFS= read -r _mm <"$_b/dev" || continue
        _f="$R/run/udev/data/b$_mm"
        [ -f "$_f" ] && [ -r "$_f" ] || continue
        printf '|DEVNAME=/dev/%s\n' "${_b##*/}"
        grep -E '^E:ID_FS_(TYPE|UUID|UUID_SUB|LABEL|VERSION)=' "$_f" 2>/dev/null | head -n 8 | sed 's/^E:/|/'
        printf '|\n'
    done
fi

# --- multipath and iSCSI ------------------------------------------------------------------------

for _f in "$R/etc/multipath.conf" "$R"/etc/multipath/conf.d/*.conf; do
    [ -f "$_f" ] && [ -r "$_f" ] || continue
    rec multipath_conf "${_f#"$R"}"
    printf '[multipath-conf]\n'
    run multipath-conf head -n 2000 "$_f" | sed 's/^/|/'
done
SYSBLOCK=
if [ "$LIVE" = 1 ]; then
    for _d in "$R/sys/block" /sys/block; do
        if [ -d "$_d" ]; then
            SYSBLOCK=$_d
            break
        fi
    done
fi
if [ -n "$SYSBLOCK" ]; then
    for _d in "$SYSBLOCK"/dm-*; do
        [ -r "$_d/dm/uuid" ] || continue
        _u=
        IFS= read -r _u <"$_d/dm/uuid" || continue
        case $_u in mpath-*) ;; *) continue ;; esac
        _nm=
        [ -r "$_d/dm/name" ] && IFS= read -r _nm <"$_d/dm/name"
        _paths= _vendor= _model=
        for _s in "$_d"/slaves/*; do
            [ -e "$_s" ] || continue
            _paths="$_paths ${_s##*/}"
            if [ -z "$_vendor" ] && [ -r "$SYSBLOCK/${_s##*/}/device/vendor" ]; then
                IFS= read -r _vendor <"$SYSBLOCK/${_s##*/}/device/vendor"
                [ -r "$SYSBLOCK/${_s##*/}/device/model" ] && IFS= read -r _model <"$SYSBLOCK/${_s##*/}/device/model"
            fi
        done
        # shellcheck disable=SC2086
        rec multipath_map "$_nm" "${_u#mpath-}" "${_d##*/}" "$_vendor" "$_model" $_paths
    done
fi

if [ -f "$R/etc/iscsi/initiatorname.iscsi" ] && [ -r "$R/etc/iscsi/initiatorname.iscsi" ]; then
    printf '[iscsi-initiatorname]\n'
    run iscsi-initiatorname head -n 50 "$R/etc/iscsi/initiatorname.iscsi" | grep -v '^#' | sed 's/^/|/'
else
    rec iscsi_initiatorname absent
fi
# Sessions as `iscsiadm -m session` prints them, from sysfs (iscsiadm asks iscsid over a socket a
# pod cannot reach).
_is=
if [ "$LIVE" = 1 ]; then
    for _d in "$R/sys/class/iscsi_session" /sys/class/iscsi_session; do
        if [ -d "$_d" ]; then
            _is=$_d
            break
        fi
    done
fi
if [ -n "$_is" ]; then
    _ic=${_is%/iscsi_session}/iscsi_connection
    printf '[iscsi-sessions]\n'
    for _s in "$_is"/session*; do
        [ -r "$_s/targetname" ] || continue
        _sid=${_s##*/session}
        _t= _tp= _a= _pt=
        IFS= read -r _t <"$_s/targetname"
        [ -r "$_s/tpgt" ] && IFS= read -r _tp <"$_s/tpgt"
        [ -r "$_ic/connection$_sid:0/persistent_address" ] && IFS= read -r _a <"$_ic/connection$_sid:0/persistent_address"
        [ -r "$_ic/connection$_sid:0/persistent_port" ] && IFS= read -r _pt <"$_ic/connection$_sid:0/persistent_port"
        printf '|tcp: [%s] %s:%s,%s %s (non-flash)\n' "$_sid" "${_a:-?}" "${_pt:-3260}" "${_tp:-1}" "$_t"
    done
fi

# --- df of the kubelet's root dir and of the pod's (non-network) volumes -----------------------

# do_df PATH...: df -P and df -Pi of the paths (a function: its own positional parameters).
do_df() {
    [ "$#" -gt 0 ] || return 0
    IFS=" $TAB$NL"
    printf '[df]\n'
    run df df -P "$@" 2>&1 | head -n 100 | sed 's/^/|/'
    printf '[df-i]\n'
    run df df -Pi "$@" 2>&1 | head -n 100 | sed 's/^/|/'
}
case $LIVE$KROOT in
    1/*)
        if safe df "$KROOT" && [ -d "$R$KROOT" ]; then
            _vols=
            if [ -n "${VOLMNT_POD_UID:-}" ] && [ -n "$MI" ] && [ -n "$HAVE_AWK" ]; then
                _vols=$(run df-volumes awk -v u="/pods/$VOLMNT_POD_UID/volumes/" '{
                    t = ""
                    for (i = 7; i < NF; i++) if ($i == "-") { t = $(i + 1); break }
                    if (index($5, u) && t !~ /^(nfs|nfs4|cifs|smb3|smbfs|glusterfs|ceph|9p|afs|fuse)$/ && t !~ /^fuse\./ && $5 !~ /\\/) print $5
                }' "$MI" | head -n 20)
            fi
            _save=$IFS
            IFS=$NL
            set -f
            _dfl="$R$KROOT"
            for _v in $_vols; do
                safe df "$_v" && _dfl="$_dfl$NL$R$_v"
            done
            # shellcheck disable=SC2086
            do_df $_dfl
            set +f
            IFS=$_save
        fi
        ;;
esac

# --- the storage clients' packages, from the package databases' files ---------------------------

_debpk='nfs-common open-iscsi multipath-tools ceph-common cifs-utils glusterfs-client xfsprogs e2fsprogs'
_rpmpk='nfs-utils iscsi-initiator-utils device-mapper-multipath ceph-common cifs-utils glusterfs-fuse xfsprogs e2fsprogs'
_apkpk='nfs-utils open-iscsi multipath-tools ceph-common cifs-utils glusterfs xfsprogs e2fsprogs'
if [ -f "$R/var/lib/dpkg/status" ] && [ -r "$R/var/lib/dpkg/status" ] && [ -n "$HAVE_AWK" ]; then
    # shellcheck disable=SC2086
    rec packages_checked dpkg $_debpk
    printf '[dpkg-status]\n'
    run dpkg-status awk -v want=" $_debpk " '
        /^Package: / { p = substr($0, 10); keep = index(want, " " p " ") }
        keep && /^(Package|Status|Version): / { print "|" $0 }
        /^$/ { if (keep) print "|"; keep = 0 }' "$R/var/lib/dpkg/status"
elif [ -f "$R/lib/apk/db/installed" ] && [ -r "$R/lib/apk/db/installed" ] && [ -n "$HAVE_AWK" ]; then
    # shellcheck disable=SC2086
    rec packages_checked apk $_apkpk
    printf '[apk-installed]\n'
    run apk-installed awk -v want=" $_apkpk " '
        /^P:/ { p = substr($0, 3) }
        /^V:/ { if (index(want, " " p " ")) print "|" p " " substr($0, 3) }' "$R/lib/apk/db/installed"
elif [ -d "$R/var/lib/rpm" ] || [ -d "$R/usr/lib/sysimage/rpm" ]; then
    if command -v rpm >/dev/null 2>&1; then
        # shellcheck disable=SC2086
        rec packages_checked rpm $_rpmpk
        printf '[rpm-q]\n'
        if [ -n "$R" ]; then
            # shellcheck disable=SC2086
            run rpm rpm --root "$R" -q $_rpmpk 2>&1 | head -n 50 | sed 's/^/|/'
        else
            # shellcheck disable=SC2086
            run rpm rpm -q $_rpmpk 2>&1 | head -n 50 | sed 's/^/|/'
        fi
    else
        rec unavailable packages "the node keeps an rpm database, and the probe has no rpm to read it"
    fi
fi

# --- NFS servers: do they answer from here (3 s each) --------------------------------------------

TO3=
case $TO in
    "timeout -t"*) TO3="timeout -t 3" ;;
    timeout*) TO3="timeout 3" ;;
esac
# run3 STEP CMD...: like run, within 3 s.
run3() {
    _step=$1
    shift
    if [ -n "$TO3" ]; then $TO3 "$@"; else "$@"; fi
    _rc=$?
    if [ -n "$TO3" ] && { [ "$_rc" -eq 124 ] || [ "$_rc" -eq 143 ]; }; then
        rec error "$_step" "timed out after 3s"
    fi
    return "$_rc"
}
if [ -n "${VOLMNT_NFS_SERVERS:-}" ]; then
    # From the node's network when run on the host (ssh, local) or in a hostNetwork pod
    # (VOLMNT_NET=host); a pod of its own network answers for that network only.
    if [ -n "$R" ] && [ "${VOLMNT_NET:-pod}" != host ]; then rec nfs_checked_from pod; else rec nfs_checked_from node; fi
    _save=$IFS
    IFS=$NL
    set -f
    _n=0
    for _s in $VOLMNT_NFS_SERVERS; do
        IFS=$_save
        [ -n "$_s" ] || continue
        _n=$((_n + 1))
        [ "$_n" -gt 4 ] && break
        rec nfs_server "$_s"
        _any=
        if command -v rpcinfo >/dev/null 2>&1; then
            _any=1
            printf '[rpcinfo %s]\n' "$_s"
            run3 "rpcinfo $_s" rpcinfo -p "$_s" 2>&1 | head -n 100 | sed 's/^/|/'
        fi
        if command -v showmount >/dev/null 2>&1; then
            _any=1
            printf '[showmount %s]\n' "$_s"
            run3 "showmount $_s" showmount -e "$_s" 2>&1 | head -n 200 | sed 's/^/|/'
        fi
        if command -v nc >/dev/null 2>&1; then
            _any=1
            run3 "nfs-tcp $_s" nc -w 3 "$_s" 2049 </dev/null >/dev/null 2>&1
            case $? in
                0) rec nfs_tcp "$_s" 2049 open ;;
                124 | 143) rec nfs_tcp "$_s" 2049 timeout ;;
                *) rec nfs_tcp "$_s" 2049 closed ;;
            esac
        fi
        [ -n "$_any" ] || rec unavailable nfs_servers "$_s: no rpcinfo, showmount or nc on the probe's PATH"
        IFS=$NL
    done
    set +f
    IFS=$_save
fi

# --- kubelet's and the kernel's own words (only when asked) -------------------------------------

# logtail STEP FILE: the matching lines of the tail of a regular local log file.
logtail() {
    _lstep=$1 _lfile=$2
    shift 2
    [ -f "$_lfile" ] && [ -r "$_lfile" ] || return 1
    safe "$_lstep" "${_lfile#"$R"}" || return 1
    rec log_source "$_lstep" "${_lfile#"$R"}"
    run "$_lstep $_lfile" tail -c "$LOGMAX" "$_lfile" | grep -F "$@" 2>/dev/null | tail -n 2000 | sed 's/^/|/'
}

if [ -n "${VOLMNT_LOG_MATCH:-}" ]; then
    LOGMAX=${VOLMNT_LOG_BYTES:-8388608}
    case $LOGMAX in '' | *[!0-9]*) LOGMAX=8388608 ;; esac
    # The strings to look for become grep arguments (-e each), never shell text.
    _save=$IFS
    IFS=$NL
    set -f
    set --
    for _p in $VOLMNT_LOG_MATCH; do
        [ -n "$_p" ] && set -- "$@" -e "$_p"
    done
    set +f
    IFS=$_save
    if [ "$#" -gt 0 ]; then
        printf '[kubelet-log]\n'
        _jd=
        for _d in "$R/var/log/journal" "$R/run/log/journal"; do
            [ -d "$_d" ] && [ -z "$_jd" ] && _jd=$_d
        done
        if command -v journalctl >/dev/null 2>&1 && { [ -z "$R" ] || [ -n "$_jd" ]; }; then
            rec log_source kubelet "journalctl (kubelet, k3s, rke2, microk8s units)"
            if [ -n "$R" ]; then
                set -- --directory="$_jd" "$@"
            fi
            # Every unit kubelet runs as: kubeadm and most packages, k3s (server and agent),
            # rke2, microk8s (kubelite since 1.21, kubelet before).
            run kubelet-journal journalctl --no-pager -q -o short-iso --since=-2h \
                -u kubelet -u k3s -u k3s-agent -u rke2-server -u rke2-agent \
                -u snap.microk8s.daemon-kubelite -u snap.microk8s.daemon-kubelet 2>/dev/null |
                grep -F "$@" 2>/dev/null | tail -n 2000 | sed 's/^/|/'
            [ -n "$R" ] && shift
        fi
        # Plain-text logs: where this kubelet writes (its --log-file, or the file its stdout or
        # stderr is: a kubelet started by hand or by a supervisor that redirects it), then
        # kubelet's usual file, rke2's, k3s's, and syslog where kubelet logs to it. Each file
        # once. /proc is the host's (hostPID, or the host itself); a target is a host path.
        _own=
        if [ -n "$KPID" ] && [ -r "/proc/$KPID/cmdline" ]; then
            _own=$(tr '\000' '\n' <"/proc/$KPID/cmdline" 2>/dev/null | sed -n 's/^--log-file=//p' | head -n 1)
            for _fd in 1 2; do
                _t=$(readlink "/proc/$KPID/fd/$_fd" 2>/dev/null) || continue
                case $_t in /*) _own="$_own$NL$_t" ;; esac
            done
        fi
        _seen=$NL
        _save=$IFS
        IFS=$NL
        for _f in $_own /var/log/kubelet.log /var/log/kubelet/kubelet.log \
            /var/lib/rancher/rke2/agent/logs/kubelet.log /var/log/k3s.log \
            /var/log/syslog /var/log/messages; do
            IFS=$_save
            case $_f in /dev/* | /proc/* | '') IFS=$NL; continue ;; esac
            # The same file under two names (a hard link, a symlink) is read once.
            _ino=$(ls -Li "$R$_f" 2>/dev/null | awk '{print $1}')
            case $_seen in *"$NL$_f$NL"* | *"${NL}ino:$_ino$NL"*) IFS=$NL; continue ;; esac
            _seen="$_seen$_f$NL"
            [ -n "$_ino" ] && _seen="${_seen}ino:$_ino$NL"
            logtail kubelet "$R$_f" "$@"
            IFS=$NL
        done
        IFS=$_save
    fi
fi

WANT_KLOG=
[ -n "${VOLMNT_LOG_MATCH:-}" ] && WANT_KLOG=1
[ "${VOLMNT_KERNEL_LOG:-}" = 1 ] && WANT_KLOG=1
if [ -n "$WANT_KLOG" ]; then
    LOGMAX=${VOLMNT_LOG_BYTES:-8388608}
    case $LOGMAX in '' | *[!0-9]*) LOGMAX=8388608 ;; esac
    # The storage words: the same text as KERNEL_STORAGE_PATTERN in src/parse/transcripts/kernel_log.rs.
    KPAT='rbd|libceph|ceph|nfs|lockd[: ]|sunrpc|cifs|smb[23: ]|ksmbd|iscsi|scsi|\[sd[a-z]|\[vd[a-z]|xvd[a-z]|nvme|virtio_blk|dm-[0-9]|device-mapper|multipath|loop[0-9]|nbd[0-9]|drbd|blk_update_request|i/o error|buffer i/o|xfs|ext[234]|btrfs|jbd2|fuse[:. ]|fuseblk|vfs:|avc: +denied|apparmor=.denied'
    printf '[kernel-log]\n'
    _kread=
    if [ "$LIVE" = 1 ] && [ -n "$R" ] && [ "${VOLMNT_DMESG:-}" != 1 ]; then
        # In a probe pod the ring buffer is read only when asked (--probe-kernel-log).
        rec unavailable kernel_log "the kernel ring buffer (dmesg): not asked for (kernel.dmesg_restrict=${DMESG_RESTRICT:-?}; --probe-kernel-log reads it, with CAP_SYSLOG)"
    elif [ "$LIVE" = 1 ] && command -v dmesg >/dev/null 2>&1; then
        if [ "$DMESG_RESTRICT" = 1 ] && [ "$CAPSYSLOG" = no ]; then
            rec unavailable kernel_log "the kernel ring buffer (dmesg): kernel.dmesg_restrict=1 and the probe has no CAP_SYSLOG"
        else
            rec log_source kernel dmesg
            _kread=1
            # A refusal is kept (`dmesg: read kernel buffer failed: ...`): the parser says so.
            run kernel-dmesg dmesg 2>&1 | grep -iE "$KPAT|read kernel buffer failed|klogctl" 2>/dev/null |
                tail -n 2000 | sed 's/^/|/'
        fi
    fi
    # The journal's files (readable without a capability) when journalctl is there.
    _jd=
    for _d in "$R/var/log/journal" "$R/run/log/journal"; do
        [ -d "$_d" ] && [ -z "$_jd" ] && _jd=$_d
    done
    if command -v journalctl >/dev/null 2>&1 && { [ -z "$R" ] || [ -n "$_jd" ]; }; then
        rec log_source kernel "journalctl -k"
        _kread=1
        if [ -n "$R" ]; then
            run kernel-journal journalctl -k --directory="$_jd" --no-pager -q -o short-iso --since=-2h 2>/dev/null |
                grep -iE "$KPAT" 2>/dev/null | tail -n 2000 | sed 's/^/|/'
        else
            run kernel-journal journalctl -k --no-pager -q -o short-iso --since=-2h 2>/dev/null |
                grep -iE "$KPAT" 2>/dev/null | tail -n 2000 | sed 's/^/|/'
        fi
    elif [ -n "$_jd" ]; then
        rec unavailable kernel_log "the journal at ${_jd#"$R"}: the probe has no journalctl to read it (an image with systemd's journalctl can, e.g. --probe-image debian:12)"
    fi
    for _f in /var/log/kern.log /var/log/messages /var/log/syslog; do
        if [ -f "$R$_f" ] && [ -r "$R$_f" ] && safe kernel "$_f"; then
            rec log_source kernel "$_f"
            _kread=1
            run "kernel $_f" tail -c "$LOGMAX" "$R$_f" | grep ' kernel: ' 2>/dev/null |
                grep -iE "$KPAT" 2>/dev/null | tail -n 2000 | sed 's/^/|/'
        fi
    done
    [ -n "$_kread" ] || rec unavailable kernel_log "no kernel log could be read: no dmesg access, no journal, no kern.log/messages/syslog under /var/log"
fi

printf 'end\n'
