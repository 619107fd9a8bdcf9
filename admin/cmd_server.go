package admin

import (
	"strconv"
)

// The commands about the server itself: its configuration, directories,
// environment, trace mask, snapshots and figures.

func runConfiguration(r *request) Object {
	c := r.view.Config()
	return Object{
		{"client_port", r.view.ClientPort()},
		{"data_dir", c.DataDir},
		{"data_log_dir", c.DataLogDir},
		{"tick_time", c.TickTime.Milliseconds()},
		{"max_client_cnxns", c.MaxClientCnxns},
		{"min_session_timeout", c.MinSession().Milliseconds()},
		{"max_session_timeout", c.MaxSession().Milliseconds()},
		{"server_id", c.ServerID},
		{"client_port_listen_backlog", -1},
	}
}

func runDirs(r *request) Object {
	data, log := r.view.DirSizes()
	return Object{{"datadir_size", data}, {"logdir_size", log}}
}

func runEnvironment(r *request) Object {
	var o Object
	for _, e := range r.view.Environment() {
		o = append(o, Field{e.Key, e.Value})
	}
	return o
}

func runSystemProperties(r *request) Object {
	var o Object
	for _, e := range r.view.SystemProperties() {
		o = append(o, Field{e.Key, e.Value})
	}
	return o
}

func runGetTraceMask(r *request) Object {
	return Object{{"tracemask", r.view.TraceMask()}}
}

// runSetTraceMask wants ?traceMask=<long>; its errors go into the
// response's own "error" field, as ZooKeeper's do.
func runSetTraceMask(r *request) Object {
	v, ok := r.args["traceMask"]
	if !ok {
		return Object{{"error", "setTraceMask requires long traceMask argument"}}
	}
	mask, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return Object{{"error", "setTraceMask requires long traceMask argument, got " + v}}
	}
	r.view.SetTraceMask(mask)
	return Object{{"tracemask", mask}}
}

// runHash lists the digests of ZooKeeper's digest log; zkraft keeps none
// (its replicas' states are compared by Raft's log, not by digests).
func runHash(*request) Object { return Object{{"digests", []any{}}} }

// runInitialConfiguration returns the zoo.cfg text a standalone server
// was started from (null in an ensemble, as ZooKeeper).
func runInitialConfiguration(r *request) Object {
	var v any
	if r.view.Standalone() && r.opts.InitialConfig != "" {
		v = r.opts.InitialConfig
	}
	return Object{{"initial_configuration", v}}
}

func runIsReadOnly(r *request) Object { return Object{{"read_only", r.view.ReadOnly()}} }

// runLastSnapshot reports the last snapshot's zxid in hex without 0x and
// its time in seconds; without one, ZooKeeper's -1 for both.
func runLastSnapshot(r *request) Object {
	zxid, at, ok := r.view.LastSnapshot()
	if !ok {
		return Object{{"zxid", strconv.FormatUint(^uint64(0), 16)}, {"timestamp", int64(-1)}}
	}
	return Object{{"zxid", strconv.FormatUint(uint64(zxid), 16)}, {"timestamp", at.Unix()}}
}

// runMonitor serves mntr's figures with their types: numbers as numbers.
func runMonitor(r *request) Object {
	rows := r.view.Monitor()
	o := make(Object, 0, len(rows))
	for _, row := range rows {
		o = append(o, Field{row.Key, row.Value})
	}
	return o
}
