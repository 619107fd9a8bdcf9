package server

import (
	"path/filepath"
	"slices"
)

// Audit is the audit log's configuration (see audit.go and the "Audit log"
// section of docs/security.md).
type Audit struct {
	// Enable writes the audit log (audit.enable, also
	// zookeeper.audit.enable as ZooKeeper 3.6+ reads it; default false).
	Enable bool
	// File is the file the lines are appended to (audit.file, zkraft's
	// own key). "" means DefaultAuditFile in DataLogDir (DataDir when that
	// is unset), or standard error for a server that keeps its data in
	// memory.
	File string
}

// DefaultAuditFile is the audit log's file name when audit.file is unset,
// ZooKeeper's default (zookeeper.auditlog.file).
const DefaultAuditFile = "zookeeper_audit.log"

// AuditFile returns the file the audit log is written to, "" for standard
// error.
func (c Config) AuditFile() string {
	if c.Audit.File != "" {
		return c.Audit.File
	}
	dir := c.DataLogDir
	if dir == "" {
		dir = c.DataDir
	}
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, DefaultAuditFile)
}

// auditKeyHandlers parse the audit keys; ZooKeeper reads audit.enable as
// the system property zookeeper.audit.enable, so both are spelled with or
// without the prefix.
var auditKeyHandlers = map[string]func(c *Config, v string) error{
	"audit.enable": setBool(func(c *Config) *bool { return &c.Audit.Enable }),
	"audit.file":   func(c *Config, v string) error { c.Audit.File = v; return nil },
}

func init() {
	for k, h := range auditKeyHandlers {
		keyHandlers[k] = h
		sysPropKeys[k] = true
		if !slices.Contains(knownKeys, k) {
			knownKeys = append(knownKeys, k)
		}
	}
	slices.Sort(knownKeys)
}
