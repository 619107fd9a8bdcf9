package wire

import "strconv"

// opNames are the ZooDefs.OpCode names, as ZooKeeper spells them.
var opNames = map[Op]string{
	OpNotification:         "notification",
	OpCreate:               "create",
	OpDelete:               "delete",
	OpExists:               "exists",
	OpGetData:              "getData",
	OpSetData:              "setData",
	OpGetACL:               "getACL",
	OpSetACL:               "setACL",
	OpGetChildren:          "getChildren",
	OpSync:                 "sync",
	OpPing:                 "ping",
	OpGetChildren2:         "getChildren2",
	OpCheck:                "check",
	OpMulti:                "multi",
	OpCreate2:              "create2",
	OpReconfig:             "reconfig",
	OpCheckWatches:         "checkWatches",
	OpRemoveWatches:        "removeWatches",
	OpCreateContainer:      "createContainer",
	OpDeleteContainer:      "deleteContainer",
	OpCreateTTL:            "createTTL",
	OpMultiRead:            "multiRead",
	OpAuth:                 "auth",
	OpSetWatches:           "setWatches",
	OpSASL:                 "sasl",
	OpGetEphemerals:        "getEphemerals",
	OpGetAllChildrenNumber: "getAllChildrenNumber",
	OpSetWatches2:          "setWatches2",
	OpAddWatch:             "addWatch",
	OpWhoAmI:               "whoAmI",
	OpCreateSession:        "createSession",
	OpCloseSession:         "closeSession",
	OpError:                "error",
}

// String returns the opcode's ZooKeeper name, e.g. "getChildren2", or
// "op(N)" for an unknown opcode.
func (o Op) String() string {
	if n, ok := opNames[o]; ok {
		return n
	}
	return "op(" + strconv.Itoa(int(o)) + ")"
}

// IsWrite reports whether o is a write opcode, one that ZooKeeper sends
// through the quorum (Request.isQuorum): create, create2, createContainer,
// createTTL, delete, deleteContainer, setData, setACL, check, multi,
// reconfig, createSession and closeSession.
func IsWrite(o Op) bool {
	switch o {
	case OpCreate, OpCreate2, OpCreateContainer, OpCreateTTL, OpDelete,
		OpDeleteContainer, OpSetData, OpSetACL, OpCheck, OpMulti,
		OpReconfig, OpCreateSession, OpCloseSession:
		return true
	}
	return false
}

// RequestForOp returns a new zero request record for an opcode a client can
// send after the handshake. ok is false for unknown opcodes and for those
// that are never valid as a top-level request (notification, check, error,
// createSession); ZooKeeper answers those with UNIMPLEMENTED and closes the
// connection. Opcodes without a request body (ping, closeSession, whoAmI)
// return (nil, true).
func RequestForOp(o Op) (rec Record, ok bool) {
	switch o {
	case OpCreate, OpCreate2, OpCreateContainer:
		return &CreateRequest{}, true
	case OpCreateTTL:
		return &CreateTTLRequest{}, true
	case OpDelete:
		return &DeleteRequest{}, true
	case OpDeleteContainer:
		return &DeleteContainerRequest{}, true
	case OpExists, OpGetData, OpGetChildren, OpGetChildren2:
		return &PathWatchRequest{}, true
	case OpSetData:
		return &SetDataRequest{}, true
	case OpGetACL, OpSync, OpGetAllChildrenNumber:
		return &PathRequest{}, true
	case OpSetACL:
		return &SetACLRequest{}, true
	case OpMulti, OpMultiRead:
		return &MultiRequest{}, true
	case OpReconfig:
		return &ReconfigRequest{}, true
	case OpCheckWatches, OpRemoveWatches:
		return &WatchesRequest{}, true
	case OpAuth:
		return &AuthPacket{}, true
	case OpSetWatches:
		return &SetWatches{}, true
	case OpSetWatches2:
		return &SetWatches2{}, true
	case OpSASL:
		return &SASLRequest{}, true
	case OpGetEphemerals:
		return &GetEphemeralsRequest{}, true
	case OpAddWatch:
		return &AddWatchRequest{}, true
	case OpPing, OpCloseSession, OpWhoAmI:
		return nil, true
	}
	return nil, false
}
