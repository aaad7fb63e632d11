
use builtin;
use str;

set edit:completion:arg-completer[volmnt] = {|@words|
    fn spaces {|n|
        builtin:repeat $n ' ' | str:join ''
    }
    fn cand {|text desc|
        edit:complex-candidate $text &display=$text' '(spaces (- 14 (wcswidth $text)))$desc
    }
    var command = 'volmnt'
    for word $words[1..-1] {
        if (str:has-prefix $word '-') {
            break
        }
        set command = $command';'$word
    }
    var completions = [
        &'volmnt'= {
            cand -o 'Output format: a readable report, or one JSON/YAML document on stdout'
            cand --output 'Output format: a readable report, or one JSON/YAML document on stdout'
            cand --color 'Colour the text report (auto: only on a terminal, and never when NO_COLOR is set)'
            cand --kubeconfig 'Path to the kubeconfig file (default: $KUBECONFIG, which may list several files, then ~/.kube/config, then in-cluster)'
            cand --context 'The kubeconfig context to use (default: the current context)'
            cand --request-timeout 'Give up on a request to the API server after this long (e.g. 5s, 1m, 500ms)'
            cand -v 'Say more on stderr about what was read and decided (with a cluster: the request count)'
            cand --verbose 'Say more on stderr about what was read and decided (with a cluster: the request count)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand explain 'Classify raw error messages (event messages, kubelet log lines, mount output)'
            cand doctor 'Diagnose a stuck pod'
            cand node 'Check what a node can mount (over SSH, through a short-lived pod, or locally); CI preflight'
            cand rbd 'Find who holds an RBD image (locks and watchers) and release it only when provably stale'
            cand watch 'Run as a controller: diagnose every pod stuck on volumes as it happens, write the verdict onto the pod as an Event, export Prometheus metrics'
            cand completions 'Print a shell completion script'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'volmnt;explain'= {
            cand --node-os 'The node''s OS (osImage such as "Ubuntu 22.04.4 LTS", or rhel|debian|suse|alpine|immutable), for install commands'
            cand -o 'Output format: a readable report, or one JSON/YAML document on stdout'
            cand --output 'Output format: a readable report, or one JSON/YAML document on stdout'
            cand --color 'Colour the text report (auto: only on a terminal, and never when NO_COLOR is set)'
            cand --kubeconfig 'Path to the kubeconfig file (default: $KUBECONFIG, which may list several files, then ~/.kube/config, then in-cluster)'
            cand --context 'The kubeconfig context to use (default: the current context)'
            cand --request-timeout 'Give up on a request to the API server after this long (e.g. 5s, 1m, 500ms)'
            cand -v 'Say more on stderr about what was read and decided (with a cluster: the request count)'
            cand --verbose 'Say more on stderr about what was read and decided (with a cluster: the request count)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'volmnt;doctor'= {
            cand -o 'Output format: a readable report, or one JSON/YAML document on stdout'
            cand --output 'Output format: a readable report, or one JSON/YAML document on stdout'
            cand --color 'Colour the text report (auto: only on a terminal, and never when NO_COLOR is set)'
            cand --kubeconfig 'Path to the kubeconfig file (default: $KUBECONFIG, which may list several files, then ~/.kube/config, then in-cluster)'
            cand --context 'The kubeconfig context to use (default: the current context)'
            cand --request-timeout 'Give up on a request to the API server after this long (e.g. 5s, 1m, 500ms)'
            cand -v 'Say more on stderr about what was read and decided (with a cluster: the request count)'
            cand --verbose 'Say more on stderr about what was read and decided (with a cluster: the request count)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand pod 'Diagnose one pod: live from the cluster, or from saved output (--from-file), or a bundled real case (--example)'
            cand pods 'Diagnose one pod: live from the cluster, or from saved output (--from-file), or a bundled real case (--example)'
            cand po 'Diagnose one pod: live from the cluster, or from saved output (--from-file), or a bundled real case (--example)'
            cand namespace 'Find the pods of a namespace (or all, -A) stuck on volumes and diagnose each, grouped by cause and node'
            cand ns 'Find the pods of a namespace (or all, -A) stuck on volumes and diagnose each, grouped by cause and node'
            cand namespaces 'Find the pods of a namespace (or all, -A) stuck on volumes and diagnose each, grouped by cause and node'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'volmnt;doctor;pod'= {
            cand -n 'The pod''s namespace'
            cand --namespace 'The pod''s namespace'
            cand -f 'Read saved output from FILE (repeatable; `-` for stdin). With a pod NAME and a cluster in the kubeconfig, the files add to the live read (a kubelet log beside the live objects)'
            cand --from-file 'Read saved output from FILE (repeatable; `-` for stdin). With a pod NAME and a cluster in the kubeconfig, the files add to the live read (a kubelet log beside the live objects)'
            cand --example 'Diagnose a bundled real case instead of files'
            cand --node-os 'The node''s OS (osImage such as "CentOS Linux 7 (Core)", or rhel|debian|suse|alpine|immutable), when no Node object is given'
            cand --max-input-mib 'Refuse inputs larger than this many MiB (a kubelet log is best cut with journalctl --since)'
            cand --save 'Write everything read from the cluster into DIR (replay with --from-file DIR); never Secrets'
            cand --probe-namespace 'Namespace for the probe pod: the one deploy/rbac.yaml prepares (Role volmnt-node-probe, Pod Security label), as for `node check`'
            cand --probe-image 'Image of the probe pod (it only needs a POSIX sh)'
            cand --probe-timeout 'Give up on the probe after this long (pod start included)'
            cand -o 'Output format: a readable report, or one JSON/YAML document on stdout'
            cand --output 'Output format: a readable report, or one JSON/YAML document on stdout'
            cand --color 'Colour the text report (auto: only on a terminal, and never when NO_COLOR is set)'
            cand --kubeconfig 'Path to the kubeconfig file (default: $KUBECONFIG, which may list several files, then ~/.kube/config, then in-cluster)'
            cand --context 'The kubeconfig context to use (default: the current context)'
            cand --request-timeout 'Give up on a request to the API server after this long (e.g. 5s, 1m, 500ms)'
            cand --offline 'Read only the files given, never the cluster (replaying a saved case, or a pod NAME that is not the current cluster''s)'
            cand --probe-node 'Also run volmnt''s read-only probe on the pod''s node, through a short-lived pod (hostPID, host root read-only; announced first, deleted on every path), so a missing mount helper is confirmed or ruled out'
            cand --probe-kernel-log 'Let the probe read the kernel log: adds CAP_SYSLOG (only that) to the probe pod, which kernel.dmesg_restrict=1 requires for dmesg. Without it the probe reads the kernel''s lines only from /var/log files and the journal, and the report says the ring buffer was not read'
            cand --probe-nfs 'With --probe-node: also ask, from the node, whether the pod''s NFS servers answer (`rpcinfo -p`, `showmount -e` and a TCP connect to 2049, 3 s each, where the probe image has them). Off by default: it sends traffic from the node to each server'
            cand -v 'Say more on stderr about what was read and decided (with a cluster: the request count)'
            cand --verbose 'Say more on stderr about what was read and decided (with a cluster: the request count)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'volmnt;doctor;pods'= {
            cand -n 'The pod''s namespace'
            cand --namespace 'The pod''s namespace'
            cand -f 'Read saved output from FILE (repeatable; `-` for stdin). With a pod NAME and a cluster in the kubeconfig, the files add to the live read (a kubelet log beside the live objects)'
            cand --from-file 'Read saved output from FILE (repeatable; `-` for stdin). With a pod NAME and a cluster in the kubeconfig, the files add to the live read (a kubelet log beside the live objects)'
            cand --example 'Diagnose a bundled real case instead of files'
            cand --node-os 'The node''s OS (osImage such as "CentOS Linux 7 (Core)", or rhel|debian|suse|alpine|immutable), when no Node object is given'
            cand --max-input-mib 'Refuse inputs larger than this many MiB (a kubelet log is best cut with journalctl --since)'
            cand --save 'Write everything read from the cluster into DIR (replay with --from-file DIR); never Secrets'
            cand --probe-namespace 'Namespace for the probe pod: the one deploy/rbac.yaml prepares (Role volmnt-node-probe, Pod Security label), as for `node check`'
            cand --probe-image 'Image of the probe pod (it only needs a POSIX sh)'
            cand --probe-timeout 'Give up on the probe after this long (pod start included)'
            cand -o 'Output format: a readable report, or one JSON/YAML document on stdout'
            cand --output 'Output format: a readable report, or one JSON/YAML document on stdout'
            cand --color 'Colour the text report (auto: only on a terminal, and never when NO_COLOR is set)'
            cand --kubeconfig 'Path to the kubeconfig file (default: $KUBECONFIG, which may list several files, then ~/.kube/config, then in-cluster)'
            cand --context 'The kubeconfig context to use (default: the current context)'
            cand --request-timeout 'Give up on a request to the API server after this long (e.g. 5s, 1m, 500ms)'
            cand --offline 'Read only the files given, never the cluster (replaying a saved case, or a pod NAME that is not the current cluster''s)'
            cand --probe-node 'Also run volmnt''s read-only probe on the pod''s node, through a short-lived pod (hostPID, host root read-only; announced first, deleted on every path), so a missing mount helper is confirmed or ruled out'
            cand --probe-kernel-log 'Let the probe read the kernel log: adds CAP_SYSLOG (only that) to the probe pod, which kernel.dmesg_restrict=1 requires for dmesg. Without it the probe reads the kernel''s lines only from /var/log files and the journal, and the report says the ring buffer was not read'
            cand --probe-nfs 'With --probe-node: also ask, from the node, whether the pod''s NFS servers answer (`rpcinfo -p`, `showmount -e` and a TCP connect to 2049, 3 s each, where the probe image has them). Off by default: it sends traffic from the node to each server'
            cand -v 'Say more on stderr about what was read and decided (with a cluster: the request count)'
            cand --verbose 'Say more on stderr about what was read and decided (with a cluster: the request count)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'volmnt;doctor;po'= {
            cand -n 'The pod''s namespace'
            cand --namespace 'The pod''s namespace'
            cand -f 'Read saved output from FILE (repeatable; `-` for stdin). With a pod NAME and a cluster in the kubeconfig, the files add to the live read (a kubelet log beside the live objects)'
            cand --from-file 'Read saved output from FILE (repeatable; `-` for stdin). With a pod NAME and a cluster in the kubeconfig, the files add to the live read (a kubelet log beside the live objects)'
            cand --example 'Diagnose a bundled real case instead of files'
            cand --node-os 'The node''s OS (osImage such as "CentOS Linux 7 (Core)", or rhel|debian|suse|alpine|immutable), when no Node object is given'
            cand --max-input-mib 'Refuse inputs larger than this many MiB (a kubelet log is best cut with journalctl --since)'
            cand --save 'Write everything read from the cluster into DIR (replay with --from-file DIR); never Secrets'
            cand --probe-namespace 'Namespace for the probe pod: the one deploy/rbac.yaml prepares (Role volmnt-node-probe, Pod Security label), as for `node check`'
            cand --probe-image 'Image of the probe pod (it only needs a POSIX sh)'
            cand --probe-timeout 'Give up on the probe after this long (pod start included)'
            cand -o 'Output format: a readable report, or one JSON/YAML document on stdout'
            cand --output 'Output format: a readable report, or one JSON/YAML document on stdout'
            cand --color 'Colour the text report (auto: only on a terminal, and never when NO_COLOR is set)'
            cand --kubeconfig 'Path to the kubeconfig file (default: $KUBECONFIG, which may list several files, then ~/.kube/config, then in-cluster)'
            cand --context 'The kubeconfig context to use (default: the current context)'
            cand --request-timeout 'Give up on a request to the API server after this long (e.g. 5s, 1m, 500ms)'
            cand --offline 'Read only the files given, never the cluster (replaying a saved case, or a pod NAME that is not the current cluster''s)'
            cand --probe-node 'Also run volmnt''s read-only probe on the pod''s node, through a short-lived pod (hostPID, host root read-only; announced first, deleted on every path), so a missing mount helper is confirmed or ruled out'
            cand --probe-kernel-log 'Let the probe read the kernel log: adds CAP_SYSLOG (only that) to the probe pod, which kernel.dmesg_restrict=1 requires for dmesg. Without it the probe reads the kernel''s lines only from /var/log files and the journal, and the report says the ring buffer was not read'
            cand --probe-nfs 'With --probe-node: also ask, from the node, whether the pod''s NFS servers answer (`rpcinfo -p`, `showmount -e` and a TCP connect to 2049, 3 s each, where the probe image has them). Off by default: it sends traffic from the node to each server'
            cand -v 'Say more on stderr about what was read and decided (with a cluster: the request count)'
            cand --verbose 'Say more on stderr about what was read and decided (with a cluster: the request count)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'volmnt;doctor;namespace'= {
            cand -n 'The namespace (default: the context''s)'
            cand --namespace 'The namespace (default: the context''s)'
            cand --min-age 'Only pods stuck for at least this long (e.g. 2m, 30s)'
            cand --concurrency 'Pods diagnosed at the same time'
            cand -o 'Output format: a readable report, or one JSON/YAML document on stdout'
            cand --output 'Output format: a readable report, or one JSON/YAML document on stdout'
            cand --color 'Colour the text report (auto: only on a terminal, and never when NO_COLOR is set)'
            cand --kubeconfig 'Path to the kubeconfig file (default: $KUBECONFIG, which may list several files, then ~/.kube/config, then in-cluster)'
            cand --context 'The kubeconfig context to use (default: the current context)'
            cand --request-timeout 'Give up on a request to the API server after this long (e.g. 5s, 1m, 500ms)'
            cand -A 'Every namespace'
            cand --all-namespaces 'Every namespace'
            cand --details 'Print one full report per group of stuck pods (the sample), after the summary'
            cand --all-reports 'Print every stuck pod''s full report, after the summary (-o json always has them all)'
            cand -v 'Say more on stderr about what was read and decided (with a cluster: the request count)'
            cand --verbose 'Say more on stderr about what was read and decided (with a cluster: the request count)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'volmnt;doctor;ns'= {
            cand -n 'The namespace (default: the context''s)'
            cand --namespace 'The namespace (default: the context''s)'
            cand --min-age 'Only pods stuck for at least this long (e.g. 2m, 30s)'
            cand --concurrency 'Pods diagnosed at the same time'
            cand -o 'Output format: a readable report, or one JSON/YAML document on stdout'
            cand --output 'Output format: a readable report, or one JSON/YAML document on stdout'
            cand --color 'Colour the text report (auto: only on a terminal, and never when NO_COLOR is set)'
            cand --kubeconfig 'Path to the kubeconfig file (default: $KUBECONFIG, which may list several files, then ~/.kube/config, then in-cluster)'
            cand --context 'The kubeconfig context to use (default: the current context)'
            cand --request-timeout 'Give up on a request to the API server after this long (e.g. 5s, 1m, 500ms)'
            cand -A 'Every namespace'
            cand --all-namespaces 'Every namespace'
            cand --details 'Print one full report per group of stuck pods (the sample), after the summary'
            cand --all-reports 'Print every stuck pod''s full report, after the summary (-o json always has them all)'
            cand -v 'Say more on stderr about what was read and decided (with a cluster: the request count)'
            cand --verbose 'Say more on stderr about what was read and decided (with a cluster: the request count)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'volmnt;doctor;namespaces'= {
            cand -n 'The namespace (default: the context''s)'
            cand --namespace 'The namespace (default: the context''s)'
            cand --min-age 'Only pods stuck for at least this long (e.g. 2m, 30s)'
            cand --concurrency 'Pods diagnosed at the same time'
            cand -o 'Output format: a readable report, or one JSON/YAML document on stdout'
            cand --output 'Output format: a readable report, or one JSON/YAML document on stdout'
            cand --color 'Colour the text report (auto: only on a terminal, and never when NO_COLOR is set)'
            cand --kubeconfig 'Path to the kubeconfig file (default: $KUBECONFIG, which may list several files, then ~/.kube/config, then in-cluster)'
            cand --context 'The kubeconfig context to use (default: the current context)'
            cand --request-timeout 'Give up on a request to the API server after this long (e.g. 5s, 1m, 500ms)'
            cand -A 'Every namespace'
            cand --all-namespaces 'Every namespace'
            cand --details 'Print one full report per group of stuck pods (the sample), after the summary'
            cand --all-reports 'Print every stuck pod''s full report, after the summary (-o json always has them all)'
            cand -v 'Say more on stderr about what was read and decided (with a cluster: the request count)'
            cand --verbose 'Say more on stderr about what was read and decided (with a cluster: the request count)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'volmnt;doctor;help'= {
            cand pod 'Diagnose one pod: live from the cluster, or from saved output (--from-file), or a bundled real case (--example)'
            cand namespace 'Find the pods of a namespace (or all, -A) stuck on volumes and diagnose each, grouped by cause and node'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'volmnt;doctor;help;pod'= {
        }
        &'volmnt;doctor;help;namespace'= {
        }
        &'volmnt;doctor;help;help'= {
        }
        &'volmnt;node'= {
            cand -o 'Output format: a readable report, or one JSON/YAML document on stdout'
            cand --output 'Output format: a readable report, or one JSON/YAML document on stdout'
            cand --color 'Colour the text report (auto: only on a terminal, and never when NO_COLOR is set)'
            cand --kubeconfig 'Path to the kubeconfig file (default: $KUBECONFIG, which may list several files, then ~/.kube/config, then in-cluster)'
            cand --context 'The kubeconfig context to use (default: the current context)'
            cand --request-timeout 'Give up on a request to the API server after this long (e.g. 5s, 1m, 500ms)'
            cand -v 'Say more on stderr about what was read and decided (with a cluster: the request count)'
            cand --verbose 'Say more on stderr about what was read and decided (with a cluster: the request count)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand check 'Check what nodes can mount (NFS client, rbd, iscsiadm, kernel modules, statd, the kubelet directory''s propagation), over SSH, through a short-lived pod, or on this machine'
            cand gc 'Delete probe pods and DaemonSets left behind by an interrupted `node check` (label volmnt.io/probe=true)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'volmnt;node;check'= {
            cand --via 'Through the cluster: one short-lived pod per node (`pod`), or one DaemonSet for all the nodes (`daemonset`: one create, every node''s pod started at once; for fleets)'
            cand --root 'With --local: read DIR as the node''s root file system (e.g. a mounted node image)'
            cand --node-name 'With --local: the Kubernetes node this machine is (for --label and the report)'
            cand --every 'With --local: check again this often, forever (the long-running DaemonSet of deploy/node-check.yaml; stops on SIGTERM)'
            cand --ssh-option 'Passed to ssh as `-o OPTION` (repeatable), e.g. Port=2222, IdentityFile=~/.ssh/nodes'
            cand --ssh-user 'The ssh user for destinations that name none (default: ssh''s, from ~/.ssh/config)'
            cand --connect-timeout 'ssh''s ConnectTimeout'
            cand --timeout 'Give up on one node after this long (pod start included); the others go on'
            cand --concurrency 'Nodes checked at the same time'
            cand --require 'What every node must be able to mount (comma-separated): nfs, rbd, cephfs, iscsi, cifs, glusterfs, xfs, ext4'
            cand -n 'Namespace of the probe pods: the one deploy/rbac.yaml prepares (Role volmnt-node-probe, Pod Security label)'
            cand --namespace 'Namespace of the probe pods: the one deploy/rbac.yaml prepares (Role volmnt-node-probe, Pod Security label)'
            cand --image 'Image of the probe pods (needs a POSIX sh and `sleep`)'
            cand --progress 'Progress on stderr: auto = when stderr is a terminal'
            cand -o 'Output format: a readable report, or one JSON/YAML document on stdout'
            cand --output 'Output format: a readable report, or one JSON/YAML document on stdout'
            cand --color 'Colour the text report (auto: only on a terminal, and never when NO_COLOR is set)'
            cand --kubeconfig 'Path to the kubeconfig file (default: $KUBECONFIG, which may list several files, then ~/.kube/config, then in-cluster)'
            cand --context 'The kubeconfig context to use (default: the current context)'
            cand --request-timeout 'Give up on a request to the API server after this long (e.g. 5s, 1m, 500ms)'
            cand --all 'Every node of the cluster'
            cand --exec 'Probe through a short-lived pod on each node (default when the cluster is reachable)'
            cand --ssh 'Probe over SSH with the system ssh client'
            cand --local 'Probe this machine'
            cand --host-proc 'With --local --root: /proc is the node''s own (a pod with hostPID), so its mount table and processes are read live (deploy/node-check.yaml runs this way)'
            cand --label 'Write labels volmnt.io/mount.<fs>=true|false on each node checked (needs patch on nodes)'
            cand -v 'Say more on stderr about what was read and decided (with a cluster: the request count)'
            cand --verbose 'Say more on stderr about what was read and decided (with a cluster: the request count)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'volmnt;node;gc'= {
            cand -n 'The probe namespace (the one deploy/rbac.yaml prepares)'
            cand --namespace 'The probe namespace (the one deploy/rbac.yaml prepares)'
            cand --min-age 'Only pods older than this (e.g. 10m), to spare a check running now'
            cand -o 'Output format: a readable report, or one JSON/YAML document on stdout'
            cand --output 'Output format: a readable report, or one JSON/YAML document on stdout'
            cand --color 'Colour the text report (auto: only on a terminal, and never when NO_COLOR is set)'
            cand --kubeconfig 'Path to the kubeconfig file (default: $KUBECONFIG, which may list several files, then ~/.kube/config, then in-cluster)'
            cand --context 'The kubeconfig context to use (default: the current context)'
            cand --request-timeout 'Give up on a request to the API server after this long (e.g. 5s, 1m, 500ms)'
            cand -A 'Every namespace (needs list and delete on pods cluster-wide)'
            cand --all-namespaces 'Every namespace (needs list and delete on pods cluster-wide)'
            cand -v 'Say more on stderr about what was read and decided (with a cluster: the request count)'
            cand --verbose 'Say more on stderr about what was read and decided (with a cluster: the request count)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'volmnt;node;help'= {
            cand check 'Check what nodes can mount (NFS client, rbd, iscsiadm, kernel modules, statd, the kubelet directory''s propagation), over SSH, through a short-lived pod, or on this machine'
            cand gc 'Delete probe pods and DaemonSets left behind by an interrupted `node check` (label volmnt.io/probe=true)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'volmnt;node;help;check'= {
        }
        &'volmnt;node;help;gc'= {
        }
        &'volmnt;node;help;help'= {
        }
        &'volmnt;rbd'= {
            cand -o 'Output format: a readable report, or one JSON/YAML document on stdout'
            cand --output 'Output format: a readable report, or one JSON/YAML document on stdout'
            cand --color 'Colour the text report (auto: only on a terminal, and never when NO_COLOR is set)'
            cand --kubeconfig 'Path to the kubeconfig file (default: $KUBECONFIG, which may list several files, then ~/.kube/config, then in-cluster)'
            cand --context 'The kubeconfig context to use (default: the current context)'
            cand --request-timeout 'Give up on a request to the API server after this long (e.g. 5s, 1m, 500ms)'
            cand -v 'Say more on stderr about what was read and decided (with a cluster: the request count)'
            cand --verbose 'Say more on stderr about what was read and decided (with a cluster: the request count)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand status 'List an image''s locks and watchers, each mapped to a node and its pods, with a verdict'
            cand locks 'List an image''s locks and watchers, each mapped to a node and its pods, with a verdict'
            cand unlock 'Release an image''s stale holders (rbd lock rm / ceph osd blocklist add), after confirmation'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'volmnt;rbd;status'= {
            cand --pod 'Find the image from this pod''s volumes (its claim''s PV, or an inline rbd volume)'
            cand --pvc 'Find the image from this claim''s PV'
            cand -n 'The namespace of --pod/--pvc (default: the context''s)'
            cand --namespace 'The namespace of --pod/--pvc (default: the context''s)'
            cand --ceph-conf 'Ceph config file passed to rbd/ceph as -c (default: theirs, i.e. CEPH_CONF or /etc/ceph/ceph.conf)'
            cand --id 'Ceph user passed to rbd/ceph as --id (e.g. admin)'
            cand --keyring 'Keyring passed to rbd/ceph as --keyring'
            cand --toolbox 'Run rbd/ceph inside this pod (a Rook toolbox) through the exec API instead of locally'
            cand --ceph-timeout 'Give up on an rbd/ceph call after this long'
            cand -o 'Output format: a readable report, or one JSON/YAML document on stdout'
            cand --output 'Output format: a readable report, or one JSON/YAML document on stdout'
            cand --color 'Colour the text report (auto: only on a terminal, and never when NO_COLOR is set)'
            cand --kubeconfig 'Path to the kubeconfig file (default: $KUBECONFIG, which may list several files, then ~/.kube/config, then in-cluster)'
            cand --context 'The kubeconfig context to use (default: the current context)'
            cand --request-timeout 'Give up on a request to the API server after this long (e.g. 5s, 1m, 500ms)'
            cand -v 'Say more on stderr about what was read and decided (with a cluster: the request count)'
            cand --verbose 'Say more on stderr about what was read and decided (with a cluster: the request count)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'volmnt;rbd;locks'= {
            cand --pod 'Find the image from this pod''s volumes (its claim''s PV, or an inline rbd volume)'
            cand --pvc 'Find the image from this claim''s PV'
            cand -n 'The namespace of --pod/--pvc (default: the context''s)'
            cand --namespace 'The namespace of --pod/--pvc (default: the context''s)'
            cand --ceph-conf 'Ceph config file passed to rbd/ceph as -c (default: theirs, i.e. CEPH_CONF or /etc/ceph/ceph.conf)'
            cand --id 'Ceph user passed to rbd/ceph as --id (e.g. admin)'
            cand --keyring 'Keyring passed to rbd/ceph as --keyring'
            cand --toolbox 'Run rbd/ceph inside this pod (a Rook toolbox) through the exec API instead of locally'
            cand --ceph-timeout 'Give up on an rbd/ceph call after this long'
            cand -o 'Output format: a readable report, or one JSON/YAML document on stdout'
            cand --output 'Output format: a readable report, or one JSON/YAML document on stdout'
            cand --color 'Colour the text report (auto: only on a terminal, and never when NO_COLOR is set)'
            cand --kubeconfig 'Path to the kubeconfig file (default: $KUBECONFIG, which may list several files, then ~/.kube/config, then in-cluster)'
            cand --context 'The kubeconfig context to use (default: the current context)'
            cand --request-timeout 'Give up on a request to the API server after this long (e.g. 5s, 1m, 500ms)'
            cand -v 'Say more on stderr about what was read and decided (with a cluster: the request count)'
            cand --verbose 'Say more on stderr about what was read and decided (with a cluster: the request count)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'volmnt;rbd;unlock'= {
            cand --pod 'Find the image from this pod''s volumes (its claim''s PV, or an inline rbd volume)'
            cand --pvc 'Find the image from this claim''s PV'
            cand -n 'The namespace of --pod/--pvc (default: the context''s)'
            cand --namespace 'The namespace of --pod/--pvc (default: the context''s)'
            cand --ceph-conf 'Ceph config file passed to rbd/ceph as -c (default: theirs, i.e. CEPH_CONF or /etc/ceph/ceph.conf)'
            cand --id 'Ceph user passed to rbd/ceph as --id (e.g. admin)'
            cand --keyring 'Keyring passed to rbd/ceph as --keyring'
            cand --toolbox 'Run rbd/ceph inside this pod (a Rook toolbox) through the exec API instead of locally'
            cand --ceph-timeout 'Give up on an rbd/ceph call after this long'
            cand -o 'Output format: a readable report, or one JSON/YAML document on stdout'
            cand --output 'Output format: a readable report, or one JSON/YAML document on stdout'
            cand --color 'Colour the text report (auto: only on a terminal, and never when NO_COLOR is set)'
            cand --kubeconfig 'Path to the kubeconfig file (default: $KUBECONFIG, which may list several files, then ~/.kube/config, then in-cluster)'
            cand --context 'The kubeconfig context to use (default: the current context)'
            cand --request-timeout 'Give up on a request to the API server after this long (e.g. 5s, 1m, 500ms)'
            cand --dry-run 'Print what would be run and why, and change nothing'
            cand -y 'Do not ask: run the plan (still only stale holders, unless --force)'
            cand --yes 'Do not ask: run the plan (still only stale holders, unless --force)'
            cand --force 'Also release live holders and holders that cannot be judged (risk: a filesystem mounted twice)'
            cand --no-blocklist 'Remove locks without blocklisting the locker (--rbd_blocklist_on_break_lock=false)'
            cand -v 'Say more on stderr about what was read and decided (with a cluster: the request count)'
            cand --verbose 'Say more on stderr about what was read and decided (with a cluster: the request count)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'volmnt;rbd;help'= {
            cand status 'List an image''s locks and watchers, each mapped to a node and its pods, with a verdict'
            cand unlock 'Release an image''s stale holders (rbd lock rm / ceph osd blocklist add), after confirmation'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'volmnt;rbd;help;status'= {
        }
        &'volmnt;rbd;help;unlock'= {
        }
        &'volmnt;rbd;help;help'= {
        }
        &'volmnt;watch'= {
            cand -n 'Namespaces to watch (repeatable, or comma-separated; default: the context''s)'
            cand --namespace 'Namespaces to watch (repeatable, or comma-separated; default: the context''s)'
            cand -l 'Only pods matching this label selector (e.g. `app=web,tier!=cache`)'
            cand --selector 'Only pods matching this label selector (e.g. `app=web,tier!=cache`)'
            cand --min-age 'A pod counts as stuck once it is this old (e.g. 2m, 30s)'
            cand --listen 'Address for /metrics, /healthz and /readyz'
            cand --event-refresh 'An unchanged diagnosis bumps its Event''s count and lastTimestamp at most this often'
            cand --resync 'Diagnose every stuck pod again this often, even if nothing changed'
            cand --leader-elect 'Take part in leader election (only the leader writes); false for a single replica'
            cand --lease-namespace 'Namespace of the Lease (default: $POD_NAMESPACE, else the context''s namespace)'
            cand --lease-name 'Name of the Lease'
            cand --lease-duration 'How long a leader''s claim lasts without renewal'
            cand --renew-deadline 'A leader that could not renew for this long stops writing (less than --lease-duration)'
            cand --retry-period 'How often the Lease is renewed, or tried'
            cand --identity 'This replica''s name in the Lease (default: $POD_NAME, else the host name, with the pid)'
            cand --concurrency 'Event writes at the same time'
            cand -o 'Output format: a readable report, or one JSON/YAML document on stdout'
            cand --output 'Output format: a readable report, or one JSON/YAML document on stdout'
            cand --color 'Colour the text report (auto: only on a terminal, and never when NO_COLOR is set)'
            cand --kubeconfig 'Path to the kubeconfig file (default: $KUBECONFIG, which may list several files, then ~/.kube/config, then in-cluster)'
            cand --context 'The kubeconfig context to use (default: the current context)'
            cand --request-timeout 'Give up on a request to the API server after this long (e.g. 5s, 1m, 500ms)'
            cand -A 'Every namespace'
            cand --all-namespaces 'Every namespace'
            cand --dry-run 'Log what would be written; write nothing (no Events, no Lease)'
            cand --read-secrets 'Also watch Secrets (metadata only) to tell whether a Secret a pod mounts exists. Off by default: RBAC cannot grant Secrets'' metadata without their data, and kubelet''s own events already name a missing Secret'
            cand -v 'Say more on stderr about what was read and decided (with a cluster: the request count)'
            cand --verbose 'Say more on stderr about what was read and decided (with a cluster: the request count)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'volmnt;completions'= {
            cand -o 'Output format: a readable report, or one JSON/YAML document on stdout'
            cand --output 'Output format: a readable report, or one JSON/YAML document on stdout'
            cand --color 'Colour the text report (auto: only on a terminal, and never when NO_COLOR is set)'
            cand --kubeconfig 'Path to the kubeconfig file (default: $KUBECONFIG, which may list several files, then ~/.kube/config, then in-cluster)'
            cand --context 'The kubeconfig context to use (default: the current context)'
            cand --request-timeout 'Give up on a request to the API server after this long (e.g. 5s, 1m, 500ms)'
            cand -v 'Say more on stderr about what was read and decided (with a cluster: the request count)'
            cand --verbose 'Say more on stderr about what was read and decided (with a cluster: the request count)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'volmnt;help'= {
            cand explain 'Classify raw error messages (event messages, kubelet log lines, mount output)'
            cand doctor 'Diagnose a stuck pod'
            cand node 'Check what a node can mount (over SSH, through a short-lived pod, or locally); CI preflight'
            cand rbd 'Find who holds an RBD image (locks and watchers) and release it only when provably stale'
            cand watch 'Run as a controller: diagnose every pod stuck on volumes as it happens, write the verdict onto the pod as an Event, export Prometheus metrics'
            cand completions 'Print a shell completion script'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'volmnt;help;explain'= {
        }
        &'volmnt;help;doctor'= {
            cand pod 'Diagnose one pod: live from the cluster, or from saved output (--from-file), or a bundled real case (--example)'
            cand namespace 'Find the pods of a namespace (or all, -A) stuck on volumes and diagnose each, grouped by cause and node'
        }
        &'volmnt;help;doctor;pod'= {
        }
        &'volmnt;help;doctor;namespace'= {
        }
        &'volmnt;help;node'= {
            cand check 'Check what nodes can mount (NFS client, rbd, iscsiadm, kernel modules, statd, the kubelet directory''s propagation), over SSH, through a short-lived pod, or on this machine'
            cand gc 'Delete probe pods and DaemonSets left behind by an interrupted `node check` (label volmnt.io/probe=true)'
        }
        &'volmnt;help;node;check'= {
        }
        &'volmnt;help;node;gc'= {
        }
        &'volmnt;help;rbd'= {
            cand status 'List an image''s locks and watchers, each mapped to a node and its pods, with a verdict'
            cand unlock 'Release an image''s stale holders (rbd lock rm / ceph osd blocklist add), after confirmation'
        }
        &'volmnt;help;rbd;status'= {
        }
        &'volmnt;help;rbd;unlock'= {
        }
        &'volmnt;help;watch'= {
        }
        &'volmnt;help;completions'= {
        }
        &'volmnt;help;help'= {
        }
    ]
    $completions[$command]
}
