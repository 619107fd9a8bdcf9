// Package check renders deploy/helm/zkraft offline with Helm's own Go
// library (helm.sh/helm/v3's chart loader and template engine, as `helm
// template` does) for the default values and three value sets, then
// validates the rendered objects the way deploy/kubernetes/check
// validates the plain manifests: every document is decoded strictly into
// the Kubernetes API's Go types, names, labels and selectors go through
// apimachinery's validation, and the objects are checked against one
// another and against the image (every variable one the image reads,
// ZOO_SERVERS on the pods' stable names, the generated zoo.cfg accepted by
// the server's own parser with the Secrets' files in place). Three
// releases' pods (default, auth + TLS, metrics) are then run as `zkserver
// container` processes that must elect a leader and serve a write.
//
// It is a module of its own so that the main module does not take Helm's
// and Kubernetes' dependencies.
package check
