package wire

// PathWatchRequest is a read request with an optional watch: exists (3),
// getData (4), getChildren (8) and getChildren2 (12).
type PathWatchRequest struct {
	// Path is the node to read.
	Path string
	// Watch asks the server to leave a watch on the node.
	Watch bool
}

// Encode implements Record.
func (r *PathWatchRequest) Encode(e *Encoder) {
	e.String(r.Path)
	e.Bool(r.Watch)
}

// Decode implements Record.
func (r *PathWatchRequest) Decode(d *Decoder) {
	r.Path = d.String()
	r.Watch = d.Bool()
}

// ExistsRequest is the body of exists (3).
type ExistsRequest = PathWatchRequest

// GetDataRequest is the body of getData (4).
type GetDataRequest = PathWatchRequest

// GetChildrenRequest is the body of getChildren (8).
type GetChildrenRequest = PathWatchRequest

// GetChildren2Request is the body of getChildren2 (12).
type GetChildren2Request = PathWatchRequest

// WatchesRequest is the body of checkWatches (17) and removeWatches (18).
type WatchesRequest struct {
	// Path is the watched node.
	Path string
	// Type is a watcher type (WatcherChildren, WatcherData, ...).
	Type int32
}

// Encode implements Record.
func (r *WatchesRequest) Encode(e *Encoder) {
	e.String(r.Path)
	e.Int(r.Type)
}

// Decode implements Record.
func (r *WatchesRequest) Decode(d *Decoder) {
	r.Path = d.String()
	r.Type = d.Int()
}

// CheckWatchesRequest is the body of checkWatches (17).
type CheckWatchesRequest = WatchesRequest

// RemoveWatchesRequest is the body of removeWatches (18).
type RemoveWatchesRequest = WatchesRequest

// AddWatchRequest is the body of addWatch (106). The reply is an
// ErrorResponse.
type AddWatchRequest struct {
	// Path is the node to watch; it need not exist.
	Path string
	// Mode is AddWatchPersistent or AddWatchPersistentRecursive.
	Mode int32
}

// Encode implements Record.
func (r *AddWatchRequest) Encode(e *Encoder) {
	e.String(r.Path)
	e.Int(r.Mode)
}

// Decode implements Record.
func (r *AddWatchRequest) Decode(d *Decoder) {
	r.Path = d.String()
	r.Mode = d.Int()
}

// SetWatches is the body of setWatches (101), sent after a reconnect to
// re-register watches.
type SetWatches struct {
	// RelativeZxid is the last zxid the client has seen.
	RelativeZxid int64
	// DataWatches are paths with data watches.
	DataWatches []string
	// ExistWatches are paths with exist watches (nodes that did not exist).
	ExistWatches []string
	// ChildWatches are paths with child watches.
	ChildWatches []string
	// nullPath is set when one of the lists above held a null string.
	nullPath bool
}

// NullPath reports whether a data, exist or child watch path arrived null
// (jute length -1; it decodes as "").
func (r *SetWatches) NullPath() bool { return r.nullPath }

// Encode implements Record.
func (r *SetWatches) Encode(e *Encoder) {
	e.Long(r.RelativeZxid)
	e.Strings(r.DataWatches)
	e.Strings(r.ExistWatches)
	e.Strings(r.ChildWatches)
}

// Decode implements Record.
func (r *SetWatches) Decode(d *Decoder) {
	nulls := d.Nulls()
	r.RelativeZxid = d.Long()
	r.DataWatches = d.Strings()
	r.ExistWatches = d.Strings()
	r.ChildWatches = d.Strings()
	r.nullPath = d.Nulls() > nulls
}

// SetWatches2 is the body of setWatches2 (105): SetWatches plus persistent
// and persistent-recursive watches.
type SetWatches2 struct {
	// RelativeZxid is the last zxid the client has seen.
	RelativeZxid int64
	// DataWatches are paths with data watches.
	DataWatches []string
	// ExistWatches are paths with exist watches.
	ExistWatches []string
	// ChildWatches are paths with child watches.
	ChildWatches []string
	// PersistentWatches are paths with persistent watches.
	PersistentWatches []string
	// PersistentRecursiveWatches are paths with persistent recursive watches.
	PersistentRecursiveWatches []string
	// nullPath is set when a data, exist or child watch path was null.
	nullPath bool
}

// NullPath reports whether a data, exist or child watch path arrived null
// (jute length -1; it decodes as ""). Null persistent watch paths are not
// reported: ZooKeeper 3.8 accepts those.
func (r *SetWatches2) NullPath() bool { return r.nullPath }

// Encode implements Record.
func (r *SetWatches2) Encode(e *Encoder) {
	e.Long(r.RelativeZxid)
	e.Strings(r.DataWatches)
	e.Strings(r.ExistWatches)
	e.Strings(r.ChildWatches)
	e.Strings(r.PersistentWatches)
	e.Strings(r.PersistentRecursiveWatches)
}

// Decode implements Record.
func (r *SetWatches2) Decode(d *Decoder) {
	nulls := d.Nulls()
	r.RelativeZxid = d.Long()
	r.DataWatches = d.Strings()
	r.ExistWatches = d.Strings()
	r.ChildWatches = d.Strings()
	r.nullPath = d.Nulls() > nulls
	r.PersistentWatches = d.Strings()
	r.PersistentRecursiveWatches = d.Strings()
}
