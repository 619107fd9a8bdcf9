package wire

import (
	"context"
	"errors"
	"fmt"
)

// Op is a request opcode (ZooDefs.OpCode).
type Op int32

// Opcodes of ZooKeeper 3.8.
const (
	OpNotification         Op = 0
	OpCreate               Op = 1
	OpDelete               Op = 2
	OpExists               Op = 3
	OpGetData              Op = 4
	OpSetData              Op = 5
	OpGetACL               Op = 6
	OpSetACL               Op = 7
	OpGetChildren          Op = 8
	OpSync                 Op = 9
	OpPing                 Op = 11
	OpGetChildren2         Op = 12
	OpCheck                Op = 13
	OpMulti                Op = 14
	OpCreate2              Op = 15
	OpReconfig             Op = 16
	OpCheckWatches         Op = 17
	OpRemoveWatches        Op = 18
	OpCreateContainer      Op = 19
	OpDeleteContainer      Op = 20
	OpCreateTTL            Op = 21
	OpMultiRead            Op = 22
	OpAuth                 Op = 100
	OpSetWatches           Op = 101
	OpSASL                 Op = 102
	OpGetEphemerals        Op = 103
	OpGetAllChildrenNumber Op = 104
	OpSetWatches2          Op = 105
	OpAddWatch             Op = 106
	OpWhoAmI               Op = 107
	OpCreateSession        Op = -10
	OpCloseSession         Op = -11
	OpError                Op = -1
)

// Special xids.
const (
	XidNotification int32 = -1
	XidPing         int32 = -2
	XidAuth         int32 = -4
	XidSetWatches   int32 = -8
)

// Code is a ZooKeeper error code (KeeperException.Code). A non-zero Code is
// itself an error, so handlers can return it directly.
type Code int32

// Error codes, exactly ZooKeeper's.
const (
	CodeOK                       Code = 0
	CodeSystemError              Code = -1
	CodeRuntimeInconsistency     Code = -2
	CodeDataInconsistency        Code = -3
	CodeConnectionLoss           Code = -4
	CodeMarshallingError         Code = -5
	CodeUnimplemented            Code = -6
	CodeOperationTimeout         Code = -7
	CodeBadArguments             Code = -8
	CodeUnknownSession           Code = -12
	CodeNewConfigNoQuorum        Code = -13
	CodeReconfigInProgress       Code = -14
	CodeAPIError                 Code = -100
	CodeNoNode                   Code = -101
	CodeNoAuth                   Code = -102
	CodeBadVersion               Code = -103
	CodeNoChildrenForEphemerals  Code = -108
	CodeNodeExists               Code = -110
	CodeNotEmpty                 Code = -111
	CodeSessionExpired           Code = -112
	CodeInvalidCallback          Code = -113
	CodeInvalidACL               Code = -114
	CodeAuthFailed               Code = -115
	CodeSessionMoved             Code = -118
	CodeNotReadOnly              Code = -119
	CodeEphemeralOnLocalSession  Code = -120
	CodeNoWatcher                Code = -121
	CodeRequestTimeout           Code = -122
	CodeReconfigDisabled         Code = -123
	CodeSessionClosedRequireSASL Code = -124
	CodeQuotaExceeded            Code = -125
	CodeThrottledOp              Code = -127
)

var codeNames = map[Code]string{
	CodeOK: "ok", CodeSystemError: "system error", CodeRuntimeInconsistency: "runtime inconsistency",
	CodeDataInconsistency: "data inconsistency", CodeConnectionLoss: "connection loss",
	CodeMarshallingError: "marshalling error", CodeUnimplemented: "unimplemented",
	CodeOperationTimeout: "operation timeout", CodeBadArguments: "bad arguments",
	CodeUnknownSession: "unknown session", CodeNewConfigNoQuorum: "new config has no quorum",
	CodeReconfigInProgress: "reconfig in progress", CodeAPIError: "api error",
	CodeNoNode: "node does not exist", CodeNoAuth: "not authenticated", CodeBadVersion: "bad version",
	CodeNoChildrenForEphemerals: "ephemeral nodes may not have children", CodeNodeExists: "node already exists",
	CodeNotEmpty: "node has children", CodeSessionExpired: "session expired",
	CodeInvalidCallback: "invalid callback", CodeInvalidACL: "invalid ACL", CodeAuthFailed: "authentication failed",
	CodeSessionMoved: "session moved", CodeNotReadOnly: "not a read-only call",
	CodeEphemeralOnLocalSession: "ephemeral on local session", CodeNoWatcher: "no watcher",
	CodeRequestTimeout: "request timeout", CodeReconfigDisabled: "reconfig disabled",
	CodeSessionClosedRequireSASL: "session closed: SASL authentication required",
	CodeQuotaExceeded:            "quota exceeded", CodeThrottledOp: "operation throttled",
}

// Error implements error.
func (c Code) Error() string {
	if n, ok := codeNames[c]; ok {
		return "zk: " + n
	}
	return fmt.Sprintf("zk: error code %d", int32(c))
}

// CodeOf is the single place that turns a Go error into the code sent on the
// wire: nil is OK, a Code (possibly wrapped) is itself, context deadlines are
// OPERATIONTIMEOUT, undecodable input (ErrShortBuffer, ErrBadLength,
// ErrUnknownMultiOp) is MARSHALLINGERROR, and anything else is SYSTEMERROR.
func CodeOf(err error) Code {
	if err == nil {
		return CodeOK
	}
	var c Code
	if errors.As(err, &c) {
		return c
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return CodeOperationTimeout
	}
	if errors.Is(err, ErrShortBuffer) || errors.Is(err, ErrBadLength) || errors.Is(err, ErrUnknownMultiOp) {
		return CodeMarshallingError
	}
	return CodeSystemError
}

// EventType is a watch event type (Watcher.Event.EventType).
type EventType int32

// Event types the server sends.
const (
	EventNone                EventType = -1
	EventNodeCreated         EventType = 1
	EventNodeDeleted         EventType = 2
	EventNodeDataChanged     EventType = 3
	EventNodeChildrenChanged EventType = 4
)

// StateSyncConnected is the only keeper state the server puts in events.
const StateSyncConnected int32 = 3

// Permission bits (ZooDefs.Perms).
const (
	PermRead   int32 = 1
	PermWrite  int32 = 2
	PermCreate int32 = 4
	PermDelete int32 = 8
	PermAdmin  int32 = 16
	PermAll    int32 = 31
)

// Create flags (CreateMode).
const (
	FlagPersistent                  int32 = 0
	FlagEphemeral                   int32 = 1
	FlagPersistentSequential        int32 = 2
	FlagEphemeralSequential         int32 = 3
	FlagContainer                   int32 = 4
	FlagPersistentWithTTL           int32 = 5
	FlagPersistentSequentialWithTTL int32 = 6
)

// WatcherType values of checkWatches/removeWatches.
const (
	WatcherChildren            int32 = 1
	WatcherData                int32 = 2
	WatcherAny                 int32 = 3
	WatcherPersistent          int32 = 4
	WatcherPersistentRecursive int32 = 5
)

// AddWatch modes.
const (
	AddWatchPersistent          int32 = 0
	AddWatchPersistentRecursive int32 = 1
)
