{{/* Labels every object carries (the same as deploy/watch.yaml's). */}}
{{- define "volmnt.labels" -}}
app.kubernetes.io/name: volmnt
app.kubernetes.io/component: watch
{{- end -}}

{{/* Labels of the node-check DaemonSet (deploy/node-check.yaml's). */}}
{{- define "volmnt.nodeCheckLabels" -}}
app.kubernetes.io/name: volmnt
app.kubernetes.io/component: node-check
{{- end -}}
