//go:build tools

// Package tools pins dependencies that the module needs before any package imports them.
package tools

import (
	_ "github.com/go-zookeeper/zk"
	_ "github.com/hashicorp/raft"
	_ "github.com/hashicorp/raft-boltdb/v2"
	_ "github.com/stretchr/testify/require"
	_ "go.uber.org/goleak"
)
