package admin

import (
	"maps"
	"slices"
	"strconv"
)

// The commands about sessions, ephemerals and watches.

// runDump maps expiry times to the sessions expiring then (only the
// leader tracks expiry) and sessions to their ephemeral nodes.
func runDump(r *request) Object {
	expiries := r.view.SessionExpiries()
	byTime := Object{}
	for _, at := range slices.Sorted(maps.Keys(expiries)) {
		byTime = append(byTime, Field{strconv.FormatInt(at, 10), expiries[at]})
	}
	eph := r.view.Ephemerals()
	bySession := Object{}
	for _, id := range slices.Sorted(maps.Keys(eph)) {
		paths := slices.Sorted(slices.Values(eph[id]))
		bySession = append(bySession, Field{strconv.FormatInt(id, 10), paths})
	}
	return Object{{"expiry_time_to_session_ids", byTime}, {"session_id_to_ephemeral_paths", bySession}}
}

func runWatchSummary(r *request) Object {
	conns, paths, total := r.view.WatchSummary()
	return Object{{"num_connections", conns}, {"num_paths", paths}, {"num_total_watches", total}}
}

func runWatches(r *request) Object {
	w := r.view.WatchesBySession()
	o := Object{}
	for _, id := range slices.Sorted(maps.Keys(w)) {
		o = append(o, Field{strconv.FormatInt(id, 10), w[id]})
	}
	return Object{{"session_id_to_watched_paths", o}}
}

func runWatchesByPath(r *request) Object {
	w := r.view.WatchesByPath()
	o := Object{}
	for _, p := range slices.Sorted(maps.Keys(w)) {
		ids := w[p]
		if !slices.IsSorted(ids) { // the server's are; copy only others
			ids = slices.Sorted(slices.Values(ids))
		}
		o = append(o, Field{p, ids})
	}
	return Object{{"path_to_session_ids", o}}
}
