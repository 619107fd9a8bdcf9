package wire

// CreateRequest is the body of create (1), create2 (15) and
// createContainer (19) requests.
type CreateRequest struct {
	// Path is the node to create (a sequential suffix may be added).
	Path string
	// Data is the initial data; nil is encoded as a null buffer.
	Data []byte
	// ACL is the node's ACL.
	ACL []ACL
	// Flags is the CreateMode flag (FlagPersistent, FlagEphemeral, ...).
	Flags int32
}

// Encode implements Record.
func (r *CreateRequest) Encode(e *Encoder) {
	e.String(r.Path)
	e.Buffer(r.Data)
	EncodeACLs(e, r.ACL)
	e.Int(r.Flags)
}

// Decode implements Record.
func (r *CreateRequest) Decode(d *Decoder) {
	r.Path = d.String()
	r.Data = d.Buffer()
	r.ACL = DecodeACLs(d)
	r.Flags = d.Int()
}

// CreateTTLRequest is the body of a createTTL (21) request.
type CreateTTLRequest struct {
	// Path is the node to create.
	Path string
	// Data is the initial data.
	Data []byte
	// ACL is the node's ACL.
	ACL []ACL
	// Flags is FlagPersistentWithTTL or FlagPersistentSequentialWithTTL.
	Flags int32
	// TTL is the time to live in milliseconds.
	TTL int64
}

// Encode implements Record.
func (r *CreateTTLRequest) Encode(e *Encoder) {
	e.String(r.Path)
	e.Buffer(r.Data)
	EncodeACLs(e, r.ACL)
	e.Int(r.Flags)
	e.Long(r.TTL)
}

// Decode implements Record.
func (r *CreateTTLRequest) Decode(d *Decoder) {
	r.Path = d.String()
	r.Data = d.Buffer()
	r.ACL = DecodeACLs(d)
	r.Flags = d.Int()
	r.TTL = d.Long()
}

// CreateResponse is the reply to create (1): the actual path created.
type CreateResponse struct {
	// Path is the created path, including any sequence suffix.
	Path string
}

// Encode implements Record.
func (r *CreateResponse) Encode(e *Encoder) { e.String(r.Path) }

// Decode implements Record.
func (r *CreateResponse) Decode(d *Decoder) { r.Path = d.String() }

// Create2Response is the reply to create2, createContainer and createTTL.
type Create2Response struct {
	// Path is the created path, including any sequence suffix.
	Path string
	// Stat is the new node's Stat.
	Stat Stat
}

// Encode implements Record.
func (r *Create2Response) Encode(e *Encoder) {
	e.String(r.Path)
	r.Stat.Encode(e)
}

// Decode implements Record.
func (r *Create2Response) Decode(d *Decoder) {
	r.Path = d.String()
	r.Stat.Decode(d)
}

// DeleteRequest is the body of a delete (2) request.
type DeleteRequest struct {
	// Path is the node to delete.
	Path string
	// Version is the expected data version, -1 for any.
	Version int32
}

// Encode implements Record.
func (r *DeleteRequest) Encode(e *Encoder) {
	e.String(r.Path)
	e.Int(r.Version)
}

// Decode implements Record.
func (r *DeleteRequest) Decode(d *Decoder) {
	r.Path = d.String()
	r.Version = d.Int()
}

// DeleteContainerRequest is the body of deleteContainer (20). In ZooKeeper
// 3.8 the body is the raw UTF-8 path with no length prefix, so Decode takes
// every remaining byte and Encode writes the bytes alone.
type DeleteContainerRequest struct {
	// Path is the container or TTL node to delete.
	Path string
}

// Encode implements Record.
func (r *DeleteContainerRequest) Encode(e *Encoder) { e.buf = append(e.buf, r.Path...) }

// Decode implements Record.
func (r *DeleteContainerRequest) Decode(d *Decoder) { r.Path = string(d.take(d.Remaining())) }

// PathRequest is a request whose body is a single path: getACL (6),
// sync (9) and getAllChildrenNumber (104).
type PathRequest struct {
	// Path is the node the request is about.
	Path string
	// null is set by Decode when the path arrived null (length -1).
	null bool
}

// PathNull reports whether the path arrived null (it decodes as "").
func (r *PathRequest) PathNull() bool { return r.null }

// Encode implements Record. A path that was decoded null is written null.
func (r *PathRequest) Encode(e *Encoder) { nullableString(e, r.Path, r.null) }

