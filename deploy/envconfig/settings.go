package envconfig

import (
	"crypto/sha1"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Lookup reads one environment variable; os.LookupEnv has this shape.
type Lookup func(name string) (value string, ok bool)

// Errors of FromEnv.
var (
	// ErrMyID is returned when ZOO_MY_ID is not a positive integer.
	ErrMyID = errors.New("ZOO_MY_ID must be a positive integer")
	// ErrHostname is returned when ZKRAFT_MY_ID_FROM_HOSTNAME is set but
	// the host name does not end in -N.
	ErrHostname = errors.New("ZKRAFT_MY_ID_FROM_HOSTNAME: the host name does not end in -N (a StatefulSet ordinal)")
	// ErrServerLine is returned when ZKRAFT_SERVER_LINE is not a bare
	// host:peerPort:electionPort;clientPort value.
	ErrServerLine = errors.New("ZKRAFT_SERVER_LINE must be host:peerPort:electionPort[:participant];[address:]clientPort, without server.N=")
)

// Settings is what the environment asks for.
type Settings struct {
	ConfDir    string // ZOO_CONF_DIR: where zoo.cfg is read or written
	DataDir    string // ZOO_DATA_DIR: dataDir, and where myid goes
	DataLogDir string // ZOO_DATA_LOG_DIR
	MyID       int64  // ZOO_MY_ID, or from the host name's ordinal
	// Servers are the server.N=... lines of ZOO_SERVERS, as given.
	Servers []string
	// Join is set when ZOO_SERVERS has no line for MyID and
	// ZKRAFT_SERVER_LINE gives one: this server joins a running ensemble.
	Join *Join

	get   func(name string) string
	super string // ZKRAFT_SUPER_PASSWORD
}

// Join describes a server that adds itself to a running ensemble.
type Join struct {
	ID   int64
	Line string // its server.ID value
	// Ensemble are ZOO_SERVERS' lines: the members it asks to add it.
	Ensemble []string
	// Password is the digest super user's (ZKRAFT_SUPER_PASSWORD);
	// reconfig needs it.
	Password string
}

// Key is the server.N key of the joining server.
func (j *Join) Key() string { return "server." + strconv.FormatInt(j.ID, 10) }

// FromEnv reads the settings, with the official image's defaults for
// unset or empty variables (its Dockerfile sets them all, so an empty
// value only comes from an explicit -e NAME=).
func FromEnv(lookup Lookup) (Settings, error) {
	get := func(name string) string {
		if v, ok := lookup(name); ok && v != "" {
			return v
		}
		return defaults[name]
	}
	s := Settings{ConfDir: get(VarConfDir), DataDir: get(VarDataDir), DataLogDir: get(VarDataLogDir), get: get, super: get(VarSuperPassword)}
	id, err := myID(get)
	if err != nil {
		return s, err
	}
	s.MyID = id
	servers := get(VarServers)
	if servers == "" {
		servers = defaultServers
	}
	s.Servers = strings.Fields(servers)
	line := strings.TrimSpace(get(VarServerLine))
	if line == "" || hasServer(s.Servers, id) {
		return s, nil
	}
	if strings.Contains(line, "=") || !strings.Contains(line, ";") || strings.Count(strings.SplitN(line, ";", 2)[0], ":") < 2 {
		return s, fmt.Errorf("%w: %q", ErrServerLine, line)
	}
	s.Join = &Join{ID: id, Line: line, Ensemble: s.Servers, Password: s.super}
	return s, nil
}

// myID reads ZOO_MY_ID (default 1, as the entrypoint's ${ZOO_MY_ID:-1}),
// or the host name's ordinal plus one.
func myID(get func(string) string) (int64, error) {
	if v := get(VarMyID); v != "" {
		id, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil || id < 1 {
			return 0, fmt.Errorf("%w: %q", ErrMyID, v)
		}
		return id, nil
	}
	if from, _ := strconv.ParseBool(get(VarIDFromHostname)); !from {
		return 1, nil
	}
	host := get(VarHostname)
	i := strings.LastIndexByte(host, '-')
	ordinal, err := strconv.ParseInt(host[i+1:], 10, 64)
	if i < 0 || err != nil || ordinal < 0 {
		return 0, fmt.Errorf("%w: %q", ErrHostname, host)
	}
	return ordinal + 1, nil
}

// hasServer reports whether lines hold a server.id= line.
func hasServer(lines []string, id int64) bool {
	key := "server." + strconv.FormatInt(id, 10) + "="
	for _, l := range lines {
		if strings.HasPrefix(l, key) {
			return true
		}
	}
	return false
}

// SuperDigest is ZooKeeper's digest of user:password for
// DigestAuthenticationProvider.superDigest: user, a colon, and the base64
// of the SHA-1 of "user:password".
func SuperDigest(user, password string) string {
	sum := sha1.Sum([]byte(user + ":" + password))
	return user + ":" + base64.StdEncoding.EncodeToString(sum[:])
}
