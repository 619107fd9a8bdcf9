{{/* The objects' base name: the release name when it holds the chart's. */}}
{{- define "zkraft.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "zkraft.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "zkraft.headless" -}}
{{- printf "%s-headless" (include "zkraft.fullname" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Labels every object carries. */}}
{{- define "zkraft.labels" -}}
app.kubernetes.io/name: {{ include "zkraft.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/* What selects the servers' pods. */}}
{{- define "zkraft.selectorLabels" -}}
app.kubernetes.io/name: {{ include "zkraft.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: zookeeper
{{- end -}}

{{/* A pod's DNS name with host standing for the pod's name. */}}
{{- define "zkraft.host" -}}
{{- printf "%s.%s.%s.svc.%s" .host (include "zkraft.headless" .root) .root.Release.Namespace .root.Values.clusterDomain -}}
{{- end -}}

{{/* host:peer:election;client for one pod. */}}
{{- define "zkraft.serverLine" -}}
{{- $p := .root.Values.containerPorts -}}
{{- printf "%s:%d:%d;%d" (include "zkraft.host" .) (int $p.follower) (int $p.election) (int $p.client) -}}
{{- end -}}

{{/* The founding servers: ZOO_SERVERS. */}}
{{- define "zkraft.servers" -}}
{{- $existing := "" -}}
{{- if not .Values.founders -}}
{{- $cm := lookup "v1" "ConfigMap" .Release.Namespace (include "zkraft.fullname" .) -}}
{{- if and $cm $cm.data -}}
{{- $existing = index $cm.data "ZOO_SERVERS" | default "" -}}
{{- end -}}
{{- end -}}
{{- if $existing -}}
{{- $existing -}}
{{- else -}}
{{- $n := int (default .Values.replicaCount .Values.founders) -}}
{{- $lines := list -}}
{{- range $i := until $n -}}
{{- $host := printf "%s-%d" (include "zkraft.fullname" $) $i -}}
{{- $lines = append $lines (printf "server.%d=%s" (add1 $i) (include "zkraft.serverLine" (dict "root" $ "host" $host))) -}}
{{- end -}}
{{- join " " $lines -}}
{{- end -}}
{{- end -}}

{{- define "zkraft.image" -}}
{{- $img := printf "%s/%s" .Values.image.registry .Values.image.repository | trimPrefix "/" -}}
{{- if .Values.image.digest -}}
{{- printf "%s@%s" $img .Values.image.digest -}}
{{- else -}}
{{- printf "%s:%s" $img (toString .Values.image.tag) -}}
{{- end -}}
{{- end -}}

{{/* Whether the chart mounts a JAAS file. */}}
{{- define "zkraft.jaas" -}}
{{- if or .Values.auth.client.enabled .Values.auth.quorum.enabled }}true{{ end -}}
{{- end -}}

{{- define "zkraft.jaasSecret" -}}
{{- $ex := coalesce .Values.auth.client.existingSecret .Values.auth.quorum.existingSecret -}}
{{- default (printf "%s-jaas" (include "zkraft.fullname" .)) $ex -}}
{{- end -}}

{{- define "zkraft.superSecret" -}}
{{- default (printf "%s-super" (include "zkraft.fullname" .)) .Values.auth.super.existingSecret -}}
{{- end -}}

{{- define "zkraft.tlsSecret" -}}
{{- if .tls.existingSecret -}}
{{- .tls.existingSecret -}}
{{- else -}}
{{- printf "%s-crt" (include "zkraft.fullname" .root) -}}
{{- end -}}
{{- end -}}

{{/* The ZOO_CFG_EXTRA lines, one key=value a line. */}}
{{- define "zkraft.cfgExtra" -}}
{{- $lines := list (printf "maxSessionTimeout=%d" (int .Values.maxSessionTimeout)) -}}
{{- if .Values.metrics.enabled -}}
{{- $lines = append $lines "metricsProvider.className=org.apache.zookeeper.metrics.prometheus.PrometheusMetricsProvider" -}}
{{- $lines = append $lines (printf "metricsProvider.httpPort=%d" (int .Values.metrics.containerPort)) -}}
{{- end -}}
{{- if include "zkraft.jaas" . -}}
{{- $lines = append $lines "java.security.auth.login.config=/etc/zkraft/jaas/jaas.conf" -}}
{{- end -}}
{{- if .Values.auth.client.enabled -}}
{{- $lines = append $lines "authProvider.1=org.apache.zookeeper.server.auth.SASLAuthenticationProvider" -}}
{{- end -}}
{{- if .Values.auth.quorum.enabled -}}
{{- $lines = concat $lines (list "quorum.auth.enableSasl=true" "quorum.auth.learnerRequireSasl=true" "quorum.auth.serverRequireSasl=true") -}}
{{- end -}}
{{- range $which, $prefix := dict "client" "ssl" "quorum" "ssl.quorum" -}}
{{- $t := index $.Values.tls $which -}}
{{- if $t.enabled -}}
{{- $dir := printf "/etc/zkraft/tls/%s" $which -}}
{{- if eq $which "client" -}}
{{- $lines = append $lines (printf "secureClientPort=%d" (int $.Values.containerPorts.tls)) -}}
{{- else -}}
{{- $lines = append $lines "sslQuorum=true" -}}
{{- end -}}
{{- $lines = append $lines (printf "%s.keyStore.location=%s/%s" $prefix $dir $t.existingSecretKeystoreKey) -}}
{{- $lines = append $lines (printf "%s.trustStore.location=%s/%s" $prefix $dir $t.existingSecretTruststoreKey) -}}
{{- $lines = append $lines (printf "%s.clientAuth=%s" $prefix $t.auth) -}}
{{- if $t.passwordsSecretName -}}
{{- $lines = append $lines (printf "%s.keyStore.passwordPath=%s-passwords/%s" $prefix $dir $t.passwordsSecretKeystoreKey) -}}
{{- $lines = append $lines (printf "%s.trustStore.passwordPath=%s-passwords/%s" $prefix $dir $t.passwordsSecretTruststoreKey) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- range $k, $v := .Values.extraConfig -}}
{{- $lines = append $lines (printf "%s=%v" $k $v) -}}
{{- end -}}
{{- join "\n" $lines -}}
{{- end -}}
