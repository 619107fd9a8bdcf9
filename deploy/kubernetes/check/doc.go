// Package check validates deploy/kubernetes offline, in `make test`: every
// manifest is decoded strictly (unknown or misspelt fields are errors)
// into the Kubernetes API's own Go types (k8s.io/api), names, labels and
// selectors go through apimachinery's validation, and the objects are
// checked against one another and against the image: selectors match the
// pod template, serviceName is the headless Service, probe and service
// ports exist, the PDB selects the pods, every environment variable is one
// the image reads (deploy/envconfig), ZOO_SERVERS names the pods' stable
// DNS names, and every directory the server writes is a volume.
//
// It is a module of its own so that the main module does not take the
// Kubernetes dependencies.
package check
