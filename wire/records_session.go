package wire

// ConnectRequest is the handshake a client sends as the first frame of a
// connection (no RequestHeader precedes it).
type ConnectRequest struct {
	// ProtocolVersion is 0 for every known client.
	ProtocolVersion int32
	// LastZxidSeen is the highest zxid the client has seen (0 for new).
	LastZxidSeen int64
	// TimeOut is the requested session timeout in milliseconds.
	TimeOut int32
	// SessionID is 0 for a new session, else the session to resume.
	SessionID int64
	// Passwd is the session password (16 bytes; zeros for a new session).
	Passwd []byte
	// ReadOnly is the client's "can be served read-only" flag. It is only
	// meaningful when HasReadOnly is set.
	ReadOnly bool
	// HasReadOnly records whether the optional trailing readOnly byte was
	// (or is to be) present. go-zk omits it; Java and kazoo send it.
	HasReadOnly bool
}

// Encode implements Record. The readOnly byte is written only if HasReadOnly.
func (r *ConnectRequest) Encode(e *Encoder) {
	e.Int(r.ProtocolVersion)
	e.Long(r.LastZxidSeen)
	e.Int(r.TimeOut)
	e.Long(r.SessionID)
	e.Buffer(r.Passwd)
	if r.HasReadOnly {
		e.Bool(r.ReadOnly)
	}
}

// Decode implements Record. The readOnly byte is read only if at least one
// byte remains after passwd; HasReadOnly reports whether it was there.
func (r *ConnectRequest) Decode(d *Decoder) {
	r.ProtocolVersion = d.Int()
	r.LastZxidSeen = d.Long()
	r.TimeOut = d.Int()
	r.SessionID = d.Long()
	r.Passwd = d.Buffer()
	r.ReadOnly, r.HasReadOnly = decodeOptionalBool(d)
}

// ConnectResponse is the server's answer to a ConnectRequest (no
// ReplyHeader precedes it).
type ConnectResponse struct {
	// ProtocolVersion is 0.
	ProtocolVersion int32
	// TimeOut is the negotiated session timeout in milliseconds; 0 tells
	// the client its session is expired or invalid.
	TimeOut int32
	// SessionID is the session id, 0 if invalid.
	SessionID int64
	// Passwd is the 16-byte session password (all zeros if invalid).
	Passwd []byte
	// ReadOnly is true when the server is in read-only mode. It is only
	// meaningful when HasReadOnly is set.
	ReadOnly bool
	// HasReadOnly records whether the trailing readOnly byte is present;
	// ZooKeeper sends it only if the ConnectRequest carried one.
	HasReadOnly bool
}

// Encode implements Record. The readOnly byte is written only if HasReadOnly.
func (r *ConnectResponse) Encode(e *Encoder) {
	e.Int(r.ProtocolVersion)
	e.Int(r.TimeOut)
	e.Long(r.SessionID)
	e.Buffer(r.Passwd)
	if r.HasReadOnly {
		e.Bool(r.ReadOnly)
	}
}

// Decode implements Record, with the same optional trailing byte rule as
// ConnectRequest.Decode.
func (r *ConnectResponse) Decode(d *Decoder) {
	r.ProtocolVersion = d.Int()
	r.TimeOut = d.Int()
	r.SessionID = d.Long()
	r.Passwd = d.Buffer()
	r.ReadOnly, r.HasReadOnly = decodeOptionalBool(d)
}

// decodeOptionalBool reads a trailing boolean if the decoder is healthy and
// has a byte left.
func decodeOptionalBool(d *Decoder) (v, present bool) {
	if d.Err() != nil || d.Remaining() < 1 {
		return false, false
	}
	return d.Bool(), true
}

// AuthPacket is the body of an auth (100) request: addAuth(scheme, auth).
type AuthPacket struct {
	// Type is always 0 in practice.
	Type int32
	// Scheme is the auth scheme, e.g. "digest".
	Scheme string
	// Auth is the scheme-specific credential, e.g. "user:password".
	Auth []byte
}

// Encode implements Record.
func (r *AuthPacket) Encode(e *Encoder) {
	e.Int(r.Type)
	e.String(r.Scheme)
	e.Buffer(r.Auth)
}

// Decode implements Record.
func (r *AuthPacket) Decode(d *Decoder) {
	r.Type = d.Int()
	r.Scheme = d.String()
	r.Auth = d.Buffer()
}

// SASLRequest is the body of a sasl (102) request (jute GetSASLRequest).
type SASLRequest struct {
	// Token is the client's SASL token.
	Token []byte
}

// Encode implements Record.
func (r *SASLRequest) Encode(e *Encoder) { e.Buffer(r.Token) }

// Decode implements Record.
func (r *SASLRequest) Decode(d *Decoder) { r.Token = d.Buffer() }

// SASLResponse is the reply to a sasl request (jute SetSASLResponse).
type SASLResponse struct {
	// Token is the server's SASL challenge or final token.
	Token []byte
}

// Encode implements Record.
func (r *SASLResponse) Encode(e *Encoder) { e.Buffer(r.Token) }

// Decode implements Record.
func (r *SASLResponse) Decode(d *Decoder) { r.Token = d.Buffer() }

// ErrorResponse carries a bare error code: the body of an error result in a
// MultiResponse and the reply to addWatch.
type ErrorResponse struct {
	// Err is the error code (CodeOK for success).
	Err Code
}

// Encode implements Record.
func (r *ErrorResponse) Encode(e *Encoder) { e.Int(int32(r.Err)) }

// Decode implements Record.
func (r *ErrorResponse) Decode(d *Decoder) { r.Err = Code(d.Int()) }

// ClientInfo is one authenticated identity in a WhoAmIResponse.
type ClientInfo struct {
	// AuthScheme is the scheme of the identity, e.g. "ip" or "digest".
	AuthScheme string
	// User is the user within the scheme.
	User string
}

// Encode implements Record.
func (r *ClientInfo) Encode(e *Encoder) {
	e.String(r.AuthScheme)
	e.String(r.User)
}

// Decode implements Record.
func (r *ClientInfo) Decode(d *Decoder) {
	r.AuthScheme = d.String()
	r.User = d.String()
}

// WhoAmIResponse is the reply to whoAmI (107): the connection's auth ids.
type WhoAmIResponse struct {
	// ClientInfo lists the identities; nil is encoded as a null vector.
	ClientInfo []ClientInfo
}

// Encode implements Record.
func (r *WhoAmIResponse) Encode(e *Encoder) {
	if r.ClientInfo == nil {
		e.Int(-1)
		return
	}
	e.Int(int32(len(r.ClientInfo)))
	for i := range r.ClientInfo {
		r.ClientInfo[i].Encode(e)
	}
}

// Decode implements Record.
func (r *WhoAmIResponse) Decode(d *Decoder) {
	n := d.Count(8)
	if n < 0 || d.Err() != nil {
		r.ClientInfo = nil
		return
	}
	r.ClientInfo = make([]ClientInfo, 0, d.Prealloc(n, 8))
	for i := 0; i < n && d.Err() == nil; i++ {
		var c ClientInfo
		c.Decode(d)
		r.ClientInfo = append(r.ClientInfo, c)
	}
}
