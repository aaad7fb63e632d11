{{/* Labels every object carries (the same as deploy/watch.yaml's). */}}
{{- define "volmnt.labels" -}}
app.kubernetes.io/name: volmnt
app.kubernetes.io/component: watch
{{- end -}}
