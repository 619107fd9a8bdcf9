package jaas

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// The login modules ZooKeeper's JAAS sections name.
const (
	DigestLoginModule = "org.apache.zookeeper.server.auth.DigestLoginModule"
	Krb5LoginModule   = "com.sun.security.auth.module.Krb5LoginModule"
)

// userPrefix marks the options that ZooKeeper's SaslServerCallbackHandler
// reads as DIGEST-MD5 users.
const userPrefix = "user_"

var (
	// ErrNoSection is returned, wrapped with the name, for a section the
	// configuration does not have (or has empty).
	ErrNoSection = errors.New("jaas: no such section")
	// ErrSyntax is the error of a malformed file or flags string, always
	// wrapped in a *LineError for files.
	ErrSyntax = errors.New("jaas: syntax error")
	// ErrExpand is the error of a ${name} that cannot be expanded, wrapped
	// in a *LineError.
	ErrExpand = errors.New("jaas: cannot expand property")
)

// LineError is a parse error with the line it was found on; it unwraps to
// ErrSyntax or ErrExpand.
type LineError struct {
	Line int
	Msg  string
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("jaas: line %d: %s", e.Line, e.Msg) }

func (e *LineError) Unwrap() error { return e.Err }

// Entry is one login module line of a section.
type Entry struct {
	Module  string            // the login module's class name
	Flag    string            // "required", "requisite", "sufficient" or "optional"
	Options map[string]string // key=value options, expanded
}

// Config is a parsed login configuration file.
type Config struct {
	sections map[string][]Entry
	names    []string
}

// Parse reads a login configuration. lookup expands ${name} in option
// values as Java's system properties do; with a nil lookup values are kept
// as written (as with policy.expandProperties=false).
func Parse(r io.Reader, lookup func(string) (string, bool)) (*Config, error) {
	src, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("jaas: %w", err)
	}
	p := &parser{lx: newLexer(string(src)), lookup: lookup}
	return p.parse()
}

// ParseFile reads the login configuration file at path.
func ParseFile(path string, lookup func(string) (string, bool)) (*Config, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("jaas: %w", err)
	}
	defer f.Close()
	c, err := Parse(f, lookup)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// Section returns a section's entries. Like the JDK's
// Configuration.getAppConfigurationEntry, it reports an empty section as
// absent. Names are case-sensitive.
func (c *Config) Section(name string) ([]Entry, bool) {
	e := c.sections[name]
	return e, len(e) > 0
}

// Sections lists the section names in file order, empty ones included.
func (c *Config) Sections() []string { return append([]string(nil), c.names...) }

// DigestUsers returns the DIGEST-MD5 users of a section: the user_NAME="pw"
// options, read as ZooKeeper's SaslServerCallbackHandler reads them, from
// every entry of the section whatever its module (normally the one
// DigestLoginModule entry), a later entry winning over an earlier one.
func (c *Config) DigestUsers(section string) (map[string]string, error) {
	entries, ok := c.Section(section)
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrNoSection, section)
	}
	users := map[string]string{}
	for _, e := range entries {
		for k, v := range e.Options {
			if name, ok := strings.CutPrefix(k, userPrefix); ok {
				users[name] = v
			}
		}
	}
	return users, nil
}
