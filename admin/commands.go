package admin

import (
	"slices"
	"sort"
)

// command is one AdminServer command: its primary name first, then its
// aliases; whether it needs a serving server (ZooKeeper's
// serverRequired); and what it puts in its response.
type command struct {
	names       []string
	needsServer bool
	run         func(r *request) Object
}

// commands are ZooKeeper 3.8's AdminServer commands, names and aliases
// as in its Commands class (snapshot and restore, from 3.9, are served
// by backup.go).
var commands = []command{
	{[]string{"configuration", "conf", "config"}, true, runConfiguration},
	{[]string{"connection_stat_reset", "crst"}, true, runConnectionStatReset},
	{[]string{"connections", "cons"}, true, runConnections},
	{[]string{"dirs"}, true, runDirs},
	{[]string{"dump"}, true, runDump},
	{[]string{"environment", "env", "envi"}, false, runEnvironment},
	{[]string{"get_trace_mask", "gtmk"}, false, runGetTraceMask},
	{[]string{"hash"}, true, runHash},
	{[]string{"initial_configuration", "icfg"}, true, runInitialConfiguration},
	{[]string{"is_read_only", "isro"}, true, runIsReadOnly},
	{[]string{"last_snapshot", "lsnp"}, true, runLastSnapshot},
	{[]string{"leader", "lead"}, true, runLeader},
	{[]string{"monitor", "mntr"}, false, runMonitor},
	{[]string{"observer_connection_stat_reset", "orst"}, true, func(*request) Object { return nil }},
	{[]string{"observers", "obsr"}, true, runObservers},
	{[]string{"ruok"}, true, func(*request) Object { return nil }},
	{[]string{"server_stats", "srvr"}, true, runServerStats},
	{[]string{"set_trace_mask", "stmk"}, false, runSetTraceMask},
	{[]string{"stat_reset", "srst"}, true, runStatReset},
	{[]string{"stats", "stat"}, true, runStats},
	{[]string{"system_properties", "sysp"}, false, runSystemProperties},
	{[]string{"voting_view"}, true, runVotingView},
	{[]string{"watch_summary", "wchs"}, true, runWatchSummary},
	{[]string{"watches", "wchc"}, true, runWatches},
	{[]string{"watches_by_path", "wchp"}, true, runWatchesByPath},
	{[]string{"zabstate"}, false, runZabState},
}

// byName finds a command by any of its names.
var byName = func() map[string]*command {
	m := map[string]*command{}
	for i := range commands {
		for _, n := range commands[i].names {
			m[n] = &commands[i]
		}
	}
	return m
}()

// primaryNames returns the commands' primary names, sorted, for the link
// list of GET /commands (snapshot and restore included).
func primaryNames() []string {
	names := []string{snapshotName, restoreName}
	for _, c := range commands {
		names = append(names, c.names[0])
	}
	sort.Strings(names)
	return names
}

// Errors in command responses, worded as ZooKeeper's.
const (
	errNotServing = "This ZooKeeper instance is not currently serving requests"
	unknownPrefix = "Unknown command: "
)

// request is one command invocation: the server to read and the query
// parameters (the first value of each, as ZooKeeper's kwargs).
type request struct {
	view View
	args map[string]string
	opts *Options
}

// runCommand answers command name as ZooKeeper's Commands.runCommand: an
// unknown name or a server that does not serve yields only an error;
// otherwise the command's fields, then "command" (its primary name) and
// "error" (null unless the command set one, which then keeps its place).
func runCommand(name string, r *request) Object {
	c, ok := byName[name]
	if !ok {
		return Object{{"command", name}, {"error", unknownPrefix + name}}
	}
	if c.needsServer && !r.view.Serving() {
		return Object{{"command", name}, {"error", errNotServing}}
	}
	return response(c.names[0], c.run(r))
}

// response lays out a command's fields as ZooKeeper's CommandResponse.toMap.
func response(primary string, data Object) Object {
	out := slices.Clone(data)
	out.Put("command", primary)
	out.Put("error", nil)
	for _, f := range data {
		out.Put(f.Key, f.Value)
	}
	return out
}
