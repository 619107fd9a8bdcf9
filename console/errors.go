package console

import (
	"errors"
	"net/http"

	"github.com/zkraft/zkraft/server"
	"github.com/zkraft/zkraft/wire"
)

// errorJSON is the body of every API error: the message, and for a
// ZooKeeper error its name as ZooKeeper spells it (BADVERSION, NONODE...).
type errorJSON struct {
	Error string `json:"error"`
	Code  string `json:"code,omitempty"`
}

// zkCodes maps the ZooKeeper errors the tree browser meets to their names
// and HTTP statuses.
var zkCodes = map[wire.Code]struct {
	name   string
	status int
}{
	wire.CodeNoNode:                  {"NONODE", http.StatusNotFound},
	wire.CodeBadVersion:              {"BADVERSION", http.StatusConflict},
	wire.CodeNodeExists:              {"NODEEXISTS", http.StatusConflict},
	wire.CodeNotEmpty:                {"NOTEMPTY", http.StatusConflict},
	wire.CodeNoChildrenForEphemerals: {"NOCHILDRENFOREPHEMERALS", http.StatusConflict},
	wire.CodeNoAuth:                  {"NOAUTH", http.StatusForbidden},
	wire.CodeBadArguments:            {"BADARGUMENTS", http.StatusBadRequest},
	wire.CodeInvalidACL:              {"INVALIDACL", http.StatusBadRequest},
	wire.CodeQuotaExceeded:           {"QUOTAEXCEEDED", http.StatusConflict},
}

// writeError answers err as JSON with the status it calls for.
func writeError(w http.ResponseWriter, err error) {
	body := errorJSON{Error: err.Error()}
	status := http.StatusInternalServerError
	var code wire.Code
	switch {
	case errors.Is(err, server.ErrBadPath), errors.Is(err, ErrBadLimit), errors.Is(err, ErrBadRequest):
		status = http.StatusBadRequest
	case isUnauthenticated(err):
		status = http.StatusUnauthorized
	case errors.Is(err, server.ErrAdminNotAuthorized), errors.Is(err, server.ErrAdminNoSuper):
		status = http.StatusForbidden
	case errors.As(err, &code):
		if c, ok := zkCodes[code]; ok {
			body.Code, status = c.name, c.status
		}
	}
	writeJSON(w, status, body)
}

// writeJSON answers v with status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(mustJSON(v))
}
