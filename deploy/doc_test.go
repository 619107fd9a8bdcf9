// Package deploy_test checks the deployment files under deploy/ without
// Docker or Kubernetes: it reads the compose file and the StatefulSet's
// environment as a container runtime would pass it, remaps host names to
// 127.0.0.1 and ports to free ones, and runs each server as a real
// `zkserver container` process, the image's entrypoint.
package deploy_test
