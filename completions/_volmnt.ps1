
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'volmnt' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'volmnt'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'volmnt' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a readable report, or one JSON/YAML document on stdout')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a readable report, or one JSON/YAML document on stdout')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour the text report (auto: only on a terminal, and never when NO_COLOR is set)')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (default: $KUBECONFIG, which may list several files, then ~/.kube/config, then in-cluster)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use (default: the current context)')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'Give up on a request to the API server after this long (e.g. 5s, 1m, 500ms)')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The kubeconfig cluster to use (default: the context''s)')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The kubeconfig user to use (default: the context''s)')
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'The address of the API server (as kubectl''s --server; works without a kubeconfig)')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'The address of the API server (as kubectl''s --server; works without a kubeconfig)')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'Bearer token for the API server (as kubectl''s --token; never printed)')
            [CompletionResult]::new('--certificate-authority', '--certificate-authority', [CompletionResultType]::ParameterName, 'A CA certificate file to verify the API server with')
            [CompletionResult]::new('--client-certificate', '--client-certificate', [CompletionResultType]::ParameterName, 'A client certificate file for TLS')
            [CompletionResult]::new('--client-key', '--client-key', [CompletionResultType]::ParameterName, 'A client key file for TLS')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Act as this user (impersonation, as kubectl''s --as; needs impersonate rights)')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Act as this group (repeatable; with --as)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more on stderr about what was read and decided (with a cluster: the request count)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more on stderr about what was read and decided (with a cluster: the request count)')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Do not verify the API server''s certificate (insecure, as kubectl''s flag)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('explain', 'explain', [CompletionResultType]::ParameterValue, 'Classify raw error messages (event messages, kubelet log lines, mount output)')
            [CompletionResult]::new('doctor', 'doctor', [CompletionResultType]::ParameterValue, 'Diagnose a stuck pod')
            [CompletionResult]::new('node', 'node', [CompletionResultType]::ParameterValue, 'Check what a node can mount (over SSH, through a short-lived pod, or locally); CI preflight')
            [CompletionResult]::new('rbd', 'rbd', [CompletionResultType]::ParameterValue, 'Find who holds an RBD image (locks and watchers) and release it only when provably stale')
            [CompletionResult]::new('watch', 'watch', [CompletionResultType]::ParameterValue, 'Run as a controller: diagnose every pod stuck on volumes as it happens, write the verdict onto the pod as an Event, export Prometheus metrics')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a shell completion script')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'volmnt;explain' {
            [CompletionResult]::new('--node-os', '--node-os', [CompletionResultType]::ParameterName, 'The node''s OS (osImage such as "Ubuntu 22.04.4 LTS", or rhel|debian|suse|alpine|immutable), for install commands')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a readable report, or one JSON/YAML document on stdout')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a readable report, or one JSON/YAML document on stdout')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour the text report (auto: only on a terminal, and never when NO_COLOR is set)')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (default: $KUBECONFIG, which may list several files, then ~/.kube/config, then in-cluster)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use (default: the current context)')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'Give up on a request to the API server after this long (e.g. 5s, 1m, 500ms)')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The kubeconfig cluster to use (default: the context''s)')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The kubeconfig user to use (default: the context''s)')
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'The address of the API server (as kubectl''s --server; works without a kubeconfig)')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'The address of the API server (as kubectl''s --server; works without a kubeconfig)')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'Bearer token for the API server (as kubectl''s --token; never printed)')
            [CompletionResult]::new('--certificate-authority', '--certificate-authority', [CompletionResultType]::ParameterName, 'A CA certificate file to verify the API server with')
            [CompletionResult]::new('--client-certificate', '--client-certificate', [CompletionResultType]::ParameterName, 'A client certificate file for TLS')
            [CompletionResult]::new('--client-key', '--client-key', [CompletionResultType]::ParameterName, 'A client key file for TLS')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Act as this user (impersonation, as kubectl''s --as; needs impersonate rights)')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Act as this group (repeatable; with --as)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more on stderr about what was read and decided (with a cluster: the request count)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more on stderr about what was read and decided (with a cluster: the request count)')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Do not verify the API server''s certificate (insecure, as kubectl''s flag)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'volmnt;doctor' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a readable report, or one JSON/YAML document on stdout')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a readable report, or one JSON/YAML document on stdout')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour the text report (auto: only on a terminal, and never when NO_COLOR is set)')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (default: $KUBECONFIG, which may list several files, then ~/.kube/config, then in-cluster)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use (default: the current context)')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'Give up on a request to the API server after this long (e.g. 5s, 1m, 500ms)')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The kubeconfig cluster to use (default: the context''s)')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The kubeconfig user to use (default: the context''s)')
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'The address of the API server (as kubectl''s --server; works without a kubeconfig)')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'The address of the API server (as kubectl''s --server; works without a kubeconfig)')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'Bearer token for the API server (as kubectl''s --token; never printed)')
            [CompletionResult]::new('--certificate-authority', '--certificate-authority', [CompletionResultType]::ParameterName, 'A CA certificate file to verify the API server with')
            [CompletionResult]::new('--client-certificate', '--client-certificate', [CompletionResultType]::ParameterName, 'A client certificate file for TLS')
            [CompletionResult]::new('--client-key', '--client-key', [CompletionResultType]::ParameterName, 'A client key file for TLS')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Act as this user (impersonation, as kubectl''s --as; needs impersonate rights)')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Act as this group (repeatable; with --as)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more on stderr about what was read and decided (with a cluster: the request count)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more on stderr about what was read and decided (with a cluster: the request count)')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Do not verify the API server''s certificate (insecure, as kubectl''s flag)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('pod', 'pod', [CompletionResultType]::ParameterValue, 'Diagnose one pod: live from the cluster, or from saved output (--from-file), or a bundled real case (--example)')
            [CompletionResult]::new('pods', 'pods', [CompletionResultType]::ParameterValue, 'Diagnose one pod: live from the cluster, or from saved output (--from-file), or a bundled real case (--example)')
            [CompletionResult]::new('po', 'po', [CompletionResultType]::ParameterValue, 'Diagnose one pod: live from the cluster, or from saved output (--from-file), or a bundled real case (--example)')
            [CompletionResult]::new('namespace', 'namespace', [CompletionResultType]::ParameterValue, 'Find the pods of a namespace (or all, -A) stuck on volumes and diagnose each, grouped by cause and node')
            [CompletionResult]::new('ns', 'ns', [CompletionResultType]::ParameterValue, 'Find the pods of a namespace (or all, -A) stuck on volumes and diagnose each, grouped by cause and node')
            [CompletionResult]::new('namespaces', 'namespaces', [CompletionResultType]::ParameterValue, 'Find the pods of a namespace (or all, -A) stuck on volumes and diagnose each, grouped by cause and node')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'volmnt;doctor;pod' {
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'The pod''s namespace')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The pod''s namespace')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Read saved output from FILE (repeatable; `-` for stdin). With a pod NAME and a cluster in the kubeconfig, the files add to the live read (a kubelet log beside the live objects)')
            [CompletionResult]::new('--from-file', '--from-file', [CompletionResultType]::ParameterName, 'Read saved output from FILE (repeatable; `-` for stdin). With a pod NAME and a cluster in the kubeconfig, the files add to the live read (a kubelet log beside the live objects)')
            [CompletionResult]::new('--example', '--example', [CompletionResultType]::ParameterName, 'Diagnose a bundled real case instead of files')
            [CompletionResult]::new('--node-os', '--node-os', [CompletionResultType]::ParameterName, 'The node''s OS (osImage such as "CentOS Linux 7 (Core)", or rhel|debian|suse|alpine|immutable), when no Node object is given')
            [CompletionResult]::new('--max-input-mib', '--max-input-mib', [CompletionResultType]::ParameterName, 'Refuse inputs larger than this many MiB (a kubelet log is best cut with journalctl --since)')
            [CompletionResult]::new('--save', '--save', [CompletionResultType]::ParameterName, 'Write everything read from the cluster into DIR (replay with --from-file DIR); never Secrets')
            [CompletionResult]::new('--probe-namespace', '--probe-namespace', [CompletionResultType]::ParameterName, 'Namespace for the probe pod: the one deploy/rbac.yaml prepares (Role volmnt-node-probe, Pod Security label), as for `node check`')
            [CompletionResult]::new('--probe-image', '--probe-image', [CompletionResultType]::ParameterName, 'Image of the probe pod (it only needs a POSIX sh)')
            [CompletionResult]::new('--probe-timeout', '--probe-timeout', [CompletionResultType]::ParameterName, 'Give up on the probe after this long (pod start included)')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a readable report, or one JSON/YAML document on stdout')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a readable report, or one JSON/YAML document on stdout')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour the text report (auto: only on a terminal, and never when NO_COLOR is set)')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (default: $KUBECONFIG, which may list several files, then ~/.kube/config, then in-cluster)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use (default: the current context)')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'Give up on a request to the API server after this long (e.g. 5s, 1m, 500ms)')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The kubeconfig cluster to use (default: the context''s)')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The kubeconfig user to use (default: the context''s)')
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'The address of the API server (as kubectl''s --server; works without a kubeconfig)')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'The address of the API server (as kubectl''s --server; works without a kubeconfig)')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'Bearer token for the API server (as kubectl''s --token; never printed)')
            [CompletionResult]::new('--certificate-authority', '--certificate-authority', [CompletionResultType]::ParameterName, 'A CA certificate file to verify the API server with')
            [CompletionResult]::new('--client-certificate', '--client-certificate', [CompletionResultType]::ParameterName, 'A client certificate file for TLS')
            [CompletionResult]::new('--client-key', '--client-key', [CompletionResultType]::ParameterName, 'A client key file for TLS')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Act as this user (impersonation, as kubectl''s --as; needs impersonate rights)')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Act as this group (repeatable; with --as)')
            [CompletionResult]::new('--offline', '--offline', [CompletionResultType]::ParameterName, 'Read only the files given, never the cluster (replaying a saved case, or a pod NAME that is not the current cluster''s)')
            [CompletionResult]::new('--probe-node', '--probe-node', [CompletionResultType]::ParameterName, 'Also run volmnt''s read-only probe on the pod''s node, through a short-lived pod (hostPID, host root read-only; announced first, deleted on every path), so a missing mount helper is confirmed or ruled out')
            [CompletionResult]::new('--probe-kernel-log', '--probe-kernel-log', [CompletionResultType]::ParameterName, 'Let the probe read the kernel log: adds CAP_SYSLOG (only that) to the probe pod, which kernel.dmesg_restrict=1 requires for dmesg. Without it the probe reads the kernel''s lines only from /var/log files and the journal, and the report says the ring buffer was not read')
            [CompletionResult]::new('--probe-nfs', '--probe-nfs', [CompletionResultType]::ParameterName, 'With --probe-node: also ask, from the node, whether the pod''s NFS servers answer (`rpcinfo -p`, `showmount -e` and a TCP connect to 2049, 3 s each, where the probe image has them). Off by default: it sends traffic from the node to each server')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more on stderr about what was read and decided (with a cluster: the request count)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more on stderr about what was read and decided (with a cluster: the request count)')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Do not verify the API server''s certificate (insecure, as kubectl''s flag)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'volmnt;doctor;pods' {
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'The pod''s namespace')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The pod''s namespace')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Read saved output from FILE (repeatable; `-` for stdin). With a pod NAME and a cluster in the kubeconfig, the files add to the live read (a kubelet log beside the live objects)')
            [CompletionResult]::new('--from-file', '--from-file', [CompletionResultType]::ParameterName, 'Read saved output from FILE (repeatable; `-` for stdin). With a pod NAME and a cluster in the kubeconfig, the files add to the live read (a kubelet log beside the live objects)')
            [CompletionResult]::new('--example', '--example', [CompletionResultType]::ParameterName, 'Diagnose a bundled real case instead of files')
            [CompletionResult]::new('--node-os', '--node-os', [CompletionResultType]::ParameterName, 'The node''s OS (osImage such as "CentOS Linux 7 (Core)", or rhel|debian|suse|alpine|immutable), when no Node object is given')
            [CompletionResult]::new('--max-input-mib', '--max-input-mib', [CompletionResultType]::ParameterName, 'Refuse inputs larger than this many MiB (a kubelet log is best cut with journalctl --since)')
            [CompletionResult]::new('--save', '--save', [CompletionResultType]::ParameterName, 'Write everything read from the cluster into DIR (replay with --from-file DIR); never Secrets')
            [CompletionResult]::new('--probe-namespace', '--probe-namespace', [CompletionResultType]::ParameterName, 'Namespace for the probe pod: the one deploy/rbac.yaml prepares (Role volmnt-node-probe, Pod Security label), as for `node check`')
            [CompletionResult]::new('--probe-image', '--probe-image', [CompletionResultType]::ParameterName, 'Image of the probe pod (it only needs a POSIX sh)')
            [CompletionResult]::new('--probe-timeout', '--probe-timeout', [CompletionResultType]::ParameterName, 'Give up on the probe after this long (pod start included)')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a readable report, or one JSON/YAML document on stdout')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a readable report, or one JSON/YAML document on stdout')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour the text report (auto: only on a terminal, and never when NO_COLOR is set)')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (default: $KUBECONFIG, which may list several files, then ~/.kube/config, then in-cluster)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use (default: the current context)')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'Give up on a request to the API server after this long (e.g. 5s, 1m, 500ms)')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The kubeconfig cluster to use (default: the context''s)')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The kubeconfig user to use (default: the context''s)')
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'The address of the API server (as kubectl''s --server; works without a kubeconfig)')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'The address of the API server (as kubectl''s --server; works without a kubeconfig)')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'Bearer token for the API server (as kubectl''s --token; never printed)')
            [CompletionResult]::new('--certificate-authority', '--certificate-authority', [CompletionResultType]::ParameterName, 'A CA certificate file to verify the API server with')
            [CompletionResult]::new('--client-certificate', '--client-certificate', [CompletionResultType]::ParameterName, 'A client certificate file for TLS')
            [CompletionResult]::new('--client-key', '--client-key', [CompletionResultType]::ParameterName, 'A client key file for TLS')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Act as this user (impersonation, as kubectl''s --as; needs impersonate rights)')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Act as this group (repeatable; with --as)')
            [CompletionResult]::new('--offline', '--offline', [CompletionResultType]::ParameterName, 'Read only the files given, never the cluster (replaying a saved case, or a pod NAME that is not the current cluster''s)')
            [CompletionResult]::new('--probe-node', '--probe-node', [CompletionResultType]::ParameterName, 'Also run volmnt''s read-only probe on the pod''s node, through a short-lived pod (hostPID, host root read-only; announced first, deleted on every path), so a missing mount helper is confirmed or ruled out')
            [CompletionResult]::new('--probe-kernel-log', '--probe-kernel-log', [CompletionResultType]::ParameterName, 'Let the probe read the kernel log: adds CAP_SYSLOG (only that) to the probe pod, which kernel.dmesg_restrict=1 requires for dmesg. Without it the probe reads the kernel''s lines only from /var/log files and the journal, and the report says the ring buffer was not read')
            [CompletionResult]::new('--probe-nfs', '--probe-nfs', [CompletionResultType]::ParameterName, 'With --probe-node: also ask, from the node, whether the pod''s NFS servers answer (`rpcinfo -p`, `showmount -e` and a TCP connect to 2049, 3 s each, where the probe image has them). Off by default: it sends traffic from the node to each server')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more on stderr about what was read and decided (with a cluster: the request count)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more on stderr about what was read and decided (with a cluster: the request count)')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Do not verify the API server''s certificate (insecure, as kubectl''s flag)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'volmnt;doctor;po' {
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'The pod''s namespace')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The pod''s namespace')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Read saved output from FILE (repeatable; `-` for stdin). With a pod NAME and a cluster in the kubeconfig, the files add to the live read (a kubelet log beside the live objects)')
            [CompletionResult]::new('--from-file', '--from-file', [CompletionResultType]::ParameterName, 'Read saved output from FILE (repeatable; `-` for stdin). With a pod NAME and a cluster in the kubeconfig, the files add to the live read (a kubelet log beside the live objects)')
            [CompletionResult]::new('--example', '--example', [CompletionResultType]::ParameterName, 'Diagnose a bundled real case instead of files')
            [CompletionResult]::new('--node-os', '--node-os', [CompletionResultType]::ParameterName, 'The node''s OS (osImage such as "CentOS Linux 7 (Core)", or rhel|debian|suse|alpine|immutable), when no Node object is given')
            [CompletionResult]::new('--max-input-mib', '--max-input-mib', [CompletionResultType]::ParameterName, 'Refuse inputs larger than this many MiB (a kubelet log is best cut with journalctl --since)')
            [CompletionResult]::new('--save', '--save', [CompletionResultType]::ParameterName, 'Write everything read from the cluster into DIR (replay with --from-file DIR); never Secrets')
            [CompletionResult]::new('--probe-namespace', '--probe-namespace', [CompletionResultType]::ParameterName, 'Namespace for the probe pod: the one deploy/rbac.yaml prepares (Role volmnt-node-probe, Pod Security label), as for `node check`')
            [CompletionResult]::new('--probe-image', '--probe-image', [CompletionResultType]::ParameterName, 'Image of the probe pod (it only needs a POSIX sh)')
            [CompletionResult]::new('--probe-timeout', '--probe-timeout', [CompletionResultType]::ParameterName, 'Give up on the probe after this long (pod start included)')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a readable report, or one JSON/YAML document on stdout')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a readable report, or one JSON/YAML document on stdout')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour the text report (auto: only on a terminal, and never when NO_COLOR is set)')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (default: $KUBECONFIG, which may list several files, then ~/.kube/config, then in-cluster)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use (default: the current context)')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'Give up on a request to the API server after this long (e.g. 5s, 1m, 500ms)')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The kubeconfig cluster to use (default: the context''s)')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The kubeconfig user to use (default: the context''s)')
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'The address of the API server (as kubectl''s --server; works without a kubeconfig)')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'The address of the API server (as kubectl''s --server; works without a kubeconfig)')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'Bearer token for the API server (as kubectl''s --token; never printed)')
            [CompletionResult]::new('--certificate-authority', '--certificate-authority', [CompletionResultType]::ParameterName, 'A CA certificate file to verify the API server with')
            [CompletionResult]::new('--client-certificate', '--client-certificate', [CompletionResultType]::ParameterName, 'A client certificate file for TLS')
            [CompletionResult]::new('--client-key', '--client-key', [CompletionResultType]::ParameterName, 'A client key file for TLS')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Act as this user (impersonation, as kubectl''s --as; needs impersonate rights)')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Act as this group (repeatable; with --as)')
            [CompletionResult]::new('--offline', '--offline', [CompletionResultType]::ParameterName, 'Read only the files given, never the cluster (replaying a saved case, or a pod NAME that is not the current cluster''s)')
            [CompletionResult]::new('--probe-node', '--probe-node', [CompletionResultType]::ParameterName, 'Also run volmnt''s read-only probe on the pod''s node, through a short-lived pod (hostPID, host root read-only; announced first, deleted on every path), so a missing mount helper is confirmed or ruled out')
            [CompletionResult]::new('--probe-kernel-log', '--probe-kernel-log', [CompletionResultType]::ParameterName, 'Let the probe read the kernel log: adds CAP_SYSLOG (only that) to the probe pod, which kernel.dmesg_restrict=1 requires for dmesg. Without it the probe reads the kernel''s lines only from /var/log files and the journal, and the report says the ring buffer was not read')
            [CompletionResult]::new('--probe-nfs', '--probe-nfs', [CompletionResultType]::ParameterName, 'With --probe-node: also ask, from the node, whether the pod''s NFS servers answer (`rpcinfo -p`, `showmount -e` and a TCP connect to 2049, 3 s each, where the probe image has them). Off by default: it sends traffic from the node to each server')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more on stderr about what was read and decided (with a cluster: the request count)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more on stderr about what was read and decided (with a cluster: the request count)')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Do not verify the API server''s certificate (insecure, as kubectl''s flag)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'volmnt;doctor;namespace' {
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'The namespace (default: the context''s)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The namespace (default: the context''s)')
            [CompletionResult]::new('--min-age', '--min-age', [CompletionResultType]::ParameterName, 'Only pods stuck for at least this long (e.g. 2m, 30s)')
            [CompletionResult]::new('--concurrency', '--concurrency', [CompletionResultType]::ParameterName, 'Pods diagnosed at the same time')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a readable report, or one JSON/YAML document on stdout')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a readable report, or one JSON/YAML document on stdout')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour the text report (auto: only on a terminal, and never when NO_COLOR is set)')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (default: $KUBECONFIG, which may list several files, then ~/.kube/config, then in-cluster)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use (default: the current context)')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'Give up on a request to the API server after this long (e.g. 5s, 1m, 500ms)')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The kubeconfig cluster to use (default: the context''s)')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The kubeconfig user to use (default: the context''s)')
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'The address of the API server (as kubectl''s --server; works without a kubeconfig)')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'The address of the API server (as kubectl''s --server; works without a kubeconfig)')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'Bearer token for the API server (as kubectl''s --token; never printed)')
            [CompletionResult]::new('--certificate-authority', '--certificate-authority', [CompletionResultType]::ParameterName, 'A CA certificate file to verify the API server with')
            [CompletionResult]::new('--client-certificate', '--client-certificate', [CompletionResultType]::ParameterName, 'A client certificate file for TLS')
            [CompletionResult]::new('--client-key', '--client-key', [CompletionResultType]::ParameterName, 'A client key file for TLS')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Act as this user (impersonation, as kubectl''s --as; needs impersonate rights)')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Act as this group (repeatable; with --as)')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'Every namespace')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'Every namespace')
            [CompletionResult]::new('--details', '--details', [CompletionResultType]::ParameterName, 'Print one full report per group of stuck pods (the sample), after the summary')
            [CompletionResult]::new('--all-reports', '--all-reports', [CompletionResultType]::ParameterName, 'Print every stuck pod''s full report, after the summary (-o json always has them all)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more on stderr about what was read and decided (with a cluster: the request count)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more on stderr about what was read and decided (with a cluster: the request count)')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Do not verify the API server''s certificate (insecure, as kubectl''s flag)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'volmnt;doctor;ns' {
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'The namespace (default: the context''s)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The namespace (default: the context''s)')
            [CompletionResult]::new('--min-age', '--min-age', [CompletionResultType]::ParameterName, 'Only pods stuck for at least this long (e.g. 2m, 30s)')
            [CompletionResult]::new('--concurrency', '--concurrency', [CompletionResultType]::ParameterName, 'Pods diagnosed at the same time')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a readable report, or one JSON/YAML document on stdout')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a readable report, or one JSON/YAML document on stdout')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour the text report (auto: only on a terminal, and never when NO_COLOR is set)')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (default: $KUBECONFIG, which may list several files, then ~/.kube/config, then in-cluster)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use (default: the current context)')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'Give up on a request to the API server after this long (e.g. 5s, 1m, 500ms)')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The kubeconfig cluster to use (default: the context''s)')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The kubeconfig user to use (default: the context''s)')
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'The address of the API server (as kubectl''s --server; works without a kubeconfig)')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'The address of the API server (as kubectl''s --server; works without a kubeconfig)')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'Bearer token for the API server (as kubectl''s --token; never printed)')
            [CompletionResult]::new('--certificate-authority', '--certificate-authority', [CompletionResultType]::ParameterName, 'A CA certificate file to verify the API server with')
            [CompletionResult]::new('--client-certificate', '--client-certificate', [CompletionResultType]::ParameterName, 'A client certificate file for TLS')
            [CompletionResult]::new('--client-key', '--client-key', [CompletionResultType]::ParameterName, 'A client key file for TLS')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Act as this user (impersonation, as kubectl''s --as; needs impersonate rights)')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Act as this group (repeatable; with --as)')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'Every namespace')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'Every namespace')
            [CompletionResult]::new('--details', '--details', [CompletionResultType]::ParameterName, 'Print one full report per group of stuck pods (the sample), after the summary')
            [CompletionResult]::new('--all-reports', '--all-reports', [CompletionResultType]::ParameterName, 'Print every stuck pod''s full report, after the summary (-o json always has them all)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more on stderr about what was read and decided (with a cluster: the request count)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more on stderr about what was read and decided (with a cluster: the request count)')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Do not verify the API server''s certificate (insecure, as kubectl''s flag)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'volmnt;doctor;namespaces' {
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'The namespace (default: the context''s)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The namespace (default: the context''s)')
            [CompletionResult]::new('--min-age', '--min-age', [CompletionResultType]::ParameterName, 'Only pods stuck for at least this long (e.g. 2m, 30s)')
            [CompletionResult]::new('--concurrency', '--concurrency', [CompletionResultType]::ParameterName, 'Pods diagnosed at the same time')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a readable report, or one JSON/YAML document on stdout')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a readable report, or one JSON/YAML document on stdout')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour the text report (auto: only on a terminal, and never when NO_COLOR is set)')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (default: $KUBECONFIG, which may list several files, then ~/.kube/config, then in-cluster)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use (default: the current context)')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'Give up on a request to the API server after this long (e.g. 5s, 1m, 500ms)')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The kubeconfig cluster to use (default: the context''s)')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The kubeconfig user to use (default: the context''s)')
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'The address of the API server (as kubectl''s --server; works without a kubeconfig)')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'The address of the API server (as kubectl''s --server; works without a kubeconfig)')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'Bearer token for the API server (as kubectl''s --token; never printed)')
            [CompletionResult]::new('--certificate-authority', '--certificate-authority', [CompletionResultType]::ParameterName, 'A CA certificate file to verify the API server with')
            [CompletionResult]::new('--client-certificate', '--client-certificate', [CompletionResultType]::ParameterName, 'A client certificate file for TLS')
            [CompletionResult]::new('--client-key', '--client-key', [CompletionResultType]::ParameterName, 'A client key file for TLS')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Act as this user (impersonation, as kubectl''s --as; needs impersonate rights)')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Act as this group (repeatable; with --as)')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'Every namespace')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'Every namespace')
            [CompletionResult]::new('--details', '--details', [CompletionResultType]::ParameterName, 'Print one full report per group of stuck pods (the sample), after the summary')
            [CompletionResult]::new('--all-reports', '--all-reports', [CompletionResultType]::ParameterName, 'Print every stuck pod''s full report, after the summary (-o json always has them all)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more on stderr about what was read and decided (with a cluster: the request count)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more on stderr about what was read and decided (with a cluster: the request count)')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Do not verify the API server''s certificate (insecure, as kubectl''s flag)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'volmnt;doctor;help' {
            [CompletionResult]::new('pod', 'pod', [CompletionResultType]::ParameterValue, 'Diagnose one pod: live from the cluster, or from saved output (--from-file), or a bundled real case (--example)')
            [CompletionResult]::new('namespace', 'namespace', [CompletionResultType]::ParameterValue, 'Find the pods of a namespace (or all, -A) stuck on volumes and diagnose each, grouped by cause and node')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'volmnt;doctor;help;pod' {
            break
        }
        'volmnt;doctor;help;namespace' {
            break
        }
        'volmnt;doctor;help;help' {
            break
        }
        'volmnt;node' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a readable report, or one JSON/YAML document on stdout')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a readable report, or one JSON/YAML document on stdout')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour the text report (auto: only on a terminal, and never when NO_COLOR is set)')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (default: $KUBECONFIG, which may list several files, then ~/.kube/config, then in-cluster)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use (default: the current context)')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'Give up on a request to the API server after this long (e.g. 5s, 1m, 500ms)')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The kubeconfig cluster to use (default: the context''s)')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The kubeconfig user to use (default: the context''s)')
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'The address of the API server (as kubectl''s --server; works without a kubeconfig)')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'The address of the API server (as kubectl''s --server; works without a kubeconfig)')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'Bearer token for the API server (as kubectl''s --token; never printed)')
            [CompletionResult]::new('--certificate-authority', '--certificate-authority', [CompletionResultType]::ParameterName, 'A CA certificate file to verify the API server with')
            [CompletionResult]::new('--client-certificate', '--client-certificate', [CompletionResultType]::ParameterName, 'A client certificate file for TLS')
            [CompletionResult]::new('--client-key', '--client-key', [CompletionResultType]::ParameterName, 'A client key file for TLS')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Act as this user (impersonation, as kubectl''s --as; needs impersonate rights)')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Act as this group (repeatable; with --as)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more on stderr about what was read and decided (with a cluster: the request count)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more on stderr about what was read and decided (with a cluster: the request count)')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Do not verify the API server''s certificate (insecure, as kubectl''s flag)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Check what nodes can mount (NFS client, rbd, iscsiadm, kernel modules, statd, the kubelet directory''s propagation), over SSH, through a short-lived pod, or on this machine')
            [CompletionResult]::new('gc', 'gc', [CompletionResultType]::ParameterValue, 'Delete probe pods and DaemonSets left behind by an interrupted `node check` (label volmnt.io/probe=true)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'volmnt;node;check' {
            [CompletionResult]::new('--via', '--via', [CompletionResultType]::ParameterName, 'Through the cluster: one short-lived pod per node (`pod`), or one DaemonSet for all the nodes (`daemonset`: one create, every node''s pod started at once; for fleets)')
            [CompletionResult]::new('--root', '--root', [CompletionResultType]::ParameterName, 'With --local: read DIR as the node''s root file system (e.g. a mounted node image)')
            [CompletionResult]::new('--node-name', '--node-name', [CompletionResultType]::ParameterName, 'With --local: the Kubernetes node this machine is (for --label and the report)')
            [CompletionResult]::new('--every', '--every', [CompletionResultType]::ParameterName, 'With --local: check again this often, forever (the long-running DaemonSet of deploy/node-check.yaml; stops on SIGTERM)')
            [CompletionResult]::new('--ssh-option', '--ssh-option', [CompletionResultType]::ParameterName, 'Passed to ssh as `-o OPTION` (repeatable), e.g. Port=2222, IdentityFile=~/.ssh/nodes')
            [CompletionResult]::new('--ssh-user', '--ssh-user', [CompletionResultType]::ParameterName, 'The ssh user for destinations that name none (default: ssh''s, from ~/.ssh/config)')
            [CompletionResult]::new('--connect-timeout', '--connect-timeout', [CompletionResultType]::ParameterName, 'ssh''s ConnectTimeout')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Give up on one node after this long (pod start included); the others go on')
            [CompletionResult]::new('--concurrency', '--concurrency', [CompletionResultType]::ParameterName, 'Nodes checked at the same time')
            [CompletionResult]::new('--require', '--require', [CompletionResultType]::ParameterName, 'What every node must be able to mount (comma-separated): nfs, rbd, cephfs, iscsi, cifs, glusterfs, xfs, ext4')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace of the probe pods: the one deploy/rbac.yaml prepares (Role volmnt-node-probe, Pod Security label)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace of the probe pods: the one deploy/rbac.yaml prepares (Role volmnt-node-probe, Pod Security label)')
            [CompletionResult]::new('--image', '--image', [CompletionResultType]::ParameterName, 'Image of the probe pods (needs a POSIX sh and `sleep`)')
            [CompletionResult]::new('--progress', '--progress', [CompletionResultType]::ParameterName, 'Progress on stderr: auto = when stderr is a terminal')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a readable report, or one JSON/YAML document on stdout')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a readable report, or one JSON/YAML document on stdout')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour the text report (auto: only on a terminal, and never when NO_COLOR is set)')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (default: $KUBECONFIG, which may list several files, then ~/.kube/config, then in-cluster)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use (default: the current context)')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'Give up on a request to the API server after this long (e.g. 5s, 1m, 500ms)')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The kubeconfig cluster to use (default: the context''s)')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The kubeconfig user to use (default: the context''s)')
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'The address of the API server (as kubectl''s --server; works without a kubeconfig)')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'The address of the API server (as kubectl''s --server; works without a kubeconfig)')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'Bearer token for the API server (as kubectl''s --token; never printed)')
            [CompletionResult]::new('--certificate-authority', '--certificate-authority', [CompletionResultType]::ParameterName, 'A CA certificate file to verify the API server with')
            [CompletionResult]::new('--client-certificate', '--client-certificate', [CompletionResultType]::ParameterName, 'A client certificate file for TLS')
            [CompletionResult]::new('--client-key', '--client-key', [CompletionResultType]::ParameterName, 'A client key file for TLS')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Act as this user (impersonation, as kubectl''s --as; needs impersonate rights)')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Act as this group (repeatable; with --as)')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Every node of the cluster')
            [CompletionResult]::new('--exec', '--exec', [CompletionResultType]::ParameterName, 'Probe through a short-lived pod on each node (default when the cluster is reachable)')
            [CompletionResult]::new('--ssh', '--ssh', [CompletionResultType]::ParameterName, 'Probe over SSH with the system ssh client')
            [CompletionResult]::new('--local', '--local', [CompletionResultType]::ParameterName, 'Probe this machine')
            [CompletionResult]::new('--host-proc', '--host-proc', [CompletionResultType]::ParameterName, 'With --local --root: /proc is the node''s own (a pod with hostPID), so its mount table and processes are read live (deploy/node-check.yaml runs this way)')
            [CompletionResult]::new('--label', '--label', [CompletionResultType]::ParameterName, 'Write labels volmnt.io/mount.<fs>=true|false on each node checked (needs patch on nodes)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more on stderr about what was read and decided (with a cluster: the request count)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more on stderr about what was read and decided (with a cluster: the request count)')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Do not verify the API server''s certificate (insecure, as kubectl''s flag)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'volmnt;node;gc' {
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'The probe namespace (the one deploy/rbac.yaml prepares)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The probe namespace (the one deploy/rbac.yaml prepares)')
            [CompletionResult]::new('--min-age', '--min-age', [CompletionResultType]::ParameterName, 'Only pods older than this (e.g. 10m), to spare a check running now')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a readable report, or one JSON/YAML document on stdout')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a readable report, or one JSON/YAML document on stdout')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour the text report (auto: only on a terminal, and never when NO_COLOR is set)')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (default: $KUBECONFIG, which may list several files, then ~/.kube/config, then in-cluster)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use (default: the current context)')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'Give up on a request to the API server after this long (e.g. 5s, 1m, 500ms)')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The kubeconfig cluster to use (default: the context''s)')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The kubeconfig user to use (default: the context''s)')
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'The address of the API server (as kubectl''s --server; works without a kubeconfig)')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'The address of the API server (as kubectl''s --server; works without a kubeconfig)')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'Bearer token for the API server (as kubectl''s --token; never printed)')
            [CompletionResult]::new('--certificate-authority', '--certificate-authority', [CompletionResultType]::ParameterName, 'A CA certificate file to verify the API server with')
            [CompletionResult]::new('--client-certificate', '--client-certificate', [CompletionResultType]::ParameterName, 'A client certificate file for TLS')
            [CompletionResult]::new('--client-key', '--client-key', [CompletionResultType]::ParameterName, 'A client key file for TLS')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Act as this user (impersonation, as kubectl''s --as; needs impersonate rights)')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Act as this group (repeatable; with --as)')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'Every namespace (needs list and delete on pods cluster-wide)')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'Every namespace (needs list and delete on pods cluster-wide)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more on stderr about what was read and decided (with a cluster: the request count)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more on stderr about what was read and decided (with a cluster: the request count)')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Do not verify the API server''s certificate (insecure, as kubectl''s flag)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'volmnt;node;help' {
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Check what nodes can mount (NFS client, rbd, iscsiadm, kernel modules, statd, the kubelet directory''s propagation), over SSH, through a short-lived pod, or on this machine')
            [CompletionResult]::new('gc', 'gc', [CompletionResultType]::ParameterValue, 'Delete probe pods and DaemonSets left behind by an interrupted `node check` (label volmnt.io/probe=true)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'volmnt;node;help;check' {
            break
        }
        'volmnt;node;help;gc' {
            break
        }
        'volmnt;node;help;help' {
            break
        }
        'volmnt;rbd' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a readable report, or one JSON/YAML document on stdout')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a readable report, or one JSON/YAML document on stdout')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour the text report (auto: only on a terminal, and never when NO_COLOR is set)')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (default: $KUBECONFIG, which may list several files, then ~/.kube/config, then in-cluster)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use (default: the current context)')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'Give up on a request to the API server after this long (e.g. 5s, 1m, 500ms)')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The kubeconfig cluster to use (default: the context''s)')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The kubeconfig user to use (default: the context''s)')
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'The address of the API server (as kubectl''s --server; works without a kubeconfig)')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'The address of the API server (as kubectl''s --server; works without a kubeconfig)')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'Bearer token for the API server (as kubectl''s --token; never printed)')
            [CompletionResult]::new('--certificate-authority', '--certificate-authority', [CompletionResultType]::ParameterName, 'A CA certificate file to verify the API server with')
            [CompletionResult]::new('--client-certificate', '--client-certificate', [CompletionResultType]::ParameterName, 'A client certificate file for TLS')
            [CompletionResult]::new('--client-key', '--client-key', [CompletionResultType]::ParameterName, 'A client key file for TLS')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Act as this user (impersonation, as kubectl''s --as; needs impersonate rights)')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Act as this group (repeatable; with --as)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more on stderr about what was read and decided (with a cluster: the request count)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more on stderr about what was read and decided (with a cluster: the request count)')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Do not verify the API server''s certificate (insecure, as kubectl''s flag)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'List an image''s locks and watchers, each mapped to a node and its pods, with a verdict')
            [CompletionResult]::new('locks', 'locks', [CompletionResultType]::ParameterValue, 'List an image''s locks and watchers, each mapped to a node and its pods, with a verdict')
            [CompletionResult]::new('unlock', 'unlock', [CompletionResultType]::ParameterValue, 'Release an image''s stale holders (rbd lock rm / ceph osd blocklist add), after confirmation')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'volmnt;rbd;status' {
            [CompletionResult]::new('--pod', '--pod', [CompletionResultType]::ParameterName, 'Find the image from this pod''s volumes (its claim''s PV, or an inline rbd volume)')
            [CompletionResult]::new('--pvc', '--pvc', [CompletionResultType]::ParameterName, 'Find the image from this claim''s PV')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'The namespace of --pod/--pvc (default: the context''s)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The namespace of --pod/--pvc (default: the context''s)')
            [CompletionResult]::new('--ceph-conf', '--ceph-conf', [CompletionResultType]::ParameterName, 'Ceph config file passed to rbd/ceph as -c (default: theirs, i.e. CEPH_CONF or /etc/ceph/ceph.conf)')
            [CompletionResult]::new('--id', '--id', [CompletionResultType]::ParameterName, 'Ceph user passed to rbd/ceph as --id (e.g. admin)')
            [CompletionResult]::new('--keyring', '--keyring', [CompletionResultType]::ParameterName, 'Keyring passed to rbd/ceph as --keyring')
            [CompletionResult]::new('--toolbox', '--toolbox', [CompletionResultType]::ParameterName, 'Run rbd/ceph inside this pod (a Rook toolbox) through the exec API instead of locally')
            [CompletionResult]::new('--ceph-timeout', '--ceph-timeout', [CompletionResultType]::ParameterName, 'Give up on an rbd/ceph call after this long')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a readable report, or one JSON/YAML document on stdout')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a readable report, or one JSON/YAML document on stdout')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour the text report (auto: only on a terminal, and never when NO_COLOR is set)')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (default: $KUBECONFIG, which may list several files, then ~/.kube/config, then in-cluster)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use (default: the current context)')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'Give up on a request to the API server after this long (e.g. 5s, 1m, 500ms)')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The kubeconfig cluster to use (default: the context''s)')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The kubeconfig user to use (default: the context''s)')
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'The address of the API server (as kubectl''s --server; works without a kubeconfig)')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'The address of the API server (as kubectl''s --server; works without a kubeconfig)')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'Bearer token for the API server (as kubectl''s --token; never printed)')
            [CompletionResult]::new('--certificate-authority', '--certificate-authority', [CompletionResultType]::ParameterName, 'A CA certificate file to verify the API server with')
            [CompletionResult]::new('--client-certificate', '--client-certificate', [CompletionResultType]::ParameterName, 'A client certificate file for TLS')
            [CompletionResult]::new('--client-key', '--client-key', [CompletionResultType]::ParameterName, 'A client key file for TLS')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Act as this user (impersonation, as kubectl''s --as; needs impersonate rights)')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Act as this group (repeatable; with --as)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more on stderr about what was read and decided (with a cluster: the request count)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more on stderr about what was read and decided (with a cluster: the request count)')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Do not verify the API server''s certificate (insecure, as kubectl''s flag)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'volmnt;rbd;locks' {
            [CompletionResult]::new('--pod', '--pod', [CompletionResultType]::ParameterName, 'Find the image from this pod''s volumes (its claim''s PV, or an inline rbd volume)')
            [CompletionResult]::new('--pvc', '--pvc', [CompletionResultType]::ParameterName, 'Find the image from this claim''s PV')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'The namespace of --pod/--pvc (default: the context''s)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The namespace of --pod/--pvc (default: the context''s)')
            [CompletionResult]::new('--ceph-conf', '--ceph-conf', [CompletionResultType]::ParameterName, 'Ceph config file passed to rbd/ceph as -c (default: theirs, i.e. CEPH_CONF or /etc/ceph/ceph.conf)')
            [CompletionResult]::new('--id', '--id', [CompletionResultType]::ParameterName, 'Ceph user passed to rbd/ceph as --id (e.g. admin)')
            [CompletionResult]::new('--keyring', '--keyring', [CompletionResultType]::ParameterName, 'Keyring passed to rbd/ceph as --keyring')
            [CompletionResult]::new('--toolbox', '--toolbox', [CompletionResultType]::ParameterName, 'Run rbd/ceph inside this pod (a Rook toolbox) through the exec API instead of locally')
            [CompletionResult]::new('--ceph-timeout', '--ceph-timeout', [CompletionResultType]::ParameterName, 'Give up on an rbd/ceph call after this long')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a readable report, or one JSON/YAML document on stdout')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a readable report, or one JSON/YAML document on stdout')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour the text report (auto: only on a terminal, and never when NO_COLOR is set)')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (default: $KUBECONFIG, which may list several files, then ~/.kube/config, then in-cluster)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use (default: the current context)')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'Give up on a request to the API server after this long (e.g. 5s, 1m, 500ms)')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The kubeconfig cluster to use (default: the context''s)')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The kubeconfig user to use (default: the context''s)')
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'The address of the API server (as kubectl''s --server; works without a kubeconfig)')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'The address of the API server (as kubectl''s --server; works without a kubeconfig)')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'Bearer token for the API server (as kubectl''s --token; never printed)')
            [CompletionResult]::new('--certificate-authority', '--certificate-authority', [CompletionResultType]::ParameterName, 'A CA certificate file to verify the API server with')
            [CompletionResult]::new('--client-certificate', '--client-certificate', [CompletionResultType]::ParameterName, 'A client certificate file for TLS')
            [CompletionResult]::new('--client-key', '--client-key', [CompletionResultType]::ParameterName, 'A client key file for TLS')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Act as this user (impersonation, as kubectl''s --as; needs impersonate rights)')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Act as this group (repeatable; with --as)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more on stderr about what was read and decided (with a cluster: the request count)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more on stderr about what was read and decided (with a cluster: the request count)')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Do not verify the API server''s certificate (insecure, as kubectl''s flag)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'volmnt;rbd;unlock' {
            [CompletionResult]::new('--pod', '--pod', [CompletionResultType]::ParameterName, 'Find the image from this pod''s volumes (its claim''s PV, or an inline rbd volume)')
            [CompletionResult]::new('--pvc', '--pvc', [CompletionResultType]::ParameterName, 'Find the image from this claim''s PV')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'The namespace of --pod/--pvc (default: the context''s)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The namespace of --pod/--pvc (default: the context''s)')
            [CompletionResult]::new('--ceph-conf', '--ceph-conf', [CompletionResultType]::ParameterName, 'Ceph config file passed to rbd/ceph as -c (default: theirs, i.e. CEPH_CONF or /etc/ceph/ceph.conf)')
            [CompletionResult]::new('--id', '--id', [CompletionResultType]::ParameterName, 'Ceph user passed to rbd/ceph as --id (e.g. admin)')
            [CompletionResult]::new('--keyring', '--keyring', [CompletionResultType]::ParameterName, 'Keyring passed to rbd/ceph as --keyring')
            [CompletionResult]::new('--toolbox', '--toolbox', [CompletionResultType]::ParameterName, 'Run rbd/ceph inside this pod (a Rook toolbox) through the exec API instead of locally')
            [CompletionResult]::new('--ceph-timeout', '--ceph-timeout', [CompletionResultType]::ParameterName, 'Give up on an rbd/ceph call after this long')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a readable report, or one JSON/YAML document on stdout')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a readable report, or one JSON/YAML document on stdout')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour the text report (auto: only on a terminal, and never when NO_COLOR is set)')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (default: $KUBECONFIG, which may list several files, then ~/.kube/config, then in-cluster)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use (default: the current context)')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'Give up on a request to the API server after this long (e.g. 5s, 1m, 500ms)')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The kubeconfig cluster to use (default: the context''s)')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The kubeconfig user to use (default: the context''s)')
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'The address of the API server (as kubectl''s --server; works without a kubeconfig)')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'The address of the API server (as kubectl''s --server; works without a kubeconfig)')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'Bearer token for the API server (as kubectl''s --token; never printed)')
            [CompletionResult]::new('--certificate-authority', '--certificate-authority', [CompletionResultType]::ParameterName, 'A CA certificate file to verify the API server with')
            [CompletionResult]::new('--client-certificate', '--client-certificate', [CompletionResultType]::ParameterName, 'A client certificate file for TLS')
            [CompletionResult]::new('--client-key', '--client-key', [CompletionResultType]::ParameterName, 'A client key file for TLS')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Act as this user (impersonation, as kubectl''s --as; needs impersonate rights)')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Act as this group (repeatable; with --as)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Print what would be run and why, and change nothing')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Do not ask: run the plan (still only stale holders, unless --force)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Do not ask: run the plan (still only stale holders, unless --force)')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Also release live holders and holders that cannot be judged (risk: a filesystem mounted twice)')
            [CompletionResult]::new('--no-blocklist', '--no-blocklist', [CompletionResultType]::ParameterName, 'Remove locks without blocklisting the locker (--rbd_blocklist_on_break_lock=false)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more on stderr about what was read and decided (with a cluster: the request count)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more on stderr about what was read and decided (with a cluster: the request count)')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Do not verify the API server''s certificate (insecure, as kubectl''s flag)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'volmnt;rbd;help' {
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'List an image''s locks and watchers, each mapped to a node and its pods, with a verdict')
            [CompletionResult]::new('unlock', 'unlock', [CompletionResultType]::ParameterValue, 'Release an image''s stale holders (rbd lock rm / ceph osd blocklist add), after confirmation')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'volmnt;rbd;help;status' {
            break
        }
        'volmnt;rbd;help;unlock' {
            break
        }
        'volmnt;rbd;help;help' {
            break
        }
        'volmnt;watch' {
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespaces to watch (repeatable, or comma-separated; default: the context''s)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespaces to watch (repeatable, or comma-separated; default: the context''s)')
            [CompletionResult]::new('-l', '-l', [CompletionResultType]::ParameterName, 'Only pods matching this label selector (e.g. `app=web,tier!=cache`)')
            [CompletionResult]::new('--selector', '--selector', [CompletionResultType]::ParameterName, 'Only pods matching this label selector (e.g. `app=web,tier!=cache`)')
            [CompletionResult]::new('--min-age', '--min-age', [CompletionResultType]::ParameterName, 'A pod counts as stuck once it is this old (e.g. 2m, 30s)')
            [CompletionResult]::new('--listen', '--listen', [CompletionResultType]::ParameterName, 'Address for /metrics, /healthz and /readyz')
            [CompletionResult]::new('--event-refresh', '--event-refresh', [CompletionResultType]::ParameterName, 'An unchanged diagnosis bumps its Event''s count and lastTimestamp at most this often')
            [CompletionResult]::new('--resync', '--resync', [CompletionResultType]::ParameterName, 'Diagnose every stuck pod again this often, even if nothing changed')
            [CompletionResult]::new('--leader-elect', '--leader-elect', [CompletionResultType]::ParameterName, 'Take part in leader election (only the leader writes); false for a single replica')
            [CompletionResult]::new('--lease-namespace', '--lease-namespace', [CompletionResultType]::ParameterName, 'Namespace of the Lease (default: $POD_NAMESPACE, else the context''s namespace)')
            [CompletionResult]::new('--lease-name', '--lease-name', [CompletionResultType]::ParameterName, 'Name of the Lease')
            [CompletionResult]::new('--lease-duration', '--lease-duration', [CompletionResultType]::ParameterName, 'How long a leader''s claim lasts without renewal')
            [CompletionResult]::new('--renew-deadline', '--renew-deadline', [CompletionResultType]::ParameterName, 'A leader that could not renew for this long stops writing (less than --lease-duration)')
            [CompletionResult]::new('--retry-period', '--retry-period', [CompletionResultType]::ParameterName, 'How often the Lease is renewed, or tried')
            [CompletionResult]::new('--identity', '--identity', [CompletionResultType]::ParameterName, 'This replica''s name in the Lease (default: $POD_NAME, else the host name, with the pid)')
            [CompletionResult]::new('--concurrency', '--concurrency', [CompletionResultType]::ParameterName, 'Event writes at the same time')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a readable report, or one JSON/YAML document on stdout')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a readable report, or one JSON/YAML document on stdout')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour the text report (auto: only on a terminal, and never when NO_COLOR is set)')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (default: $KUBECONFIG, which may list several files, then ~/.kube/config, then in-cluster)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use (default: the current context)')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'Give up on a request to the API server after this long (e.g. 5s, 1m, 500ms)')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The kubeconfig cluster to use (default: the context''s)')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The kubeconfig user to use (default: the context''s)')
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'The address of the API server (as kubectl''s --server; works without a kubeconfig)')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'The address of the API server (as kubectl''s --server; works without a kubeconfig)')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'Bearer token for the API server (as kubectl''s --token; never printed)')
            [CompletionResult]::new('--certificate-authority', '--certificate-authority', [CompletionResultType]::ParameterName, 'A CA certificate file to verify the API server with')
            [CompletionResult]::new('--client-certificate', '--client-certificate', [CompletionResultType]::ParameterName, 'A client certificate file for TLS')
            [CompletionResult]::new('--client-key', '--client-key', [CompletionResultType]::ParameterName, 'A client key file for TLS')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Act as this user (impersonation, as kubectl''s --as; needs impersonate rights)')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Act as this group (repeatable; with --as)')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'Every namespace')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'Every namespace')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Log what would be written; write nothing (no Events, no Lease)')
            [CompletionResult]::new('--read-secrets', '--read-secrets', [CompletionResultType]::ParameterName, 'Also watch Secrets (metadata only) to tell whether a Secret a pod mounts exists. Off by default: RBAC cannot grant Secrets'' metadata without their data, and kubelet''s own events already name a missing Secret')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more on stderr about what was read and decided (with a cluster: the request count)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more on stderr about what was read and decided (with a cluster: the request count)')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Do not verify the API server''s certificate (insecure, as kubectl''s flag)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'volmnt;completions' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: a readable report, or one JSON/YAML document on stdout')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: a readable report, or one JSON/YAML document on stdout')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour the text report (auto: only on a terminal, and never when NO_COLOR is set)')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (default: $KUBECONFIG, which may list several files, then ~/.kube/config, then in-cluster)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use (default: the current context)')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'Give up on a request to the API server after this long (e.g. 5s, 1m, 500ms)')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The kubeconfig cluster to use (default: the context''s)')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The kubeconfig user to use (default: the context''s)')
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'The address of the API server (as kubectl''s --server; works without a kubeconfig)')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'The address of the API server (as kubectl''s --server; works without a kubeconfig)')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'Bearer token for the API server (as kubectl''s --token; never printed)')
            [CompletionResult]::new('--certificate-authority', '--certificate-authority', [CompletionResultType]::ParameterName, 'A CA certificate file to verify the API server with')
            [CompletionResult]::new('--client-certificate', '--client-certificate', [CompletionResultType]::ParameterName, 'A client certificate file for TLS')
            [CompletionResult]::new('--client-key', '--client-key', [CompletionResultType]::ParameterName, 'A client key file for TLS')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Act as this user (impersonation, as kubectl''s --as; needs impersonate rights)')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Act as this group (repeatable; with --as)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more on stderr about what was read and decided (with a cluster: the request count)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more on stderr about what was read and decided (with a cluster: the request count)')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Do not verify the API server''s certificate (insecure, as kubectl''s flag)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'volmnt;help' {
            [CompletionResult]::new('explain', 'explain', [CompletionResultType]::ParameterValue, 'Classify raw error messages (event messages, kubelet log lines, mount output)')
            [CompletionResult]::new('doctor', 'doctor', [CompletionResultType]::ParameterValue, 'Diagnose a stuck pod')
            [CompletionResult]::new('node', 'node', [CompletionResultType]::ParameterValue, 'Check what a node can mount (over SSH, through a short-lived pod, or locally); CI preflight')
            [CompletionResult]::new('rbd', 'rbd', [CompletionResultType]::ParameterValue, 'Find who holds an RBD image (locks and watchers) and release it only when provably stale')
            [CompletionResult]::new('watch', 'watch', [CompletionResultType]::ParameterValue, 'Run as a controller: diagnose every pod stuck on volumes as it happens, write the verdict onto the pod as an Event, export Prometheus metrics')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a shell completion script')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'volmnt;help;explain' {
            break
        }
        'volmnt;help;doctor' {
            [CompletionResult]::new('pod', 'pod', [CompletionResultType]::ParameterValue, 'Diagnose one pod: live from the cluster, or from saved output (--from-file), or a bundled real case (--example)')
            [CompletionResult]::new('namespace', 'namespace', [CompletionResultType]::ParameterValue, 'Find the pods of a namespace (or all, -A) stuck on volumes and diagnose each, grouped by cause and node')
            break
        }
        'volmnt;help;doctor;pod' {
            break
        }
        'volmnt;help;doctor;namespace' {
            break
        }
        'volmnt;help;node' {
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Check what nodes can mount (NFS client, rbd, iscsiadm, kernel modules, statd, the kubelet directory''s propagation), over SSH, through a short-lived pod, or on this machine')
            [CompletionResult]::new('gc', 'gc', [CompletionResultType]::ParameterValue, 'Delete probe pods and DaemonSets left behind by an interrupted `node check` (label volmnt.io/probe=true)')
            break
        }
        'volmnt;help;node;check' {
            break
        }
        'volmnt;help;node;gc' {
            break
        }
        'volmnt;help;rbd' {
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'List an image''s locks and watchers, each mapped to a node and its pods, with a verdict')
            [CompletionResult]::new('unlock', 'unlock', [CompletionResultType]::ParameterValue, 'Release an image''s stale holders (rbd lock rm / ceph osd blocklist add), after confirmation')
            break
        }
        'volmnt;help;rbd;status' {
            break
        }
        'volmnt;help;rbd;unlock' {
            break
        }
        'volmnt;help;watch' {
            break
        }
        'volmnt;help;completions' {
            break
        }
        'volmnt;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