// Decode implements Record.
func (r *PathRequest) Decode(d *Decoder) {
	r.null = d.PeekNull()
	r.Path = d.String()
}

// nullableString writes s, or a null string when null is set and s is "".
func nullableString(e *Encoder, s string, null bool) {
	if null && s == "" {
		e.Int(-1)
		return
	}
	e.String(s)
}

// GetACLRequest is the body of getACL (6).
type GetACLRequest = PathRequest

// SyncRequest is the body of sync (9).
type SyncRequest = PathRequest

// GetAllChildrenNumberRequest is the body of getAllChildrenNumber (104).
type GetAllChildrenNumberRequest = PathRequest

// PathResponse is a reply whose body is a single path.
type PathResponse struct {
	// Path is the echoed path.
	Path string
	// Null writes an empty Path as a null string, echoing a request whose
	// path arrived null as ZooKeeper does (Decode sets it for a null path).
	Null bool
}

// Encode implements Record.
func (r *PathResponse) Encode(e *Encoder) { nullableString(e, r.Path, r.Null) }

// Decode implements Record.
func (r *PathResponse) Decode(d *Decoder) {
	r.Null = d.PeekNull()
	r.Path = d.String()
}

// SyncResponse is the reply to sync (9).
type SyncResponse = PathResponse

// StatResponse is a reply whose body is a single Stat.
type StatResponse struct {
	// Stat is the node's Stat.
	Stat Stat
}

// Encode implements Record.
func (r *StatResponse) Encode(e *Encoder) { r.Stat.Encode(e) }

// Decode implements Record.
func (r *StatResponse) Decode(d *Decoder) { r.Stat.Decode(d) }

// ExistsResponse is the reply to exists (3).
type ExistsResponse = StatResponse

// SetDataResponse is the reply to setData (5).
type SetDataResponse = StatResponse

// SetACLResponse is the reply to setACL (7).
type SetACLResponse = StatResponse

// GetDataResponse is the reply to getData (4) and reconfig (16).
type GetDataResponse struct {
	// Data is the node's data; nil is encoded as a null buffer.
	Data []byte
	// Stat is the node's Stat.
	Stat Stat
}

// Encode implements Record.
func (r *GetDataResponse) Encode(e *Encoder) {
	e.Buffer(r.Data)
	r.Stat.Encode(e)
}

// Decode implements Record.
func (r *GetDataResponse) Decode(d *Decoder) {
	r.Data = d.Buffer()
	r.Stat.Decode(d)
}

// SetDataRequest is the body of setData (5).
type SetDataRequest struct {
	// Path is the node to update.
	Path string
	// Data is the new data.
	Data []byte
	// Version is the expected data version, -1 for any.
	Version int32
}

// Encode implements Record.
func (r *SetDataRequest) Encode(e *Encoder) {
	e.String(r.Path)
	e.Buffer(r.Data)
	e.Int(r.Version)
}

// Decode implements Record.
func (r *SetDataRequest) Decode(d *Decoder) {
	r.Path = d.String()
	r.Data = d.Buffer()
	r.Version = d.Int()
}

// GetACLResponse is the reply to getACL (6).
type GetACLResponse struct {
	// ACL is the node's ACL.
	ACL []ACL
	// Stat is the node's Stat.
	Stat Stat
}

// Encode implements Record.
func (r *GetACLResponse) Encode(e *Encoder) {
	EncodeACLs(e, r.ACL)
	r.Stat.Encode(e)
}

// Decode implements Record.
func (r *GetACLResponse) Decode(d *Decoder) {
	r.ACL = DecodeACLs(d)
	r.Stat.Decode(d)
}

// SetACLRequest is the body of setACL (7).
type SetACLRequest struct {
	// Path is the node to update.
	Path string
	// ACL is the new ACL.
	ACL []ACL
	// Version is the expected ACL version (aversion), -1 for any.
	Version int32
}

// Encode implements Record.
func (r *SetACLRequest) Encode(e *Encoder) {
	e.String(r.Path)
	EncodeACLs(e, r.ACL)
	e.Int(r.Version)
}

// Decode implements Record.
func (r *SetACLRequest) Decode(d *Decoder) {
	r.Path = d.String()
	r.ACL = DecodeACLs(d)
	r.Version = d.Int()
}

// GetChildrenResponse is the reply to getChildren (8).
type GetChildrenResponse struct {
	// Children are the child names (not full paths).
	Children []string
}

// Encode implements Record.
func (r *GetChildrenResponse) Encode(e *Encoder) { e.Strings(r.Children) }

