package main

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// command is one zkCli.sh command zkcli knows.
type command struct {
	usage   string   // zkCli.sh's usage line, without the name
	flags   string   // one-letter options without an argument
	valued  string   // one-letter options that take an argument
	long    []string // long options that take an argument (-name value or --name value)
	minArgs int      // positional arguments needed after the name
	offline bool     // runs without a session (one-shot mode does not connect)
	run     func(*client, *options) error
}

// options is a parsed command line: the command's options and its
// positional arguments (args[0] is the command's name, as in zkCli.sh).
type options struct {
	name  string
	set   map[byte]string
	long  map[string]string // long options given
	order []byte            // the one-letter options in the order given
	args  []string
}

func (o *options) has(f byte) bool { _, ok := o.set[f]; return ok }

// version returns the -v option, -1 when absent.
func (o *options) version() (int32, error) {
	v, ok := o.set['v']
	if !ok {
		return -1, nil
	}
	n, err := strconv.ParseInt(v, 10, 32)
	if err != nil {
		return 0, fmt.Errorf("For input string: \"%s\"", v)
	}
	return int32(n), nil
}

// versionedPath returns the command's path (its first argument) and -v's
// version, checked in zkCli.sh's order: the version, then the path.
func (o *options) versionedPath() (string, int32, error) {
	v, err := o.version()
	if err != nil {
		return "", 0, err
	}
	path := o.args[1]
	if err := validatePath(path); err != nil {
		return "", 0, err
	}
	return path, v, nil
}

var commands map[string]*command

func init() {
	commands = map[string]*command{
		"ls":                   {usage: "[-s] [-w] [-R] path", flags: "swR", minArgs: 1, run: cmdLs},
		"get":                  {usage: "[-s] [-w] path", flags: "sw", minArgs: 1, run: cmdGet},
		"set":                  {usage: "[-s] [-v version] path data", flags: "s", valued: "v", minArgs: 2, run: cmdSet},
		"create":               {usage: "[-s] [-e] [-c] [-t ttl] path [data] [acl]", flags: "sec", valued: "t", minArgs: 1, run: cmdCreate},
		"delete":               {usage: "[-v version] path", valued: "v", minArgs: 1, run: cmdDelete},
		"deleteall":            {usage: "path [-b batch size]", valued: "b", minArgs: 1, run: cmdDeleteAll},
		"stat":                 {usage: "[-w] path", flags: "w", minArgs: 1, run: cmdStat},
		"getAcl":               {usage: "[-s] path", flags: "s", minArgs: 1, run: cmdGetACL},
		"setAcl":               {usage: "[-s] [-v version] [-R] path acl", flags: "sR", valued: "v", minArgs: 2, run: cmdSetACL},
		"addauth":              {usage: "scheme auth", minArgs: 1, run: cmdAddAuth},
		"sync":                 {usage: "path", minArgs: 1, run: cmdSync},
		"getEphemerals":        {usage: "path", run: cmdGetEphemerals},
		"getAllChildrenNumber": {usage: "path", minArgs: 1, run: cmdGetAllChildrenNumber},
		"config":               {usage: "[-c] [-w] [-s]", flags: "cws", run: cmdConfig},
		"setquota":             {usage: setquotaUsage, valued: "nbNB", run: cmdSetQuota},
		"listquota":            {usage: "path", minArgs: 1, run: cmdListQuota},
		"delquota":             {usage: "[-n|-b|-N|-B] path", flags: "nbNB", minArgs: 1, run: cmdDelQuota},
		"reconfig":             {usage: reconfigUsage, flags: "s", valued: "v", long: []string{"file", "members", "add", "remove"}, run: cmdReconfig},
		"tree":                 {usage: "[-s] [path]", flags: "s", run: cmdTree},
		"watch":                {usage: "[-R] [-n count] path", flags: "R", valued: "n", minArgs: 1, run: cmdWatch},
		"export":               {usage: "path [file]", minArgs: 1, run: cmdExport},
		"import":               {usage: "[-o] [-e] file [path]", flags: "oe", minArgs: 1, run: cmdImport},
		"whoami":               {usage: "", run: cmdWhoAmI},
		"addWatch":             {usage: addWatchUsage, valued: "m", minArgs: 1, run: cmdAddWatch},
		"removewatches":        {usage: "path [-c|-d|-a] [-l]", flags: "cdal", minArgs: 1, run: cmdRemoveWatches},
	}
	addSessionCommands()
}

// printCommands lists the commands as zkCli.sh's usage does.
func printCommands(w io.Writer) {
	fmt.Fprintln(w, "ZooKeeper -server host:port -client-configuration properties-file cmd args")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool { return strings.ToLower(names[i]) < strings.ToLower(names[j]) })
	for _, n := range names {
		fmt.Fprintf(w, "\t%s %s\n", n, commands[n].usage)
	}
}

// parseOptions splits words (the command's name first) into options and
// positional arguments the way zkCli.sh's option parser does: options may
// come anywhere, "--" ends them, and an unknown option is an error (with
// the message of commons-cli's exception, which zkCli.sh prints). The
// watch option -w is accepted and ignored (one-shot mode has no watches).
func parseOptions(cmd *command, words []string) (*options, error) {
	o := &options{name: words[0], set: map[byte]string{}, long: map[string]string{}, args: []string{words[0]}}
	usage := fmt.Errorf("%s %s", words[0], cmd.usage)
	rest := words[1:]
	for i := 0; i < len(rest); i++ {
		w := rest[i]
		if w == "--" {
			o.args = append(o.args, rest[i+1:]...)
			break
		}
		if len(w) < 2 || w[0] != '-' {
			o.args = append(o.args, w)
			continue
		}
		if name := strings.TrimLeft(w, "-"); slices.Contains(cmd.long, name) {
			if i+1 >= len(rest) {
				return nil, fmt.Errorf("org.apache.commons.cli.MissingArgumentException: Missing argument for option: %s", name)
			}
			i++
			o.long[name] = rest[i]
			continue
		}
		f := w[1]
		switch {
		case len(w) == 2 && strings.IndexByte(cmd.flags, f) >= 0:
			o.set[f] = ""
			o.order = append(o.order, f)
		case strings.IndexByte(cmd.valued, f) >= 0:
			v := w[2:]
			if v == "" {
				if i+1 >= len(rest) {
					return nil, fmt.Errorf("org.apache.commons.cli.MissingArgumentException: Missing argument for option: %c", f)
				}
				i++
				v = rest[i]
			}
			o.set[f] = v
			o.order = append(o.order, f)
		default:
			return nil, fmt.Errorf("org.apache.commons.cli.UnrecognizedOptionException: Unrecognized option: %s", w)
		}
	}
	if len(o.args)-1 < cmd.minArgs {
		return nil, usage
	}
	return o, nil
}
