# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_volmnt_global_optspecs
    string join \n o/output= color= v/verbose kubeconfig= context= request-timeout= cluster= user= s/server= token= certificate-authority= client-certificate= client-key= insecure-skip-tls-verify as= as-group= h/help V/version
end

function __fish_volmnt_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_volmnt_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_volmnt_using_subcommand
    set -l cmd (__fish_volmnt_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c volmnt -n "__fish_volmnt_needs_command" -s o -l output -d 'Output format: a readable report, or one JSON/YAML document on stdout' -r -f -a "text\t'Readable report (coloured on a terminal)'
json\t'One JSON document, described by schema/volmnt.schema.json (in the release archive)'
yaml\t'The same document as YAML'
junit\t'JUnit XML, one test case per node and requirement (node check only)'"
complete -c volmnt -n "__fish_volmnt_needs_command" -l color -d 'Colour the text report (auto: only on a terminal, and never when NO_COLOR is set)' -r -f -a "auto\t'Colour when stdout is a terminal and NO_COLOR is not set'
always\t''
never\t''"
complete -c volmnt -n "__fish_volmnt_needs_command" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, which may list several files, then ~/.kube/config, then in-cluster)' -r -F
complete -c volmnt -n "__fish_volmnt_needs_command" -l context -d 'The kubeconfig context to use (default: the current context)' -r
complete -c volmnt -n "__fish_volmnt_needs_command" -l request-timeout -d 'Give up on a request to the API server after this long (e.g. 5s, 1m, 500ms)' -r
complete -c volmnt -n "__fish_volmnt_needs_command" -l cluster -d 'The kubeconfig cluster to use (default: the context\'s)' -r
complete -c volmnt -n "__fish_volmnt_needs_command" -l user -d 'The kubeconfig user to use (default: the context\'s)' -r
complete -c volmnt -n "__fish_volmnt_needs_command" -s s -l server -d 'The address of the API server (as kubectl\'s --server; works without a kubeconfig)' -r
complete -c volmnt -n "__fish_volmnt_needs_command" -l token -d 'Bearer token for the API server (as kubectl\'s --token; never printed)' -r
complete -c volmnt -n "__fish_volmnt_needs_command" -l certificate-authority -d 'A CA certificate file to verify the API server with' -r -F
complete -c volmnt -n "__fish_volmnt_needs_command" -l client-certificate -d 'A client certificate file for TLS' -r -F
complete -c volmnt -n "__fish_volmnt_needs_command" -l client-key -d 'A client key file for TLS' -r -F
complete -c volmnt -n "__fish_volmnt_needs_command" -l as -d 'Act as this user (impersonation, as kubectl\'s --as; needs impersonate rights)' -r
complete -c volmnt -n "__fish_volmnt_needs_command" -l as-group -d 'Act as this group (repeatable; with --as)' -r
complete -c volmnt -n "__fish_volmnt_needs_command" -s v -l verbose -d 'Say more on stderr about what was read and decided (with a cluster: the request count)'
complete -c volmnt -n "__fish_volmnt_needs_command" -l insecure-skip-tls-verify -d 'Do not verify the API server\'s certificate (insecure, as kubectl\'s flag)'
complete -c volmnt -n "__fish_volmnt_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c volmnt -n "__fish_volmnt_needs_command" -s V -l version -d 'Print version'
complete -c volmnt -n "__fish_volmnt_needs_command" -f -a "explain" -d 'Classify raw error messages (event messages, kubelet log lines, mount output)'
complete -c volmnt -n "__fish_volmnt_needs_command" -f -a "doctor" -d 'Diagnose a stuck pod'
complete -c volmnt -n "__fish_volmnt_needs_command" -f -a "node" -d 'Check what a node can mount (over SSH, through a short-lived pod, or locally); CI preflight'
complete -c volmnt -n "__fish_volmnt_needs_command" -f -a "rbd" -d 'Find who holds an RBD image (locks and watchers) and release it only when provably stale'
complete -c volmnt -n "__fish_volmnt_needs_command" -f -a "watch" -d 'Run as a controller: diagnose every pod stuck on volumes as it happens, write the verdict onto the pod as an Event, export Prometheus metrics'
complete -c volmnt -n "__fish_volmnt_needs_command" -f -a "completions" -d 'Print a shell completion script'
complete -c volmnt -n "__fish_volmnt_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c volmnt -n "__fish_volmnt_using_subcommand explain" -l node-os -d 'The node\'s OS (osImage such as "Ubuntu 22.04.4 LTS", or rhel|debian|suse|alpine|immutable), for install commands' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand explain" -s o -l output -d 'Output format: a readable report, or one JSON/YAML document on stdout' -r -f -a "text\t'Readable report (coloured on a terminal)'
json\t'One JSON document, described by schema/volmnt.schema.json (in the release archive)'
yaml\t'The same document as YAML'
junit\t'JUnit XML, one test case per node and requirement (node check only)'"
complete -c volmnt -n "__fish_volmnt_using_subcommand explain" -l color -d 'Colour the text report (auto: only on a terminal, and never when NO_COLOR is set)' -r -f -a "auto\t'Colour when stdout is a terminal and NO_COLOR is not set'
always\t''
never\t''"
complete -c volmnt -n "__fish_volmnt_using_subcommand explain" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, which may list several files, then ~/.kube/config, then in-cluster)' -r -F
complete -c volmnt -n "__fish_volmnt_using_subcommand explain" -l context -d 'The kubeconfig context to use (default: the current context)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand explain" -l request-timeout -d 'Give up on a request to the API server after this long (e.g. 5s, 1m, 500ms)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand explain" -l cluster -d 'The kubeconfig cluster to use (default: the context\'s)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand explain" -l user -d 'The kubeconfig user to use (default: the context\'s)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand explain" -s s -l server -d 'The address of the API server (as kubectl\'s --server; works without a kubeconfig)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand explain" -l token -d 'Bearer token for the API server (as kubectl\'s --token; never printed)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand explain" -l certificate-authority -d 'A CA certificate file to verify the API server with' -r -F
complete -c volmnt -n "__fish_volmnt_using_subcommand explain" -l client-certificate -d 'A client certificate file for TLS' -r -F
complete -c volmnt -n "__fish_volmnt_using_subcommand explain" -l client-key -d 'A client key file for TLS' -r -F
complete -c volmnt -n "__fish_volmnt_using_subcommand explain" -l as -d 'Act as this user (impersonation, as kubectl\'s --as; needs impersonate rights)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand explain" -l as-group -d 'Act as this group (repeatable; with --as)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand explain" -s v -l verbose -d 'Say more on stderr about what was read and decided (with a cluster: the request count)'
complete -c volmnt -n "__fish_volmnt_using_subcommand explain" -l insecure-skip-tls-verify -d 'Do not verify the API server\'s certificate (insecure, as kubectl\'s flag)'
complete -c volmnt -n "__fish_volmnt_using_subcommand explain" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c volmnt -n "__fish_volmnt_using_subcommand explain" -s V -l version -d 'Print version'
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and not __fish_seen_subcommand_from pod pods po namespace ns namespaces help" -s o -l output -d 'Output format: a readable report, or one JSON/YAML document on stdout' -r -f -a "text\t'Readable report (coloured on a terminal)'
json\t'One JSON document, described by schema/volmnt.schema.json (in the release archive)'
yaml\t'The same document as YAML'
junit\t'JUnit XML, one test case per node and requirement (node check only)'"
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and not __fish_seen_subcommand_from pod pods po namespace ns namespaces help" -l color -d 'Colour the text report (auto: only on a terminal, and never when NO_COLOR is set)' -r -f -a "auto\t'Colour when stdout is a terminal and NO_COLOR is not set'
always\t''
never\t''"
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and not __fish_seen_subcommand_from pod pods po namespace ns namespaces help" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, which may list several files, then ~/.kube/config, then in-cluster)' -r -F
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and not __fish_seen_subcommand_from pod pods po namespace ns namespaces help" -l context -d 'The kubeconfig context to use (default: the current context)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and not __fish_seen_subcommand_from pod pods po namespace ns namespaces help" -l request-timeout -d 'Give up on a request to the API server after this long (e.g. 5s, 1m, 500ms)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and not __fish_seen_subcommand_from pod pods po namespace ns namespaces help" -l cluster -d 'The kubeconfig cluster to use (default: the context\'s)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and not __fish_seen_subcommand_from pod pods po namespace ns namespaces help" -l user -d 'The kubeconfig user to use (default: the context\'s)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and not __fish_seen_subcommand_from pod pods po namespace ns namespaces help" -s s -l server -d 'The address of the API server (as kubectl\'s --server; works without a kubeconfig)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and not __fish_seen_subcommand_from pod pods po namespace ns namespaces help" -l token -d 'Bearer token for the API server (as kubectl\'s --token; never printed)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and not __fish_seen_subcommand_from pod pods po namespace ns namespaces help" -l certificate-authority -d 'A CA certificate file to verify the API server with' -r -F
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and not __fish_seen_subcommand_from pod pods po namespace ns namespaces help" -l client-certificate -d 'A client certificate file for TLS' -r -F
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and not __fish_seen_subcommand_from pod pods po namespace ns namespaces help" -l client-key -d 'A client key file for TLS' -r -F
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and not __fish_seen_subcommand_from pod pods po namespace ns namespaces help" -l as -d 'Act as this user (impersonation, as kubectl\'s --as; needs impersonate rights)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and not __fish_seen_subcommand_from pod pods po namespace ns namespaces help" -l as-group -d 'Act as this group (repeatable; with --as)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and not __fish_seen_subcommand_from pod pods po namespace ns namespaces help" -s v -l verbose -d 'Say more on stderr about what was read and decided (with a cluster: the request count)'
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and not __fish_seen_subcommand_from pod pods po namespace ns namespaces help" -l insecure-skip-tls-verify -d 'Do not verify the API server\'s certificate (insecure, as kubectl\'s flag)'
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and not __fish_seen_subcommand_from pod pods po namespace ns namespaces help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and not __fish_seen_subcommand_from pod pods po namespace ns namespaces help" -s V -l version -d 'Print version'
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and not __fish_seen_subcommand_from pod pods po namespace ns namespaces help" -f -a "pod" -d 'Diagnose one pod: live from the cluster, or from saved output (--from-file), or a bundled real case (--example)'
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and not __fish_seen_subcommand_from pod pods po namespace ns namespaces help" -f -a "pods" -d 'Diagnose one pod: live from the cluster, or from saved output (--from-file), or a bundled real case (--example)'
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and not __fish_seen_subcommand_from pod pods po namespace ns namespaces help" -f -a "po" -d 'Diagnose one pod: live from the cluster, or from saved output (--from-file), or a bundled real case (--example)'
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and not __fish_seen_subcommand_from pod pods po namespace ns namespaces help" -f -a "namespace" -d 'Find the pods of a namespace (or all, -A) stuck on volumes and diagnose each, grouped by cause and node'
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and not __fish_seen_subcommand_from pod pods po namespace ns namespaces help" -f -a "ns" -d 'Find the pods of a namespace (or all, -A) stuck on volumes and diagnose each, grouped by cause and node'
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and not __fish_seen_subcommand_from pod pods po namespace ns namespaces help" -f -a "namespaces" -d 'Find the pods of a namespace (or all, -A) stuck on volumes and diagnose each, grouped by cause and node'
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and not __fish_seen_subcommand_from pod pods po namespace ns namespaces help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from pod" -s n -l namespace -d 'The pod\'s namespace' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from pod" -s f -l from-file -d 'Read saved output from FILE (repeatable; `-` for stdin). With a pod NAME and a cluster in the kubeconfig, the files add to the live read (a kubelet log beside the live objects)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from pod" -l example -d 'Diagnose a bundled real case instead of files' -r -f -a "nfs\t'2020: NFS PV on a fresh node without nfs-utils (describe + the node\'s OS)'
rbd\t'2017: Ceph RBD image locked by the old node (events + kubelet log + rbd lock list)'"
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from pod" -l node-os -d 'The node\'s OS (osImage such as "CentOS Linux 7 (Core)", or rhel|debian|suse|alpine|immutable), when no Node object is given' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from pod" -l max-input-mib -d 'Refuse inputs larger than this many MiB (a kubelet log is best cut with journalctl --since)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from pod" -l save -d 'Write everything read from the cluster into DIR (replay with --from-file DIR); never Secrets' -r -F
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from pod" -l probe-namespace -d 'Namespace for the probe pod: the one deploy/rbac.yaml prepares (Role volmnt-node-probe, Pod Security label), as for `node check`' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from pod" -l probe-image -d 'Image of the probe pod (it only needs a POSIX sh)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from pod" -l probe-timeout -d 'Give up on the probe after this long (pod start included)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from pod" -s o -l output -d 'Output format: a readable report, or one JSON/YAML document on stdout' -r -f -a "text\t'Readable report (coloured on a terminal)'
json\t'One JSON document, described by schema/volmnt.schema.json (in the release archive)'
yaml\t'The same document as YAML'
junit\t'JUnit XML, one test case per node and requirement (node check only)'"
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from pod" -l color -d 'Colour the text report (auto: only on a terminal, and never when NO_COLOR is set)' -r -f -a "auto\t'Colour when stdout is a terminal and NO_COLOR is not set'
always\t''
never\t''"
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from pod" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, which may list several files, then ~/.kube/config, then in-cluster)' -r -F
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from pod" -l context -d 'The kubeconfig context to use (default: the current context)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from pod" -l request-timeout -d 'Give up on a request to the API server after this long (e.g. 5s, 1m, 500ms)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from pod" -l cluster -d 'The kubeconfig cluster to use (default: the context\'s)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from pod" -l user -d 'The kubeconfig user to use (default: the context\'s)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from pod" -s s -l server -d 'The address of the API server (as kubectl\'s --server; works without a kubeconfig)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from pod" -l token -d 'Bearer token for the API server (as kubectl\'s --token; never printed)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from pod" -l certificate-authority -d 'A CA certificate file to verify the API server with' -r -F
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from pod" -l client-certificate -d 'A client certificate file for TLS' -r -F
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from pod" -l client-key -d 'A client key file for TLS' -r -F
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from pod" -l as -d 'Act as this user (impersonation, as kubectl\'s --as; needs impersonate rights)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from pod" -l as-group -d 'Act as this group (repeatable; with --as)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from pod" -l offline -d 'Read only the files given, never the cluster (replaying a saved case, or a pod NAME that is not the current cluster\'s)'
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from pod" -l probe-node -d 'Also run volmnt\'s read-only probe on the pod\'s node, through a short-lived pod (hostPID, host root read-only; announced first, deleted on every path), so a missing mount helper is confirmed or ruled out'
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from pod" -l probe-kernel-log -d 'Let the probe read the kernel log: adds CAP_SYSLOG (only that) to the probe pod, which kernel.dmesg_restrict=1 requires for dmesg. Without it the probe reads the kernel\'s lines only from /var/log files and the journal, and the report says the ring buffer was not read'
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from pod" -l probe-nfs -d 'With --probe-node: also ask, from the node, whether the pod\'s NFS servers answer (`rpcinfo -p`, `showmount -e` and a TCP connect to 2049, 3 s each, where the probe image has them). Off by default: it sends traffic from the node to each server'
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from pod" -s v -l verbose -d 'Say more on stderr about what was read and decided (with a cluster: the request count)'
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from pod" -l insecure-skip-tls-verify -d 'Do not verify the API server\'s certificate (insecure, as kubectl\'s flag)'
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from pod" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from pod" -s V -l version -d 'Print version'
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from pods" -s n -l namespace -d 'The pod\'s namespace' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from pods" -s f -l from-file -d 'Read saved output from FILE (repeatable; `-` for stdin). With a pod NAME and a cluster in the kubeconfig, the files add to the live read (a kubelet log beside the live objects)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from pods" -l example -d 'Diagnose a bundled real case instead of files' -r -f -a "nfs\t'2020: NFS PV on a fresh node without nfs-utils (describe + the node\'s OS)'
rbd\t'2017: Ceph RBD image locked by the old node (events + kubelet log + rbd lock list)'"
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from pods" -l node-os -d 'The node\'s OS (osImage such as "CentOS Linux 7 (Core)", or rhel|debian|suse|alpine|immutable), when no Node object is given' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from pods" -l max-input-mib -d 'Refuse inputs larger than this many MiB (a kubelet log is best cut with journalctl --since)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from pods" -l save -d 'Write everything read from the cluster into DIR (replay with --from-file DIR); never Secrets' -r -F
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from pods" -l probe-namespace -d 'Namespace for the probe pod: the one deploy/rbac.yaml prepares (Role volmnt-node-probe, Pod Security label), as for `node check`' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from pods" -l probe-image -d 'Image of the probe pod (it only needs a POSIX sh)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from pods" -l probe-timeout -d 'Give up on the probe after this long (pod start included)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from pods" -s o -l output -d 'Output format: a readable report, or one JSON/YAML document on stdout' -r -f -a "text\t'Readable report (coloured on a terminal)'
json\t'One JSON document, described by schema/volmnt.schema.json (in the release archive)'
yaml\t'The same document as YAML'
junit\t'JUnit XML, one test case per node and requirement (node check only)'"
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from pods" -l color -d 'Colour the text report (auto: only on a terminal, and never when NO_COLOR is set)' -r -f -a "auto\t'Colour when stdout is a terminal and NO_COLOR is not set'
always\t''
never\t''"
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from pods" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, which may list several files, then ~/.kube/config, then in-cluster)' -r -F
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from pods" -l context -d 'The kubeconfig context to use (default: the current context)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from pods" -l request-timeout -d 'Give up on a request to the API server after this long (e.g. 5s, 1m, 500ms)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from pods" -l cluster -d 'The kubeconfig cluster to use (default: the context\'s)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from pods" -l user -d 'The kubeconfig user to use (default: the context\'s)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from pods" -s s -l server -d 'The address of the API server (as kubectl\'s --server; works without a kubeconfig)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from pods" -l token -d 'Bearer token for the API server (as kubectl\'s --token; never printed)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from pods" -l certificate-authority -d 'A CA certificate file to verify the API server with' -r -F
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from pods" -l client-certificate -d 'A client certificate file for TLS' -r -F
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from pods" -l client-key -d 'A client key file for TLS' -r -F
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from pods" -l as -d 'Act as this user (impersonation, as kubectl\'s --as; needs impersonate rights)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from pods" -l as-group -d 'Act as this group (repeatable; with --as)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from pods" -l offline -d 'Read only the files given, never the cluster (replaying a saved case, or a pod NAME that is not the current cluster\'s)'
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from pods" -l probe-node -d 'Also run volmnt\'s read-only probe on the pod\'s node, through a short-lived pod (hostPID, host root read-only; announced first, deleted on every path), so a missing mount helper is confirmed or ruled out'
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from pods" -l probe-kernel-log -d 'Let the probe read the kernel log: adds CAP_SYSLOG (only that) to the probe pod, which kernel.dmesg_restrict=1 requires for dmesg. Without it the probe reads the kernel\'s lines only from /var/log files and the journal, and the report says the ring buffer was not read'
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from pods" -l probe-nfs -d 'With --probe-node: also ask, from the node, whether the pod\'s NFS servers answer (`rpcinfo -p`, `showmount -e` and a TCP connect to 2049, 3 s each, where the probe image has them). Off by default: it sends traffic from the node to each server'
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from pods" -s v -l verbose -d 'Say more on stderr about what was read and decided (with a cluster: the request count)'
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from pods" -l insecure-skip-tls-verify -d 'Do not verify the API server\'s certificate (insecure, as kubectl\'s flag)'
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from pods" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from pods" -s V -l version -d 'Print version'
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from po" -s n -l namespace -d 'The pod\'s namespace' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from po" -s f -l from-file -d 'Read saved output from FILE (repeatable; `-` for stdin). With a pod NAME and a cluster in the kubeconfig, the files add to the live read (a kubelet log beside the live objects)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from po" -l example -d 'Diagnose a bundled real case instead of files' -r -f -a "nfs\t'2020: NFS PV on a fresh node without nfs-utils (describe + the node\'s OS)'
rbd\t'2017: Ceph RBD image locked by the old node (events + kubelet log + rbd lock list)'"
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from po" -l node-os -d 'The node\'s OS (osImage such as "CentOS Linux 7 (Core)", or rhel|debian|suse|alpine|immutable), when no Node object is given' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from po" -l max-input-mib -d 'Refuse inputs larger than this many MiB (a kubelet log is best cut with journalctl --since)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from po" -l save -d 'Write everything read from the cluster into DIR (replay with --from-file DIR); never Secrets' -r -F
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from po" -l probe-namespace -d 'Namespace for the probe pod: the one deploy/rbac.yaml prepares (Role volmnt-node-probe, Pod Security label), as for `node check`' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from po" -l probe-image -d 'Image of the probe pod (it only needs a POSIX sh)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from po" -l probe-timeout -d 'Give up on the probe after this long (pod start included)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from po" -s o -l output -d 'Output format: a readable report, or one JSON/YAML document on stdout' -r -f -a "text\t'Readable report (coloured on a terminal)'
json\t'One JSON document, described by schema/volmnt.schema.json (in the release archive)'
yaml\t'The same document as YAML'
junit\t'JUnit XML, one test case per node and requirement (node check only)'"
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from po" -l color -d 'Colour the text report (auto: only on a terminal, and never when NO_COLOR is set)' -r -f -a "auto\t'Colour when stdout is a terminal and NO_COLOR is not set'
always\t''
never\t''"
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from po" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, which may list several files, then ~/.kube/config, then in-cluster)' -r -F
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from po" -l context -d 'The kubeconfig context to use (default: the current context)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from po" -l request-timeout -d 'Give up on a request to the API server after this long (e.g. 5s, 1m, 500ms)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from po" -l cluster -d 'The kubeconfig cluster to use (default: the context\'s)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from po" -l user -d 'The kubeconfig user to use (default: the context\'s)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from po" -s s -l server -d 'The address of the API server (as kubectl\'s --server; works without a kubeconfig)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from po" -l token -d 'Bearer token for the API server (as kubectl\'s --token; never printed)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from po" -l certificate-authority -d 'A CA certificate file to verify the API server with' -r -F
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from po" -l client-certificate -d 'A client certificate file for TLS' -r -F
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from po" -l client-key -d 'A client key file for TLS' -r -F
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from po" -l as -d 'Act as this user (impersonation, as kubectl\'s --as; needs impersonate rights)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from po" -l as-group -d 'Act as this group (repeatable; with --as)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from po" -l offline -d 'Read only the files given, never the cluster (replaying a saved case, or a pod NAME that is not the current cluster\'s)'
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from po" -l probe-node -d 'Also run volmnt\'s read-only probe on the pod\'s node, through a short-lived pod (hostPID, host root read-only; announced first, deleted on every path), so a missing mount helper is confirmed or ruled out'
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from po" -l probe-kernel-log -d 'Let the probe read the kernel log: adds CAP_SYSLOG (only that) to the probe pod, which kernel.dmesg_restrict=1 requires for dmesg. Without it the probe reads the kernel\'s lines only from /var/log files and the journal, and the report says the ring buffer was not read'
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from po" -l probe-nfs -d 'With --probe-node: also ask, from the node, whether the pod\'s NFS servers answer (`rpcinfo -p`, `showmount -e` and a TCP connect to 2049, 3 s each, where the probe image has them). Off by default: it sends traffic from the node to each server'
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from po" -s v -l verbose -d 'Say more on stderr about what was read and decided (with a cluster: the request count)'
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from po" -l insecure-skip-tls-verify -d 'Do not verify the API server\'s certificate (insecure, as kubectl\'s flag)'
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from po" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from po" -s V -l version -d 'Print version'
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from namespace" -s n -l namespace -d 'The namespace (default: the context\'s)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from namespace" -l min-age -d 'Only pods stuck for at least this long (e.g. 2m, 30s)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from namespace" -l concurrency -d 'Pods diagnosed at the same time' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from namespace" -s o -l output -d 'Output format: a readable report, or one JSON/YAML document on stdout' -r -f -a "text\t'Readable report (coloured on a terminal)'
json\t'One JSON document, described by schema/volmnt.schema.json (in the release archive)'
yaml\t'The same document as YAML'
junit\t'JUnit XML, one test case per node and requirement (node check only)'"
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from namespace" -l color -d 'Colour the text report (auto: only on a terminal, and never when NO_COLOR is set)' -r -f -a "auto\t'Colour when stdout is a terminal and NO_COLOR is not set'
always\t''
never\t''"
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from namespace" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, which may list several files, then ~/.kube/config, then in-cluster)' -r -F
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from namespace" -l context -d 'The kubeconfig context to use (default: the current context)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from namespace" -l request-timeout -d 'Give up on a request to the API server after this long (e.g. 5s, 1m, 500ms)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from namespace" -l cluster -d 'The kubeconfig cluster to use (default: the context\'s)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from namespace" -l user -d 'The kubeconfig user to use (default: the context\'s)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from namespace" -s s -l server -d 'The address of the API server (as kubectl\'s --server; works without a kubeconfig)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from namespace" -l token -d 'Bearer token for the API server (as kubectl\'s --token; never printed)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from namespace" -l certificate-authority -d 'A CA certificate file to verify the API server with' -r -F
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from namespace" -l client-certificate -d 'A client certificate file for TLS' -r -F
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from namespace" -l client-key -d 'A client key file for TLS' -r -F
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from namespace" -l as -d 'Act as this user (impersonation, as kubectl\'s --as; needs impersonate rights)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from namespace" -l as-group -d 'Act as this group (repeatable; with --as)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from namespace" -s A -l all-namespaces -d 'Every namespace'
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from namespace" -l details -d 'Print one full report per group of stuck pods (the sample), after the summary'
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from namespace" -l all-reports -d 'Print every stuck pod\'s full report, after the summary (-o json always has them all)'
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from namespace" -s v -l verbose -d 'Say more on stderr about what was read and decided (with a cluster: the request count)'
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from namespace" -l insecure-skip-tls-verify -d 'Do not verify the API server\'s certificate (insecure, as kubectl\'s flag)'
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from namespace" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from namespace" -s V -l version -d 'Print version'
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from ns" -s n -l namespace -d 'The namespace (default: the context\'s)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from ns" -l min-age -d 'Only pods stuck for at least this long (e.g. 2m, 30s)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from ns" -l concurrency -d 'Pods diagnosed at the same time' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from ns" -s o -l output -d 'Output format: a readable report, or one JSON/YAML document on stdout' -r -f -a "text\t'Readable report (coloured on a terminal)'
json\t'One JSON document, described by schema/volmnt.schema.json (in the release archive)'
yaml\t'The same document as YAML'
junit\t'JUnit XML, one test case per node and requirement (node check only)'"
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from ns" -l color -d 'Colour the text report (auto: only on a terminal, and never when NO_COLOR is set)' -r -f -a "auto\t'Colour when stdout is a terminal and NO_COLOR is not set'
always\t''
never\t''"
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from ns" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, which may list several files, then ~/.kube/config, then in-cluster)' -r -F
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from ns" -l context -d 'The kubeconfig context to use (default: the current context)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from ns" -l request-timeout -d 'Give up on a request to the API server after this long (e.g. 5s, 1m, 500ms)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from ns" -l cluster -d 'The kubeconfig cluster to use (default: the context\'s)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from ns" -l user -d 'The kubeconfig user to use (default: the context\'s)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from ns" -s s -l server -d 'The address of the API server (as kubectl\'s --server; works without a kubeconfig)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from ns" -l token -d 'Bearer token for the API server (as kubectl\'s --token; never printed)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from ns" -l certificate-authority -d 'A CA certificate file to verify the API server with' -r -F
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from ns" -l client-certificate -d 'A client certificate file for TLS' -r -F
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from ns" -l client-key -d 'A client key file for TLS' -r -F
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from ns" -l as -d 'Act as this user (impersonation, as kubectl\'s --as; needs impersonate rights)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from ns" -l as-group -d 'Act as this group (repeatable; with --as)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from ns" -s A -l all-namespaces -d 'Every namespace'
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from ns" -l details -d 'Print one full report per group of stuck pods (the sample), after the summary'
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from ns" -l all-reports -d 'Print every stuck pod\'s full report, after the summary (-o json always has them all)'
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from ns" -s v -l verbose -d 'Say more on stderr about what was read and decided (with a cluster: the request count)'
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from ns" -l insecure-skip-tls-verify -d 'Do not verify the API server\'s certificate (insecure, as kubectl\'s flag)'
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from ns" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from ns" -s V -l version -d 'Print version'
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from namespaces" -s n -l namespace -d 'The namespace (default: the context\'s)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from namespaces" -l min-age -d 'Only pods stuck for at least this long (e.g. 2m, 30s)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from namespaces" -l concurrency -d 'Pods diagnosed at the same time' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from namespaces" -s o -l output -d 'Output format: a readable report, or one JSON/YAML document on stdout' -r -f -a "text\t'Readable report (coloured on a terminal)'
json\t'One JSON document, described by schema/volmnt.schema.json (in the release archive)'
yaml\t'The same document as YAML'
junit\t'JUnit XML, one test case per node and requirement (node check only)'"
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from namespaces" -l color -d 'Colour the text report (auto: only on a terminal, and never when NO_COLOR is set)' -r -f -a "auto\t'Colour when stdout is a terminal and NO_COLOR is not set'
always\t''
never\t''"
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from namespaces" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, which may list several files, then ~/.kube/config, then in-cluster)' -r -F
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from namespaces" -l context -d 'The kubeconfig context to use (default: the current context)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from namespaces" -l request-timeout -d 'Give up on a request to the API server after this long (e.g. 5s, 1m, 500ms)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from namespaces" -l cluster -d 'The kubeconfig cluster to use (default: the context\'s)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from namespaces" -l user -d 'The kubeconfig user to use (default: the context\'s)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from namespaces" -s s -l server -d 'The address of the API server (as kubectl\'s --server; works without a kubeconfig)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from namespaces" -l token -d 'Bearer token for the API server (as kubectl\'s --token; never printed)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from namespaces" -l certificate-authority -d 'A CA certificate file to verify the API server with' -r -F
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from namespaces" -l client-certificate -d 'A client certificate file for TLS' -r -F
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from namespaces" -l client-key -d 'A client key file for TLS' -r -F
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from namespaces" -l as -d 'Act as this user (impersonation, as kubectl\'s --as; needs impersonate rights)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from namespaces" -l as-group -d 'Act as this group (repeatable; with --as)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from namespaces" -s A -l all-namespaces -d 'Every namespace'
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from namespaces" -l details -d 'Print one full report per group of stuck pods (the sample), after the summary'
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from namespaces" -l all-reports -d 'Print every stuck pod\'s full report, after the summary (-o json always has them all)'
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from namespaces" -s v -l verbose -d 'Say more on stderr about what was read and decided (with a cluster: the request count)'
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from namespaces" -l insecure-skip-tls-verify -d 'Do not verify the API server\'s certificate (insecure, as kubectl\'s flag)'
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from namespaces" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from namespaces" -s V -l version -d 'Print version'
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from help" -f -a "pod" -d 'Diagnose one pod: live from the cluster, or from saved output (--from-file), or a bundled real case (--example)'
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from help" -f -a "namespace" -d 'Find the pods of a namespace (or all, -A) stuck on volumes and diagnose each, grouped by cause and node'
complete -c volmnt -n "__fish_volmnt_using_subcommand doctor; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c volmnt -n "__fish_volmnt_using_subcommand node; and not __fish_seen_subcommand_from check gc help" -s o -l output -d 'Output format: a readable report, or one JSON/YAML document on stdout' -r -f -a "text\t'Readable report (coloured on a terminal)'
json\t'One JSON document, described by schema/volmnt.schema.json (in the release archive)'
yaml\t'The same document as YAML'
junit\t'JUnit XML, one test case per node and requirement (node check only)'"
complete -c volmnt -n "__fish_volmnt_using_subcommand node; and not __fish_seen_subcommand_from check gc help" -l color -d 'Colour the text report (auto: only on a terminal, and never when NO_COLOR is set)' -r -f -a "auto\t'Colour when stdout is a terminal and NO_COLOR is not set'
always\t''
never\t''"
complete -c volmnt -n "__fish_volmnt_using_subcommand node; and not __fish_seen_subcommand_from check gc help" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, which may list several files, then ~/.kube/config, then in-cluster)' -r -F
complete -c volmnt -n "__fish_volmnt_using_subcommand node; and not __fish_seen_subcommand_from check gc help" -l context -d 'The kubeconfig context to use (default: the current context)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand node; and not __fish_seen_subcommand_from check gc help" -l request-timeout -d 'Give up on a request to the API server after this long (e.g. 5s, 1m, 500ms)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand node; and not __fish_seen_subcommand_from check gc help" -l cluster -d 'The kubeconfig cluster to use (default: the context\'s)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand node; and not __fish_seen_subcommand_from check gc help" -l user -d 'The kubeconfig user to use (default: the context\'s)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand node; and not __fish_seen_subcommand_from check gc help" -s s -l server -d 'The address of the API server (as kubectl\'s --server; works without a kubeconfig)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand node; and not __fish_seen_subcommand_from check gc help" -l token -d 'Bearer token for the API server (as kubectl\'s --token; never printed)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand node; and not __fish_seen_subcommand_from check gc help" -l certificate-authority -d 'A CA certificate file to verify the API server with' -r -F
complete -c volmnt -n "__fish_volmnt_using_subcommand node; and not __fish_seen_subcommand_from check gc help" -l client-certificate -d 'A client certificate file for TLS' -r -F
complete -c volmnt -n "__fish_volmnt_using_subcommand node; and not __fish_seen_subcommand_from check gc help" -l client-key -d 'A client key file for TLS' -r -F
complete -c volmnt -n "__fish_volmnt_using_subcommand node; and not __fish_seen_subcommand_from check gc help" -l as -d 'Act as this user (impersonation, as kubectl\'s --as; needs impersonate rights)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand node; and not __fish_seen_subcommand_from check gc help" -l as-group -d 'Act as this group (repeatable; with --as)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand node; and not __fish_seen_subcommand_from check gc help" -s v -l verbose -d 'Say more on stderr about what was read and decided (with a cluster: the request count)'
complete -c volmnt -n "__fish_volmnt_using_subcommand node; and not __fish_seen_subcommand_from check gc help" -l insecure-skip-tls-verify -d 'Do not verify the API server\'s certificate (insecure, as kubectl\'s flag)'
complete -c volmnt -n "__fish_volmnt_using_subcommand node; and not __fish_seen_subcommand_from check gc help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c volmnt -n "__fish_volmnt_using_subcommand node; and not __fish_seen_subcommand_from check gc help" -s V -l version -d 'Print version'
complete -c volmnt -n "__fish_volmnt_using_subcommand node; and not __fish_seen_subcommand_from check gc help" -f -a "check" -d 'Check what nodes can mount (NFS client, rbd, iscsiadm, kernel modules, statd, the kubelet directory\'s propagation), over SSH, through a short-lived pod, or on this machine'
complete -c volmnt -n "__fish_volmnt_using_subcommand node; and not __fish_seen_subcommand_from check gc help" -f -a "gc" -d 'Delete probe pods and DaemonSets left behind by an interrupted `node check` (label volmnt.io/probe=true)'
complete -c volmnt -n "__fish_volmnt_using_subcommand node; and not __fish_seen_subcommand_from check gc help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c volmnt -n "__fish_volmnt_using_subcommand node; and __fish_seen_subcommand_from check" -l via -d 'Through the cluster: one short-lived pod per node (`pod`), or one DaemonSet for all the nodes (`daemonset`: one create, every node\'s pod started at once; for fleets)' -r -f -a "pod\t'A probe pod per node, created and deleted one by one'
daemonset\t'One DaemonSet: a probe pod on every node, deleted with it'"
complete -c volmnt -n "__fish_volmnt_using_subcommand node; and __fish_seen_subcommand_from check" -l root -d 'With --local: read DIR as the node\'s root file system (e.g. a mounted node image)' -r -F
complete -c volmnt -n "__fish_volmnt_using_subcommand node; and __fish_seen_subcommand_from check" -l node-name -d 'With --local: the Kubernetes node this machine is (for --label and the report)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand node; and __fish_seen_subcommand_from check" -l every -d 'With --local: check again this often, forever (the long-running DaemonSet of deploy/node-check.yaml; stops on SIGTERM)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand node; and __fish_seen_subcommand_from check" -l ssh-option -d 'Passed to ssh as `-o OPTION` (repeatable), e.g. Port=2222, IdentityFile=~/.ssh/nodes' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand node; and __fish_seen_subcommand_from check" -l ssh-user -d 'The ssh user for destinations that name none (default: ssh\'s, from ~/.ssh/config)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand node; and __fish_seen_subcommand_from check" -l connect-timeout -d 'ssh\'s ConnectTimeout' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand node; and __fish_seen_subcommand_from check" -l timeout -d 'Give up on one node after this long (pod start included); the others go on' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand node; and __fish_seen_subcommand_from check" -l concurrency -d 'Nodes checked at the same time' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand node; and __fish_seen_subcommand_from check" -l require -d 'What every node must be able to mount (comma-separated): nfs, rbd, cephfs, iscsi, cifs, glusterfs, xfs, ext4' -r -f -a "nfs\t''
rbd\t''
cephfs\t''
iscsi\t''
cifs\t''
glusterfs\t''
xfs\t''
ext4\t''"
complete -c volmnt -n "__fish_volmnt_using_subcommand node; and __fish_seen_subcommand_from check" -s n -l namespace -d 'Namespace of the probe pods: the one deploy/rbac.yaml prepares (Role volmnt-node-probe, Pod Security label)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand node; and __fish_seen_subcommand_from check" -l image -d 'Image of the probe pods (needs a POSIX sh and `sleep`)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand node; and __fish_seen_subcommand_from check" -l progress -d 'Progress on stderr: auto = when stderr is a terminal' -r -f -a "auto\t''
always\t''
never\t''"
complete -c volmnt -n "__fish_volmnt_using_subcommand node; and __fish_seen_subcommand_from check" -s o -l output -d 'Output format: a readable report, or one JSON/YAML document on stdout' -r -f -a "text\t'Readable report (coloured on a terminal)'
json\t'One JSON document, described by schema/volmnt.schema.json (in the release archive)'
yaml\t'The same document as YAML'
junit\t'JUnit XML, one test case per node and requirement (node check only)'"
complete -c volmnt -n "__fish_volmnt_using_subcommand node; and __fish_seen_subcommand_from check" -l color -d 'Colour the text report (auto: only on a terminal, and never when NO_COLOR is set)' -r -f -a "auto\t'Colour when stdout is a terminal and NO_COLOR is not set'
always\t''
never\t''"
complete -c volmnt -n "__fish_volmnt_using_subcommand node; and __fish_seen_subcommand_from check" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, which may list several files, then ~/.kube/config, then in-cluster)' -r -F
complete -c volmnt -n "__fish_volmnt_using_subcommand node; and __fish_seen_subcommand_from check" -l context -d 'The kubeconfig context to use (default: the current context)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand node; and __fish_seen_subcommand_from check" -l request-timeout -d 'Give up on a request to the API server after this long (e.g. 5s, 1m, 500ms)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand node; and __fish_seen_subcommand_from check" -l cluster -d 'The kubeconfig cluster to use (default: the context\'s)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand node; and __fish_seen_subcommand_from check" -l user -d 'The kubeconfig user to use (default: the context\'s)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand node; and __fish_seen_subcommand_from check" -s s -l server -d 'The address of the API server (as kubectl\'s --server; works without a kubeconfig)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand node; and __fish_seen_subcommand_from check" -l token -d 'Bearer token for the API server (as kubectl\'s --token; never printed)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand node; and __fish_seen_subcommand_from check" -l certificate-authority -d 'A CA certificate file to verify the API server with' -r -F
complete -c volmnt -n "__fish_volmnt_using_subcommand node; and __fish_seen_subcommand_from check" -l client-certificate -d 'A client certificate file for TLS' -r -F
complete -c volmnt -n "__fish_volmnt_using_subcommand node; and __fish_seen_subcommand_from check" -l client-key -d 'A client key file for TLS' -r -F
complete -c volmnt -n "__fish_volmnt_using_subcommand node; and __fish_seen_subcommand_from check" -l as -d 'Act as this user (impersonation, as kubectl\'s --as; needs impersonate rights)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand node; and __fish_seen_subcommand_from check" -l as-group -d 'Act as this group (repeatable; with --as)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand node; and __fish_seen_subcommand_from check" -l all -d 'Every node of the cluster'
complete -c volmnt -n "__fish_volmnt_using_subcommand node; and __fish_seen_subcommand_from check" -l exec -d 'Probe through a short-lived pod on each node (default when the cluster is reachable)'
complete -c volmnt -n "__fish_volmnt_using_subcommand node; and __fish_seen_subcommand_from check" -l ssh -d 'Probe over SSH with the system ssh client'
complete -c volmnt -n "__fish_volmnt_using_subcommand node; and __fish_seen_subcommand_from check" -l local -d 'Probe this machine'
complete -c volmnt -n "__fish_volmnt_using_subcommand node; and __fish_seen_subcommand_from check" -l host-proc -d 'With --local --root: /proc is the node\'s own (a pod with hostPID), so its mount table and processes are read live (deploy/node-check.yaml runs this way)'
complete -c volmnt -n "__fish_volmnt_using_subcommand node; and __fish_seen_subcommand_from check" -l label -d 'Write labels volmnt.io/mount.<fs>=true|false on each node checked (needs patch on nodes)'
complete -c volmnt -n "__fish_volmnt_using_subcommand node; and __fish_seen_subcommand_from check" -s v -l verbose -d 'Say more on stderr about what was read and decided (with a cluster: the request count)'
complete -c volmnt -n "__fish_volmnt_using_subcommand node; and __fish_seen_subcommand_from check" -l insecure-skip-tls-verify -d 'Do not verify the API server\'s certificate (insecure, as kubectl\'s flag)'
complete -c volmnt -n "__fish_volmnt_using_subcommand node; and __fish_seen_subcommand_from check" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c volmnt -n "__fish_volmnt_using_subcommand node; and __fish_seen_subcommand_from check" -s V -l version -d 'Print version'
complete -c volmnt -n "__fish_volmnt_using_subcommand node; and __fish_seen_subcommand_from gc" -s n -l namespace -d 'The probe namespace (the one deploy/rbac.yaml prepares)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand node; and __fish_seen_subcommand_from gc" -l min-age -d 'Only pods older than this (e.g. 10m), to spare a check running now' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand node; and __fish_seen_subcommand_from gc" -s o -l output -d 'Output format: a readable report, or one JSON/YAML document on stdout' -r -f -a "text\t'Readable report (coloured on a terminal)'
json\t'One JSON document, described by schema/volmnt.schema.json (in the release archive)'
yaml\t'The same document as YAML'
junit\t'JUnit XML, one test case per node and requirement (node check only)'"
complete -c volmnt -n "__fish_volmnt_using_subcommand node; and __fish_seen_subcommand_from gc" -l color -d 'Colour the text report (auto: only on a terminal, and never when NO_COLOR is set)' -r -f -a "auto\t'Colour when stdout is a terminal and NO_COLOR is not set'
always\t''
never\t''"
complete -c volmnt -n "__fish_volmnt_using_subcommand node; and __fish_seen_subcommand_from gc" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, which may list several files, then ~/.kube/config, then in-cluster)' -r -F
complete -c volmnt -n "__fish_volmnt_using_subcommand node; and __fish_seen_subcommand_from gc" -l context -d 'The kubeconfig context to use (default: the current context)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand node; and __fish_seen_subcommand_from gc" -l request-timeout -d 'Give up on a request to the API server after this long (e.g. 5s, 1m, 500ms)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand node; and __fish_seen_subcommand_from gc" -l cluster -d 'The kubeconfig cluster to use (default: the context\'s)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand node; and __fish_seen_subcommand_from gc" -l user -d 'The kubeconfig user to use (default: the context\'s)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand node; and __fish_seen_subcommand_from gc" -s s -l server -d 'The address of the API server (as kubectl\'s --server; works without a kubeconfig)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand node; and __fish_seen_subcommand_from gc" -l token -d 'Bearer token for the API server (as kubectl\'s --token; never printed)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand node; and __fish_seen_subcommand_from gc" -l certificate-authority -d 'A CA certificate file to verify the API server with' -r -F
complete -c volmnt -n "__fish_volmnt_using_subcommand node; and __fish_seen_subcommand_from gc" -l client-certificate -d 'A client certificate file for TLS' -r -F
complete -c volmnt -n "__fish_volmnt_using_subcommand node; and __fish_seen_subcommand_from gc" -l client-key -d 'A client key file for TLS' -r -F
complete -c volmnt -n "__fish_volmnt_using_subcommand node; and __fish_seen_subcommand_from gc" -l as -d 'Act as this user (impersonation, as kubectl\'s --as; needs impersonate rights)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand node; and __fish_seen_subcommand_from gc" -l as-group -d 'Act as this group (repeatable; with --as)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand node; and __fish_seen_subcommand_from gc" -s A -l all-namespaces -d 'Every namespace (needs list and delete on pods cluster-wide)'
complete -c volmnt -n "__fish_volmnt_using_subcommand node; and __fish_seen_subcommand_from gc" -s v -l verbose -d 'Say more on stderr about what was read and decided (with a cluster: the request count)'
complete -c volmnt -n "__fish_volmnt_using_subcommand node; and __fish_seen_subcommand_from gc" -l insecure-skip-tls-verify -d 'Do not verify the API server\'s certificate (insecure, as kubectl\'s flag)'
complete -c volmnt -n "__fish_volmnt_using_subcommand node; and __fish_seen_subcommand_from gc" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c volmnt -n "__fish_volmnt_using_subcommand node; and __fish_seen_subcommand_from gc" -s V -l version -d 'Print version'
complete -c volmnt -n "__fish_volmnt_using_subcommand node; and __fish_seen_subcommand_from help" -f -a "check" -d 'Check what nodes can mount (NFS client, rbd, iscsiadm, kernel modules, statd, the kubelet directory\'s propagation), over SSH, through a short-lived pod, or on this machine'
complete -c volmnt -n "__fish_volmnt_using_subcommand node; and __fish_seen_subcommand_from help" -f -a "gc" -d 'Delete probe pods and DaemonSets left behind by an interrupted `node check` (label volmnt.io/probe=true)'
complete -c volmnt -n "__fish_volmnt_using_subcommand node; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and not __fish_seen_subcommand_from status locks unlock help" -s o -l output -d 'Output format: a readable report, or one JSON/YAML document on stdout' -r -f -a "text\t'Readable report (coloured on a terminal)'
json\t'One JSON document, described by schema/volmnt.schema.json (in the release archive)'
yaml\t'The same document as YAML'
junit\t'JUnit XML, one test case per node and requirement (node check only)'"
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and not __fish_seen_subcommand_from status locks unlock help" -l color -d 'Colour the text report (auto: only on a terminal, and never when NO_COLOR is set)' -r -f -a "auto\t'Colour when stdout is a terminal and NO_COLOR is not set'
always\t''
never\t''"
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and not __fish_seen_subcommand_from status locks unlock help" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, which may list several files, then ~/.kube/config, then in-cluster)' -r -F
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and not __fish_seen_subcommand_from status locks unlock help" -l context -d 'The kubeconfig context to use (default: the current context)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and not __fish_seen_subcommand_from status locks unlock help" -l request-timeout -d 'Give up on a request to the API server after this long (e.g. 5s, 1m, 500ms)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and not __fish_seen_subcommand_from status locks unlock help" -l cluster -d 'The kubeconfig cluster to use (default: the context\'s)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and not __fish_seen_subcommand_from status locks unlock help" -l user -d 'The kubeconfig user to use (default: the context\'s)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and not __fish_seen_subcommand_from status locks unlock help" -s s -l server -d 'The address of the API server (as kubectl\'s --server; works without a kubeconfig)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and not __fish_seen_subcommand_from status locks unlock help" -l token -d 'Bearer token for the API server (as kubectl\'s --token; never printed)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and not __fish_seen_subcommand_from status locks unlock help" -l certificate-authority -d 'A CA certificate file to verify the API server with' -r -F
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and not __fish_seen_subcommand_from status locks unlock help" -l client-certificate -d 'A client certificate file for TLS' -r -F
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and not __fish_seen_subcommand_from status locks unlock help" -l client-key -d 'A client key file for TLS' -r -F
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and not __fish_seen_subcommand_from status locks unlock help" -l as -d 'Act as this user (impersonation, as kubectl\'s --as; needs impersonate rights)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and not __fish_seen_subcommand_from status locks unlock help" -l as-group -d 'Act as this group (repeatable; with --as)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and not __fish_seen_subcommand_from status locks unlock help" -s v -l verbose -d 'Say more on stderr about what was read and decided (with a cluster: the request count)'
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and not __fish_seen_subcommand_from status locks unlock help" -l insecure-skip-tls-verify -d 'Do not verify the API server\'s certificate (insecure, as kubectl\'s flag)'
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and not __fish_seen_subcommand_from status locks unlock help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and not __fish_seen_subcommand_from status locks unlock help" -s V -l version -d 'Print version'
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and not __fish_seen_subcommand_from status locks unlock help" -f -a "status" -d 'List an image\'s locks and watchers, each mapped to a node and its pods, with a verdict'
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and not __fish_seen_subcommand_from status locks unlock help" -f -a "locks" -d 'List an image\'s locks and watchers, each mapped to a node and its pods, with a verdict'
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and not __fish_seen_subcommand_from status locks unlock help" -f -a "unlock" -d 'Release an image\'s stale holders (rbd lock rm / ceph osd blocklist add), after confirmation'
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and not __fish_seen_subcommand_from status locks unlock help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and __fish_seen_subcommand_from status" -l pod -d 'Find the image from this pod\'s volumes (its claim\'s PV, or an inline rbd volume)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and __fish_seen_subcommand_from status" -l pvc -d 'Find the image from this claim\'s PV' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and __fish_seen_subcommand_from status" -s n -l namespace -d 'The namespace of --pod/--pvc (default: the context\'s)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and __fish_seen_subcommand_from status" -l ceph-conf -d 'Ceph config file passed to rbd/ceph as -c (default: theirs, i.e. CEPH_CONF or /etc/ceph/ceph.conf)' -r -F
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and __fish_seen_subcommand_from status" -l id -d 'Ceph user passed to rbd/ceph as --id (e.g. admin)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and __fish_seen_subcommand_from status" -l keyring -d 'Keyring passed to rbd/ceph as --keyring' -r -F
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and __fish_seen_subcommand_from status" -l toolbox -d 'Run rbd/ceph inside this pod (a Rook toolbox) through the exec API instead of locally' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and __fish_seen_subcommand_from status" -l ceph-timeout -d 'Give up on an rbd/ceph call after this long' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and __fish_seen_subcommand_from status" -s o -l output -d 'Output format: a readable report, or one JSON/YAML document on stdout' -r -f -a "text\t'Readable report (coloured on a terminal)'
json\t'One JSON document, described by schema/volmnt.schema.json (in the release archive)'
yaml\t'The same document as YAML'
junit\t'JUnit XML, one test case per node and requirement (node check only)'"
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and __fish_seen_subcommand_from status" -l color -d 'Colour the text report (auto: only on a terminal, and never when NO_COLOR is set)' -r -f -a "auto\t'Colour when stdout is a terminal and NO_COLOR is not set'
always\t''
never\t''"
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and __fish_seen_subcommand_from status" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, which may list several files, then ~/.kube/config, then in-cluster)' -r -F
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and __fish_seen_subcommand_from status" -l context -d 'The kubeconfig context to use (default: the current context)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and __fish_seen_subcommand_from status" -l request-timeout -d 'Give up on a request to the API server after this long (e.g. 5s, 1m, 500ms)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and __fish_seen_subcommand_from status" -l cluster -d 'The kubeconfig cluster to use (default: the context\'s)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and __fish_seen_subcommand_from status" -l user -d 'The kubeconfig user to use (default: the context\'s)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and __fish_seen_subcommand_from status" -s s -l server -d 'The address of the API server (as kubectl\'s --server; works without a kubeconfig)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and __fish_seen_subcommand_from status" -l token -d 'Bearer token for the API server (as kubectl\'s --token; never printed)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and __fish_seen_subcommand_from status" -l certificate-authority -d 'A CA certificate file to verify the API server with' -r -F
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and __fish_seen_subcommand_from status" -l client-certificate -d 'A client certificate file for TLS' -r -F
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and __fish_seen_subcommand_from status" -l client-key -d 'A client key file for TLS' -r -F
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and __fish_seen_subcommand_from status" -l as -d 'Act as this user (impersonation, as kubectl\'s --as; needs impersonate rights)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and __fish_seen_subcommand_from status" -l as-group -d 'Act as this group (repeatable; with --as)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and __fish_seen_subcommand_from status" -s v -l verbose -d 'Say more on stderr about what was read and decided (with a cluster: the request count)'
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and __fish_seen_subcommand_from status" -l insecure-skip-tls-verify -d 'Do not verify the API server\'s certificate (insecure, as kubectl\'s flag)'
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and __fish_seen_subcommand_from status" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and __fish_seen_subcommand_from status" -s V -l version -d 'Print version'
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and __fish_seen_subcommand_from locks" -l pod -d 'Find the image from this pod\'s volumes (its claim\'s PV, or an inline rbd volume)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and __fish_seen_subcommand_from locks" -l pvc -d 'Find the image from this claim\'s PV' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and __fish_seen_subcommand_from locks" -s n -l namespace -d 'The namespace of --pod/--pvc (default: the context\'s)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and __fish_seen_subcommand_from locks" -l ceph-conf -d 'Ceph config file passed to rbd/ceph as -c (default: theirs, i.e. CEPH_CONF or /etc/ceph/ceph.conf)' -r -F
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and __fish_seen_subcommand_from locks" -l id -d 'Ceph user passed to rbd/ceph as --id (e.g. admin)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and __fish_seen_subcommand_from locks" -l keyring -d 'Keyring passed to rbd/ceph as --keyring' -r -F
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and __fish_seen_subcommand_from locks" -l toolbox -d 'Run rbd/ceph inside this pod (a Rook toolbox) through the exec API instead of locally' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and __fish_seen_subcommand_from locks" -l ceph-timeout -d 'Give up on an rbd/ceph call after this long' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and __fish_seen_subcommand_from locks" -s o -l output -d 'Output format: a readable report, or one JSON/YAML document on stdout' -r -f -a "text\t'Readable report (coloured on a terminal)'
json\t'One JSON document, described by schema/volmnt.schema.json (in the release archive)'
yaml\t'The same document as YAML'
junit\t'JUnit XML, one test case per node and requirement (node check only)'"
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and __fish_seen_subcommand_from locks" -l color -d 'Colour the text report (auto: only on a terminal, and never when NO_COLOR is set)' -r -f -a "auto\t'Colour when stdout is a terminal and NO_COLOR is not set'
always\t''
never\t''"
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and __fish_seen_subcommand_from locks" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, which may list several files, then ~/.kube/config, then in-cluster)' -r -F
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and __fish_seen_subcommand_from locks" -l context -d 'The kubeconfig context to use (default: the current context)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and __fish_seen_subcommand_from locks" -l request-timeout -d 'Give up on a request to the API server after this long (e.g. 5s, 1m, 500ms)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and __fish_seen_subcommand_from locks" -l cluster -d 'The kubeconfig cluster to use (default: the context\'s)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and __fish_seen_subcommand_from locks" -l user -d 'The kubeconfig user to use (default: the context\'s)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and __fish_seen_subcommand_from locks" -s s -l server -d 'The address of the API server (as kubectl\'s --server; works without a kubeconfig)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and __fish_seen_subcommand_from locks" -l token -d 'Bearer token for the API server (as kubectl\'s --token; never printed)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and __fish_seen_subcommand_from locks" -l certificate-authority -d 'A CA certificate file to verify the API server with' -r -F
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and __fish_seen_subcommand_from locks" -l client-certificate -d 'A client certificate file for TLS' -r -F
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and __fish_seen_subcommand_from locks" -l client-key -d 'A client key file for TLS' -r -F
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and __fish_seen_subcommand_from locks" -l as -d 'Act as this user (impersonation, as kubectl\'s --as; needs impersonate rights)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and __fish_seen_subcommand_from locks" -l as-group -d 'Act as this group (repeatable; with --as)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and __fish_seen_subcommand_from locks" -s v -l verbose -d 'Say more on stderr about what was read and decided (with a cluster: the request count)'
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and __fish_seen_subcommand_from locks" -l insecure-skip-tls-verify -d 'Do not verify the API server\'s certificate (insecure, as kubectl\'s flag)'
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and __fish_seen_subcommand_from locks" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and __fish_seen_subcommand_from locks" -s V -l version -d 'Print version'
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and __fish_seen_subcommand_from unlock" -l pod -d 'Find the image from this pod\'s volumes (its claim\'s PV, or an inline rbd volume)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and __fish_seen_subcommand_from unlock" -l pvc -d 'Find the image from this claim\'s PV' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and __fish_seen_subcommand_from unlock" -s n -l namespace -d 'The namespace of --pod/--pvc (default: the context\'s)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and __fish_seen_subcommand_from unlock" -l ceph-conf -d 'Ceph config file passed to rbd/ceph as -c (default: theirs, i.e. CEPH_CONF or /etc/ceph/ceph.conf)' -r -F
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and __fish_seen_subcommand_from unlock" -l id -d 'Ceph user passed to rbd/ceph as --id (e.g. admin)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and __fish_seen_subcommand_from unlock" -l keyring -d 'Keyring passed to rbd/ceph as --keyring' -r -F
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and __fish_seen_subcommand_from unlock" -l toolbox -d 'Run rbd/ceph inside this pod (a Rook toolbox) through the exec API instead of locally' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and __fish_seen_subcommand_from unlock" -l ceph-timeout -d 'Give up on an rbd/ceph call after this long' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and __fish_seen_subcommand_from unlock" -s o -l output -d 'Output format: a readable report, or one JSON/YAML document on stdout' -r -f -a "text\t'Readable report (coloured on a terminal)'
json\t'One JSON document, described by schema/volmnt.schema.json (in the release archive)'
yaml\t'The same document as YAML'
junit\t'JUnit XML, one test case per node and requirement (node check only)'"
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and __fish_seen_subcommand_from unlock" -l color -d 'Colour the text report (auto: only on a terminal, and never when NO_COLOR is set)' -r -f -a "auto\t'Colour when stdout is a terminal and NO_COLOR is not set'
always\t''
never\t''"
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and __fish_seen_subcommand_from unlock" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, which may list several files, then ~/.kube/config, then in-cluster)' -r -F
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and __fish_seen_subcommand_from unlock" -l context -d 'The kubeconfig context to use (default: the current context)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and __fish_seen_subcommand_from unlock" -l request-timeout -d 'Give up on a request to the API server after this long (e.g. 5s, 1m, 500ms)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and __fish_seen_subcommand_from unlock" -l cluster -d 'The kubeconfig cluster to use (default: the context\'s)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and __fish_seen_subcommand_from unlock" -l user -d 'The kubeconfig user to use (default: the context\'s)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and __fish_seen_subcommand_from unlock" -s s -l server -d 'The address of the API server (as kubectl\'s --server; works without a kubeconfig)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and __fish_seen_subcommand_from unlock" -l token -d 'Bearer token for the API server (as kubectl\'s --token; never printed)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and __fish_seen_subcommand_from unlock" -l certificate-authority -d 'A CA certificate file to verify the API server with' -r -F
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and __fish_seen_subcommand_from unlock" -l client-certificate -d 'A client certificate file for TLS' -r -F
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and __fish_seen_subcommand_from unlock" -l client-key -d 'A client key file for TLS' -r -F
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and __fish_seen_subcommand_from unlock" -l as -d 'Act as this user (impersonation, as kubectl\'s --as; needs impersonate rights)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and __fish_seen_subcommand_from unlock" -l as-group -d 'Act as this group (repeatable; with --as)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and __fish_seen_subcommand_from unlock" -l dry-run -d 'Print what would be run and why, and change nothing'
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and __fish_seen_subcommand_from unlock" -s y -l yes -d 'Do not ask: run the plan (still only stale holders, unless --force)'
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and __fish_seen_subcommand_from unlock" -l force -d 'Also release live holders and holders that cannot be judged (risk: a filesystem mounted twice)'
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and __fish_seen_subcommand_from unlock" -l no-blocklist -d 'Remove locks without blocklisting the locker (--rbd_blocklist_on_break_lock=false)'
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and __fish_seen_subcommand_from unlock" -s v -l verbose -d 'Say more on stderr about what was read and decided (with a cluster: the request count)'
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and __fish_seen_subcommand_from unlock" -l insecure-skip-tls-verify -d 'Do not verify the API server\'s certificate (insecure, as kubectl\'s flag)'
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and __fish_seen_subcommand_from unlock" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and __fish_seen_subcommand_from unlock" -s V -l version -d 'Print version'
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and __fish_seen_subcommand_from help" -f -a "status" -d 'List an image\'s locks and watchers, each mapped to a node and its pods, with a verdict'
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and __fish_seen_subcommand_from help" -f -a "unlock" -d 'Release an image\'s stale holders (rbd lock rm / ceph osd blocklist add), after confirmation'
complete -c volmnt -n "__fish_volmnt_using_subcommand rbd; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c volmnt -n "__fish_volmnt_using_subcommand watch" -s n -l namespace -d 'Namespaces to watch (repeatable, or comma-separated; default: the context\'s)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand watch" -s l -l selector -d 'Only pods matching this label selector (e.g. `app=web,tier!=cache`)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand watch" -l min-age -d 'A pod counts as stuck once it is this old (e.g. 2m, 30s)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand watch" -l listen -d 'Address for /metrics, /healthz and /readyz' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand watch" -l event-refresh -d 'An unchanged diagnosis bumps its Event\'s count and lastTimestamp at most this often' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand watch" -l resync -d 'Diagnose every stuck pod again this often, even if nothing changed' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand watch" -l leader-elect -d 'Take part in leader election (only the leader writes); false for a single replica' -r -f -a "true\t''
false\t''"
complete -c volmnt -n "__fish_volmnt_using_subcommand watch" -l lease-namespace -d 'Namespace of the Lease (default: $POD_NAMESPACE, else the context\'s namespace)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand watch" -l lease-name -d 'Name of the Lease' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand watch" -l lease-duration -d 'How long a leader\'s claim lasts without renewal' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand watch" -l renew-deadline -d 'A leader that could not renew for this long stops writing (less than --lease-duration)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand watch" -l retry-period -d 'How often the Lease is renewed, or tried' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand watch" -l identity -d 'This replica\'s name in the Lease (default: $POD_NAME, else the host name, with the pid)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand watch" -l concurrency -d 'Event writes at the same time' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand watch" -s o -l output -d 'Output format: a readable report, or one JSON/YAML document on stdout' -r -f -a "text\t'Readable report (coloured on a terminal)'
json\t'One JSON document, described by schema/volmnt.schema.json (in the release archive)'
yaml\t'The same document as YAML'
junit\t'JUnit XML, one test case per node and requirement (node check only)'"
complete -c volmnt -n "__fish_volmnt_using_subcommand watch" -l color -d 'Colour the text report (auto: only on a terminal, and never when NO_COLOR is set)' -r -f -a "auto\t'Colour when stdout is a terminal and NO_COLOR is not set'
always\t''
never\t''"
complete -c volmnt -n "__fish_volmnt_using_subcommand watch" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, which may list several files, then ~/.kube/config, then in-cluster)' -r -F
complete -c volmnt -n "__fish_volmnt_using_subcommand watch" -l context -d 'The kubeconfig context to use (default: the current context)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand watch" -l request-timeout -d 'Give up on a request to the API server after this long (e.g. 5s, 1m, 500ms)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand watch" -l cluster -d 'The kubeconfig cluster to use (default: the context\'s)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand watch" -l user -d 'The kubeconfig user to use (default: the context\'s)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand watch" -s s -l server -d 'The address of the API server (as kubectl\'s --server; works without a kubeconfig)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand watch" -l token -d 'Bearer token for the API server (as kubectl\'s --token; never printed)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand watch" -l certificate-authority -d 'A CA certificate file to verify the API server with' -r -F
complete -c volmnt -n "__fish_volmnt_using_subcommand watch" -l client-certificate -d 'A client certificate file for TLS' -r -F
complete -c volmnt -n "__fish_volmnt_using_subcommand watch" -l client-key -d 'A client key file for TLS' -r -F
complete -c volmnt -n "__fish_volmnt_using_subcommand watch" -l as -d 'Act as this user (impersonation, as kubectl\'s --as; needs impersonate rights)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand watch" -l as-group -d 'Act as this group (repeatable; with --as)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand watch" -s A -l all-namespaces -d 'Every namespace'
complete -c volmnt -n "__fish_volmnt_using_subcommand watch" -l dry-run -d 'Log what would be written; write nothing (no Events, no Lease)'
complete -c volmnt -n "__fish_volmnt_using_subcommand watch" -l read-secrets -d 'Also watch Secrets (metadata only) to tell whether a Secret a pod mounts exists. Off by default: RBAC cannot grant Secrets\' metadata without their data, and kubelet\'s own events already name a missing Secret'
complete -c volmnt -n "__fish_volmnt_using_subcommand watch" -s v -l verbose -d 'Say more on stderr about what was read and decided (with a cluster: the request count)'
complete -c volmnt -n "__fish_volmnt_using_subcommand watch" -l insecure-skip-tls-verify -d 'Do not verify the API server\'s certificate (insecure, as kubectl\'s flag)'
complete -c volmnt -n "__fish_volmnt_using_subcommand watch" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c volmnt -n "__fish_volmnt_using_subcommand watch" -s V -l version -d 'Print version'
complete -c volmnt -n "__fish_volmnt_using_subcommand completions" -s o -l output -d 'Output format: a readable report, or one JSON/YAML document on stdout' -r -f -a "text\t'Readable report (coloured on a terminal)'
json\t'One JSON document, described by schema/volmnt.schema.json (in the release archive)'
yaml\t'The same document as YAML'
junit\t'JUnit XML, one test case per node and requirement (node check only)'"
complete -c volmnt -n "__fish_volmnt_using_subcommand completions" -l color -d 'Colour the text report (auto: only on a terminal, and never when NO_COLOR is set)' -r -f -a "auto\t'Colour when stdout is a terminal and NO_COLOR is not set'
always\t''
never\t''"
complete -c volmnt -n "__fish_volmnt_using_subcommand completions" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, which may list several files, then ~/.kube/config, then in-cluster)' -r -F
complete -c volmnt -n "__fish_volmnt_using_subcommand completions" -l context -d 'The kubeconfig context to use (default: the current context)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand completions" -l request-timeout -d 'Give up on a request to the API server after this long (e.g. 5s, 1m, 500ms)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand completions" -l cluster -d 'The kubeconfig cluster to use (default: the context\'s)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand completions" -l user -d 'The kubeconfig user to use (default: the context\'s)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand completions" -s s -l server -d 'The address of the API server (as kubectl\'s --server; works without a kubeconfig)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand completions" -l token -d 'Bearer token for the API server (as kubectl\'s --token; never printed)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand completions" -l certificate-authority -d 'A CA certificate file to verify the API server with' -r -F
complete -c volmnt -n "__fish_volmnt_using_subcommand completions" -l client-certificate -d 'A client certificate file for TLS' -r -F
complete -c volmnt -n "__fish_volmnt_using_subcommand completions" -l client-key -d 'A client key file for TLS' -r -F
complete -c volmnt -n "__fish_volmnt_using_subcommand completions" -l as -d 'Act as this user (impersonation, as kubectl\'s --as; needs impersonate rights)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand completions" -l as-group -d 'Act as this group (repeatable; with --as)' -r
complete -c volmnt -n "__fish_volmnt_using_subcommand completions" -s v -l verbose -d 'Say more on stderr about what was read and decided (with a cluster: the request count)'
complete -c volmnt -n "__fish_volmnt_using_subcommand completions" -l insecure-skip-tls-verify -d 'Do not verify the API server\'s certificate (insecure, as kubectl\'s flag)'
complete -c volmnt -n "__fish_volmnt_using_subcommand completions" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c volmnt -n "__fish_volmnt_using_subcommand completions" -s V -l version -d 'Print version'
complete -c volmnt -n "__fish_volmnt_using_subcommand help; and not __fish_seen_subcommand_from explain doctor node rbd watch completions help" -f -a "explain" -d 'Classify raw error messages (event messages, kubelet log lines, mount output)'
complete -c volmnt -n "__fish_volmnt_using_subcommand help; and not __fish_seen_subcommand_from explain doctor node rbd watch completions help" -f -a "doctor" -d 'Diagnose a stuck pod'
complete -c volmnt -n "__fish_volmnt_using_subcommand help; and not __fish_seen_subcommand_from explain doctor node rbd watch completions help" -f -a "node" -d 'Check what a node can mount (over SSH, through a short-lived pod, or locally); CI preflight'
complete -c volmnt -n "__fish_volmnt_using_subcommand help; and not __fish_seen_subcommand_from explain doctor node rbd watch completions help" -f -a "rbd" -d 'Find who holds an RBD image (locks and watchers) and release it only when provably stale'
complete -c volmnt -n "__fish_volmnt_using_subcommand help; and not __fish_seen_subcommand_from explain doctor node rbd watch completions help" -f -a "watch" -d 'Run as a controller: diagnose every pod stuck on volumes as it happens, write the verdict onto the pod as an Event, export Prometheus metrics'
complete -c volmnt -n "__fish_volmnt_using_subcommand help; and not __fish_seen_subcommand_from explain doctor node rbd watch completions help" -f -a "completions" -d 'Print a shell completion script'
complete -c volmnt -n "__fish_volmnt_using_subcommand help; and not __fish_seen_subcommand_from explain doctor node rbd watch completions help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c volmnt -n "__fish_volmnt_using_subcommand help; and __fish_seen_subcommand_from doctor" -f -a "pod" -d 'Diagnose one pod: live from the cluster, or from saved output (--from-file), or a bundled real case (--example)'
complete -c volmnt -n "__fish_volmnt_using_subcommand help; and __fish_seen_subcommand_from doctor" -f -a "namespace" -d 'Find the pods of a namespace (or all, -A) stuck on volumes and diagnose each, grouped by cause and node'
complete -c volmnt -n "__fish_volmnt_using_subcommand help; and __fish_seen_subcommand_from node" -f -a "check" -d 'Check what nodes can mount (NFS client, rbd, iscsiadm, kernel modules, statd, the kubelet directory\'s propagation), over SSH, through a short-lived pod, or on this machine'
complete -c volmnt -n "__fish_volmnt_using_subcommand help; and __fish_seen_subcommand_from node" -f -a "gc" -d 'Delete probe pods and DaemonSets left behind by an interrupted `node check` (label volmnt.io/probe=true)'
complete -c volmnt -n "__fish_volmnt_using_subcommand help; and __fish_seen_subcommand_from rbd" -f -a "status" -d 'List an image\'s locks and watchers, each mapped to a node and its pods, with a verdict'
complete -c volmnt -n "__fish_volmnt_using_subcommand help; and __fish_seen_subcommand_from rbd" -f -a "unlock" -d 'Release an image\'s stale holders (rbd lock rm / ceph osd blocklist add), after confirmation'