// Decode implements Record.
func (r *GetChildrenResponse) Decode(d *Decoder) { r.Children = d.Strings() }

// GetChildren2Response is the reply to getChildren2 (12).
type GetChildren2Response struct {
	// Children are the child names (not full paths).
	Children []string
	// Stat is the parent's Stat.
	Stat Stat
}

// Encode implements Record.
func (r *GetChildren2Response) Encode(e *Encoder) {
	e.Strings(r.Children)
	r.Stat.Encode(e)
}

// Decode implements Record.
func (r *GetChildren2Response) Decode(d *Decoder) {
	r.Children = d.Strings()
	r.Stat.Decode(d)
}

// CheckVersionRequest is the body of a check (13) op inside multi.
type CheckVersionRequest struct {
	// Path is the node to check.
	Path string
	// Version is the expected data version, -1 for any.
	Version int32
}

// Encode implements Record.
func (r *CheckVersionRequest) Encode(e *Encoder) {
	e.String(r.Path)
	e.Int(r.Version)
}

// Decode implements Record.
func (r *CheckVersionRequest) Decode(d *Decoder) {
	r.Path = d.String()
	r.Version = d.Int()
}

// ReconfigRequest is the body of reconfig (16). The reply is a
// GetDataResponse holding the new configuration.
type ReconfigRequest struct {
	// JoiningServers is the incremental "server.N=..." list to add.
	JoiningServers string
	// LeavingServers is the incremental list of server ids to remove.
	LeavingServers string
	// NewMembers is the non-incremental full membership.
	NewMembers string
	// CurConfigID is the expected current config version, -1 for any.
	CurConfigID int64
	// newMembersSent is set by Decode when NewMembers was not null.
	newMembersSent bool
}

// NonIncremental reports whether the request names a full membership. As
// in ZooKeeper, that is when newMembers is not null on the wire, even if it
// is empty (then joining and leaving servers are ignored); a request built
// in Go is non-incremental when NewMembers is not "".
func (r *ReconfigRequest) NonIncremental() bool { return r.newMembersSent || r.NewMembers != "" }

// Encode implements Record. Empty strings are written as null, as
// ZooKeeper's clients send the lists they leave out, except an empty
// NewMembers that was decoded non-null.
func (r *ReconfigRequest) Encode(e *Encoder) {
	optionalString(e, r.JoiningServers, false)
	optionalString(e, r.LeavingServers, false)
	optionalString(e, r.NewMembers, r.newMembersSent)
	e.Long(r.CurConfigID)
}

func optionalString(e *Encoder, s string, sent bool) {
	if s == "" && !sent {
		e.Int(-1)
		return
	}
	e.String(s)
}

// Decode implements Record.
func (r *ReconfigRequest) Decode(d *Decoder) {
	r.JoiningServers = d.String()
	r.LeavingServers = d.String()
	r.newMembersSent = !d.PeekNull()
	r.NewMembers = d.String()
	r.CurConfigID = d.Long()
}

// GetEphemeralsRequest is the body of getEphemerals (103).
type GetEphemeralsRequest struct {
	// PrefixPath is a plain string prefix; "" or "/" means all.
	PrefixPath string
}

// Encode implements Record.
func (r *GetEphemeralsRequest) Encode(e *Encoder) { e.String(r.PrefixPath) }

// Decode implements Record.
func (r *GetEphemeralsRequest) Decode(d *Decoder) { r.PrefixPath = d.String() }

// GetEphemeralsResponse is the reply to getEphemerals (103).
type GetEphemeralsResponse struct {
	// Ephemerals are absolute paths of the session's ephemeral nodes.
	Ephemerals []string
}

// Encode implements Record.
func (r *GetEphemeralsResponse) Encode(e *Encoder) { e.Strings(r.Ephemerals) }

// Decode implements Record.
func (r *GetEphemeralsResponse) Decode(d *Decoder) { r.Ephemerals = d.Strings() }

// GetAllChildrenNumberResponse is the reply to getAllChildrenNumber (104).
type GetAllChildrenNumberResponse struct {
	// TotalNumber is the number of descendants, excluding the node itself.
	TotalNumber int32
}

// Encode implements Record.
func (r *GetAllChildrenNumberResponse) Encode(e *Encoder) { e.Int(r.TotalNumber) }

// Decode implements Record.
func (r *GetAllChildrenNumberResponse) Decode(d *Decoder) { r.TotalNumber = d.Int() }
