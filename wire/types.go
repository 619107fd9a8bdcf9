package wire

// Stat is a znode's metadata, in wire order (68 bytes).
type Stat struct {
	Czxid          int64
	Mzxid          int64
	Ctime          int64
	Mtime          int64
	Version        int32
	Cversion       int32
	Aversion       int32
	EphemeralOwner int64
	DataLength     int32
	NumChildren    int32
	Pzxid          int64
}

// Encode implements Record.
func (s *Stat) Encode(e *Encoder) {
	e.Long(s.Czxid)
	e.Long(s.Mzxid)
	e.Long(s.Ctime)
	e.Long(s.Mtime)
	e.Int(s.Version)
	e.Int(s.Cversion)
	e.Int(s.Aversion)
	e.Long(s.EphemeralOwner)
	e.Int(s.DataLength)
	e.Int(s.NumChildren)
	e.Long(s.Pzxid)
}

// Decode implements Record.
func (s *Stat) Decode(d *Decoder) {
	s.Czxid = d.Long()
	s.Mzxid = d.Long()
	s.Ctime = d.Long()
	s.Mtime = d.Long()
	s.Version = d.Int()
	s.Cversion = d.Int()
	s.Aversion = d.Int()
	s.EphemeralOwner = d.Long()
	s.DataLength = d.Int()
	s.NumChildren = d.Int()
	s.Pzxid = d.Long()
}

// Id is an authentication identity: a scheme and an id within it.
type Id struct {
	Scheme string
	ID     string
}

// NullIDField is what Id.Decode stores for a null scheme or id (jute
// length -1), and Id.Encode writes back as null. It is not valid UTF-8, so
// no string decoded from the wire equals it. ZooKeeper keeps Java's null
// there and fails on it in some places where "" would be refused
// differently (an ACL world:null is MARSHALLINGERROR, world:"" INVALIDACL).
const NullIDField = "\xff<null>"

// Encode implements Record.
func (i *Id) Encode(e *Encoder) {
	idString(e, i.Scheme)
	idString(e, i.ID)
}

func idString(e *Encoder, s string) {
	if s == NullIDField {
		e.Int(-1)
		return
	}
	e.String(s)
}

// Decode implements Record.
func (i *Id) Decode(d *Decoder) {
	i.Scheme = idField(d)
	i.ID = idField(d)
}

func idField(d *Decoder) string {
	if d.PeekNull() {
		_ = d.String() // consumes the null length
		return NullIDField
	}
	return d.stringFrom(commonIDFields[:])
}

// commonIDFields are the schemes and ids most ACLs carry: a decoded ACL
// shares these strings instead of allocating its own copies (every
// create carries an ACL, so a restart replaying millions of them would
// allocate two strings each).
var commonIDFields = [...]string{"world", "anyone", "digest", "ip", "auth", "sasl", "x509", "super"}

// ACL grants Perms to an Id.
type ACL struct {
	Perms int32
	ID    Id
}

// Encode implements Record.
func (a *ACL) Encode(e *Encoder) {
	e.Int(a.Perms)
	a.ID.Encode(e)
}

// Decode implements Record.
func (a *ACL) Decode(d *Decoder) {
	a.Perms = d.Int()
	a.ID.Decode(d)
}

// EncodeACLs writes a vector of ACLs; nil is count -1.
func EncodeACLs(e *Encoder, acl []ACL) {
	if acl == nil {
		e.Int(-1)
		return
	}
	e.Int(int32(len(acl)))
	for i := range acl {
		acl[i].Encode(e)
	}
}

// DecodeACLs reads a vector of ACLs; count -1 gives nil.
func DecodeACLs(d *Decoder) []ACL {
	n := d.Count(12)
	if n < 0 || d.Err() != nil {
		return nil
	}
	out := d.acls.take(d.Prealloc(n, 12))[:0]
	for i := 0; i < n && d.Err() == nil; i++ {
		var a ACL
		a.Decode(d)
		out = append(out, a)
	}
	return out
}

// Predefined ACLs (ZooDefs.Ids).
var (
	// AnyoneID is world:anyone.
	AnyoneID = Id{Scheme: "world", ID: "anyone"}
	// OpenACLUnsafe gives everyone every permission.
	OpenACLUnsafe = []ACL{{Perms: PermAll, ID: AnyoneID}}
	// ReadACLUnsafe gives everyone read permission.
	ReadACLUnsafe = []ACL{{Perms: PermRead, ID: AnyoneID}}
	// CreatorAllACL gives the creator's authenticated ids every permission.
	CreatorAllACL = []ACL{{Perms: PermAll, ID: Id{Scheme: "auth", ID: ""}}}
)

// RequestHeader starts every request after the handshake.
type RequestHeader struct {
	Xid  int32
	Type Op
}

// Encode implements Record.
func (h *RequestHeader) Encode(e *Encoder) {
	e.Int(h.Xid)
	e.Int(int32(h.Type))
}

// Decode implements Record.
func (h *RequestHeader) Decode(d *Decoder) {
	h.Xid = d.Int()
	h.Type = Op(d.Int())
}

// ReplyHeader starts every reply and notification (16 bytes).
type ReplyHeader struct {
	Xid  int32
	Zxid int64
	Err  Code
}

// Encode implements Record.
func (h *ReplyHeader) Encode(e *Encoder) {
	e.Int(h.Xid)
	e.Long(h.Zxid)
	e.Int(int32(h.Err))
}

// Decode implements Record.
func (h *ReplyHeader) Decode(d *Decoder) {
	h.Xid = d.Int()
	h.Zxid = d.Long()
	h.Err = Code(d.Int())
}

// WatcherEvent is the body of a notification (xid -1).
type WatcherEvent struct {
	Type  EventType
	State int32
	Path  string
}

// Encode implements Record.
func (w *WatcherEvent) Encode(e *Encoder) {
	e.Int(int32(w.Type))
	e.Int(w.State)
	e.String(w.Path)
}

// Decode implements Record.
func (w *WatcherEvent) Decode(d *Decoder) {
	w.Type = EventType(d.Int())
	w.State = d.Int()
	w.Path = d.String()
}
