package main

import (
	"errors"
	"fmt"

	"github.com/go-zookeeper/zk"

	"github.com/zkraft/zkraft/wire"
)

// javaCodeNames are KeeperException.Code names, which Java puts in
// "KeeperErrorCode = <name> for <path>".
var javaCodeNames = map[wire.Code]string{
	wire.CodeSystemError: "SystemError", wire.CodeRuntimeInconsistency: "RuntimeInconsistency",
	wire.CodeDataInconsistency: "DataInconsistency", wire.CodeConnectionLoss: "ConnectionLoss",
	wire.CodeMarshallingError: "MarshallingError", wire.CodeUnimplemented: "Unimplemented",
	wire.CodeOperationTimeout: "OperationTimeout", wire.CodeBadArguments: "BadArguments",
	wire.CodeUnknownSession: "UnknownSession", wire.CodeNewConfigNoQuorum: "NewConfigNoQuorum",
	wire.CodeReconfigInProgress: "ReconfigInProgress", wire.CodeAPIError: "APIError",
	wire.CodeNoNode: "NoNode", wire.CodeNoAuth: "NoAuth", wire.CodeBadVersion: "BadVersion",
	wire.CodeNoChildrenForEphemerals: "NoChildrenForEphemerals", wire.CodeNodeExists: "NodeExists",
	wire.CodeNotEmpty: "Directory not empty", wire.CodeSessionExpired: "Session expired",
	wire.CodeInvalidCallback: "Invalid callback", wire.CodeInvalidACL: "InvalidACL",
	wire.CodeAuthFailed: "AuthFailed", wire.CodeSessionMoved: "Session moved",
	wire.CodeNotReadOnly: "Not a read-only call", wire.CodeEphemeralOnLocalSession: "Ephemeral node on local session",
	wire.CodeNoWatcher: "No such watcher", wire.CodeRequestTimeout: "Request timeout",
	wire.CodeReconfigDisabled: "Reconfig is disabled", wire.CodeQuotaExceeded: "Quota has exceeded",
	wire.CodeThrottledOp: "Op throttled due to high load",
}

// zkCodes maps go-zookeeper's errors back to the server's codes.
var zkCodes = map[error]wire.Code{
	zk.ErrAPIError: wire.CodeAPIError, zk.ErrNoNode: wire.CodeNoNode, zk.ErrNoAuth: wire.CodeNoAuth,
	zk.ErrBadVersion: wire.CodeBadVersion, zk.ErrNoChildrenForEphemerals: wire.CodeNoChildrenForEphemerals,
	zk.ErrNodeExists: wire.CodeNodeExists, zk.ErrNotEmpty: wire.CodeNotEmpty,
	zk.ErrSessionExpired: wire.CodeSessionExpired, zk.ErrInvalidACL: wire.CodeInvalidACL,
	zk.ErrAuthFailed: wire.CodeAuthFailed, zk.ErrSessionMoved: wire.CodeSessionMoved,
	zk.ErrReconfigDisabled: wire.CodeReconfigDisabled, zk.ErrBadArguments: wire.CodeBadArguments,
	zk.ErrConnectionClosed: wire.CodeConnectionLoss, zk.ErrNoServer: wire.CodeConnectionLoss,
}

// keeperError is a server error on path, as Java's KeeperException.
type keeperError struct {
	code wire.Code
	path string
}

// Error is KeeperException.getMessage().
func (e *keeperError) Error() string {
	name, ok := javaCodeNames[e.code]
	if !ok {
		name = fmt.Sprintf("%d", int32(e.code))
	}
	if e.path == "" {
		return "KeeperErrorCode = " + name
	}
	return fmt.Sprintf("KeeperErrorCode = %s for %s", name, e.path)
}

// keeperErr turns a go-zookeeper error into a keeperError on path; errors
// that are not the server's are returned as they are.
func keeperErr(err error, path string) error {
	if err == nil {
		return nil
	}
	for zerr, code := range zkCodes {
		if errors.Is(err, zerr) {
			return &keeperError{code, path}
		}
	}
	return err
}

// cliMessage is what zkCli.sh prints for a failed command
// (CliWrapperException's message).
func cliMessage(err error, path string) error {
	err = keeperErr(err, path)
	var ke *keeperError
	if !errors.As(err, &ke) {
		return err
	}
	p := ke.path
	switch ke.code {
	case wire.CodeNoNode:
		return fmt.Errorf("Node does not exist: %s", p)
	case wire.CodeNoChildrenForEphemerals:
		return fmt.Errorf("Ephemerals cannot have children: %s", p)
	case wire.CodeNodeExists:
		return fmt.Errorf("Node already exists: %s", p)
	case wire.CodeNotEmpty:
		return fmt.Errorf("Node not empty: %s", p)
	case wire.CodeNotReadOnly:
		return fmt.Errorf("Not a read-only call: %s", p)
	case wire.CodeInvalidACL:
		return fmt.Errorf("Acl is not valid : %s", p)
	case wire.CodeNoAuth:
		return fmt.Errorf("Insufficient permission : %s", p)
	case wire.CodeBadArguments:
		return fmt.Errorf("Arguments are not valid : %s", p)
	case wire.CodeBadVersion:
		return fmt.Errorf("version No is not valid : %s", p)
	case wire.CodeQuotaExceeded:
		return fmt.Errorf("Quota has exceeded : %s", p)
	}
	return ke
}

// validatePath checks path as ZooKeeper's PathUtils.validatePath does and
// returns its message.
func validatePath(path string) error {
	if path == "" {
		return errors.New("Path length must be > 0")
	}
	if path[0] != '/' {
		return errors.New("Path must start with / character")
	}
	if path == "/" {
		return nil
	}
	if path[len(path)-1] == '/' {
		return errors.New("Path must not end with / character")
	}
	rs := []rune(path)
	reason := ""
	for i := 1; i < len(rs) && reason == ""; i++ {
		c, last := rs[i], rs[i-1]
		endsName := i+1 == len(rs) || rs[i+1] == '/'
		switch {
		case c == 0:
			reason = fmt.Sprintf("null character not allowed @%d", i)
		case c == '/' && last == '/':
			reason = fmt.Sprintf("empty node name specified @%d", i)
		case c == '.' && last == '.' && rs[i-2] == '/' && endsName:
			reason = fmt.Sprintf("relative paths not allowed @%d", i)
		case c == '.' && last == '/' && endsName:
			reason = fmt.Sprintf("relative paths not allowed @%d", i)
		case c > 0 && c <= 0x1f, c >= 0x7f && c <= 0x9f, c >= 0xd800 && c <= 0xf8ff, c >= 0xfff0:
			reason = fmt.Sprintf("invalid character @%d", i)
		}
	}
	if reason != "" {
		return fmt.Errorf("Invalid path string \"%s\" caused by %s", path, reason)
	}
	return nil
}
