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
#                        lines about rbd, nfs, xfs, ext4, cifs and ceph, are printed too (the last
#                        VOLMNT_LOG_BYTES of each log, default 8 MiB; at most 2000 lines each)
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
    find_prog "$_n" && rec helper "$_n" "$FOUND"
done
for _n in ceph-fuse rbd rbd-nbd iscsiadm multipath multipathd mkfs.ext4 fsck.ext4 e2fsck \
    mkfs.xfs fsck.xfs xfs_repair systemd-run mount umount findmnt showmount rpc.statd rpcbind \
    blkid modprobe nsenter; do
    find_prog "$_n" && rec tool "$_n" "$FOUND"
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
for _m in nfs nfsv3 nfsv4 rbd ceph cifs iscsi_tcp fuse nbd xfs ext4 dm_multipath; do
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
    _statd=no _rpcbind=no _kubelet=no
    for _p in /proc/[0-9]*; do
        _c=
        { IFS= read -r _c <"$_p/comm"; } 2>/dev/null || continue
        case $_c in
            rpc.statd) _statd=yes ;;
            rpcbind) _rpcbind=yes ;;
            kubelet)
                _kubelet=yes
                KPID=${_p#/proc/}
                ;;
        esac
    done
    rec process rpc.statd "$_statd"
    rec process rpcbind "$_rpcbind"
    rec process kubelet "$_kubelet"
fi

# --- kubelet root dir and pod directories -------------------------------------------------------

KROOT=
KSRC=
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
        esac
        case $_prev in --root-dir | -root-dir) KROOT=$_a ;; esac
        _prev=$_a
    done
    set +f
    IFS=$_save
    [ -n "$KROOT" ] && KSRC=flag
fi
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
        # Plain-text logs: kubelet's own file, rke2's, k3s's, and syslog where kubelet logs to it.
        for _f in /var/log/kubelet.log /var/log/kubelet/kubelet.log \
            /var/lib/rancher/rke2/agent/logs/kubelet.log /var/log/k3s.log \
            /var/log/syslog /var/log/messages; do
            logtail kubelet "$R$_f" "$@"
        done
        printf '[kernel-log]\n'
        _kpat='rbd|libceph|nfs|NFS|XFS|EXT4-fs|EXT3-fs|CIFS|SMB|I/O error|blk_update_request|Buffer I/O'
        if [ "$LIVE" = 1 ] && [ -z "$R" ] && command -v dmesg >/dev/null 2>&1; then
            rec log_source kernel dmesg
            run kernel-dmesg dmesg 2>/dev/null | grep -E "$_kpat" 2>/dev/null | tail -n 2000 | sed 's/^/|/'
        fi
        for _f in /var/log/kern.log /var/log/messages /var/log/syslog; do
            if [ -f "$R$_f" ] && [ -r "$R$_f" ] && safe kernel "$_f"; then
                rec log_source kernel "$_f"
                run "kernel $_f" tail -c "$LOGMAX" "$R$_f" | grep ' kernel: ' 2>/dev/null |
                    grep -E "$_kpat" 2>/dev/null | tail -n 2000 | sed 's/^/|/'
            fi
        done
    fi
fi

printf 'end\n'
